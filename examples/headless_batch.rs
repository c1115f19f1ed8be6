//! Thousands of poses on the GPU, headless: interlocked tori tumbling, throughput printed
//! next to the CPU path's, and the GPU's pairs and Nv checked against the CPU reference.
//!
//! `cargo run --release --example headless_batch [poses] [triangles]`

use meshcollide::mesh::generate;
use meshcollide::pose::tumbling_poses;
use meshcollide::{BuildOptions, BvKind, Collider, QueryOptions, TumbleMethod};
use std::time::Instant;

fn main() -> Result<(), meshcollide::Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n_poses = args.first().copied().unwrap_or(2000);
    let tris = args.get(1).copied().unwrap_or(8000);
    let n_minor = ((tris as f64 / 5.0).sqrt() as u32).max(3);
    let a = generate::torus([0.0; 3], 1.0, 0.3, n_minor * 5 / 2, n_minor);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    let poses = tumbling_poses(n_poses, [0.0; 3], [1.0, 0.0, 0.0]);
    let o = BuildOptions::default();
    let collider = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .build_options(o)
        .build()?;

    let ctx = meshcollide::gpu::GpuContext::new()?;
    println!("adapter: {}", ctx.adapter_name());
    println!(
        "scene: {} + {} triangles, {} poses",
        a.triangle_count(),
        b.triangle_count(),
        poses.len()
    );
    let t = Instant::now();
    // Each backend with its faster tumbling method (BENCHMARKS.md, "Rigid tumbling").
    let exact = QueryOptions {
        tumble: TumbleMethod::Exact,
        ..Default::default()
    };
    let (gpu, stats) = collider.collide_batch_gpu(&ctx, &poses, &exact, None)?;
    let gpu_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let cpu_approx = collider.collide_batch_with(&poses, &QueryOptions::default(), None);
    let cpu_s = t.elapsed().as_secs_f64();
    let pairs: usize = gpu.iter().map(|r| r.pairs.len()).sum();
    println!(
        "gpu: {gpu_s:.2} s = {:.0} poses/s; {} submissions, {} dispatches, {} bytes uploaded, {} unsure pairs decided on the CPU",
        n_poses as f64 / gpu_s,
        stats.submissions,
        stats.dispatches,
        stats.bytes_uploaded,
        stats.unsure
    );
    println!(
        "cpu: {cpu_s:.2} s = {:.0} poses/s on {} threads",
        n_poses as f64 / cpu_s,
        rayon::current_num_threads()
    );
    println!("front size per level: {:?}", stats.level_sizes);
    // Parity with the CPU reference in the same tumbling method: pairs and Nv.
    let cpu = collider.collide_batch_with(&poses, &exact, None);
    let same = gpu
        .iter()
        .zip(&cpu)
        .all(|(g, c)| g.pairs == c.pairs && g.counters.bv_tests == c.counters.bv_tests)
        && gpu.iter().zip(&cpu_approx).all(|(g, c)| g.pairs == c.pairs);
    println!("{pairs} pairs; GPU equals CPU reference (pairs and Nv): {same}");
    if !same {
        std::process::exit(1);
    }
    Ok(())
}
