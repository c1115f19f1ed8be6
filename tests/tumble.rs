//! Every tumbled k-DOP contains all transformed triangles of its node, for random rotations
//! (Klosowski et al., *Efficient Collision Detection Using Bounding Volume Hierarchies of
//! k-DOPs*, 1998, section 4.1): approximation method, hill climbing at the root, and exact
//! refit.

use meshcollide::bv::Kdop;
use meshcollide::frame::Frame;
use meshcollide::rng::Rng;
use meshcollide::tumble::{FlyingHierarchy, TumbleMethod, TumbleWorkspace};
use meshcollide::*;

/// Triangle position range of every node's subtree.
fn subtree_ranges<const H: usize>(bvh: &Bvh<H>) -> Vec<(usize, usize)> {
    let mut r = vec![(usize::MAX, 0); bvh.nodes.len()];
    for i in (0..bvh.nodes.len()).rev() {
        let n = &bvh.nodes[i];
        r[i] = if n.is_leaf() {
            (n.first as usize, (n.first + n.count) as usize)
        } else {
            let c = n.first as usize;
            (r[c].0.min(r[c + 1].0), r[c].1.max(r[c + 1].1))
        };
    }
    r
}

/// Whether the tumbled k-DOP (in the global frame: A's frame is the identity here) holds
/// the truth of every corner of B's triangles at positions `a..b`.
fn contains_all<const H: usize>(
    bv: &Kdop<H>,
    fly: &FlyingHierarchy<H>,
    (a, b): (usize, usize),
    pose: &Pose,
) -> bool {
    (a..b)
        .flat_map(|p| fly.bvh.tris.corners_f64(p))
        .all(|p| bv.contains_point(pose.apply(p)))
}

fn check_mesh<const H: usize>(mesh: &Mesh, rng: &mut Rng, poses: usize, label: &str) {
    for leaf_size in [1, 4, 40] {
        let o = BuildOptions {
            leaf_size,
            ..Default::default()
        };
        let fly = FlyingHierarchy::new(Bvh::<H>::build(mesh, &o));
        let ranges = subtree_ranges(&fly.bvh);
        let mut ws = TumbleWorkspace::new(&fly);
        for _ in 0..poses {
            let pose = Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-2.0, 2.0)));
            for method in [TumbleMethod::Approximate, TumbleMethod::Exact] {
                let lp = fly.local_pose(&Frame::default(), &pose);
                ws.begin(&fly, &lp, method);
                for (i, &(a, b)) in ranges.iter().enumerate() {
                    let bv = *ws.node_bv(&fly, i);
                    assert!(
                        contains_all(&bv, &fly, (a, b), &pose),
                        "{label} H={H} leaf_size={leaf_size} {method:?} node {i} ({} tris, leaf={}) misses a corner",
                        b - a,
                        fly.bvh.nodes[i].is_leaf()
                    );
                }
            }
        }
    }
}

fn grid_mesh(rng: &mut Rng, n: usize) -> Mesh {
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for i in 0..n as u32 {
        for _ in 0..3 {
            positions.push([0; 3].map(|_| rng.below(4) as f64 * 0.5));
        }
        triangles.push([3 * i, 3 * i + 1, 3 * i + 2]);
    }
    Mesh::new(positions, triangles).unwrap()
}

#[test]
fn tumbled_kdops_contain_their_triangles() {
    let mut rng = Rng::new(11);
    for case in 0..20 {
        let m = grid_mesh(&mut rng, 1 + case * 5);
        check_mesh::<3>(&m, &mut rng, 5, "grid");
        check_mesh::<7>(&m, &mut rng, 5, "grid");
        check_mesh::<9>(&m, &mut rng, 5, "grid");
        check_mesh::<13>(&m, &mut rng, 5, "grid");
        // Far from the origin and tiny: the margins must scale with the coordinates.
        let far = m.map_positions(|p| {
            [
                p[0] * 1e-3 + 1000.0,
                p[1] * 1e-3 - 500.0,
                p[2] * 1e-3 + 20.0,
            ]
        });
        check_mesh::<9>(&far, &mut rng, 5, "far");
        let big = m.map_positions(|p| [p[0] * 1e4, p[1] * 1e4, p[2] * 1e4]);
        check_mesh::<13>(&big, &mut rng, 5, "big");
        // Far from the origin as files in map coordinates are: 10⁷ away, features 10⁻³.
        let very_far = m.map_positions(|p| {
            [
                p[0] * 1e-3 + 1.234_567_891_234_567e7,
                p[1] * 1e-3 - 9.876_543_210_987_654e6,
                p[2] * 1e-3 + 3.3e6,
            ]
        });
        check_mesh::<9>(&very_far, &mut rng, 5, "very far");
    }
}

/// The vectorised `tumble_points` equals the slab-by-slab reference bit for bit (GPU
/// parity rests on it), on real node point sets and on points with signed zeros.
#[test]
fn tumble_points_matches_the_reference_bitwise() {
    use meshcollide::tumble::{PoseFrame, tumble_points, tumble_points_reference};
    fn run<const H: usize>(mesh: &Mesh, rng: &mut Rng) {
        let fly = FlyingHierarchy::new(Bvh::<H>::build(mesh, &BuildOptions::default()));
        for _ in 0..20 {
            let pose = Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-2.0, 2.0)));
            let lp = meshcollide::frame::LocalPose::exact(&pose);
            let f = PoseFrame::<H>::new(&lp, fly.scale, Kdop::EMPTY);
            for node in 0..fly.bvh.nodes.len() {
                let pts = fly.node_points(node);
                let (a, b) = (tumble_points(&f, pts), tumble_points_reference(&f, pts));
                assert_eq!(
                    bytemuck::bytes_of(&a),
                    bytemuck::bytes_of(&b),
                    "node {node}"
                );
            }
            let odd = [[0.0f32, -0.0, 0.0], [-0.0, 0.0, -0.0], [1.0, -1.0, 0.5]];
            let (a, b) = (tumble_points(&f, &odd), tumble_points_reference(&f, &odd));
            assert_eq!(bytemuck::bytes_of(&a), bytemuck::bytes_of(&b));
            let (a, b) = (tumble_points(&f, &[]), tumble_points_reference(&f, &[]));
            assert_eq!(bytemuck::bytes_of(&a), bytemuck::bytes_of(&b));
        }
    }
    let mut rng = Rng::new(99);
    let m = meshcollide::mesh::generate::torus([0.1, 0.2, 0.3], 1.0, 0.3, 12, 8);
    run::<3>(&m, &mut rng);
    run::<7>(&m, &mut rng);
    run::<9>(&m, &mut rng);
    run::<13>(&m, &mut rng);
}

/// Sign of `Σ terms` exactly (Shewchuk's grow-expansion with two-sum: the most significant
/// nonzero component of the non-overlapping expansion carries the sign).
fn exact_sign(terms: &[f64]) -> std::cmp::Ordering {
    let two_sum = |a: f64, b: f64| {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    };
    let mut e: Vec<f64> = Vec::new();
    for &t in terms {
        let mut q = t;
        let mut out = Vec::new();
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
    let top = e.iter().rev().find(|&&x| x != 0.0).copied().unwrap_or(0.0);
    top.partial_cmp(&0.0).unwrap()
}

/// Far from the origin with features below the f32 spacing there (10⁻⁴ at 10⁷), A's local
/// frame where B lands: every tumbled k-DOP (both methods, every node) contains the truth
/// `Pose::apply(b) − o_A` of every corner below it, decided exactly (the projection of the
/// f64 truth and of A's origin summed as an expansion against the f32 bound). Without the
/// local pose's error bound in the margins this fails: the f64 pose formula at 10⁷ errs
/// by more than the relative margin of so small a model.
#[test]
fn tumbled_kdops_contain_the_exact_truth_far_away() {
    use meshcollide::frame::Frame;
    let mut rng = Rng::new(4242);
    let s = 1e-4;
    let off = [1.234_567_890_123_456_7e7, -9.876_543_210_987_654e6, 3.3e6];
    let m = meshcollide::mesh::generate::torus([0.0; 3], 1.0, 0.3, 16, 8)
        .map_positions(|p| [p[0] * s + off[0], p[1] * s + off[1], p[2] * s + off[2]]);
    fn run<const H: usize>(m: &Mesh, rng: &mut Rng, off: [f64; 3], s: f64) -> usize {
        let fly = FlyingHierarchy::new(Bvh::<H>::build(m, &BuildOptions::default()));
        let ranges = subtree_ranges(&fly.bvh);
        let mut ws = TumbleWorkspace::new(&fly);
        let ax = meshcollide::bv::axes(H);
        let mut checked = 0;
        for _ in 0..8 {
            // A rotation about B's centre, landing B near a point 10⁶ away (A's origin).
            let target = [off[0] - 4e6, off[1] + 1e6, off[2] - 2.5e6];
            let q = rng.unit_quaternion();
            let r = Pose::new(q, [0.0; 3]);
            let rc = r.apply(off);
            let pose = Pose::new(q, [0, 1, 2].map(|k| target[k] - rc[k]));
            let env = Frame {
                origin: [0, 1, 2].map(|k| target[k] + rng.range(-2.0, 2.0) * s),
                l1_max: 0.0,
            };
            let lp = fly.local_pose(&env, &pose);
            for method in [TumbleMethod::Approximate, TumbleMethod::Exact] {
                ws.begin(&fly, &lp, method);
                for (i, &(a, b)) in ranges.iter().enumerate() {
                    let bv = *ws.node_bv(&fly, i);
                    for p in (a..b).flat_map(|t| fly.bvh.tris.corners_f64(t)) {
                        let x = pose.apply(p);
                        for (j, d) in ax.iter().enumerate() {
                            let terms = |bound: f32| -> Vec<f64> {
                                let mut v: Vec<f64> = (0..3)
                                    .flat_map(|k| {
                                        let c = f64::from(d[k]);
                                        [c * x[k], -c * env.origin[k]]
                                    })
                                    .collect();
                                v.push(-f64::from(bound));
                                v
                            };
                            use std::cmp::Ordering::*;
                            assert_ne!(
                                exact_sign(&terms(bv.min[j])),
                                Less,
                                "{method:?} node {i} slab {j}"
                            );
                            assert_ne!(
                                exact_sign(&terms(bv.max[j])),
                                Greater,
                                "{method:?} node {i} slab {j}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        checked
    }
    assert!(run::<9>(&m, &mut rng, off, s) > 0);
    assert!(run::<13>(&m, &mut rng, off, s) > 0);
    assert!(run::<3>(&m, &mut rng, off, s) > 0);
}

/// A per-pose tolerance's frame ([`meshcollide::tumble::PoseFrame::widened`]): every
/// tumbled k-DOP of B (and the root) holds every point within `eps` of B's triangles'
/// corners as posed in f64, in every direction; and the combined coordinate gaps
/// ([`meshcollide::tumble::kdop_gap_prunes`]) never prune two such k-DOPs around points
/// `eps` apart, but do prune them a little farther, so the test has teeth at its edge.
#[test]
fn widened_frames_hold_every_point_within_eps() {
    use meshcollide::bv::kdop::{round_down, round_up};
    use meshcollide::tumble::{PoseFrame, kdop_gap_prunes};
    let mut rng = Rng::new(0x51de_ed17);
    let mesh = grid_mesh(&mut rng, 60);
    let fly = FlyingHierarchy::new(Bvh::<9>::build(&mesh, &BuildOptions::default()));
    let ranges = subtree_ranges(&fly.bvh);
    let axes = meshcollide::bv::axes(9);
    let dirs: Vec<[f64; 3]> = (0..24)
        .map(|_| {
            let v = [0; 3].map(|_| rng.range(-1.0, 1.0));
            let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            v.map(|x| x / n)
        })
        .chain(axes.iter().map(|a| {
            let n = a.iter().map(|&x| (x as f64).powi(2)).sum::<f64>().sqrt();
            a.map(|x| x as f64 / n)
        }))
        .collect();
    for eps in [0.0, 1e-9, 0.013, 0.75, 40.0] {
        for _ in 0..6 {
            let pose = Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-3.0, 3.0)));
            let f: PoseFrame<9> = fly.pose_frames(&Frame::default(), &[pose])[0].widened(eps);
            for (i, &(a, b)) in ranges.iter().enumerate() {
                let k = if i == 0 {
                    f.root
                } else {
                    fly.tumble_node(i, &f)
                };
                for c in (a..b).flat_map(|p| fly.bvh.tris.corners_f64(p)) {
                    let c = pose.apply(c);
                    for d in &dirs {
                        let q = [0, 1, 2].map(|j| c[j] + eps * (1.0 - 1e-12) * d[j]);
                        assert!(k.contains_point(q), "eps {eps}, node {i}, {q:?}");
                    }
                }
            }
            // Two point-sized boxes `gap` apart along (1, 1, 0)/√2, B's grown by the frame's
            // x, y, z widening: kept at `gap = eps`, pruned at `gap = eps·(1 + 1e-4)`.
            if eps > 0.0 {
                let point = |p: [f64; 3]| {
                    let mut k = Kdop::<9>::EMPTY;
                    for (s, ax) in axes.iter().enumerate() {
                        let v = (ax[0] as f64 * p[0] + ax[1] as f64 * p[1]) + ax[2] as f64 * p[2];
                        (k.min[s], k.max[s]) = (round_down(v), round_up(v));
                    }
                    k
                };
                for (gap, pruned) in [(eps, false), (eps * (1.0 + 1e-4), true)] {
                    let h = gap / 2f64.sqrt();
                    let ka = point([0.5, -0.25, 1.0]);
                    let mut kb = point([0.5 + h, -0.25 + h, 1.0]);
                    for s in 0..3 {
                        kb.min[s] = round_down(kb.min[s] as f64 - f.eps_w as f64);
                        kb.max[s] = round_up(kb.max[s] as f64 + f.eps_w as f64);
                    }
                    let got = kdop_gap_prunes(&ka, &kb, f.eps_w, f.eps_t2);
                    if eps >= 1e-3 {
                        assert_eq!(got, pruned, "eps {eps}, gap {gap}");
                    } else {
                        // Below the f32 resolution of the points the test keeps the pair.
                        assert!(!got || pruned, "eps {eps}, gap {gap}");
                    }
                }
            }
        }
    }
}
