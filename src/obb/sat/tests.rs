//! Tests of the OBB separating axis test and its posing (`super`).

use super::*;
use crate::pose::Pose;

const ID: [f32; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

fn unit_box(c: [f32; 3]) -> Obb32 {
    Obb32::new(c, ID, [1.0; 3])
}

fn check(pose: &Pose) -> PoseCheck {
    PoseCheck::new(LocalPose::exact(pose))
}

fn disjoint(a: &Obb32, b: &Obb32, pc: &PoseCheck) -> bool {
    obb_disjoint(a, &obb_posed(b, &pc.r, &pc.t, pc.t_err))
}

#[test]
fn touching_boxes_are_never_separated_and_a_gap_is_found() {
    for off in [0.0f32, 1e6, 1e15] {
        // Face to face at x = off + 1 (both centres shifted by `off`).
        let a = unit_box([off, 0.0, 0.0]);
        let touching = unit_box([off + 2.0, 0.5, -0.25]);
        assert!(!disjoint(&a, &touching, &check(&Pose::IDENTITY)), "{off}");
        // Turned 90° about z (an exact matrix) in place, still touching.
        let q = Pose::new([1.0, 0.0, 0.0, 1.0], [off as f64 + 2.0, 0.5, -0.25]);
        assert!(!disjoint(&a, &unit_box([0.0; 3]), &check(&q)), "{off}");
        let gap = (off + 2.0) * (1.0 + 1e-3) + 1e-3;
        let apart = unit_box([gap, 0.0, 0.0]);
        assert!(disjoint(&a, &apart, &check(&Pose::IDENTITY)), "{off}");
    }
    // B turned 45° about z: its corner on A's face x = 1 (up to the rounding of √2).
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let a = unit_box([0.0; 3]);
    let b = Obb32::new([0.0; 3], [s, s, 0.0, -s, s, 0.0, 0.0, 0.0, 1.0], [1.0; 3]);
    let p = Pose::translation([1.0 + std::f64::consts::SQRT_2, 0.0, 0.0]);
    assert!(!disjoint(&a, &b, &check(&p)));
    let p = Pose::translation([1.0 + std::f64::consts::SQRT_2 + 1e-3, 0.0, 0.0]);
    assert!(disjoint(&a, &b, &check(&p)));
}

/// Boxes that touch in real arithmetic, at translations far from the origin where the
/// f32 rounding of the translation moves B's centre away by half an f32 step (2²⁵ at
/// 10¹⁵): the centre's error term keeps them together (zeroing `e` makes this fail).
#[test]
fn the_pose_rounding_far_from_the_origin_never_separates() {
    for off in [1e9f64, 3.3e9 + 0.37, 1e15 + 0.5] {
        let ac = off as f32;
        let half_step = (ac.next_up() - ac) / 2.0;
        let a = unit_box([ac, 0.0, 0.0]);
        let b = Obb32::new([0.0; 3], ID, [half_step, 1.0, 1.0]);
        // B's face at ac + 1, on A's: touching.
        let t = ac as f64 + 1.0 + half_step as f64;
        assert!(t as f32 as f64 > t, "{off}: the rounding moves B away");
        let pc = check(&Pose::translation([t, 0.0, 0.0]));
        assert!(!disjoint(&a, &b, &pc), "{off}");
        // One whole step further than touching is separated.
        let far = ac as f64 + 1.0 + 1e3 * (half_step as f64) * 16.0;
        assert!(
            disjoint(&a, &b, &check(&Pose::translation([far, 0.0, 0.0]))),
            "{off}"
        );
    }
}

#[test]
fn a_non_rotation_never_separates() {
    let mut p = Pose::translation([10.0, 0.0, 0.0]);
    p.r[0][0] = 2.0;
    let a = unit_box([0.0; 3]);
    assert!(!disjoint(&a, &a, &check(&p)));
    assert!(disjoint(
        &a,
        &a,
        &check(&Pose::translation([10.0, 0.0, 0.0]))
    ));
}

/// The 8 corners of the parallelepiped `{x : |eᵢ·(x − c)| ≤ hᵢ}` (f64; `E⁻¹` by the
/// adjugate), and its edge directions (the columns of `E⁻¹`).
fn corners(b: &Obb32) -> (Vec<[f64; 3]>, [[f64; 3]; 3]) {
    let e = b.as_f64().axes;
    let cr = crate::geom::cross;
    let det = crate::geom::dot(e[0], cr(e[1], e[2]));
    // Columns of E⁻¹: (e₁×e₂, e₂×e₀, e₀×e₁)/det.
    let cols = [cr(e[1], e[2]), cr(e[2], e[0]), cr(e[0], e[1])].map(|v| v.map(|x| x / det));
    let mut out = Vec::new();
    for n in 0..8 {
        let s: [f64; 3] = std::array::from_fn(|i| {
            if n >> i & 1 == 1 {
                b.h[i] as f64
            } else {
                -(b.h[i] as f64)
            }
        });
        out.push(std::array::from_fn(|k| {
            b.c[k] as f64 + (0..3).map(|i| cols[i][k] * s[i]).sum::<f64>()
        }));
    }
    (out, cols)
}

/// The largest gap between the two corner sets along the 15 candidate axes (positive:
/// separated), in f64: the oracle of the edge test below.
fn gap(
    a: &[[f64; 3]],
    ea: &[[f64; 3]; 3],
    na: &[[f64; 3]; 3],
    b: &[[f64; 3]],
    eb: &[[f64; 3]; 3],
    nb: &[[f64; 3]; 3],
) -> f64 {
    let mut axes: Vec<[f64; 3]> = na.iter().chain(nb).copied().collect();
    for x in ea {
        for y in eb {
            axes.push(crate::geom::cross(*x, *y));
        }
    }
    let mut best = f64::NEG_INFINITY;
    for l in axes {
        let n = crate::geom::dot(l, l).sqrt();
        if n < 1e-12 {
            continue;
        }
        let proj = |p: &[[f64; 3]]| {
            p.iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                    let v = crate::geom::dot(l, *x) / n;
                    (lo.min(v), hi.max(v))
                })
        };
        let ((alo, ahi), (blo, bhi)) = (proj(a), proj(b));
        best = best.max((blo - ahi).max(alo - bhi));
    }
    best
}

/// Random turned boxes (f32 axes of random rotations, extents 0.1–10) slid towards
/// each other along a random direction: at the touching distance (found by bisection on
/// an f64 corner-based separating axis oracle) less 10⁻⁹ of it they overlap, and the test
/// never separates them; 1% beyond it, it does. A bare f32 test (slack zeroed) separates
/// some of them; either term of the slack alone covers these (touching centres are about
/// a box size apart, so the centre term is of the relative term's order here): the proof
/// needs both, the far-from-origin test above needs the centre term.
#[test]
fn turned_boxes_at_the_touching_distance_are_never_separated() {
    let mut rng = crate::rng::Rng::new(31);
    let turned = |rng: &mut crate::rng::Rng| {
        let p = Pose::new(rng.unit_quaternion(), [0.0; 3]);
        let e: [f32; 9] = std::array::from_fn(|n| p.r[n % 3][n / 3] as f32);
        let h = [0; 3].map(|_| rng.range(0.1, 10.0) as f32);
        Obb32::new([0; 3].map(|_| rng.range(-1.0, 1.0) as f32), e, h)
    };
    let mut near = 0;
    for case in 0..400 {
        let (a, b) = (turned(&mut rng), turned(&mut rng));
        let rot = Pose::new(rng.unit_quaternion(), [0.0; 3]);
        let v = {
            let d = [0; 3].map(|_| rng.range(-1.0, 1.0));
            let n = crate::geom::dot(d, d).sqrt();
            d.map(|x| x / n)
        };
        // t₀ puts B's centre on A's; B moves along v.
        let rc = rot.apply(b.c.map(f64::from));
        let t0: [f64; 3] = std::array::from_fn(|k| a.c[k] as f64 - rc[k]);
        let pose_at = |s: f64| Pose {
            t: std::array::from_fn(|k| t0[k] + s * v[k]),
            ..rot
        };
        let (ca, ea) = corners(&a);
        let (cb, eb) = corners(&b);
        let na = a.as_f64().axes;
        let nb0 = b.as_f64().axes;
        let oracle = |s: f64| {
            let p = pose_at(s);
            let cbp: Vec<[f64; 3]> = cb.iter().map(|x| p.apply(*x)).collect();
            let rv = |x: [f64; 3]| rot.apply(x);
            gap(&ca, &ea, &na, &cbp, &eb.map(rv), &nb0.map(rv))
        };
        let (mut lo, mut hi) = (0.0, 100.0);
        assert!(oracle(lo) < 0.0 && oracle(hi) > 0.0);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if oracle(mid) > 0.0 {
                hi = mid
            } else {
                lo = mid
            }
        }
        let touch = lo * (1.0 - 1e-9);
        assert!(oracle(touch) <= 0.0);
        let pc = check(&pose_at(touch));
        assert!(!disjoint(&a, &b, &pc), "case {case}: separated at {touch}");
        let pc = check(&pose_at(lo * 1.01 + 1e-3));
        near += disjoint(&a, &b, &pc) as u32;
    }
    assert!(near >= 390, "1% apart separated in {near} of 400 cases");
}

/// At the flip of the flushed test's decision, where the deciding inequality is a tie
/// up to rounding, the CPU path (three lanes at a time, `sat_lanes`) decides alike on
/// both sides: a different order of any rounded operation shows here. B slides along a
/// random direction and the flip is bisected to adjacent f64 translations.
#[test]
fn the_cpu_path_decides_as_the_flushed_test_at_the_flip() {
    let mut rng = crate::rng::Rng::new(7);
    let mut flips = 0;
    for case in 0..3_000 {
        let mut v = |lo: f64, hi: f64| rng.range(lo, hi);
        let q = [v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0)];
        let dir = [v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0)];
        let bx = |v: &mut dyn FnMut(f64, f64) -> f64| {
            let axes = Pose::new(
                [v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0), v(-1.0, 1.0)],
                [0.0; 3],
            );
            let e: [f32; 9] = std::array::from_fn(|k| {
                let mut u = [0.0; 3];
                u[k / 3] = 1.0;
                axes.apply(u)[k % 3] as f32
            });
            Obb32::new(
                [0; 3].map(|_| v(-1.0, 1.0) as f32),
                e,
                [0; 3].map(|_| v(0.01, 1.0) as f32),
            )
        };
        let a = bx(&mut v);
        let b = bx(&mut v);
        let posed = |s: f64| {
            let pose = Pose::new(q, dir.map(|x| x * s));
            let pc = check(&pose);
            obb_posed(&b, &pc.r, &pc.t, pc.t_err)
        };
        let (mut lo, mut hi) = (0.0f64, 8.0f64);
        if obb_disjoint(&a, &posed(lo)) || !obb_disjoint(&a, &posed(hi)) {
            continue;
        }
        while hi - lo > hi * 1e-15 {
            let mid = 0.5 * (lo + hi);
            if obb_disjoint(&a, &posed(mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        for s in [lo, hi] {
            let p = posed(s);
            assert!(screen(p).coarse(), "case {case}");
            assert_eq!(
                obb_disjoint_cpu(&a, &screen(p)),
                obb_disjoint(&a, &p),
                "case {case} at {s}"
            );
        }
        flips += 1;
    }
    assert!(flips > 1_000, "{flips} flips found");
}

/// The CPU's unflushed path decides exactly as the flushed twin of the GPU, on random
/// boxes and on boxes whose values (axes, centres, extents, poses) reach down to 10⁻³⁰,
/// where products are subnormal and the screen sends the test to the flushed path. (A
/// decision that the flushes would change needs a tie at the scale of 2⁻¹⁰⁰, which
/// random boxes do not reach: the screen's correctness rests on the proof on
/// [`obb_disjoint_cpu`]; this checks the plumbing of both paths.)
#[test]
fn the_cpu_path_decides_as_the_flushed_test() {
    let mut rng = crate::rng::Rng::new(41);
    let (mut fast, mut agree_disjoint) = (0, 0);
    for case in 0..20_000 {
        let tiny = case % 3 == 0;
        let mut val = |lo: f64, hi: f64| {
            let v = rng.range(lo, hi);
            if tiny && rng.below(3) == 0 {
                (v * 1e-30) as f32
            } else {
                v as f32
            }
        };
        let bx = |val: &mut dyn FnMut(f64, f64) -> f32| {
            let e: [f32; 9] = std::array::from_fn(|_| val(-1.0, 1.0));
            Obb32::new(
                [0; 3].map(|_| val(-2.0, 2.0)),
                e,
                [0; 3].map(|_| val(0.0, 1.0)),
            )
        };
        // A is a fitted box: its numbers are coarse (tiny ones stored as 0).
        let a = bx(&mut val);
        let flush = |x: f32| if x.abs() < COARSE { 0.0 } else { x };
        let a = Obb32::new(a.c.map(flush), a.e.map(flush), a.h.map(|h| h.max(COARSE)));
        let b = bx(&mut val);
        let pose = Pose::new(
            [
                val(-1.0, 1.0),
                val(-1.0, 1.0),
                val(-1.0, 1.0),
                val(-1.0, 1.0),
            ]
            .map(f64::from),
            [0; 3].map(|_| val(-3.0, 3.0) as f64),
        );
        let pc = check(&pose);
        let posed = obb_posed(&b, &pc.r, &pc.t, pc.t_err);
        let want = obb_disjoint(&a, &posed);
        assert_eq!(obb_disjoint_cpu(&a, &screen(posed)), want, "case {case}");
        fast += screen(posed).coarse() as u32;
        agree_disjoint += want as u32;
    }
    assert!(
        fast > 10_000 && agree_disjoint > 1000,
        "{fast} {agree_disjoint}"
    );
}

/// The bits of a screened box: every field, the sign of each zero included.
fn bits(s: &ScreenedObb) -> Vec<u32> {
    let p = s.posed();
    let mut v: Vec<u32> =
        p.f.iter()
            .chain(&p.c)
            .chain(&p.h)
            .map(|x| x.to_bits())
            .collect();
    v.push(p.e.to_bits());
    v.push(s.coarse() as u32);
    v
}

/// The CPU's posing ([`obb_posed_cpu`]) is the flushed posing of the GPU, screened, bit
/// for bit (zeros' signs included): on random boxes and poses, on boxes and poses with
/// entries down to 10⁻³⁰ (the flushed fallback), and on signed permutations (exact
/// zeros, negative zeros in the box, quarter turns), where unflushed products give −0
/// that the flushed twin turns to +0.
#[test]
fn the_cpu_posing_is_the_flushed_posing_bit_for_bit() {
    let mut rng = crate::rng::Rng::new(43);
    let mut fast = [0; 3];
    for case in 0..30_000 {
        let kind = case % 3;
        let mut val = |lo: f64, hi: f64| {
            let v = rng.range(lo, hi);
            if kind == 1 && rng.below(3) == 0 {
                (v * 1e-30) as f32
            } else {
                v as f32
            }
        };
        let (b, pose) = if kind == 2 {
            // A signed permutation box (−0 where a coordinate is 0) and a quarter-turn pose.
            let perm = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1]][case % 4];
            let mut e = [-0.0f32; 9];
            for (i, &k) in perm.iter().enumerate() {
                e[3 * i + k] = if val(-1.0, 1.0) < 0.0 { -1.0 } else { 1.0 };
            }
            let c = [0; 3].map(|_| {
                if val(0.0, 1.0) < 0.5 {
                    -0.0
                } else {
                    val(-2.0, 2.0)
                }
            });
            let q = [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [1.0, 1.0, 0.0, 0.0],
                [1.0, 0.0, -1.0, 0.0],
            ][(case / 4) % 4];
            let t = [0; 3].map(|_| {
                if val(0.0, 1.0) < 0.5 {
                    0.0
                } else {
                    val(-3.0, 3.0) as f64
                }
            });
            (
                Obb32::new(c, e, [0; 3].map(|_| val(0.0, 1.0))),
                Pose::new(q, t),
            )
        } else {
            let e: [f32; 9] = std::array::from_fn(|_| val(-1.0, 1.0));
            let b = Obb32::new(
                [0; 3].map(|_| val(-2.0, 2.0)),
                e,
                [0; 3].map(|_| val(0.0, 1.0)),
            );
            let q = [0; 4].map(|_| val(-1.0, 1.0) as f64);
            (b, Pose::new(q, [0; 3].map(|_| val(-3.0, 3.0) as f64)))
        };
        let pc = check(&pose);
        let want = screen(obb_posed(&b, &pc.r, &pc.t, pc.t_err));
        let got = obb_posed_cpu(&b, &pc);
        assert_eq!(bits(&got), bits(&want), "case {case}: {b:?} {pose:?}");
        fast[kind] += (pc.coarse && super::super::sat_lanes::coarse_box(&b)) as u32;
    }
    // Random: the fast path; tiny: mostly the flushed one; the permutations: both
    // (rounding leaves entries near 2⁻⁵² in some quarter turns' matrices).
    assert!(
        fast[0] > 9_900 && fast[1] < 2_000 && (1_000..9_000).contains(&fast[2]),
        "{fast:?}"
    );
}

/// A translation entry between [`COARSE_T`] and 2⁻⁵¹ (the residue of a trigonometric zero)
/// keeps the CPU's posing on its unflushed lanes, and the posing is still the flushed one bit
/// for bit; an entry below [`COARSE_T`] sends the pose to the flushed posing. Entries are
/// drawn at the edges (exactly 2⁻¹⁰², just below it, just below 2⁻⁵¹) and between, with
/// either sign, on boxes centred at the smallest coarse values (the posed centre's sums
/// then add `t` to numbers of its scale) and on random boxes.
#[test]
fn tiny_translations_keep_the_unflushed_posing() {
    let mut rng = crate::rng::Rng::new(7);
    let below = |x: f32| f32::from_bits(x.to_bits() - 1);
    let (mut fast, mut flushed) = (0, 0);
    for case in 0..20_000 {
        let tiny = |rng: &mut crate::rng::Rng| -> f32 {
            let x = match rng.below(5) {
                0 => COARSE_T,
                1 => below(COARSE_T),
                2 => below(COARSE),
                3 => 0.0,
                _ => (2.0f64.powf(rng.range(-102.0, -51.0))) as f32,
            };
            if rng.below(2) == 0 { -x } else { x }
        };
        let t = [0; 3].map(|_| tiny(&mut rng));
        let b = if case % 2 == 0 {
            // An axis-aligned box centred at ∓2⁻⁵¹ against t's sign (0 where t is 0).
            Obb32::new(
                t.map(|x| -COARSE.copysign(x) * (x != 0.0) as u8 as f32),
                ID,
                [0.5; 3],
            )
        } else {
            let e: [f32; 9] = std::array::from_fn(|_| rng.range(-1.0, 1.0) as f32);
            Obb32::new(
                [0; 3].map(|_| rng.range(-2.0, 2.0) as f32),
                e,
                [0; 3].map(|_| rng.range(0.0, 1.0) as f32),
            )
        };
        // The identity (its f32 matrix is exact) so that `pc.t` is `t` itself.
        let mut pc = check(&Pose::new([1.0, 0.0, 0.0, 0.0], [0.0; 3]));
        pc.t = t;
        pc.coarse = pc.r.iter().all(|&x| (x == 0.0) | (x.abs() >= COARSE))
            & t.iter().all(|&x| (x == 0.0) | (x.abs() >= COARSE_T));
        let want = screen(obb_posed(&b, &pc.r, &pc.t, pc.t_err));
        let got = obb_posed_cpu(&b, &pc);
        assert_eq!(bits(&got), bits(&want), "case {case}: {b:?} t {t:?}");
        let on_lanes = pc.coarse && super::super::sat_lanes::coarse_box(&b);
        let any_below = t.iter().any(|&x| x != 0.0 && x.abs() < COARSE_T);
        assert_eq!(on_lanes, !any_below, "case {case}: t {t:?}");
        if on_lanes { fast += 1 } else { flushed += 1 }
    }
    assert!(fast > 5_000 && flushed > 5_000, "{fast} {flushed}");
}

/// [`PoseCheck::new`] takes a pose whose translation holds a trigonometric residue (the
/// side-by-side's near-miss poses have −4.3·10⁻¹⁹) as coarse, and one with a residue below
/// [`COARSE_T`] as not.
#[test]
fn a_translation_residue_is_coarse() {
    let q = [
        0.9996447363202947,
        0.01884509133496727,
        0.00035526367970537627,
        0.01884509133496727,
    ];
    let pc = check(&Pose::new(q, [0.155699, 0.0, -4.336808689942018e-19]));
    assert!(pc.coarse && pc.t[2] != 0.0, "{pc:?}");
    let pc = check(&Pose::new(q, [0.155699, 0.0, -1e-33]));
    assert!(!pc.coarse && pc.t[2] != 0.0, "{pc:?}");
}

/// The flushed lanes (`sat_lanes::posed_flushed`) are [`obb_posed`] bit for bit on any
/// numbers: boxes and poses mixing normal values, values down into f32's subnormals,
/// subnormals themselves, and zeros of either sign, so that products and sums underflow.
#[test]
fn the_flushed_lanes_are_the_flushed_posing_bit_for_bit() {
    let mut rng = crate::rng::Rng::new(11);
    let val = |rng: &mut crate::rng::Rng| -> f32 {
        let x = match rng.below(6) {
            0 => 0.0,
            1 => f32::from_bits(1 + rng.below(1 << 23) as u32),
            2 => 2.0f64.powf(rng.range(-150.0, -40.0)) as f32,
            _ => rng.range(0.0, 2.0) as f32,
        };
        if rng.below(2) == 0 { -x } else { x }
    };
    let mut flushes = 0;
    for case in 0..50_000 {
        let b = Obb32::new(
            [0; 3].map(|_| val(&mut rng)),
            std::array::from_fn(|_| val(&mut rng)),
            [0; 3].map(|_| val(&mut rng).abs()),
        );
        let r: [f32; 9] = std::array::from_fn(|_| val(&mut rng));
        let t = [0; 3].map(|_| val(&mut rng));
        let t_err = val(&mut rng).abs().max(f32::MIN_POSITIVE);
        let want = obb_posed(&b, &r, &t, t_err);
        let got = super::super::sat_lanes::posed_flushed(&b, &r, &t, t_err);
        let bits = |p: &PosedObb| -> Vec<u32> {
            p.f.iter()
                .chain(&p.c)
                .chain(&p.h)
                .chain([&p.e])
                .map(|x| x.to_bits())
                .collect()
        };
        assert_eq!(
            bits(&got),
            bits(&want),
            "case {case}: {b:?} r {r:?} t {t:?} {t_err}"
        );
        // Count the cases where a flush acted on an axis: the unflushed sums differ.
        let raw = (0..3).any(|k| {
            let d = (r[3 * k] * b.e[0] + r[3 * k + 1] * b.e[1]) + r[3 * k + 2] * b.e[2];
            d.to_bits() != want.f[k].to_bits()
        });
        flushes += raw as u32;
    }
    assert!(flushes > 5_000, "{flushes}");
}
