//! GPU refit ("BVHs for Deformable Objects" in the University of Freiburg's lecture slides
//! *Collision Detection*) against the CPU refit: bit-identical node arrays for every k,
//! leaf size, mesh and deformation, and the CPU result passes `validate` (every leaf
//! contains its new corners exactly).
//!
//! Without a GPU adapter the tests print `SKIP:` and pass, unless
//! `MESHCOLLIDE_REQUIRE_GPU=1`, which turns a missing adapter into a failure.

mod common;

use meshcollide::gpu::{GpuContext, GpuRefit};
use meshcollide::mesh::MAX_COORDINATE;
use meshcollide::mesh::generate::{degenerate_soup, grid, random_soup, torus, uv_sphere};
use meshcollide::rng::Rng;
use meshcollide::{BuildOptions, Bvh, Mesh};
use std::time::Instant;

/// Coordinates at the edges of what a mesh may hold ([`MAX_COORDINATE`] = 2^100) and of the
/// f32 range: tiny and subnormal in f32 (flushed by some GPUs), exact cancellation; the
/// `edge` deformation takes the huge ones to where sums overflow f32.
fn extreme_mesh() -> Mesh {
    // f32 values, widened exactly: the refit's f32 stages see them unrounded.
    let vals = [
        MAX_COORDINATE as f32,
        -MAX_COORDINATE as f32,
        1.0e30,
        1e8,
        -1e8,
        1.0,
        1e-20,
        1e-38,
        1e-40,
        -1e-45,
        0.0,
        -0.0,
    ]
    .map(f64::from);
    let mut rng = Rng::new(99);
    let mut positions = Vec::new();
    let mut triangles = Vec::new();
    for i in 0..300u32 {
        for _ in 0..3 {
            positions.push(std::array::from_fn(|_| {
                vals[rng.below(vals.len() as u64) as usize]
            }));
        }
        triangles.push([3 * i, 3 * i + 1, 3 * i + 2]);
    }
    Mesh::new(positions, triangles).unwrap()
}

fn meshes() -> Vec<(&'static str, Mesh)> {
    vec![
        ("torus", torus([0.3, -0.2, 0.1], 2.0, 0.5, 40, 16)),
        // Far from the origin: both refits work in the hierarchy's local frame.
        ("far_torus", torus([1.0e6, -2.0e6, 3.5], 2.0, 0.5, 40, 16)),
        ("uv_sphere", uv_sphere([1.0, 2.0, 3.0], 1.5, 17, 23)),
        ("random_soup", random_soup(5, 1500, 10.0, 0.8)),
        ("degenerate_soup", degenerate_soup(6, 700, 4.0)),
        ("grid", grid(30, 21, 0.25, 0.0)),
        ("extreme", extreme_mesh()),
    ]
}

/// Deformations of the vertices: random displacement, a twist about z, large scale changes.
fn deformations(mesh: &Mesh, seed: u64) -> Vec<(&'static str, Vec<[f64; 3]>)> {
    let p = &mesh.positions;
    let mut rng = Rng::new(seed);
    let jitter: Vec<[f64; 3]> = p
        .iter()
        .map(|v| v.map(|c| c + rng.range(-0.05, 0.05)))
        .collect();
    let twist: Vec<[f64; 3]> = p
        .iter()
        .map(|&[x, y, z]| {
            let a = 0.7 * z;
            let (s, c) = a.sin_cos();
            [c * x - s * y, s * x + c * y, z]
        })
        .collect();
    let grow: Vec<[f64; 3]> = p.iter().map(|v| v.map(|c| c * 3.0e5 - 7.0)).collect();
    let shrink: Vec<[f64; 3]> = p.iter().map(|v| v.map(|c| c * 1.0e-9 + 1e-30)).collect();
    // Exact scaling by 2^28, then clamped: the extreme mesh's coordinates pile up at the
    // supported range's ends.
    let edge: Vec<[f64; 3]> = p.iter().map(|v| v.map(|c| c * 268435456.0)).collect();
    // Keep the deformed coordinates in the range the exact predicates support (as `refit`
    // requires): clamp to ±2^100, flush magnitudes below 2^-200 to 0.
    let (lim, tiny) = (
        meshcollide::mesh::MAX_COORDINATE,
        meshcollide::mesh::MIN_COORDINATE,
    );
    let fin = |v: Vec<[f64; 3]>| -> Vec<[f64; 3]> {
        v.into_iter()
            .map(|q| {
                q.map(|c| {
                    if c.abs() < tiny {
                        0.0
                    } else {
                        c.clamp(-lim, lim)
                    }
                })
            })
            .collect()
    };
    let (jitter, twist, grow, shrink, edge) =
        (fin(jitter), fin(twist), fin(grow), fin(shrink), fin(edge));
    vec![
        ("identity", p.clone()),
        ("jitter", jitter),
        ("twist", twist),
        ("grow", grow),
        ("shrink", shrink),
        ("edge", edge),
    ]
}

fn parity<const H: usize>(ctx: &GpuContext, name: &str, mesh: &Mesh, leaf_size: u32) {
    let options = BuildOptions {
        leaf_size,
        ..Default::default()
    };
    let bvh = Bvh::<H>::build(mesh, &options);
    let mut gpu = GpuRefit::new(ctx, &bvh, mesh).unwrap();
    for (dname, positions) in deformations(mesh, H as u64 * 31 + u64::from(leaf_size)) {
        let what = format!("k={} leaf={leaf_size} {name} {dname}", 2 * H);
        let mut cpu = bvh.clone();
        cpu.refit(&positions, &mesh.triangles).unwrap();
        cpu.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
        for (a, b) in cpu.nodes.iter().zip(&bvh.nodes) {
            assert_eq!((a.first, a.count), (b.first, b.count), "{what}: structure");
        }
        if dname == "grow" {
            assert!(cpu.nodes != bvh.nodes, "{what}: refit changed nothing");
        }
        gpu.refit(ctx, &positions).unwrap();
        let got = gpu.read_nodes(ctx).unwrap();
        let (want_b, got_b): (&[u8], &[u8]) =
            (bytemuck::cast_slice(&cpu.nodes), bytemuck::cast_slice(&got));
        if want_b != got_b {
            let i = cpu
                .nodes
                .iter()
                .zip(&got)
                .position(|(a, b)| bytemuck::bytes_of(a) != bytemuck::bytes_of(b));
            let i = i.unwrap_or(0);
            panic!(
                "{what}: GPU nodes differ from CPU, first at node {i}:\ncpu {:?}\ngpu {:?}",
                cpu.nodes[i], got[i]
            );
        }
    }
}

#[test]
fn gpu_refit_is_bit_identical_to_cpu_refit() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    eprintln!("adapter: {}", ctx.adapter_name());
    for (name, mesh) in meshes() {
        for leaf_size in [1, 4] {
            parity::<3>(&ctx, name, &mesh, leaf_size);
            parity::<7>(&ctx, name, &mesh, leaf_size);
            parity::<9>(&ctx, name, &mesh, leaf_size);
            parity::<13>(&ctx, name, &mesh, leaf_size);
        }
    }
}

/// Refitting many times reuses the uploaded hierarchy; also reports timings (run with
/// `--nocapture`).
#[test]
fn gpu_refit_repeated_and_timed() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let mesh = torus([0.0, 0.0, 0.0], 2.0, 0.5, 500, 200); // 200k triangles
    let bvh = Bvh::<13>::build(&mesh, &BuildOptions::default());
    let t = Instant::now();
    let mut gpu = GpuRefit::new(&ctx, &bvh, &mesh).unwrap();
    let setup = t.elapsed();
    let mut cpu = bvh.clone();
    let (mut t_cpu, mut t_gpu, mut t_read) = (0.0, 0.0, 0.0);
    let frames = 4;
    for f in 0..frames {
        let s = 1.0 + 0.1 * f64::from(f);
        let positions: Vec<[f64; 3]> = mesh
            .positions
            .iter()
            .map(|&[x, y, z]| [x * s, y, z / s + 0.01 * x])
            .collect();
        let t = Instant::now();
        cpu.refit(&positions, &mesh.triangles).unwrap();
        t_cpu += t.elapsed().as_secs_f64();
        let t = Instant::now();
        gpu.refit(&ctx, &positions).unwrap();
        ctx.device
            .poll(wgpu::PollType::wait_indefinitely())
            .unwrap();
        t_gpu += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let got = gpu.read_nodes(&ctx).unwrap();
        t_read += t.elapsed().as_secs_f64();
        assert!(
            bytemuck::cast_slice::<_, u8>(&cpu.nodes) == bytemuck::cast_slice::<_, u8>(&got),
            "frame {f}: GPU nodes differ"
        );
    }
    cpu.validate().unwrap();
    let f = f64::from(frames);
    println!(
        "refit 26-DOP, {} triangles, {} nodes, {} dispatches on {}: setup {:.1} ms; per frame \
         CPU {:.2} ms, GPU upload+refit {:.2} ms, readback {:.2} ms",
        mesh.triangle_count(),
        bvh.nodes.len(),
        gpu.dispatch_count(),
        ctx.adapter_name(),
        setup.as_secs_f64() * 1e3,
        t_cpu / f * 1e3,
        t_gpu / f * 1e3,
        t_read / f * 1e3,
    );
}

/// Mismatched inputs are typed errors, not panics.
#[test]
fn gpu_refit_rejects_mismatched_inputs() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let mesh = torus([0.0, 0.0, 0.0], 1.0, 0.3, 12, 6);
    let other = torus([0.0, 0.0, 0.0], 1.0, 0.3, 10, 6);
    let bvh = Bvh::<9>::build(&mesh, &BuildOptions::default());
    assert!(GpuRefit::new(&ctx, &bvh, &other).is_err());
    let mut g = GpuRefit::new(&ctx, &bvh, &mesh).unwrap();
    assert!(g.refit(&ctx, &mesh.positions[1..]).is_err());
    assert!(g.refit(&ctx, &mesh.positions).is_ok());
}
