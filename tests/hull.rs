//! Convex hull and hill climbing (Klosowski et al., *Efficient Collision Detection Using
//! Bounding Volume Hierarchies of k-DOPs*, 1998, section 4.1, method 1), checked against
//! oracles: exact `robust::orient3d` containment, Euler's formula, and brute-force maxima
//! of `d·p` over all input points computed where plain f64 arithmetic is exact.

mod common;

use meshcollide::hull::ConvexHull;
use meshcollide::rng::Rng;
use proptest::prelude::*;
use robust::{Coord3D, orient3d};
use std::collections::{HashMap, HashSet};

fn c3(p: [f64; 3]) -> Coord3D<f64> {
    Coord3D {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

/// Shewchuk's convention: positive iff `p` is below the counter-clockwise triangle, i.e.
/// strictly inside for an outward face.
fn inside(a: [f64; 3], b: [f64; 3], c: [f64; 3], p: [f64; 3]) -> f64 {
    orient3d(c3(a), c3(b), c3(c), c3(p))
}

// ---------- point sets ----------

const Q: f64 = (1u64 << 20) as f64;

/// Rounds to multiples of 2^-20 in [-1, 1]: with directions of the same form, every
/// `d·p` is computed exactly in f64 (|products| <= 2^40 units of 2^-40), so a plain
/// brute-force maximum is an exact oracle.
fn quantize(p: [f64; 3]) -> [f64; 3] {
    p.map(|x| (x * Q).round() / Q)
}

fn in_cube(rng: &mut Rng, n: usize) -> Vec<[f64; 3]> {
    (0..n)
        .map(|_| {
            [
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            ]
        })
        .collect()
}

fn in_ball(rng: &mut Rng, n: usize) -> Vec<[f64; 3]> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let p = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        if p.iter().map(|x| x * x).sum::<f64>() <= 1.0 {
            v.push(p);
        }
    }
    v
}

fn on_sphere(rng: &mut Rng, n: usize) -> Vec<[f64; 3]> {
    in_ball(rng, n)
        .into_iter()
        .map(|p| {
            let l = p.iter().map(|x| x * x).sum::<f64>().sqrt().max(1e-9);
            p.map(|x| x / l)
        })
        .collect()
}

/// Integer grid points: many duplicates, coplanar and collinear points.
fn grid(rng: &mut Rng, n: usize, side: u64) -> Vec<[f64; 3]> {
    (0..n)
        .map(|_| [0; 3].map(|_: i32| rng.below(side + 1) as f64))
        .collect()
}

fn direction(rng: &mut Rng) -> [f64; 3] {
    quantize([
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
        rng.range(-1.0, 1.0),
    ])
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

// ---------- oracles ----------

/// Structural checks against exact predicates; returns the number of undirected edges.
fn check_hull(points: &[[f64; 3]], hull: &ConvexHull) {
    let verts = hull.vertices();
    for (v, p) in verts.iter().enumerate() {
        assert_eq!(*p, points[hull.original_index(v as u32) as usize]);
        for &u in hull.neighbors(v as u32) {
            assert!(
                hull.neighbors(u).contains(&(v as u32)),
                "asymmetric adjacency"
            );
        }
    }
    let faces = hull.faces();
    if faces.is_empty() {
        return;
    }
    let p = |v: u32| verts[v as usize];
    // Containment: every input point on or inside every outward face.
    for f in faces {
        for (i, &q) in points.iter().enumerate() {
            assert!(
                inside(p(f[0]), p(f[1]), p(f[2]), q) >= 0.0,
                "input point {i} outside face {f:?}"
            );
        }
    }
    // Outward: the vertex centroid is strictly inside every face.
    let n = verts.len() as f64;
    let centroid = [0, 1, 2].map(|k| verts.iter().map(|v| v[k]).sum::<f64>() / n);
    for f in faces {
        assert!(inside(p(f[0]), p(f[1]), p(f[2]), centroid) > 0.0);
    }
    // Closed 2-manifold: each directed edge once, its reverse once; Euler characteristic 2.
    let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
    for (fi, f) in faces.iter().enumerate() {
        for i in 0..3 {
            let e = (f[i], f[(i + 1) % 3]);
            assert!(directed.insert(e, fi).is_none(), "edge {e:?} used twice");
        }
    }
    let used: HashSet<u32> = faces.iter().flatten().copied().collect();
    assert_eq!(used.len(), verts.len(), "every vertex on a face");
    let mut sharp: HashSet<(u32, u32)> = HashSet::new();
    for (&(a, b), &fi) in &directed {
        let gi = directed[&(b, a)];
        if a < b {
            let g = faces[gi];
            let opp = *g.iter().find(|&&w| w != a && w != b).unwrap();
            let f = faces[fi];
            if inside(p(f[0]), p(f[1]), p(f[2]), p(opp)) != 0.0 {
                sharp.insert((a, b));
            }
        }
    }
    let e = directed.len() / 2;
    assert_eq!(verts.len() as i64 - e as i64 + faces.len() as i64, 2);
    // Adjacency is exactly the set of non-flat edges (true polytope edges), and every
    // vertex is a polytope vertex (at least three polytope edges meet there).
    for v in 0..verts.len() as u32 {
        let mut want: Vec<u32> = sharp
            .iter()
            .filter_map(|&(a, b)| {
                if a == v {
                    Some(b)
                } else if b == v {
                    Some(a)
                } else {
                    None
                }
            })
            .collect();
        want.sort_unstable();
        assert_eq!(hull.neighbors(v), want.as_slice());
        assert!(want.len() >= 3, "vertex {v} is not a strict extreme point");
    }
}

/// Brute-force maximum of `d·p` over all input points (exact for quantized data).
fn brute_max(points: &[[f64; 3]], d: [f64; 3]) -> f64 {
    points
        .iter()
        .map(|&p| dot(d, p))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// Every start vertex, random directions: climbing reaches the brute-force maximum.
fn check_climb(points: &[[f64; 3]], hull: &ConvexHull, rng: &mut Rng, dirs: usize) {
    let nv = hull.vertices().len() as u64;
    for _ in 0..dirs {
        let d = direction(rng);
        let best = brute_max(points, d);
        let start = rng.below(nv) as u32;
        let (v, _) = hull.climb(d, start);
        assert_eq!(dot(d, hull.vertices()[v as usize]), best, "climb d={d:?}");
        let e = hull.extreme(d);
        assert_eq!(dot(d, hull.vertices()[e as usize]), best, "extreme d={d:?}");
        let (w, _) = hull.climb([-d[0], -d[1], -d[2]], v);
        assert_eq!(
            dot(d, hull.vertices()[w as usize]),
            -brute_max(points, d.map(|x| -x))
        );
    }
}

// ---------- tests ----------

#[test]
fn random_sets_are_valid_hulls_and_climb_exactly() {
    let mut rng = Rng::new(1);
    for round in 0..6u64 {
        for (name, pts) in [
            ("cube", in_cube(&mut rng, 1500)),
            ("ball", in_ball(&mut rng, 1500)),
            ("sphere", on_sphere(&mut rng, 600)),
        ] {
            let hull = ConvexHull::new(&pts);
            check_hull(&pts, &hull);
            assert!(hull.vertices().len() >= 4, "{name} {round}");
            // Quantized copy: brute force in f64 is exact.
            let q: Vec<[f64; 3]> = pts.iter().map(|&p| quantize(p)).collect();
            let hull = ConvexHull::new(&q);
            check_hull(&q, &hull);
            check_climb(&q, &hull, &mut rng, 500);
        }
    }
}

#[test]
fn unquantized_climb_matches_brute_force() {
    // Raw floats: plain dot products may round, so compare with the exact brute-force
    // argmax (`extreme`) and with a plain maximum up to rounding.
    let mut rng = Rng::new(2);
    for _ in 0..4 {
        let pts = on_sphere(&mut rng, 2000);
        let hull = ConvexHull::new(&pts);
        for _ in 0..1000 {
            let o = rng.unit_quaternion();
            let d = [o[1], o[2], o[3]];
            let start = rng.below(hull.vertices().len() as u64) as u32;
            let (v, _) = hull.climb(d, start);
            let e = hull.extreme(d);
            let (dv, de) = (
                dot(d, hull.vertices()[v as usize]),
                dot(d, hull.vertices()[e as usize]),
            );
            assert!(v == e || dv == de, "climb {v} vs extreme {e}");
            assert!((dv - brute_max(&pts, d)).abs() <= 1e-15);
        }
    }
}

#[test]
fn grid_points_with_duplicates_and_coplanarity() {
    let mut rng = Rng::new(3);
    for side in [1u64, 2, 3, 5, 8] {
        for _ in 0..10 {
            let pts = grid(&mut rng, 300, side);
            let hull = ConvexHull::new(&pts);
            check_hull(&pts, &hull);
            check_climb(&pts, &hull, &mut rng, 200);
        }
    }
}

#[test]
fn cube_corners_with_face_and_edge_points() {
    let mut pts = Vec::new();
    // Face and edge points first so they are seen before the corners.
    for i in 0..=4 {
        for j in 0..=4 {
            for k in 0..=4 {
                let on_boundary = [i, j, k].iter().any(|&c| c == 0 || c == 4);
                let corner = [i, j, k].iter().all(|&c| c == 0 || c == 4);
                if on_boundary && !corner {
                    pts.push([i as f64, j as f64, k as f64]);
                }
            }
        }
    }
    for c in 0..8 {
        pts.push([(c & 1) * 4, (c >> 1 & 1) * 4, (c >> 2 & 1) * 4].map(|x| x as f64));
    }
    pts.push([2.0, 2.0, 2.0]);
    let hull = ConvexHull::new(&pts);
    check_hull(&pts, &hull);
    assert_eq!(hull.vertices().len(), 8);
    for v in 0..8 {
        assert!(hull.vertices()[v].iter().all(|&x| x == 0.0 || x == 4.0));
        assert_eq!(hull.neighbors(v as u32).len(), 3);
    }
    assert_eq!(hull.faces().len(), 12);
    check_climb(&pts, &hull, &mut Rng::new(4), 500);
}

#[test]
fn empty_point_and_duplicates() {
    let hull = ConvexHull::new(&[]);
    assert!(hull.vertices().is_empty() && hull.faces().is_empty());
    let hull = ConvexHull::new(&[[0.5, -1.0, 2.0]]);
    assert_eq!(hull.vertices(), &[[0.5, -1.0, 2.0]]);
    assert_eq!(hull.climb([1.0, 0.0, 0.0], 0), (0, 0));
    let hull = ConvexHull::new(&[[3.0, 3.0, 3.0]; 100]);
    assert_eq!(hull.vertices().len(), 1);
    assert!(hull.neighbors(0).is_empty());
}

#[test]
fn collinear_points_give_the_two_endpoints() {
    let mut rng = Rng::new(5);
    let mut pts: Vec<[f64; 3]> = (0..50)
        .map(|_| {
            let t = rng.below(21) as f64 - 10.0;
            [1.0 + 2.0 * t, -3.0 + t, 0.5 - 4.0 * t]
        })
        .collect();
    pts.push([-19.0, -13.0, 40.5]); // t = -10
    pts.push([21.0, 7.0, -39.5]); // t = 10
    let hull = ConvexHull::new(&pts);
    assert_eq!(hull.vertices().len(), 2);
    let mut ends: Vec<[f64; 3]> = hull.vertices().to_vec();
    ends.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(ends, vec![[-19.0, -13.0, 40.5], [21.0, 7.0, -39.5]]);
    assert_eq!(hull.neighbors(0), &[1]);
    check_climb(&pts, &hull, &mut rng, 200);
}

#[test]
fn coplanar_points_give_a_polygon_cycle() {
    let mut rng = Rng::new(6);
    // An axis-aligned square grid, and the same grid on a tilted plane x + 2y + 3z = 6
    // (which needs a non-default projection).
    let square: Vec<[f64; 3]> = (0..=6)
        .flat_map(|i| (0..=6).map(move |j| [i as f64, j as f64, 1.0]))
        .collect();
    let tilted: Vec<[f64; 3]> = (0..=6)
        .flat_map(|i| {
            (0..=6).map(move |j| [6.0 - 2.0 * i as f64 - 3.0 * j as f64, i as f64, j as f64])
        })
        .collect();
    for pts in [square, tilted] {
        let hull = ConvexHull::new(&pts);
        check_hull(&pts, &hull);
        assert!(hull.faces().is_empty());
        assert_eq!(
            hull.vertices().len(),
            4,
            "corners only, no collinear boundary points"
        );
        for v in 0..4 {
            assert_eq!(hull.neighbors(v).len(), 2);
        }
        check_climb(&pts, &hull, &mut rng, 300);
    }
    // Random coplanar points (on z = 0.25): a convex polygon.
    let pts: Vec<[f64; 3]> = in_ball(&mut rng, 500)
        .into_iter()
        .map(|p| quantize([p[0], p[1], 0.25]))
        .collect();
    let hull = ConvexHull::new(&pts);
    let m = hull.vertices().len() as u32;
    assert!(m >= 3);
    // The adjacency is a single cycle through all vertices.
    let (mut prev, mut cur, mut steps) = (u32::MAX, 0u32, 0);
    loop {
        let nb = hull.neighbors(cur);
        assert_eq!(nb.len(), 2);
        let next = if nb[0] != prev { nb[0] } else { nb[1] };
        (prev, cur) = (cur, next);
        steps += 1;
        if cur == 0 {
            break;
        }
        assert!(steps <= m);
    }
    assert_eq!(steps, m);
    check_climb(&pts, &hull, &mut rng, 500);
}

#[test]
fn coherent_rotation_needs_few_moves() {
    // Tumbling (4.1): re-find the extremes of 13 directions after small rotations, starting
    // from the previous extremal vertices; every update must equal the brute-force result.
    let mut rng = Rng::new(8);
    let pts: Vec<[f64; 3]> = on_sphere(&mut rng, 3000)
        .into_iter()
        .map(quantize)
        .collect();
    let hull = ConvexHull::new(&pts);
    let dirs: Vec<[f64; 3]> = (0..13).map(|_| direction(&mut rng)).collect();
    let mut cur: Vec<u32> = dirs.iter().map(|&d| hull.extreme(d)).collect();
    let mut total = 0;
    for step in 0..200 {
        let angle = step as f64 * 0.01;
        let (s, c) = angle.sin_cos();
        for (k, d) in dirs.iter().enumerate() {
            // Rotate about z, then quantize so the brute force stays exact.
            let r = quantize([c * d[0] - s * d[1], s * d[0] + c * d[1], d[2]]);
            let (v, moves) = hull.climb(r, cur[k]);
            assert_eq!(dot(r, hull.vertices()[v as usize]), brute_max(&pts, r));
            cur[k] = v;
            total += moves;
        }
    }
    assert!(
        total < 200 * 13 * 5,
        "average moves per update too high: {total}"
    );
}

#[test]
fn shared_meshes_give_valid_hulls() {
    // Real vertex sets: CAD (many coplanar points) and scanned meshes, if present.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/meshes/");
    let mut rng = Rng::new(11);
    for name in ["fandisk.obj", "beetle.obj", "spot.obj"] {
        let Some(pts) = read_obj_vertices(&format!("{dir}{name}")) else {
            eprintln!("skipping {name}: not found");
            continue;
        };
        let hull = ConvexHull::new(&pts);
        check_hull(&pts, &hull);
        // Brute force is not exact in plain f64 here, so compare with `extreme` and a
        // rounding-level tolerance.
        for _ in 0..500 {
            let q = rng.unit_quaternion();
            let d = [q[1], q[2], q[3]];
            let start = rng.below(hull.vertices().len() as u64) as u32;
            let (v, _) = hull.climb(d, start);
            let e = hull.extreme(d);
            let dv = dot(d, hull.vertices()[v as usize]);
            assert!(
                v == e || dv == dot(d, hull.vertices()[e as usize]),
                "{name}"
            );
            assert!(
                (dv - brute_max(&pts, d)).abs() <= 1e-14 * (1.0 + dv.abs()),
                "{name}"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(common::proptest_cases(256)))]

    #[test]
    fn small_integer_sets(raw in prop::collection::vec((-3i32..=3, -3i32..=3, -3i32..=3), 0..40),
                          dirs in prop::collection::vec((-5i32..=5, -5i32..=5, -5i32..=5), 1..20)) {
        let pts: Vec<[f64; 3]> = raw.iter().map(|&(x, y, z)| [x as f64, y as f64, z as f64]).collect();
        let hull = ConvexHull::new(&pts);
        check_hull(&pts, &hull);
        prop_assert_eq!(hull.vertices().is_empty(), pts.is_empty());
        let n = hull.vertices().len() as u32;
        for (i, &(x, y, z)) in dirs.iter().enumerate() {
            if n == 0 { break; }
            let d = [x as f64, y as f64, z as f64];
            let (v, _) = hull.climb(d, i as u32 % n);
            prop_assert_eq!(dot(d, hull.vertices()[v as usize]), brute_max(&pts, d));
        }
        // Strict extremality: no hull vertex lies in the hull of the other points.
        if !hull.faces().is_empty() {
            for v in 0..n {
                let p = hull.vertices()[v as usize];
                let others: Vec<[f64; 3]> = pts.iter().copied().filter(|&q| q != p).collect();
                let h = ConvexHull::new(&others);
                if !h.faces().is_empty() {
                    let w = h.vertices();
                    prop_assert!(h.faces().iter().any(|f| inside(w[f[0] as usize], w[f[1] as usize], w[f[2] as usize], p) < 0.0));
                }
            }
        }
    }
}

// ---------- timing (run with `--release -- --ignored --nocapture`) ----------

fn read_obj_vertices(path: &str) -> Option<Vec<[f64; 3]>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|l| l.strip_prefix("v "))
            .map(|l| {
                let mut it = l.split_whitespace().map(|x| x.parse::<f64>().unwrap());
                [it.next().unwrap(), it.next().unwrap(), it.next().unwrap()]
            })
            .collect(),
    )
}

fn read_ascii_ply_gz_vertices(path: &str) -> Option<Vec<[f64; 3]>> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .ok()?;
    let mut lines = text.lines();
    let mut count = 0;
    for l in lines.by_ref() {
        if let Some(n) = l.strip_prefix("element vertex ") {
            count = n.trim().parse().ok()?;
        }
        if l.trim() == "end_header" {
            break;
        }
    }
    Some(
        lines
            .take(count)
            .map(|l| {
                let mut it = l.split_whitespace().map(|x| x.parse::<f64>().unwrap());
                [it.next().unwrap(), it.next().unwrap(), it.next().unwrap()]
            })
            .collect(),
    )
}

#[test]
#[ignore = "timing only: run with --release -- --ignored --nocapture"]
fn timing() {
    let time = |name: &str, pts: &[[f64; 3]]| {
        let t = std::time::Instant::now();
        let hull = ConvexHull::new(pts);
        let build = t.elapsed();
        let mut rng = Rng::new(9);
        let dirs: Vec<[f64; 3]> = (0..10000)
            .map(|_| {
                let q = rng.unit_quaternion();
                [q[1], q[2], q[3]]
            })
            .collect();
        let t = std::time::Instant::now();
        let mut moves = 0;
        let mut v = 0;
        for d in &dirs {
            let (w, m) = hull.climb(*d, v);
            v = w;
            moves += m;
        }
        let climb = t.elapsed();
        println!(
            "{name:>16}: {:>7} points -> {:>6} hull vertices, {:>6} faces in {:>8.2?}; \
             10k random-direction climbs {:>8.2?} ({:.1} moves each)",
            pts.len(),
            hull.vertices().len(),
            hull.faces().len(),
            build,
            climb,
            moves as f64 / dirs.len() as f64
        );
    };
    let mut rng = Rng::new(10);
    for n in [10_000, 100_000] {
        time("ball", &in_ball(&mut rng, n));
        time("sphere", &on_sphere(&mut rng, n));
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/meshes/");
    if let Some(p) = read_obj_vertices(&format!("{dir}stanford-bunny.obj")) {
        time("bunny", &p);
    }
    if let Some(p) = read_ascii_ply_gz_vertices(&format!("{dir}dragon-vrip.ply.gz")) {
        time("dragon", &p);
    }
    for name in ["fandisk.obj", "rocker-arm.obj", "armadillo.obj"] {
        if let Some(p) = read_obj_vertices(&format!("{dir}{name}")) {
            time(name, &p);
        }
    }
}

/// The climb table's start leads to the brute-force maximum (quantized points: exact f64
/// brute force), and is near it: far fewer moves than a climb from a random vertex.
#[test]
fn climb_table_starts_reach_the_maximum_in_few_moves() {
    use meshcollide::hull::ClimbTable;
    let mut rng = Rng::new(5);
    let pts: Vec<[f64; 3]> = on_sphere(&mut rng, 3000)
        .iter()
        .map(|&p| quantize(p))
        .collect();
    let hull = ConvexHull::new(&pts);
    let table = ClimbTable::new(&hull);
    let (mut from_table, mut from_random) = (0u64, 0u64);
    for _ in 0..2000 {
        let d = direction(&mut rng);
        let (v, moves) = hull.climb(d, table.start(d));
        assert_eq!(dot(d, hull.vertices()[v as usize]), brute_max(&pts, d));
        from_table += moves as u64;
        let start = rng.below(hull.vertices().len() as u64) as u32;
        from_random += hull.climb(d, start).1 as u64;
    }
    assert!(
        from_table * 4 < from_random,
        "table {from_table} moves, random starts {from_random}"
    );
    // Axis directions and their negatives land on their own faces; zero and an empty table
    // give vertex 0.
    for k in 0..3 {
        for s in [1.0, -1.0] {
            let mut d = [0.0; 3];
            d[k] = s;
            assert_eq!(
                dot(d, hull.vertices()[hull.climb(d, table.start(d)).0 as usize]),
                brute_max(&pts, d)
            );
        }
    }
    // Zero falls back to the first cell (+x face, lowest corner).
    assert_eq!(table.start([0.0; 3]), table.start([1.0, -1.0, -1.0]));
    assert_eq!(
        ClimbTable::new(&ConvexHull::new(&[])).start([1.0, 2.0, 3.0]),
        0
    );
}
