//! The hot loops compiled for x86-64-v3 (`src/isa.rs`, chosen when they run: the volume
//! trees' descents, the triangle test) give what the baseline's code gives, bit for bit: the same pairs and the same counters on every pose,
//! for every tree, on scenes and poses that reach the flushed paths (rotations and
//! translations whose trigonometric zeros are residues such as 6·10⁻¹⁷), touching and
//! coplanar contacts, near misses and deep overlap. The pairs are also the f64 brute
//! force's, so neither build is right only by agreeing with the other.

use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::*;

/// A rotation by `k` quarter turns (plus `tilt` radians) about a coordinate axis, its
/// quaternion from `sin` and `cos` (so a quarter turn leaves residues near 10⁻¹⁷ where the
/// matrix should hold 0), and a translation with such a residue too.
fn trig_pose(axis: usize, k: u32, tilt: f64, shift: [f64; 3]) -> Pose {
    let half = 0.5 * (k as f64 * std::f64::consts::FRAC_PI_2 + tilt);
    let mut q = [half.cos(), 0.0, 0.0, 0.0];
    q[1 + axis] = half.sin();
    let residue = (std::f64::consts::FRAC_PI_2).cos() * shift[0];
    Pose::new(q, [shift[0], shift[1] + residue, shift[2] - residue])
}

fn scenes() -> Vec<(&'static str, Mesh, Mesh, Vec<Pose>)> {
    let mut rng = Rng::new(5);
    let torus = generate::torus([0.0; 3], 1.0, 0.3, 40, 16);
    let linked = torus.map_positions(|[x, y, z]| [x, z, y]);
    let mut tori_poses: Vec<Pose> = (0..12)
        .map(|i| {
            trig_pose(
                i % 3,
                i as u32,
                0.05 * i as f64,
                [1.0 + 0.02 * i as f64, 0.0, 0.0],
            )
        })
        .collect();
    tori_poses.extend((0..6).map(|_| Pose::new(rng.unit_quaternion(), [1.0, 0.1, -0.1])));
    let sphere = generate::sphere_with_triangles([0.0; 3], 1.0, 2_000);
    let inner = sphere.map_positions(|p| p.map(|c| c * 0.99));
    let nested_poses = (0..8)
        .map(|i| trig_pose(i % 3, i as u32, 0.0, [0.004 * i as f64, 0.0, 0.0]))
        .collect();
    let grid = generate::grid(12, 12, 0.1, 0.0);
    // Quarter turns about z and shifts by whole cells: coplanar, touching contacts.
    let grid_poses = (0..8)
        .map(|i| {
            trig_pose(
                2,
                i as u32,
                0.0,
                [0.1 * (i % 3) as f64, 0.05 * (i % 2) as f64, 0.0],
            )
        })
        .collect();
    let soup_a = generate::random_soup(1, 1_500, 1.0, 0.1);
    let soup_b = generate::random_soup(2, 1_500, 1.0, 0.1);
    let soup_poses = (0..10)
        .map(|i| trig_pose(i % 3, i as u32, 0.3, [0.6 - 0.1 * i as f64, 0.0, 0.0]))
        .collect();
    vec![
        ("linked tori", torus.clone(), linked, tori_poses),
        ("nested spheres 1 % apart", sphere, inner, nested_poses),
        ("touching grids", grid.clone(), grid, grid_poses),
        ("random soups", soup_a, soup_b, soup_poses),
    ]
}

#[test]
fn the_v3_build_answers_as_the_baseline() {
    if !isa::available() {
        eprintln!("SKIPPED IN PART: this CPU lacks x86-64-v3; only the baseline ran");
    }
    let kinds = [
        BvKind::Auto,
        BvKind::Obb,
        BvKind::Sphere,
        BvKind::Kdop18,
        BvKind::Dual18,
        BvKind::Boxtree,
        BvKind::Rtree,
    ];
    let mut contacts = 0;
    for (name, a, b, poses) in scenes() {
        for bv in kinds {
            let col = Collider::builder(&a, &b).bv(bv).build().unwrap();
            isa::set_baseline(true);
            assert!(!isa::v3());
            let base = col.collide_batch(&poses);
            isa::set_baseline(false);
            assert_eq!(isa::v3(), isa::available());
            let v3 = col.collide_batch(&poses);
            for (i, p) in poses.iter().enumerate() {
                assert_eq!(v3[i], base[i], "{name}, {bv:?}, pose {i}");
                if bv == BvKind::Obb {
                    let truth = brute_force(&a, &b, p);
                    assert_eq!(v3[i].pairs, truth, "{name}, pose {i}");
                    contacts += truth.len();
                }
            }
        }
    }
    assert!(contacts > 1_000, "{contacts}");
}

/// The distance query (`distance_pose`, an x86-64-v3 variant) answers the same both ways,
/// counters included, at poses in contact and apart; on the two smaller scenes its
/// witness is also the brute force's (every triangle pair measured exactly).
#[test]
fn the_v3_distance_answers_as_the_baseline() {
    for (name, a, b, poses) in scenes() {
        let poses: Vec<Pose> = poses
            .iter()
            .map(|p| Pose::new(p.q, [p.t[0] + 0.3, p.t[1] - 0.2, p.t[2] + 0.1]))
            .chain(poses.iter().copied())
            .collect();
        let col = Collider::builder(&a, &b)
            .bv(BvKind::Kdop18)
            .build()
            .unwrap();
        isa::set_baseline(true);
        let base = col.distance_batch(&poses, None).unwrap();
        isa::set_baseline(false);
        let v3 = col.distance_batch(&poses, None).unwrap();
        let small = a.triangle_count() * b.triangle_count() <= 500_000;
        for (i, p) in poses.iter().enumerate() {
            assert_eq!(v3[i], base[i], "{name}, pose {i}");
            if !small || i % 5 != 0 {
                continue;
            }
            let truth = meshcollide::proximity::distance::brute_force_distance(&a, &b, p, None);
            assert_eq!(
                (v3[i].distance, v3[i].witness),
                (truth.distance, truth.witness),
                "{name}, pose {i}"
            );
        }
    }
}
