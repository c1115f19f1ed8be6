//! `--bv rtree` (Figueiredo, *An R-Tree Collision Detection Algorithm for Polygonal
//! Models*, 2009) against the f64 brute-force oracle on random cases (both Collide
//! versions, both modes, several fan-outs), the R-tree's structure, version 2's single
//! visit of A's nodes, and kdop18 on shared models.

mod common;

use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::rtree::{Rtree, RtreeCollide, RtreeOptions, RtreeScene, validate};
use meshcollide::scene::PairScene;
use meshcollide::*;

const FANOUTS: [(u32, u32); 5] = [(1, 2), (2, 4), (4, 8), (2, 5), (8, 16)];

fn opts(mode: Mode) -> QueryOptions {
    QueryOptions {
        mode,
        ..Default::default()
    }
}

/// Sets the R-tree's traversal for the next queries.
fn set_collide(c: &mut Collider, v: RtreeCollide) {
    match c.scene_mut() {
        AnyScene::Rtree(s) => s.options.collide = v,
        _ => panic!("not an R-tree"),
    }
}

/// Both versions and both modes equal brute force at every pose; version 2 visits each
/// node of A at most once. Returns the number of contacts seen.
fn check(a: &Mesh, b: &Mesh, poses: &[Pose], o: &RtreeOptions, label: &str) -> usize {
    let mut scene = RtreeScene::build(a, b, o).unwrap();
    validate(&scene.a, a).unwrap_or_else(|e| panic!("{label} A: {e}"));
    validate(&scene.b, b).unwrap_or_else(|e| panic!("{label} B: {e}"));
    let mut contacts = 0;
    for (i, p) in poses.iter().enumerate() {
        let truth = brute_force(a, b, p);
        contacts += truth.len();
        for v in [RtreeCollide::V1, RtreeCollide::V2] {
            scene.options.collide = v;
            let (all, c, visits) = scene.collide_traced(p, &opts(Mode::All));
            if all.pairs != truth {
                let missed: Vec<_> = truth.iter().filter(|x| !all.pairs.contains(x)).collect();
                let extra: Vec<_> = all.pairs.iter().filter(|x| !truth.contains(x)).collect();
                panic!("{label} {o:?} {v:?} pose {i} {p:?}: missed {missed:?} extra {extra:?}");
            }
            assert!(
                visits.iter().all(|&n| n <= 1),
                "{label} {v:?}: a node of A visited twice"
            );
            assert_eq!(
                c.nodes_visited_a,
                visits.iter().map(|&n| n as u64).sum::<u64>()
            );
            assert!(c.tri_tests >= truth.len() as u64);
            let first = scene.collide(p, &opts(Mode::First));
            assert!(first.pairs.len() <= 1, "{label} first mode: several pairs");
            assert_eq!(
                first.pairs.is_empty(),
                truth.is_empty(),
                "{label} first mode"
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
    contacts
}

#[test]
fn random_soups_equal_brute_force() {
    let mut rng = Rng::new(0x05EE_D7EE);
    let n = 400;
    let mut contacts = 0;
    for case in 0..n {
        let exact = case % 2 == 0;
        let (a, b) = if exact {
            let na = 1 + rng.below(40) as usize;
            let nb = 1 + rng.below(40) as usize;
            (
                generate::grid_soup_shared(&mut rng, na, 4),
                generate::grid_soup_shared(&mut rng, nb, 4),
            )
        } else {
            let na = 1 + rng.below(60) as usize;
            let nb = 1 + rng.below(60) as usize;
            (
                generate::cube_soup(&mut rng, na),
                generate::cube_soup(&mut rng, nb),
            )
        };
        let poses: Vec<Pose> = (0..3)
            .map(|_| common::random_pose(&mut rng, exact, 0.5))
            .collect();
        let (m, big_m) = FANOUTS[case % FANOUTS.len()];
        let o = RtreeOptions {
            min_children: m,
            max_children: big_m,
            ..Default::default()
        };
        contacts += check(&a, &b, &poses, &o, &format!("case {case}"));
    }
    assert!(contacts > n, "only {contacts} contacts in {n} cases");
}

#[test]
fn spheres_tori_and_touching_grids_equal_brute_force() {
    let mut rng = Rng::new(99);
    let sphere = generate::uv_sphere([0.0; 3], 1.0, 8, 12);
    let torus = generate::torus([0.0; 3], 1.0, 0.3, 16, 8);
    let grid = generate::grid(6, 5, 0.5, 0.0);
    let mut contacts = 0;
    for (k, &(m, big_m)) in FANOUTS.iter().enumerate() {
        let o = RtreeOptions {
            min_children: m,
            max_children: big_m,
            ..Default::default()
        };
        // Random poses close to contact.
        let poses: Vec<Pose> = (0..4).map(|_| common::float_pose(&mut rng, 1.8)).collect();
        contacts += check(&sphere, &torus, &poses, &o, "sphere-torus");
        contacts += check(&torus, &torus, &poses, &o, "torus-torus");
        // Grids: coplanar overlap, shared edges, touching at a plane, half-turns.
        let grid_poses = [
            Pose::IDENTITY,
            Pose::translation([0.5, 0.0, 0.0]),
            Pose::translation([3.0, 0.0, 0.0]),
            Pose::translation([0.25, 0.25, 0.0]),
            Pose::new([0.0, 1.0, 0.0, 0.0], [0.0, 2.5, 0.0]),
            Pose::from_axis_angle(
                [1.0, 0.0, 0.0],
                std::f64::consts::FRAC_PI_2,
                [0.0, 1.0, 0.0],
            ),
            Pose::translation([0.0, 0.0, 1e-30 * k as f64]),
        ];
        contacts += check(&grid, &grid, &grid_poses, &o, "grid-grid");
    }
    assert!(contacts > 0);
}

/// A hand-built pose whose matrix is no rotation: the query cannot map A's box into B's
/// frame and filters in A's frame only; pairs still equal brute force (same `Pose::apply`).
#[test]
fn non_rotation_matrix_still_exact() {
    let mut rng = Rng::new(5);
    let a = generate::cube_soup(&mut rng, 50);
    let b = generate::cube_soup(&mut rng, 50);
    let mut p = Pose::translation([0.2, 0.1, 0.0]);
    p.r = [[1.3, 0.2, 0.0], [0.0, 0.8, 0.1], [0.0, 0.0, 1.0]];
    let contacts = check(&a, &b, &[p], &RtreeOptions::default(), "shear");
    assert!(contacts > 0);
}

#[test]
fn structure_is_valid_for_many_sizes_and_fanouts() {
    let mut rng = Rng::new(3);
    for n in [1usize, 2, 3, 7, 8, 9, 16, 17, 63, 64, 65, 200, 513] {
        let m = generate::cube_soup(&mut rng, n);
        for (lo, hi) in FANOUTS.iter().copied().chain([(1, 3), (3, 7), (16, 32)]) {
            let o = RtreeOptions {
                min_children: lo,
                max_children: hi,
                ..Default::default()
            };
            let t = Rtree::build(&m, &o).unwrap();
            validate(&t, &m).unwrap_or_else(|e| panic!("n {n} {o:?}: {e}"));
            // A balanced tree of fan-out ≤ M over n entries has depth ≥ log_M n.
            let min_depth = (n as f64).log(hi as f64).ceil().max(1.0) as u32;
            assert!(t.depth >= min_depth, "n {n} {o:?}: depth {}", t.depth);
        }
    }
}

/// Corrupting a tree must be caught: the validator is no rubber stamp.
#[test]
fn validator_catches_corruption() {
    let mut rng = Rng::new(4);
    let m = generate::cube_soup(&mut rng, 100);
    let t = Rtree::build(&m, &RtreeOptions::default()).unwrap();
    let mut shrunk = t.clone();
    let leaf = shrunk.first_leaf as usize;
    shrunk.nodes[leaf].hi[0] = shrunk.nodes[leaf].lo[0];
    assert!(validate(&shrunk, &m).is_err());
    let mut twice = t.clone();
    twice.tri_index[1] = twice.tri_index[0];
    assert!(validate(&twice, &m).is_err());
    let mut fat = t.clone();
    fat.nodes[1].count = 9;
    assert!(validate(&fat, &m).is_err());
}

#[test]
fn bad_fanout_is_a_typed_error() {
    let m = generate::tetrahedron([0.0; 3], 1.0);
    for (lo, hi) in [(0, 8), (5, 8), (1, 1), (2, 0), (1, 5000)] {
        let o = RtreeOptions {
            min_children: lo,
            max_children: hi,
            ..Default::default()
        };
        assert!(matches!(
            Rtree::build(&m, &o),
            Err(meshcollide::Error::InvalidOption(_))
        ));
        assert!(
            Collider::builder(&m, &m)
                .bv(BvKind::Rtree)
                .rtree(o)
                .build()
                .is_err()
        );
    }
}

/// Disjoint boxes stop at the root test: one Nv, no candidate, no triangle test.
#[test]
fn apart_objects_stop_at_the_root_test() {
    let s = generate::uv_sphere([0.0; 3], 1.0, 8, 12);
    let mut scene = RtreeScene::build(&s, &s, &RtreeOptions::default()).unwrap();
    for v in [RtreeCollide::V1, RtreeCollide::V2] {
        scene.options.collide = v;
        let (r, c, _) = scene.collide_traced(&Pose::translation([2.5, 0.0, 0.0]), &opts(Mode::All));
        assert!(r.pairs.is_empty());
        assert_eq!((c.bv_tests, c.tri_tests, c.candidates_b), (1, 0, 0));
    }
}

#[test]
fn collider_dispatch_and_gpu_refusal() {
    let a = generate::torus([0.0; 3], 1.0, 0.3, 12, 6);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    let poses = pose::tumbling_poses(16, [0.0; 3], [1.0, 0.0, 0.0]);
    let o = BuildOptions::default();
    let mut c = Collider::builder(&a, &b)
        .bv(BvKind::Rtree)
        .build_options(o)
        .build()
        .unwrap();
    assert_eq!(c.kind(), BvKind::Rtree);
    assert_eq!("rtree".parse::<BvKind>(), Ok(BvKind::Rtree));
    assert!(!BvKind::ALL.contains(&BvKind::Rtree));
    for v in [RtreeCollide::V1, RtreeCollide::V2] {
        set_collide(&mut c, v);
        let r = c.collide_batch_with(&poses, &opts(Mode::All), None);
        for (p, r) in poses.iter().zip(&r) {
            assert_eq!(r.pairs, brute_force(&a, &b, p));
        }
    }
    #[cfg(feature = "gpu")]
    if let Some(ctx) = common::gpu() {
        let e = c.collide_batch_gpu(&ctx, &poses, &QueryOptions::default(), None);
        assert!(matches!(
            e,
            Err(meshcollide::Error::Gpu(
                meshcollide::gpu::GpuError::Unsupported { .. }
            ))
        ));
    }
}

/// The same pairs as the kdop18 reference on small shared models, near and far.
#[test]
fn shared_models_equal_kdop18() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in ["soup.stl", "beetle.obj", "gearwheel.stl", "spot.obj"] {
        let m = mesh::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ps = common::shifted_tumbling(&m, 6, &[0.0, 0.3, 0.7, 1.0]);
        let o = BuildOptions::default();
        let reference = Collider::builder(&m, &m)
            .bv(BvKind::Kdop18)
            .build_options(o)
            .build()
            .unwrap()
            .collide_batch_with(&ps, &QueryOptions::default(), None);
        let contacts: usize = reference.iter().map(|r| r.pairs.len()).sum();
        assert!(contacts > 0, "{name}: the poses must produce contacts");
        let mut scene = Collider::builder(&m, &m)
            .bv(BvKind::Rtree)
            .build_options(o)
            .build()
            .unwrap();
        for v in [RtreeCollide::V1, RtreeCollide::V2] {
            set_collide(&mut scene, v);
            let got = scene.collide_batch_with(&ps, &opts(Mode::All), None);
            for (i, (g, r)) in got.iter().zip(&reference).enumerate() {
                assert_eq!(g.pairs, r.pairs, "{name} {v:?} pose {i}");
            }
        }
        eprintln!("{name}: {} poses, {contacts} pairs equal kdop18", ps.len());
    }
}
