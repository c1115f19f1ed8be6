//! Budgeted queries ([`meshcollide::budget`]) against their oracles: at every budget from
//! one node test to enough, on every hierarchy that takes a budget and in every order,
//! the answers are consistent with the all-pairs oracle (`free` never for a pose with a
//! contact, `contact` only with real pairs, a finished search finds them all), the node
//! tests stay within the budget, and the reported `depth_bound` is at least the
//! penetration depth of every intersecting pair left undecided, measured by brute force
//! (the separating axis theorem on the two triangles' candidate axes). Without a limit the
//! pairs and node tests are the unbudgeted query's. Scenes: touching and coplanar grid
//! soups, soups in general position, tumbling tori, soups 10⁷ from the origin
//! (`common::proximity_cases`).

mod common;

use meshcollide::budget::{Answer, Budget, Hint, Order, PoseStatus};
use meshcollide::*;

const BVS: [BvKind; 11] = [
    BvKind::Kdop6,
    BvKind::Kdop14,
    BvKind::Kdop18,
    BvKind::Kdop26,
    BvKind::Dual18,
    BvKind::Dual6,
    BvKind::Obb,
    BvKind::Sphere,
    BvKind::Auto,
    BvKind::Boxtree,
    BvKind::Rtree,
];

/// A hierarchy under test: its kind, and for the boxtree and the R-tree the box test and
/// the traversal (their defaults in [`BVS`]).
#[derive(Clone, Copy)]
struct Setup {
    bv: BvKind,
    box_test: BoxTest,
    rtree: RtreeCollide,
}

impl Setup {
    fn of(bv: BvKind) -> Setup {
        Setup {
            bv,
            box_test: BoxTest::default(),
            rtree: RtreeCollide::default(),
        }
    }

    fn name(&self) -> String {
        match self.bv {
            BvKind::Boxtree => format!("boxtree/{}", self.box_test.name()),
            BvKind::Rtree => format!("rtree/{}", self.rtree.name()),
            bv => bv.name().to_string(),
        }
    }

    fn build(&self, a: &Mesh, b: &Mesh) -> Collider {
        Collider::builder(a, b)
            .bv(self.bv)
            .boxtree(BoxtreeOptions {
                test: self.box_test,
            })
            .rtree(RtreeOptions {
                collide: self.rtree,
                ..Default::default()
            })
            .build()
            .unwrap()
    }
}

/// [`BVS`], then the boxtree's other box tests and the R-tree's version 1.
fn setups() -> Vec<Setup> {
    let mut v: Vec<Setup> = BVS.into_iter().map(Setup::of).collect();
    for box_test in [BoxTest::Align, BoxTest::Lut, BoxTest::Sat] {
        v.push(Setup {
            box_test,
            ..Setup::of(BvKind::Boxtree)
        });
    }
    v.push(Setup {
        rtree: RtreeCollide::V1,
        ..Setup::of(BvKind::Rtree)
    });
    v
}

fn cases() -> Vec<common::ProximityCase> {
    common::proximity_cases(
        0x00b0_d6e7,
        &common::CaseSizes {
            grid: (14, 10),
            float: (40, 10),
            tori_poses: 8,
            far: (30, 8),
            grid_eps_max: 0.75,
        },
    )
}

type P = [f64; 3];

fn sub(a: P, b: P) -> P {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: P, b: P) -> P {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: P, b: P) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The penetration depth of two intersecting triangles (the length of the shortest
/// translation of `b` after which the two are separated by a plane), by the separating axis
/// theorem: the Minkowski difference of two triangles is a convex polytope whose facet
/// normals are among the two triangles' normals and the nine cross products of their
/// edges, so the depth is the least overlap of the projections over those axes, divided by
/// the axis' length. Coplanar triangles give 0 along their common normal. Evaluated in f64
/// (the tests compare with a relative slack of 1e-9 for its rounding); degenerate axes
/// (zero-length cross products, the normal of a degenerate triangle) are skipped, which can
/// only make the oracle larger, so the test stricter.
fn penetration_depth(a: &[P; 3], b: &[P; 3]) -> f64 {
    let ea = [sub(a[1], a[0]), sub(a[2], a[1]), sub(a[0], a[2])];
    let eb = [sub(b[1], b[0]), sub(b[2], b[1]), sub(b[0], b[2])];
    let mut axes = vec![cross(ea[0], ea[1]), cross(eb[0], eb[1])];
    for x in ea {
        for y in eb {
            axes.push(cross(x, y));
        }
    }
    let mut best = f64::INFINITY;
    for n in axes {
        let len = dot(n, n).sqrt();
        if len == 0.0 || !len.is_finite() {
            continue;
        }
        let pa = a.map(|p| dot(n, p));
        let pb = b.map(|p| dot(n, p));
        let (lo_a, hi_a) = (
            pa.iter().copied().fold(f64::INFINITY, f64::min),
            pa.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        let (lo_b, hi_b) = (
            pb.iter().copied().fold(f64::INFINITY, f64::min),
            pb.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        let overlap = (hi_a - lo_b).min(hi_b - lo_a).max(0.0);
        best = best.min(overlap / len);
    }
    if best.is_finite() { best } else { 0.0 }
}

fn corners(m: &Mesh, t: u32) -> [P; 3] {
    m.triangle(t as usize)
}

/// Checks one pose's budgeted answer against the oracle's pairs; returns whether it was
/// incomplete (to count that the sweep reached such answers).
#[allow(clippy::too_many_arguments)]
fn check(
    what: &str,
    case: &common::ProximityCase,
    pose: &Pose,
    oracle: &[(u32, u32)],
    mode: Mode,
    limit: u64,
    pairs: &[(u32, u32)],
    s: &PoseStatus,
) -> bool {
    assert!(
        s.bv_tests <= limit,
        "{what}: {} tests over the budget {limit}",
        s.bv_tests
    );
    assert!(
        pairs.iter().all(|p| oracle.contains(p)),
        "{what}: a pair that is not one"
    );
    match s.answer {
        Answer::Free => {
            assert!(
                s.complete && oracle.is_empty() && pairs.is_empty(),
                "{what}: free with contact"
            )
        }
        Answer::Contact => assert!(!pairs.is_empty(), "{what}: contact without a pair"),
        Answer::Maybe => assert!(!s.complete && pairs.is_empty(), "{what}: maybe"),
    }
    if s.complete {
        assert_eq!(s.depth_bound, 0.0, "{what}");
        if mode == Mode::All {
            assert_eq!(pairs, oracle, "{what}: a finished search misses pairs");
        } else {
            assert_eq!(pairs.is_empty(), oracle.is_empty(), "{what}");
        }
        return false;
    }
    assert!(s.depth_bound.is_finite() && s.depth_bound >= 0.0, "{what}");
    let posed = |t: u32| corners(&case.b, t).map(|p| pose.apply(p));
    for &(ta, tb) in oracle.iter().filter(|p| !pairs.contains(p)) {
        let d = penetration_depth(&corners(&case.a, ta), &posed(tb));
        assert!(
            d <= s.depth_bound * (1.0 + 1e-9),
            "{what}: pair ({ta}, {tb}) left undecided has depth {d} > bound {}",
            s.depth_bound
        );
    }
    true
}

/// The budget sweep: 1, 2, 3, 4, 6, 9, … up to past what an unlimited search spends.
fn budgets(full: u64) -> Vec<u64> {
    let mut v = vec![1u64];
    while *v.last().unwrap() <= full {
        let n = *v.last().unwrap();
        v.push(n + 1 + n / 2);
    }
    v
}

/// Calls `f` with each mode's options and each budget of the sweep, in every order: from
/// one node test to past what an unlimited search of `poses` spends.
fn sweep(c: &Collider, poses: &[Pose], mut f: impl FnMut(&QueryOptions, Budget)) {
    for mode in [Mode::All, Mode::First] {
        let opts = QueryOptions {
            mode,
            ..Default::default()
        };
        let unlimited = c.collide_budgeted(poses, &opts, Budget::UNLIMITED).unwrap();
        let full = unlimited.iter().map(|(_, s)| s.bv_tests).max().unwrap_or(1);
        for order in Order::ALL {
            for limit in budgets(full) {
                f(
                    &opts,
                    Budget::new(limit, "budget").unwrap().with_order(order),
                );
            }
        }
    }
}

#[test]
fn every_budget_gives_answers_the_oracle_allows_and_a_bound_on_every_undecided_depth() {
    let (mut incomplete, mut maybe, mut contact_left) = (0, 0, 0);
    // Per hierarchy: its `maybe` answers and its unfinished `contact` answers.
    let mut each = std::collections::BTreeMap::<String, (usize, usize)>::new();
    for case in cases() {
        let oracle: Vec<Vec<(u32, u32)>> = case
            .poses
            .iter()
            .map(|p| brute_force(&case.a, &case.b, p))
            .collect();
        for setup in setups() {
            let c = setup.build(&case.a, &case.b);
            sweep(&c, &case.poses, |opts, budget| {
                let (mode, order, limit) = (opts.mode, budget.order, budget.nodes.get());
                let got = c.collide_budgeted(&case.poses, opts, budget).unwrap();
                for (i, ((r, s), pose)) in got.iter().zip(&case.poses).enumerate() {
                    let what = format!(
                        "{} {} {} {} N={limit} pose {i}",
                        case.name,
                        setup.name(),
                        mode.name(),
                        order.name()
                    );
                    if check(&what, &case, pose, &oracle[i], mode, limit, &r.pairs, s) {
                        incomplete += 1;
                        maybe += usize::from(s.answer == Answer::Maybe);
                        contact_left += usize::from(s.answer == Answer::Contact);
                        let e = each.entry(setup.name()).or_default();
                        e.0 += usize::from(s.answer == Answer::Maybe);
                        e.1 += usize::from(s.answer == Answer::Contact);
                    }
                }
            });
        }
    }
    // The sweep reached every kind of unfinished answer (else the bound went untested),
    // on every hierarchy.
    assert!(
        maybe > 100 && contact_left > 100,
        "{incomplete} {maybe} {contact_left}"
    );
    eprintln!("{each:?}");
    for (name, (maybe, contact_left)) in &each {
        assert!(
            *maybe > 10 && *contact_left > 10,
            "{name}: {maybe} {contact_left}"
        );
    }
    assert_eq!(each.len(), setups().len());
}

/// Without a limit every order tests the unbudgeted query's node pairs and finds its
/// pairs: the frontier changes the order of the tests, not their set.
#[test]
fn without_a_limit_the_pairs_and_node_tests_are_the_unbudgeted_querys() {
    for case in cases() {
        for setup in setups() {
            let c = setup.build(&case.a, &case.b);
            let opts = QueryOptions::default();
            let plain = c.collide_batch_with(&case.poses, &opts, None);
            // `auto` answers the budget with its kdop18 tree.
            let plain = match setup.bv {
                BvKind::Auto => Collider::builder(&case.a, &case.b)
                    .bv(BvKind::Kdop18)
                    .build()
                    .unwrap()
                    .collide_batch_with(&case.poses, &opts, None),
                _ => plain,
            };
            for order in Order::ALL {
                let got = c
                    .collide_budgeted(&case.poses, &opts, Budget::UNLIMITED.with_order(order))
                    .unwrap();
                for (i, ((r, s), p)) in got.iter().zip(&plain).enumerate() {
                    let what = format!("{} {} {} pose {i}", case.name, setup.name(), order.name());
                    assert!(s.complete, "{what}");
                    assert_eq!(r.pairs, p.pairs, "{what}");
                    assert_eq!(s.bv_tests, p.counters.bv_tests, "{what}");
                    assert_eq!(r.counters.tri_tests, p.counters.tri_tests, "{what}");
                }
            }
        }
    }
}

/// The orders spend a budget differently, but each is deterministic: the same call twice,
/// and on one thread or many, gives the same rows.
#[test]
fn budgeted_answers_do_not_depend_on_threads() {
    let case = &cases()[2];
    // A path of 40 poses (several chunks), so the front carries from pose to pose.
    let poses = path(case, 5);
    for (bv, front) in [
        (BvKind::Auto, false),
        (BvKind::Auto, true),
        (BvKind::Obb, true),
        (BvKind::Boxtree, false),
        (BvKind::Rtree, false),
    ] {
        let c = Collider::builder(&case.a, &case.b).bv(bv).build().unwrap();
        let budget = Budget {
            front,
            ..Budget::new(7, "budget").unwrap()
        };
        let opts = QueryOptions::default();
        let many = c.collide_budgeted(&poses, &opts, budget).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let one = pool.install(|| c.collide_budgeted(&poses, &opts, budget).unwrap());
        assert_eq!(many.len(), one.len());
        for ((a, sa), (b, sb)) in many.iter().zip(&one) {
            assert_eq!(a.pairs, b.pairs, "{}", bv.name());
            assert_eq!(sa, sb, "{}", bv.name());
        }
    }
}

/// Every hierarchy takes a budget (the boxtree and the R-tree too, once refused by name);
/// a tolerance is refused by name.
#[test]
fn what_takes_no_budget_is_refused_by_name() {
    let case = &cases()[0];
    let budget = Budget::new(5, "budget").unwrap();
    for bv in BVS {
        let c = Collider::builder(&case.a, &case.b).bv(bv).build().unwrap();
        let got = c.collide_budgeted(&case.poses, &QueryOptions::default(), budget);
        assert_eq!(
            got.map(|r| r.len()).ok(),
            Some(case.poses.len()),
            "{}",
            bv.name()
        );
    }
    let c = Collider::builder(&case.a, &case.b).build().unwrap();
    let opts = QueryOptions {
        tolerance: proximity::Tolerance::new(0.1, "eps").unwrap(),
        ..Default::default()
    };
    let e = c
        .collide_budgeted(&case.poses, &opts, budget)
        .unwrap_err()
        .to_string();
    assert!(e.contains("tolerance"), "{e}");
    assert!(
        Budget::new(0, "--budget")
            .unwrap_err()
            .to_string()
            .contains("--budget")
    );
}

/// Where the volumes are as tight as the triangles, the bound is the depth itself, so a
/// bound made smaller in any stage would fail here: a square of two triangles in `z = 0`
/// (A) and a fin of two vertical triangles reaching `h` below it (B), inside one of the
/// square's triangles and far from its edges, so that the penetration depth is `h` (lift
/// the fin by `h`; sideways the fin would move 0.7). After the pretest alone (N = 1) the bound is the
/// posed boxes' overlap; after the roots' test (N = 2) the roots' k-DOPs' (the OBB and
/// sphere trees: their nodes' boxes, posed; the boxtree, without a pretest: its roots'
/// boxes at N = 1 and 2; the R-tree: A's root box against B's root box covered at N = 1, a
/// root pair's boxes at N = 2); each `h` within its proved slack. Far from the origin too.
#[test]
fn the_bound_is_the_depth_where_the_volumes_are_tight() {
    for far in [[0.0; 3], [3e6, -1e6, 2e6]] {
        let at = |p: [f64; 3]| [p[0] + far[0], p[1] + far[1], p[2] + far[2]];
        let square = Mesh::new(
            [
                [-2.0, -2.0, 0.0],
                [2.0, -2.0, 0.0],
                [2.0, 2.0, 0.0],
                [-2.0, 2.0, 0.0],
            ]
            .map(at)
            .to_vec(),
            vec![[0, 1, 2], [0, 2, 3]],
        )
        .unwrap();
        for h in [0.25, 0.0625, 1e-3] {
            let fin = Mesh::new(
                vec![
                    [-0.5, -0.5, 1.0],
                    [1.5, -0.5, 1.0],
                    [0.5, -0.5, -h],
                    [0.5, 0.0, 1.0],
                ],
                vec![[0, 1, 2], [1, 3, 2]],
            )
            .unwrap();
            let pose = Pose::translation(far);
            let oracle = brute_force(&square, &fin, &pose);
            assert!(!oracle.is_empty());
            let depth = oracle
                .iter()
                .map(|&(a, b)| {
                    penetration_depth(
                        &square.triangle(a as usize),
                        &fin.triangle(b as usize).map(|p| pose.apply(p)),
                    )
                })
                .fold(0.0, f64::max);
            assert!((depth - h).abs() <= 1e-9 * h.max(1.0) + 1e-9, "{depth} {h}");
            for bv in [
                BvKind::Kdop6,
                BvKind::Kdop14,
                BvKind::Kdop18,
                BvKind::Kdop26,
                BvKind::Obb,
                BvKind::Sphere,
                BvKind::Auto,
                BvKind::Boxtree,
                BvKind::Rtree,
            ] {
                let c = Collider::builder(&square, &fin).bv(bv).build().unwrap();
                for n in [1, 2] {
                    let b = Budget::new(n, "budget").unwrap();
                    let (r, s) = &c
                        .collide_budgeted(&[pose], &QueryOptions::default(), b)
                        .unwrap()[0];
                    let what = format!("{} N={n} h={h} far={far:?}", bv.name());
                    assert!(
                        r.pairs.is_empty() && s.answer == Answer::Maybe,
                        "{what}: {s:?}"
                    );
                    assert!(
                        s.depth_bound >= depth,
                        "{what}: {} < {depth}",
                        s.depth_bound
                    );
                    // The slack: the f32 k-DOPs' outward rounding near the origin, and
                    // the local frames' and pose's error bounds far from it.
                    let slack = if far[0] == 0.0 { 1e-5 } else { 1e-3 };
                    assert!(
                        s.depth_bound <= depth + slack,
                        "{what}: {} ≫ {depth}",
                        s.depth_bound
                    );
                }
            }
        }
    }
}

/// The hot start: a pose that repeats its predecessor's contact finds it before the budget
/// is spent. Along a path of one pose in contact, the first call (a budget large enough)
/// finds a pair; later calls at N = 1 (the pretest alone) answer `contact` with a real pair
/// through the `Hint` it left, and `maybe` without the hot start or without the hint.
#[test]
fn the_hot_start_answers_a_persisting_contact_within_any_budget() {
    let case = &cases()[0];
    let oracle: Vec<_> = case
        .poses
        .iter()
        .map(|p| brute_force(&case.a, &case.b, p))
        .collect();
    let i = oracle
        .iter()
        .position(|o| !o.is_empty())
        .expect("a pose in contact");
    let pose = case.poses[i];
    for bv in BVS {
        let c = Collider::builder(&case.a, &case.b).bv(bv).build().unwrap();
        let opts = QueryOptions::default();
        let big = Budget::new(u64::MAX, "budget").unwrap();
        let hot = Budget::new(1, "budget").unwrap();
        let cold = Budget {
            hot_start: false,
            ..hot
        };
        let mut hint = Hint::NONE;
        let (_, s) = c
            .collide_budgeted_pose(&pose, &opts, hot, &mut hint)
            .unwrap();
        assert_eq!(s.answer, Answer::Maybe, "{}", bv.name());
        let (_, s) = c
            .collide_budgeted_pose(&pose, &opts, big, &mut hint)
            .unwrap();
        assert_eq!(s.answer, Answer::Contact, "{}", bv.name());
        for _ in 0..2 {
            let (r, s) = c
                .collide_budgeted_pose(&pose, &opts, hot, &mut hint)
                .unwrap();
            assert_eq!(s.answer, Answer::Contact, "{}", bv.name());
            assert!(!r.pairs.is_empty() && r.pairs.iter().all(|p| oracle[i].contains(p)));
            assert!(s.bv_tests <= 1 && !s.complete);
        }
        let mut kept = hint;
        let (_, s) = c
            .collide_budgeted_pose(&pose, &opts, cold, &mut kept)
            .unwrap();
        assert_eq!(s.answer, Answer::Maybe, "{}", bv.name());
        let (_, s) = c
            .collide_budgeted_pose(&pose, &opts, hot, &mut Hint::default())
            .unwrap();
        assert_eq!(s.answer, Answer::Maybe, "{}", bv.name());
    }
}

/// A path of small steps through each case's poses: from each pose, `steps` translations by
/// 1 % of B's box half-diagonal along a fixed direction (coherent steps, so the hot start's
/// front carries over, [`Hint`]).
fn path(case: &common::ProximityCase, steps: usize) -> Vec<Pose> {
    let (lo, hi) = case.b.bounds();
    let r = 0.5 * (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
    let dir = [0.6, -0.48, 0.64];
    case.poses
        .iter()
        .flat_map(|p| {
            (0..steps).map(move |k| {
                let s = 0.01 * r * k as f64;
                Pose {
                    t: [0, 1, 2].map(|j| p.t[j] + s * dir[j]),
                    ..*p
                }
            })
        })
        .collect()
}

/// The front ([`Budget::front`]) on motion paths: at every budget, on every hierarchy, in both
/// modes and every order, the answers stay what the oracle allows and the bound covers
/// every undecided depth when each pose starts from the previous pose's front.
#[test]
fn a_path_started_from_the_previous_front_keeps_answers_and_bounds() {
    let mut incomplete = 0;
    for case in cases() {
        let poses = path(&case, 6);
        let oracle: Vec<Vec<(u32, u32)>> = poses
            .iter()
            .map(|p| brute_force(&case.a, &case.b, p))
            .collect();
        for setup in setups() {
            let c = setup.build(&case.a, &case.b);
            sweep(&c, &poses, |opts, budget| {
                let (mode, order, limit) = (opts.mode, budget.order, budget.nodes.get());
                let budget = Budget {
                    front: true,
                    ..budget
                };
                let mut hint = Hint::NONE;
                for (i, pose) in poses.iter().enumerate() {
                    let (r, s) = c
                        .collide_budgeted_pose(pose, opts, budget, &mut hint)
                        .unwrap();
                    let what = format!(
                        "{} {} {} {} N={limit} path pose {i}",
                        case.name,
                        setup.name(),
                        mode.name(),
                        order.name()
                    );
                    incomplete += usize::from(check(
                        &what, &case, pose, &oracle[i], mode, limit, &r.pairs, &s,
                    ));
                }
            });
        }
    }
    assert!(incomplete > 1000, "{incomplete}");
}

/// The front is used: a pose repeated with a budget that never runs out starts from the
/// front its predecessor ended with ([`Budget::front`]), so it tests only that front (fewer
/// node tests than from the roots, on the binary trees) and finds the same pairs; a step
/// that is not coherent, or a budget without the front, starts from the roots again. The
/// boxtree and the R-tree carry no front (their node tests depend on the descent above
/// them, or their roots on the pose) and test what they test from the roots.
#[test]
fn a_repeated_pose_tests_only_the_front_it_left() {
    let mut fewer = 0;
    for case in cases() {
        let (lo, hi) = case.b.bounds();
        let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        for setup in setups() {
            let c = setup.build(&case.a, &case.b);
            let opts = QueryOptions::default();
            let hot = Budget {
                front: true,
                ..Budget::new(u64::MAX, "budget").unwrap()
            };
            for (i, pose) in case.poses.iter().enumerate() {
                let what = format!("{} {} pose {i}", case.name, setup.name());
                let oracle = brute_force(&case.a, &case.b, pose);
                let cold = c
                    .collide_budgeted(&[*pose], &opts, Budget::UNLIMITED)
                    .unwrap()[0]
                    .1;
                let mut hint = Hint::NONE;
                let (r0, s0) = c
                    .collide_budgeted_pose(pose, &opts, hot, &mut hint)
                    .unwrap();
                let (r1, s1) = c
                    .collide_budgeted_pose(pose, &opts, hot, &mut hint)
                    .unwrap();
                assert_eq!((&r0.pairs, &r1.pairs), (&oracle, &oracle), "{what}");
                assert!(s0.complete && s1.complete, "{what}");
                assert_eq!(s0.bv_tests, cold.bv_tests, "{what}: the first pose");
                match setup.bv {
                    BvKind::Boxtree | BvKind::Rtree => {
                        assert_eq!(s1.bv_tests, cold.bv_tests, "{what}")
                    }
                    _ => {
                        assert!(s1.bv_tests <= cold.bv_tests, "{what}");
                        fewer += usize::from(s1.bv_tests < cold.bv_tests);
                    }
                }
                // A jump of 3 box sizes is no coherent step: the roots again.
                let far = Pose {
                    t: [pose.t[0] + 3.0 * size, pose.t[1], pose.t[2]],
                    ..*pose
                };
                let mut jumped = hint.clone();
                let (_, sf) = c
                    .collide_budgeted_pose(&far, &opts, hot, &mut jumped)
                    .unwrap();
                let far_cold = c
                    .collide_budgeted(&[far], &opts, Budget::UNLIMITED)
                    .unwrap()[0]
                    .1;
                assert_eq!(sf.bv_tests, far_cold.bv_tests, "{what}: after a jump");
                // The default budget (no front) starts at the roots after the same pose.
                let off = Budget {
                    front: false,
                    ..hot
                };
                let (_, so) = c
                    .collide_budgeted_pose(pose, &opts, off, &mut hint)
                    .unwrap();
                assert_eq!(so.bv_tests, cold.bv_tests, "{what}: without the front");
            }
        }
    }
    assert!(fewer > 20, "{fewer}");
}
