//! Side-by-side with parry3d-f64: same meshes, same poses, pair sets compared, both
//! single-threaded (rayon pool of one thread), in one run.
//!
//! `cargo run --release --example vs_parry [mesh] [poses] [--leaf-a N] [--leaf-b N]
//! [--descent env|larger] [--only TEXT]` (descent default `larger`, see `traverse::Descent`)
//! (default `../shared/meshes/stanford-bunny.obj`, 100 poses, the default leaf sizes, all
//! scenes; `--only` keeps the scenes whose name or key contains TEXT).
//!
//! Scenes: the mesh against itself, tumbling (`pose::tumbling_poses`) about its bounding-box
//! centre, moved along x by 0.3 and 0.6 of its largest extent; Klosowski's nested spheres
//! (alpha 0.1 and 0.01, 20,000 triangles each, see [`nested_spheres`]); two interlocked tori
//! at two distances (see [`interlocked_poses`]).
//!
//! parry side: `TriMesh::with_flags(.., TriMeshFlags::empty())` (no welding, no deletion:
//! triangle `i` is the file's triangle `i`, the BVH leaf index is the triangle index), then
//! `Bvh::leaf_pairs` with the relative pose's AABB test (as parry's own `intersect_meshes`
//! does), then `query::intersection_test` (GJK on two `Triangle`s) on each candidate.
//! Every difference is decided by our exact oracle `tri::tri_tri_intersect`.

#[path = "common/parry.rs"]
mod parry;
use meshcollide::mesh::generate;
use meshcollide::mesh::load;
use meshcollide::pose::{quat_mul, tumbling_poses};
use meshcollide::{BuildOptions, BvKind, Collider, Descent, KdopOptions, Mesh, Pose, QueryOptions};
use parry::{parry_collide, parry_pose, to_parry};
use parry3d_f64::shape::TriMesh;
use std::time::Instant;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

#[derive(Default)]
struct Diffs {
    parry_missed: usize,
    parry_false: usize,
    ours_missed: usize,
    ours_false: usize,
    examples: Vec<String>,
}

fn classify(
    a: &Mesh,
    b: &Mesh,
    pose: &Pose,
    ours: &[(u32, u32)],
    theirs: &[(u32, u32)],
    d: &mut Diffs,
) {
    let oracle = |(i, j): (u32, u32)| {
        let ta = a.triangle(i as usize);
        let tb = b.triangle(j as usize).map(|p| pose.apply(p));
        meshcollide::tri::tri_tri_intersect(&ta, &tb)
    };
    let (mut x, mut y) = (0, 0);
    loop {
        let (pair, in_ours) = match (ours.get(x), theirs.get(y)) {
            (None, None) => break,
            (Some(&p), Some(&q)) if p == q => {
                x += 1;
                y += 1;
                continue;
            }
            (Some(&p), Some(&q)) if p < q => {
                x += 1;
                (p, true)
            }
            (Some(&p), None) => {
                x += 1;
                (p, true)
            }
            (_, Some(&q)) => {
                y += 1;
                (q, false)
            }
        };
        let truth = oracle(pair);
        let class = match (in_ours, truth) {
            (true, true) => {
                d.parry_missed += 1;
                "parry missed a true contact"
            }
            (false, false) => {
                d.parry_false += 1;
                "parry reported a non-contact"
            }
            (false, true) => {
                d.ours_missed += 1;
                "OURS WRONG: missed a true contact"
            }
            (true, false) => {
                d.ours_false += 1;
                "OURS WRONG: reported a non-contact"
            }
        };
        let ours_wrong = in_ours != truth;
        if d.examples.len() < 6 || (ours_wrong && d.examples.len() < 20) {
            d.examples.push(format!(
                "pose q={:?} t={:?}: pair {:?}: {class}",
                pose.q, pose.t, pair
            ));
        }
    }
}

/// One scene of the comparison: A (environment), B (flying) and B's poses.
struct SceneSpec {
    name: String,
    a: std::rc::Rc<Mesh>,
    b: std::rc::Rc<Mesh>,
    /// Key of the (A, B) mesh pair: scenes with the same key share the built hierarchies.
    key: &'static str,
    poses: Vec<Pose>,
}

/// Klosowski et al.'s nested spheres (*Efficient Collision Detection Using Bounding Volume
/// Hierarchies of k-DOPs*, 1998, section 5, Tables 6–7): an outer sphere of radius 1 and a
/// scaled copy of radius `1 − alpha` (the same tessellation), concentric; no contact. Our
/// choice where the paper is static: B (the inner sphere) tumbles about the common centre
/// (`tumbling_poses` with no translation), so every pose is a different query and the scene
/// still has no contact (the inner sphere's vertices stay inside the outer polyhedron's
/// inscribed sphere for the alphas used here).
fn nested_spheres(tris: usize, alpha: f64) -> (Mesh, Mesh) {
    let outer = generate::sphere_with_triangles([0.0; 3], 1.0, tris);
    let inner = generate::sphere_with_triangles([0.0; 3], 1.0 - alpha, tris);
    (outer, inner)
}

/// Two interlocked tori (major radius 1, minor 0.35, 20,000 triangles each). A lies in the
/// xy plane around the origin; B is the same torus turned into the xz plane with its centre
/// at `(d, 0, 0)`, so each ring passes through the other's hole, and rocks about its own
/// centre (angle `0.25·sin(2πi/n)` about z). At d = 0.8 the tubes stay about 0.1 apart; at
/// d = 0.6 they cut each other.
fn interlocked_poses(n: usize, d: f64) -> Vec<Pose> {
    let qx = [
        std::f64::consts::FRAC_PI_4.cos(),
        std::f64::consts::FRAC_PI_4.sin(),
        0.0,
        0.0,
    ];
    (0..n)
        .map(|i| {
            let a = 0.25 * (std::f64::consts::TAU * i as f64 / n.max(1) as f64).sin();
            let qz = [(0.5 * a).cos(), 0.0, 0.0, (0.5 * a).sin()];
            Pose::new(quat_mul(qz, qx), [d, 0.0, 0.0])
        })
        .collect()
}

struct Parsed {
    path: String,
    n_poses: usize,
    leaf_a: u32,
    leaf_b: u32,
    only: Option<String>,
    descent: Descent,
}

fn parse_args() -> Parsed {
    let mut p = Parsed {
        path: concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/meshes/stanford-bunny.obj"
        )
        .to_string(),
        n_poses: 100,
        leaf_a: BuildOptions::default().leaf_size,
        leaf_b: BuildOptions::default().leaf_size,
        only: None,
        descent: Descent::Larger,
    };
    let mut positional = 0;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--leaf-a" => p.leaf_a = it.next().and_then(|s| s.parse().ok()).unwrap_or(p.leaf_a),
            "--leaf-b" => p.leaf_b = it.next().and_then(|s| s.parse().ok()).unwrap_or(p.leaf_b),
            "--only" => p.only = it.next(),
            "--descent" => {
                p.descent = it
                    .next()
                    .and_then(|s| s.parse::<Descent>().ok())
                    .unwrap_or(p.descent)
            }
            _ => {
                match positional {
                    0 => p.path = a,
                    _ => p.n_poses = a.parse().unwrap_or(p.n_poses),
                }
                positional += 1;
            }
        }
    }
    p
}

fn main() -> Result<(), meshcollide::Error> {
    // Single-threaded everywhere: our builds use rayon::join, queries are sequential.
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("rayon pool");
    let args = parse_args();
    let n_poses = args.n_poses;
    let mesh = std::rc::Rc::new(load(args.path.as_ref())?);
    let name = std::path::Path::new(&args.path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!(
        "{n_poses} poses per scene; single thread; parry3d-f64 0.31.1; ours kdop18, leaf sizes A {} B {}, descent {}",
        args.leaf_a,
        args.leaf_b,
        args.descent.name()
    );

    let (lo, hi) = mesh.bounds();
    let center: [f64; 3] = [0, 1, 2].map(|k| 0.5 * (lo[k] + hi[k]));
    let extent = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);

    let mut specs = Vec::new();
    for frac in [0.3, 0.6] {
        specs.push(SceneSpec {
            name: format!("{name} vs itself, tumbling, x + {frac} × extent"),
            a: mesh.clone(),
            b: mesh.clone(),
            key: "model",
            poses: tumbling_poses(n_poses, center, [frac * extent, 0.0, 0.0]),
        });
    }
    for (alpha, key) in [(0.1, "spheres-0.1"), (0.01, "spheres-0.01")] {
        let (outer, inner) = nested_spheres(20_000, alpha);
        specs.push(SceneSpec {
            name: format!(
                "nested spheres, {} triangles each, alpha {alpha}, inner tumbling",
                outer.triangle_count()
            ),
            a: std::rc::Rc::new(outer),
            b: std::rc::Rc::new(inner),
            key,
            poses: tumbling_poses(n_poses, [0.0; 3], [0.0; 3]),
        });
    }
    let torus = std::rc::Rc::new(generate::torus([0.0; 3], 1.0, 0.35, 200, 50));
    for d in [0.8, 0.6] {
        specs.push(SceneSpec {
            name: format!(
                "interlocked tori, {} triangles each, centres {d} apart, rocking",
                torus.triangle_count()
            ),
            a: torus.clone(),
            b: torus.clone(),
            key: "tori",
            poses: interlocked_poses(n_poses, d),
        });
    }
    if let Some(o) = &args.only {
        specs.retain(|s| s.name.contains(o.as_str()) || s.key.contains(o.as_str()));
    }

    let qopts = QueryOptions::default();
    let opt_a = BuildOptions {
        leaf_size: args.leaf_a,
        ..BuildOptions::default()
    };
    let opt_b = BuildOptions {
        leaf_size: args.leaf_b,
        ..BuildOptions::default()
    };
    let mut rows = Vec::new();
    let mut build_lines = Vec::new();
    let mut all_examples = Vec::new();
    let mut any_ours_wrong = false;
    let mut batch_lines = Vec::new();
    let mut built: Option<(&'static str, Collider, TriMesh, TriMesh)> = None;
    for spec in &specs {
        if built.as_ref().map(|b| b.0) != Some(spec.key) {
            drop(built.take()); // free the previous scene's hierarchies first
            let t = Instant::now();
            let ours = Collider::builder(&spec.a, &spec.b)
                .bv(BvKind::Kdop18)
                .build_options_a(opt_a)
                .build_options_b(opt_b)
                .kdop(KdopOptions::with_descent(args.descent))
                .build()?;
            let ours_build = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            let pa = to_parry(&spec.a).expect("parry TriMesh");
            let pb = to_parry(&spec.b).expect("parry TriMesh");
            let parry_build = t.elapsed().as_secs_f64() * 1e3;
            build_lines.push(format!(
                "{}: {} + {} triangles: ours 18-DOP {ours_build:.1} ms, parry TriMesh+BVH {parry_build:.1} ms",
                spec.key,
                spec.a.triangle_count(),
                spec.b.triangle_count()
            ));
            built = Some((spec.key, ours, pa, pb));
        }
        let (_, ours, pa, pb) = built.as_ref().expect("built above");
        let poses = &spec.poses;
        // Warm-up (caches, allocator), untimed.
        if let Some(p) = poses.first() {
            let _ = ours.collide_with(p, &qopts);
            let _ = parry_collide(pa, pb, &parry_pose(p));
        }
        let (mut t_ours, mut t_parry) = (Vec::new(), Vec::new());
        let (mut pairs_ours, mut pairs_parry, mut poses_differ) = (0usize, 0usize, 0usize);
        let (mut nv, mut np, mut nu) = (0u64, 0u64, 0u64);
        let mut d = Diffs::default();
        for p in poses {
            let t = Instant::now();
            let r = ours.collide_with(p, &qopts);
            t_ours.push(t.elapsed().as_secs_f64() * 1e3);
            let pp = parry_pose(p);
            let t = Instant::now();
            let theirs = parry_collide(pa, pb, &pp);
            t_parry.push(t.elapsed().as_secs_f64() * 1e3);
            pairs_ours += r.pairs.len();
            pairs_parry += theirs.len();
            nv += r.counters.bv_tests;
            np += r.counters.tri_tests;
            nu += r.counters.bv_updates;
            if r.pairs != theirs {
                poses_differ += 1;
                classify(&spec.a, &spec.b, p, &r.pairs, &theirs, &mut d);
            }
        }
        // Our batch API on the same one-thread pool: one workspace for a chunk of poses,
        // hill climbing warm-started from the previous pose. Reported apart from the table.
        let t = Instant::now();
        let batch = ours.collide_batch_with(poses, &qopts, None);
        let batch_ms = t.elapsed().as_secs_f64() * 1e3;
        let batch_pairs: usize = batch.iter().map(|r| r.pairs.len()).sum();
        assert_eq!(
            batch_pairs, pairs_ours,
            "batch and single-pose results differ"
        );
        batch_lines.push(format!(
            "{}: ours via `collide_batch` (1 thread, workspace reused, warm start): {batch_ms:.1} ms total",
            spec.name
        ));
        let (sum_o, sum_p): (f64, f64) = (t_ours.iter().sum(), t_parry.iter().sum());
        let (med_o, med_p) = (median(&mut t_ours), median(&mut t_parry));
        any_ours_wrong |= d.ours_missed + d.ours_false > 0;
        rows.push(format!(
            "| {} | {n} | {pairs_ours} / {pairs_parry} | {:.0} / {:.0} / {:.0} | {med_o:.3} | {med_p:.3} | {:.2} | {sum_o:.1} / {sum_p:.1} | {:.2} | {poses_differ} | {} | {} | {} |",
            spec.name,
            nv as f64 / poses.len().max(1) as f64,
            np as f64 / poses.len().max(1) as f64,
            nu as f64 / poses.len().max(1) as f64,
            med_o / med_p,
            sum_o / sum_p,
            d.parry_missed,
            d.parry_false,
            d.ours_missed + d.ours_false,
            n = poses.len(),
        ));
        all_examples.extend(
            d.examples
                .into_iter()
                .map(|e| format!("{}: {e}", spec.name)),
        );
    }

    println!();
    println!(
        "| scene | poses | pairs ours / parry (total) | our Nv / Np / Nu per pose | our median ms | parry median ms | ratio ours/parry (median) | total ms ours / parry | ratio ours/parry (total) | poses differing | parry missed true contact | parry reported non-contact | ours wrong |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!("{r}");
    }
    println!();
    println!("Build, single thread, both hierarchies (A and B):");
    for l in &build_lines {
        println!("- {l}");
    }
    for l in &batch_lines {
        println!("- {l}");
    }
    if !all_examples.is_empty() {
        println!();
        println!("Examples of differences (decided by meshcollide::tri::tri_tri_intersect):");
        for e in &all_examples {
            println!("- {e}");
        }
    }
    if any_ours_wrong {
        eprintln!("ERROR: our result disagrees with our exact oracle");
        std::process::exit(1);
    }
    Ok(())
}
