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
        p.slack() > 1e7 / 1_125_899_906_842_624.0 && p.slack() < 1e-7,
        "{}",
        p.slack()
    );
    let shear = Pose {
        q: [1.0, 0.0, 0.0, 0.0],
        t: [0.0; 3],
        r: [[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    };
    let p = PosedBox::new(&nb.nodes[0], &shear, &BoxPose::new(&shear, nb.reach));
    // λ_max of the sheared axes' Gram matrix is at least its largest diagonal entry.
    let g: f64 = (0..3)
        .map(|i| row(&p.m, i))
        .map(|a| dot(a, a))
        .fold(0.0, f64::max);
    let inv_lambda = p.own[3];
    assert!(1.0 / inv_lambda >= g, "{} < {g}", 1.0 / inv_lambda);
}

/// [`box_gap_lower`] as the module docs state it, one axis at a time in plain scalars (the
/// evaluation the proof bounds; the lanes must compute the same numbers).
fn scalar_box_gap_lower(a: &NodeBox, b: &PosedBox, cap: f64) -> f64 {
    let oa = a.obb();
    let (a_spread, b_spread) = (a.hk[3], b.hk[3]);
    let b_axes: [P3; 3] = std::array::from_fn(|i| row(&b.m, i));
    let (hb, b_own, b_margin) = (&b.hk, &b.own, &b.margin);
    let (inv_lambda, slack) = (b.own[3], b.margin[3]);
    let d = sub(row(&b.m, 3), oa.c);
    let t = oa.axes.map(|x| dot(x, d));
    let c: [[f64; 3]; 3] =
        std::array::from_fn(|i| std::array::from_fn(|j| dot(oa.axes[i], b_axes[j])));
    let ac = c.map(|r| r.map(f64::abs));
    let ha = &oa.h;
    let s = (d[0].abs() + d[1].abs() + d[2].abs()) + a_spread + b_spread;
    let margin_a = s * MARGIN_A;
    let mut sum_a = 0.0f64;
    for j in 0..3 {
        let g = t[j].abs()
            - (ha[j] + TWO_M40 * a.size)
            - (hb[0] * ac[j][0] + hb[1] * ac[j][1] + hb[2] * ac[j][2])
            - margin_a;
        if g > 0.0 {
            sum_a += g * g;
        }
    }
    let est_a = (sum_a * INV_LAMBDA_A).sqrt();
    let tb = b_axes.map(|x| dot(x, d));
    let mut sum_b = 0.0f64;
    for j in 0..3 {
        let g = tb[j].abs()
            - b_own[j]
            - (ha[0] * ac[0][j] + ha[1] * ac[1][j] + ha[2] * ac[2][j])
            - s * b_margin[j];
        if g > 0.0 {
            sum_b += g * g;
        }
    }
    let est = est_a.max((sum_b * inv_lambda).sqrt());
    let combined = (est * COMBINED_DOWN - slack).max(0.0);
    if combined > cap {
        return combined;
    }
    let mut best = (est, usize::MAX);
    for i in 0..3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        for j in 0..3 {
            let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
            let n = (t[i2] * c[i1][j] - t[i1] * c[i2][j]).abs()
                - (ha[i1] * ac[i2][j] + ha[i2] * ac[i1][j])
                - (hb[j1] * ac[i][j2] + hb[j2] * ac[i][j1]);
            let l2 = 1.0 - c[i][j] * c[i][j];
            if n > 0.0 && l2 > 1e-9 && n * n > best.0 * best.0 * l2 {
                best = (n / l2.sqrt(), 3 * i + j);
            }
        }
    }
    let dd = dot(d, d);
    if dd > 0.0 {
        let n = dd
            - (ha[0] * t[0].abs() + ha[1] * t[1].abs() + ha[2] * t[2].abs())
            - (hb[0] * tb[0].abs() + hb[1] * tb[1].abs() + hb[2] * tb[2].abs());
        if n > 0.0 && n * n > best.0 * best.0 * dd {
            best = (n / dd.sqrt(), 9);
        }
    }
    let l = match best.1 {
        k @ 0..9 => cross(oa.axes[k / 3], b_axes[k % 3]),
        9 => d,
        _ => return combined,
    };
    let ra = ha[0] * dot(oa.axes[0], l).abs()
        + ha[1] * dot(oa.axes[1], l).abs()
        + ha[2] * dot(oa.axes[2], l).abs();
    let rb = hb[0] * dot(b_axes[0], l).abs()
        + hb[1] * dot(b_axes[1], l).abs()
        + hb[2] * dot(b_axes[2], l).abs();
    let g = dot(d, l).abs() - ra - rb - s * TWO_M46 * norm_inf(&l);
    let certified = if g <= 0.0 || g.is_nan() {
        0.0
    } else {
        let len = mul_up(dot(l, l).sqrt(), LENGTH_UP);
        sub_down((g / len).next_down(), slack).max(0.0)
    };
    certified.max(combined)
}

/// The lanes compute the scalar evaluation's numbers bit for bit (so the module docs'
/// rounding analysis, written for it, is theirs), and prune exactly where it prunes: node
/// pairs of soups near and 10⁷ from the origin, at every kind of pose, under caps below, at
/// and above the bound.
#[test]
fn lanes_equal_the_scalar_evaluation() {
    let mut rng = Rng::new(29);
    let mut crossed = 0;
    for offset in [0.0, 1e7] {
        let shift = |p: [f64; 3]| [p[0] + offset, p[1] - offset, p[2]];
        let a = crate::mesh::generate::random_soup(7, 60, 2.0, 0.6).map_positions(shift);
        let b = crate::mesh::generate::random_soup(8, 60, 2.0, 0.6).map_positions(shift);
        let opts = BuildOptions::default();
        let (ta, tb) = (Bvh::<9>::build(&a, &opts), Bvh::<9>::build(&b, &opts));
        let (na, nb) = (NodeBoxes::new(&ta), NodeBoxes::new(&tb));
        for pose in poses(offset, &mut rng) {
            let bp = BoxPose::new(&pose, nb.reach);
            for e in 0..ta.nodes.len() {
                for f in (0..tb.nodes.len()).step_by(3) {
                    let posed = PosedBox::new(&nb.nodes[f], &pose, &bp);
                    let full = box_gap_lower(&na.nodes[e], &posed, f64::INFINITY);
                    let want = scalar_box_gap_lower(&na.nodes[e], &posed, f64::INFINITY);
                    assert_eq!(full.to_bits(), want.to_bits(), "nodes {e} {f}, {pose:?}");
                    for cap in [0.0, full * 0.5, full.next_down(), full, full * 2.0] {
                        let (x, y) = (
                            box_gap_lower(&na.nodes[e], &posed, cap),
                            scalar_box_gap_lower(&na.nodes[e], &posed, cap),
                        );
                        assert_eq!(x > cap, y > cap, "nodes {e} {f}, cap {cap}: {x} {y}");
                        if y <= cap {
                            assert_eq!(x.to_bits(), y.to_bits(), "nodes {e} {f}, cap {cap}");
                        }
                    }
                    crossed += (full > 0.0) as usize;
                }
            }
        }
    }
    assert!(crossed > 1000, "{crossed}");
}
