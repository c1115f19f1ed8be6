//! The two arithmetics the distance predicates ([`super::distance`]) are written over, and
//! correct rounding of exact values back to f64.
//!
//! # Why two arithmetics, one algorithm
//!
//! Every decision of [`super::distance`] is the sign of a polynomial in the f64 coordinates
//! (and `eps`). The algorithm is written once, generically over [`Arith`]: ring operations
//! on numbers that contain every finite f64 exactly, and a sign that is either certified or
//! *undecided*. It runs first on [`Iv`] (f64 intervals rounded outward: a few nanoseconds
//! per operation, undecided only when a value is within rounding of zero), and again on
//! [`Dyadic`] (exact big-integer dyadic numbers, every sign decided) only for what the
//! intervals left undecided. Both runs evaluate the same expressions, so the exact run is
//! the specification and the interval run a certified shortcut of it: an interval sign is
//! only ever reported when it is the exact one.
//!
//! # Rounding back to f64
//!
//! [`round_ratio`] and [`sqrt_ratio`] round an exact quotient of dyadics, or its square
//! root, once to the nearest f64 (ties to even), subnormal and overflowing results
//! included; see [`round_scaled`] for why one rounding from a truncated value with a sticky
//! bit is the correct rounding.

use num_bigint::{BigInt, BigUint, Sign};
use std::cmp::Ordering;

/// Numbers the distance algorithm computes with: a commutative ring holding every finite
/// f64 exactly, with a sign that is either certified (`Some`) or undecided (`None`).
///
/// Contract: `sign()` of the result of any sequence of operations, when `Some`, is the sign
/// of the exact real value of the same expression on the exact inputs.
pub trait Arith: Clone {
    /// The exact value of a finite `x`.
    fn from_f64(x: f64) -> Self;
    /// `self + o`.
    fn add(&self, o: &Self) -> Self;
    /// `self − o`.
    fn sub(&self, o: &Self) -> Self;
    /// `self · o`.
    fn mul(&self, o: &Self) -> Self;
    /// `self²` (an interval can use that a square is not negative).
    fn sqr(&self) -> Self {
        self.mul(self)
    }
    /// The certified sign of the exact value, or `None` when undecided.
    fn sign(&self) -> Option<Ordering>;
}

// ---------------------------------------------------------------------------------------
// Intervals.

/// A closed interval `[lo, hi]` of f64 that contains the exact value of the expression it
/// was computed from (or is [`Iv::NAN`], which contains nothing certain).
///
/// # Why outward rounding is sound
///
/// Every f64 operation here is IEEE round-to-nearest (Rust never contracts `a * b + c`
/// into a fused operation on its own). Let `x` be the exact real result of an operation on
/// f64 operands and `r = fl(x)` its rounding.
///
/// * `r` finite: `next_down(r) ≤ x ≤ next_up(r)`. If `x < next_down(r)`, the float
///   `next_down(r)` would lie strictly between `x` and `r`, so closer to `x` than `r`,
///   contradicting that `r` is nearest; likewise above. This holds in the subnormal range
///   too (gradual underflow rounds correctly to the subnormal grid) and at `r = 0`
///   (`next_down(0)` is the negative smallest subnormal).
/// * `r = +∞` (the exact `x ≥ MAX + ulp(MAX)/2 > MAX`): `next_down(+∞) = MAX < x`, and
///   `+∞` is an upper bound; symmetrically for `−∞` (`next_up(−∞) = −MAX`). So overflow
///   needs no special case: it only loosens a bound to infinity.
/// * An endpoint product `0 · ∞` means a factor that is exactly zero (the true values are
///   finite), so it is taken as 0, as in IEEE 1788 interval arithmetic. Any NaN (`∞ − ∞`)
///   makes the whole interval [`Iv::NAN`], whose sign is undecided: NaN is never allowed to
///   reach `f64::min`/`max`, which would silently drop it.
///
/// Interval endpoints are combined by the usual formulas (sum of lower ends for the lower
/// end, and the sign-case analysis of the product), each endpoint rounded in its own
/// direction, so by induction every computed interval contains the exact value.
///
/// # Tight directed rounding
///
/// Rounding outward by a whole ulp after *every* operation would make every exact zero
/// undecided (`x − x` would become `[−2^-1074, 2^-1074]`), and exact zeros are common:
/// axis-aligned faces, grid coordinates, shared vertices, degenerate triangles. So each
/// endpoint is rounded only when the operation was inexact, in the direction of the error:
/// * sums use the error-free transformation TwoSum (Knuth): `s = fl(a + b)` and `e` with
///   `a + b = s + e` exactly, for all finite `a`, `b` whose sum does not overflow;
/// * products are exact, and left unrounded, when the two factors' significant bits (from
///   the leading to the last 1 bit) add up to at most 53 and the result is finite and at
///   least `2^-1021` (`mul_is_exact`): two integer tests, no fused multiply-add (a library
///   call on the baseline x86-64 target). Any other product moves each endpoint a whole
///   ulp outward (sound by the first point), even when it happens to be exact.
///
/// So integer and grid computations stay exact intervals, and the interval run decides
/// the exact zeros itself.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Iv {
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

/// `2^-960`: quotients and square roots at least this large get the exact error-sign test.
const TINY: f64 = f64::from_bits(63u64 << 52);

/// `fl(a + b)` and its error: `a + b = s + e` exactly when `s` is finite (TwoSum).
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// A lower bound of `a + b`, equal to it when it is representable.
#[inline(always)]
fn add_down(a: f64, b: f64) -> f64 {
    let (s, e) = two_sum(a, b);
    if !s.is_finite() || e < 0.0 {
        s.next_down()
    } else {
        s
    }
}

/// An upper bound of `a + b`, equal to it when it is representable.
#[inline(always)]
fn add_up(a: f64, b: f64) -> f64 {
    let (s, e) = two_sum(a, b);
    if !s.is_finite() || e > 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// Significant bits of a normal `x` (from its leading 1 to its last 1 bit); 54 (more than
/// any product can take) for zero, subnormal and non-finite `x`.
#[inline(always)]
fn sig_bits(x: f64) -> u32 {
    if !x.is_normal() {
        return 54;
    }
    53 - ((x.to_bits() & ((1u64 << 52) - 1)) | (1u64 << 52)).trailing_zeros()
}

/// `x · y` is exactly `r = fl(x · y)`: the odd integer parts of `x` and `y` (`sx` and `sy`
/// bits) multiply to fewer than `2^(sx + sy)`, so with `sx + sy ≤ 53` the exact product has at
/// most 53 significant bits; `|r| ≥ 2^-1021` puts the exact product above `2^-1022` (round to
/// nearest moves it by less than its own ulp), and a finite `r` below `MAX`, so it lies in
/// the normal range, where such a value is representable and round to nearest returns it.
#[inline(always)]
fn mul_is_exact(x: f64, y: f64, r: f64) -> bool {
    r.is_finite() && r.abs() >= 2.0 * f64::MIN_POSITIVE && sig_bits(x) + sig_bits(y) <= 53
}

/// A lower bound of `x · y` (0 if a factor is 0), equal to it when [`mul_is_exact`] sees it
/// is representable.
#[inline(always)]
fn mul_down(x: f64, y: f64) -> f64 {
    if x == 0.0 || y == 0.0 {
        return 0.0;
    }
    let r = x * y;
    if mul_is_exact(x, y, r) {
        r
    } else {
        r.next_down()
    }
}

/// An upper bound of `x · y` (0 if a factor is 0); see [`mul_down`].
#[inline(always)]
fn mul_up(x: f64, y: f64) -> f64 {
    if x == 0.0 || y == 0.0 {
        return 0.0;
    }
    let r = x * y;
    if mul_is_exact(x, y, r) {
        r
    } else {
        r.next_up()
    }
}

/// The sign of `x/y − r` for `y > 0` and `r = fl(x/y)`, when certain.
///
/// `fma(−r, y, x)` is `RN(x − r·y)`, and `x − r·y` has the sign of `x/y − r`. Rounding to
/// nearest never flips a sign; it can only turn a nonzero value into 0 when that value is
/// below half the smallest subnormal `2^-1075`. Here that cannot happen once `|x| ≥
/// 2^-959` and `r` is finite: then `|r·y| ≥ 2^-960`, the product of `r`'s and `y`'s quanta
/// (`2^(e−52)` for a normal float of exponent `e`, `2^-1074` for a subnormal) is at least
/// `2^-1067` (with `2^(e_r + e_y + 2) > |r·y|`, and a subnormal factor forcing the other
/// above `2^62`), `r·y` is a multiple of it, and so is `x` (a float of at least the same
/// binade up to a factor 2), so a nonzero `x − r·y` is at least `2^-1067`.
#[inline]
fn div_error(x: f64, y: f64, r: f64) -> Option<Ordering> {
    if r.is_finite() && x.abs() >= 2.0 * TINY {
        (-r).mul_add(y, x).partial_cmp(&0.0)
    } else {
        None
    }
}

/// A lower bound of `x / y` for `y > 0`, equal to it when it is representable.
#[inline]
pub fn div_down(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let r = x / y;
    match div_error(x, y, r) {
        Some(Ordering::Greater | Ordering::Equal) => r,
        _ => r.next_down(),
    }
}

/// An upper bound of `x / y` for `y > 0`, equal to it when it is representable.
#[inline]
pub fn div_up(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        return 0.0;
    }
    let r = x / y;
    match div_error(x, y, r) {
        Some(Ordering::Less | Ordering::Equal) => r,
        _ => r.next_up(),
    }
}

/// A lower bound of `√x` for `x ≥ 0`, equal to it when `√x` is a float: `s = fl(√x)` is
/// moved only when `fma(s, s, −x) = RN(s² − x)` says `s² > x`; the sign is certain for
/// `s² ≥ 2^-960` by the quantum argument of `div_error` (`s²` and `x` are multiples of
/// `s`'s quantum squared, at least `2^-1066`).
pub fn sqrt_down(x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let s = x.sqrt();
    if s.is_finite() && s * s >= TINY {
        if s.mul_add(s, -x) > 0.0 {
            s.next_down()
        } else {
            s
        }
    } else {
        s.next_down().max(0.0)
    }
}

/// An upper bound of `√x` for `x ≥ 0`; see [`sqrt_down`].
pub fn sqrt_up(x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let s = x.sqrt();
    if s.is_finite() && s * s >= TINY {
        if s.mul_add(s, -x) < 0.0 {
            s.next_up()
        } else {
            s
        }
    } else {
        s.next_up()
    }
}

impl Iv {
    /// Contains nothing certain: every sign undecided.
    pub const NAN: Iv = Iv {
        lo: f64::NAN,
        hi: f64::NAN,
    };

    /// The point interval `[x, x]`.
    #[inline(always)]
    pub fn point(x: f64) -> Iv {
        Iv { lo: x, hi: x }
    }

    #[inline(always)]
    fn checked(lo: f64, hi: f64) -> Iv {
        if lo.is_nan() || hi.is_nan() {
            Iv::NAN
        } else {
            Iv { lo, hi }
        }
    }

    #[inline(always)]
    fn is_nan(&self) -> bool {
        self.lo.is_nan() || self.hi.is_nan()
    }
}

impl Arith for Iv {
    #[inline(always)]
    fn from_f64(x: f64) -> Iv {
        Iv::point(x)
    }

    #[inline(always)]
    fn add(&self, o: &Iv) -> Iv {
        Iv::checked(add_down(self.lo, o.lo), add_up(self.hi, o.hi))
    }

    #[inline(always)]
    fn sub(&self, o: &Iv) -> Iv {
        Iv::checked(add_down(self.lo, -o.hi), add_up(self.hi, -o.lo))
    }

    #[inline(always)]
    fn mul(&self, o: &Iv) -> Iv {
        if self.is_nan() || o.is_nan() {
            return Iv::NAN;
        }
        let (a, b, c, d) = (self.lo, self.hi, o.lo, o.hi);
        let (lo, hi) = if a >= 0.0 {
            if c >= 0.0 {
                (mul_down(a, c), mul_up(b, d))
            } else if d <= 0.0 {
                (mul_down(b, c), mul_up(a, d))
            } else {
                (mul_down(b, c), mul_up(b, d))
            }
        } else if b <= 0.0 {
            if c >= 0.0 {
                (mul_down(a, d), mul_up(b, c))
            } else if d <= 0.0 {
                (mul_down(b, d), mul_up(a, c))
            } else {
                (mul_down(a, d), mul_up(a, c))
            }
        } else if c >= 0.0 {
            (mul_down(a, d), mul_up(b, d))
        } else if d <= 0.0 {
            (mul_down(b, c), mul_up(a, c))
        } else {
            (
                mul_down(a, d).min(mul_down(b, c)),
                mul_up(a, c).max(mul_up(b, d)),
            )
        };
        Iv::checked(lo, hi)
    }

    #[inline(always)]
    fn sqr(&self) -> Iv {
        if self.is_nan() {
            return Iv::NAN;
        }
        let (a, b) = (self.lo, self.hi);
        let (lo, hi) = if a >= 0.0 {
            (mul_down(a, a), mul_up(b, b))
        } else if b <= 0.0 {
            (mul_down(b, b), mul_up(a, a))
        } else {
            (0.0, mul_up(a, a).max(mul_up(b, b)))
        };
        Iv::checked(lo, hi)
    }

    #[inline(always)]
    fn sign(&self) -> Option<Ordering> {
        if self.lo > 0.0 {
            Some(Ordering::Greater)
        } else if self.hi < 0.0 {
            Some(Ordering::Less)
        } else if self.lo == 0.0 && self.hi == 0.0 {
            Some(Ordering::Equal)
        } else {
            None // straddles zero, or NaN (every comparison false)
        }
    }
}

// ---------------------------------------------------------------------------------------
// Exact dyadic numbers.

/// An exact dyadic rational `m · 2^e` (big-integer `m`). Every finite f64 is one, and sums,
/// differences and products of dyadics are dyadics, so the ring operations are exact and
/// every sign is decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Dyadic {
    m: BigInt,
    e: i64,
}

impl Dyadic {
    /// Zero.
    pub fn zero() -> Dyadic {
        Dyadic {
            m: BigInt::ZERO,
            e: 0,
        }
    }

    /// The mantissa and exponent: `self = m · 2^e`.
    pub fn parts(&self) -> (&BigInt, i64) {
        (&self.m, self.e)
    }

    /// Exact negation.
    pub fn neg(&self) -> Dyadic {
        Dyadic {
            m: -&self.m,
            e: self.e,
        }
    }

    /// The value rounded once to the nearest f64 (ties to even; `±∞` beyond the range).
    pub fn to_f64(&self) -> f64 {
        round_ratio(self, &Dyadic::from_f64(1.0))
    }

    /// Exact comparison.
    pub fn cmp_exact(&self, o: &Dyadic) -> Ordering {
        self.sub(o).sign().unwrap_or(Ordering::Equal)
    }
}

impl Arith for Dyadic {
    /// Exact for finite `x`; a non-finite `x` (outside every contract of this module) is
    /// taken as zero rather than panicking.
    fn from_f64(x: f64) -> Dyadic {
        if !x.is_finite() || x == 0.0 {
            return Dyadic::zero();
        }
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i64;
        let frac = bits & ((1u64 << 52) - 1);
        let (mut m, mut e) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), exp - 1075)
        };
        // Strip trailing zeros: integers stay small integers, so products stay short.
        let tz = m.trailing_zeros();
        m >>= tz;
        e += i64::from(tz);
        let m = BigInt::from(m);
        Dyadic {
            m: if x < 0.0 { -m } else { m },
            e,
        }
    }

    fn add(&self, o: &Dyadic) -> Dyadic {
        if self.m.sign() == Sign::NoSign {
            return o.clone();
        }
        if o.m.sign() == Sign::NoSign {
            return self.clone();
        }
        let e = self.e.min(o.e);
        Dyadic {
            m: (&self.m << (self.e - e) as u64) + (&o.m << (o.e - e) as u64),
            e,
        }
    }

    fn sub(&self, o: &Dyadic) -> Dyadic {
        self.add(&o.neg())
    }

    fn mul(&self, o: &Dyadic) -> Dyadic {
        Dyadic {
            m: &self.m * &o.m,
            e: self.e + o.e,
        }
    }

    fn sign(&self) -> Option<Ordering> {
        Some(match self.m.sign() {
            Sign::Minus => Ordering::Less,
            Sign::NoSign => Ordering::Equal,
            Sign::Plus => Ordering::Greater,
        })
    }
}

/// Exact order of the rationals `n1/d1` and `n2/d2` with `d1, d2 > 0`: the sign of
/// `n1·d2 − n2·d1`.
pub fn cmp_ratio(n1: &Dyadic, d1: &Dyadic, n2: &Dyadic, d2: &Dyadic) -> Ordering {
    n1.mul(d2).cmp_exact(&n2.mul(d1))
}

// ---------------------------------------------------------------------------------------
// Correct rounding.

/// `|n| / |d|` as `(N, D, E)` with `|n/d| = (N / D) · 2^E`, integers `N ≥ 0`, `D > 0`.
fn ratio_parts(n: &Dyadic, d: &Dyadic) -> (BigUint, BigUint, i64) {
    (n.m.magnitude().clone(), d.m.magnitude().clone(), n.e - d.e)
}

/// `n / d` rounded once to the nearest f64, ties to even (`d ≠ 0`; `±∞` beyond the range,
/// correctly rounded subnormals below `2^-1022`).
///
/// With `k = 66 + bits(D) − bits(N)`, `q = ⌊N·2^k / D⌋ ≥ 2^65` (as `N ≥ 2^(bits N − 1)` and
/// `D < 2^bits D`), and `|n/d| = (q + f)·2^(E − k)` with `0 ≤ f < 1`, `f > 0` iff the
/// division left a remainder: exactly what [`round_scaled`] needs.
pub fn round_ratio(n: &Dyadic, d: &Dyadic) -> f64 {
    let (nn, dd, e) = ratio_parts(n, d);
    if nn.bits() == 0 {
        return 0.0;
    }
    let k = 66 + dd.bits() as i64 - nn.bits() as i64;
    let (num, den) = if k >= 0 {
        (nn << k as u64, dd)
    } else {
        (nn, dd << (-k) as u64)
    };
    let q = &num / &den;
    let sticky = &q * &den != num;
    let r = round_scaled(&q, sticky, e - k);
    let negative = (n.m.sign() == Sign::Minus) != (d.m.sign() == Sign::Minus);
    if negative { -r } else { r }
}

/// `√(n / d)` rounded once to the nearest f64, ties to even (`n/d ≥ 0`, `d ≠ 0`).
///
/// Make `E` even (`N ← 2N`), pick `k` with `N·4^k / D ≥ 2^131` (so its integer square root
/// is `≥ 2^65`), and let `X = ⌊N·4^k / D⌋`, `s = ⌊√X⌋`. Then `s = ⌊√(N·4^k/D)⌋` (for real
/// `y ≥ 0`, `⌊√⌊y⌋⌋ = ⌊√y⌋`: no integer square lies in `(⌊y⌋, y]`), and `√(n/d) =
/// (s + f)·2^(E/2 − k)` with `f > 0` iff the division left a remainder or `s² ≠ X`.
pub fn sqrt_ratio(n: &Dyadic, d: &Dyadic) -> f64 {
    let (mut nn, dd, mut e) = ratio_parts(n, d);
    if nn.bits() == 0 {
        return 0.0;
    }
    if e.rem_euclid(2) != 0 {
        nn <<= 1u32;
        e -= 1;
    }
    // 2k ≥ 131 + bits(D) − bits(N) gives N·4^k/D > 2^(bits N − 1 + 2k − bits D) ≥ 2^130.
    let need = 131 + dd.bits() as i64 - nn.bits() as i64;
    let k = need.div_euclid(2) + need.rem_euclid(2);
    let (num, den) = if k >= 0 {
        (nn << (2 * k) as u64, dd)
    } else {
        (nn, dd << (-2 * k) as u64)
    };
    let x = &num / &den;
    let s = x.sqrt();
    let sticky = &x * &den != num || &s * &s != x;
    round_scaled(&s, sticky, e / 2 - k)
}

/// `(q + f) · 2^s` rounded once to the nearest f64, ties to even, for an integer
/// `q ≥ 2^65`, `0 ≤ f < 1` and `f > 0` iff `sticky`.
///
/// Why one rounding from `(q, sticky)` is correct: let `shift` be the number of low bits of
/// `q` below the result's quantum (`bits(q) − 53` for a normal result; for a subnormal one
/// the quantum is `2^-1074`, so `−1074 − s`, which is larger). `shift ≥ 13`, so every
/// rounding boundary (a float, or the midpoint of two) is an integer multiple of `2^s`:
/// the exact value `(q + f)·2^s` lies on the same side of every boundary as `q·2^s` does,
/// except that `f > 0` breaks a tie `q·2^s` = midpoint upward. The dropped bits compared
/// with half the quantum, plus the sticky bit, decide exactly. The subnormal case rounds
/// directly to the subnormal grid, so there is no double rounding; a result at or above
/// `2^1024` after rounding is `+∞` (the IEEE overflow rule for round to nearest).
pub fn round_scaled(q: &BigUint, sticky: bool, s: i64) -> f64 {
    let b = q.bits() as i64;
    debug_assert!(b >= 66);
    let normal = b - 1 + s >= -1022;
    let shift = if normal { b - 53 } else { -1074 - s };
    if shift > b {
        // The value is below 2^(b + s) ≤ half the quantum 2^(shift + s − 1): rounds to 0.
        return 0.0;
    }
    let kept = q >> shift as u64;
    let low = q - (&kept << shift as u64);
    let half = BigUint::from(1u32) << (shift - 1) as u64;
    let mut m = u64::try_from(&kept).unwrap_or(u64::MAX);
    let odd = m & 1 == 1;
    if low > half || (low == half && (sticky || odd)) {
        m += 1;
    }
    if normal {
        let mut t = shift + s; // value = m · 2^t, m ∈ [2^52, 2^53]
        if m == 1 << 53 {
            m = 1 << 52;
            t += 1;
        }
        let exp_field = 52 + t + 1023;
        if exp_field >= 2047 {
            return f64::INFINITY;
        }
        f64::from_bits(((exp_field as u64) << 52) | (m - (1 << 52)))
    } else {
        // value = m · 2^-1074 with m ≤ 2^52; m = 2^52 is the bit pattern of 2^-1022.
        f64::from_bits(m)
    }
}

#[cfg(test)]
mod tests;
