use super::*;
use crate::bvh::BuildOptions;
use crate::mesh::Mesh;
use crate::proximity::tri_tri_within;
use crate::rng::Rng;

/// Every triangle of a node, B's posed.
fn node_triangles<const H: usize>(bvh: &Bvh<H>, i: usize, pose: Option<&Pose>) -> Vec<[P3; 3]> {
    let (s, e) = bvh.node_ranges()[i];
    (s..e)
        .map(|p| {
            let t = bvh.tris.corners_f64(p as usize);
            pose.map_or(t, |q| t.map(|v| q.apply(v)))
        })
        .collect()
}

/// Whether `lb` is at most the exact distance between every triangle of `a` and every one
/// of `b`: no pair is within less than `lb` (decided exactly).
fn below_every_pair(lb: f64, a: &[[P3; 3]], b: &[[P3; 3]]) -> bool {
    lb <= 0.0
        || a.iter()
            .all(|ta| b.iter().all(|tb| !tri_tri_within(ta, tb, lb.next_down())))
}

/// The poses of the edge cases: tumbling and random quaternions, and matrices as a caller
/// may write them into the public fields (rows 10⁻⁶ too long, a shear, a reflection).
fn poses(offset: f64, rng: &mut Rng) -> Vec<Pose> {
    let mut poses = crate::pose::tumbling_poses(4, [offset, 0.0, 0.0], [0.5, -offset, 0.3]);
    for _ in 0..3 {
        let q = [0.0; 4].map(|_| rng.f64() - 0.5);
        poses.push(Pose::new(q, [rng.f64() - offset, offset, rng.f64()]));
    }
    let s6 = 1.0 + 1e-6;
    for r in [
        [[s6, 0.0, 0.0], [0.0, 0.0, s6], [0.0, -s6, 0.0]],
        [[1.0, 0.001, 0.0], [0.0, 1.0, 0.0], [0.002, 0.0, 1.0]],
        [[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    ] {
        poses.push(Pose {
            q: [1.0, 0.0, 0.0, 0.0],
            t: [0.3 + offset, 0.1, -0.2],
            r,
        });
    }
    poses
}

/// The bound never exceeds the exact distance of any two triangles of the nodes (the
/// exact predicate as oracle), on soups near and far from the origin, at every kind of
/// pose, for node pairs of every size; and it proves something often (a bound that is
/// always 0 would pass the first check).
#[test]
fn bound_is_below_the_exact_distance_of_the_nodes() {
    let mut rng = Rng::new(11);
    let mut positive = 0;
    for offset in [0.0, 1e7, -3.5e5] {
        let shift = |p: [f64; 3]| [p[0] + offset, p[1] - offset, p[2]];
        let a = crate::mesh::generate::random_soup(3, 40, 2.0, 0.6).map_positions(shift);
        let b = crate::mesh::generate::random_soup(4, 40, 2.0, 0.6)
            .map_positions(|p| [p[0] - offset, p[1] + offset, p[2]]);
        let (ta, tb) = (
            Bvh::<9>::build(&a, &BuildOptions::default()),
            Bvh::<9>::build(&b, &BuildOptions::default()),
        );
        let (na, nb) = (NodeBoxes::new(&ta), NodeBoxes::new(&tb));
        for pose in poses(offset, &mut rng) {
            let bp = BoxPose::new(&pose, nb.reach);
            for _ in 0..150 {
                let (e, f) = (
                    rng.below(ta.nodes.len() as u64) as usize,
                    rng.below(tb.nodes.len() as u64) as usize,
                );
                let posed = PosedBox::new(&nb.nodes[f], &pose, &bp);
                for cap in [f64::INFINITY, 0.0] {
                    let lb = box_gap_lower(&na.nodes[e], &posed, cap);
                    let (xa, xb) = (
                        node_triangles(&ta, e, None),
                        node_triangles(&tb, f, Some(&pose)),
                    );
                    assert!(
                        below_every_pair(lb, &xa, &xb),
                        "offset {offset}, pose {pose:?}, nodes {e} {f}: {lb}"
                    );
                    positive += (lb > 0.0) as usize;
                }
            }
        }
    }
    assert!(positive > 500, "{positive}");
}

/// Two squares (two triangles each) in parallel planes `g` apart, B's moved sideways by
/// `δ` beyond A's edge: the distance is the hypotenuse `√(g² + δ²)`, and the bound, from
/// the combined face axes, comes within 10⁻¹⁰ of it (the fit's proved margins: `2⁻³⁷` of
/// the largest extent, [`Obb::extents`]) without exceeding it; touching squares give 0.
/// Near the origin and 10⁷ away.
#[test]
fn combined_axes_reach_the_hypotenuse_at_the_edge() {
    for offset in [0.0, 1e7] {
        let square = |z: f64| {
            Mesh::new(
                vec![
                    [offset, offset, z],
                    [offset + 1.0, offset, z],
                    [offset + 1.0, offset + 1.0, z],
                    [offset, offset + 1.0, z],
                ],
                vec![[0, 1, 2], [0, 2, 3]],
            )
            .unwrap()
        };
        let a = square(0.0);
        let b = square(0.0);
        let opts = BuildOptions::default();
        let (ta, tb) = (Bvh::<9>::build(&a, &opts), Bvh::<9>::build(&b, &opts));
        let (na, nb) = (NodeBoxes::new(&ta), NodeBoxes::new(&tb));
        for (g, delta) in [
            (0.25, 0.0),
            (0.25, 0.5),
            (0.5, 0.125),
            (1.0, 3.0),
            (0.0, 0.0),
        ] {
            let pose = Pose::new([1.0, 0.0, 0.0, 0.0], [1.0 + delta, 0.0, g]);
            let posed = PosedBox::new(&nb.nodes[0], &pose, &BoxPose::new(&pose, nb.reach));
            let lb = box_gap_lower(&na.nodes[0], &posed, f64::INFINITY);
            let exact = (g * g + delta * delta).sqrt();
            let xb = node_triangles(&tb, 0, Some(&pose));
            assert!(
                below_every_pair(lb, &node_triangles(&ta, 0, None), &xb),
                "{lb}"
            );
            let tol = if offset == 0.0 { 1e-10 } else { 1e-6 };
            assert!(
                lb >= exact * (1.0 - tol) - tol,
                "offset {offset}, g {g}, δ {delta}: {lb} vs {exact}"
            );
            assert!(lb <= exact, "{lb} > {exact}");
        }
    }
}

/// The posed slack grows with the pose's translation and B's reach (10⁷ away it is about
/// 10⁷·2⁻⁵⁰, not zero), and B's Gram bound covers a sheared matrix.
#[test]
fn posed_slack_and_gram_follow_the_pose() {
    let m = crate::mesh::generate::random_soup(5, 8, 1.0, 0.5)
        .map_positions(|p| [p[0] + 1e7, p[1], p[2]]);
    let t = Bvh::<9>::build(&m, &BuildOptions::default());
    let nb = NodeBoxes::new(&t);
    let pose = Pose::new([1.0, 0.0, 0.0, 0.0], [1e7, 0.0, 0.0]);
    let p = PosedBox::new(&nb.nodes[0], &pose, &BoxPose::new(&pose, nb.reach));
    assert!(
        p.slack > 1e7 / 1_125_899_906_842_624.0 && p.slack < 1e-7,
        "{}",
        p.slack
    );
    let shear = Pose {
        q: [1.0, 0.0, 0.0, 0.0],
        t: [0.0; 3],
        r: [[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    };
    let p = PosedBox::new(&nb.nodes[0], &shear, &BoxPose::new(&shear, nb.reach));
    // λ_max of the sheared axes' Gram matrix is at least its largest diagonal entry.
    let g: f64 = p.axes.iter().map(|a| dot(*a, *a)).fold(0.0, f64::max);
    assert!(1.0 / p.inv_lambda >= g, "{} < {g}", 1.0 / p.inv_lambda);
}
