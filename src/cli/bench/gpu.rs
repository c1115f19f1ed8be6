//! `bench gpu`: whether the GPU pays on this machine. A fixed suite of scenes, each run
//! with every default on the CPU (the whole batch on all cores) and on the GPU (the whole
//! batch, after a warm-up call that uploads the trees and compiles the kernels), checked
//! pair for pair (a hash of every `(pose, tri_a, tri_b)`) and counter for counter (Nv, Np,
//! Nu), with what the GPU did: dispatches, submissions, readbacks, bytes read back, peak
//! batch memory and, where the adapter writes timestamps, the time per kernel (a second,
//! untimed pass with the kernel clock on: the clock's timestamps would slow the timed one).
//!
//! The suite (issue 39): generated interlocked tori, 10,000 tumbling poses; Klosowski et
//! al.'s nested spheres (no contact, Nv the whole cost), 1,000 turns about their centre;
//! with `--models DIR`, the Stanford bunny against itself, 10,000 tumbling poses at half an
//! extent, and the dragon against itself, 1,000 poses. `--quick` shrinks every scene so a
//! software adapter (lavapipe) runs it in about a minute. Different pairs exit 1; no
//! adapter exits 2.

use super::{Common, f};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report_timed};
use crate::experiments as ex;
use crate::gpu::{GpuContext, GpuError};
use crate::{collider::Collider, collider::Contacts, kind::BvKind, mesh::Mesh, pose::Pose};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct GpuArgs {
    /// Directory for gpu.md and gpu.svg; --bv: hierarchies to run (default: auto, the
    /// default, and kdop18, on which the GPU does exactly the CPU's work).
    #[command(flatten)]
    pub common: Common,
    /// Smaller scenes and fewer poses (about a minute on a software adapter).
    #[arg(long)]
    pub quick: bool,
    /// Folder with stanford-bunny.obj and dragon-vrip.ply.gz (the shared models): adds
    /// the bunny and dragon rows.
    #[arg(long)]
    pub models: Option<PathBuf>,
    /// Also write the rows, the adapter and the kernel times as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// One scene of the suite: both meshes fitted into the cube of side 2, and its poses.
struct Scene {
    name: String,
    a: Mesh,
    b: Mesh,
    poses: Vec<Pose>,
}

/// The suite; `quick` divides poses and triangles.
fn suite(quick: bool, models: Option<&Path>) -> Result<Vec<Scene>, Failure> {
    let (tris, poses) = if quick {
        (4_000, 300)
    } else {
        (20_000, 10_000)
    };
    let tori = ex::default_model(tris);
    let (outer, inner) = ex::nested_spheres(tris, 0.05);
    let mut scenes = vec![
        Scene {
            name: format!("interlocked tori {}", tori.triangles.len()),
            b: tori.clone(),
            a: tori,
            poses: ex::tumble_poses(poses, 1.0),
        },
        Scene {
            name: format!("nested spheres {}", outer.triangles.len()),
            a: outer,
            b: inner,
            // Turns about the common centre: never a contact, every node pair to test.
            poses: ex::tumble_poses(poses / 10, 0.0),
        },
    ];
    if let Some(dir) = models {
        for (file, name, n) in [
            ("stanford-bunny.obj", "bunny", poses),
            (
                "dragon-vrip.ply.gz",
                "dragon",
                if quick { 20 } else { 1_000 },
            ),
        ] {
            let path = dir.join(file);
            let m = crate::mesh::load(&path).map_err(crate::error::Error::from)?;
            let m = ex::fit_cube(&m);
            scenes.push(Scene {
                name: format!("{name} {}", m.triangles.len()),
                b: m.clone(),
                a: m,
                // Centre distance 1: half the fitted extent of 2.
                poses: ex::tumble_poses(n, 1.0),
            });
        }
    }
    Ok(scenes)
}

/// FNV-1a over every `(pose, tri_a, tri_b)`, little-endian: equal pairs, equal hashes.
fn pairs_hash(results: &[Contacts]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for (i, r) in results.iter().enumerate() {
        for &(a, b) in &r.pairs {
            for v in [i as u32, a, b] {
                for byte in v.to_le_bytes() {
                    h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
                }
            }
        }
    }
    h
}

/// Nv, Np, Nu summed over the poses.
fn work(results: &[Contacts]) -> [u64; 3] {
    results.iter().fold([0; 3], |[v, p, u], r| {
        let c = &r.counters;
        [v + c.bv_tests, p + c.tri_tests, u + c.bv_updates]
    })
}

fn gpu_failure(e: impl std::fmt::Display) -> Failure {
    Failure::Internal(format!("bench gpu: {e}"))
}

pub fn run(a: &GpuArgs) -> Result<(), Failure> {
    let mut ctx = match GpuContext::with_timestamps() {
        Ok(c) => c,
        Err(e @ GpuError::NoAdapter { .. }) => {
            return Err(Failure::Input(format!(
                "bench gpu: {e}; it measures the GPU against the CPU and needs an adapter \
                 (`meshcollide info` lists what wgpu sees)"
            )));
        }
        Err(e) => return Err(gpu_failure(e)),
    };
    let info = ctx.info.clone();
    let adapter = format!(
        "{} ({:?}, {:?}), driver {} {}",
        info.name, info.backend, info.device_type, info.driver, info.driver_info
    );
    println!("adapter: {adapter}");
    let clock = ctx.kernel_clock;
    let threads = rayon::current_num_threads();
    let kinds = a.common.kinds(&[BvKind::Auto, BvKind::Kdop18]);
    let scenes = suite(a.quick, a.models.as_deref())?;
    let mut table = Table::new(&[
        "scene",
        "bv",
        "poses",
        "CPU µs/pose",
        "GPU µs/pose",
        "GPU speed-up",
        "pairs",
        "GPU ÷ CPU Nv, Np, Nu",
        "dispatches",
        "submissions",
        "readbacks",
        "read back (KiB)",
        "peak batch (MiB)",
        "top kernels",
    ]);
    let mut rows = Vec::new();
    let mut differ = Vec::new();
    let (mut cpu_series, mut gpu_series) = (Vec::new(), Vec::new());
    for s in &scenes {
        for &bv in &kinds {
            let label = format!("{} / {bv}", s.name);
            eprintln!("bench gpu: {label}, {} poses", s.poses.len());
            let col = Collider::builder(&s.a, &s.b).bv(bv).build()?;
            let opts = col.query_options();
            let t = Instant::now();
            let cpu = col.collide_batch(&s.poses);
            let cpu_s = t.elapsed().as_secs_f64();
            // The first call uploads the trees and compiles the kernels: not timed.
            ctx.kernel_clock = false;
            let warm = &s.poses[..s.poses.len().min(16)];
            col.collide_batch_gpu(&ctx, warm, &opts, None)?;
            let t = Instant::now();
            let (gpu, stats) = col.collide_batch_gpu(&ctx, &s.poses, &opts, None)?;
            let gpu_s = t.elapsed().as_secs_f64();
            // Kernel times from a second pass with the clock on (at most 1,000 poses).
            let kernel_ns = if clock {
                ctx.kernel_clock = true;
                let some = &s.poses[..s.poses.len().min(1_000)];
                let (_, st) = col.collide_batch_gpu(&ctx, some, &opts, None)?;
                ctx.kernel_clock = false;
                st.kernel_ns()
            } else {
                Default::default()
            };
            let hash = pairs_hash(&cpu);
            let same =
                hash == pairs_hash(&gpu) && cpu.iter().zip(&gpu).all(|(c, g)| c.pairs == g.pairs);
            if !same {
                differ.push(label.clone());
            }
            let (wc, wg) = (work(&cpu), work(&gpu));
            let ratio = |k: usize| match (wc[k], wg[k]) {
                (c, g) if c == g => "=".to_string(),
                (0, _) => "∞".to_string(),
                (c, g) => f(g as f64 / c as f64, 2),
            };
            let n = s.poses.len().max(1) as f64;
            let (cpu_us, gpu_us) = (cpu_s * 1e6 / n, gpu_s * 1e6 / n);
            let total_ns: u64 = kernel_ns.values().sum();
            let mut top: Vec<(&String, &u64)> = kernel_ns.iter().collect();
            top.sort_by(|x, y| y.1.cmp(x.1));
            let top = top
                .iter()
                .take(3)
                .map(|(k, v)| format!("{k} {}%", f(100.0 * **v as f64 / total_ns as f64, 0)))
                .collect::<Vec<_>>()
                .join(", ");
            table.push(vec![
                s.name.clone(),
                bv.to_string(),
                s.poses.len().to_string(),
                f(cpu_us, 1),
                f(gpu_us, 1),
                f(cpu_s / gpu_s, 2),
                if same { "same" } else { "DIFFER" }.to_string(),
                [0, 1, 2].map(ratio).join(", "),
                stats.dispatches.to_string(),
                stats.submissions.to_string(),
                stats.readbacks.to_string(),
                f(stats.bytes_read_back as f64 / 1024.0, 0),
                f(stats.peak_buffer_bytes as f64 / (1 << 20) as f64, 1),
                if top.is_empty() { "—".into() } else { top },
            ]);
            let x = rows.len() as f64;
            cpu_series.push((x, cpu_us));
            gpu_series.push((x, gpu_us));
            rows.push(serde_json::json!({
                "scene": s.name,
                "bv": bv.to_string(),
                "poses": s.poses.len(),
                "tris": [s.a.triangles.len(), s.b.triangles.len()],
                "cpu_s": cpu_s,
                "gpu_s": gpu_s,
                "pairs_same": same,
                "pairs": cpu.iter().map(|r| r.pairs.len()).sum::<usize>(),
                "pairs_hash": format!("{hash:016x}"),
                "cpu_work": {"nv": wc[0], "np": wc[1], "nu": wc[2]},
                "gpu_work": {"nv": wg[0], "np": wg[1], "nu": wg[2]},
                "dispatches": stats.dispatches,
                "submissions": stats.submissions,
                "readbacks": stats.readbacks,
                "bytes_read_back": stats.bytes_read_back,
                "bytes_uploaded": stats.bytes_uploaded,
                "peak_buffer_bytes": stats.peak_buffer_bytes,
                "batches": stats.batches.len(),
                "kernel_ns": kernel_ns,
            }));
        }
    }
    println!("{}", table.markdown());
    let notes = vec![
        format!("adapter: {adapter}"),
        format!(
            "CPU: each batch whole, on all {threads} threads; GPU: each batch whole after an \
             untimed warm-up call (upload and kernel compilation); pairs compared by hash and \
             pose by pose"
        ),
        if clock {
            "top kernels: shares of device time from timestamps, in a second pass of at most \
             1,000 poses"
                .to_string()
        } else {
            "top kernels: the adapter writes no timestamps between dispatches".to_string()
        },
    ];
    let timing = "each batch timed whole";
    write_report_timed(
        &a.common.out,
        "gpu",
        "GPU against CPU",
        &notes,
        &table,
        timing,
    )?;
    let labels = rows.len();
    write_plot(
        &a.common.out,
        "gpu",
        &[Panel {
            title: format!("time per pose, {labels} rows in table order"),
            x: "row".into(),
            y: "µs per pose".into(),
            series: vec![
                Series {
                    name: "CPU".into(),
                    points: cpu_series,
                },
                Series {
                    name: "GPU".into(),
                    points: gpu_series,
                },
            ],
        }],
    )?;
    if let Some(path) = &a.json {
        let doc = serde_json::json!({
            "adapter": {
                "name": info.name,
                "backend": format!("{:?}", info.backend),
                "device_type": format!("{:?}", info.device_type),
                "driver": info.driver,
                "driver_info": info.driver_info,
            },
            "cpu_threads": threads,
            "quick": a.quick,
            "rows": rows,
        });
        let text = serde_json::to_string_pretty(&doc).map_err(gpu_failure)? + "\n";
        crate::cli::write_text(Some(path), &text)?;
    }
    a.common.wrote("gpu");
    if differ.is_empty() {
        Ok(())
    } else {
        Err(Failure::Internal(format!(
            "bench gpu: the GPU's pairs differ from the CPU's on {}",
            differ.join(", ")
        )))
    }
}
