//! Unit tests of the triangle distance: candidates, filters and the exact fallback.

use super::*;
use crate::rng::Rng;

fn exact_runs() -> usize {
    EXACT_RUNS.with(|c| c.get())
}

fn random_tri(r: &mut Rng, c: f64, s: f64) -> [P3; 3] {
    [0; 3].map(|_| [0; 3].map(|_| c + s * r.range(-1.0, 1.0)))
}

#[test]
fn candidate_order_is_fixed() {
    let all: Vec<Feature> = (0..CANDIDATES).map(Feature::of_index).collect();
    assert_eq!(all[0], Feature::VertexVertex { a: 0, b: 0 });
    assert_eq!(all[5], Feature::VertexVertex { a: 1, b: 2 });
    assert_eq!(all[9], Feature::VertexEdge { a: 0, b: 0 });
    assert_eq!(all[26], Feature::EdgeVertex { a: 2, b: 2 });
    assert_eq!(all[35], Feature::EdgeEdge { a: 2, b: 2 });
    assert_eq!(all[36], Feature::VertexFace { a: 0 });
    assert_eq!(all[41], Feature::FaceVertex { b: 2 });
    let mut dedup = all.clone();
    dedup.dedup();
    assert_eq!(dedup.len(), CANDIDATES);
}

/// Generic (random real) pairs: the filters decide `within` away from the distance and
/// give tight distance bounds without exact arithmetic, almost always; everything agrees
/// with the exact path.
#[test]
fn filter_decides_generic_pairs() {
    let mut r = Rng::new(5);
    let (mut runs, mut probes) = (0, 0);
    for i in 0..400 {
        let c = if i % 2 == 0 { 0.0 } else { 1e7 };
        let (a, b) = (random_tri(&mut r, c, 1.0), random_tri(&mut r, c + 0.7, 1.0));
        let before = exact_runs();
        let d = tri_tri_distance(&a, &b);
        runs += exact_runs() - before;
        probes += 1;
        let (lo, hi) = (d.lower(), d.upper());
        assert!(lo <= hi && hi - lo <= 1e-12 * hi, "{lo} {hi} {a:?} {b:?}");
        let v = d.value();
        // One ulp from the distance no filter can decide: agreement only.
        for eps in [v.next_down(), v, v.next_up()] {
            assert_eq!(
                tri_tri_within(&a, &b, eps),
                tri_tri_within_exact(&a, &b, eps)
            );
        }
        let before = exact_runs();
        for eps in [0.5 * v, 2.0 * v, v * (1.0 - 1e-6), v * (1.0 + 1e-6)] {
            assert_eq!(
                tri_tri_within(&a, &b, eps),
                tri_tri_within_exact(&a, &b, eps)
            );
            probes += 1;
        }
        runs += exact_runs() - before;
        assert_eq!(d.feature(), d.feature_exact());
    }
    assert!(runs * 50 < probes, "{runs} exact runs in {probes} probes");
}

/// Grid pairs (exact zeros everywhere): the tight directed rounding keeps them decided.
#[test]
fn filter_decides_grid_pairs() {
    let mut r = Rng::new(6);
    let before = exact_runs();
    let mut probes = 0;
    for _ in 0..400 {
        let g = |r: &mut Rng| [0; 3].map(|_| [0; 3].map(|_| (r.below(9) as f64) - 4.0));
        let (a, b) = (g(&mut r), g(&mut r));
        let d = tri_tri_distance(&a, &b);
        for eps in [0.0, 1.0, 2.5] {
            assert_eq!(
                tri_tri_within(&a, &b, eps),
                tri_tri_within_exact(&a, &b, eps)
            );
            probes += 1;
        }
        assert_eq!(d.feature(), d.feature_exact());
    }
    let runs = exact_runs() - before;
    assert!(runs * 20 < probes, "{runs} exact runs in {probes} probes");
}

#[test]
fn eps_edge_cases() {
    let a = [[0.0; 3]; 3];
    let b = [[3.0, 4.0, 0.0]; 3];
    assert!(!tri_tri_within(&a, &b, -1.0));
    assert!(!tri_tri_within(&a, &b, f64::NAN));
    assert!(tri_tri_within(&a, &b, f64::INFINITY));
    assert!(tri_tri_within(&a, &b, 1e300)); // eps² overflows f64; exact anyway
    assert!(tri_tri_within(&a, &b, 5.0));
    assert!(!tri_tri_within(&a, &b, 5f64.next_down()));
    assert!(!tri_tri_within(&a, &b, 0.0));
    assert!(tri_tri_within(&a, &a, 0.0));
}

/// Rough cost of the filtered paths (run with `--ignored --nocapture`).
#[test]
#[ignore = "timing only: run with --release -- --ignored --nocapture"]
fn timing() {
    let mut r = Rng::new(9);
    let pairs: Vec<_> = (0..20000)
        .map(|_| (random_tri(&mut r, 0.0, 1.0), random_tri(&mut r, 1.5, 1.0)))
        .collect();
    let t = std::time::Instant::now();
    let mut hits = 0;
    for (a, b) in &pairs {
        hits += tri_tri_within(a, b, 0.3) as usize;
    }
    let within = t.elapsed().as_secs_f64() / pairs.len() as f64;
    let t = std::time::Instant::now();
    let mut s = 0.0;
    let runs = exact_runs();
    for (a, b) in &pairs {
        s += tri_tri_distance(a, b).upper();
    }
    let dist = t.elapsed().as_secs_f64() / pairs.len() as f64;
    println!("{} exact runs", exact_runs() - runs);
    let t = std::time::Instant::now();
    for (a, b) in pairs.iter().take(2000) {
        s += tri_tri_distance(a, b).value();
    }
    let exact = t.elapsed().as_secs_f64() / 2000.0;
    println!(
        "within {:.2} µs ({hits} hits), distance {:.2} µs, with exact value {:.2} µs ({s})",
        within * 1e6,
        dist * 1e6,
        exact * 1e6
    );
}

/// The corner-pair acceptance at its edge: corners exactly `ε` apart are within `ε` and not
/// within the next f64 below it, far from the origin too, and a pair of triangles whose
/// corners are all farther than `ε` but whose edges pass within it is still accepted.
#[test]
fn corner_pairs_at_the_edge_of_eps() {
    for off in [0.0, 1e7, -3.0e5] {
        let a = [[off, 0.0, 0.0], [off - 1.0, 0.0, 0.0], [off, -1.0, 0.0]];
        let b = [
            [off + 0.5, 0.0, 0.0],
            [off + 1.5, 0.0, 0.0],
            [off + 0.5, 1.0, 0.0],
        ];
        assert!(tri_tri_within(&a, &b, 0.5));
        assert!(!tri_tri_within(&a, &b, 0.5f64.next_down()));
        assert_eq!(
            tri_tri_within(&a, &b, 0.5),
            tri_tri_within_exact(&a, &b, 0.5)
        );
    }
    // Two crossed segments-like triangles 0.25 apart in z: corners ≥ 0.5 apart.
    let a = [[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]];
    let b = [[0.0, -1.0, 0.25], [0.0, 1.0, 0.25], [0.0, 0.0, 0.25]];
    assert!(tri_tri_within(&a, &b, 0.25));
    assert!(!tri_tri_within(&a, &b, 0.25f64.next_down()));
}

/// The intervals [`fast_bounds`] certifies its one candidate with
/// ([`Pre::for_candidate`]: only what that candidate reads) give every candidate exactly
/// what the whole [`Pre`] gives it, near and 10⁷ from the origin, on generic pairs and on
/// pairs sharing corners (valid, invalid and undecided candidates all occur).
#[test]
fn one_candidates_intervals_equal_the_whole_sets() {
    let mut r = Rng::new(17);
    let mut certain = 0;
    for i in 0..300 {
        let c = [0.0, 1e7, -3.5e4][i % 3];
        let a = random_tri(&mut r, c, 1.0);
        let mut b = random_tri(&mut r, c + 0.5 * (i % 4) as f64, 1.0);
        if i % 5 == 0 {
            b[0] = a[1];
        }
        let whole = Pre::<Iv>::new(&a, &b);
        for k in 0..CANDIDATES {
            let got = candidate(&Pre::<Iv>::for_candidate(&a, &b, k), k);
            assert_eq!(got, candidate(&whole, k), "pair {i}, candidate {k}");
            certain += matches!(got, Some((true, ..))) as usize;
        }
    }
    assert!(certain > 300, "{certain}");
}

/// The f64 guess ([`guess::closest_features`]) names a least candidate: that candidate's
/// certified value brackets the exact distance's square, near and 10⁷ from the origin, on
/// generic pairs and on pairs whose closest features are a vertex and a vertex, a vertex and
/// an edge, two edges and a vertex over a face (every family is met).
#[test]
fn the_guess_names_a_least_candidate() {
    let mut r = Rng::new(23);
    let mut families = [0usize; 6];
    for i in 0..1200 {
        let c = [0.0, 1e7, -2.5e3][i % 3];
        let a = random_tri(&mut r, c, 1.0);
        let mut b = random_tri(&mut r, c + 2.5, 1.0);
        match i % 4 {
            // B's corner just past A's corner along their centroids' line (vertex–vertex
            // or vertex–edge), or past the middle of A's edge (edge–vertex, edge–edge).
            1 | 2 => {
                let (p, q) = (a[i % 3], a[(i + 1) % 3]);
                let t = if i % 4 == 1 { 0.0 } else { 0.5 };
                let m: P3 = std::array::from_fn(|k| p[k] + (q[k] - p[k]) * t);
                let g: P3 = std::array::from_fn(|k| (a[0][k] + a[1][k] + a[2][k]) / 3.0);
                let out: P3 = std::array::from_fn(|k| m[k] + 0.05 * (m[k] - g[k]));
                let shift: P3 = std::array::from_fn(|k| out[k] - b[0][k]);
                let far: P3 = std::array::from_fn(|k| 3.0 * (m[k] - g[k]));
                b = [0, 1, 2].map(|j| {
                    std::array::from_fn(|k| b[j][k] + shift[k] + if j > 0 { far[k] } else { 0.0 })
                });
            }
            _ => {}
        }
        if tri_tri_intersect(&a, &b) {
            continue;
        }
        let Some((k, v)) = guess::closest_features(&a, &b) else {
            panic!("pair {i}: no guess");
        };
        assert!(
            v.iter().all(|x| x.is_finite()) && v != [0.0; 3],
            "pair {i}: {v:?}"
        );
        let (_, num, den) = candidate(&Pre::<Iv>::new(&a, &b), k).expect("a valid candidate");
        let d = tri_tri_distance(&a, &b);
        let (lo2, hi2) = (d.lower() * d.lower(), d.upper() * d.upper());
        let (clo, chi) = (num.lo / den.hi, num.hi / den.lo);
        let tol = 1e-9 * hi2 + 1e-18;
        assert!(
            clo <= hi2 + tol && chi >= lo2 - tol,
            "pair {i}, candidate {k}: {clo}..{chi} against {lo2}..{hi2}"
        );
        let family = match k {
            0..9 => 0,
            9..18 => 1,
            18..27 => 2,
            27..36 => 3,
            36..39 => 4,
            _ => 5,
        };
        families[family] += 1;
    }
    assert!(families.iter().all(|&n| n > 0), "{families:?}");
}
