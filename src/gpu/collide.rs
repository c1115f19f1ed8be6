//! The batch pipeline on the GPU: per batch of poses, one submission of
//! tumble → (expand → prepare_tri → tri_test → prepare_next) × levels, then one readback.
//!
//! The front is breadth first and stackless: `(pose, a, b)` pairs in, child pairs out,
//! leaf pairs to a list, appends by atomics, dispatch sizes written on the GPU. The descent
//! rule and the tumbled k-DOPs are the CPU reference's, bit for bit, so the set of node
//! pairs tested (Nv) is the same. Triangle pairs the f32 filter cannot certify come back as
//! UNSURE and are decided here with the exact test: the pairs equal the reference's.
//!
//! Capacities are finite: every append checks its capacity and raises an overflow flag
//! instead of writing; after the submission the host reads the flags once and, on overflow,
//! grows the buffers to the sizes the counters asked for and runs the batch again — or, when
//! a buffer would exceed the device's limit, splits the batch in two. Nothing is lost.

use super::context::{GpuContext, GpuError};
use super::layout::{FrontPair, GpuCounters};
use super::shader::{self, DISPATCH_X, WORKGROUP_SIZE};
use crate::Pose;
use crate::bv::Kdop;
use crate::bvh::Bvh;
use crate::dual::DualCounters;
use crate::dual::{DualOptions, DualScene, SlabOrder, Sphere};
use crate::kdop::KdopScene;
use crate::scene::{Counters, Mode, NoSub, PoseResult, Progress, SubCounters};
use crate::tri::tri_tri_intersect;
use crate::tumble::{FlyingHierarchy, PoseFrame, TumbleMethod};
use wgpu::BufferUsages as U;

/// What the batch pipeline needs of a scene: A's hierarchy, B's flying hierarchy and, for
/// the dual k-DOP–sphere hierarchy, the node spheres and the options of its node test.
pub trait GpuHierarchies<const H: usize> {
    /// The scene's sub-counters, made from the device's three per-pose sub-counters.
    type Sub: SubCounters;
    /// The sub-counters of one pose from the device's `(sphere rejects, slab rejects, slab
    /// tests)` (zeros for the k-DOPs).
    fn sub(c: [u64; 3]) -> Self::Sub;
    /// A's hierarchy.
    fn env(&self) -> &Bvh<H>;
    /// B's flying hierarchy.
    fn fly(&self) -> &FlyingHierarchy<H>;
    /// `(A's spheres, B's spheres, options)` of the dual hierarchy; `None` for the k-DOPs.
    fn dual(&self) -> Option<(&[Sphere], &[Sphere], DualOptions)> {
        None
    }
}

impl<const H: usize> GpuHierarchies<H> for KdopScene<H> {
    type Sub = NoSub;
    fn sub(_: [u64; 3]) -> NoSub {
        NoSub
    }
    fn env(&self) -> &Bvh<H> {
        &self.env
    }
    fn fly(&self) -> &FlyingHierarchy<H> {
        &self.fly
    }
}

impl<const H: usize> GpuHierarchies<H> for DualScene<H> {
    type Sub = DualCounters;
    fn sub([sphere_rejects, slab_rejects, slab_tests]: [u64; 3]) -> DualCounters {
        DualCounters {
            sphere_rejects,
            slab_rejects,
            slab_tests,
        }
    }
    fn env(&self) -> &Bvh<H> {
        &self.env
    }
    fn fly(&self) -> &FlyingHierarchy<H> {
        &self.fly
    }
    fn dual(&self) -> Option<(&[Sphere], &[Sphere], DualOptions)> {
        Some((&self.env_spheres, &self.fly_spheres, self.options))
    }
}

/// The dual hierarchy's spheres on the device and its `Counters::dual_flags`.
struct DualBuffers {
    env_spheres: wgpu::Buffer,
    fly_spheres: wgpu::Buffer,
    flags: u32,
}

/// The results of a batch on the GPU, per pose, and what the GPU did.
pub type GpuBatch<S> = (Vec<PoseResult<S>>, GpuStats);

/// What one batch call did, for stats and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct GpuStats {
    /// Front size (node pairs entering each level), summed over batches.
    pub level_sizes: Vec<u64>,
    /// Compute dispatches recorded (indirect ones included).
    pub dispatches: u64,
    /// Bytes written to the device (static arrays once, then per batch).
    pub bytes_uploaded: u64,
    /// Triangle pairs the f32 filter left to the exact CPU test.
    pub unsure: u64,
    /// Submissions (batches plus re-runs after overflow).
    pub submissions: u64,
    /// Re-runs caused by exhausted capacity.
    pub reruns: u64,
    /// Batches split in two because a buffer would exceed the device's limit.
    pub splits: u64,
}

/// Initial capacities; they grow on overflow.
#[derive(Debug, Clone, Copy)]
pub struct Capacities {
    /// Node pairs of one level of the breadth-first front (all poses of a batch).
    pub front: u32,
    /// Leaf pairs waiting for triangle tests.
    pub leaf: u32,
    /// Triangle pairs the f32 filter proved intersecting.
    pub contact: u32,
    /// Triangle pairs the f32 filter could not decide (the host decides them exactly).
    pub unsure: u32,
}

impl Capacities {
    /// Each capacity cut to what fits in a buffer of `bytes`.
    fn clamped(self, bytes: u64) -> Capacities {
        let most = (bytes / std::mem::size_of::<FrontPair>() as u64).min(u32::MAX as u64) as u32;
        Capacities {
            front: self.front.min(most),
            leaf: self.leaf.min(most),
            contact: self.contact.min(most),
            unsure: self.unsure.min(most),
        }
    }
}

impl Default for Capacities {
    fn default() -> Self {
        Capacities {
            front: 1 << 16,
            leaf: 1 << 14,
            contact: 1 << 14,
            unsure: 1 << 12,
        }
    }
}

struct Pipelines {
    tumble: wgpu::ComputePipeline,
    tumble_exact_leaves: wgpu::ComputePipeline,
    tumble_exact_merge: wgpu::ComputePipeline,
    expand: wgpu::ComputePipeline,
    prepare_tri: wgpu::ComputePipeline,
    prepare_next: wgpu::ComputePipeline,
    tri_test: wgpu::ComputePipeline,
    /// The dual hierarchy's expansion (built only for a dual scene).
    expand_dual: Option<wgpu::ComputePipeline>,
}

fn pipeline(ctx: &GpuContext, file: &str, entry: &str, h: usize) -> wgpu::ComputePipeline {
    let module = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(file),
            source: wgpu::ShaderSource::Wgsl(shader::source(file, h).into()),
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
}

/// The scene's static arrays on the device, and the pipelines, built once.
pub struct GpuScene<const H: usize> {
    env_nodes: wgpu::Buffer,
    fly_nodes: wgpu::Buffer,
    env_tris: wgpu::Buffer,
    fly_tris: wgpu::Buffer,
    fly_offsets: wgpu::Buffer,
    fly_points: wgpu::Buffer,
    env_tri_index: wgpu::Buffer,
    fly_tri_index: wgpu::Buffer,
    /// Flying leaves, then internal nodes level by level, deepest first (exact tumbling).
    fly_node_list: wgpu::Buffer,
    /// `(start, count)` slices of `fly_node_list`: the leaves, then each internal level.
    fly_slices: Vec<(u32, u32)>,
    pipelines: Pipelines,
    dual: Option<DualBuffers>,
    n_fly: u32,
    levels: u32,
    /// Bytes of the static upload.
    pub static_bytes: u64,
    /// Initial capacities of the next batch (tests shrink them to force overflow).
    pub capacities: Capacities,
    /// Largest batch of poses per submission (bounded by the tumbled k-DOP array).
    pub max_batch: usize,
    /// Largest buffer the pipeline creates: the device's storage binding limit (tests lower
    /// it to force batches to split).
    pub max_buffer_bytes: u64,
}

fn groups(n: u64) -> (u32, u32) {
    let g = n.div_ceil(WORKGROUP_SIZE as u64).max(1);
    if g <= DISPATCH_X as u64 {
        (g as u32, 1)
    } else {
        (DISPATCH_X, g.div_ceil(DISPATCH_X as u64) as u32)
    }
}

impl<const H: usize> GpuScene<H> {
    /// Uploads the scene's node arrays, triangles (local f32 corners, derived once here:
    /// [`crate::ordered::OrderedTriangles::all_corners_f32`]) and bounding points as the
    /// same bytes (and the node spheres of a dual scene).
    pub fn new<S: GpuHierarchies<H>>(ctx: &GpuContext, scene: &S) -> Result<Self, GpuError> {
        let env = scene.env();
        let fly = scene.fly();
        let bytes = |s: &[u8]| s.to_vec();
        let arrays: [(&str, Vec<u8>); 8] = [
            ("env_nodes", bytes(bytemuck::cast_slice(&env.nodes))),
            ("fly_nodes", bytes(bytemuck::cast_slice(&fly.bvh.nodes))),
            (
                "env_tris",
                bytes(bytemuck::cast_slice(&env.tris.all_corners_f32())),
            ),
            (
                "fly_tris",
                bytes(bytemuck::cast_slice(&fly.bvh.tris.all_corners_f32())),
            ),
            ("fly_offsets", bytes(bytemuck::cast_slice(&fly.offsets))),
            ("fly_points", bytes(bytemuck::cast_slice(&fly.points))),
            ("env_tri_index", bytes(bytemuck::cast_slice(&env.tri_index))),
            (
                "fly_tri_index",
                bytes(bytemuck::cast_slice(&fly.bvh.tri_index)),
            ),
        ];
        let limit = ctx.device.limits().max_storage_buffer_binding_size;
        let mut static_bytes = 0;
        let mut bufs = Vec::new();
        for (name, data) in &arrays {
            if data.len() as u64 > limit {
                return Err(GpuError::TooLarge {
                    needed: data.len() as u64,
                    limit,
                });
            }
            static_bytes += data.len() as u64;
            bufs.push(ctx.storage(name, data, U::empty()));
        }
        let [
            env_nodes,
            fly_nodes,
            env_tris,
            fly_tris,
            fly_offsets,
            fly_points,
            env_tri_index,
            fly_tri_index,
        ]: [wgpu::Buffer; 8] = bufs.try_into().expect("eight buffers");
        let n_fly = fly.bvh.nodes.len() as u32;
        let levels = fly.bvh.levels();
        let is_leaf = |i: &&u32| fly.bvh.nodes[**i as usize].is_leaf();
        let mut node_list: Vec<u32> = levels.iter().flatten().filter(is_leaf).copied().collect();
        let mut fly_slices = vec![(0, node_list.len() as u32)];
        for level in levels.iter().rev() {
            let start = node_list.len() as u32;
            node_list.extend(level.iter().filter(|i| !is_leaf(i)));
            if node_list.len() as u32 > start {
                fly_slices.push((start, node_list.len() as u32 - start));
            }
        }
        let fly_node_list = ctx.storage(
            "fly_node_list",
            bytemuck::cast_slice(&node_list),
            U::empty(),
        );
        static_bytes += 4 * node_list.len() as u64;
        let dual = match scene.dual() {
            None => None,
            Some((env_s, fly_s, options)) => {
                for s in [env_s, fly_s] {
                    let n = std::mem::size_of_val(s) as u64;
                    if n > limit {
                        return Err(GpuError::TooLarge { needed: n, limit });
                    }
                    static_bytes += n;
                }
                Some(DualBuffers {
                    env_spheres: ctx.storage(
                        "env_spheres",
                        bytemuck::cast_slice(env_s),
                        U::empty(),
                    ),
                    fly_spheres: ctx.storage(
                        "fly_spheres",
                        bytemuck::cast_slice(fly_s),
                        U::empty(),
                    ),
                    flags: (options.order == SlabOrder::PerPair) as u32
                        | (options.symmetric as u32) << 1,
                })
            }
        };
        let kdop_bytes = std::mem::size_of::<Kdop<H>>() as u64;
        let budget = limit.min(256 << 20);
        let max_batch = ((budget / (n_fly as u64 * kdop_bytes)).max(1) as usize).min(4096);
        Ok(GpuScene {
            env_nodes,
            fly_nodes,
            env_tris,
            fly_tris,
            fly_offsets,
            fly_points,
            env_tri_index,
            fly_tri_index,
            fly_node_list,
            fly_slices,
            pipelines: Pipelines {
                tumble: pipeline(ctx, "kdop_tumble.wgsl", "tumble", H),
                tumble_exact_leaves: pipeline(ctx, "kdop_tumble.wgsl", "tumble_exact_leaves", H),
                tumble_exact_merge: pipeline(ctx, "kdop_tumble.wgsl", "tumble_exact_merge", H),
                expand: pipeline(ctx, "front_expand.wgsl", "expand", H),
                prepare_tri: pipeline(ctx, "front_prepare.wgsl", "prepare_tri", H),
                prepare_next: pipeline(ctx, "front_prepare.wgsl", "prepare_next", H),
                tri_test: pipeline(ctx, "tri_tri.wgsl", "tri_test", H),
                expand_dual: dual
                    .is_some()
                    .then(|| pipeline(ctx, "front_expand.wgsl", "expand_dual", H)),
            },
            dual,
            n_fly,
            levels: env.depth + fly.bvh.depth - 1,
            static_bytes,
            capacities: Capacities::default(),
            max_batch,
            max_buffer_bytes: limit,
        })
    }

    /// All poses, in batches of at most [`GpuScene::max_batch`]; results per pose in the
    /// order given, like [`crate::scene::collide_batch`].
    pub fn collide_batch<S: GpuHierarchies<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        poses: &[Pose],
        mode: Mode,
        tumble: TumbleMethod,
        progress: Option<Progress<'_>>,
    ) -> Result<GpuBatch<S::Sub>, GpuError> {
        let frames = scene.fly().pose_frames(scene.env().frame(), poses);
        let mut stats = GpuStats {
            bytes_uploaded: self.static_bytes,
            level_sizes: vec![0; self.levels as usize],
            ..Default::default()
        };
        let mut results = Vec::with_capacity(poses.len());
        // Ranges of poses still to run, as a stack (front of the list on top).
        let mut pending: Vec<(usize, usize)> = (0..frames.len())
            .step_by(self.max_batch.max(1))
            .map(|s| (s, self.max_batch.min(frames.len() - s)))
            .rev()
            .collect();
        while let Some((start, len)) = pending.pop() {
            let chunk = &frames[start..start + len];
            let batch = loop {
                match self.run_batch(ctx, chunk, mode, tumble, &mut stats) {
                    Ok(Ok(r)) => break Some(r),
                    Ok(Err(needed)) => {
                        stats.reruns += 1;
                        if self.fits(&needed) || len == 1 {
                            // One pose is never split: the device's own limit decides.
                            self.capacities = needed;
                        } else {
                            self.capacities = needed.clamped(self.max_buffer_bytes);
                            break None;
                        }
                    }
                    // A buffer beyond the device's limit: fewer poses per submission.
                    Err(GpuError::TooLarge { .. }) if len > 1 => break None,
                    Err(e) => return Err(e),
                }
            };
            match batch {
                Some(b) => {
                    let chunk_poses = &poses[start..start + len];
                    results.extend(finish(scene, chunk_poses, b, mode, &mut stats));
                    if let Some(progress) = progress {
                        progress(start + len);
                    }
                }
                None => {
                    stats.splits += 1;
                    let half = len / 2;
                    pending.push((start + half, len - half));
                    pending.push((start, half));
                }
            }
        }
        Ok((results, stats))
    }

    /// Whether buffers of these capacities stay within [`GpuScene::max_buffer_bytes`].
    fn fits(&self, c: &Capacities) -> bool {
        let pair = std::mem::size_of::<FrontPair>() as u64;
        [c.front, c.leaf, c.contact, c.unsure]
            .iter()
            .all(|&n| n as u64 * pair <= self.max_buffer_bytes)
    }

    /// One submission. `Ok(Err(caps))`: a capacity ran out; `caps` are large enough for
    /// what the counters asked for.
    fn run_batch(
        &self,
        ctx: &GpuContext,
        frames: &[PoseFrame<H>],
        mode: Mode,
        tumble: TumbleMethod,
        stats: &mut GpuStats,
    ) -> Result<Result<BatchOutput, Capacities>, GpuError> {
        let p = frames.len() as u32;
        let caps = Capacities {
            front: self.capacities.front.max(2 * p),
            ..self.capacities
        };
        let pair = std::mem::size_of::<FrontPair>() as u64;
        let kdop = std::mem::size_of::<Kdop<H>>() as u64;
        let frames_buf = ctx.storage("frames", bytemuck::cast_slice(frames), U::empty());
        let tumbled =
            ctx.storage_empty("tumbled", p as u64 * self.n_fly as u64 * kdop, U::empty())?;
        let initial: Vec<FrontPair> = (0..p).map(|pose| FrontPair { pose, a: 0, b: 0 }).collect();
        let mut front_a_bytes = vec![0u8; (caps.front as u64 * pair) as usize];
        front_a_bytes[..initial.len() * pair as usize]
            .copy_from_slice(bytemuck::cast_slice(&initial));
        let front_a = ctx.storage("front_a", &front_a_bytes, U::empty());
        let front_b = ctx.storage_empty("front_b", caps.front as u64 * pair, U::empty())?;
        let leaves = ctx.storage_empty("leaves", caps.leaf as u64 * pair, U::empty())?;
        let contacts = ctx.storage_empty("contacts", caps.contact as u64 * pair, U::empty())?;
        let unsure = ctx.storage_empty("unsure", caps.unsure as u64 * pair, U::empty())?;
        let counters0 = GpuCounters {
            n_in: p,
            cap_front: caps.front,
            cap_leaf: caps.leaf,
            cap_contact: caps.contact,
            cap_unsure: caps.unsure,
            n_fly: self.n_fly,
            mode_first: (mode == Mode::First) as u32,
            dual_flags: self.dual.as_ref().map_or(0, |d| d.flags),
            ..Default::default()
        };
        let counters = ctx.storage("counters", bytemuck::bytes_of(&counters0), U::empty());
        let per_pose = |name| ctx.storage_empty(name, p as u64 * 4, U::empty());
        let (nv, np, done) = (per_pose("nv")?, per_pose("np")?, per_pose("done")?);
        // (sphere rejects, slab rejects, slab tests) per pose, for the dual hierarchy.
        let dual_counts = ctx.storage_empty(
            "dual_counts",
            if self.dual.is_some() {
                p as u64 * 12
            } else {
                4
            },
            U::empty(),
        )?;
        let (gx, gy) = groups(p as u64);
        let args = ctx.storage(
            "args",
            bytemuck::cast_slice(&[gx, gy, 1, 0, 0, 1]),
            U::INDIRECT,
        );
        let level_sizes = ctx.storage_empty("level_sizes", self.levels as u64 * 4, U::empty())?;
        let params = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("tumble_params"),
            size: 16,
            usage: U::UNIFORM | U::COPY_DST,
            mapped_at_creation: false,
        });
        ctx.queue
            .write_buffer(&params, 0, bytemuck::cast_slice(&[self.n_fly, p, 0, 0]));
        stats.bytes_uploaded += std::mem::size_of_val(frames) as u64
            + front_a_bytes.len() as u64
            + std::mem::size_of::<GpuCounters>() as u64
            + 40;

        let bind = |pipe: &wgpu::ComputePipeline, bufs: &[&wgpu::Buffer]| {
            let entries: Vec<wgpu::BindGroupEntry> = bufs
                .iter()
                .enumerate()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: i as u32,
                    resource: b.as_entire_binding(),
                })
                .collect();
            ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: None,
                layout: &pipe.get_bind_group_layout(0),
                entries: &entries,
            })
        };
        let pl = &self.pipelines;
        let bg_tumble = bind(
            &pl.tumble,
            &[
                &frames_buf,
                &self.fly_offsets,
                &self.fly_points,
                &tumbled,
                &params,
            ],
        );
        // Exact tumbling: one uniform slot (aligned) and bind group per slice.
        let slot = ctx
            .device
            .limits()
            .min_uniform_buffer_offset_alignment
            .max(16) as u64;
        let slices = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("tumble_slices"),
            size: slot * self.fly_slices.len() as u64,
            usage: U::UNIFORM | U::COPY_DST,
            mapped_at_creation: false,
        });
        let mut exact_bgs = Vec::new();
        if tumble == TumbleMethod::Exact {
            for (k, &(start, count)) in self.fly_slices.iter().enumerate() {
                let params = [start, count, p, self.n_fly];
                ctx.queue
                    .write_buffer(&slices, k as u64 * slot, bytemuck::cast_slice(&params));
                let pipe = if k == 0 {
                    &pl.tumble_exact_leaves
                } else {
                    &pl.tumble_exact_merge
                };
                fn entry(binding: u32, buffer: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
                    wgpu::BindGroupEntry {
                        binding,
                        resource: buffer.as_entire_binding(),
                    }
                }
                // Auto layouts hold only the bindings an entry point uses: the merge
                // reads neither the frames nor the triangles.
                let mut entries = vec![
                    entry(3, &tumbled),
                    entry(5, &self.fly_nodes),
                    entry(7, &self.fly_node_list),
                ];
                if k == 0 {
                    entries.push(entry(0, &frames_buf));
                    entries.push(entry(6, &self.fly_tris));
                }
                entries.push(wgpu::BindGroupEntry {
                    binding: 8,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &slices,
                        offset: k as u64 * slot,
                        size: std::num::NonZeroU64::new(16),
                    }),
                });
                let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &pipe.get_bind_group_layout(0),
                    entries: &entries,
                });
                exact_bgs.push((pipe, bg, count));
            }
        }
        let expand_pipe = match &pl.expand_dual {
            Some(pipe) => pipe,
            None => &pl.expand,
        };
        let expand_bg = |fin: &wgpu::Buffer, fout: &wgpu::Buffer| {
            let mut bufs = vec![
                &self.env_nodes,
                &self.fly_nodes,
                &tumbled,
                fin,
                fout,
                &leaves,
                &counters,
                &nv,
                &done,
            ];
            if let Some(d) = &self.dual {
                bufs.extend([&d.env_spheres, &d.fly_spheres, &frames_buf, &dual_counts]);
            }
            bind(expand_pipe, &bufs)
        };
        let bg_expand = [expand_bg(&front_a, &front_b), expand_bg(&front_b, &front_a)];
        let bg_prep_tri = bind(&pl.prepare_tri, &[&counters, &args]);
        let bg_prep_next = bind(&pl.prepare_next, &[&counters, &args, &level_sizes]);
        let bg_tri = bind(
            &pl.tri_test,
            &[
                &self.env_nodes,
                &self.fly_nodes,
                &self.env_tris,
                &self.fly_tris,
                &frames_buf,
                &leaves,
                &counters,
                &np,
                &done,
                &contacts,
                &unsure,
                &self.env_tri_index,
                &self.fly_tri_index,
            ],
        );

        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            if tumble == TumbleMethod::Exact {
                for (pipe, bg, count) in &exact_bgs {
                    let (tx, ty) = groups(p as u64 * *count as u64);
                    pass.set_pipeline(pipe);
                    pass.set_bind_group(0, bg, &[]);
                    pass.dispatch_workgroups(tx, ty, 1);
                    stats.dispatches += 1;
                }
            } else {
                let (tx, ty) = groups(p as u64 * self.n_fly as u64);
                pass.set_pipeline(&pl.tumble);
                pass.set_bind_group(0, &bg_tumble, &[]);
                pass.dispatch_workgroups(tx, ty, 1);
                stats.dispatches += 1;
            }
            for level in 0..self.levels as usize {
                pass.set_pipeline(expand_pipe);
                pass.set_bind_group(0, &bg_expand[level % 2], &[]);
                pass.dispatch_workgroups_indirect(&args, 0);
                pass.set_pipeline(&pl.prepare_tri);
                pass.set_bind_group(0, &bg_prep_tri, &[]);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_pipeline(&pl.tri_test);
                pass.set_bind_group(0, &bg_tri, &[]);
                pass.dispatch_workgroups_indirect(&args, 12);
                pass.set_pipeline(&pl.prepare_next);
                pass.set_bind_group(0, &bg_prep_next, &[]);
                pass.dispatch_workgroups(1, 1, 1);
                stats.dispatches += 4;
            }
        }
        ctx.queue.submit([enc.finish()]);
        stats.submissions += 1;
        let c: GpuCounters = ctx.read_pod(&counters, 1)?[0];
        debug_assert_eq!(c.n_in, 0, "depth(A) + depth(B) - 1 levels empty the front");
        if c.overflow != 0 {
            // Grow every exhausted capacity to what was asked for, with room to spare. A
            // truncated run under-reports later levels, so repeat until nothing overflows.
            let grow = |cap: u32, need: u32, bit: u32| {
                if c.overflow & bit != 0 {
                    need.max(cap).saturating_mul(2)
                } else {
                    cap
                }
            };
            return Ok(Err(Capacities {
                front: grow(caps.front, c.max_front, 1),
                leaf: grow(caps.leaf, c.max_leaf, 2),
                contact: grow(caps.contact, c.n_contact, 4),
                unsure: grow(caps.unsure, c.n_unsure, 8),
            }));
        }
        let sizes: Vec<u32> = ctx.read_pod(&level_sizes, self.levels as usize)?;
        for (s, v) in stats.level_sizes.iter_mut().zip(&sizes) {
            *s += *v as u64;
        }
        Ok(Ok(BatchOutput {
            nv: ctx.read_pod(&nv, p as usize)?,
            np: ctx.read_pod(&np, p as usize)?,
            contacts: ctx.read_pod(&contacts, c.n_contact as usize)?,
            unsure: ctx.read_pod(&unsure, c.n_unsure as usize)?,
            dual: if self.dual.is_some() {
                ctx.read_pod(&dual_counts, 3 * p as usize)?
            } else {
                Vec::new()
            },
        }))
    }
}

/// Decides the UNSURE pairs exactly, maps triangle positions to file numbering, sorts.
pub(crate) fn finish<const H: usize, S: GpuHierarchies<H>>(
    scene: &S,
    poses: &[Pose],
    out: BatchOutput,
    mode: Mode,
    stats: &mut GpuStats,
) -> Vec<PoseResult<S::Sub>> {
    let env = scene.env();
    let fly = &scene.fly().bvh;
    let dual = |i: usize, k: usize| out.dual.get(3 * i + k).map_or(0, |&c| c as u64);
    let mut results: Vec<PoseResult<S::Sub>> = (0..poses.len())
        .map(|i| PoseResult {
            pairs: Vec::new(),
            counters: Counters {
                bv_tests: out.nv[i] as u64,
                tri_tests: out.np[i] as u64,
                bv_updates: fly.nodes.len() as u64,
                sub: S::sub([dual(i, 0), dual(i, 1), dual(i, 2)]),
            },
        })
        .collect();
    for c in &out.contacts {
        results[c.pose as usize].pairs.push((c.a, c.b));
    }
    stats.unsure += out.unsure.len() as u64;
    for u in &out.unsure {
        let ta = env.tris.corners_f64(u.a as usize);
        let tb = fly
            .tris
            .corners_f64(u.b as usize)
            .map(|p| poses[u.pose as usize].apply(p));
        if tri_tri_intersect(&ta, &tb) {
            results[u.pose as usize]
                .pairs
                .push((env.tri_index[u.a as usize], fly.tri_index[u.b as usize]));
        }
    }
    for r in &mut results {
        r.pairs.sort_unstable();
        r.pairs.dedup();
        if mode == Mode::First {
            r.pairs.truncate(1);
        }
    }
    results
}

/// What one batch produced: contacts in the meshes' own triangle numbering, undecided
/// pairs as positions in the reordered triangle arrays.
pub(crate) struct BatchOutput {
    pub nv: Vec<u32>,
    pub np: Vec<u32>,
    pub contacts: Vec<FrontPair>,
    pub unsure: Vec<FrontPair>,
    /// Dual hierarchy: (sphere rejects, slab rejects, slab tests) per pose; else empty.
    pub dual: Vec<u32>,
}
