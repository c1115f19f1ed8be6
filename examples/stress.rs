//! The largest shared model against itself: build time, hierarchy memory, peak resident
//! memory and query time on the CPU (and the GPU with `--gpu`).
//!
//! `cargo run --release --example stress [mesh] [poses] [--gpu]`
//! (default mesh: `../shared/meshes/dragon-vrip.ply.gz`)

use meshcollide::pose::tumbling_poses;
use meshcollide::{BuildOptions, BvKind, Collider, QueryOptions};
use std::time::Instant;

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|v| v.parse::<f64>().ok())
            })
        })
        .map_or(f64::NAN, |kib| kib / 1024.0)
}

fn main() -> Result<(), meshcollide::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gpu = args.iter().any(|a| a == "--gpu");
    let rest: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let default = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/meshes/dragon-vrip.ply.gz"
    );
    let path = rest.first().map_or(default, |s| s.as_str());
    let n_poses: usize = rest.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);

    let t = Instant::now();
    let m = meshcollide::mesh::load(path.as_ref())?;
    println!(
        "{path}: {} triangles, loaded in {:.2} s",
        m.triangle_count(),
        t.elapsed().as_secs_f64()
    );
    let (lo, hi) = m.bounds();
    let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
    let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
    let poses = tumbling_poses(n_poses, c, [0.25 * size, 0.0, 0.0]);
    let o = BuildOptions {
        leaf_size: 4,
        ..Default::default()
    };
    let t = Instant::now();
    let collider = Collider::builder(&m, &m)
        .bv(BvKind::Kdop18)
        .build_options(o)
        .build()?;
    let [(na, ba), (nb, bb)] = collider.hierarchy_sizes();
    println!(
        "build (A and B, kdop18, leaf 4): {:.2} s; nodes {na} + {nb}, node arrays {:.1} + {:.1} MiB ({:.1} bytes per triangle each)",
        t.elapsed().as_secs_f64(),
        ba as f64 / 1048576.0,
        bb as f64 / 1048576.0,
        ba as f64 / m.triangle_count() as f64
    );
    let t = Instant::now();
    let r = collider.collide_batch_with(&poses, &QueryOptions::default(), None);
    let s = t.elapsed().as_secs_f64();
    let pairs: usize = r.iter().map(|x| x.pairs.len()).sum();
    println!(
        "cpu: {n_poses} poses in {s:.2} s ({:.1} poses/s), {pairs} pairs",
        n_poses as f64 / s
    );
    if gpu {
        let ctx = meshcollide::gpu::GpuContext::new()?;
        let t = Instant::now();
        let (g, stats) =
            collider.collide_batch_gpu(&ctx, &poses, &QueryOptions::default(), None)?;
        let s = t.elapsed().as_secs_f64();
        let same = g.iter().zip(&r).all(|(a, b)| {
            a.pairs == b.pairs
                && a.counters.bv_tests == b.counters.bv_tests
                && a.counters.bv_updates == b.counters.bv_updates
        });
        println!(
            "gpu ({}): {s:.2} s, {} batches of {:?} poses, {} submissions ({} re-runs, {} resumes), {} MiB uploaded, peak batch buffers {} MiB; pairs, Nv and Nu equal to cpu: {same}",
            ctx.adapter_name(),
            stats.batches.len(),
            stats.batches.iter().map(|b| b.poses).collect::<Vec<_>>(),
            stats.submissions,
            stats.reruns,
            stats.resumes,
            stats.bytes_uploaded >> 20,
            stats.peak_buffer_bytes >> 20
        );
    }
    println!("peak resident memory: {:.0} MiB", peak_rss_mib());
    Ok(())
}
