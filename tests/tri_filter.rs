//! The f32 triangle–triangle filter (`meshcollide::tri::filter`, twin of
//! `shaders/shared/tri_filter.wgsl`) against the exact truth.
//!
//! The truth of every case is `tri_tri_intersect` on A's corners as written (f64) and
//! `Pose::apply` of B's corners as written (f64). The filter only gets what the GPU gets:
//! A's and B's local f32 corners (`Frame::local_f32`), `fl32(R)`, `fl32(t_L)` and the local
//! pose's error bound (`tumble::pose_f32`). Most families have f32 corners near the origin;
//! `far_from_origin_and_17_digit_cases` moves them up to 10⁷ away at 10⁻³ scale with
//! coordinates that no f32 holds. It must never contradict the truth; UNSURE rates are printed
//! (`cargo test --test tri_filter -- --nocapture`). Case counts scale with
//! `MESHCOLLIDE_CASES=<n>` (default 200000 per family).

mod common;

use meshcollide::Pose;
use meshcollide::frame::{Frame, LocalPose};
use meshcollide::rng::Rng;
use meshcollide::tri::filter::{
    HIT, MISS, TRI_FILTER_WGSL, UNSURE, transform_error_bound, transform_f32, tri_tri_filter,
};
use meshcollide::tri::tri_tri_intersect;

type T32 = [[f32; 3]; 3];
type T64 = [[f64; 3]; 3];

/// Cases per family by default (`MESHCOLLIDE_CASES` sets another number).
const DEFAULT_CASES: usize = 200_000;

/// Counts of one family of cases.
#[derive(Default, Debug)]
struct Stats {
    total: usize,
    truth_hit: usize,
    miss: usize,
    hit: usize,
    unsure: usize,
    unsure_truth_hit: usize,
}

impl Stats {
    fn print(&self, name: &str) {
        let pct = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
        println!(
            "{name:<28} cases {:>8}  truth-hit {:>7}  MISS {:>7}  HIT {:>7}  UNSURE {:>7} ({:6.3}% of all, {:6.3}% of intersecting)",
            self.total,
            self.truth_hit,
            self.miss,
            self.hit,
            self.unsure,
            pct(self.unsure, self.total),
            pct(self.unsure_truth_hit, self.truth_hit),
        );
    }
}

/// The GPU's transform with every multiply-add fused (the other legal evaluation).
fn transform_f32_fused(r: &[f32; 9], t: &[f32; 3], p: [f32; 3]) -> [f32; 3] {
    [0, 1, 2].map(|i| {
        let s = r[3 * i].mul_add(p[0], t[i]);
        let s = r[3 * i + 1].mul_add(p[1], s);
        r[3 * i + 2].mul_add(p[2], s)
    })
}

/// [`check_frames`] for f32 corners in frames at the origin.
fn check(a: &T32, p: &T32, pose: &Pose, stats: &mut Stats) -> u32 {
    let a64: T64 = a.map(|v| v.map(f64::from));
    let b64: T64 = p.map(|v| v.map(f64::from));
    let env = Frame::default();
    let fly = Frame {
        origin: [0.0; 3],
        l1_max: Frame::of_points(&b64).l1_max,
    };
    check_frames(&a64, &b64, pose, &env, &fly, stats)
}

/// `x + o − y` for f64 `x`, `o`, `y` with `x + o` close to `y`, nearly exactly (two-sum,
/// then a subtraction Sterbenz makes exact).
fn offset_error(x: f64, o: f64, y: f64) -> f64 {
    let s = x + o;
    let bp = s - x;
    let e = (x - (s - bp)) + (o - bp);
    (s - y) + e
}

/// Runs the filter on A (corners as written, frame `env`) and B (corners as written in its
/// own frame `fly`) placed by `pose`, exactly as the GPU would (local f32 corners, both
/// unfused and fused transforms), checks it against the truth, and records the unfused
/// result.
fn check_frames(
    a64: &T64,
    b: &T64,
    pose: &Pose,
    env: &Frame,
    fly: &Frame,
    stats: &mut Stats,
) -> u32 {
    let lp = LocalPose::new(pose, env, fly);
    let (r32, t32, te) = meshcollide::tumble::pose_f32(&lp);
    let a: T32 = a64.map(|v| env.local_f32(v));
    let p: T32 = b.map(|v| fly.local_f32(v));
    let b64: T64 = b.map(|v| pose.apply(v));
    let truth = tri_tri_intersect(a64, &b64);
    let eps = p
        .iter()
        .map(|&v| transform_error_bound(v, &t32, te))
        .fold(0.0f32, f32::max);
    let mut first = UNSURE;
    for (k, tf) in [transform_f32 as fn(&_, &_, _) -> _, transform_f32_fused]
        .into_iter()
        .enumerate()
    {
        let q: T32 = p.map(|v| tf(&r32, &t32, v));
        for j in 0..3 {
            for c in 0..3 {
                let err = offset_error(q[j][c] as f64, env.origin[c], b64[j][c]).abs();
                assert!(
                    err <= eps as f64,
                    "transform bound violated: |{} - {}| > {eps} (p {:?}, pose {pose:?})",
                    q[j][c],
                    b64[j][c],
                    p[j]
                );
            }
        }
        let f = tri_tri_filter(&a, &q, eps);
        assert!(
            f == UNSURE || (f == HIT) == truth,
            "filter says {f} but truth is {truth}: a {a:?} p {p:?} pose {pose:?} q {q:?} eps {eps}"
        );
        assert!(f <= UNSURE);
        if k == 0 {
            first = f;
        }
    }
    stats.total += 1;
    stats.truth_hit += truth as usize;
    match first {
        MISS => stats.miss += 1,
        HIT => stats.hit += 1,
        _ => {
            stats.unsure += 1;
            stats.unsure_truth_hit += truth as usize;
        }
    }
    first
}

fn rand_pt(rng: &mut Rng, lo: f64, hi: f64) -> [f64; 3] {
    [0, 1, 2].map(|_| rng.range(lo, hi))
}

fn random_pose(rng: &mut Rng, t_lo: f64, t_hi: f64) -> Pose {
    Pose::new(rng.unit_quaternion(), rand_pt(rng, t_lo, t_hi))
}

fn to32(v: [f64; 3]) -> [f32; 3] {
    v.map(|c| c as f32)
}

/// B's corners in its own frame for wanted positions `x` in A's frame: `fl32(R^T (x - t))`,
/// so that the truth `pose.apply(p)` lies within about one f32 ulp of `x`.
fn pull_back(pose: &Pose, x: &T64) -> T32 {
    x.map(|v| to32(pose.rotate_inverse([0, 1, 2].map(|k| v[k] - pose.t[k]))))
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| a[k] + b[k])
}
fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| a[k] - b[k])
}
fn scale(a: [f64; 3], s: f64) -> [f64; 3] {
    a.map(|c| c * s)
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn unit(a: [f64; 3]) -> [f64; 3] {
    let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    scale(a, 1.0 / n)
}

#[test]
fn random_triangles_under_random_poses() {
    let n = common::cases(DEFAULT_CASES);
    let mut rng = Rng::new(0x7121_f11e);
    let mut st = Stats::default();
    let mut small = Stats::default();
    for i in 0..n {
        let a: T32 = std::array::from_fn(|_| to32(rand_pt(&mut rng, 0.0, 1.0)));
        if i % 2 == 0 {
            let pose = random_pose(&mut rng, 0.0, 1.0);
            // Unit-cube triangles (B centred on its own origin, so it lands around t).
            let p: T32 = std::array::from_fn(|_| to32(rand_pt(&mut rng, -0.5, 0.5)));
            check(&a, &p, &pose, &mut st);
        } else {
            // Smaller triangles: many more near misses per intersection.
            let centroid = [0, 1, 2].map(|k| (a[0][k] + a[1][k] + a[2][k]) as f64 / 3.0);
            let pose = Pose::new(
                rng.unit_quaternion(),
                add(centroid, rand_pt(&mut rng, -0.15, 0.15)),
            );
            let c = rand_pt(&mut rng, -0.1, 0.1);
            let p: T32 = std::array::from_fn(|_| to32(add(c, rand_pt(&mut rng, -0.15, 0.15))));
            check(&a, &p, &pose, &mut small);
        }
    }
    st.print("random unit cube");
    small.print("random small B");
    for s in [&st, &small] {
        assert!(s.truth_hit > s.total / 20, "too few intersecting cases");
        // The filter must be useful: < 1% UNSURE on generic input.
        assert!(s.unsure * 100 < s.total, "UNSURE rate too high: {s:?}");
        assert!(
            s.unsure_truth_hit * 100 < s.truth_hit,
            "UNSURE rate too high: {s:?}"
        );
    }
}

/// The kinds of constructed near-touching configurations.
const KINDS: [&str; 10] = [
    "vertex on face",
    "vertex on edge",
    "edge across edge",
    "coplanar overlap",
    "shared edge",
    "shared vertex",
    "gap / depth along normal",
    "edge-edge gap",
    "large coords, small tris",
    "degenerate (zero area)",
];

/// Builds a case of kind `kind`: A (f32), the wanted B in A's frame (f64), and a label of
/// the gap magnitude used (0 for none).
fn constructed(rng: &mut Rng, kind: usize) -> (T32, T64, f64) {
    let a: T32 = std::array::from_fn(|_| to32(rand_pt(rng, 0.0, 1.0)));
    let a64: T64 = a.map(|v| v.map(f64::from));
    let nrm = unit(cross(sub(a64[1], a64[0]), sub(a64[2], a64[0])));
    let bary = |rng: &mut Rng| {
        let (mut u, mut v) = (rng.f64(), rng.f64());
        if u + v > 1.0 {
            (u, v) = (1.0 - u, 1.0 - v);
        }
        add(
            a64[0],
            add(scale(sub(a64[1], a64[0]), u), scale(sub(a64[2], a64[0]), v)),
        )
    };
    let side = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    // A point on A's side `side`, at distance in [0.05, 0.5] from A's plane.
    let off = |rng: &mut Rng, s: f64| {
        let x = rand_pt(rng, -0.5, 1.5);
        let h = (0..3).map(|k| (x[k] - a64[0][k]) * nrm[k]).sum::<f64>();
        add(x, scale(nrm, s * rng.range(0.05, 0.5) - h))
    };
    let gap = 10f64.powf(rng.range(-7.0, -3.0));
    match kind {
        0 => {
            let x = bary(rng);
            (a, [x, off(rng, side), off(rng, side)], 0.0)
        }
        1 => {
            let e = rng.below(3) as usize;
            let x = add(a64[e], scale(sub(a64[(e + 1) % 3], a64[e]), rng.f64()));
            (a, [x, off(rng, side), off(rng, side)], 0.0)
        }
        2 => {
            // B's edge crosses A's edge e (in A's plane) with B's third corner off the plane.
            let e = rng.below(3) as usize;
            let x = add(a64[e], scale(sub(a64[(e + 1) % 3], a64[e]), rng.f64()));
            let d = unit(rand_pt(rng, -1.0, 1.0));
            let d = unit(sub(
                d,
                scale(nrm, d[0] * nrm[0] + d[1] * nrm[1] + d[2] * nrm[2]),
            ));
            let s = rng.range(0.05, 0.5);
            let b0 = add(x, scale(d, s));
            let b1 = sub(x, scale(d, rng.range(0.05, 0.5)));
            (a, [b0, b1, off(rng, side)], 0.0)
        }
        3 => {
            let b = [bary(rng), bary(rng), bary(rng)];
            // Stretch B beyond A within A's plane half of the time.
            let b = if rng.below(2) == 0 {
                b
            } else {
                let c = bary(rng);
                b.map(|v| add(c, scale(sub(v, c), 3.0)))
            };
            (a, b, 0.0)
        }
        4 => {
            let e = rng.below(3) as usize;
            let x = if rng.below(3) == 0 {
                // Coplanar neighbour, reflected across the shared edge.
                let m = bary(rng);
                let mid = scale(add(a64[e], a64[(e + 1) % 3]), 0.5);
                add(mid, sub(mid, m))
            } else {
                off(rng, side)
            };
            (a, [a64[(e + 1) % 3], a64[e], x], 0.0)
        }
        5 => {
            let e = rng.below(3) as usize;
            (a, [a64[e], off(rng, side), off(rng, side)], 0.0)
        }
        6 => {
            // B's vertex at signed distance `side·gap` from a point of A's face, the rest of B
            // on that side (gap) or through to the other side (penetration of depth gap).
            let x = add(bary(rng), scale(nrm, side * gap));
            let rest = if rng.below(2) == 0 { side } else { -side };
            (a, [x, off(rng, rest), off(rng, rest)], gap)
        }
        7 => {
            // B's edge passes A's edge e at distance `gap` (sign random), B's third corner far
            // on the far side.
            let e = rng.below(3) as usize;
            let ea = sub(a64[(e + 1) % 3], a64[e]);
            let x = add(a64[e], scale(ea, rng.range(0.1, 0.9)));
            let d = unit(add(nrm, scale(unit(cross(nrm, ea)), rng.range(-1.0, 1.0))));
            let out = unit(cross(ea, d));
            let y = add(x, scale(out, side * gap));
            let b0 = add(y, scale(d, rng.range(0.05, 0.5)));
            let b1 = sub(y, scale(d, rng.range(0.05, 0.5)));
            let b2 = add(y, scale(out, side * rng.range(0.05, 0.5)));
            (a, [b0, b1, b2], gap)
        }
        8 => {
            let c = rand_pt(rng, -1500.0, 1500.0);
            let size = 10f64.powf(rng.range(-2.0, 0.0));
            let a: T32 = std::array::from_fn(|_| to32(add(c, rand_pt(rng, 0.0, size))));
            let a64: T64 = a.map(|v| v.map(f64::from));
            let b = if rng.below(2) == 0 {
                std::array::from_fn(|_| add(c, rand_pt(rng, 0.0, size)))
            } else {
                // Vertex on A's face.
                let (u, v) = (rng.range(0.0, 0.5), rng.range(0.0, 0.5));
                let x = add(
                    a64[0],
                    add(scale(sub(a64[1], a64[0]), u), scale(sub(a64[2], a64[0]), v)),
                );
                [
                    x,
                    add(c, rand_pt(rng, 0.0, size)),
                    add(c, rand_pt(rng, 0.0, size)),
                ]
            };
            (a, b, 0.0)
        }
        _ => {
            // Zero-area A (repeated or exactly collinear f32 corners) or a collinear B.
            let p0 = rand_pt(rng, 0.0, 1.0);
            let d = rand_pt(rng, -0.5, 0.5);
            let which = rng.below(4);
            let line = |s: f64| to32(add(p0, scale(d, s)));
            let mut a = a;
            let mut b = [off(rng, side), off(rng, -side), bary(rng)];
            match which {
                0 => a = [line(0.0), line(1.0), line(0.0)],
                1 => {
                    // Exactly collinear in f32: powers of two along a power-of-two direction.
                    let o = to32(p0);
                    let k = [0.25f32, -0.125, 0.5];
                    a = [o, [o[0] + k[0], o[1] + k[1], o[2] + k[2]], o];
                    a[2] = [o[0] + 2.0 * k[0], o[1] + 2.0 * k[1], o[2] + 2.0 * k[2]];
                }
                2 => b = [b[0], b[1], scale(add(b[0], b[1]), 0.5)],
                _ => b = [b[0], b[0], b[0]],
            }
            (a, b, 0.0)
        }
    }
}

#[test]
fn constructed_near_touching_cases() {
    let n = common::cases(DEFAULT_CASES);
    let mut rng = Rng::new(0x0e4a_70c4);
    let mut stats: Vec<Stats> = KINDS.iter().map(|_| Stats::default()).collect();
    // Gap / depth cases by decade of the gap.
    let mut by_gap: Vec<Stats> = (0..4).map(|_| Stats::default()).collect();
    for i in 0..n {
        let kind = i % KINDS.len();
        let (a, x, gap) = constructed(&mut rng, kind);
        let pose = if kind == 8 {
            random_pose(&mut rng, -1500.0, 1500.0)
        } else if i % 7 == 0 {
            // The identity (r32 exact): shared corners stay exactly shared.
            Pose::IDENTITY
        } else {
            random_pose(&mut rng, -2.0, 2.0)
        };
        let p = pull_back(&pose, &x);
        check(&a, &p, &pose, &mut stats[kind]);
        if gap > 0.0 {
            let decade = ((-gap.log10()).floor() as usize).clamp(3, 6) - 3;
            check(&a, &p, &pose, &mut by_gap[decade]);
        }
    }
    for (k, s) in stats.iter().enumerate() {
        s.print(KINDS[k]);
    }
    for (d, s) in by_gap.iter().enumerate() {
        s.print(&format!("  gap in [1e-{}, 1e-{})", d + 4, d + 3));
    }
    // Gaps/depths of 1e-4..1e-3 are far above eps (~1e-6): mostly decided.
    assert!(by_gap[0].unsure * 10 < by_gap[0].total, "{:?}", by_gap[0]);
}

/// The frame of a model of extent `ext` that holds triangle `t` near one corner of its box.
fn frame_of(t: &T64, ext: f64) -> Frame {
    let far = add(t[0], [ext, ext * 0.7, -ext * 0.4]);
    Frame::of_points(t.iter().chain([&far]))
}

/// The constructed cases moved far from the origin at 10⁻³ scale (A's origin up to 10⁷
/// away, B written in its own frame elsewhere, the pose carrying it back), with corners that
/// no f32 holds (17 significant digits after the shift, plus a relative jitter of 10⁻¹²):
/// the filter sees only local f32 roundings and must still never contradict the truth on
/// the f64 values as written, and still decide most generic cases.
#[test]
fn far_from_origin_and_17_digit_cases() {
    let n = common::cases(DEFAULT_CASES) / 2;
    let mut rng = Rng::new(0x000f_a20f_0121);
    let mut stats: Vec<Stats> = KINDS.iter().map(|_| Stats::default()).collect();
    let mut generic = Stats::default();
    let mut generic_in_model = Stats::default();
    for i in 0..n {
        let kind = i % KINDS.len();
        let (a, x, _) = constructed(&mut rng, kind);
        let far = [1.0, 1e3, 1e6, 1e7][(i / KINDS.len()) % 4];
        let s = if kind == 8 { 1.0 } else { 1e-3 };
        let o_a = rand_pt(&mut rng, -far, far);
        let jitter = |rng: &mut Rng, v: f64| v * (1.0 + rng.range(-1e-12, 1e-12));
        let a64: T64 =
            a.map(|v| std::array::from_fn(|k| jitter(&mut rng, v[k] as f64 * s + o_a[k])));
        let xg: T64 = x.map(|v| std::array::from_fn(|k| v[k] * s + o_a[k]));
        let t = add(o_a, rand_pt(&mut rng, -far, far));
        let pose = if i % 7 == 0 {
            Pose::translation(t)
        } else {
            Pose::new(rng.unit_quaternion(), t)
        };
        let b: T64 = xg.map(|v| {
            let w = pose.rotate_inverse(sub(v, pose.t));
            std::array::from_fn(|k| jitter(&mut rng, w[k]))
        });
        // The triangles are part of models up to 10⁴ times their size: the local origin
        // (the model's box centre) sits that far away, and the local f32 corners carry a
        // rounding of that magnitude.
        let ext = [0.0, 1e2, 1e4][(i / (4 * KINDS.len())) % 3] * s;
        let (env, fly) = (frame_of(&a64, ext), frame_of(&b, ext));
        let f = check_frames(&a64, &b, &pose, &env, &fly, &mut stats[kind]);
        if kind == 8 || kind == 9 {
            continue;
        }
        let _ = f;
        // A generic pair at the same scale and place: far from touching.
        let a2: T64 = std::array::from_fn(|_| add(o_a, scale(rand_pt(&mut rng, 0.0, 1.0), s)));
        let b2: T64 = std::array::from_fn(|_| {
            let v = add(o_a, scale(rand_pt(&mut rng, 0.0, 1.0), s));
            pose.rotate_inverse(sub(v, pose.t))
        });
        let (env, fly) = (frame_of(&a2, ext), frame_of(&b2, ext));
        let st = if ext == 0.0 {
            &mut generic
        } else {
            &mut generic_in_model
        };
        check_frames(&a2, &b2, &pose, &env, &fly, st);
    }
    for (k, s) in stats.iter().enumerate() {
        s.print(&format!("far: {}", KINDS[k]));
    }
    generic.print("far: random");
    generic_in_model.print("far: random, in a model");
    assert!(
        generic.truth_hit > generic.total / 20,
        "too few intersecting cases"
    );
    assert!(
        generic.unsure * 100 < generic.total,
        "UNSURE rate too high: {generic:?}"
    );
}

/// Exactly shared features with the identity pose and unit-cube-scale data: the filter must
/// not claim a MISS for touching triangles, whatever the inputs' rounding.
#[test]
fn exact_touching_is_never_miss() {
    let n = common::cases(DEFAULT_CASES) / 10;
    let mut rng = Rng::new(42);
    let mut st = Stats::default();
    for _ in 0..n {
        let a: T32 = std::array::from_fn(|_| to32(rand_pt(&mut rng, 0.0, 1.0)));
        let e = rng.below(3) as usize;
        let other = to32(rand_pt(&mut rng, 0.0, 1.0));
        let b = [a[e], a[(e + 1) % 3], other];
        let f = check(&a, &b, &Pose::IDENTITY, &mut st);
        assert_ne!(f, MISS);
        let b = [a[e], other, to32(rand_pt(&mut rng, 0.0, 1.0))];
        let f = check(&a, &b, &Pose::IDENTITY, &mut st);
        assert_ne!(f, MISS);
    }
    st.print("exact shared edge/vertex");
}

/// A test entry point around the three public WGSL functions: the shader file itself has no
/// bindings and no entry points.
#[cfg(feature = "gpu")]
const WGSL_WRAPPER: &str = r#"
@group(0) @binding(0) var<storage, read> tf_test_in: array<f32>;
@group(0) @binding(1) var<storage, read_write> tf_test_out: array<u32>;

fn tf_test_v(i: u32) -> vec3<f32> {
    return vec3<f32>(tf_test_in[i], tf_test_in[i + 1u], tf_test_in[i + 2u]);
}

@compute @workgroup_size(64)
fn tf_test_main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let base = gid.x * 31u;
    var r: array<f32, 9>;
    for (var k = 0u; k < 9u; k++) {
        r[k] = tf_test_in[base + k];
    }
    let t = tf_test_v(base + 9u);
    let p0 = tf_test_v(base + 21u);
    let p1 = tf_test_v(base + 24u);
    let p2 = tf_test_v(base + 27u);
    let q0 = transform_f32(r, t, p0);
    let q1 = transform_f32(r, t, p1);
    let q2 = transform_f32(r, t, p2);
    let e0 = tf_test_in[base + 30u];
    let eps = max(transform_error_bound(p0, t, e0), max(transform_error_bound(p1, t, e0), transform_error_bound(p2, t, e0)));
    tf_test_out[gid.x] = tri_tri_filter(tf_test_v(base + 12u), tf_test_v(base + 15u), tf_test_v(base + 18u), q0, q1, q2, eps);
}
"#;

#[test]
#[cfg(feature = "gpu")]
fn wgsl_parses_and_validates() {
    use naga::valid::{Capabilities, ValidationFlags, Validator};
    // The file alone (as included by other kernels) and with a test entry point.
    for src in [
        TRI_FILTER_WGSL.to_string(),
        format!("{TRI_FILTER_WGSL}\n{WGSL_WRAPPER}"),
    ] {
        let module = naga::front::wgsl::parse_str(&src)
            .unwrap_or_else(|e| panic!("WGSL parse error:\n{}", e.emit_to_string(&src)));
        Validator::new(ValidationFlags::all(), Capabilities::empty())
            .validate(&module)
            .unwrap_or_else(|e| panic!("WGSL validation error:\n{}", e.emit_to_string(&src)));
        for name in ["transform_f32", "transform_error_bound", "tri_tri_filter"] {
            assert!(
                module
                    .functions
                    .iter()
                    .any(|(_, f)| f.name.as_deref() == Some(name)),
                "missing fn {name}"
            );
        }
    }
    assert!(!TRI_FILTER_WGSL.contains("@compute") && !TRI_FILTER_WGSL.contains("@binding"));
}

/// The functions of a source text in order: (name, body with whitespace collapsed and
/// trailing commas dropped). A function runs from `fn name(` to the next line `}`.
fn functions(src: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find("\nfn ").or_else(|| rest.find("\npub fn ")) {
        let j = rest.find("\npub fn ").filter(|&j| j < i).unwrap_or(i);
        let start = &rest[j + 1..];
        let name_at = start.find("fn ").unwrap() + 3;
        let name: String = start[name_at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let open = start.find("{\n").unwrap();
        let close = start.find("\n}\n").unwrap();
        let body = start[open + 1..close]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .replace(", )", ")");
        out.push((name, body));
        rest = &start[close..];
    }
    out
}

/// The Rust twin and the WGSL must stay literally parallel: same functions in the same
/// order with the same bodies, except the scalar primitives and the Rust-only wrapper.
#[test]
fn rust_and_wgsl_are_literal_twins() {
    let rust_src = include_str!("../src/tri/filter.rs");
    let rust_src = &rust_src[..rust_src.find("#[cfg(test)]").unwrap()];
    let rust: Vec<_> = functions(rust_src)
        .into_iter()
        .filter(|(n, _)| n != "TfV3" && n != "tri_tri_filter")
        .map(|(n, b)| {
            let n = if n == "tri_tri_filter_corners" {
                "tri_tri_filter".to_string()
            } else {
                n
            };
            (n, b)
        })
        .collect();
    let wgsl = functions(TRI_FILTER_WGSL);
    let names = |v: &[(String, String)]| v.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
    assert_eq!(names(&rust), names(&wgsl));
    let primitives = ["tf_abs", "tf_max", "tf_min"];
    for ((name, rb), (_, wb)) in rust.iter().zip(&wgsl) {
        if !primitives.contains(&name.as_str()) {
            assert_eq!(rb, wb, "fn {name} differs between Rust and WGSL");
        }
    }
    // The f32 constants are the same text.
    let consts = |s: &str| {
        s.lines()
            .filter(|l| l.starts_with("const TF_") && l.contains(": f32"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(consts(rust_src), consts(TRI_FILTER_WGSL));
    assert_eq!(consts(TRI_FILTER_WGSL).len(), 6);
}

/// `tri_tri_farther` (a tolerance query's triangle test on the GPU): whenever it says a pair
/// is farther apart than `e`, the exact test agrees (`tri_tri_within` is false), under
/// random poses, tolerances and frames, both transforms; it does prune most pairs well
/// apart; and at its edge, two stacked triangles `g` apart along the centroids' direction
/// are kept at `e = g` and pruned at `e = g·(1 − 10⁻⁴)`.
#[test]
fn farther_never_prunes_a_pair_within_the_tolerance() {
    use meshcollide::proximity::tri_tri_within;
    use meshcollide::tri::filter::tri_tri_farther;
    use meshcollide::tumble::tolerance_t2;
    let mut rng = Rng::new(0xfa27_4e55);
    let (mut pruned, mut within, mut apart) = (0usize, 0usize, 0usize);
    let cases = std::env::var("MESHCOLLIDE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES / 4);
    for _ in 0..cases {
        let a64: T64 = [0; 3].map(|_| rand_pt(&mut rng, -1.0, 1.0));
        let b: T64 = [0; 3].map(|_| rand_pt(&mut rng, -1.0, 1.0));
        let pose = random_pose(&mut rng, -3.0, 3.0);
        let e = rng.range(0.0, 2.0).powi(3);
        let env = Frame::default();
        let fly = Frame {
            origin: [0.0; 3],
            l1_max: Frame::of_points(&b).l1_max,
        };
        let lp = LocalPose::new(&pose, &env, &fly);
        let (r32, t32, te) = meshcollide::tumble::pose_f32(&lp);
        let a: T32 = a64.map(|v| env.local_f32(v));
        let p: T32 = b.map(|v| fly.local_f32(v));
        let eps_q = p
            .iter()
            .map(|&v| transform_error_bound(v, &t32, te))
            .fold(0.0f32, f32::max);
        let b64: T64 = b.map(|v| pose.apply(v));
        let truth_within = tri_tri_within(&a64, &b64, e);
        within += truth_within as usize;
        apart += !truth_within as usize;
        for tf in [transform_f32 as fn(&_, &_, _) -> _, transform_f32_fused] {
            let q = p.map(|v| tf(&r32, &t32, v));
            let far = tri_tri_farther(a[0], a[1], a[2], q[0], q[1], q[2], eps_q, tolerance_t2(e));
            assert!(!(far && truth_within), "{a64:?} {b64:?} e {e}");
            pruned += far as usize;
        }
    }
    assert!(within > 0 && apart > 0);
    // Most pairs apart are pruned (the direction between centroids is a good axis).
    assert!(
        pruned > apart,
        "{pruned} of {apart} pairs apart (both transforms)"
    );
    // The edge: A at z = 0, B the same triangle at z = g (dyadic, exact in f32).
    let t: T32 = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
    let (r, o) = ([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0], [0.0; 3]);
    for g in [0.25f32, 0.75, 3.0] {
        let q = t.map(|v| [v[0], v[1], v[2] + g]);
        let eps_q = transform_error_bound(t[0], &o, 0.0);
        assert_eq!(transform_f32(&r, &o, t[1]), t[1]);
        let far =
            |e: f64| tri_tri_farther(t[0], t[1], t[2], q[0], q[1], q[2], eps_q, tolerance_t2(e));
        assert!(!far(g as f64), "g {g}: kept at e = g");
        assert!(far(g as f64 * (1.0 - 1e-4)), "g {g}: pruned just below");
    }
}
