//! The batch pipeline on the GPU: per batch of poses, one submission of
//! (tumble_front → expand → prepare_tri → tri_test → prepare_next) × levels, then one
//! readback of the counters and one of the contacts.
//!
//! The front is breadth first and stackless: `(pose, a, b, slot)` pairs in, child pairs out,
//! leaf pairs to a list, appends by atomics, dispatch sizes written on the GPU. The descent
//! rule is the scene's (`Descent::Larger` for the k-DOP scene by default, Algorithm 1 for
//! the papers' settings and the dual hierarchy) and the tumbled k-DOPs are the CPU
//! reference's, bit for bit, so the set of node pairs tested (Nv) is the same. Tumbling is
//! lazy with the approximation method: only the (pose, node) pairs the front reaches are
//! tumbled, once each (`tumble_front`, a hash table per batch), so Nu is the CPU's too; the
//! exact method refits every node per pose, as the CPU does. Triangle pairs the f32 filter
//! cannot certify come back as UNSURE and are decided here with the exact test: the pairs
//! equal the reference's.
//!
//! Memory: the scene's static arrays are uploaded once; the batch buffers live in the scene
//! and are reused from batch to batch. Batches are sized from what the previous batches
//! needed per pose (front, leaf pairs, contacts, tumbled nodes), with room to spare, within
//! [`GpuScene::batch_memory`] and the device's binding limit, so memory does not grow with
//! the number of poses. Every append checks its capacity and raises an overflow flag instead
//! of writing; on overflow (the first batch, or an unusual one) the host grows what ran out
//! and runs that batch again, or, when a buffer would exceed the device's limit, runs half
//! as many poses. Nothing is lost.

use super::context::{GpuContext, GpuError};
use super::layout::{FrontPair, GpuCounters, NO_SLOT};
use super::shader::{self, DISPATCH_X, WORKGROUP_SIZE};
use crate::Pose;
use crate::bv::{Kdop, KdopNode};
use crate::bvh::Bvh;
use crate::dual::DualCounters;
use crate::dual::{DualOptions, DualScene, SlabOrder, Sphere};
use crate::kdop::{Descent, KdopScene};
use crate::scene::{Counters, Mode, NoSub, PoseResult, Progress, SubCounters};
use crate::tri::tri_tri_intersect;
use crate::tumble::{FlyingHierarchy, POSE_CHUNK, PoseFrame, TumbleMethod};
use wgpu::BufferUsages as U;

/// What the batch pipeline needs of a scene: A's hierarchy, B's flying hierarchy, the
/// descent rule and, for the dual k-DOP–sphere hierarchy, the node spheres and the options
/// of its node test.
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
    /// Whether the descent prefers the node with the larger k-DOP (`Descent::Larger`);
    /// false: Algorithm 1.
    fn descent_larger(&self) -> bool {
        false
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
    fn descent_larger(&self) -> bool {
        self.options.descent == Descent::Larger
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

/// The work of one submitted batch, counted for a work model of real hardware
/// (BENCHMARKS.md, "GPU work model"). Reads are counted as the kernels issue them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct BatchWork {
    /// Poses in the batch.
    pub poses: u64,
    /// Node pairs tested (Nv, all poses).
    pub node_pairs: u64,
    /// Flying nodes tumbled (Nu, all poses).
    pub nodes_tumbled: u64,
    /// Triangle pairs tested (Np, all poses).
    pub tri_pairs: u64,
    /// Bytes the kernels read from node arrays, tumbled k-DOPs and bounding points.
    pub node_bytes_read: u64,
    /// Atomic operations issued by the kernels (appends, counters, table inserts).
    pub atomics: u64,
    /// Compute dispatches recorded.
    pub dispatches: u64,
    /// Bytes written to the device for this batch.
    pub bytes_uploaded: u64,
    /// Bytes copied back to the host.
    pub bytes_read_back: u64,
    /// Readbacks (each one a wait for the device).
    pub readbacks: u64,
    /// Submissions, re-runs included.
    pub submissions: u64,
    /// Bytes of the batch buffers at the time.
    pub buffer_bytes: u64,
}

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
    /// Batches cut to fewer poses because a buffer would exceed the device's limit.
    pub splits: u64,
    /// Readbacks (waits for the device).
    pub readbacks: u64,
    /// Bytes copied back to the host.
    pub bytes_read_back: u64,
    /// Largest total of the batch buffers (bytes), static arrays excluded.
    pub peak_buffer_bytes: u64,
    /// Per batch that completed: its work.
    pub batches: Vec<BatchWork>,
}

/// Capacities of the batch buffers; they grow on overflow and follow what batches need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacities {
    /// Node pairs of one level of the breadth-first front (all poses of a batch).
    pub front: u32,
    /// Leaf pairs waiting for triangle tests.
    pub leaf: u32,
    /// Triangle pairs the f32 filter proved intersecting.
    pub contact: u32,
    /// Triangle pairs the f32 filter could not decide (the host decides them exactly).
    pub unsure: u32,
    /// Slots of the lazy tumbling table (rounded up to a power of two).
    pub tumbled: u32,
}

impl Default for Capacities {
    fn default() -> Self {
        Capacities {
            front: 1 << 18,
            leaf: 1 << 17,
            contact: 1 << 17,
            unsure: 1 << 14,
            tumbled: 1 << 14,
        }
    }
}

/// What batches needed per pose so far (the largest rate seen), to size the next ones.
#[derive(Debug, Clone, Copy, Default)]
struct PerPose {
    front: f64,
    leaf: f64,
    contact: f64,
    unsure: f64,
    tumbled: f64,
}

/// Headroom over the per-pose needs seen so far when sizing a batch.
const HEADROOM: f64 = 3.0;

/// Poses of the first batch of a scene (nothing learned yet).
const FIRST_BATCH: usize = POSE_CHUNK;

/// Largest expected load of the lazy tumbling table (linear probing stays short).
const TABLE_LOAD: f64 = 0.5;

/// Headroom over the tumbled nodes per pose seen so far when sizing the lazy table.
const TABLE_HEADROOM: f64 = 1.5;

struct Pipelines {
    tumble_exact_leaves: wgpu::ComputePipeline,
    tumble_exact_merge: wgpu::ComputePipeline,
    tumble_front: wgpu::ComputePipeline,
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

/// The buffers of one batch, kept and reused while they are large enough.
struct BatchBuffers {
    /// Poses they hold.
    poses: u32,
    caps: Capacities,
    /// Whether `tumbled` is dense (`poses · n_fly` k-DOPs) rather than the lazy table.
    dense: bool,
    frames: wgpu::Buffer,
    tumbled: wgpu::Buffer,
    hash_keys: wgpu::Buffer,
    front_a: wgpu::Buffer,
    front_b: wgpu::Buffer,
    leaves: wgpu::Buffer,
    contacts: wgpu::Buffer,
    unsure: wgpu::Buffer,
    counters: wgpu::Buffer,
    /// Per pose: nv, np, nu, done (u32 each), then the dual sub-counters (3 × u32).
    nv: wgpu::Buffer,
    np: wgpu::Buffer,
    nu: wgpu::Buffer,
    done: wgpu::Buffer,
    dual_counts: wgpu::Buffer,
    args: wgpu::Buffer,
    level_sizes: wgpu::Buffer,
    slices: wgpu::Buffer,
    bytes: u64,
}

/// The scene's static arrays on the device, the pipelines (compiled once) and the batch
/// buffers (reused across batches and calls).
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
    /// Mean bounding points per flying node (the work model's bytes per tumbled node).
    points_per_node: f64,
    pipelines: Pipelines,
    dual: Option<DualBuffers>,
    descent_larger: bool,
    n_fly: u32,
    levels: u32,
    /// Bytes of the static upload.
    pub static_bytes: u64,
    /// Capacities of the next batch (tests shrink them to force overflow); afterwards they
    /// follow what the batches needed.
    pub capacities: Capacities,
    /// Largest buffer the pipeline creates: the device's storage binding limit (tests lower
    /// it to force batches to split).
    pub max_buffer_bytes: u64,
    /// Budget for the batch buffers together (bytes): batches hold as many poses as fit.
    pub batch_memory: u64,
    per_pose: Option<PerPose>,
    /// Poses of the last batch that completed.
    last_poses: usize,
    buffers: Option<BatchBuffers>,
    uploaded: bool,
}

/// Bindings `0, 1, 2, …` in order.
fn seq<'a>(bufs: &[&'a wgpu::Buffer]) -> Vec<(u32, &'a wgpu::Buffer)> {
    bufs.iter()
        .enumerate()
        .map(|(i, b)| (i as u32, *b))
        .collect()
}

fn groups(n: u64) -> (u32, u32) {
    let g = n.div_ceil(WORKGROUP_SIZE as u64).max(1);
    if g <= DISPATCH_X as u64 {
        (g as u32, 1)
    } else {
        (DISPATCH_X, g.div_ceil(DISPATCH_X as u64) as u32)
    }
}

const PAIR: u64 = std::mem::size_of::<FrontPair>() as u64;

impl<const H: usize> GpuScene<H> {
    /// Uploads the scene's node arrays, triangles (local f32 corners, derived once here:
    /// [`crate::ordered::OrderedTriangles::all_corners_f32`]) and bounding points as the
    /// same bytes (and the node spheres of a dual scene), and compiles the pipelines.
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
        let (node_list, fly_slices) = super::mirror::kdop_tumble::exact_dispatch_order(&fly.bvh);
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
        let pipelines = Pipelines {
            tumble_exact_leaves: pipeline(ctx, "kdop_tumble.wgsl", "tumble_exact_leaves", H),
            tumble_exact_merge: pipeline(ctx, "kdop_tumble.wgsl", "tumble_exact_merge", H),
            tumble_front: pipeline(ctx, "kdop_tumble.wgsl", "tumble_front", H),
            expand: pipeline(ctx, "front_expand.wgsl", "expand", H),
            prepare_tri: pipeline(ctx, "front_prepare.wgsl", "prepare_tri", H),
            prepare_next: pipeline(ctx, "front_prepare.wgsl", "prepare_next", H),
            tri_test: pipeline(ctx, "tri_tri.wgsl", "tri_test", H),
            expand_dual: dual
                .is_some()
                .then(|| pipeline(ctx, "front_expand.wgsl", "expand_dual", H)),
        };
        // Shader compilation and pipeline creation report through the error handler.
        ctx.check()?;
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
            points_per_node: fly.points.len() as f64 / n_fly.max(1) as f64,
            pipelines,
            dual,
            descent_larger: scene.descent_larger(),
            n_fly,
            levels: env.depth + fly.bvh.depth - 1,
            static_bytes,
            capacities: Capacities::default(),
            max_buffer_bytes: limit,
            batch_memory: ctx.batch_memory,
            per_pose: None,
            last_poses: 0,
            buffers: None,
            uploaded: false,
        })
    }

    /// Bytes of one tumbled k-DOP.
    const KDOP: u64 = std::mem::size_of::<Kdop<H>>() as u64;

    /// Most poses one batch may hold: the key space of the lazy table and, for dense
    /// tumbling, the binding limit and the memory budget for `poses · n_fly` k-DOPs.
    fn pose_limit(&self, dense: bool) -> usize {
        let n_fly = self.n_fly.max(1) as u64;
        let keys = (u32::MAX as u64 - 1) / n_fly;
        let mut most = keys;
        if dense {
            let per_pose = n_fly * Self::KDOP;
            most = most
                .min(self.max_buffer_bytes / per_pose)
                .min(self.batch_memory / per_pose);
        }
        most.max(1) as usize
    }

    /// Poses and capacities of the next batch of at most `left` poses. The first batch of
    /// a scene is a small probe with default capacities (its lazy table sized for up to
    /// 4096 tumbled nodes per pose); later ones are sized from the largest per-pose needs
    /// seen, with [`HEADROOM`], the lazy table kept at most [`TABLE_LOAD`] full.
    fn plan(&self, left: usize, dense: bool) -> (usize, Capacities) {
        let limit = self.pose_limit(dense);
        let Some(r) = self.per_pose else {
            let p = left.min(FIRST_BATCH).min(limit);
            let table = (2 * p as u64 * (self.n_fly as u64).min(4096)).next_power_of_two();
            let caps = Capacities {
                tumbled: self.capacities.tumbled.max(table.min(1 << 30) as u32),
                ..self.capacities
            };
            return (p, caps.clamped(self.max_buffer_bytes, Self::KDOP));
        };
        let frame = std::mem::size_of::<PoseFrame<H>>() as f64;
        // Slots per pose of the lazy table (before rounding to a power of two). The nodes
        // tumbled per batch vary little (a sum over many poses): a smaller headroom.
        let slots = TABLE_HEADROOM * r.tumbled / TABLE_LOAD;
        let tumbled_bytes = if dense {
            self.n_fly as f64 * Self::KDOP as f64
        } else {
            2.0 * slots * (Self::KDOP + 4) as f64
        };
        let per_pose = HEADROOM * PAIR as f64 * (2.0 * r.front + r.leaf + r.contact + r.unsure)
            + tumbled_bytes
            + frame
            + 28.0;
        let by_memory = (self.batch_memory as f64 / per_pose) as usize;
        let largest = |rate: f64, bytes: f64| {
            if rate > 0.0 {
                (self.max_buffer_bytes as f64 / (rate * bytes)) as usize
            } else {
                usize::MAX
            }
        };
        // The table's power of two must fit one binding.
        let max_slots = 1u64 << (self.max_buffer_bytes / Self::KDOP).max(1).ilog2();
        let by_table = if dense || slots <= 0.0 {
            usize::MAX
        } else {
            (max_slots as f64 / slots) as usize
        };
        let by_binding = [
            largest(HEADROOM * r.front, PAIR as f64),
            largest(HEADROOM * r.leaf, PAIR as f64),
            largest(HEADROOM * r.contact, PAIR as f64),
            largest(HEADROOM * r.unsure, PAIR as f64),
            by_table,
        ]
        .into_iter()
        .min()
        .unwrap_or(usize::MAX);
        // At most four times the poses of the last batch: needs vary along a pose sequence,
        // and a batch sized from too few poses would overflow and run again.
        let mut p = by_memory
            .min(by_binding)
            .min(limit)
            .min(4 * self.last_poses.max(1))
            .max(1);
        if p > POSE_CHUNK {
            p -= p % POSE_CHUNK;
        }
        let p = p.min(left);
        let cap = |rate: f64| (HEADROOM * rate * p as f64).ceil().min(u32::MAX as f64) as u32;
        let caps = Capacities {
            front: cap(r.front).max(2 * p as u32).max(64),
            leaf: cap(r.leaf).max(64),
            contact: cap(r.contact).max(64),
            unsure: cap(r.unsure).max(64),
            tumbled: ((slots * p as f64).ceil() as u64)
                .clamp(64, max_slots)
                .next_power_of_two() as u32,
        };
        (p, caps)
    }

    /// Records what a batch of `p` poses needed (per pose, the largest seen).
    fn learn(&mut self, p: usize, c: &GpuCounters) {
        let p = p.max(1) as f64;
        let seen = PerPose {
            front: c.max_front as f64 / p,
            leaf: c.max_leaf as f64 / p,
            contact: c.n_contact as f64 / p,
            unsure: c.n_unsure as f64 / p,
            tumbled: c.n_tumbled as f64 / p,
        };
        self.per_pose = Some(match self.per_pose {
            None => seen,
            Some(r) => PerPose {
                front: r.front.max(seen.front),
                leaf: r.leaf.max(seen.leaf),
                contact: r.contact.max(seen.contact),
                unsure: r.unsure.max(seen.unsure),
                tumbled: r.tumbled.max(seen.tumbled),
            },
        });
    }

    /// The largest buffer of these capacities (bytes).
    fn largest_buffer(c: &Capacities) -> u64 {
        let table = c.tumbled.next_power_of_two() as u64 * Self::KDOP;
        [c.front, c.leaf, c.contact, c.unsure]
            .iter()
            .map(|&n| n as u64 * PAIR)
            .fold(table, u64::max)
    }

    /// Whether buffers of these capacities stay within [`GpuScene::max_buffer_bytes`].
    fn fits(&self, c: &Capacities) -> bool {
        Self::largest_buffer(c) <= self.max_buffer_bytes
    }

    /// All poses, in batches; results per pose in the order given, like
    /// [`crate::scene::collide_batch`]. Pose frames are computed batch by batch, so memory
    /// beyond the results does not grow with the number of poses.
    pub fn collide_batch<S: GpuHierarchies<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        poses: &[Pose],
        mode: Mode,
        tumble: TumbleMethod,
        progress: Option<Progress<'_>>,
    ) -> Result<GpuBatch<S::Sub>, GpuError> {
        let dense = tumble == TumbleMethod::Exact;
        let mut stats = GpuStats {
            level_sizes: vec![0; self.levels as usize],
            ..Default::default()
        };
        if !self.uploaded {
            stats.bytes_uploaded = self.static_bytes;
            self.uploaded = true;
        }
        let mut results = Vec::with_capacity(poses.len());
        let mut start = 0;
        let mut cut: Option<usize> = None;
        while start < poses.len() {
            let left = poses.len() - start;
            let (p, mut caps) = self.plan(cut.map_or(left, |c| c.clamp(1, left)), dense);
            let chunk = &poses[start..start + p];
            let frames = scene.fly().pose_frames(scene.env().frame(), chunk);
            let mut work = BatchWork {
                poses: p as u64,
                ..Default::default()
            };
            // The capacities of a one-pose run that overflowed at the device's limit.
            let mut at_limit: Option<Capacities> = None;
            let out = loop {
                if !self.fits(&caps) {
                    if p > 1 {
                        break None;
                    }
                    // One pose: the growth estimate may overshoot; try what fits.
                    caps = caps.clamped(self.max_buffer_bytes, Self::KDOP);
                    if at_limit == Some(caps) {
                        break None;
                    }
                }
                match self.run_batch(ctx, &frames, caps, mode, tumble, &mut work) {
                    Ok(Ok(out)) => break Some(out),
                    Ok(Err(needed)) => {
                        stats.reruns += 1;
                        if p == 1 && !self.fits(&needed) {
                            at_limit = Some(caps);
                        }
                        caps = needed;
                        self.capacities = needed;
                    }
                    // A buffer beyond the device's limit: fewer poses per submission.
                    Err(GpuError::TooLarge { .. }) if p > 1 => break None,
                    Err(e) => return Err(e),
                }
            };
            let Some((out, counters)) = out else {
                if p == 1 {
                    return Err(GpuError::TooLarge {
                        needed: Self::largest_buffer(&self.capacities),
                        limit: self.max_buffer_bytes,
                    });
                }
                stats.splits += 1;
                self.capacities = caps.clamped(self.max_buffer_bytes, Self::KDOP);
                cut = Some(p / 2);
                continue;
            };
            cut = cut.map(|c| c * 2);
            self.learn(p, &counters);
            self.last_poses = p;
            self.capacities = caps;
            for (s, v) in stats.level_sizes.iter_mut().zip(&out.level_sizes) {
                *s += *v as u64;
            }
            work.node_pairs = out.nv.iter().map(|&v| v as u64).sum();
            work.tri_pairs = out.np.iter().map(|&v| v as u64).sum();
            work.nodes_tumbled = if dense {
                p as u64 * self.n_fly as u64
            } else {
                counters.n_tumbled as u64
            };
            self.count_work(&mut work, &counters, dense);
            stats.dispatches += work.dispatches;
            stats.bytes_uploaded += work.bytes_uploaded;
            stats.submissions += work.submissions;
            stats.readbacks += work.readbacks;
            stats.bytes_read_back += work.bytes_read_back;
            stats.peak_buffer_bytes = stats.peak_buffer_bytes.max(work.buffer_bytes);
            stats.batches.push(work);
            results.extend(finish(scene, chunk, out, mode, dense, &mut stats));
            start += p;
            if let Some(progress) = progress {
                progress(start);
            }
        }
        Ok((results, stats))
    }

    /// The work model's reads and atomics of a finished batch, from its counters (see
    /// [`BatchWork`]): per node pair tested, A's node and B's tumbled k-DOP (and B's node
    /// when descending); per tumbled node, its bounding points and, lazily, the table probe;
    /// per leaf pair, both nodes; atomics: one per node pair (Nv), one per append, two per
    /// tumbled node, one per leaf pair (Np) and one per contact or unsure pair.
    fn count_work(&self, w: &mut BatchWork, c: &GpuCounters, dense: bool) {
        let node = std::mem::size_of::<KdopNode<H>>() as u64;
        let appended: u64 = w.node_pairs.saturating_sub(w.poses); // every pair but the roots was appended
        let leaves = c.max_leaf as u64; // at least one level's leaf pairs (a lower bound)
        let point_bytes = (self.points_per_node * 12.0) as u64;
        w.node_bytes_read = w.node_pairs * (node + Self::KDOP + PAIR)
            + appended * 8
            + w.nodes_tumbled * (point_bytes + if dense { 0 } else { 4 + PAIR })
            + leaves * 2 * 8;
        w.atomics = w.node_pairs
            + appended
            + 2 * w.nodes_tumbled
            + leaves
            + c.n_contact as u64
            + c.n_unsure as u64;
    }

    /// The batch buffers for `p` poses and `caps`, reusing the current ones when they are
    /// large enough.
    fn buffers(
        &mut self,
        ctx: &GpuContext,
        p: u32,
        caps: Capacities,
        dense: bool,
    ) -> Result<&BatchBuffers, GpuError> {
        let table = caps.tumbled.next_power_of_two();
        let caps = Capacities {
            tumbled: table,
            ..caps
        };
        let reuse = self.buffers.as_ref().is_some_and(|b| {
            b.poses >= p
                && b.dense == dense
                && b.caps.front >= caps.front
                && b.caps.leaf >= caps.leaf
                && b.caps.contact >= caps.contact
                && b.caps.unsure >= caps.unsure
                && (dense || b.caps.tumbled >= caps.tumbled)
        });
        if !reuse {
            // Free the old buffers before creating the new ones.
            self.buffers = None;
            let mut total = 0u64;
            let mut make = |name: &str, size: u64, extra: U| {
                total += size;
                ctx.storage_empty(name, size, extra)
            };
            let tumbled = if dense {
                make(
                    "tumbled",
                    p as u64 * self.n_fly as u64 * Self::KDOP,
                    U::empty(),
                )?
            } else {
                make("tumbled", table as u64 * Self::KDOP, U::empty())?
            };
            let hash_keys = make(
                "hash_keys",
                if dense { 4 } else { table as u64 * 4 },
                U::empty(),
            )?;
            let per_pose = p as u64 * 4;
            let b = BatchBuffers {
                poses: p,
                caps,
                dense,
                frames: make(
                    "frames",
                    p as u64 * std::mem::size_of::<PoseFrame<H>>() as u64,
                    U::empty(),
                )?,
                tumbled,
                hash_keys,
                front_a: make("front_a", caps.front as u64 * PAIR, U::empty())?,
                front_b: make("front_b", caps.front as u64 * PAIR, U::empty())?,
                leaves: make("leaves", caps.leaf as u64 * PAIR, U::empty())?,
                contacts: make("contacts", caps.contact as u64 * PAIR, U::empty())?,
                unsure: make("unsure", caps.unsure as u64 * PAIR, U::empty())?,
                counters: make(
                    "counters",
                    std::mem::size_of::<GpuCounters>() as u64,
                    U::empty(),
                )?,
                nv: make("nv", per_pose, U::empty())?,
                np: make("np", per_pose, U::empty())?,
                nu: make("nu", per_pose, U::empty())?,
                done: make("done", per_pose, U::empty())?,
                dual_counts: make(
                    "dual_counts",
                    if self.dual.is_some() { 3 * per_pose } else { 4 },
                    U::empty(),
                )?,
                args: make("args", 24, U::INDIRECT)?,
                level_sizes: make("level_sizes", self.levels as u64 * 4, U::empty())?,
                slices: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("tumble_slices"),
                    size: Self::slice_slot(ctx) * self.fly_slices.len().max(1) as u64,
                    usage: U::UNIFORM | U::COPY_DST,
                    mapped_at_creation: false,
                }),
                bytes: 0,
            };
            self.buffers = Some(BatchBuffers { bytes: total, ..b });
        }
        Ok(self.buffers.as_ref().expect("just made"))
    }

    /// Aligned size of one uniform slot of the exact method's slice parameters.
    fn slice_slot(ctx: &GpuContext) -> u64 {
        ctx.device
            .limits()
            .min_uniform_buffer_offset_alignment
            .max(16) as u64
    }

    /// One submission of `frames.len()` poses. `Ok(Err(caps))`: a capacity ran out; `caps`
    /// are large enough for what the counters asked for.
    #[allow(clippy::type_complexity)]
    fn run_batch(
        &mut self,
        ctx: &GpuContext,
        frames: &[PoseFrame<H>],
        caps: Capacities,
        mode: Mode,
        tumble: TumbleMethod,
        work: &mut BatchWork,
    ) -> Result<Result<(BatchOutput, GpuCounters), Capacities>, GpuError> {
        let p = frames.len() as u32;
        let dense = tumble == TumbleMethod::Exact;
        let caps = Capacities {
            front: caps.front.max(2 * p),
            ..caps
        };
        self.buffers(ctx, p, caps, dense)?;
        let bb = self.buffers.as_ref().expect("made above");
        let caps = Capacities {
            tumbled: caps.tumbled.next_power_of_two(),
            ..caps
        };
        work.buffer_bytes = work.buffer_bytes.max(bb.bytes);
        let n_fly = self.n_fly;
        let initial: Vec<FrontPair> = (0..p)
            .map(|pose| FrontPair {
                pose,
                a: 0,
                b: 0,
                slot: if dense { pose * n_fly } else { NO_SLOT },
            })
            .collect();
        let counters0 = GpuCounters {
            n_in: p,
            cap_front: caps.front,
            cap_leaf: caps.leaf,
            cap_contact: caps.contact,
            cap_unsure: caps.unsure,
            n_fly,
            mode_first: (mode == Mode::First) as u32,
            dual_flags: self.dual.as_ref().map_or(0, |d| d.flags),
            descent_larger: self.descent_larger as u32,
            lazy: !dense as u32,
            hash_mask: if dense { 0 } else { caps.tumbled - 1 },
            ..Default::default()
        };
        let (gx, gy) = groups(p as u64);
        let q = &ctx.queue;
        q.write_buffer(&bb.frames, 0, bytemuck::cast_slice(frames));
        q.write_buffer(&bb.front_a, 0, bytemuck::cast_slice(&initial));
        q.write_buffer(&bb.counters, 0, bytemuck::bytes_of(&counters0));
        q.write_buffer(&bb.args, 0, bytemuck::cast_slice(&[gx, gy, 1, 0, 0, 1]));
        work.bytes_uploaded += std::mem::size_of_val(frames) as u64
            + initial.len() as u64 * PAIR
            + std::mem::size_of::<GpuCounters>() as u64
            + 24;

        let bind = |pipe: &wgpu::ComputePipeline, bufs: &[(u32, &wgpu::Buffer)]| {
            let entries: Vec<wgpu::BindGroupEntry> = bufs
                .iter()
                .map(|(i, b)| wgpu::BindGroupEntry {
                    binding: *i,
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
        let slot = Self::slice_slot(ctx);
        let mut tumble_bgs = Vec::new();
        if dense {
            for (k, &(start, count)) in self.fly_slices.iter().enumerate() {
                let params = [start, count, p, n_fly];
                q.write_buffer(&bb.slices, k as u64 * slot, bytemuck::cast_slice(&params));
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
                    entry(3, &bb.tumbled),
                    entry(5, &self.fly_nodes),
                    entry(7, &self.fly_node_list),
                ];
                if k == 0 {
                    entries.push(entry(0, &bb.frames));
                    entries.push(entry(6, &self.fly_tris));
                }
                entries.push(wgpu::BindGroupEntry {
                    binding: 8,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer: &bb.slices,
                        offset: k as u64 * slot,
                        size: std::num::NonZeroU64::new(16),
                    }),
                });
                let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: None,
                    layout: &pipe.get_bind_group_layout(0),
                    entries: &entries,
                });
                tumble_bgs.push((pipe, bg, count));
            }
        }
        let front_bg = |front: &wgpu::Buffer| {
            bind(
                &pl.tumble_front,
                &[
                    (0, &bb.frames),
                    (1, &self.fly_offsets),
                    (2, &self.fly_points),
                    (3, &bb.tumbled),
                    (9, front),
                    (10, &bb.counters),
                    (11, &bb.hash_keys),
                    (12, &bb.nu),
                ],
            )
        };
        let bg_front = if dense {
            None
        } else {
            Some([front_bg(&bb.front_a), front_bg(&bb.front_b)])
        };
        let expand_pipe = match &pl.expand_dual {
            Some(pipe) => pipe,
            None => &pl.expand,
        };
        let expand_bg = |fin: &wgpu::Buffer, fout: &wgpu::Buffer| {
            let mut bufs = vec![
                &self.env_nodes,
                &self.fly_nodes,
                &bb.tumbled,
                fin,
                fout,
                &bb.leaves,
                &bb.counters,
                &bb.nv,
                &bb.done,
            ];
            if let Some(d) = &self.dual {
                bufs.extend([&d.env_spheres, &d.fly_spheres, &bb.frames, &bb.dual_counts]);
            }
            bind(expand_pipe, &seq(&bufs))
        };
        let bg_expand = [
            expand_bg(&bb.front_a, &bb.front_b),
            expand_bg(&bb.front_b, &bb.front_a),
        ];
        let bg_prep_tri = bind(&pl.prepare_tri, &seq(&[&bb.counters, &bb.args]));
        let bg_prep_next = bind(
            &pl.prepare_next,
            &seq(&[&bb.counters, &bb.args, &bb.level_sizes]),
        );
        let bg_tri = bind(
            &pl.tri_test,
            &seq(&[
                &self.env_nodes,
                &self.fly_nodes,
                &self.env_tris,
                &self.fly_tris,
                &bb.frames,
                &bb.leaves,
                &bb.counters,
                &bb.np,
                &bb.done,
                &bb.contacts,
                &bb.unsure,
                &self.env_tri_index,
                &self.fly_tri_index,
            ]),
        );

        let mut enc = ctx.device.create_command_encoder(&Default::default());
        let per_pose = p as u64 * 4;
        for b in [&bb.nv, &bb.np, &bb.nu, &bb.done] {
            enc.clear_buffer(b, 0, Some(per_pose));
        }
        enc.clear_buffer(&bb.dual_counts, 0, None);
        enc.clear_buffer(&bb.level_sizes, 0, None);
        if !dense {
            enc.clear_buffer(&bb.hash_keys, 0, Some(caps.tumbled as u64 * 4));
        }
        let mut dispatches = 0;
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for (pipe, bg, count) in &tumble_bgs {
                let (tx, ty) = groups(p as u64 * *count as u64);
                pass.set_pipeline(pipe);
                pass.set_bind_group(0, bg, &[]);
                pass.dispatch_workgroups(tx, ty, 1);
                dispatches += 1;
            }
            if let Some(bgf) = &bg_front {
                pass.set_pipeline(&pl.tumble_front);
                pass.set_bind_group(0, &bgf[0], &[]);
                pass.dispatch_workgroups(gx, gy, 1);
                dispatches += 1;
            }
            for level in 0..self.levels as usize {
                pass.set_pipeline(expand_pipe);
                pass.set_bind_group(0, &bg_expand[level % 2], &[]);
                pass.dispatch_workgroups_indirect(&bb.args, 0);
                pass.set_pipeline(&pl.prepare_tri);
                pass.set_bind_group(0, &bg_prep_tri, &[]);
                pass.dispatch_workgroups(1, 1, 1);
                pass.set_pipeline(&pl.tri_test);
                pass.set_bind_group(0, &bg_tri, &[]);
                pass.dispatch_workgroups_indirect(&bb.args, 12);
                pass.set_pipeline(&pl.prepare_next);
                pass.set_bind_group(0, &bg_prep_next, &[]);
                pass.dispatch_workgroups(1, 1, 1);
                dispatches += 4;
                if let Some(bgf) = &bg_front
                    && level + 1 < self.levels as usize
                {
                    // The next level's input is this level's output.
                    pass.set_pipeline(&pl.tumble_front);
                    pass.set_bind_group(0, &bgf[(level + 1) % 2], &[]);
                    pass.dispatch_workgroups_indirect(&bb.args, 0);
                    dispatches += 1;
                }
            }
        }
        // One readback of everything of fixed size: counters, level sizes, per-pose counters.
        let counters_bytes = std::mem::size_of::<GpuCounters>() as u64;
        let lv = self.levels as u64 * 4;
        let dual_bytes = if self.dual.is_some() { 3 * per_pose } else { 0 };
        let parts: [(&wgpu::Buffer, u64); 6] = [
            (&bb.counters, counters_bytes),
            (&bb.level_sizes, lv),
            (&bb.nv, per_pose),
            (&bb.np, per_pose),
            (&bb.nu, per_pose),
            (&bb.dual_counts, dual_bytes),
        ];
        let summary_bytes: u64 = parts.iter().map(|(_, n)| n).sum();
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("summary"),
            size: summary_bytes,
            usage: U::MAP_READ | U::COPY_DST,
            mapped_at_creation: false,
        });
        let mut at = 0;
        for (b, n) in parts {
            if n > 0 {
                enc.copy_buffer_to_buffer(b, 0, &staging, at, n);
                at += n;
            }
        }
        q.submit([enc.finish()]);
        work.submissions += 1;
        work.dispatches += dispatches;
        let summary = ctx.map_read(&staging)?;
        work.readbacks += 1;
        work.bytes_read_back += summary_bytes;
        let c: GpuCounters = bytemuck::pod_read_unaligned(&summary[..counters_bytes as usize]);
        debug_assert_eq!(c.n_in, 0, "depth(A) + depth(B) - 1 levels empty the front");
        if c.overflow != 0 {
            // Grow every exhausted capacity to what was asked for, with room to spare. A
            // truncated level under-reports the levels after it, so every capacity but the
            // exact counts (contacts, unsure pairs) grows by the largest shortfall seen (at
            // least twice).
            let short = |cap: u32, need: u32, bit: u32| {
                if c.overflow & bit != 0 {
                    need as f64 / cap.max(1) as f64
                } else {
                    1.0
                }
            };
            let factor = [
                short(caps.front, c.max_front, 1),
                short(caps.leaf, c.max_leaf, 2),
                short(caps.tumbled, c.n_tumbled, 16),
            ]
            .into_iter()
            .fold(2.0f64, f64::max);
            let scale = |cap: u32| (cap as f64 * factor).min(u32::MAX as f64) as u32;
            let grow = |cap: u32, need: u32, bit: u32| {
                if c.overflow & bit != 0 {
                    need.max(cap).saturating_mul(2)
                } else {
                    cap
                }
            };
            return Ok(Err(Capacities {
                front: scale(caps.front),
                leaf: scale(caps.leaf),
                contact: grow(caps.contact, c.n_contact, 4),
                unsure: grow(caps.unsure, c.n_unsure, 8),
                tumbled: scale(caps.tumbled),
            }));
        }
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&summary[counters_bytes as usize..]);
        let (lvl, rest) = words.split_at(self.levels as usize);
        let (nv, rest) = rest.split_at(p as usize);
        let (np, rest) = rest.split_at(p as usize);
        let (nu, dual) = rest.split_at(p as usize);
        // The contacts and the unsure pairs, in one readback when there are any.
        let (n_c, n_u) = (c.n_contact as u64 * PAIR, c.n_unsure as u64 * PAIR);
        let (mut contacts, mut unsure) = (Vec::new(), Vec::new());
        if n_c + n_u > 0 {
            let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("pairs"),
                size: n_c + n_u,
                usage: U::MAP_READ | U::COPY_DST,
                mapped_at_creation: false,
            });
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            if n_c > 0 {
                enc.copy_buffer_to_buffer(&bb.contacts, 0, &staging, 0, n_c);
            }
            if n_u > 0 {
                enc.copy_buffer_to_buffer(&bb.unsure, 0, &staging, n_c, n_u);
            }
            q.submit([enc.finish()]);
            let bytes = ctx.map_read(&staging)?;
            work.readbacks += 1;
            work.bytes_read_back += n_c + n_u;
            contacts = bytemuck::pod_collect_to_vec(&bytes[..n_c as usize]);
            unsure = bytemuck::pod_collect_to_vec(&bytes[n_c as usize..]);
        }
        Ok(Ok((
            BatchOutput {
                level_sizes: lvl.to_vec(),
                nv: nv.to_vec(),
                np: np.to_vec(),
                nu: nu.to_vec(),
                contacts,
                unsure,
                dual: dual.to_vec(),
            },
            c,
        )))
    }
}

impl Capacities {
    /// Each capacity cut to what fits in a buffer of `bytes`.
    fn clamped(self, bytes: u64, kdop: u64) -> Capacities {
        let most = (bytes / PAIR).min(u32::MAX as u64) as u32;
        let table = (bytes / kdop).min(1 << 31) as u32;
        let table = if table.is_power_of_two() {
            table
        } else {
            (table.next_power_of_two() / 2).max(1)
        };
        Capacities {
            front: self.front.min(most),
            leaf: self.leaf.min(most),
            contact: self.contact.min(most),
            unsure: self.unsure.min(most),
            tumbled: self.tumbled.min(table),
        }
    }
}

/// Decides the UNSURE pairs exactly, maps triangle positions to file numbering, sorts.
pub(crate) fn finish<const H: usize, S: GpuHierarchies<H>>(
    scene: &S,
    poses: &[Pose],
    out: BatchOutput,
    mode: Mode,
    dense: bool,
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
                // Dense tumbling moves every node; lazy tumbling counted its own.
                bv_updates: if dense {
                    fly.nodes.len() as u64
                } else {
                    out.nu[i] as u64
                },
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
    /// Node pairs entering each level (all poses of the batch).
    pub level_sizes: Vec<u32>,
    pub nv: Vec<u32>,
    /// Nodes tumbled per pose (lazy tumbling; zeros when dense).
    pub nu: Vec<u32>,
    pub np: Vec<u32>,
    pub contacts: Vec<FrontPair>,
    pub unsure: Vec<FrontPair>,
    /// Dual hierarchy: (sphere rejects, slab rejects, slab tests) per pose; else empty.
    pub dual: Vec<u32>,
}
