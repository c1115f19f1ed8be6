//! Every WGSL entry point against its CPU twin in `gpu::mirror`, one dispatch at a time: the
//! same buffer contents in, the GPU's buffers read back and compared with what the twin
//! wrote. Bit for bit where the kernel is deterministic (tumbling, refit, the `prepare_*`
//! counters); where invocations append through atomics (`expand`, `expand_dual`,
//! `tri_test`) the order of the appended pairs is the device's, so the pairs compare as
//! sorted lists and every counter exactly. Then the whole pipeline: the mirror composed of
//! the twins against the GPU for the dual hierarchy and exact tumbling.
//!
//! One module per shader, named as its twin in `src/gpu/mirror/` and its file in `shaders/`:
//!
//! | module | entry points |
//! | --- | --- |
//! | [`kdop_tumble`] | `tumble_front`, `tumble_fresh`, `rehash`, `reslot`, `tumble_exact_leaves`, `tumble_exact_merge` |
//! | [`kdop_refit`] | `refit_leaves`, `refit_internal` |
//! | [`front_prepare`] | `prepare_tumble`, the hand-over of every expansion |
//! | [`front_expand`] | `expand`, `expand_dual`, `expand_record` (and `tri_test` after `expand`) |
//! | [`tri_tri`] | `tri_test`, `tri_test_self` (after `expand_self` of `front_expand.wgsl`) |
//! | [`front_coherent`] | `record_counts`, `gather_seeds` |
//!
//! This file holds the harness (one dispatch of one entry point, compiled and bound through
//! `gpu::kernels`, its bindings by their registered names) and the composed pipeline
//! (`src/gpu/mirror/mod.rs`). One target: `cargo test --release --test gpu_mirror` runs
//! every module, `cargo test --release --test gpu_mirror kdop_tumble::` one shader's.

#![cfg(feature = "gpu")]

#[path = "../common/mod.rs"]
mod common;

mod front_coherent;
mod front_expand;
mod front_prepare;
mod kdop_refit;
mod kdop_tumble;
mod tri_tri;

use bytemuck::Pod;
use meshcollide::dual::{DualOptions, DualScene, SlabOrder};
use meshcollide::gpu::collide::GpuScene;
use meshcollide::gpu::kernels::{self, Bindable, Kernel, Pipeline};
use meshcollide::gpu::layout::FrontPair;
use meshcollide::gpu::mirror;
use meshcollide::gpu::paged::Paging;
use meshcollide::gpu::shader::{DISPATCH_X, WORKGROUP_SIZE};
use meshcollide::gpu::{GpuContext, collide::GpuPairScene};
use meshcollide::kdop::KdopScene as Scene;
use meshcollide::pose::tumbling_poses;
use meshcollide::*;
use std::collections::HashMap;
use wgpu::BufferUsages as U;

/// The device, with the pipelines built so far (lavapipe compiles slowly).
struct Gpu {
    ctx: GpuContext,
    pipes: HashMap<(&'static str, usize), Pipeline>,
}

impl Gpu {
    fn new() -> Option<Gpu> {
        Some(Gpu {
            ctx: common::gpu()?,
            pipes: HashMap::new(),
        })
    }

    fn buf<T: Pod>(&self, data: &[T]) -> wgpu::Buffer {
        self.ctx
            .storage("test", bytemuck::cast_slice(data), U::empty())
    }

    /// A uniform of at least 16 bytes.
    fn uniform<T: Pod>(&self, v: &T) -> wgpu::Buffer {
        let mut b = bytemuck::bytes_of(v).to_vec();
        b.resize(b.len().max(16), 0);
        self.ctx.storage("uniform", &b, U::UNIFORM)
    }

    fn read<T: Pod>(&self, b: &wgpu::Buffer, n: usize) -> Vec<T> {
        self.ctx.read_pod(b, n).unwrap()
    }

    /// One dispatch of `kernel` (compiled by `gpu::kernels::pipeline` for `h` slabs, as
    /// the library compiles it) over `n` invocations, gridded like `gpu::collide`. Its
    /// bindings by name, as `gpu::kernels` registers them: every one the entry point uses,
    /// whole buffers (a dynamic uniform at offset 0).
    fn run(
        &mut self,
        kernel: &'static Kernel,
        h: usize,
        bindings: &[(&str, &wgpu::Buffer)],
        n: u64,
    ) {
        let ctx = &self.ctx;
        let pipe = self
            .pipes
            .entry((kernel.entry, h))
            .or_insert_with(|| kernels::pipeline(ctx, kernel, h, &Paging::default()));
        let named: Vec<(&str, &dyn Bindable)> = bindings
            .iter()
            .map(|&(name, b)| (name, b as &dyn Bindable))
            .collect();
        let bg = pipe.bind(ctx, &named);
        let g = n.div_ceil(WORKGROUP_SIZE as u64).max(1);
        let (gx, gy) = if g <= DISPATCH_X as u64 {
            (g as u32, 1)
        } else {
            (DISPATCH_X, g.div_ceil(DISPATCH_X as u64) as u32)
        };
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(pipe);
            pass.set_bind_group(0, &bg, &vec![0; kernel.dynamic_offsets()]);
            pass.dispatch_workgroups(gx, gy, 1);
        }
        ctx.queue.submit([enc.finish()]);
    }
}

fn bits<T: Pod>(v: &[T]) -> Vec<u32> {
    bytemuck::cast_slice(v).to_vec()
}

fn sorted(mut v: Vec<FrontPair>) -> Vec<(u32, u32, u32, u32)> {
    let mut t: Vec<_> = v.drain(..).map(|p| (p.pose, p.a, p.b, p.slot)).collect();
    t.sort_unstable();
    t
}

fn poses() -> Vec<Pose> {
    tumbling_poses(6, [0.0; 3], [0.4, 0.1, 0.0])
}

fn kdop_scene<const H: usize>(leaf: u32) -> Scene<H> {
    kdop_scene_with(leaf, KdopOptions::PAPER)
}

fn kdop_scene_with<const H: usize>(leaf: u32, options: KdopOptions) -> Scene<H> {
    let (a, b) = common::tori(10);
    let o = BuildOptions {
        leaf_size: leaf,
        ..Default::default()
    };
    Scene::build(&a, &b, &o, &o, options)
}

fn dual_scene<const H: usize>(options: DualOptions) -> DualScene<H> {
    let (a, b) = common::tori(10);
    let o = BuildOptions::default();
    DualScene::build(&a, &b, &o, &o, &options)
}

/// The twins composed (`collide_batch_mirror_with`) against the GPU pipeline where the
/// existing parity tests do not run the mirror: exact tumbling and the dual hierarchy.
#[test]
fn mirror_pipeline_matches_the_gpu() {
    let Some(gpu) = Gpu::new() else { return };
    let ctx = &gpu.ctx;
    let poses = poses();
    fn check<const H: usize, S: GpuPairScene<H>>(ctx: &GpuContext, scene: &S, poses: &[Pose]) {
        let mut g = GpuScene::new(ctx, scene).unwrap();
        for (mode, tumble) in [
            (Mode::All, TumbleMethod::Exact),
            (Mode::All, TumbleMethod::Approximate),
            (Mode::First, TumbleMethod::Exact),
        ] {
            let (got, gs) = g
                .collide_batch(ctx, scene, poses, mode, tumble, None)
                .unwrap();
            let (want, ms) = mirror::collide_batch_mirror_with(scene, poses, mode, tumble);
            let label = format!("H={H} {mode:?} {tumble:?}");
            for (i, (g, m)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.pairs.is_empty(), m.pairs.is_empty(), "{label} pose {i}");
                if mode == Mode::All {
                    assert_eq!(g.pairs, m.pairs, "{label} pose {i}");
                    assert_eq!(g.counters, m.counters, "{label} pose {i}");
                }
            }
            if mode == Mode::All {
                assert_eq!(gs.level_sizes, ms.level_sizes, "{label}: level sizes");
            }
        }
    }
    check::<9, _>(ctx, &kdop_scene::<9>(1), &poses);
    check::<9, _>(ctx, &dual_scene::<9>(DualOptions::default()), &poses);
    let options = DualOptions {
        symmetric: true,
        order: SlabOrder::Fixed,
    };
    check::<13, _>(ctx, &dual_scene::<13>(options), &poses);
}
