//! Side-by-side with parry3d-f64: same meshes, same poses, pair sets compared, both
//! single-threaded (rayon pool of one thread), in one run.
//!
//! `cargo run --release --example vs_parry [mesh] [poses]`
//! (default `../shared/meshes/stanford-bunny.obj`, 100 poses).
//!
//! Scenes: the mesh against itself, tumbling (`pose::tumbling_poses`) about its bounding-box
//! centre, moved along x by 0.3 and 0.6 of its largest extent.
//!
//! parry side: `TriMesh::with_flags(.., TriMeshFlags::empty())` (no welding, no deletion:
//! triangle `i` is the file's triangle `i`, the BVH leaf index is the triangle index), then
//! `Bvh::leaf_pairs` with the relative pose's AABB test (as parry's own `intersect_meshes`
//! does), then `query::intersection_test` (GJK on two `Triangle`s) on each candidate.
//! Every difference is decided by our exact oracle `tri::tri_tri_intersect`.

use meshcollide::mesh::load;
use meshcollide::pose::tumbling_poses;
use meshcollide::{BuildOptions, BvKind, Collider, Mesh, Pose, QueryOptions};
use parry3d_f64::bounding_volume::BoundingVolume;
use parry3d_f64::math::{Pose as PPose, Rotation, Vector};
use parry3d_f64::partitioning::BvhNode;
use parry3d_f64::query;
use parry3d_f64::shape::{TriMesh, TriMeshFlags};
use std::time::Instant;

fn to_parry(m: &Mesh) -> TriMesh {
    let v: Vec<Vector> = m
        .positions
        .iter()
        .map(|p| Vector::new(p[0] as f64, p[1] as f64, p[2] as f64))
        .collect();
    let t =
        TriMesh::with_flags(v, m.triangles.clone(), TriMeshFlags::empty()).expect("parry TriMesh");
    assert_eq!(
        t.num_triangles(),
        m.triangle_count(),
        "parry dropped triangles"
    );
    assert_eq!(t.indices(), &m.triangles[..], "parry reordered triangles");
    t
}

fn parry_pose(p: &Pose) -> PPose {
    let [w, x, y, z] = p.q;
    PPose::from_parts(
        Vector::new(p.t[0], p.t[1], p.t[2]),
        Rotation::from_xyzw(x, y, z, w),
    )
}

/// All intersecting triangle pairs `(tri_a, tri_b)` by parry, sorted.
fn parry_collide(a: &TriMesh, b: &TriMesh, pos12: &PPose) -> Vec<(u32, u32)> {
    let mut pairs: Vec<(u32, u32)> = a
        .bvh()
        .leaf_pairs(b.bvh(), |n1: &BvhNode, n2: &BvhNode| {
            n1.aabb().intersects(&n2.aabb().transform_by(pos12))
        })
        .filter(|&(i, j)| {
            query::intersection_test(&PPose::IDENTITY, &a.triangle(i), pos12, &b.triangle(j))
                .expect("triangle-triangle supported")
                .intersecting
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

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
        let ta = a.triangle_f64(i as usize);
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

fn main() -> Result<(), meshcollide::Error> {
    // Single-threaded everywhere: our builds use rayon::join, queries are sequential.
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("rayon pool");
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).cloned().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/meshes/stanford-bunny.obj"
        )
        .to_string()
    });
    let n_poses: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let mesh = load(path.as_ref())?;
    let name = std::path::Path::new(&path)
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    println!(
        "mesh {name}: {} triangles, {} vertices; {n_poses} poses per scene; single thread; parry3d-f64 0.31.1",
        mesh.triangle_count(),
        mesh.positions.len()
    );

    let t = Instant::now();
    let ours = Collider::build(
        &mesh,
        &mesh,
        BvKind::Kdop18,
        &BuildOptions::default(),
        &BuildOptions::default(),
    );
    let ours_build = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let pa = to_parry(&mesh);
    let pb = to_parry(&mesh);
    let parry_build = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "build (A and B hierarchies): ours 18-DOP {ours_build:.1} ms, parry TriMesh+BVH {parry_build:.1} ms"
    );

    let (lo, hi) = mesh.bounds();
    let center: [f64; 3] = [0, 1, 2].map(|k| 0.5 * (lo[k] as f64 + hi[k] as f64));
    let extent = (0..3).map(|k| (hi[k] - lo[k]) as f64).fold(0.0, f64::max);
    let qopts = QueryOptions::default();

    let mut rows = Vec::new();
    let mut all_examples = Vec::new();
    let mut any_ours_wrong = false;
    let mut batch_lines = Vec::new();
    for frac in [0.3, 0.6] {
        let poses = tumbling_poses(n_poses, center, [frac * extent, 0.0, 0.0]);
        // Warm-up (caches, allocator), untimed.
        if let Some(p) = poses.first() {
            let _ = ours.collide(p, &qopts);
            let _ = parry_collide(&pa, &pb, &parry_pose(p));
        }
        let (mut t_ours, mut t_parry) = (Vec::new(), Vec::new());
        let (mut pairs_ours, mut pairs_parry, mut poses_differ) = (0usize, 0usize, 0usize);
        let mut d = Diffs::default();
        for p in &poses {
            let t = Instant::now();
            let r = ours.collide(p, &qopts);
            t_ours.push(t.elapsed().as_secs_f64() * 1e3);
            let pp = parry_pose(p);
            let t = Instant::now();
            let theirs = parry_collide(&pa, &pb, &pp);
            t_parry.push(t.elapsed().as_secs_f64() * 1e3);
            pairs_ours += r.pairs.len();
            pairs_parry += theirs.len();
            if r.pairs != theirs {
                poses_differ += 1;
                classify(&mesh, &mesh, p, &r.pairs, &theirs, &mut d);
            }
        }
        // Our batch API on the same one-thread pool: one workspace for a chunk of poses,
        // hill climbing warm-started from the previous pose. Reported apart from the table.
        let t = Instant::now();
        let batch = ours.collide_batch(&poses, &qopts, &|_| {});
        let batch_ms = t.elapsed().as_secs_f64() * 1e3;
        let batch_pairs: usize = batch.iter().map(|r| r.pairs.len()).sum();
        assert_eq!(
            batch_pairs, pairs_ours,
            "batch and single-pose results differ"
        );
        batch_lines.push(format!(
            "x + {frac}: ours via `collide_batch` (1 thread, workspace reused, warm start): {batch_ms:.1} ms total"
        ));
        let (sum_o, sum_p): (f64, f64) = (t_ours.iter().sum(), t_parry.iter().sum());
        let (med_o, med_p) = (median(&mut t_ours), median(&mut t_parry));
        any_ours_wrong |= d.ours_missed + d.ours_false > 0;
        rows.push(format!(
            "| {name} vs itself, tumbling, x + {frac} × extent | {n} | {pairs_ours} / {pairs_parry} | {med_o:.3} | {med_p:.3} | {:.2} | {sum_o:.1} / {sum_p:.1} | {:.2} | {poses_differ} | {} | {} | {} |",
            med_o / med_p,
            sum_o / sum_p,
            d.parry_missed,
            d.parry_false,
            d.ours_missed + d.ours_false,
            n = poses.len(),
        ));
        all_examples.extend(d.examples.into_iter().map(|e| format!("x + {frac}: {e}")));
    }

    println!();
    println!(
        "| scene | poses | pairs ours / parry (total) | our median ms | parry median ms | ratio ours/parry (median) | total ms ours / parry | ratio ours/parry (total) | poses differing | parry missed true contact | parry reported non-contact | ours wrong |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        println!("{r}");
    }
    println!();
    println!(
        "Build, single thread, both hierarchies (A and B): ours 18-DOP {ours_build:.1} ms, parry {parry_build:.1} ms."
    );
    for l in &batch_lines {
        println!("{l}");
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
