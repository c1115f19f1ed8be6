//! Unit tests of the distance search: the heap's order and the depth-first hand-over.

use super::*;
use crate::bvh::BuildOptions;
use crate::mesh::Mesh;
use crate::mesh::generate::uv_sphere;

#[test]
fn pending_pops_the_smallest_bound_first() {
    let mut h = BinaryHeap::new();
    for (lb, e) in [(2.0, 1), (0.5, 2), (1.0, 3), (0.5, 0)] {
        h.push(Pending::new(lb, e, 0));
    }
    h.push(Pending::new(-0.0, 7, 0));
    let order: Vec<usize> = std::iter::from_fn(|| h.pop()).map(|p| p.pair().0).collect();
    assert_eq!(order, [7, 0, 2, 3, 1]);
    assert_eq!(Pending::new(0.75, 3, 9).lb(), 0.75);
    assert_eq!(Pending::new(0.75, 3, 9).pair(), (3, 9));
}

/// Nested spheres (every pair of facing patches at nearly the gap, so best first is
/// breadth first) with the heap cut off at every size from 1 up: the search hands over
/// to depth first at some pose and every answer equals the all-pairs oracle, field for
/// field, along a path (the previous witness first) and from scratch.
#[test]
fn depth_first_after_a_full_heap_keeps_the_exact_witness() {
    let a = uv_sphere([0.0; 3], 1.0, 10, 14);
    let b = uv_sphere([0.0; 3], 0.9, 9, 12);
    let opts = BuildOptions::default();
    let (env, fly) = (Bvh::<9>::build(&a, &opts), Bvh::<9>::build(&b, &opts));
    let vols = DistanceVolumes::new(&env, &fly);
    let poses: Vec<Pose> = (0..6)
        .map(|i| {
            Pose::from_axis_angle(
                [0.3, 1.0, 0.2],
                0.37 * i as f64,
                [0.01 * i as f64, 0.0, 0.0],
            )
        })
        .collect();
    let oracle: Vec<PoseDistance> = poses
        .iter()
        .map(|p| brute_force_distance(&a, &b, p, None))
        .collect();
    let mut handed_over = 0;
    for limit in [1, 2, 3, 8, 64, HEAP_LIMIT] {
        let mut ws = DistanceWorkspace::new(&fly);
        ws.heap_limit = limit;
        for (i, p) in poses.iter().enumerate() {
            if i % 3 == 0 {
                ws.restart();
            }
            let got = distance_pose(&env, &fly, &vols, p, None, &mut ws);
            assert_eq!(got.distance, oracle[i].distance, "limit {limit}, pose {i}");
            assert_eq!(got.witness, oracle[i].witness, "limit {limit}, pose {i}");
        }
        // The stack keeps its allocation once used: this limit went depth first.
        handed_over += (ws.stack.capacity() > 0) as usize;
    }
    assert!(handed_over >= 4, "{handed_over} limits went depth first");
}

/// A torus (A) and a small sphere (B) with their trees and node boxes: the memo tests' scene.
fn torus_and_sphere() -> (Mesh, Mesh, Bvh<9>, Bvh<9>, DistanceVolumes) {
    let a = crate::mesh::generate::torus([0.0; 3], 1.0, 0.3, 24, 10);
    let b = uv_sphere([0.0; 3], 0.5, 8, 12);
    let opts = BuildOptions::default();
    let (env, fly) = (Bvh::<9>::build(&a, &opts), Bvh::<9>::build(&b, &opts));
    let vols = DistanceVolumes::new(&env, &fly);
    (a, b, env, fly, vols)
}

/// A coherent path (a sphere turning a little per pose beside a torus): with the memo of
/// expanded pairs every answer still equals the oracle, with fewer node tests than with
/// the memo off (every pose tests every pair); a memo never survives a restart, and a path
/// of jumps does not use it.
#[test]
fn the_memo_of_expanded_pairs_keeps_answers_and_saves_tests() {
    let (a, b, env, fly, vols) = torus_and_sphere();
    let poses: Vec<Pose> = (0..12)
        .map(|i| Pose::from_axis_angle([0.0, 0.2, 1.0], 0.004 * i as f64, [1.2, 0.1, 0.9]))
        .collect();
    let oracle: Vec<PoseDistance> = poses
        .iter()
        .map(|p| brute_force_distance(&a, &b, p, None))
        .collect();
    let mut tests = Vec::new();
    for refresh in [1, 2, MEMO_REFRESH] {
        let mut ws = DistanceWorkspace::new(&fly);
        ws.memo_refresh = refresh;
        let mut nv = 0;
        for (p, want) in poses.iter().zip(&oracle) {
            let got = distance_pose(&env, &fly, &vols, p, None, &mut ws);
            assert_eq!((got.distance, got.witness), (want.distance, want.witness));
            nv += got.counters.bv_tests;
        }
        ws.restart();
        assert!(ws.expanded[0].is_empty());
        tests.push(nv);
    }
    assert!(tests[1] < tests[0] && tests[2] < tests[1], "{tests:?}");
    // Jumps (steps far longer than a tenth of the distance): no memo, the same tests.
    let jumps: Vec<Pose> = (0..6)
        .map(|i| Pose::from_axis_angle([0.0, 0.2, 1.0], 0.5 * i as f64, [1.2, 0.1, 0.9]))
        .collect();
    let nv = |refresh| {
        let mut ws = DistanceWorkspace::new(&fly);
        ws.memo_refresh = refresh;
        jumps
            .iter()
            .map(|p| {
                distance_pose(&env, &fly, &vols, p, None, &mut ws)
                    .counters
                    .bv_tests
            })
            .sum::<u64>()
    };
    assert_eq!(nv(1), nv(MEMO_REFRESH));
}

/// The memo is a hint: any set of pairs taken as "expanded before", even nonsense (every
/// third pair, every pair, none), leaves every answer the oracle's (pairs it expands
/// untested skip the heap, under their tested ancestor's bound).
#[test]
fn any_memo_keeps_the_exact_witness() {
    let (a, b, env, fly, vols) = torus_and_sphere();
    let poses: Vec<Pose> = (0..4)
        .map(|i| Pose::from_axis_angle([0.3, 0.2, 1.0], 0.9 * i as f64, [1.2, 0.1, 0.9]))
        .collect();
    let (na, nb) = (env.nodes.len(), fly.nodes.len());
    for (i, p) in poses.iter().enumerate() {
        let want = brute_force_distance(&a, &b, p, None);
        for rule in 0..5u64 {
            let mut ws = DistanceWorkspace::new(&fly);
            // A step of length 0 from this very pose: the memo is used.
            ws.prev_pose = Some((*p, f64::MAX));
            ws.age = 1;
            ws.expanded[0] = (0..na)
                .flat_map(|e| (0..nb).map(move |f| (e, f)))
                .filter(|&(e, f)| match rule {
                    0 => true,
                    1 => false,
                    _ => !(e as u64 * 31 + f as u64 * 17 + rule).is_multiple_of(3),
                })
                .map(|(e, f)| pair_key(e, f))
                .collect();
            let got = distance_pose(&env, &fly, &vols, p, None, &mut ws);
            assert_eq!(
                (got.distance, got.witness),
                (want.distance, want.witness),
                "pose {i}, memo rule {rule}"
            );
        }
    }
}
