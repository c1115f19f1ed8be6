//! The CPU reference against the f64 brute-force oracle, on random small meshes and poses,
//! for every k, every splitting rule, both split points, both tumbling methods, both
//! descent rules and both modes. The hard cases come on purpose: integer-grid meshes under integer translations and
//! half-turns, so that touching, shared-edge, coplanar and degenerate contacts are exact.

mod common;

use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::*;

/// Random cases by default (`MESHCOLLIDE_CASES` sets another number).
const DEFAULT_CASES: usize = 3000;

fn configs() -> Vec<(BvKind, BuildOptions)> {
    let mut v = Vec::new();
    for bv in BvKind::ALL {
        for rule in SplitRule::ALL {
            for point in [SplitPoint::Mean, SplitPoint::Median] {
                v.push((
                    bv,
                    BuildOptions {
                        rule,
                        point,
                        leaf_size: 1,
                    },
                ));
            }
        }
    }
    v
}

/// Sets the k-DOP traversal's descent rule (the other hierarchies have none).
fn set_descent(c: &mut Collider, descent: Descent) {
    let o = KdopOptions::with_descent(descent);
    match c.scene_mut() {
        AnyScene::Kdop6(s) => s.options = o,
        AnyScene::Kdop14(s) => s.options = o,
        AnyScene::Kdop18(s) => s.options = o,
        AnyScene::Kdop26(s) => s.options = o,
        _ => {}
    }
}

fn check(
    a: &Mesh,
    b: &Mesh,
    poses: &[Pose],
    bv: BvKind,
    oa: &BuildOptions,
    ob: &BuildOptions,
    label: &str,
) {
    let mut collider = Collider::builder(a, b)
        .bv(bv)
        .build_options_a(*oa)
        .build_options_b(*ob)
        .build()
        .unwrap();
    for (i, p) in poses.iter().enumerate() {
        let truth = brute_force(a, b, p);
        for (descent, tumble) in [
            (Descent::Environment, TumbleMethod::Approximate),
            (Descent::Environment, TumbleMethod::Exact),
            (Descent::Larger, TumbleMethod::Approximate),
            (Descent::Larger, TumbleMethod::Exact),
        ] {
            set_descent(&mut collider, descent);
            let all = collider.collide_with(
                p,
                &QueryOptions {
                    mode: Mode::All,
                    tumble,
                    ..Default::default()
                },
            );
            if all.pairs != truth {
                let missed: Vec<_> = truth.iter().filter(|x| !all.pairs.contains(x)).collect();
                let extra: Vec<_> = all.pairs.iter().filter(|x| !truth.contains(x)).collect();
                panic!(
                    "{label} {bv:?} {oa:?} {ob:?} {tumble:?} {descent:?} pose {i} {p:?}: missed {missed:?} extra {extra:?}\nA={a:?}\nB={b:?}"
                );
            }
            let first = collider.collide_with(
                p,
                &QueryOptions {
                    mode: Mode::First,
                    tumble,
                    ..Default::default()
                },
            );
            assert!(first.pairs.len() <= 1);
            assert_eq!(
                first.pairs.is_empty(),
                truth.is_empty(),
                "{label} first mode pose {i}"
            );
            if let Some(x) = first.pairs.first() {
                assert!(
                    truth.contains(x),
                    "{label} first-mode pair {x:?} is no contact"
                );
            }
            assert!(first.counters.tri_tests <= all.counters.tri_tests);
        }
    }
}

#[test]
fn reference_equals_brute_force_on_random_cases() {
    let mut rng = Rng::new(0xC0FFEE);
    let configs = configs();
    let n = common::cases(DEFAULT_CASES);
    let mut contacts = 0usize;
    for case in 0..n {
        let exact = case % 2 == 0;
        let (a, b) = if exact {
            let na = 1 + rng.below(12) as usize;
            let nb = 1 + rng.below(12) as usize;
            (
                generate::grid_soup_shared(&mut rng, na, 4),
                generate::grid_soup_shared(&mut rng, nb, 4),
            )
        } else {
            let na = 1 + rng.below(20) as usize;
            let nb = 1 + rng.below(20) as usize;
            (
                generate::cube_soup(&mut rng, na),
                generate::cube_soup(&mut rng, nb),
            )
        };
        let poses: Vec<Pose> = (0..3)
            .map(|_| common::random_pose(&mut rng, exact, 0.5))
            .collect();
        contacts += poses
            .iter()
            .map(|p| brute_force(&a, &b, p).len())
            .sum::<usize>();
        let (bv, oa) = configs[case % configs.len()];
        let ob = BuildOptions {
            leaf_size: 1 + rng.below(4) as u32,
            ..oa
        };
        check(&a, &b, &poses, bv, &oa, &ob, &format!("case {case}"));
    }
    // The generator must actually produce contacts, or the test proves nothing.
    assert!(contacts > n, "only {contacts} contacts in {n} cases");
}

#[test]
fn every_config_on_one_dense_case() {
    let mut rng = Rng::new(42);
    let a = generate::grid_soup_shared(&mut rng, 40, 5);
    let b = generate::grid_soup_shared(&mut rng, 40, 5);
    let poses: Vec<Pose> = (0..4)
        .map(|i| common::random_pose(&mut rng, i % 2 == 0, 0.5))
        .collect();
    for (bv, o) in configs() {
        check(
            &a,
            &b,
            &poses,
            bv,
            &o,
            &BuildOptions { leaf_size: 3, ..o },
            "dense",
        );
    }
}

/// The breadth-first CPU mirror of the GPU kernels (`gpu::mirror`) tests the same node pairs
/// as the depth-first reference and finds the same pairs; runs without a GPU.
#[test]
#[cfg(feature = "gpu")]
fn breadth_first_mirror_equals_the_reference() {
    let mut rng = Rng::new(77);
    for case in 0..60 {
        let exact = case % 2 == 0;
        let (a, b) = if exact {
            (
                generate::grid_soup_shared(&mut rng, 25, 4),
                generate::grid_soup_shared(&mut rng, 25, 4),
            )
        } else {
            (
                generate::cube_soup(&mut rng, 30),
                generate::cube_soup(&mut rng, 30),
            )
        };
        let poses: Vec<Pose> = (0..4)
            .map(|_| common::random_pose(&mut rng, exact, 0.5))
            .collect();
        let o = BuildOptions {
            leaf_size: 1 + (case % 3) as u32,
            ..Default::default()
        };
        let scene = meshcollide::kdop::KdopScene::<9>::build(
            &a,
            &b,
            &o,
            &o,
            meshcollide::KdopOptions::PAPER,
        );
        // The mirror follows the GPU's rule, Klosowski et al.'s Algorithm 1.
        let cpu = meshcollide::scene::collide_batch(&scene, &poses, &QueryOptions::default(), None);
        let (m, _) = meshcollide::gpu::mirror::collide_batch_mirror(&scene, &poses, Mode::All);
        for (i, (m, c)) in m.iter().zip(&cpu).enumerate() {
            assert_eq!(m.pairs, c.pairs, "case {case} pose {i}");
            assert_eq!(
                m.counters.bv_tests, c.counters.bv_tests,
                "case {case} pose {i}: Nv"
            );
            assert_eq!(
                m.counters.tri_tests, c.counters.tri_tests,
                "case {case} pose {i}: Np"
            );
        }
    }
}

/// A single query's result — pairs and every counter — does not depend on the queries the
/// collider answered before (its workspaces are pooled and reused: stamps, tumbled nodes,
/// hill-climbing starts), and the batch's first pose of each chunk, which starts hill
/// climbing from the same climb table, equals the single query of that pose; nor do
/// batches.
#[test]
fn single_queries_do_not_depend_on_history() {
    let a = mesh::generate::torus([0.0; 3], 1.0, 0.3, 60, 24);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    let o = BuildOptions::default();
    let poses = meshcollide::pose::tumbling_poses(40, [0.0; 3], [0.8, 0.0, 0.0]);
    for bv in [BvKind::Kdop18, BvKind::Dual14] {
        let fresh = Collider::builder(&a, &b)
            .bv(bv)
            .build_options(o)
            .build()
            .unwrap();
        let used = Collider::builder(&a, &b)
            .bv(bv)
            .build_options(o)
            .build()
            .unwrap();
        let q = QueryOptions::default();
        let batch = Collider::builder(&a, &b)
            .bv(bv)
            .build_options(o)
            .paper()
            .build()
            .unwrap()
            .collide_batch(&poses);
        for (i, p) in poses.iter().enumerate().rev() {
            let _ = used.collide_with(&poses[(i * 7 + 3) % poses.len()], &q);
            let want = Collider::builder(&a, &b)
                .bv(bv)
                .build_options(o)
                .build()
                .unwrap()
                .collide_with(p, &q);
            assert_eq!(used.collide_with(p, &q), want, "{bv:?} pose {i}");
            assert_eq!(fresh.collide_with(p, &q), want, "{bv:?} pose {i}");
            if i % meshcollide::scene::POSE_CHUNK == 0 {
                let paper = Collider::builder(&a, &b)
                    .bv(bv)
                    .build_options(o)
                    .paper()
                    .build()
                    .unwrap()
                    .collide(p);
                assert_eq!(batch[i], paper, "{bv:?} pose {i}: batch");
            }
        }
        // Batches take their workspaces from the same pool: a used collider's batch (and a
        // batch of one pose, run on the caller's thread) equals a fresh collider's.
        let want = Collider::builder(&a, &b)
            .bv(bv)
            .build_options(o)
            .build()
            .unwrap()
            .collide_batch(&poses);
        assert_eq!(used.collide_batch(&poses), want, "{bv:?}: batch");
        for (i, p) in poses.iter().enumerate().step_by(7) {
            let one = used.collide_batch(std::slice::from_ref(p));
            assert_eq!(one, [used.collide(p)], "{bv:?} pose {i}: batch of one");
        }
    }
}

/// One worker runs a batch's chunks on the caller's thread, several run them in parallel:
/// the pairs and every counter (Nu too, which depends on where hill climbing starts) are
/// the same, for every hierarchy.
#[test]
fn batches_do_not_depend_on_the_thread_count() {
    let a = generate::torus([0.0; 3], 1.0, 0.3, 60, 24);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    let poses = meshcollide::pose::tumbling_poses(150, [0.0; 3], [1.0, 0.0, 0.0]);
    for (bv, options) in configs() {
        let col = Collider::builder(&a, &b)
            .bv(bv)
            .build_options(options)
            .build()
            .unwrap();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| col.collide_batch(&poses))
        };
        let one = run(1);
        let two = run(2);
        assert_eq!(one.len(), poses.len());
        for (i, (x, y)) in one.iter().zip(&two).enumerate() {
            assert_eq!(x.pairs, y.pairs, "{bv:?} pose {i}");
            assert_eq!(x.counters, y.counters, "{bv:?} pose {i}");
        }
        assert!(
            one.iter().any(|r| !r.pairs.is_empty()),
            "{bv:?}: the tori touch"
        );
    }
}

/// Poses given as matrices (`poses.csv`'s `r00,…` form, `Pose::from_rows`) are applied as
/// written, whatever matrix: orthonormal matrices made by Gram–Schmidt from random columns
/// (not from a quaternion), reflections among them, give the f64 brute force's pairs on
/// every hierarchy, on float soups and integer grids.
#[test]
fn matrix_poses_equal_brute_force_on_every_hierarchy() {
    let mut rng = Rng::new(41);
    let mut cases = 0;
    let mut contacts = 0;
    for case in 0..common::cases(40) {
        let (a, b) = if case % 2 == 0 {
            (
                common::float_soup(&mut rng, 20),
                common::float_soup(&mut rng, 20),
            )
        } else {
            (
                common::grid_soup(&mut rng, 3),
                common::grid_soup(&mut rng, 3),
            )
        };
        let poses: Vec<Pose> = (0..6)
            .map(|i| common::matrix_pose(&mut rng, i % 2 == 1, 0.3))
            .collect();
        let want: Vec<_> = poses.iter().map(|p| brute_force(&a, &b, p)).collect();
        contacts += want.iter().filter(|w| !w.is_empty()).count();
        for bv in BvKind::EVERY {
            let c = Collider::builder(&a, &b).bv(bv).build().unwrap();
            for (i, (r, w)) in c.collide_batch(&poses).iter().zip(&want).enumerate() {
                assert_eq!(&r.pairs, w, "case {case}, {bv}, pose {i}");
            }
        }
        cases += 1;
    }
    assert!(
        2 * contacts >= cases,
        "too few contacts to test anything: {contacts}"
    );
}
