use super::*;

#[test]
fn a_tilted_box_gets_its_own_axes_and_contains_its_corners() {
    // A long thin slab along (1, 1, 0)/√2.
    let s = std::f64::consts::FRAC_1_SQRT_2;
    let pt = |a: f64, b: f64, z: f64| [s * a - s * b, s * a + s * b, z];
    let mut tris = Vec::new();
    for i in 0..10 {
        let a = i as f64;
        tris.push([pt(a, 0.0, 0.0), pt(a + 1.0, 0.0, 0.0), pt(a, 0.1, 0.05)]);
        tris.push([
            pt(a, 0.1, 0.0),
            pt(a + 1.0, 0.1, 0.05),
            pt(a + 1.0, 0.0, 0.05),
        ]);
    }
    let b = Obb::fit(&tris);
    assert!(orthonormal(&b.axes));
    // The long axis is (1, 1, 0)/√2 up to sign.
    let long = (0..3).max_by(|&i, &j| b.h[i].total_cmp(&b.h[j])).unwrap();
    let along = dot(b.axes[long], [s, s, 0.0]).abs();
    assert!(along > 0.9999, "{along} {:?}", b.axes);
    assert!(b.h[long] > 4.9 && b.h[long] < 5.01, "{:?}", b.h);
    for p in tris.iter().flatten() {
        assert!(b.contains_approx(*p));
    }
}

/// The tree's moments merged bottom-up ([`node_moments`]) give every node the
/// covariance of its own triangles computed directly, within rounding (the oracle: one
/// [`Moments::of`] per node), on curved, degenerate and far-from-origin meshes; and
/// the boxes fitted from them contain their triangles.
#[test]
fn merged_moments_are_each_nodes_own() {
    use crate::bvh::{BuildOptions, Bvh};
    use crate::mesh::generate;
    let far = generate::torus([0.0; 3], 1.0, 0.3, 24, 10)
        .map_positions(|p| p.map(|c| c * 1.234_567_890_123_456_7 + 9.876_543_210_987_654e8));
    let meshes = [
        generate::torus([0.0; 3], 1.0, 0.3, 24, 10),
        generate::uv_sphere([0.3, -0.2, 0.1], 2.0, 12, 24),
        generate::degenerate_soup(7, 300, 1.0),
        generate::random_soup(11, 400, 5.0, 0.5),
        far,
    ];
    let mut zero_area = 0;
    for (mi, mesh) in meshes.iter().enumerate() {
        let bvh = Bvh::<3>::build(mesh, &BuildOptions::default());
        let corners: Vec<_> = (0..bvh.tris.len())
            .map(|p| bvh.tris.corners_local_f64(p))
            .collect();
        let ranges = bvh.node_ranges();
        let merged = node_moments(&bvh, &ranges, &corners);
        for (i, &(s, e)) in ranges.iter().enumerate() {
            let tris = &corners[s as usize..e as usize];
            let direct = Moments::of(tris, tris[0][0]);
            match (direct.covariance(), merged[i].covariance()) {
                (Some(a), Some(b)) => {
                    let scale = a
                        .iter()
                        .flatten()
                        .fold(f64::MIN_POSITIVE, |m, x| m.max(x.abs()));
                    for (x, y) in a.iter().flatten().zip(b.iter().flatten()) {
                        assert!(
                            (x - y).abs() <= 1e-9 * scale,
                            "mesh {mi} node {i}: {a:?} {b:?}"
                        );
                    }
                }
                (None, None) => zero_area += 1,
                other => panic!("mesh {mi} node {i}: {other:?}"),
            }
            let axes = checked(node_axes(&merged[i], tris));
            let boxed = Obb32::from_fit(&axes, Obb::centre(&axes, tris), tris).as_f64();
            assert!(
                tris.iter().flatten().all(|p| boxed.contains_approx(*p)),
                "mesh {mi} node {i}"
            );
        }
    }
    // The degenerate soup has nodes of zero area: their axes come from the vertices.
    assert!(zero_area > 0);
}

/// [`eigenvectors`] gives orthonormal eigenvectors (the residual `‖Av − (vᵀAv)v‖`
/// within `1e-9` of the matrix's norm) of random symmetric matrices, with eigenvalues
/// far apart, close (the closed form gives up, the iteration answers) and equal.
#[test]
fn eigenvectors_are_eigenvectors() {
    let mut rng = crate::rng::Rng::new(5);
    let mut gave_up = 0;
    for case in 0..3000 {
        // A = R·diag(l)·Rᵀ for a random rotation R.
        let q = [0; 4].map(|_| rng.f64() * 2.0 - 1.0);
        let r = crate::pose::Pose::new(q, [0.0; 3]).r;
        let spread = [1.0, 1e-3, 1e-7, 1e-12, 0.0][case % 5];
        let l = [1.0 + rng.f64(), 0.5 + spread * rng.f64(), 0.5];
        let a: [[f64; 3]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|j| (0..3).map(|k| r[i][k] * l[k] * r[j][k]).sum())
        });
        gave_up += closed_form(a).is_none() as usize;
        let e = orthonormalize(eigenvectors(a));
        assert!(orthonormal(&e), "{a:?}");
        let norm = a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
        for v in e {
            let av: [f64; 3] = std::array::from_fn(|i| dot(a[i], v));
            let lambda = dot(v, av);
            let res = (0..3)
                .map(|i| (av[i] - lambda * v[i]).abs())
                .fold(0.0, f64::max);
            assert!(
                res <= 1e-9 * norm,
                "case {case}: {a:?} {e:?} residual {res:e}"
            );
        }
    }
    // The close and equal eigenvalues went to the iteration, the far ones did not.
    assert!((1000..2400).contains(&gave_up), "{gave_up}");
}

#[test]
fn degenerate_nodes_fall_back() {
    let p = [1.0, 2.0, 3.0];
    let b = Obb::fit(&[[p, p, p]]);
    assert_eq!(b.axes, IDENTITY);
    assert!(b.contains_approx(p));
    let line = Obb::fit(&[[[0.0; 3], [1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]]);
    assert!(orthonormal(&line.axes));
    assert!(line.contains_approx([2.0, 2.0, 2.0]) && line.contains_approx([0.0; 3]));
}
