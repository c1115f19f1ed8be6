//! Self-collision (`meshcollide::self_collide`) against an independent exact oracle.
//!
//! The oracle shares no method with the library's predicates: it converts the f64 corners
//! to big integers (all are integers times one power of two), constructs every candidate
//! extreme point of `A ∩ B` as an exact rational point (corners of one triangle, crossings
//! of edge lines, crossings of an edge line with the other triangle's plane), keeps those
//! that lie in both triangles, and reports the pair iff one of them lies outside the convex
//! hull `H` of the shared vertices. Membership is `meshcollide::tri::oracle`'s
//! origin-in-hull test (itself independent of `tri::tri_tri_intersect`). Why the candidates
//! suffice: an extreme point `x` of `A ∩ B` that is no corner lies in the relative interiors
//! of a face of each (an edge or the triangle); their affine hulls must meet in `x` alone,
//! or a segment through `x` would stay in `A ∩ B`; two lines, or a line and a plane, meeting
//! in one point are what is enumerated. `A ∩ B ⊆ H` iff all its extreme points are in `H`.

mod common;

use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::{BuildOptions, BvKind, Mesh, Mode, SelfCollider, brute_force_self};

mod self_oracle;

use self_oracle::{P3, oracle_brute, oracle_pair, sweep_brute};

// ---------------------------------------------------------------------------------------
// Comparison.

fn diff(got: &[(u32, u32)], want: &[(u32, u32)]) -> String {
    let missed: Vec<_> = want.iter().filter(|x| !got.contains(x)).take(10).collect();
    let extra: Vec<_> = got.iter().filter(|x| !want.contains(x)).take(10).collect();
    format!("missed {missed:?} extra {extra:?}")
}

/// Every k-DOP and two leaf sizes, both modes, and the library's own brute force, against
/// the oracle; returns the oracle's pairs.
fn check(label: &str, m: &Mesh) -> Vec<(u32, u32)> {
    let want = oracle_brute(m);
    let bf = brute_force_self(m);
    assert!(bf == want, "{label} brute_force_self: {}", diff(&bf, &want));
    for bv in BvKind::ALL {
        for leaf_size in [1, 4] {
            let c = SelfCollider::builder(m)
                .bv(bv)
                .build_options(BuildOptions {
                    leaf_size,
                    ..Default::default()
                })
                .build()
                .unwrap();
            let r = c.collide();
            assert!(
                r.pairs == want,
                "{label} {} leaf {leaf_size}: {}",
                bv.name(),
                diff(&r.pairs, &want)
            );
            assert_eq!(r.counters.bv_updates, 0);
            let n = m.triangle_count() as u64;
            assert!(r.counters.tri_tests <= n * (n - 1) / 2, "{label}");
            let f = c.collide_with(Mode::First);
            assert!(f.pairs.len() <= 1, "{label}");
            assert_eq!(f.pairs.is_empty(), want.is_empty(), "{label} first");
            assert!(f.pairs.iter().all(|p| want.contains(p)), "{label} first");
        }
    }
    want
}

/// A mesh from index triples over given positions.
fn mesh(positions: Vec<P3>, triangles: Vec<[u32; 3]>) -> Mesh {
    Mesh::new(positions, triangles).unwrap()
}

/// Random triangles over a small pool of lattice points (coordinates 0..=2, so sharing,
/// coincident copies, collinear and coplanar corners are common), indices repeated on
/// purpose; a few pool points are unwelded copies of others.
fn lattice_mesh(rng: &mut Rng, n_vertices: usize, n_tris: usize, flat: bool) -> Mesh {
    let mut positions: Vec<P3> = (0..n_vertices)
        .map(|_| {
            let mut p = [0, 1, 2].map(|_| rng.below(3) as f64);
            if flat {
                p[2] = 0.0;
            }
            p
        })
        .collect();
    for k in 0..n_vertices / 4 {
        positions.push(positions[k]); // unwelded copies
    }
    let nv = positions.len() as u64;
    let triangles = (0..n_tris)
        .map(|_| {
            let mut t = [0; 3].map(|_| rng.below(nv) as u32);
            if rng.below(8) == 0 {
                t[2] = t[rng.below(2) as usize]; // a repeated index
            }
            t
        })
        .collect();
    mesh(positions, triangles)
}

/// Random cases by default (`MESHCOLLIDE_CASES` sets another number).
const DEFAULT_CASES: usize = 30;

// ---------------------------------------------------------------------------------------
// Tests.

#[test]
fn oracle_knows_the_basic_facts() {
    let (o, x, y) = ([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let far = [5.0, 5.0, 5.0];
    // Not adjacent: touching at a point counts.
    assert!(oracle_pair(
        [0, 1, 2],
        &[o, x, y],
        [3, 4, 5],
        &[x, far, [2.0, 0.0, 0.0]]
    ));
    assert!(!oracle_pair(
        [0, 1, 2],
        &[o, x, y],
        [3, 4, 5],
        &[[1.1, 0.0, 0.0], far, far]
    ));
    // A shared edge, flat (not) and folded onto itself (reported).
    assert!(!oracle_pair(
        [0, 1, 2],
        &[o, x, y],
        [1, 2, 3],
        &[x, y, [1.0, 1.0, 0.0]]
    ));
    assert!(oracle_pair(
        [0, 1, 2],
        &[o, x, y],
        [1, 2, 3],
        &[x, y, [0.2, 0.2, 0.0]]
    ));
    // A shared vertex only, apart and pierced.
    assert!(!oracle_pair(
        [0, 1, 2],
        &[o, x, y],
        [0, 3, 4],
        &[o, [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]]
    ));
    assert!(oracle_pair(
        [0, 1, 2],
        &[o, x, y],
        [0, 3, 4],
        &[o, [0.2, 0.2, -1.0], [0.2, 0.2, 1.0]]
    ));
    // Duplicate faces share all three: never.
    assert!(!oracle_pair([0, 1, 2], &[o, x, y], [2, 1, 0], &[y, x, o]));
}

#[test]
fn flat_grid_has_no_pairs() {
    let g = generate::grid(12, 9, 0.1, 0.0);
    assert!(check("grid", &g).is_empty(), "a flat grid folds nowhere");
    let far = g.map_positions(|[x, y, z]| [x + 1e6 + 0.1, y - 1e6 / 3.0, z + 1e6]);
    assert!(check("far grid", &far).is_empty());
}

#[test]
fn folded_sheet_passes_through_itself() {
    let s = generate::folded_sheet(40, 6, 0.5);
    assert!(!check("folded sheet", &s).is_empty());
    // The crossing sits on lattice lines of t = ±1 when nx is a multiple of 6: vertices of
    // both ends coincide in position (different indices), so they touch exactly.
    let s = generate::folded_sheet(36, 3, 0.5);
    assert!(!check("folded sheet on the grid", &s).is_empty());
}

#[test]
fn folded_and_coplanar_neighbours() {
    let (o, x, y) = ([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    // (positions, triangles, reported?)
    let cases: Vec<(Vec<P3>, Vec<[u32; 3]>, bool)> = vec![
        // Shared edge, folded flat onto each other.
        (
            vec![o, x, y, [0.3, 0.3, 0.0]],
            vec![[0, 1, 2], [2, 1, 3]],
            true,
        ),
        // Shared edge, folded so one passes through the other? cannot: a hinge.
        (
            vec![o, x, y, [0.3, 0.3, 0.5]],
            vec![[0, 1, 2], [1, 2, 3]],
            false,
        ),
        // Shared edge, a square's halves.
        (
            vec![o, x, y, [1.0, 1.0, 0.0]],
            vec![[0, 1, 2], [1, 3, 2]],
            false,
        ),
        // Shared vertex, coplanar overlap.
        (
            vec![o, x, y, [1.0, 1.0, 0.0], [-1.0, 2.0, 0.0]],
            vec![[0, 1, 2], [0, 3, 4]],
            true,
        ),
        // Shared vertex, coplanar fan (apart).
        (
            vec![o, x, y, [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]],
            vec![[0, 1, 2], [0, 3, 4]],
            false,
        ),
        // Shared vertex, fan neighbours touching along a ray from the vertex.
        (
            vec![o, x, y, [-1.0, 1.0, 0.0]],
            vec![[0, 1, 2], [0, 4 - 1, 2 + 1]],
            false,
        ),
        // Shared vertex, one passes through the other.
        (
            vec![o, x, y, [0.2, 0.2, -1.0], [0.2, 0.2, 1.0]],
            vec![[0, 1, 2], [0, 3, 4]],
            true,
        ),
        // Shared vertex, the other's opposite edge touches the first's edge.
        (
            vec![o, x, y, [0.5, 0.0, -1.0], [0.5, 0.0, 1.0]],
            vec![[0, 1, 2], [0, 3, 4]],
            true,
        ),
        // Shared vertex, folded onto the first's edge (coplanar wedge along it).
        (
            vec![o, x, y, [2.0, 0.0, 0.0], [2.0, -1.0, 0.0]],
            vec![[0, 1, 2], [0, 3, 4]],
            true,
        ),
    ];
    for (i, (p, t, reported)) in cases.into_iter().enumerate() {
        let m = mesh(p.clone(), t.clone());
        let got = check(&format!("case {i}"), &m);
        assert_eq!(
            !got.is_empty(),
            reported,
            "case {i}: the geometry says {reported}"
        );
        // Every corner order gives the same answer.
        for rot in 0..3 {
            let t2: Vec<[u32; 3]> = t
                .iter()
                .map(|v| [v[rot], v[(rot + 2) % 3], v[(rot + 1) % 3]])
                .collect();
            assert_eq!(
                check(&format!("case {i} rot {rot}"), &mesh(p.clone(), t2)),
                got
            );
        }
    }
}

#[test]
fn touching_non_neighbours_are_reported() {
    let (o, x, y) = ([0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]);
    let cases: Vec<Vec<P3>> = vec![
        // At a vertex (an unwelded copy of x).
        vec![o, x, y, x, [2.0, 0.0, 0.0], [2.0, 1.0, 3.0]],
        // A vertex on the other's edge.
        vec![o, x, y, [0.5, 0.5, 0.0], [1.0, 1.0, 1.0], [2.0, 1.0, 0.0]],
        // Along an edge, coplanar on the other side.
        vec![o, x, y, x, y, [1.0, 1.0, 0.0]],
        // One ulp apart: not reported.
        vec![
            o,
            x,
            y,
            [1.0f64.next_up(), 0.0, 0.0],
            [2.0, 0.0, 0.0],
            [2.0, 1.0, 3.0],
        ],
    ];
    for (i, p) in cases.into_iter().enumerate() {
        let got = check(&format!("touch {i}"), &mesh(p, vec![[0, 1, 2], [3, 4, 5]]));
        assert_eq!(got.is_empty(), i == 3, "touch {i}");
    }
}

#[test]
fn unwelded_copies_are_other_vertices() {
    // The grid with every triangle on its own vertices: every pair of neighbours touches.
    let g = generate::grid(6, 5, 0.25, 1.0);
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for i in 0..g.triangle_count() {
        let b = positions.len() as u32;
        positions.extend(g.triangle(i));
        triangles.push([b, b + 1, b + 2]);
    }
    let soup = mesh(positions, triangles);
    let got = check("unwelded grid", &soup);
    // Exactly the pairs of the welded grid's triangles that share a vertex.
    let mut neighbours = Vec::new();
    for i in 0..g.triangle_count() {
        for j in i + 1..g.triangle_count() {
            if g.triangles[i].iter().any(|v| g.triangles[j].contains(v)) {
                neighbours.push((i as u32, j as u32));
            }
        }
    }
    assert_eq!(got, neighbours);
}

#[test]
fn degenerate_triangles_and_lattice_soups() {
    let mut rng = Rng::new(14);
    for case in 0..common::cases(DEFAULT_CASES) {
        let flat = case % 3 == 0;
        let m = lattice_mesh(&mut rng, 6 + case % 7, 20 + case % 11, flat);
        check(&format!("lattice {case} (flat {flat})"), &m);
    }
    // Only degenerate shapes: points, segments with repeated and collinear corners.
    let p: Vec<P3> = (0..5)
        .map(|i| [f64::from(i), 0.0, 0.0])
        .chain([[1.0, 1.0, 0.0]])
        .collect();
    let t = vec![
        [0, 0, 0],
        [0, 0, 1],
        [0, 1, 2],
        [1, 2, 3],
        [2, 2, 4],
        [0, 4, 2],
        [1, 5, 1],
        [5, 5, 5],
        [3, 1, 4],
    ];
    assert!(!check("collinear", &mesh(p, t)).is_empty());
}

#[test]
fn random_soups() {
    for seed in 0..4 {
        let m = generate::random_soup(seed, 150, 1.0, 0.3);
        check(&format!("soup {seed}"), &m);
        let d = generate::degenerate_soup(seed, 120, 1.0);
        check(&format!("degenerate soup {seed}"), &d);
    }
}

#[test]
fn closed_torus_has_no_pairs_and_a_spindle_torus_has() {
    let t = generate::torus([0.0; 3], 1.0, 0.3, 30, 12);
    assert!(check("torus", &t).is_empty(), "a ring torus is embedded");
    // Tube radius above the major radius: the tube passes through itself at the axis.
    let s = generate::torus([0.0; 3], 1.0, 1.3, 16, 10);
    assert!(!check("spindle torus", &s).is_empty());
}

#[test]
fn far_from_the_origin_with_17_digit_coordinates() {
    let shift = |m: &Mesh| {
        m.map_positions(|[x, y, z]| {
            [
                x + 1000000.0000000001,
                y * 0.1 - 999_999.999_999_999_9,
                z + 1e6 / 3.0,
            ]
        })
    };
    assert!(
        !check(
            "far folded sheet",
            &shift(&generate::folded_sheet(30, 3, 0.5))
        )
        .is_empty()
    );
    check(
        "far spindle torus",
        &shift(&generate::torus([0.0; 3], 1.0, 1.3, 16, 8)),
    );
    let mut rng = Rng::new(7);
    for case in 0..common::cases(DEFAULT_CASES) / 3 {
        // Lattice points scaled by 1e-9 and shifted: neighbours within a few ulps.
        let m = lattice_mesh(&mut rng, 8, 24, case % 2 == 0)
            .map_positions(|p| p.map(|c| 1e6 + c * 1e-9).map(|c| c + 0.1));
        check(&format!("far lattice {case}"), &m);
    }
}

#[test]
fn counters_do_not_depend_on_the_thread_count() {
    let m = generate::folded_sheet(60, 20, 0.5);
    let run = |threads| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| SelfCollider::builder(&m).build().unwrap().collide())
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one, two);
    assert!(one.counters.bv_tests > 0 && !one.pairs.is_empty());
}

#[test]
fn refitted_frames_equal_the_oracle() {
    // A flat sheet folding into the self-intersecting one, frame by frame.
    let end = generate::folded_sheet(30, 4, 0.5);
    let start = generate::grid(30, 4, 0.1, 0.0);
    let mut c = SelfCollider::builder(&start).build().unwrap();
    for f in 0..=4 {
        let t = f64::from(f) / 4.0;
        let frame = Mesh {
            positions: start
                .positions
                .iter()
                .zip(&end.positions)
                .map(|(a, b)| [0, 1, 2].map(|k| a[k] + t * (b[k] - a[k])))
                .collect(),
            triangles: start.triangles.clone(),
        };
        c.refit(&frame.positions).unwrap();
        let want = oracle_brute(&frame);
        let got = c.collide();
        assert!(got.pairs == want, "frame {f}: {}", diff(&got.pairs, &want));
        if f == 4 {
            assert!(!want.is_empty());
        }
    }
    assert!(c.refit(&start.positions[1..]).is_err());
}

#[test]
fn other_hierarchies_and_bad_meshes_are_errors() {
    let g = generate::grid(2, 2, 1.0, 0.0);
    for bv in [BvKind::Boxtree, BvKind::Rtree, BvKind::Obb] {
        let e = SelfCollider::builder(&g).bv(bv).build().unwrap_err();
        assert!(e.to_string().contains("k-DOP"), "{e}");
    }
    let empty = Mesh::default();
    assert!(SelfCollider::builder(&empty).build().is_err());
    let bad = Mesh {
        positions: vec![[0.0; 3]],
        triangles: vec![[0, 0, 1]],
    };
    assert!(SelfCollider::builder(&bad).build().is_err());
}

/// The shared models, against the sweep brute force with the rational oracle. The STL
/// files are unwelded (every facet on its own vertices), so every pair of touching facets is
/// reported there.
#[test]
fn shared_models_equal_the_oracle() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in ["soup.stl", "beetle.obj", "gearwheel.stl", "spot.obj"] {
        let m = meshcollide::mesh::load(&dir.join(name)).unwrap_or_else(|e| panic!("{e}"));
        let want = sweep_brute(&m, true);
        let got = SelfCollider::builder(&m).build().unwrap().collide();
        assert!(got.pairs == want, "{name}: {}", diff(&got.pairs, &want));
        eprintln!("{name}: {} self pairs", want.len());
    }
}

/// Every shared model, the dragon included, against the sweep brute force (minutes on two
/// cores: `cargo test --release --test self_collision -- --ignored --nocapture`).
#[test]
#[ignore = "minutes: every shared model, the 871k-triangle dragon included"]
fn every_shared_model_equals_the_oracle() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in [
        "armadillo.obj",
        "cycloidal.ply",
        "fandisk.obj",
        "featuretype.stl",
        "horse.ply",
        "rocker-arm.obj",
        "stanford-bunny.obj",
        "dragon-vrip.ply.gz",
    ] {
        let m = meshcollide::mesh::load(&dir.join(name)).unwrap_or_else(|e| panic!("{e}"));
        let t = std::time::Instant::now();
        let got = SelfCollider::builder(&m).build().unwrap().collide();
        let fast = t.elapsed();
        let want = sweep_brute(&m, true);
        assert!(got.pairs == want, "{name}: {}", diff(&got.pairs, &want));
        eprintln!(
            "{name}: {} self pairs, equal to the oracle (self {:.2} s, oracle {:.1} s)",
            want.len(),
            fast.as_secs_f64(),
            t.elapsed().as_secs_f64() - fast.as_secs_f64()
        );
    }
}
