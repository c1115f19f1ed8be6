use super::*;
use std::collections::HashMap;

/// Closed and consistently oriented: every directed edge occurs once, and its reverse once.
fn assert_closed(m: &Mesh) {
    let mut edges: HashMap<(u32, u32), usize> = HashMap::new();
    for t in &m.triangles {
        for k in 0..3 {
            *edges.entry((t[k], t[(k + 1) % 3])).or_default() += 1;
        }
    }
    for (&(a, b), &n) in &edges {
        assert_eq!(n, 1, "directed edge {a}->{b} used {n} times");
        assert_eq!(edges.get(&(b, a)), Some(&1), "edge {a}-{b} is a boundary");
    }
}

/// Signed volume (divergence theorem): positive iff normals point outward.
fn volume(m: &Mesh) -> f64 {
    (0..m.triangle_count())
        .map(|i| {
            let [a, b, c] = m.triangle(i);
            let cross = [
                b[1] * c[2] - b[2] * c[1],
                b[2] * c[0] - b[0] * c[2],
                b[0] * c[1] - b[1] * c[0],
            ];
            (a[0] * cross[0] + a[1] * cross[1] + a[2] * cross[2]) / 6.0
        })
        .sum()
}

fn dist(p: [f64; 3], c: [f64; 3]) -> f64 {
    (0..3).map(|k| (p[k] - c[k]).powi(2)).sum::<f64>().sqrt()
}

#[test]
fn uv_sphere_counts_radius_closed() {
    let c = [1.0, -2.0, 0.5];
    for (stacks, slices) in [(2, 3), (3, 4), (8, 16), (17, 5)] {
        let m = uv_sphere(c, 2.5, stacks, slices);
        assert_eq!(m.triangle_count(), (2 * slices * (stacks - 1)) as usize);
        assert_eq!(m.positions.len(), (2 + slices * (stacks - 1)) as usize);
        for &p in &m.positions {
            assert!((dist(p, c) - 2.5).abs() < 1e-12);
        }
        m.validate(std::path::Path::new("sphere")).unwrap();
        assert_closed(&m);
        assert!(volume(&m) > 0.0);
    }
    // Clamped parameters still give a closed mesh.
    assert_closed(&uv_sphere(c, 1.0, 0, 0));
}

#[test]
fn sphere_with_triangles_is_near_the_request() {
    for want in [100usize, 1000, 1234, 20_000, 200_000] {
        let n = sphere_with_triangles([0.0; 3], 1.0, want).triangle_count();
        assert!((n as f64 / want as f64 - 1.0).abs() < 0.05, "{want} → {n}");
    }
    assert!(sphere_with_triangles([0.0; 3], 1.0, 0).triangle_count() > 0);
}

#[test]
fn torus_equation_counts_closed() {
    let c = [0.5, 0.25, -1.0];
    let (big, small) = (3.0f64, 0.75f64);
    let m = torus(c, big, small, 24, 12);
    assert_eq!(m.triangle_count(), 2 * 24 * 12);
    assert_eq!(m.positions.len(), 24 * 12);
    for &p in &m.positions {
        let [x, y, z] = std::array::from_fn(|k| p[k] - c[k]);
        let lhs = ((x * x + y * y).sqrt() - big).powi(2) + z * z;
        assert!((lhs - small * small).abs() < 1e-5, "{p:?}: {lhs}");
    }
    assert_closed(&m);
    assert!(volume(&m) > 0.0);
    let exact = 2.0 * PI * PI * big * small * small;
    assert!((volume(&m) / exact - 1.0).abs() < 0.1);
}

#[test]
fn box_and_tetrahedron() {
    let b = box_mesh([-1.0, 0.0, 2.0], [1.0, 3.0, 2.5]);
    assert_eq!(b.triangle_count(), 12);
    assert_closed(&b);
    assert!((volume(&b) - 2.0 * 3.0 * 0.5).abs() < 1e-9);
    assert_eq!(b.bounds(), ([-1.0, 0.0, 2.0], [1.0, 3.0, 2.5]));

    let c = [0.0, 1.0, 2.0];
    let t = tetrahedron(c, 2.0);
    assert_eq!(t.triangle_count(), 4);
    assert_closed(&t);
    assert!(volume(&t) > 0.0);
    for &p in &t.positions {
        assert!((dist(p, c) - 2.0).abs() < 1e-6);
    }
}

#[test]
fn grid_counts_plane_orientation() {
    let g = grid(4, 3, 0.5, 7.0);
    assert_eq!(g.triangle_count(), 2 * 4 * 3);
    assert_eq!(g.positions.len(), 5 * 4);
    assert_eq!(g.bounds(), ([0.0, 0.0, 7.0], [2.0, 1.5, 7.0]));
    for i in 0..g.triangle_count() {
        let [a, b, c] = g.triangle(i);
        let nz = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        assert!((nz - 0.25).abs() < 1e-12, "triangle {i}: 2·area·nz = {nz}");
    }
}

#[test]
fn random_soup_bounds_edges_determinism() {
    let m = random_soup(7, 500, 10.0, 0.5);
    assert_eq!(m.triangle_count(), 500);
    assert_eq!(m.positions.len(), 1500);
    assert_eq!(m, random_soup(7, 500, 10.0, 0.5));
    assert_ne!(m, random_soup(8, 500, 10.0, 0.5));
    for i in 0..m.triangle_count() {
        let t = m.triangle(i);
        for k in 0..3 {
            assert!(t[k].iter().all(|&x| (0.0..=10.0).contains(&x)));
            assert!(dist(t[k], t[(k + 1) % 3]) <= 0.5 + 1e-5);
        }
    }
}

#[test]
fn degenerate_soup_has_every_kind() {
    let m = degenerate_soup(3, 100, 4.0);
    assert_eq!(m.triangle_count(), 100);
    assert_eq!(m, degenerate_soup(3, 100, 4.0));
    m.validate(std::path::Path::new("soup")).unwrap();
    let (lo, hi) = m.bounds();
    assert!(lo.iter().all(|&x| x >= 0.0) && hi.iter().all(|&x| x <= 4.0));
    let cross_is_zero = |i: usize| {
        let [a, b, c] = m.triangle(i);
        let (u, v) = (
            [0, 1, 2].map(|k| b[k] - a[k]),
            [0, 1, 2].map(|k| c[k] - a[k]),
        );
        u[1] * v[2] - u[2] * v[1] == 0.0
            && u[2] * v[0] - u[0] * v[2] == 0.0
            && u[0] * v[1] - u[1] * v[0] == 0.0
    };
    for i in 0..m.triangle_count() {
        let t = m.triangles[i];
        let p = m.triangle(i);
        match i % 5 {
            0 => assert!(
                cross_is_zero(i) && p[0] != p[1] && p[1] != p[2],
                "collinear {i}"
            ),
            1 => assert!(p[0] == p[1] && p[1] == p[2], "point {i}"),
            2 => assert!(t[0] == t[1] || t[1] == t[2] || t[0] == t[2], "repeated {i}"),
            3 => assert!(!cross_is_zero(i) || p[0] == p[1], "sliver {i}"),
            _ => assert!(!cross_is_zero(i), "normal {i}"),
        }
    }
}

#[test]
fn merge_offsets_indices() {
    let (a, b) = (tetrahedron([0.0; 3], 1.0), box_mesh([2.0; 3], [3.0; 3]));
    let m = merge(&[a.clone(), b.clone()]);
    assert_eq!(m.triangle_count(), 16);
    assert_eq!(m.positions.len(), 12);
    assert_eq!(m.triangle(4), b.triangle(0));
    assert_eq!(m.triangle(0), a.triangle(0));
    assert_closed(&m);
    assert_eq!(merge(&[]), Mesh::default());
}

#[test]
fn figueiredo_grid_has_the_papers_triangle_count() {
    let g = figueiredo_grid();
    assert_eq!(g.triangle_count(), 46_080);
    let (lo, hi) = g.bounds();
    assert_eq!((lo[0], hi[0], lo[2], hi[2]), (0.0, 1.0, 0.0, 0.0));
}
