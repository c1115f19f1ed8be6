//! Every tumbled k-DOP contains all transformed triangles of its node, for random rotations
//! (`002_2561ef21643dcace.txt` 4.1): approximation method, hill climbing at the root, and
//! exact refit.

use meshcollide::bv::Kdop;
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

fn contains_all<const H: usize>(bv: &Kdop<H>, tris: &[[[f32; 3]; 3]], pose: &Pose) -> bool {
    tris.iter()
        .flatten()
        .all(|&p| bv.contains_point(pose.apply(p)))
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
                ws.begin(&fly, &pose, method);
                for (i, &(a, b)) in ranges.iter().enumerate() {
                    let bv = *ws.node_bv(&fly, i);
                    assert!(
                        contains_all(&bv, &fly.bvh.tri_corners[a..b], &pose),
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
            positions.push([0; 3].map(|_| rng.below(4) as f32 * 0.5));
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
            let f = PoseFrame::<H>::new(&pose, fly.scale, Kdop::EMPTY);
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
