use super::*;
use crate::mesh::generate;

#[test]
fn node_boxes_contain_their_subtrees_triangles() {
    let m = generate::torus([0.1, 0.2, 0.3], 1.0, 0.3, 24, 10);
    let bvh = Bvh::<3>::build(&m, &BuildOptions::default());
    let boxes: Vec<Obb> = Obb32::fit_nodes(&bvh).iter().map(Obb32::as_f64).collect();
    for (i, &(s, e)) in bvh.node_ranges().iter().enumerate() {
        for p in s..e {
            for x in bvh.tris.corners_local_f64(p as usize) {
                assert!(boxes[i].contains_approx(x), "node {i}");
            }
        }
    }
    // Tighter than the node's axis-aligned box, in volume, at the root.
    let vol = |b: &Obb| 8.0 * b.h[0] * b.h[1] * b.h[2];
    let k = &bvh.nodes[0].bv;
    let aabb = (0..3)
        .map(|a| (k.max[a] - k.min[a]) as f64)
        .product::<f64>();
    assert!(vol(&boxes[0]) <= aabb * 1.001, "{} {aabb}", vol(&boxes[0]));
}

/// Two small interlocked tori (B turned, moved by the poses) and their OBB scene.
fn interlocked_tori() -> (Mesh, Mesh, ObbScene) {
    let torus = generate::torus([0.0; 3], 1.0, 0.3, 40, 16);
    let b = torus.map_positions(|[x, y, z]| [x, z, y]);
    let opt = BuildOptions::default();
    let s = ObbScene::build(&torus, &b, &opt, &opt);
    (torus, b, s)
}

/// The level calls keep a pose's node-test set-up in the workspace (`check_in`): one
/// workspace through poses that alternate, the same pose twice in a row, and a pose
/// that differs from the last only in the last bit of one translation: each pose's
/// contacts are brute force's and its counters `collide`'s (a stale set-up would test
/// the wrong pose's boxes: the poses differ in contacts).
#[test]
fn level_calls_set_up_each_pose_anew() {
    use crate::traverse::LevelScene;
    let (torus, b, s) = interlocked_tori();
    let near = Pose::new([1.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0]);
    let apart = Pose::new([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    let tilted = Pose::new([1.0, 0.3, 0.0, 0.0], [0.5, 0.0, 0.0]);
    let next_bit = Pose::new(
        [1.0, 0.0, 0.0, 0.0],
        [f64::from_bits(0.5f64.to_bits() + 1), 0.0, 0.0],
    );
    let opts = QueryOptions::default();
    let mut ws = s.workspace();
    let poses = [near, apart, near, near, tilted, apart, next_bit, near];
    for (k, pose) in poses.iter().enumerate() {
        let mut got = Vec::new();
        let mut c = Counters::default();
        if s.level_begin(pose, &opts, &mut ws) {
            let (mut front, mut leaves) = (vec![(0, 0)], Vec::new());
            for _ in 0..3 {
                let mut next = Vec::new();
                c += s.level_expand(pose, &mut ws, &front, &mut next, &mut leaves);
                front = next;
            }
            c += s.level_leaves(pose, Mode::All, &mut ws, &leaves, &mut got);
            c += s.level_finish(pose, Mode::All, &mut ws, &front, &mut got);
        }
        got.sort_unstable();
        assert_eq!(got, crate::scene::brute_force(&torus, &b, pose), "pose {k}");
        let one = s.collide(pose, &opts);
        assert_eq!(got, one.pairs, "pose {k}");
        let pretest = s.boxes.is_some() as u64;
        assert_eq!(c.bv_tests + pretest, one.counters.bv_tests, "pose {k}");
        assert_eq!(c.tri_tests, one.counters.tri_tests, "pose {k}");
    }
    assert!(!crate::scene::brute_force(&torus, &b, &near).is_empty());
    assert!(crate::scene::brute_force(&torus, &b, &apart).is_empty());
}

/// The probe's first levels in one call (`level_expand_below`, the twin
/// `descend::expand_levels_below`) leave the front, the leaf pairs and the counters
/// that a call per level leaves (the probe's former loop over `level_expand`), for every
/// limit up to 400 pairs (leaf pairs count towards it) and none.
#[test]
fn levels_in_one_call_are_levels_one_by_one() {
    use crate::traverse::LevelScene;
    let (_, _, s) = interlocked_tori();
    let opts = QueryOptions::default();
    let mut ws = s.workspace();
    let poses = [
        Pose::new([1.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0]),
        Pose::new([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        Pose::new([1.0, 0.3, 0.0, 0.0], [0.5, 0.0, 0.0]),
    ];
    let mut deepest = 0;
    for (k, pose) in poses.iter().enumerate() {
        for limit in (1..400).chain([usize::MAX]) {
            let run = |one_call: bool, ws: &mut VolumeWorkspace<_>| {
                assert!(s.level_begin(pose, &opts, ws));
                let (mut front, mut next, mut leaves) = (vec![(0, 0)], vec![], vec![]);
                let (mut c, mut levels) = (Counters::default(), 0);
                if one_call {
                    c = s.level_expand_below(pose, ws, &mut front, &mut next, &mut leaves, limit);
                } else {
                    while !front.is_empty() && front.len() + leaves.len() < limit {
                        next.clear();
                        c += s.level_expand(pose, ws, &front, &mut next, &mut leaves);
                        std::mem::swap(&mut front, &mut next);
                        levels += 1;
                    }
                }
                (front, leaves, c.bv_tests, c.bv_updates, levels)
            };
            let (f1, l1, nv1, nu1, _) = run(true, &mut ws);
            let (f2, l2, nv2, nu2, levels) = run(false, &mut ws);
            assert_eq!((f1, l1), (f2, l2), "pose {k}, limit {limit}");
            assert_eq!((nv1, nu1), (nv2, nu2), "pose {k}, limit {limit}");
            deepest = deepest.max(levels);
        }
    }
    assert!(deepest > 5, "the near poses go a few levels down");
}

/// Level order ([`descend::descend_levels`], under any front limit, from the roots or
/// from a front part way down) tests exactly the node and triangle pairs the depth-first
/// descent tests: the same contacts and counters. Contacts are checked against brute
/// force in f64 as well.
#[test]
fn level_order_tests_what_depth_first_tests() {
    let torus = generate::torus([0.0; 3], 1.0, 0.3, 40, 16);
    let sphere = generate::sphere_with_triangles([0.0; 3], 1.0, 2000);
    let scenes = [
        (
            torus.clone(),
            torus.map_positions(|[x, y, z]| [x, z, y]),
            Pose::new([1.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0]),
        ),
        (
            sphere.clone(),
            sphere.map_positions(|p| p.map(|c| c * 0.999)),
            Pose::new([1.0, 0.01, 0.0, 0.0], [0.0; 3]),
        ),
        (
            generate::random_soup(11, 400, 1.0, 0.4),
            generate::random_soup(11, 400, 1.0, 0.4),
            Pose::new([1.0, 0.05, 0.02, 0.0], [0.01, 0.0, -0.01]),
        ),
    ];
    for (k, (a, b, pose)) in scenes.iter().enumerate() {
        let opt = BuildOptions::default();
        let s = ObbScene::build(a, b, &opt, &opt);
        let check = s.check(pose);
        let test = Test {
            s: &s,
            pose: &check,
        };
        let (env, fly) = s.trees();
        let mut ws = s.workspace();
        let mut depth = Vec::new();
        let c_depth = descend(env, fly, pose, Mode::All, &test, &mut ws, &mut depth);
        depth.sort_unstable();
        let brute = crate::scene::brute_force(a, b, pose);
        assert_eq!(depth, brute, "scene {k}: depth first against brute force");
        assert!(k == 1 || !depth.is_empty(), "scene {k} has contacts");
        for limit in [1, 2, 16, 100, usize::MAX] {
            for levels_down in [0, 3] {
                // A start front part way down: `levels_down` levels expanded, their
                // overlapping leaf pairs tested here.
                descend::begin_pose(&mut ws);
                let (mut front, mut leaves) = (vec![(0, 0)], Vec::new());
                let mut c = Counters::default();
                for _ in 0..levels_down {
                    let mut next = Vec::new();
                    c += descend::expand_level(
                        env,
                        fly,
                        &test,
                        &mut ws,
                        &front,
                        &mut next,
                        &mut leaves,
                    );
                    front = next;
                }
                let mut got = Vec::new();
                for &(e, f) in &leaves {
                    let (e, f) = (e as usize, f as usize);
                    let m = Mode::All;
                    descend::leaf_pair(env, fly, pose, m, &test, &mut ws, e, f, &mut got, &mut c);
                }
                c += descend::descend_levels(
                    env, fly, pose, &test, &mut ws, &front, limit, &mut got,
                );
                got.sort_unstable();
                assert_eq!(
                    got, depth,
                    "scene {k}, limit {limit}, from level {levels_down}"
                );
                assert_eq!(
                    c, c_depth,
                    "scene {k}, limit {limit}, from level {levels_down}"
                );
            }
        }
    }
}

/// `a + b` exactly as `(sum, error)` (Knuth's TwoSum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The sign of the exact sum of `terms` (Shewchuk's grow-expansion: the components
/// stay non-overlapping in increasing magnitude, the last non-zero one has the sign).
fn exact_sign(terms: &[f64]) -> f64 {
    let mut e: Vec<f64> = Vec::new();
    for &b in terms {
        let mut q = b;
        let mut out = Vec::with_capacity(e.len() + 1);
        for &x in &e {
            let (s, err) = two_sum(q, x);
            if err != 0.0 {
                out.push(err);
            }
            q = s;
        }
        out.push(q);
        e = out;
    }
    e.iter()
        .rev()
        .find(|x| **x != 0.0)
        .map_or(0.0, |x| x.signum())
}

/// Every *real* local corner `p − o` (global corner minus the frame's origin, both
/// exact f64) projects on each stored axis within the stored half extent, decided in
/// exact arithmetic (products split by fused multiply-add, sums by expansions), on
/// random soups near and far from the origin. The fit's widening is what makes this
/// hold: without it about half the extremal corners fall outside by an ulp.
#[test]
fn node_boxes_contain_the_real_corners_exactly() {
    let mut rng = crate::rng::Rng::new(77);
    for case in 0..40 {
        let off = [0.0, 1e6, 1e15, 3.3e9][case % 4];
        let m = generate::random_soup(rng.next_u64(), 30, 1.0, 0.6)
            .map_positions(|p| [p[0] + off, p[1] - off, p[2] + 0.5 * off]);
        let bvh = Bvh::<3>::build(&m, &BuildOptions::default());
        let boxes: Vec<Obb> = Obb32::fit_nodes(&bvh).iter().map(Obb32::as_f64).collect();
        let o = bvh.frame().origin;
        for (i, &(s, e)) in bvh.node_ranges().iter().enumerate() {
            let b = &boxes[i];
            for p in (s..e).flat_map(|t| bvh.tris.corners_f64(t as usize)) {
                for j in 0..3 {
                    // a_j·(p − o − c) as exact products, then ± h_j.
                    let mut terms = Vec::new();
                    for k in 0..3 {
                        for x in [p[k], -o[k], -b.c[k]] {
                            let prod = b.axes[j][k] * x;
                            terms.push(prod);
                            terms.push(b.axes[j][k].mul_add(x, -prod));
                        }
                    }
                    let neg: Vec<f64> = terms.iter().map(|x| -x).collect();
                    let above = exact_sign(&[&[b.h[j]][..], &neg].concat());
                    let below = exact_sign(&[&[b.h[j]][..], &terms].concat());
                    assert!(
                        above >= 0.0 && below >= 0.0,
                        "case {case} node {i} axis {j}"
                    );
                }
            }
        }
    }
}
