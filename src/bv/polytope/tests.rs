//! The fixed-capacity clipper against the retired one (`reference`) and against the slabs
//! themselves, on random, grid, planar, collinear and degenerate k-DOPs; and a timing run.

use super::clipper::{Clipper, bits};
use super::*;
use crate::rng::Rng;

fn random_points(rng: &mut Rng, n: usize) -> Vec<[f64; 3]> {
    (0..n)
        .map(|_| {
            [
                rng.range(-1.0, 1.0),
                rng.range(-2.0, 0.5),
                rng.range(0.0, 3.0),
            ]
        })
        .collect()
}

/// The polytope of exact f64 extents: every vertex satisfies every slab, and every slab
/// is attained by some vertex (the k-DOP of the vertices is the k-DOP itself).
fn check_vertices<const H: usize>(pts: &[[f64; 3]]) {
    let (lo, hi) = Kdop::<H>::extents_f64(pts.iter().copied());
    let verts = Polytope::from_slabs(axes(H), &lo, &hi).vertices();
    let scale = lo.iter().chain(&hi).fold(1.0f64, |m, v| m.max(v.abs()));
    let tol = 1e-9 * scale;
    let (vlo, vhi) = Kdop::<H>::extents_f64(verts.iter().copied());
    for i in 0..H {
        assert!(
            vlo[i] >= lo[i] - tol && vhi[i] <= hi[i] + tol,
            "slab {i} violated"
        );
        assert!(
            (vlo[i] - lo[i]).abs() < tol,
            "slab {i} min not attained (H={H})"
        );
        assert!(
            (vhi[i] - hi[i]).abs() < tol,
            "slab {i} max not attained (H={H})"
        );
    }
}

#[test]
fn vertices_are_tight_for_random_sets() {
    let mut rng = Rng::new(7);
    for n in [1, 2, 3, 4, 10, 100] {
        for _ in 0..20 {
            let pts = random_points(&mut rng, n);
            check_vertices::<3>(&pts);
            check_vertices::<7>(&pts);
            check_vertices::<9>(&pts);
            check_vertices::<13>(&pts);
        }
    }
}

#[test]
fn flat_kdops_keep_their_vertices() {
    // A planar point set: the polytope is a polygon.
    let pts = [
        [0.0, 0.0, 1.0],
        [2.0, 0.5, 1.0],
        [0.3, 1.7, 1.0],
        [1.0, 1.0, 1.0],
    ];
    check_vertices::<13>(&pts);
    check_vertices::<9>(&pts);
    let (lo, hi) = Kdop::<13>::extents_f64(pts);
    assert!(Polytope::from_slabs(axes(13), &lo, &hi).volume() < 1e-12);
    // Rounded outward to f32 it is a thin slab, not empty.
    assert!(Kdop::<13>::from_points(pts).volume() < 1e-5);
}

#[test]
fn volume_of_box_and_ordering_by_k() {
    let b = Kdop::<3>::from_points([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]);
    assert!((b.volume() - 6.0).abs() < 1e-5);
    // The 14-DOP of a cube's corners is the cube; of a tetrahedron it cuts corners.
    let tet = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    let v14 = Kdop::<7>::from_points(tet).volume();
    assert!((v14 - 1.0 / 6.0).abs() < 1e-5, "{v14}");
    let mut rng = Rng::new(3);
    for _ in 0..50 {
        let pts = random_points(&mut rng, 30);
        let v6 = Kdop::<3>::from_points(pts.iter().copied()).volume();
        let v14 = Kdop::<7>::from_points(pts.iter().copied()).volume();
        let v18 = Kdop::<9>::from_points(pts.iter().copied()).volume();
        let v26 = Kdop::<13>::from_points(pts.iter().copied()).volume();
        let eps = 1e-6 * v6;
        assert!(v26 <= v18 + eps && v26 <= v14 + eps && v18 <= v6 + eps && v14 <= v6 + eps);
    }
}

/// Every point of `a` has one of `b` within `tol` (per coordinate).
fn covered(a: &[[f64; 3]], b: &[[f64; 3]], tol: f64) -> bool {
    a.iter()
        .all(|p| b.iter().any(|q| (0..3).all(|k| (p[k] - q[k]).abs() <= tol)))
}

/// The fixed-capacity clipper against the reference: same vertex set (both ways) up to
/// 1e-9 of the scale, same volume, and a closed surface (every directed edge of a face
/// is matched by the reverse edge of another).
fn compare(ax: &[[i8; 3]], lo: &[f64], hi: &[f64], what: &str) {
    let old = reference::OldPolytope::from_slabs(ax, lo, hi);
    let new = Polytope::from_slabs(ax, lo, hi);
    let scale = lo
        .iter()
        .chain(hi)
        .fold(0.0f64, |m, v| m.max(v.abs()))
        .max(1e-300);
    let tol = 1e-9 * scale;
    let (vo, vn) = (old.vertices(), new.vertices());
    let ctx = || format!("{what}: lo={lo:?} hi={hi:?}\nold={vo:?}\nnew={vn:?}");
    assert_eq!(vo.is_empty(), vn.is_empty(), "emptiness, {}", ctx());
    assert!(covered(&vo, &vn, tol), "old vertex missing, {}", ctx());
    assert!(covered(&vn, &vo, tol), "new vertex not in old, {}", ctx());
    let (wo, wn) = (old.volume(), new.volume());
    assert!(
        (wo - wn).abs() <= 1e-9 * scale.powi(3),
        "volume {wo} vs {wn}, {}",
        ctx()
    );
    let mut c = Box::new(Clipper::new());
    if c.run(ax, lo, hi) {
        assert_eq!(bits(c.live).count(), c.live.count_ones() as usize);
        let mut edges = std::collections::HashMap::<(u8, u8), i32>::new();
        for f in 0..c.nf {
            let face = c.face(f);
            assert!(face.len() >= 2);
            for j in 0..face.len() {
                let (a, b) = (face[j], face[(j + 1) % face.len()]);
                *edges.entry((a.min(b), a.max(b))).or_default() += if a < b { 1 } else { -1 };
            }
        }
        assert!(edges.values().all(|&e| e == 0), "open surface, {}", ctx());
        assert!(c.faces[..c.nf].iter().all(|f| f.len >= 2));
    }
}

fn compare_points<const H: usize>(pts: &[[f64; 3]], what: &str) {
    let (lo, hi) = Kdop::<H>::extents_f64(pts.iter().copied());
    compare(axes(H), &lo, &hi, &format!("{what} exact H={H}"));
    let k = Kdop::<H>::from_points(pts.iter().copied());
    let (lo, hi) = (k.min.map(f64::from), k.max.map(f64::from));
    compare(axes(H), &lo, &hi, &format!("{what} f32 H={H}"));
    let mut fast = vec![[9.0; 3]];
    kdop_vertices(&k, &mut fast);
    assert_eq!(fast, Polytope::of_kdop(&k).vertices());
}

fn compare_all(pts: &[[f64; 3]], what: &str) {
    compare_points::<3>(pts, what);
    compare_points::<7>(pts, what);
    compare_points::<9>(pts, what);
    compare_points::<13>(pts, what);
}

#[test]
fn matches_reference_on_random_kdops() {
    let mut rng = Rng::new(11);
    for round in 0..600 {
        let n = [1, 2, 3, 4, 5, 8, 20, 60][round % 8];
        let off = [0.0, 0.0, 1e3, -7.5][round % 4];
        let shift = |p: [f64; 3]| p.map(|c| c + off);
        // General position.
        let pts: Vec<_> = random_points(&mut rng, n).into_iter().map(shift).collect();
        compare_all(&pts, "random");
        // Small integer grid: many exact coincidences (planes through vertices).
        let grid: Vec<_> = (0..n)
            .map(|_| [0; 3].map(|_| rng.below(4) as f64))
            .map(shift)
            .collect();
        compare_all(&grid, "grid");
        // Planar: an axis plane, a corner-diagonal plane, an edge-diagonal plane.
        let flat: Vec<_> = (0..n)
            .map(|_| {
                let (x, y) = (rng.below(5) as f64, rng.below(5) as f64);
                match round % 3 {
                    0 => [x, y, 2.0],
                    1 => [x, y, 3.0 - x - y],
                    _ => [x, 1.0 - x, y],
                }
            })
            .map(shift)
            .collect();
        compare_all(&flat, "planar");
        let flat: Vec<_> = random_points(&mut rng, n)
            .into_iter()
            .map(|[x, y, _]| [x, y, 0.5 - x - y])
            .collect();
        compare_all(&flat, "planar-diag");
        // Collinear: along an axis, an edge diagonal, a corner diagonal.
        let line: Vec<_> = (0..n)
            .map(|_| {
                let t = rng.range(-1.0, 1.0);
                match round % 3 {
                    0 => [t, 0.25, -0.5],
                    1 => [t, t, 0.5],
                    _ => [t, -t, t],
                }
            })
            .map(shift)
            .collect();
        compare_all(&line, "collinear");
    }
    // Independent random slabs: loose, tight, contradictory (empty), flat.
    for h in [3usize, 7, 9, 13] {
        let ax = axes(h);
        for round in 0..2000 {
            let mut lo = vec![0.0; h];
            let mut hi = vec![0.0; h];
            for i in 0..h {
                let w = if i < 3 { 1.0 } else { 2.0 };
                let (a, b) = (rng.range(-w, w), rng.range(-w, w));
                (lo[i], hi[i]) = (a.min(b), a.max(b));
                if round % 5 == 0 && rng.below(3) == 0 {
                    lo[i] = hi[i];
                }
                if round % 7 == 0 {
                    (lo[i], hi[i]) = (lo[i].round(), hi[i].round());
                }
            }
            compare(ax, &lo, &hi, "slabs");
        }
    }
}

#[test]
fn degenerate_kdops_match_reference() {
    compare_all(&[[0.3, -0.2, 0.7]], "point");
    compare_all(&[[0.0, 0.0, 0.0]], "origin");
    compare_all(&[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], "double point");
    compare_all(&[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], "diagonal segment");
    compare_all(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]], "axis segment");
    compare_all(
        &[[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]],
        "triangle",
    );
    let cube: Vec<_> = (0..8)
        .map(|v| [v & 1, v >> 1 & 1, v >> 2 & 1].map(f64::from))
        .collect();
    compare_all(&cube, "cube");
    let octa = [
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
    ];
    compare_all(&octa, "octahedron");
    assert!(Polytope::of_kdop(&Kdop::<9>::EMPTY).vertices().is_empty());
    let mut out = vec![[1.0; 3]];
    kdop_vertices(&Kdop::<13>::EMPTY, &mut out);
    assert!(out.is_empty());
}

/// Old vs new per polytope: `cargo test --release --lib polytope::tests::timing --
/// --ignored --nocapture`. With `POLYTOPE_TIMING_DRAGON=1` (and the dragon present),
/// also over all nodes of its 18-DOP hierarchy (`=all`: and of its 26-DOP one).
#[test]
#[ignore = "timing only"]
fn timing() {
    use std::hint::black_box;
    use std::time::Instant;
    fn run<const H: usize>(kdops: &[Kdop<H>], what: &str) {
        let t = Instant::now();
        let mut n_old = 0;
        for k in kdops {
            n_old += black_box(reference::OldPolytope::of_kdop(k))
                .vertices()
                .len();
        }
        let old = t.elapsed().as_secs_f64() * 1e6 / kdops.len() as f64;
        let t = Instant::now();
        let mut n_new = 0;
        for k in kdops {
            n_new += black_box(Polytope::of_kdop(k)).vertices().len();
        }
        let new = t.elapsed().as_secs_f64() * 1e6 / kdops.len() as f64;
        let t = Instant::now();
        let mut out = Vec::new();
        let mut n_fast = 0;
        for k in kdops {
            kdop_vertices(black_box(k), &mut out);
            n_fast += out.len();
        }
        let fast = t.elapsed().as_secs_f64() * 1e6 / kdops.len() as f64;
        println!(
            "{what:>14} k={:>2} ({} polytopes): old {old:.2} µs, of_kdop+vertices \
             {new:.2} µs ({:.1}x), kdop_vertices {fast:.2} µs ({:.1}x); \
             vertices {n_old} / {n_new} / {n_fast}",
            2 * H,
            kdops.len(),
            old / new,
            old / fast
        );
    }
    fn random<const H: usize>(rng: &mut Rng) -> Vec<Kdop<H>> {
        (0..20000)
            .map(|i| Kdop::<H>::from_points(random_points(rng, [3, 6, 30, 200][i % 4])))
            .collect()
    }
    let mut rng = Rng::new(5);
    run(&random::<3>(&mut rng), "random");
    run(&random::<7>(&mut rng), "random");
    run(&random::<9>(&mut rng), "random");
    run(&random::<13>(&mut rng), "random");
    let path = std::path::Path::new("/work/shared/meshes/dragon-vrip.ply.gz");
    // The dragon's hierarchies take a while to build: opt in.
    if std::env::var_os("POLYTOPE_TIMING_DRAGON").is_none() {
        return;
    }
    if let Ok(mesh) = crate::mesh::load(path) {
        let bvh = crate::bvh::Bvh::<9>::build(&mesh, &crate::bvh::BuildOptions::default());
        let kdops: Vec<_> = bvh.nodes.iter().map(|n| n.bv).collect();
        run(&kdops, "dragon nodes");
        if std::env::var("POLYTOPE_TIMING_DRAGON").as_deref() == Ok("all") {
            let bvh = crate::bvh::Bvh::<13>::build(&mesh, &crate::bvh::BuildOptions::default());
            let kdops: Vec<_> = bvh.nodes.iter().map(|n| n.bv).collect();
            run(&kdops, "dragon nodes");
        }
    }
}
