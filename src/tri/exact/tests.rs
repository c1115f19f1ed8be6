//! Unit tests of the exact arithmetic: directed rounding, intervals and dyadic rationals.

use super::*;
use crate::rng::Rng;

fn d(x: f64) -> Dyadic {
    Dyadic::from_f64(x)
}

/// A float with a random sign, 53-bit mantissa and binary exponent in `[lo, hi]`.
fn rand_f64(r: &mut Rng, lo: i32, hi: i32) -> f64 {
    let e = lo + r.below((hi - lo + 1) as u64) as i32;
    let m = 1.0 + r.f64();
    let x = m * 2f64.powi(e / 2) * 2f64.powi(e - e / 2);
    if r.below(2) == 0 { x } else { -x }
}

/// `x` lies in `iv`, exactly.
fn contains(iv: &Iv, x: &Dyadic) -> bool {
    (iv.lo == f64::NEG_INFINITY || d(iv.lo).cmp_exact(x) != Ordering::Greater)
        && (iv.hi == f64::INFINITY || d(iv.hi).cmp_exact(x) != Ordering::Less)
}

#[test]
fn dyadic_ops_round_like_ieee() {
    // IEEE `+ − × ÷ √` are correctly rounded, so the exact value rounded once must be
    // the hardware result, normal, subnormal or overflowing.
    let mut r = Rng::new(1);
    for (lo, hi) in [(-60, 60), (-540, -500), (500, 540), (-1074, -1000)] {
        for _ in 0..1000 {
            let (x, y) = (rand_f64(&mut r, lo, hi), rand_f64(&mut r, lo, hi));
            assert_eq!(d(x).to_f64(), x);
            assert_eq!(d(x).add(&d(y)).to_f64(), x + y);
            assert_eq!(d(x).sub(&d(y)).to_f64(), x - y);
            assert_eq!(d(x).mul(&d(y)).to_f64(), x * y, "{x:e} * {y:e}");
            assert_eq!(round_ratio(&d(x), &d(y)), x / y);
            assert_eq!(sqrt_ratio(&d(x.abs()), &d(1.0)), x.abs().sqrt());
            let z = rand_f64(&mut r, -60, 60);
            assert_eq!(round_ratio(&d(x), &d(z)), x / z, "{x:e} / {z:e}");
        }
    }
    // Subnormal quotients and products.
    for _ in 0..1000 {
        let (x, y) = (rand_f64(&mut r, -1030, -1000), rand_f64(&mut r, 20, 80));
        assert_eq!(round_ratio(&d(x), &d(y)), x / y);
        let (u, v) = (rand_f64(&mut r, -560, -520), rand_f64(&mut r, -560, -520));
        assert_eq!(d(u).mul(&d(v)).to_f64(), u * v);
    }
}

#[test]
fn ties_go_to_even_and_sticky_breaks_them() {
    let two53 = d(2f64.powi(53));
    let one = d(1.0);
    let half = d(0.5);
    assert_eq!(two53.add(&one).to_f64(), 2f64.powi(53)); // tie, even below
    let three = d(3.0);
    assert_eq!(two53.add(&three).to_f64(), 2f64.powi(53) + 4.0); // tie, even above
    // 2^53 + 1 + 2^-100: just above the tie.
    let above = two53.add(&one).add(&d(2f64.powi(-100)));
    assert_eq!(above.to_f64(), 2f64.powi(53) + 2.0);
    // (2^54 + 2 + 1/3·…) as a ratio: (3·2^53 + 3 + 1)/3 = 2^53 + 1 + 1/3 → up.
    let n = two53.mul(&three).add(&three).add(&one);
    assert_eq!(round_ratio(&n, &three), 2f64.powi(53) + 2.0);
    // Smallest subnormal: 2^-1075 is a tie between 0 and 2^-1074 → 0 (even); above → up.
    let tiny = d(f64::from_bits(1));
    assert_eq!(round_ratio(&tiny, &d(2.0)), 0.0);
    assert_eq!(round_ratio(&tiny.mul(&three), &d(4.0)), f64::from_bits(1));
    assert_eq!(round_ratio(&tiny.mul(&three), &d(2.0)), f64::from_bits(2)); // 1.5 → 2
    assert_eq!(round_ratio(&tiny, &d(3.0)), 0.0);
    // Overflow: MAX + half an ulp is a tie to even above MAX → ∞.
    let max = d(f64::MAX);
    let half_ulp = d(2f64.powi(970));
    assert_eq!(max.add(&half_ulp).to_f64(), f64::INFINITY);
    assert_eq!(max.add(&half_ulp).sub(&d(1.0)).to_f64(), f64::MAX);
    assert_eq!(half.to_f64(), 0.5);
}

#[test]
fn sqrt_ratio_is_nearest() {
    // Checked by exact squaring against the midpoints to the neighbours.
    let mut r = Rng::new(2);
    for (lo, hi) in [(-40, 40), (-1074, -1000), (900, 1000)] {
        for _ in 0..500 {
            let (x, y) = (
                rand_f64(&mut r, lo, hi).abs(),
                rand_f64(&mut r, -40, 40).abs(),
            );
            let v = sqrt_ratio(&d(x), &d(y));
            let mid = |a: f64, b: f64| d(a).add(&d(b)).mul(&d(0.5));
            let below = mid(v.next_down(), v);
            let above = mid(v, v.next_up());
            if v > 0.0 {
                assert_ne!(below.sqr().mul(&d(y)).cmp_exact(&d(x)), Ordering::Greater);
            }
            if v.is_finite() {
                assert_ne!(above.sqr().mul(&d(y)).cmp_exact(&d(x)), Ordering::Less);
            }
        }
    }
    assert_eq!(sqrt_ratio(&d(25.0), &d(1.0)), 5.0);
    assert_eq!(sqrt_ratio(&d(1.0), &d(4.0)), 0.5);
    assert_eq!(sqrt_ratio(&d(0.0), &d(3.0)), 0.0);
}

#[test]
fn intervals_contain_the_exact_value() {
    let mut r = Rng::new(3);
    for (lo, hi) in [(-30, 30), (-600, -480), (480, 600), (-1074, -1040)] {
        for _ in 0..400 {
            let mut ivs: Vec<Iv> = Vec::new();
            let mut ex: Vec<Dyadic> = Vec::new();
            for _ in 0..4 {
                let x = if r.below(4) == 0 {
                    r.below(9) as f64 - 4.0
                } else {
                    rand_f64(&mut r, lo, hi)
                };
                ivs.push(Iv::point(x));
                ex.push(d(x));
            }
            for _ in 0..12 {
                let (i, j) = (
                    r.below(ivs.len() as u64) as usize,
                    r.below(ivs.len() as u64) as usize,
                );
                let (iv, e) = match r.below(4) {
                    0 => (ivs[i].add(&ivs[j]), ex[i].add(&ex[j])),
                    1 => (ivs[i].sub(&ivs[j]), ex[i].sub(&ex[j])),
                    2 => (ivs[i].mul(&ivs[j]), ex[i].mul(&ex[j])),
                    _ => (ivs[i].sqr(), ex[i].sqr()),
                };
                if iv.lo.is_nan() {
                    assert_eq!(iv.sign(), None);
                } else {
                    assert!(iv.lo <= iv.hi);
                    assert!(contains(&iv, &e), "{iv:?}");
                    if let Some(s) = iv.sign() {
                        assert_eq!(Some(s), e.sign());
                    }
                }
                ivs.push(iv);
                ex.push(e);
            }
        }
    }
}

#[test]
fn exact_operations_stay_point_intervals() {
    let p = Iv::point;
    assert_eq!(p(0.1).sub(&p(0.1)), p(0.0));
    assert_eq!(
        p(3.0).mul(&p(5.0)).sub(&p(15.0)).sign(),
        Some(Ordering::Equal)
    );
    assert_eq!(p(1e7 + 0.5).sub(&p(1e7)), p(0.5));
    // 0.1 + 0.2 is inexact: a one-ulp interval around the rounded sum, strictly positive.
    let s = p(0.1).add(&p(0.2));
    assert_eq!(s.hi, s.lo.next_up());
    // Overflow loosens to ∞ but keeps the sign; ∞ − ∞ is undecided.
    let big = p(1e300).mul(&p(1e300));
    assert_eq!(big.sign(), Some(Ordering::Greater));
    assert_eq!(big.sub(&big).sign(), None);
    // Underflow: 2^-600 · 2^-600 is positive but below every float: [0, 2^-1074].
    let t = p(2f64.powi(-600)).sqr();
    assert!(t.lo <= 0.0 && t.hi > 0.0);
    assert_eq!(sqrt_down(25.0), 5.0);
    assert_eq!(sqrt_up(25.0), 5.0);
    assert!(sqrt_down(2.0) < 2f64.sqrt() || sqrt_up(2.0) > 2f64.sqrt());
    assert_eq!(
        sqrt_up(2.0) - sqrt_down(2.0),
        sqrt_down(2.0).next_up() - sqrt_down(2.0)
    );
}
