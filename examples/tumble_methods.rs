//! Rigid tumbling of the flying hierarchy, approximation method against exact bottom-up
//! refit, on the CPU and on the GPU (Klosowski et al., *Efficient Collision Detection Using
//! Bounding Volume Hierarchies of k-DOPs*, 1998, section 4.1; the "measure both").
//! Every node of B is updated for every pose in all four rows (dense), so the rows compare
//! the per-node cost of the methods.
//!
//! GPU: the batch pipeline with B placed far from A, so the front dies at the root and a
//! submission is the dense tumbling kernels plus empty levels (plus the host's pose frames
//! and uploads), for each method; and, for comparison, the deforming-refit kernels on
//! vertices posed by the host, one pose at a time.
//!
//! `cargo run --release --example tumble_methods [mesh] [poses]`

use meshcollide::gpu::{GpuContext, GpuRefit};
use meshcollide::kdop::KdopScene;
use meshcollide::pose::tumbling_poses;
use meshcollide::tumble::tumble_points;
use meshcollide::{BuildOptions, Bvh, Mode, Pose, TumbleMethod};
use std::time::Instant;

fn main() -> Result<(), meshcollide::Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let default = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/meshes/stanford-bunny.obj"
    );
    let path = args.first().map_or(default, |s| s.as_str());
    let n: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(64);
    let m = meshcollide::mesh::load(path.as_ref())?;
    let o = BuildOptions::default();
    let scene = KdopScene::<9>::build(&m, &m, &o, &o, meshcollide::KdopOptions::PAPER);
    let fly = &scene.fly;
    let nodes = fly.bvh.nodes.len();
    // Far away: B never meets A, so only tumbling costs.
    let poses: Vec<Pose> = tumbling_poses(n, [0.0; 3], [1e3, 0.0, 0.0]);
    println!(
        "{path}: {} triangles, {nodes} flying nodes (kdop18, leaf 1), {n} poses",
        m.triangle_count()
    );

    let t = Instant::now();
    let frames = fly.pose_frames(scene.env.frame(), &poses);
    let mut sink = 0.0f32;
    for f in &frames {
        for node in 1..nodes {
            sink += tumble_points(f, fly.node_points(node)).max[0];
        }
    }
    let cpu_approx = t.elapsed().as_secs_f64() / n as f64;

    let mut bvh: Bvh<9> = fly.bvh.clone();
    let t = Instant::now();
    for p in &poses {
        let moved: Vec<[f64; 3]> = m.positions.iter().map(|&v| p.apply(v)).collect();
        bvh.refit(&moved, &m.triangles)?;
        sink += bvh.nodes[0].bv.max[0];
    }
    let cpu_exact = t.elapsed().as_secs_f64() / n as f64;
    println!(
        "cpu (1 thread): approximation {:.2} ms/pose, exact refit {:.2} ms/pose",
        cpu_approx * 1e3,
        cpu_exact * 1e3
    );

    let ctx = GpuContext::new()?;
    let mut gscene = meshcollide::gpu::collide::GpuScene::new(&ctx, &scene)?;
    let _ = gscene.collide_batch(
        &ctx,
        &scene,
        &poses[..1],
        Mode::All,
        TumbleMethod::Approximate,
        None,
    )?; // warm-up
    let t = Instant::now();
    let (_, stats) = gscene.collide_batch(
        &ctx,
        &scene,
        &poses,
        Mode::All,
        TumbleMethod::Approximate,
        None,
    )?;
    let gpu_approx = t.elapsed().as_secs_f64() / n as f64;
    let t = Instant::now();
    let (_, stats_exact) =
        gscene.collide_batch(&ctx, &scene, &poses, Mode::All, TumbleMethod::Exact, None)?;
    let gpu_exact = t.elapsed().as_secs_f64() / n as f64;
    let mut refit = GpuRefit::new(&ctx, &fly.bvh, &m)?;
    let t = Instant::now();
    for p in &poses {
        let moved: Vec<[f64; 3]> = m.positions.iter().map(|&v| p.apply(v)).collect();
        refit.refit(&ctx, &moved)?;
    }
    ctx.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(meshcollide::gpu::GpuError::from)?;
    let gpu_deform = t.elapsed().as_secs_f64() / n as f64;
    println!(
        "gpu ({}): batch pipeline, approximation {:.2} ms/pose ({} submissions), exact refit {:.2} ms/pose ({} submissions); deforming-refit kernels on host-posed vertices {:.2} ms/pose",
        ctx.adapter_name(),
        gpu_approx * 1e3,
        stats.submissions,
        gpu_exact * 1e3,
        stats_exact.submissions,
        gpu_deform * 1e3
    );
    if sink.is_nan() {
        println!("(sink {sink})");
    }
    Ok(())
}
