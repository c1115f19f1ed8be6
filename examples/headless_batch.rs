//! A batch of poses on the GPU, headless, next to the CPU reference with the same (default)
//! options: interlocked tori tumbling; the GPU's pairs, Nv, Np and Nu checked against the
//! CPU's, the work per pose and the time ratio printed (the row of
//! `docs/notebook/gpu-vs-cpu.md`, "GPU against the CPU default").
//!
//! `cargo run --release --example headless_batch [poses] [triangles per torus]`
//! (`MESHCOLLIDE_GPU_PROFILE=1` adds the device time of each kernel.)

use meshcollide::mesh::generate;
use meshcollide::pose::tumbling_poses;
use meshcollide::{BvKind, Collider, QueryOptions};
use std::time::Instant;

fn main() -> Result<(), meshcollide::Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n_poses = args.first().copied().unwrap_or(500);
    let tris = args.get(1).copied().unwrap_or(20000);
    let n_minor = ((tris as f64 / 5.0).sqrt() as u32).max(3);
    let a = generate::torus([0.0; 3], 1.0, 0.3, n_minor * 5 / 2, n_minor);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    let poses = tumbling_poses(n_poses, [0.0; 3], [1.0, 0.0, 0.0]);
    // The defaults of both backends: kdop18, descent by the larger k-DOP, lazy tumbling.
    let collider = Collider::builder(&a, &b).bv(BvKind::Kdop18).build()?;
    let opts = QueryOptions::default();

    let ctx = meshcollide::gpu::GpuContext::new()?;
    println!("adapter: {}", ctx.adapter_name());
    println!(
        "scene: {} + {} triangles, {} poses",
        a.triangle_count(),
        b.triangle_count(),
        poses.len()
    );
    let t = Instant::now();
    let (gpu, stats) = collider.collide_batch_gpu(&ctx, &poses, &opts, None)?;
    let gpu_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let cpu = collider.collide_batch_with(&poses, &opts, None);
    let cpu_s = t.elapsed().as_secs_f64();
    let per_pose = |r: &[meshcollide::Contacts], f: fn(&meshcollide::Contacts) -> u64| {
        r.iter().map(f).sum::<u64>() as f64 / n_poses as f64
    };
    for (name, r) in [("cpu", &cpu), ("gpu", &gpu)] {
        println!(
            "{name}: Nv {:.0} / Np {:.0} / Nu {:.0} per pose",
            per_pose(r, |c| c.counters.bv_tests),
            per_pose(r, |c| c.counters.tri_tests),
            per_pose(r, |c| c.counters.bv_updates),
        );
    }
    println!(
        "gpu: {gpu_s:.2} s; cpu: {cpu_s:.2} s on {} threads; gpu / cpu = {:.1}",
        rayon::current_num_threads(),
        gpu_s / cpu_s
    );
    println!(
        "gpu work: {} batches ({:?} poses), {} submissions, {} re-runs, {} resumes, {} dispatches, {} readbacks, {} bytes uploaded, {} bytes read back, peak batch buffers {:.1} MiB, {} unsure pairs decided on the CPU",
        stats.batches.len(),
        stats.batches.iter().map(|b| b.poses).collect::<Vec<_>>(),
        stats.submissions,
        stats.reruns,
        stats.resumes,
        stats.dispatches,
        stats.readbacks,
        stats.bytes_uploaded,
        stats.bytes_read_back,
        stats.peak_buffer_bytes as f64 / 1048576.0,
        stats.unsure
    );
    // With MESHCOLLIDE_GPU_PROFILE=1: where the device time went.
    let kernels = stats.kernel_ns();
    let total: u64 = kernels.values().sum();
    for (kernel, ns) in &kernels {
        println!(
            "kernel {kernel:>16}: {:8.1} ms ({:4.1} %)",
            *ns as f64 * 1e-6,
            100.0 * *ns as f64 / total as f64
        );
    }
    let pairs: usize = gpu.iter().map(|r| r.pairs.len()).sum();
    let same = gpu.iter().zip(&cpu).all(|(g, c)| {
        g.pairs == c.pairs
            && g.counters.bv_tests == c.counters.bv_tests
            && g.counters.tri_tests == c.counters.tri_tests
            && g.counters.bv_updates == c.counters.bv_updates
    });
    println!("{pairs} pairs; GPU equals the CPU reference (pairs, Nv, Np, Nu): {same}");
    if !same {
        std::process::exit(1);
    }
    Ok(())
}
