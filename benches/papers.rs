//! The issue-4 benches: hierarchy build per splitting rule and k, CPU queries per k and per
//! split point, GPU end to end and its kernels, rigid tumbling (approximation method vs exact
//! refit), deforming refit (CPU and GPU), triangle–triangle throughput.
//! `cargo bench --bench papers` (about five minutes on 2 cores). Counters (Nv, Np, Nu) are
//! printed on stderr beside the times.
//!
//! Models: `../shared/meshes/spot.obj` (5,856 triangles) when present, else a generated mesh
//! of the same size (said on stderr), both fitted into a cube of side 2 as in Zachmann's
//! protocol. GPU groups are skipped with a message when no adapter exists.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use meshcollide::experiments as ex;
use meshcollide::kdop::KdopScene;
use meshcollide::scene::{PairScene, SubCounters};
use meshcollide::tumble::{TumbleWorkspace, tumble_points};
use meshcollide::*;
use std::time::Duration;

fn model() -> Mesh {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/spot.obj");
    match mesh::load(&p) {
        Ok(m) => {
            eprintln!("model: {} ({} triangles)", p.display(), m.triangle_count());
            ex::fit_cube(&m)
        }
        Err(e) => {
            eprintln!("model: shared mesh unavailable ({e}); using generated linked tori instead");
            ex::default_model(5_856)
        }
    }
}

fn small<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    g
}

fn counters<S: SubCounters>(label: &str, r: &[PoseResult<S>]) {
    let n = formats::total_counters(r);
    eprintln!(
        "{label}: {} poses, Nv {} Np {} Nu {} pairs {}",
        r.len(),
        n.bv_tests,
        n.tri_tests,
        n.bv_updates,
        r.iter().map(|x| x.pairs.len()).sum::<usize>()
    );
}

fn build(c: &mut Criterion) {
    let m = model();
    let tiny = mesh::generate::tetrahedron([0.0; 3], 1.0);
    let mut g = small(c, "build");
    g.throughput(Throughput::Elements(m.triangle_count() as u64));
    // Every rule at k = 18 (Table 3), every k with splatter.
    for rule in SplitRule::ALL {
        let o = BuildOptions {
            rule,
            ..Default::default()
        };
        g.bench_function(BenchmarkId::new("kdop18", rule.name()), |b| {
            b.iter(|| {
                Collider::builder(&m, &tiny)
                    .bv(BvKind::Kdop18)
                    .build_options(o)
                    .build()
                    .unwrap()
            })
        });
    }
    for bv in BvKind::ALL.into_iter().filter(|&k| k != BvKind::Kdop18) {
        let o = BuildOptions::default();
        g.bench_function(BenchmarkId::new(bv.name(), "splatter"), |b| {
            b.iter(|| {
                Collider::builder(&m, &tiny)
                    .bv(bv)
                    .build_options(o)
                    .build()
                    .unwrap()
            })
        });
    }
    g.finish();
}

fn cpu_queries(c: &mut Criterion) {
    let m = model();
    let poses = ex::tumble_poses(32, 1.0);
    let mut g = small(c, "cpu_query_32_poses_d1");
    let q = QueryOptions::default();
    let one = |col: &Collider| -> Vec<Contacts> {
        poses.iter().map(|p| col.collide_with(p, &q)).collect()
    };
    for bv in BvKind::ALL {
        let o = BuildOptions::default();
        let col = Collider::builder(&m, &m)
            .bv(bv)
            .build_options(o)
            .build()
            .unwrap();
        counters(&format!("cpu {} mean", bv.name()), &one(&col));
        g.bench_function(BenchmarkId::new(bv.name(), "mean"), |b| {
            b.iter(|| one(&col))
        });
    }
    let o = BuildOptions {
        point: SplitPoint::Median,
        ..Default::default()
    };
    let col = Collider::builder(&m, &m)
        .bv(BvKind::Kdop18)
        .build_options(o)
        .build()
        .unwrap();
    counters("cpu kdop18 median", &one(&col));
    g.bench_function(BenchmarkId::new("kdop18", "median"), |b| {
        b.iter(|| one(&col))
    });
    g.finish();
}

fn gpu(c: &mut Criterion) {
    let ctx = match gpu::GpuContext::new() {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("SKIP gpu benches: no GPU adapter ({e})");
            return;
        }
    };
    let m = model();
    let o = BuildOptions::default();
    let poses = ex::tumble_poses(64, 1.0);
    let far: Vec<Pose> = ex::tumble_poses(64, 1e3);
    let mut g = small(c, "gpu_64_poses");
    let col = Collider::builder(&m, &m)
        .bv(BvKind::Kdop18)
        .build_options(o)
        .build()
        .unwrap();
    for method in [TumbleMethod::Approximate, TumbleMethod::Exact] {
        let q = QueryOptions {
            tumble: method,
            ..Default::default()
        };
        match col.collide_batch_gpu(&ctx, &poses, &q, None) {
            Ok((r, s)) => {
                counters(&format!("gpu end to end, {}", method.name()), &r);
                eprintln!(
                    "  dispatches {} submissions {} unsure {}",
                    s.dispatches, s.submissions, s.unsure
                );
            }
            Err(e) => {
                eprintln!("SKIP gpu benches: {e}");
                return;
            }
        }
        g.bench_function(
            BenchmarkId::new("end_to_end_with_upload", method.name()),
            |b| b.iter(|| col.collide_batch_gpu(&ctx, &poses, &q, None)),
        );
    }
    // The dual k-DOP–sphere hierarchy through the same pipeline (sphere pretest in the
    // expansion kernel), hierarchies uploaded once outside the timing.
    let dual = meshcollide::dual::DualScene::<9>::build(&m, &m, &o, &o, &Default::default());
    if let Ok(mut gs) = meshcollide::gpu::collide::GpuScene::new(&ctx, &dual) {
        let method = TumbleMethod::Exact;
        if let Ok((r, _)) = gs.collide_batch(&ctx, &dual, &poses, Mode::All, method, None) {
            counters("gpu dual18, exact", &r);
        }
        g.bench_function(
            BenchmarkId::new("dual18_uploaded_once", method.name()),
            |b| b.iter(|| gs.collide_batch(&ctx, &dual, &poses, Mode::All, method, None)),
        );
    }
    // Kernels: B far away, so the front dies at the root and a submission is the dense
    // tumbling kernels plus empty levels (hierarchies uploaded once, outside the timing).
    let scene = KdopScene::<9>::build(&m, &m, &o, &o, KdopOptions::PAPER);
    if let Ok(mut gs) = meshcollide::gpu::collide::GpuScene::new(&ctx, &scene) {
        for method in [TumbleMethod::Approximate, TumbleMethod::Exact] {
            g.bench_function(BenchmarkId::new("tumble_kernels_far", method.name()), |b| {
                b.iter(|| gs.collide_batch(&ctx, &scene, &far, Mode::All, method, None))
            });
        }
    }
    // The deforming-refit kernels on vertices posed by the host.
    if let Ok(mut refit) = gpu::GpuRefit::new(&ctx, &scene.fly.bvh, &m) {
        let moved: Vec<[f64; 3]> = m.positions.iter().map(|&v| poses[5].apply(v)).collect();
        g.bench_function("refit_kernels_per_frame", |b| {
            b.iter(|| {
                // Wait for the kernels, not just their submission.
                let r = refit.refit(&ctx, &moved);
                let _ = ctx.device.poll(wgpu::PollType::wait_indefinitely());
                r
            })
        });
    }
    g.finish();
}

fn tumbling(c: &mut Criterion) {
    let m = model();
    let o = BuildOptions::default();
    let scene = KdopScene::<9>::build(&m, &m, &o, &o, KdopOptions::PAPER);
    let fly = &scene.fly;
    let poses = ex::tumble_poses(16, 1.0);
    let nodes = fly.bvh.nodes.len();
    eprintln!("tumbling: {nodes} flying nodes (kdop18), Nu = {nodes} per pose when dense");
    let mut g = small(c, "tumble_16_poses_dense");
    g.bench_function("approximation_all_nodes", |b| {
        b.iter(|| {
            let frames = fly.pose_frames(scene.env.frame(), &poses);
            let mut s = 0.0f32;
            for f in &frames {
                for n in 1..nodes {
                    s += tumble_points(f, fly.node_points(n)).max[0];
                }
            }
            s
        })
    });
    let mut ws = TumbleWorkspace::new(fly);
    let local: Vec<_> = poses
        .iter()
        .map(|p| fly.local_pose(scene.env.frame(), p))
        .collect();
    g.bench_function("exact_refit_all_nodes", |b| {
        b.iter(|| {
            for lp in &local {
                ws.begin(fly, lp, TumbleMethod::Exact);
            }
            ws.updates
        })
    });
    // The same through queries: approximation lazily, exact refit densely.
    for method in [TumbleMethod::Approximate, TumbleMethod::Exact] {
        let q = QueryOptions {
            tumble: method,
            ..Default::default()
        };
        let r: Vec<PoseResult> = poses
            .iter()
            .map(|p| {
                meshcollide::scene::collide_batch(&scene, std::slice::from_ref(p), &q, None)
                    .remove(0)
            })
            .collect();
        counters(&format!("query with {} tumbling", method.name()), &r);
        g.bench_function(BenchmarkId::new("query", method.name()), |b| {
            b.iter(|| {
                poses
                    .iter()
                    .map(|p| PairScene::collide(&scene, p, &q))
                    .collect::<Vec<_>>()
            })
        });
    }
    g.finish();
}

fn deforming_refit(c: &mut Criterion) {
    let m = model();
    let mut bvh = Bvh::<9>::build(&m, &BuildOptions::default());
    let pose = Pose::from_axis_angle([0.0, 0.0, 1.0], 0.3, [0.1, 0.0, 0.0]);
    // A non-rigid deformation: a twist growing with z.
    let moved: Vec<[f64; 3]> = m
        .positions
        .iter()
        .map(|&v| {
            let a = 0.2 * v[2];
            let (s, co) = a.sin_cos();
            let p = pose.apply(v);
            [co * p[0] - s * p[1], s * p[0] + co * p[1], p[2]]
        })
        .collect();
    eprintln!(
        "deforming refit: {} nodes updated per frame (Nu)",
        bvh.nodes.len()
    );
    let mut g = small(c, "deforming_refit");
    g.throughput(Throughput::Elements(m.triangle_count() as u64));
    g.bench_function("cpu", |b| b.iter(|| bvh.refit(&moved, &m.triangles)));
    g.finish();
}

fn tri_tri(c: &mut Criterion) {
    // Pairs whose bounding boxes overlap (as Klosowski et al. measure Cp): random triangles
    // of edge ≤ 0.5 in a unit cube; about half of them intersect.
    let s = mesh::generate::random_soup(11, 2000, 1.0, 0.5);
    let t: Vec<[[f64; 3]; 3]> = (0..s.triangle_count()).map(|i| s.triangle(i)).collect();
    let boxes_overlap = |a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]| {
        (0..3).all(|k| {
            let (alo, ahi) = (
                a.iter().map(|p| p[k]).fold(f64::MAX, f64::min),
                a.iter().map(|p| p[k]).fold(f64::MIN, f64::max),
            );
            let (blo, bhi) = (
                b.iter().map(|p| p[k]).fold(f64::MAX, f64::min),
                b.iter().map(|p| p[k]).fold(f64::MIN, f64::max),
            );
            alo <= bhi && blo <= ahi
        })
    };
    let pairs: Vec<(usize, usize)> = (0..t.len())
        .flat_map(|i| (i + 1..t.len()).map(move |j| (i, j)))
        .filter(|&(i, j)| boxes_overlap(&t[i], &t[j]))
        .take(20_000)
        .collect();
    let hits = pairs
        .iter()
        .filter(|&&(i, j)| tri::tri_tri_intersect(&t[i], &t[j]))
        .count();
    eprintln!(
        "tri_tri: {} pairs with overlapping boxes, {hits} intersect (Np = {})",
        pairs.len(),
        pairs.len()
    );
    let mut g = small(c, "tri_tri");
    g.throughput(Throughput::Elements(pairs.len() as u64));
    g.bench_function("exact_f64_box_overlapping_pairs", |b| {
        b.iter(|| {
            pairs
                .iter()
                .filter(|&&(i, j)| tri::tri_tri_intersect(&t[i], &t[j]))
                .count()
        })
    });
    // The by-shape path alone (classification, six plane orientations, edge tests): what
    // the plane-sign fast path and its filter save.
    g.bench_function("by_shape_f64_box_overlapping_pairs", |b| {
        b.iter(|| {
            pairs
                .iter()
                .filter(|&&(i, j)| tri::tri_tri_general(&t[i], &t[j]))
                .count()
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    build,
    cpu_queries,
    tumbling,
    deforming_refit,
    tri_tri,
    gpu
);
criterion_main!(benches);
