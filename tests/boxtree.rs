//! `--bv boxtree` (Zachmann's restricted boxtree) against the oracles: f64 brute force on
//! random and adversarial cases, the kdop18 reference on shared models, and a certified
//! separating-axis oracle for the box tests themselves — for every box test and both modes.

mod common;

use meshcollide::boxtree::overlap::{Iv, PoseDirections, certainly_overlap};
use meshcollide::boxtree::{Aabb, BoxTree};
use meshcollide::frame::LocalPose;
use meshcollide::mesh::generate;
use meshcollide::pose::tumbling_poses;
use meshcollide::rng::Rng;
use meshcollide::*;

/// Random cases by default (`MESHCOLLIDE_CASES` sets another number).
const DEFAULT_CASES: usize = 600;

fn opts(mode: Mode) -> QueryOptions {
    QueryOptions {
        mode,
        ..Default::default()
    }
}

/// Sets the boxtree's node-pair test for the next queries.
fn set_test(c: &mut Collider, test: BoxTest) {
    match c.scene_mut() {
        AnyScene::Boxtree(s) => s.options.test = test,
        _ => panic!("not a boxtree"),
    }
}

/// Every box test and both modes against brute force at every pose; returns the contacts.
fn check(a: &Mesh, b: &Mesh, poses: &[Pose], la: u32, lb: u32, label: &str) -> usize {
    let o = |leaf_size| BuildOptions {
        leaf_size,
        ..Default::default()
    };
    let mut c = Collider::builder(a, b)
        .bv(BvKind::Boxtree)
        .build_options_a(o(la))
        .build_options_b(o(lb))
        .build()
        .unwrap();
    let AnyScene::Boxtree(s) = c.scene() else {
        panic!("not a boxtree")
    };
    s.env
        .validate()
        .unwrap_or_else(|e| panic!("{label} A: {e}"));
    s.fly
        .validate()
        .unwrap_or_else(|e| panic!("{label} B: {e}"));
    let mut contacts = 0;
    for (i, p) in poses.iter().enumerate() {
        let truth = brute_force(a, b, p);
        contacts += truth.len();
        for bt in BoxTest::ALL {
            set_test(&mut c, bt);
            let all = c.collide_with(p, &opts(Mode::All));
            if all.pairs != truth {
                let missed: Vec<_> = truth.iter().filter(|x| !all.pairs.contains(x)).collect();
                let extra: Vec<_> = all.pairs.iter().filter(|x| !truth.contains(x)).collect();
                panic!("{label} {bt:?} pose {i} {p:?}: missed {missed:?} extra {extra:?}");
            }
            let first = c.collide_with(p, &opts(Mode::First));
            assert!(first.pairs.len() <= 1, "{label}");
            assert_eq!(
                first.pairs.is_empty(),
                truth.is_empty(),
                "{label} {bt:?} first"
            );
            if let Some(x) = first.pairs.first() {
                assert!(truth.contains(x), "{label} {bt:?} first-mode pair {x:?}");
            }
            assert!(first.counters.tri_tests <= all.counters.tri_tests);
            assert!(all.counters.bv_tests >= 1 && all.counters.bv_updates >= 1);
        }
    }
    contacts
}

#[test]
fn boxtree_equals_brute_force_on_random_soups() {
    let mut rng = Rng::new(0xB0C5);
    let n = common::cases(DEFAULT_CASES);
    let mut contacts = 0;
    for case in 0..n {
        let exact = case % 2 == 0;
        let (a, b) = if exact {
            let (na, nb) = (1 + rng.below(14) as usize, 1 + rng.below(14) as usize);
            (
                generate::grid_soup_shared(&mut rng, na, 4),
                generate::grid_soup_shared(&mut rng, nb, 4),
            )
        } else {
            let (na, nb) = (1 + rng.below(25) as usize, 1 + rng.below(25) as usize);
            (
                common::float_soup(&mut rng, na),
                common::float_soup(&mut rng, nb),
            )
        };
        let poses: Vec<Pose> = (0..3)
            .map(|_| common::random_pose(&mut rng, exact, 0.5))
            .collect();
        let (la, lb) = (1 + rng.below(3) as u32, 1 + rng.below(4) as u32);
        contacts += check(&a, &b, &poses, la, lb, &format!("case {case}"));
    }
    assert!(contacts > n, "only {contacts} contacts in {n} cases");
}

#[test]
fn boxtree_equals_brute_force_on_generated_shapes() {
    let ring = generate::torus([0.0; 3], 1.0, 0.3, 24, 10);
    let standing = ring.map_positions(|[x, y, z]| [x, z, y]);
    let sphere = generate::uv_sphere([0.0; 3], 0.8, 10, 16);
    let grid = generate::grid(12, 12, 0.2, 0.0);
    let degenerate = generate::degenerate_soup(3, 120, 1.0);
    let tumble = tumbling_poses(12, [0.0; 3], [1.0, 0.0, 0.0]);
    let mut contacts = 0;
    contacts += check(&ring, &standing, &tumble, 1, 1, "tori");
    contacts += check(
        &sphere,
        &sphere,
        &tumbling_poses(6, [0.0; 3], [1.2, 0.3, 0.0]),
        1,
        2,
        "spheres",
    );
    // A flat grid against itself: coplanar overlap at the identity and half shifts.
    let shifts: Vec<Pose> = [
        [0.0, 0.0, 0.0],
        [0.1, 0.1, 0.0],
        [0.2, 0.0, 0.0],
        [0.05, 0.0, 1e-7],
    ]
    .into_iter()
    .map(Pose::translation)
    .collect();
    contacts += check(&grid, &grid, &shifts, 1, 3, "grid");
    contacts += check(
        &degenerate,
        &degenerate,
        &tumbling_poses(4, [0.5; 3], [0.3, 0.0, 0.0]),
        2,
        1,
        "degenerate",
    );
    // A large offset: rounding of big coordinates.
    let far = sphere.map_positions(|[x, y, z]| [x + 1e4, y - 3e3, z]);
    let back: Vec<Pose> = tumbling_poses(4, [1e4, -3e3, 0.0], [0.5, 0.0, 0.0])
        .into_iter()
        .map(|p| Pose::new(p.q, [p.t[0] - 1e4, p.t[1] + 3e3, p.t[2]]))
        .collect();
    contacts += check(&sphere, &far, &back, 1, 1, "offset");
    assert!(contacts > 100, "{contacts}");
}

/// Every node pair of two small trees, intervals derived incrementally along the root
/// paths as the traversal does: a test may say "overlap" for disjoint boxes, never
/// "disjoint" for boxes that the certified oracle proves intersecting.
fn check_tests_on_all_pairs<const N: usize>(
    a: &BoxTree,
    b: &BoxTree,
    pose: &Pose,
    lut: bool,
) -> (usize, usize) {
    // The trees' boxes are local: the tests and the oracle see the local pose.
    let lp = LocalPose::new(pose, a.frame(), b.frame());
    let f = PoseDirections::<N>::new(&lp, (&a.root, a.depth), (&b.root, b.depth));
    let mut table = Vec::new();
    f.fill_lut(b, &mut table);
    // All nodes with their computed box and intervals.
    let walk = |t: &BoxTree, root: Iv<N>, is_b: bool| {
        let mut out: Vec<(Aabb, Iv<N>)> = Vec::new();
        let mut stack = vec![(0usize, t.root, root)];
        while let Some((i, bx, iv)) = stack.pop() {
            out.push((bx, iv));
            let n = t.nodes[i];
            if !n.is_leaf() {
                for k in [n.child as usize, n.child as usize + 1] {
                    let c = t.nodes[k];
                    let civ = match (is_b, lut) {
                        (false, _) => f.child_a(&iv, c),
                        (true, false) => f.child_b(&iv, c),
                        (true, true) => f.child_b_lut(&iv, c, t.lut_codes[k], &table),
                    };
                    stack.push((k, bx.child(c), civ));
                }
            }
        }
        out
    };
    let na = walk(a, f.root_a(&a.root), false);
    let nb = walk(b, f.root_b(&b.root), true);
    let (mut sure, mut culled) = (0, 0);
    for (ba, ia) in &na {
        for (bb, ib) in &nb {
            let v = f.overlap_full(ia, ib);
            culled += !v as usize;
            if certainly_overlap(ba, bb, &lp.pose) {
                sure += 1;
                assert!(v, "N={N} lut={lut}: {ba:?} {bb:?} {pose:?}");
            }
        }
    }
    (sure, culled)
}

#[test]
fn box_tests_are_conservative_against_the_certified_oracle() {
    let mut rng = Rng::new(5);
    let mut totals = [(0, 0); 4];
    for case in 0..40 {
        let a = generate::random_soup(rng.next_u64(), 40, 1.0, 0.4);
        let b = if case % 2 == 0 {
            generate::random_soup(rng.next_u64(), 40, 1.0, 0.4)
        } else {
            generate::grid_soup_shared(&mut rng, 30, 3)
        };
        let (ta, tb) = (BoxTree::build(&a, 1), BoxTree::build(&b, 2));
        for _ in 0..3 {
            let p = common::random_pose(&mut rng, case % 4 == 1, 0.5);
            for (k, r) in [
                check_tests_on_all_pairs::<3>(&ta, &tb, &p, false),
                check_tests_on_all_pairs::<6>(&ta, &tb, &p, false),
                check_tests_on_all_pairs::<15>(&ta, &tb, &p, false),
                check_tests_on_all_pairs::<3>(&ta, &tb, &p, true),
            ]
            .into_iter()
            .enumerate()
            {
                totals[k].0 += r.0;
                totals[k].1 += r.1;
            }
        }
    }
    // Not vacuous: many certain overlaps, and every test culls.
    for (k, (sure, culled)) in totals.iter().enumerate() {
        assert!(
            *sure > 10_000 && *culled > 10_000,
            "test {k}: {sure} {culled}"
        );
    }
    // More axes cull more.
    assert!(
        totals[2].1 >= totals[1].1 && totals[1].1 >= totals[0].1,
        "{totals:?}"
    );
}

#[test]
#[cfg(feature = "gpu")]
fn gpu_backend_reports_a_typed_error() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let m = generate::tetrahedron([0.0; 3], 1.0);
    let o = BuildOptions::default();
    let c = Collider::builder(&m, &m)
        .bv(BvKind::Boxtree)
        .build_options(o)
        .build()
        .unwrap();
    let e = c
        .collide_batch_gpu(&ctx, &[Pose::IDENTITY], &QueryOptions::default(), None)
        .unwrap_err();
    assert!(
        matches!(
            e,
            meshcollide::Error::Gpu(meshcollide::gpu::GpuError::Unsupported { bv: "boxtree" })
        ),
        "{e}"
    );
}

/// Shared models: the same pairs as the kdop18 reference, for every box test.
#[test]
fn boxtree_equals_kdop18_on_shared_models() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in ["soup.stl", "beetle.obj", "gearwheel.stl"] {
        let m = mesh::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ps = common::shifted_tumbling(&m, 3, &[0.0, 0.3, 0.7, 1.0]);
        let o = BuildOptions::default();
        let reference = Collider::builder(&m, &m)
            .bv(BvKind::Kdop18)
            .build_options(o)
            .build()
            .unwrap()
            .collide_batch_with(&ps, &QueryOptions::default(), None);
        let total: usize = reference.iter().map(|r| r.pairs.len()).sum();
        assert!(total > 0, "{name}");
        let mut bt = Collider::builder(&m, &m)
            .bv(BvKind::Boxtree)
            .build_options(o)
            .build()
            .unwrap();
        let AnyScene::Boxtree(s) = bt.scene() else {
            panic!()
        };
        s.env.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let [(nodes, bytes), _] = bt.hierarchy_sizes();
        assert_eq!((nodes, bytes), (2 * m.triangle_count() - 1, 9 * nodes));
        for test in BoxTest::ALL {
            set_test(&mut bt, test);
            for mode in [Mode::All, Mode::First] {
                let r = bt.collide_batch_with(&ps, &opts(mode), None);
                for (i, (g, w)) in r.iter().zip(&reference).enumerate() {
                    if mode == Mode::All {
                        assert_eq!(g.pairs, w.pairs, "{name} {test:?} pose {i}");
                    } else {
                        assert_eq!(g.pairs.is_empty(), w.pairs.is_empty(), "{name} {test:?}");
                        assert!(g.pairs.iter().all(|x| w.pairs.contains(x)), "{name}");
                    }
                }
            }
        }
        eprintln!(
            "{name}: {} poses, {total} pairs, boxtree equals kdop18",
            ps.len()
        );
    }
}
