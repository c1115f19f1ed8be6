//! Every WGSL entry point against its CPU twin in `gpu::mirror`, one dispatch at a time: the
//! same buffer contents in, the GPU's buffers read back and compared with what the twin
//! wrote. Bit for bit where the kernel is deterministic (tumbling, refit, the `prepare_*`
//! counters); where invocations append through atomics (`expand`, `expand_dual`,
//! `tri_test`) the order of the appended pairs is the device's, so the pairs compare as
//! sorted lists and every counter exactly. Then the whole pipeline: the mirror composed of
//! the twins against the GPU for the dual hierarchy and exact tumbling.

#![cfg(feature = "gpu")]

#[allow(dead_code)] // not every helper is used here
mod common;

use bytemuck::Pod;
use meshcollide::bv::{Kdop, KdopNode};
use meshcollide::dual::{DualOptions, DualScene, SlabOrder};
use meshcollide::gpu::collide::GpuScene;
use meshcollide::gpu::layout::{
    FrontPair, GpuCounters, HandOver, HandOverParams, LaneRecord, NO_LANE, NO_SLOT, RefitRange,
    SliceParams,
};
use meshcollide::gpu::mirror::front_expand::{self, DualBindings, ExpandBindings, RecordBindings};
use meshcollide::gpu::mirror::tri_tri::{self, TriTestBindings};
use meshcollide::gpu::mirror::{self, front_coherent, front_prepare, kdop_refit, kdop_tumble};
use meshcollide::gpu::shader::{DISPATCH_X, WORKGROUP_SIZE, source};
use meshcollide::gpu::{GpuContext, collide::GpuHierarchies};
use meshcollide::kdop::KdopScene as Scene;
use meshcollide::pose::tumbling_poses;
use meshcollide::tumble::PoseFrame;
use meshcollide::*;
use std::collections::HashMap;
use wgpu::BufferUsages as U;

/// The device, with the pipelines built so far (lavapipe compiles slowly).
struct Gpu {
    ctx: GpuContext,
    pipes: HashMap<(String, String, usize), wgpu::ComputePipeline>,
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

    /// One dispatch of `entry` of `file` (assembled by `gpu::shader` for `h` slabs) over
    /// `n` invocations, gridded like `gpu::collide`. The auto layout holds exactly the
    /// bindings the entry point uses: `bindings` must list those.
    fn run(
        &mut self,
        file: &str,
        entry: &str,
        h: usize,
        bindings: &[(u32, &wgpu::Buffer)],
        n: u64,
    ) {
        let ctx = &self.ctx;
        let pipe = self
            .pipes
            .entry((file.into(), entry.into(), h))
            .or_insert_with(|| {
                let module = ctx
                    .device
                    .create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some(file),
                        source: wgpu::ShaderSource::Wgsl(source(file, h).into()),
                    });
                ctx.device
                    .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(entry),
                        layout: None,
                        module: &module,
                        entry_point: Some(entry),
                        compilation_options: Default::default(),
                        cache: None,
                    })
            });
        let entries: Vec<wgpu::BindGroupEntry> = bindings
            .iter()
            .map(|&(binding, b)| wgpu::BindGroupEntry {
                binding,
                resource: b.as_entire_binding(),
            })
            .collect();
        let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipe.get_bind_group_layout(0),
            entries: &entries,
        });
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
            pass.set_bind_group(0, &bg, &[]);
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

/// `rehash` (a full table moved into one twice as large) and `reslot` (the front's pairs
/// pointed at the new slots) against their twins: every placed pair's new slot holds the
/// k-DOP its old slot held, the keys are the same, nothing overflows.
fn grow_table<const H: usize>(
    gpu: &mut Gpu,
    front: &[FrontPair],
    keys_b: &wgpu::Buffer,
    tumbled_b: &wgpu::Buffer,
    c: GpuCounters,
    table: u32,
) {
    let big = 2 * table;
    let old_keys: Vec<u32> = gpu.read(keys_b, table as usize);
    let old_tumbled: Vec<Kdop<H>> = gpu.read(tumbled_b, table as usize);
    let c1 = GpuCounters {
        hash_mask: big - 1,
        n_in: front.len() as u32,
        ..c
    };
    let front_b = &gpu.buf(front);
    let (new_t, new_k, c1_b) = (
        gpu.buf(&vec![Kdop::<H>::EMPTY; big as usize]),
        gpu.buf(&vec![0u32; big as usize]),
        gpu.buf(&[c1]),
    );
    let b = [
        (3, &new_t),
        (10, &c1_b),
        (11, &new_k),
        (13, keys_b),
        (14, tumbled_b),
    ];
    gpu.run("kdop_tumble.wgsl", "rehash", H, &b, table as u64);
    let b = [(9, front_b), (10, &c1_b), (11, &new_k)];
    gpu.run("kdop_tumble.wgsl", "reslot", H, &b, front.len() as u64);
    let (mut m_t, mut m_k, mut m_c) = (
        vec![Kdop::<H>::EMPTY; big as usize],
        vec![0u32; big as usize],
        c1,
    );
    let mut m_front = front.to_vec();
    kdop_tumble::rehash(&mut m_t, &mut m_c, &mut m_k, &old_keys, &old_tumbled);
    kdop_tumble::reslot(&mut m_front, &mut m_c, &m_k);
    assert_eq!(m_c.overflow, 0, "the twin's table grew without overflow");
    let g_c: GpuCounters = gpu.read(&c1_b, 1)[0];
    assert_eq!(g_c.overflow, 0, "rehash/reslot H={H}: overflow");
    let g_front: Vec<FrontPair> = gpu.read(front_b, front.len());
    let g_t: Vec<Kdop<H>> = gpu.read(&new_t, big as usize);
    let mut moved = 0;
    for (i, old) in front.iter().enumerate() {
        if old.slot == NO_SLOT {
            continue;
        }
        let was = bits(&[old_tumbled[old.slot as usize]]);
        assert_eq!(
            bits(&[g_t[g_front[i].slot as usize]]),
            was,
            "reslot H={H} pair {i}"
        );
        assert_eq!(
            bits(&[m_t[m_front[i].slot as usize]]),
            was,
            "twin H={H} pair {i}"
        );
        moved += 1;
    }
    assert!(moved > 0);
    let sorted = |mut k: Vec<u32>| {
        k.retain(|&x| x != 0);
        k.sort_unstable();
        k
    };
    let g_k = sorted(gpu.read(&new_k, big as usize));
    assert_eq!(g_k, sorted(m_k), "rehash H={H}: keys");
    assert_eq!(g_k, sorted(old_keys), "rehash H={H}: every key moved");
}

/// `tumble_front`, `prepare_tumble` and `tumble_fresh` (lazy tumbling into a hash table)
/// against their twins: every pair's slot holds the same k-DOP on both sides (slots may
/// differ where keys collide, as insertion order does), the same keys are inserted and
/// listed as fresh, the same nodes counted per pose; a table too small overflows on both.
/// Then `tumble_exact_leaves` and `tumble_exact_merge`, bit for bit after every dispatch.
fn tumbling<const H: usize>(gpu: &mut Gpu, scene: &Scene<H>, poses: &[Pose]) {
    let fly = &scene.fly;
    let frames = fly.pose_frames(scene.env.frame(), poses);
    let (p, n_fly) = (poses.len() as u32, fly.bvh.nodes.len() as u32);
    let n = (p * n_fly) as usize;
    let frames_b = gpu.buf(&frames);
    let (offsets, points) = (gpu.buf(&fly.offsets), gpu.buf(&fly.points));
    // A front with repeated (pose, node) keys, the root, and pairs already placed.
    let mut rng = meshcollide::rng::Rng::new(5);
    let front: Vec<FrontPair> = (0..3 * n as u32 / 4)
        .map(|i| {
            let pose = rng.below(p as u64) as u32;
            let b = if i % 7 == 0 {
                0
            } else {
                rng.below(n_fly as u64 / 3) as u32
            };
            let slot = if i % 11 == 0 { 3 } else { NO_SLOT };
            FrontPair {
                pose,
                a: i,
                b,
                slot,
            }
        })
        .collect();
    for table in [(2 * n).next_power_of_two() as u32, 16] {
        let c0 = GpuCounters {
            n_in: front.len() as u32,
            n_fly,
            lazy: 1,
            hash_mask: table - 1,
            ..Default::default()
        };
        let (tumbled_b, front_b, c_b, keys_b, nu_b, fresh_b, args_b) = (
            gpu.buf(&vec![Kdop::<H>::EMPTY; table as usize]),
            gpu.buf(&front),
            gpu.buf(&[c0]),
            gpu.buf(&vec![0u32; table as usize]),
            gpu.buf(&vec![0u32; p as usize]),
            gpu.buf(&vec![0u32; table as usize]),
            gpu.buf(&[0u32; 9]),
        );
        let b = [
            (9, &front_b),
            (10, &c_b),
            (11, &keys_b),
            (12, &nu_b),
            (15, &fresh_b),
        ];
        gpu.run(
            "kdop_tumble.wgsl",
            "tumble_front",
            H,
            &b,
            front.len() as u64,
        );
        gpu.run(
            "front_prepare.wgsl",
            "prepare_tumble",
            H,
            &[(0, &c_b), (1, &args_b)],
            1,
        );
        let b = [
            (0, &frames_b),
            (1, &offsets),
            (2, &points),
            (3, &tumbled_b),
            (10, &c_b),
            (11, &keys_b),
            (15, &fresh_b),
        ];
        gpu.run("kdop_tumble.wgsl", "tumble_fresh", H, &b, table as u64);
        let mut cpu_tumbled = vec![Kdop::<H>::EMPTY; table as usize];
        let mut cpu_front = front.clone();
        let mut c = c0;
        let mut keys = vec![0u32; table as usize];
        let mut nu = vec![0u32; p as usize];
        let mut fresh = vec![0u32; table as usize];
        let mut args = [0u32; 9];
        kdop_tumble::tumble_front(&mut cpu_front, &mut c, &mut keys, &mut nu, &mut fresh);
        front_prepare::prepare_tumble(&mut c, &mut args);
        kdop_tumble::tumble_fresh(
            &frames,
            &fly.offsets,
            &fly.points,
            &mut cpu_tumbled,
            &c,
            &keys,
            &fresh,
        );
        let g_c: GpuCounters = gpu.read(&c_b, 1)[0];
        assert_eq!(
            (g_c.n_fresh, g_c.fresh_in),
            (c.n_fresh, c.fresh_in),
            "prepare_tumble H={H}"
        );
        assert_eq!(
            gpu.read::<u32>(&args_b, 9)[6..],
            args[6..],
            "prepare_tumble H={H}"
        );
        // On each side the fresh list names every inserted key once (full table or not).
        let g_table: Vec<u32> = gpu.read(&keys_b, table as usize);
        let g_fresh: Vec<u32> = gpu.read(&fresh_b, g_c.fresh_in as usize);
        for (side, table_keys, list) in [
            ("gpu", &g_table, &g_fresh[..]),
            ("twin", &keys, &fresh[..c.fresh_in as usize]),
        ] {
            let mut listed: Vec<u32> = list.iter().map(|&h| table_keys[h as usize]).collect();
            let mut inserted: Vec<u32> = table_keys.iter().copied().filter(|&k| k != 0).collect();
            listed.sort_unstable();
            inserted.sort_unstable();
            assert_eq!(listed, inserted, "tumble_front H={H} {side}: fresh slots");
        }
        assert_eq!(
            g_c.overflow & 16,
            c.overflow & 16,
            "tumble_front H={H} overflow"
        );
        if table == 16 {
            assert_ne!(c.overflow & 16, 0, "a 16-slot table must fill up");
            continue;
        }
        assert_eq!(c.overflow, 0);
        let g_front: Vec<FrontPair> = gpu.read(&front_b, front.len());
        let g_tumbled: Vec<Kdop<H>> = gpu.read(&tumbled_b, table as usize);
        for (i, (g, m)) in g_front.iter().zip(&cpu_front).enumerate() {
            assert_eq!((g.pose, g.a, g.b), (m.pose, m.a, m.b));
            if front[i].slot != NO_SLOT {
                assert_eq!(g.slot, front[i].slot, "a placed pair keeps its slot");
                continue;
            }
            assert_eq!(
                bits(&[g_tumbled[g.slot as usize]]),
                bits(&[cpu_tumbled[m.slot as usize]]),
                "tumble_front H={H} pair {i}"
            );
            // And it is the node's k-DOP at that pose (the CPU traversal's formula).
            let want = if g.b == 0 {
                frames[g.pose as usize].root
            } else {
                fly.tumble_node(g.b as usize, &frames[g.pose as usize])
            };
            assert_eq!(bits(&[g_tumbled[g.slot as usize]]), bits(&[want]));
        }
        let mut g_keys: Vec<u32> = gpu.read(&keys_b, table as usize);
        g_keys.retain(|&k| k != 0);
        g_keys.sort_unstable();
        keys.retain(|&k| k != 0);
        keys.sort_unstable();
        assert_eq!(g_keys, keys, "tumble_front H={H}: inserted keys");
        assert_eq!(
            gpu.read::<u32>(&nu_b, p as usize),
            nu,
            "tumble_front H={H}: nu"
        );
        assert_eq!(g_c.n_tumbled, c.n_tumbled);
        assert!(c.n_tumbled > p, "some nodes tumbled per pose");
        // The pairs tumble_front placed (the made-up slots of the others name no key).
        let placed: Vec<FrontPair> = g_front
            .iter()
            .zip(&front)
            .filter(|(_, f)| f.slot == NO_SLOT)
            .map(|(g, _)| *g)
            .collect();
        grow_table::<H>(gpu, &placed, &keys_b, &tumbled_b, g_c, table);
    }
    // Exact method: the leaves, then one merge per level, compared after each dispatch.
    let tris = fly.bvh.tris.all_corners_f32();
    let (node_list, slices) = kdop_tumble::exact_dispatch_order(&fly.bvh);
    let tumbled_b = gpu.buf(&vec![Kdop::<H>::EMPTY; n]);
    let (nodes_b, tris_b, list_b) = (gpu.buf(&fly.bvh.nodes), gpu.buf(&tris), gpu.buf(&node_list));
    let mut cpu = vec![Kdop::<H>::EMPTY; n];
    for (k, &(start, count)) in slices.iter().enumerate() {
        let slice = SliceParams {
            start,
            count,
            n_poses: p,
            n_fly,
        };
        let slice_b = gpu.uniform(&slice);
        let grid = (count * p) as u64;
        if k == 0 {
            let b = [
                (0, &frames_b),
                (3, &tumbled_b),
                (5, &nodes_b),
                (6, &tris_b),
                (7, &list_b),
                (8, &slice_b),
            ];
            gpu.run("kdop_tumble.wgsl", "tumble_exact_leaves", H, &b, grid);
            kdop_tumble::tumble_exact_leaves(
                &frames,
                &mut cpu,
                &fly.bvh.nodes,
                &tris,
                &node_list,
                &slice,
            );
        } else {
            let b = [(3, &tumbled_b), (5, &nodes_b), (7, &list_b), (8, &slice_b)];
            gpu.run("kdop_tumble.wgsl", "tumble_exact_merge", H, &b, grid);
            kdop_tumble::tumble_exact_merge(&mut cpu, &fly.bvh.nodes, &node_list, &slice);
        }
        assert_eq!(
            bits(&gpu.read::<Kdop<H>>(&tumbled_b, n)),
            bits(&cpu),
            "exact tumbling H={H}, dispatch {k}"
        );
    }
}

#[test]
fn tumble_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    tumbling::<9>(&mut gpu, &kdop_scene(1), &poses);
    tumbling::<13>(&mut gpu, &kdop_scene(4), &poses);
    tumbling::<3>(&mut gpu, &kdop_scene(2), &poses);
}

/// `refit_leaves` and `refit_internal` on a deformed mesh, bit for bit after every dispatch.
fn refit<const H: usize>(gpu: &mut Gpu, mesh: &Mesh) {
    let bvh = Bvh::<H>::build(mesh, &BuildOptions::default());
    let moved: Vec<[f64; 3]> = mesh
        .positions
        .iter()
        .map(|&[x, y, z]| {
            let (s, c) = (0.6 * z).sin_cos();
            [c * x - s * y, s * x + c * y, 1.5 * z + 0.25]
        })
        .collect();
    let positions: Vec<[f32; 3]> = moved.iter().map(|&p| bvh.frame().local_f32(p)).collect();
    let tri_verts: Vec<u32> = bvh
        .tri_index
        .iter()
        .flat_map(|&t| mesh.triangles[t as usize])
        .collect();
    // The refit's dispatch order is the exact tumbling's (leaves, then levels deepest first).
    let (node_list, slices) = kdop_tumble::exact_dispatch_order(&bvh);
    let nodes_b = gpu.buf(&bvh.nodes);
    let (pos_b, verts_b, list_b) = (
        gpu.buf(&positions),
        gpu.buf(&tri_verts),
        gpu.buf(&node_list),
    );
    let mut cpu = bvh.nodes.clone();
    for (k, &(start, count)) in slices.iter().enumerate() {
        let range = RefitRange {
            start,
            count,
            ..Default::default()
        };
        let range_b = gpu.uniform(&range);
        if k == 0 {
            let b = [
                (0, &nodes_b),
                (1, &pos_b),
                (2, &verts_b),
                (3, &list_b),
                (4, &range_b),
            ];
            gpu.run("kdop_refit.wgsl", "refit_leaves", H, &b, count as u64);
            kdop_refit::refit_leaves(&mut cpu, &positions, &tri_verts, &node_list, &range);
        } else {
            let b = [(0, &nodes_b), (3, &list_b), (4, &range_b)];
            gpu.run("kdop_refit.wgsl", "refit_internal", H, &b, count as u64);
            kdop_refit::refit_internal(&mut cpu, &node_list, &range);
        }
        let got = gpu.read::<KdopNode<H>>(&nodes_b, cpu.len());
        assert_eq!(bits(&got), bits(&cpu), "refit H={H}, dispatch {k}");
    }
    // The twins compose to the CPU refit.
    let mut reference = bvh.clone();
    reference.refit(&moved, &mesh.triangles).unwrap();
    assert_eq!(
        bits(&reference.nodes),
        bits(&cpu),
        "refit H={H}: Bvh::refit"
    );
}

#[test]
fn refit_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let (a, _) = common::tori(12);
    refit::<9>(&mut gpu, &a);
    refit::<7>(
        &mut gpu,
        &common::grid_soup(&mut meshcollide::rng::Rng::new(3), 300),
    );
}

/// `prepare_tri`, `prepare_next` and `prepare_tumble` on hand-made counter states, bit for
/// bit.
#[test]
fn prepare_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let big = 2 * DISPATCH_X * WORKGROUP_SIZE + 5;
    let states = [
        (5, 3, 17, 100, 100, 0),
        (0, 0, 0, 8, 8, 1),
        (big, big, 70, big, 9, 2),
        (40, 300, 1000, 64, 256, 7),
        (7, 7, 7, 1 << 20, 1 << 20, 3),
    ];
    // Some states after an overflow: both kernels then freeze the batch.
    for (i, &(n_in, n_out, n_leaf, cap_front, cap_leaf, level)) in states.iter().enumerate() {
        let overflow = [0, 1, 0, 4, 16][i];
        let c0 = GpuCounters {
            n_in,
            n_out,
            n_leaf,
            cap_front,
            cap_leaf,
            level,
            max_front: 50,
            max_leaf: 60,
            n_contact: 4,
            n_unsure: 2,
            resumed: 3,
            overflow,
            ..Default::default()
        };
        let c0 = GpuCounters {
            n_fresh: [3, 0, big, 70, 1][i],
            fresh_in: 5,
            ..c0
        };
        let args0 = [9u32; 9];
        let sizes0 = [11u32; 4];
        let (c_b, args_b, sizes_b) = (gpu.buf(&[c0]), gpu.buf(&args0), gpu.buf(&sizes0));
        let (mut c, mut args, mut sizes) = (c0, args0, sizes0);
        gpu.run(
            "front_prepare.wgsl",
            "prepare_tri",
            9,
            &[(0, &c_b), (1, &args_b)],
            1,
        );
        front_prepare::prepare_tri(&mut c, &mut args);
        assert_eq!(gpu.read::<GpuCounters>(&c_b, 1)[0], c, "prepare_tri {i}");
        assert_eq!(gpu.read::<u32>(&args_b, 9), args, "prepare_tri {i}");
        let b = [(0, &c_b), (1, &args_b), (2, &sizes_b)];
        gpu.run("front_prepare.wgsl", "prepare_next", 9, &b, 1);
        front_prepare::prepare_next(&mut c, &mut args, &mut sizes);
        assert_eq!(gpu.read::<GpuCounters>(&c_b, 1)[0], c, "prepare_next {i}");
        assert_eq!(gpu.read::<u32>(&args_b, 9), args, "prepare_next {i}");
        assert_eq!(gpu.read::<u32>(&sizes_b, 4), sizes, "prepare_next {i}");
        if overflow != 0 {
            assert_eq!(c, c0, "frozen: no counter changes");
            assert_eq!((args[0], args[3]), (0, 0), "frozen: no dispatch after");
        }
        // `prepare_tumble` runs after an overflow too; after a full table, no `expand`.
        let (c_t, mut args_t) = (c, args0);
        let (c_b, args_b) = (gpu.buf(&[c_t]), gpu.buf(&args_t));
        gpu.run(
            "front_prepare.wgsl",
            "prepare_tumble",
            9,
            &[(0, &c_b), (1, &args_b)],
            1,
        );
        let mut c_t = c_t;
        front_prepare::prepare_tumble(&mut c_t, &mut args_t);
        assert_eq!(
            gpu.read::<GpuCounters>(&c_b, 1)[0],
            c_t,
            "prepare_tumble {i}"
        );
        assert_eq!(gpu.read::<u32>(&args_b, 9), args_t, "prepare_tumble {i}");
        assert_eq!((c_t.n_fresh, c_t.fresh_in), (0, c.n_fresh));
        assert_eq!(
            args_t[0] == 0,
            overflow & 16 != 0,
            "prepare_tumble {i}: expand"
        );
        if overflow == 0 {
            assert_eq!(
                (c.contact_mark, c.unsure_mark),
                (4, 2),
                "marks before tri_test"
            );
            assert_eq!(c.resumed, 0, "prepare_next ends a resumed level");
        }
    }
}

/// What one `expand` (or `expand_dual`) dispatch wrote.
#[derive(Debug, PartialEq)]
struct Expanded {
    counters: GpuCounters,
    front_out: Vec<(u32, u32, u32, u32)>,
    leaves: Vec<(u32, u32, u32, u32)>,
    nv: Vec<u32>,
    dual_counts: Vec<u32>,
}

/// Runs the front level by level on both sides (each level's input is the twin's output),
/// comparing every `expand` dispatch, then one `tri_test` over all leaf pairs met. `caps`:
/// `(front, leaf)` capacities, or `None` for enough room; with `first`, a third of the poses
/// start done in first-contact mode.
fn front_levels<const H: usize, S: GpuHierarchies<H>>(
    gpu: &mut Gpu,
    scene: &S,
    poses: &[Pose],
    caps: Option<(u32, u32)>,
    first: bool,
) -> Vec<FrontPair> {
    let (env, fly) = (scene.env(), scene.fly().expect("a tumbling scene"));
    let frames: Vec<PoseFrame<H>> = fly.pose_frames(env.frame(), poses);
    let (p, n_fly) = (poses.len() as u32, fly.bvh.nodes.len() as u32);
    // Dense tumbled k-DOPs (`pose · n_fly + node`), by the traversal's formula.
    let tumbled: Vec<Kdop<H>> = (0..p as usize * n_fly as usize)
        .map(|i| {
            let (pose, node) = (i / n_fly as usize, i % n_fly as usize);
            if node == 0 {
                frames[pose].root
            } else {
                fly.tumble_node(node, &frames[pose])
            }
        })
        .collect();
    let dual = scene.dual();
    let dual_flags = dual.map_or(0, |(_, _, o)| {
        (o.order == SlabOrder::PerPair) as u32 | (o.symmetric as u32) << 1
    });
    let done: Vec<u32> = (0..p).map(|i| (first && i % 3 == 1) as u32).collect();
    let (env_nodes, fly_nodes, tumbled_b, done_b, frames_b) = (
        gpu.buf(&env.nodes),
        gpu.buf(&fly.bvh.nodes),
        gpu.buf(&tumbled),
        gpu.buf(&done),
        gpu.buf(&frames),
    );
    let spheres = dual.map(|(e, f, _)| (gpu.buf(e), gpu.buf(f)));
    let zero = FrontPair::new(0, 0, 0);
    let mut front: Vec<FrontPair> = (0..p)
        .map(|pose| FrontPair {
            pose,
            a: 0,
            b: 0,
            slot: pose * n_fly,
        })
        .collect();
    let mut all_leaves = Vec::new();
    let mut level = 0;
    let mut overflowed = false;
    while !front.is_empty() {
        let (cap_front, cap_leaf) = caps.unwrap_or((2 * front.len() as u32, front.len() as u32));
        let c0 = GpuCounters {
            n_in: front.len() as u32,
            cap_front,
            cap_leaf,
            n_fly,
            mode_first: first as u32,
            dual_flags,
            descent_larger: scene.descent_larger() as u32,
            ..Default::default()
        };
        let nv0: Vec<u32> = (0..p).map(|i| 3 * i).collect();
        let dc0: Vec<u32> = (0..3 * p).collect();
        let (front_in_b, front_out_b, leaves_b, c_b, nv_b, dc_b) = (
            gpu.buf(&front),
            gpu.buf(&vec![zero; cap_front as usize]),
            gpu.buf(&vec![zero; cap_leaf as usize]),
            gpu.buf(&[c0]),
            gpu.buf(&nv0),
            gpu.buf(&dc0),
        );
        let mut b: Vec<(u32, &wgpu::Buffer)> = vec![
            (0, &env_nodes),
            (1, &fly_nodes),
            (2, &tumbled_b),
            (3, &front_in_b),
            (4, &front_out_b),
            (5, &leaves_b),
            (6, &c_b),
            (7, &nv_b),
            (8, &done_b),
        ];
        let (mut c, mut nv, mut dc) = (c0, nv0, dc0);
        let mut front_out = vec![zero; cap_front as usize];
        let mut leaves = vec![zero; cap_leaf as usize];
        let mut e = ExpandBindings {
            env_nodes: &env.nodes,
            fly_nodes: &fly.bvh.nodes,
            tumbled: &tumbled,
            front_in: &front,
            front_out: &mut front_out,
            leaves: &mut leaves,
            counters: &mut c,
            nv: &mut nv,
            done: &done,
        };
        let entry = match (dual, &spheres) {
            (Some((env_s, fly_s, _)), Some((env_sb, fly_sb))) => {
                b.extend([(9, env_sb), (10, fly_sb), (11, &frames_b), (12, &dc_b)]);
                let mut d = DualBindings {
                    env_spheres: env_s,
                    fly_spheres: fly_s,
                    frames: &frames,
                    dual_counts: &mut dc,
                };
                front_expand::expand_dual(&mut e, &mut d);
                "expand_dual"
            }
            _ => {
                front_expand::expand(&mut e);
                "expand"
            }
        };
        gpu.run("front_expand.wgsl", entry, H, &b, front.len() as u64);
        let got_c: GpuCounters = gpu.read(&c_b, 1)[0];
        let stored = |n: u32, cap: u32| n.min(cap) as usize;
        let (n_out, n_leaf) = (stored(c.n_out, cap_front), stored(c.n_leaf, cap_leaf));
        let got = Expanded {
            counters: got_c,
            front_out: sorted(gpu.read(&front_out_b, stored(got_c.n_out, cap_front))),
            leaves: sorted(gpu.read(&leaves_b, stored(got_c.n_leaf, cap_leaf))),
            nv: gpu.read(&nv_b, p as usize),
            dual_counts: gpu.read(&dc_b, 3 * p as usize),
        };
        let mut want = Expanded {
            counters: c,
            front_out: sorted(front_out[..n_out].to_vec()),
            leaves: sorted(leaves[..n_leaf].to_vec()),
            nv,
            dual_counts: dc,
        };
        if c.overflow != 0 {
            // Which appends found room is the device's order: compare the counters only.
            overflowed = true;
            want.front_out.clone_from(&got.front_out);
            want.leaves.clone_from(&got.leaves);
        }
        assert_eq!(got, want, "{entry} H={H} level {level}");
        all_leaves.extend_from_slice(&leaves[..n_leaf]);
        front_out.truncate(n_out);
        front = front_out;
        level += 1;
    }
    assert_eq!(
        caps.is_some(),
        overflowed,
        "tiny capacities overflow, ample ones do not"
    );
    assert!(level < (env.depth + fly.bvh.depth) as usize, "levels H={H}");
    if !all_leaves.is_empty() {
        tri_test::<H, S>(gpu, scene, &frames, &all_leaves, first, &done);
    }
    all_leaves
}

/// One `tri_test` dispatch over `leaves`, with ample and with tiny append capacities.
fn tri_test<const H: usize, S: GpuHierarchies<H>>(
    gpu: &mut Gpu,
    scene: &S,
    frames: &[PoseFrame<H>],
    leaves: &[FrontPair],
    first: bool,
    done0: &[u32],
) {
    let (env, fly) = (scene.env(), scene.fly().expect("a tumbling scene"));
    let (env_tris, fly_tris) = (env.tris.all_corners_f32(), fly.bvh.tris.all_corners_f32());
    let p = frames.len();
    let pairs: usize = leaves
        .iter()
        .map(|l| (env.nodes[l.a as usize].count * fly.bvh.nodes[l.b as usize].count) as usize)
        .sum();
    let zero = FrontPair::new(0, 0, 0);
    let statics = [
        gpu.buf(&env.nodes),
        gpu.buf(&fly.bvh.nodes),
        gpu.buf(&env_tris),
        gpu.buf(&fly_tris),
        gpu.buf(frames),
        gpu.buf(leaves),
    ];
    let (env_ti, fly_ti) = (gpu.buf(&env.tri_index), gpu.buf(&fly.bvh.tri_index));
    for tiny in [false, true] {
        let ample = pairs.max(1) as u32;
        let (cap_contact, cap_unsure) = if tiny { (2, 1) } else { (ample, ample) };
        let c0 = GpuCounters {
            n_leaf: leaves.len() as u32 + 5,
            cap_leaf: leaves.len() as u32,
            n_contact: 1,
            cap_contact: cap_contact + 1,
            cap_unsure,
            mode_first: first as u32,
            ..Default::default()
        };
        let np0: Vec<u32> = (0..p as u32).map(|i| 7 * i).collect();
        let (c_b, np_b, done_b) = (gpu.buf(&[c0]), gpu.buf(&np0), gpu.buf(done0));
        let (contacts_b, unsure_b) = (
            gpu.buf(&vec![zero; cap_contact as usize + 1]),
            gpu.buf(&vec![zero; cap_unsure as usize]),
        );
        let mut b: Vec<(u32, &wgpu::Buffer)> = statics
            .iter()
            .enumerate()
            .map(|(i, s)| (i as u32, s))
            .collect();
        b.extend([
            (6, &c_b),
            (7, &np_b),
            (8, &done_b),
            (9, &contacts_b),
            (10, &unsure_b),
            (11, &env_ti),
            (12, &fly_ti),
        ]);
        gpu.run("tri_tri.wgsl", "tri_test", H, &b, leaves.len() as u64);
        let (mut c, mut np, mut done) = (c0, np0, done0.to_vec());
        let mut contacts = vec![zero; cap_contact as usize + 1];
        let mut unsure = vec![zero; cap_unsure as usize];
        tri_tri::tri_test(&mut TriTestBindings {
            env_nodes: &env.nodes,
            fly_nodes: &fly.bvh.nodes,
            env_tris: &env_tris,
            fly_tris: &fly_tris,
            frames,
            leaves,
            counters: &mut c,
            np: &mut np,
            done: &mut done,
            contacts: &mut contacts,
            unsure: &mut unsure,
            env_tri_index: &env.tri_index,
            fly_tri_index: &fly.bvh.tri_index,
        });
        let label = format!("tri_test H={H} first={first} tiny={tiny}");
        let got_c: GpuCounters = gpu.read(&c_b, 1)[0];
        let got_done: Vec<u32> = gpu.read(&done_b, p);
        assert_eq!(got_done, done, "{label}: done");
        if first {
            // Invocations of one pose race for `done`: how many ran is the device's.
            continue;
        }
        assert_eq!(got_c, c, "{label}: counters");
        assert_eq!(gpu.read::<u32>(&np_b, p), np, "{label}: np");
        if !tiny {
            let n = |k: u32| k as usize;
            assert_eq!(
                sorted(gpu.read(&contacts_b, n(c.n_contact))),
                sorted(contacts[..n(c.n_contact)].to_vec()),
                "{label}: contacts"
            );
            assert_eq!(
                sorted(gpu.read(&unsure_b, n(c.n_unsure))),
                sorted(unsure[..n(c.n_unsure)].to_vec()),
                "{label}: unsure"
            );
            assert!(c.n_contact > 1, "{label}: the scene has contacts");
        } else {
            assert_ne!(c.overflow, 0, "{label}: overflow");
        }
    }
}

#[test]
fn expand_and_tri_test_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    for first in [false, true] {
        let leaves = front_levels::<9, _>(&mut gpu, &kdop_scene::<9>(1), &poses, None, first);
        assert!(!leaves.is_empty());
        front_levels::<13, _>(&mut gpu, &kdop_scene::<13>(3), &poses, None, first);
    }
    front_levels::<9, _>(&mut gpu, &kdop_scene::<9>(1), &poses, Some((8, 3)), false);
    // The CPU's default descent (the larger k-DOP first).
    let larger = kdop_scene_with::<9>(1, KdopOptions::default());
    let leaves = front_levels::<9, _>(&mut gpu, &larger, &poses, None, false);
    assert!(!leaves.is_empty());
}

/// `expand_record` (temporal coherence) against its twin, level by level from the roots:
/// the expansion of `expand` and the recorded front (disjoint and leaf pairs), with a record
/// buffer large enough and one of two pairs (the count still grows).
#[test]
fn expand_record_matches_its_twin() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    let scene = kdop_scene_with::<9>(1, KdopOptions::default());
    let (env, fly) = (&scene.env, &scene.fly);
    let frames: Vec<PoseFrame<9>> = fly.pose_frames(env.frame(), &poses);
    let (p, n_fly) = (poses.len() as u32, fly.bvh.nodes.len() as u32);
    let tumbled: Vec<Kdop<9>> = (0..p as usize * n_fly as usize)
        .map(|i| {
            let (pose, node) = (i / n_fly as usize, i % n_fly as usize);
            if node == 0 {
                frames[pose].root
            } else {
                fly.tumble_node(node, &frames[pose])
            }
        })
        .collect();
    let done = vec![0u32; p as usize];
    let (env_nodes, fly_nodes, tumbled_b, done_b) = (
        gpu.buf(&env.nodes),
        gpu.buf(&fly.bvh.nodes),
        gpu.buf(&tumbled),
        gpu.buf(&done),
    );
    let zero = FrontPair::new(0, 0, 0);
    for record_cap in [1usize << 16, 2] {
        let mut front: Vec<FrontPair> = (0..p)
            .map(|pose| FrontPair {
                pose,
                a: 0,
                b: 0,
                slot: pose * n_fly,
            })
            .collect();
        let mut level = 0;
        let mut recorded = 0u32;
        while !front.is_empty() {
            let (cap_front, cap_leaf) = (2 * front.len() as u32, front.len() as u32);
            let c0 = GpuCounters {
                n_in: front.len() as u32,
                cap_front,
                cap_leaf,
                n_fly,
                descent_larger: 1,
                ..Default::default()
            };
            let nv0 = vec![0u32; p as usize];
            let (front_in_b, front_out_b, leaves_b, c_b, nv_b, rec_b, count_b) = (
                gpu.buf(&front),
                gpu.buf(&vec![zero; cap_front as usize]),
                gpu.buf(&vec![zero; cap_leaf as usize]),
                gpu.buf(&[c0]),
                gpu.buf(&nv0),
                gpu.buf(&vec![zero; record_cap]),
                gpu.buf(&[recorded]),
            );
            let (mut c, mut nv) = (c0, nv0);
            let mut front_out = vec![zero; cap_front as usize];
            let mut leaves = vec![zero; cap_leaf as usize];
            let mut records = vec![zero; record_cap];
            let mut count = [recorded];
            front_expand::expand_record(
                &mut ExpandBindings {
                    env_nodes: &env.nodes,
                    fly_nodes: &fly.bvh.nodes,
                    tumbled: &tumbled,
                    front_in: &front,
                    front_out: &mut front_out,
                    leaves: &mut leaves,
                    counters: &mut c,
                    nv: &mut nv,
                    done: &done,
                },
                &mut RecordBindings {
                    front_record: &mut records,
                    record_count: &mut count,
                },
            );
            let b: Vec<(u32, &wgpu::Buffer)> = vec![
                (0, &env_nodes),
                (1, &fly_nodes),
                (2, &tumbled_b),
                (3, &front_in_b),
                (4, &front_out_b),
                (5, &leaves_b),
                (6, &c_b),
                (7, &nv_b),
                (8, &done_b),
                (16, &rec_b),
                (17, &count_b),
            ];
            gpu.run(
                "front_expand.wgsl",
                "expand_record",
                9,
                &b,
                front.len() as u64,
            );
            let label = format!("expand_record level {level}, record buffer {record_cap}");
            let got_c: GpuCounters = gpu.read(&c_b, 1)[0];
            assert_eq!(got_c, c, "{label}: counters");
            assert_eq!(c.overflow, 0, "{label}");
            let (n_out, n_leaf) = (c.n_out as usize, c.n_leaf as usize);
            assert_eq!(
                sorted(gpu.read(&front_out_b, n_out)),
                sorted(front_out[..n_out].to_vec()),
                "{label}: front_out"
            );
            assert_eq!(
                sorted(gpu.read(&leaves_b, n_leaf)),
                sorted(leaves[..n_leaf].to_vec()),
                "{label}: leaves"
            );
            assert_eq!(gpu.read::<u32>(&nv_b, p as usize), nv, "{label}: nv");
            let got_count = gpu.read::<u32>(&count_b, 1)[0];
            assert_eq!(got_count, count[0], "{label}: record_count");
            let (from, to) = (recorded as usize, (count[0] as usize).min(record_cap));
            if from < to && record_cap > 2 {
                // Which appends found room is the device's order when the buffer is full.
                assert_eq!(
                    sorted(gpu.read::<FrontPair>(&rec_b, to)[from..].to_vec()),
                    sorted(records[from..to].to_vec()),
                    "{label}: front_record"
                );
            }
            recorded = count[0];
            front_out.truncate(n_out);
            front = front_out;
            level += 1;
        }
        assert!(recorded > 2, "fronts recorded");
    }
}

#[test]
fn expand_dual_matches_its_twin() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    for order in [SlabOrder::PerPair, SlabOrder::Fixed] {
        for symmetric in [false, true] {
            let options = DualOptions { symmetric, order };
            front_levels::<9, _>(&mut gpu, &dual_scene::<9>(options), &poses, None, false);
        }
    }
    let options = DualOptions::default();
    front_levels::<7, _>(&mut gpu, &dual_scene::<7>(options), &poses, None, true);
    front_levels::<9, _>(
        &mut gpu,
        &dual_scene::<9>(options),
        &poses,
        Some((8, 3)),
        false,
    );
}

/// The twins composed (`collide_batch_mirror_with`) against the GPU pipeline where the
/// existing parity tests do not run the mirror: exact tumbling and the dual hierarchy.
#[test]
fn mirror_pipeline_matches_the_gpu() {
    let Some(gpu) = Gpu::new() else { return };
    let ctx = &gpu.ctx;
    let poses = poses();
    fn check<const H: usize, S: GpuHierarchies<H>>(ctx: &GpuContext, scene: &S, poses: &[Pose]) {
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

/// `expand_self` and `tri_test_self` (self-collision) against their twins, level by level
/// from the root pair of one hierarchy: the same counters, Nv and Np, and the same appended
/// pairs as sorted lists; each level's input is the twin's output.
fn self_levels<const H: usize>(gpu: &mut Gpu, mesh: &Mesh, leaf: u32, first: bool) -> usize {
    use meshcollide::gpu::mirror::tri_tri::SelfTriBindings;
    let bvh = meshcollide::bvh::Bvh::<H>::build(
        mesh,
        &BuildOptions {
            leaf_size: leaf,
            ..Default::default()
        },
    );
    let tris = bvh.tris.all_corners_f32();
    let zero = FrontPair::new(0, 0, 0);
    let (nodes_b, tris_b, ti_b, slots_b) = (
        gpu.buf(&bvh.nodes),
        gpu.buf(&tris),
        gpu.buf(&bvh.tri_index),
        gpu.buf(&bvh.tris.corners),
    );
    let mut front_in = vec![zero];
    let mut contacts_total = 0;
    for level in 0..2 * bvh.depth - 1 {
        let label = format!("self H={H} leaf={leaf} first={first} level {level}");
        let n = front_in.len();
        let c0 = GpuCounters {
            n_in: n as u32,
            cap_front: 3 * n as u32,
            cap_leaf: n as u32,
            mode_first: first as u32,
            ..Default::default()
        };
        let (c_b, in_b, out_b, leaves_b, nv_b, done_b) = (
            gpu.buf(&[c0]),
            // At least one pair each: a binding holds a whole element.
            gpu.buf(&if n == 0 { vec![zero] } else { front_in.clone() }),
            gpu.buf(&vec![zero; 3 * n.max(1)]),
            gpu.buf(&vec![zero; n.max(1)]),
            gpu.buf(&[5u32]),
            gpu.buf(&[0u32]),
        );
        gpu.run(
            "front_expand.wgsl",
            "expand_self",
            H,
            &[
                (0, &nodes_b),
                (3, &in_b),
                (4, &out_b),
                (5, &leaves_b),
                (6, &c_b),
                (7, &nv_b),
                (8, &done_b),
            ],
            n as u64,
        );
        let (mut c, mut nv, mut out, mut leaves) = (c0, [5u32], vec![zero; 3 * n], vec![zero; n]);
        front_expand::expand_self(&mut ExpandBindings {
            env_nodes: &bvh.nodes,
            fly_nodes: &bvh.nodes,
            tumbled: &[],
            front_in: &front_in,
            front_out: &mut out,
            leaves: &mut leaves,
            counters: &mut c,
            nv: &mut nv,
            done: &[0],
        });
        assert_eq!(gpu.read::<GpuCounters>(&c_b, 1)[0], c, "{label}: counters");
        assert_eq!(gpu.read::<u32>(&nv_b, 1), nv.to_vec(), "{label}: nv");
        let (n_out, n_leaf) = (c.n_out as usize, c.n_leaf as usize);
        assert_eq!(
            sorted(gpu.read(&out_b, n_out)),
            sorted(out[..n_out].to_vec())
        );
        assert_eq!(
            sorted(gpu.read(&leaves_b, n_leaf)),
            sorted(leaves[..n_leaf].to_vec()),
            "{label}: leaves"
        );
        let leaves = leaves[..n_leaf].to_vec();
        let room: usize = leaves
            .iter()
            .map(|l| (bvh.nodes[l.a as usize].count * bvh.nodes[l.b as usize].count) as usize)
            .sum::<usize>()
            .max(1);
        let t0 = GpuCounters {
            n_leaf: n_leaf as u32,
            cap_leaf: n_leaf as u32,
            cap_contact: room as u32,
            cap_unsure: room as u32,
            mode_first: first as u32,
            ..Default::default()
        };
        let (t_b, l_b, np_b, done_b, con_b, uns_b) = (
            gpu.buf(&[t0]),
            // At least one pair: a binding holds a whole element.
            gpu.buf(&if leaves.is_empty() {
                vec![zero]
            } else {
                leaves.clone()
            }),
            gpu.buf(&[3u32]),
            gpu.buf(&[0u32]),
            gpu.buf(&vec![zero; room]),
            gpu.buf(&vec![zero; room]),
        );
        gpu.run(
            "tri_tri.wgsl",
            "tri_test_self",
            H,
            &[
                (0, &nodes_b),
                (2, &tris_b),
                (5, &l_b),
                (6, &t_b),
                (7, &np_b),
                (8, &done_b),
                (9, &con_b),
                (10, &uns_b),
                (11, &ti_b),
                (13, &slots_b),
            ],
            n_leaf as u64,
        );
        let (mut t, mut np, mut done) = (t0, [3u32], [0u32]);
        let (mut con, mut uns) = (vec![zero; room], vec![zero; room]);
        tri_tri::tri_test_self(&mut SelfTriBindings {
            env_nodes: &bvh.nodes,
            env_tris: &tris,
            leaves: &leaves,
            counters: &mut t,
            np: &mut np,
            done: &mut done,
            contacts: &mut con,
            unsure: &mut uns,
            env_tri_index: &bvh.tri_index,
            env_slots: &bvh.tris.corners,
        });
        assert_eq!(gpu.read::<u32>(&done_b, 1), done.to_vec(), "{label}: done");
        if !first {
            assert_eq!(
                gpu.read::<GpuCounters>(&t_b, 1)[0],
                t,
                "{label}: tri counters"
            );
            assert_eq!(gpu.read::<u32>(&np_b, 1), np.to_vec(), "{label}: np");
            let (nc, nu) = (t.n_contact as usize, t.n_unsure as usize);
            assert_eq!(sorted(gpu.read(&con_b, nc)), sorted(con[..nc].to_vec()));
            assert_eq!(sorted(gpu.read(&uns_b, nu)), sorted(uns[..nu].to_vec()));
            contacts_total += nc;
        }
        out.truncate(n_out);
        front_in = out;
    }
    assert!(front_in.is_empty(), "2·depth − 1 levels empty the front");
    contacts_total
}

#[test]
fn self_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    // Its intersections are touching contacts at the fold (UNSURE for the filter).
    let sheet = meshcollide::mesh::generate::folded_sheet(24, 4, 0.5);
    self_levels::<9>(&mut gpu, &sheet, 1, false);
    let spindle = meshcollide::mesh::generate::torus([0.0; 3], 1.0, 1.3, 16, 10);
    self_levels::<9>(&mut gpu, &spindle, 2, true);
    // Proper crossings: the filter's HITs.
    let soup = meshcollide::mesh::generate::random_soup(1, 150, 1.0, 0.3);
    assert!(self_levels::<9>(&mut gpu, &soup, 1, false) > 0);
    self_levels::<9>(&mut gpu, &soup, 4, true);
    self_levels::<13>(&mut gpu, &sheet, 3, false);
    self_levels::<9>(&mut gpu, &sheet, 1, true);
    let soup = meshcollide::mesh::generate::degenerate_soup(3, 120, 1.0);
    self_levels::<3>(&mut gpu, &soup, 2, false);
}

/// `record_counts` and `gather_seeds` (temporal coherence's device hand-over) against their
/// twins: per-lane counts and root flags exactly; the seeds lane by lane as sorted lists
/// (a lane's pairs land in the device's order), both tumbling methods.
#[test]
fn hand_over_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let mut rng = meshcollide::rng::Rng::new(7);
    let (lanes, n_fly) = (37u32, 61u32);
    // A record of 5,000 pairs over the lanes (lane 5 empty), some at B's root.
    let record: Vec<FrontPair> = (0..5000)
        .map(|_| {
            let pose = (rng.next_u64() % lanes as u64) as u32;
            let pose = if pose == 5 { 6 } else { pose };
            let b = (rng.next_u64() % 9) as u32;
            FrontPair::new(pose, (rng.next_u64() % 1000) as u32, b * (b % 3))
        })
        .collect();
    for n_record in [0u32, 1, 4999, 5000] {
        let params = HandOverParams {
            n_record,
            n_fly,
            ..Default::default()
        };
        let zero = LaneRecord::default();
        let (rec_b, params_b, lanes_b) = (
            gpu.buf(&record),
            gpu.buf(&[params]),
            gpu.buf(&vec![zero; lanes as usize]),
        );
        let b = [(0, &rec_b), (1, &params_b), (2, &lanes_b)];
        gpu.run(
            "front_coherent.wgsl",
            "record_counts",
            9,
            &b,
            n_record as u64,
        );
        let mut counts = vec![zero; lanes as usize];
        front_coherent::record_counts(&record, &params, &mut counts);
        let got: Vec<LaneRecord> = gpu.read(&lanes_b, lanes as usize);
        assert_eq!(got, counts, "record_counts of {n_record}");
        if n_record < 5000 {
            continue;
        }
        assert!(counts.iter().any(|l| l.root == 1) && counts.iter().any(|l| l.root == 0));
        // The next step: every third lane dropped, the others seeded in reverse order, and
        // four lanes from the roots.
        for dense in [false, true] {
            let mut hand = vec![
                HandOver {
                    lane: NO_LANE,
                    offset: 0
                };
                lanes as usize
            ];
            let mut next = 0;
            let mut total = 0;
            let mut segments = Vec::new();
            for src in (0..lanes).rev().filter(|l| l % 3 != 0) {
                hand[src as usize] = HandOver {
                    lane: next,
                    offset: total,
                };
                segments.push((total, counts[src as usize].pairs));
                total += counts[src as usize].pairs;
                next += 1;
            }
            for _ in 0..4 {
                hand.push(HandOver {
                    lane: next,
                    offset: total,
                });
                segments.push((total, 1));
                total += 1;
                next += 1;
            }
            let params = HandOverParams {
                n_record,
                n_src: lanes,
                n_roots: 4,
                n_fly,
                dense: dense as u32,
                ..Default::default()
            };
            let filler = FrontPair::new(9, 9, 9);
            let (params_b, hand_b, cursor_b, seeds_b) = (
                gpu.buf(&[params]),
                gpu.buf(&hand),
                gpu.buf(&vec![0u32; next as usize]),
                gpu.buf(&vec![filler; total as usize]),
            );
            let b = [
                (0, &rec_b),
                (1, &params_b),
                (3, &hand_b),
                (4, &cursor_b),
                (5, &seeds_b),
            ];
            gpu.run(
                "front_coherent.wgsl",
                "gather_seeds",
                9,
                &b,
                n_record as u64 + 4,
            );
            let mut cursor = vec![0u32; next as usize];
            let mut seeds = vec![filler; total as usize];
            front_coherent::gather_seeds(&record, &params, &hand, &mut cursor, &mut seeds);
            let got: Vec<FrontPair> = gpu.read(&seeds_b, total as usize);
            assert_eq!(gpu.read::<u32>(&cursor_b, next as usize), cursor, "cursor");
            assert!(!seeds.contains(&filler), "every seed written");
            for (offset, n) in segments {
                let r = offset as usize..(offset + n) as usize;
                assert_eq!(
                    sorted(got[r.clone()].to_vec()),
                    sorted(seeds[r].to_vec()),
                    "gather_seeds dense={dense} at {offset}"
                );
            }
        }
    }
}
