//! The batch pipeline on the GPU: per batch of poses, one submission of
//! (tumble_front → prepare_tumble → tumble_fresh → expand) × levels → tri_test, then one
//! readback of the counters and one of the contacts. The last workgroup of each `expand`
//! hands the level over to the next (its dispatch size, the counters), so no
//! one-invocation kernel runs between levels; the leaf pairs of every level wait in one
//! list for the triangle tests at the end.
//!
//! The front is breadth first and stackless: `(pose, a, b, slot)` pairs in, child pairs
//! out, leaf pairs to a list, appends by atomics, dispatch sizes written on the GPU. The
//! descent rule is the scene's (`Descent::Larger` for the k-DOP scene by default,
//! Algorithm 1 of Klosowski et al. for the papers' settings and the dual hierarchy) and the tumbled
//! k-DOPs are the CPU reference's, bit for bit, so the set of node pairs tested (Nv) is the
//! same. Tumbling is lazy with the approximation method: only the (pose, node) pairs the
//! front reaches are tumbled, once each (`tumble_front` claims them in a hash table per
//! batch and lists the new ones, `tumble_fresh` tumbles only those), so Nu is the CPU's
//! too; the exact method refits every node per pose, as the CPU does. Triangle pairs the
//! f32 filter cannot certify come back as UNSURE and are decided here with the exact test:
//! the pairs equal the reference's.
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
use super::kernels::{self, Pipeline, pipeline};
use super::layout::FrontPair;
use super::paged::{PagedArray, Paging};
use super::shader::{DISPATCH_X, WORKGROUP_SIZE};
use crate::bvh::Bvh;
use crate::dual::DualCounters;
use crate::dual::{DualOptions, DualScene, SlabOrder, Sphere};
use crate::frame::LocalPose;
use crate::kdop::pretest::BoxPretest;
use crate::kdop::{Descent, KdopScene};
use crate::obb::{Obb32, PoseCheck, Volume, VolumeScene};
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub, PoseResult, Progress, SubCounters};
use crate::tri::tri_tri_intersect;
use crate::tumble::{FlyingHierarchy, PoseFrame, TumbleMethod};

mod batch;
mod bind_groups;
mod budget;
mod coherent;
mod driver;
mod finish;
mod handover;
pub(crate) use finish::{BatchOutput, finish};
mod pair_scene;
mod screen;
pub(crate) use screen::Screen;
mod plan;
pub mod profile;
mod resume;
mod roots;
pub(crate) use roots::HostRoots;
mod stages;
pub(crate) use resume::Resume;
pub(crate) use stages::{Stage, Tumbling, stages};
mod stats;
mod widen;

use batch::BatchBuffers;
pub(crate) use coherent::FrameChunk;
pub use pair_scene::{GpuPairScene, GpuVolume, GpuVolumes};
pub use plan::Capacities;
use plan::PerPose;
pub use stats::{BatchWork, GpuStats};

/// A volume tree's node volumes on the device, and which kernel tests them.
struct VolumeBuffers {
    env: PagedArray,
    fly: PagedArray,
    obb: bool,
}

/// The dual hierarchy's spheres on the device and its `Counters::dual_flags`.
struct DualBuffers {
    env_spheres: PagedArray,
    fly_spheres: PagedArray,
    flags: u32,
}

/// The results of a batch on the GPU, per pose, and what the GPU did.
pub type GpuBatch<S> = (Vec<PoseResult<S>>, GpuStats);

/// The compiled kernels of a scene ([`crate::gpu::kernels`]).
struct Pipelines {
    tumble_exact_leaves: Pipeline,
    tumble_exact_merge: Pipeline,
    tumble_front: Pipeline,
    prepare_tumble: Pipeline,
    tumble_fresh: Pipeline,
    rehash: Pipeline,
    reslot: Pipeline,
    expand: Pipeline,
    tri_test: Pipeline,
    /// The dual hierarchy's expansion (built only for a dual scene).
    expand_dual: Option<Pipeline>,
    /// The OBB or sphere tree's expansion (built only for those scenes).
    expand_volume: Option<Pipeline>,
    /// `expand` recording the front (built only for a k-DOP scene with coherence on).
    expand_record: Option<Pipeline>,
    /// `record_counts` and `gather_seeds` (built with `expand_record`).
    handover: Option<[Pipeline; 2]>,
}

/// The scene's static arrays on the device, the pipelines (compiled once) and the batch
/// buffers (reused across batches and calls).
pub struct GpuScene<const H: usize> {
    env_nodes: PagedArray,
    fly_nodes: PagedArray,
    env_tris: PagedArray,
    fly_tris: PagedArray,
    fly_offsets: PagedArray,
    fly_points: PagedArray,
    env_tri_index: PagedArray,
    fly_tri_index: PagedArray,
    /// Flying leaves, then internal nodes level by level, deepest first (exact tumbling).
    fly_node_list: PagedArray,
    /// `(start, count)` slices of `fly_node_list`: the leaves, then each internal level.
    fly_slices: Vec<(u32, u32)>,
    /// Mean bounding points per flying node (the work model's bytes per tumbled node).
    points_per_node: f64,
    pipelines: Pipelines,
    dual: Option<DualBuffers>,
    volumes: Option<VolumeBuffers>,
    /// The volume trees' root pair, tested on the host ([`roots`]).
    roots: Option<HostRoots>,
    descent_larger: bool,
    n_fly: u32,
    /// Bytes of one slot of the lazy table (and of dense tumbling): B's tumbled k-DOP, or
    /// for the volume trees its posed box or sphere.
    slot: u64,
    levels: u32,
    /// Bytes of the static upload.
    pub static_bytes: u64,
    /// Capacities of the next batch (tests shrink them to force overflow); afterwards they
    /// follow what the batches needed.
    pub capacities: Capacities,
    /// Largest buffer the pipeline creates: the device's storage binding limit (tests lower
    /// it to force batches to split).
    pub max_buffer_bytes: u64,
    /// Whether a static array is split over several bindings ([`crate::gpu::paged`]).
    pub paged: bool,
    /// The paging the pipelines were compiled for.
    paging: Paging,
    /// Budget for the batch buffers together (bytes): batches hold as many poses as fit.
    pub batch_memory: u64,
    /// Most poses of one batch, and of poses read ahead ([`MAX_BATCH_POSES`] unless
    /// lowered): bounds the host's memory for poses and results whatever the pose count.
    pub max_batch_poses: usize,
    /// The tolerance `ε` of the next runs ([`crate::proximity`]): 0, the intersection
    /// query; else every triangle pair within `ε`, on every scene (the k-DOP and dual
    /// expansions grow the slabs by [`crate::proximity::slab_margins_f32`]; the OBB and
    /// sphere trees, and the dual's spheres, are A's grown as the CPU grows them
    /// (`widen.rs`); the host
    /// decides every triangle pair of the leaf pairs with
    /// [`crate::proximity::tri_tri_within`], the pretest's box is widened, and there is no
    /// temporal coherence, as on the CPU).
    pub tolerance: crate::scene::Tolerance,
    /// The tolerance A's OBBs or spheres on the device are grown by ([`widen`]; 0: as
    /// built).
    env_widened: f64,
    /// A budgeted run's node tests per pose below the root pair ([`budget`]); `None`
    /// without a budget.
    budget: Option<u32>,
    per_pose: Option<PerPose>,
    /// [`GpuScene::within_each`]'s tolerance of each pose of the group being run (empty
    /// otherwise: the poses run at [`GpuScene::tolerance`]).
    group_eps: Vec<f64>,
    /// Poses of the last batch that completed.
    last_poses: usize,
    buffers: Option<BatchBuffers>,
    uploaded: bool,
    /// Temporal coherence: the seeds and the recorded fronts of a step.
    coherent: coherent::Recording,
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

/// Default of [`GpuScene::max_batch_poses`]: poses held at once with their frames (a few
/// MB). Batches with contacts stop earlier at the memory budget (about 1,500 bunny poses).
pub const MAX_BATCH_POSES: usize = 1 << 14;

impl<const H: usize> GpuScene<H> {
    /// Whether a batch tumbles B densely (`poses · n_fly` k-DOPs, the exact method) rather
    /// than into the lazy table: never for the volume trees, whose posed volumes are always
    /// kept in the table (the tumbling method does not apply to them).
    pub(super) fn dense(&self, tumble: TumbleMethod) -> bool {
        tumble == TumbleMethod::Exact && self.volumes.is_none()
    }

    /// A run's first step, shared by the plain and the coherent drivers: refuses exact
    /// tumbling beyond one binding, and starts the statistics (the static arrays counted
    /// as uploaded on the scene's first run).
    fn begin_run(&mut self, dense: bool) -> Result<GpuStats, GpuError> {
        let per_pose = self.n_fly as u64 * self.slot;
        if dense && per_pose > self.max_buffer_bytes {
            return Err(GpuError::ExactTumbleTooLarge {
                needed: per_pose,
                limit: self.max_buffer_bytes,
            });
        }
        let mut stats = GpuStats {
            level_sizes: vec![0; self.levels as usize],
            ..Default::default()
        };
        if !self.uploaded {
            stats.bytes_uploaded = self.static_bytes;
            self.uploaded = true;
        }
        Ok(stats)
    }

    /// Uploads the scene's node arrays, triangles (local f32 corners, derived once here:
    /// [`crate::ordered::OrderedTriangles::all_corners_f32`]) and bounding points as the
    /// same bytes (and the node spheres of a dual scene), and compiles the pipelines.
    pub fn new<S: GpuPairScene<H>>(ctx: &GpuContext, scene: &S) -> Result<Self, GpuError> {
        Self::upload(ctx, scene, None)
    }

    /// [`GpuScene::new`] for a scene whose hierarchies were rebuilt (the deforming
    /// backend, [`crate::gpu::deform`]): uploads its arrays and keeps `old`'s compiled
    /// pipelines when the same shaders serve (same paging, both k-DOP scenes).
    pub(crate) fn reupload<S: GpuPairScene<H>>(
        ctx: &GpuContext,
        scene: &S,
        old: GpuScene<H>,
    ) -> Result<Self, GpuError> {
        Self::upload(ctx, scene, Some(old))
    }

    fn upload<S: GpuPairScene<H>>(
        ctx: &GpuContext,
        scene: &S,
        old: Option<GpuScene<H>>,
    ) -> Result<Self, GpuError> {
        let env = scene.env();
        let fly_bvh = scene.fly_bvh();
        let limit = ctx.binding_limit;
        let mut static_bytes = 0;
        let mut upload = |name: &str, data: &[u8], elem: usize| {
            static_bytes += data.len() as u64;
            PagedArray::upload(ctx, name, data, elem as u64, limit)
        };
        let kdop = std::mem::size_of::<crate::bv::KdopNode<H>>();
        let env_nodes = upload("env_nodes", bytemuck::cast_slice(&env.nodes), kdop)?;
        let fly_nodes = upload("fly_nodes", bytemuck::cast_slice(&fly_bvh.nodes), kdop)?;
        let env_tris = upload(
            "env_tris",
            bytemuck::cast_slice(&env.tris.all_corners_f32()),
            4,
        )?;
        let fly_tris = upload(
            "fly_tris",
            bytemuck::cast_slice(&fly_bvh.tris.all_corners_f32()),
            4,
        )?;
        // Nothing tumbled (volume trees): one unused element each, so the bindings exist.
        // A deforming B rebuilt has no bounding points either (it is tumbled exactly).
        let (offsets, points): (&[u32], &[[f32; 3]]) = match scene.fly() {
            Some(f) if !f.points.is_empty() => (&f.offsets, &f.points),
            _ => (&[0], &[[0.0; 3]]),
        };
        let fly_offsets = upload("fly_offsets", bytemuck::cast_slice(offsets), 4)?;
        let fly_points = upload("fly_points", bytemuck::cast_slice(points), 4)?;
        let env_tri_index = upload("env_tri_index", bytemuck::cast_slice(&env.tri_index), 4)?;
        let fly_tri_index = upload("fly_tri_index", bytemuck::cast_slice(&fly_bvh.tri_index), 4)?;
        let n_fly = fly_bvh.nodes.len() as u32;
        let (node_list, fly_slices) = super::mirror::kdop_tumble::exact_dispatch_order(fly_bvh);
        let fly_node_list = upload("fly_node_list", bytemuck::cast_slice(&node_list), 4)?;
        let dual = match scene.dual() {
            None => None,
            Some((env_s, fly_s, options)) => {
                let sphere = std::mem::size_of::<crate::dual::Sphere>();
                Some(DualBuffers {
                    env_spheres: upload("env_spheres", bytemuck::cast_slice(env_s), sphere)?,
                    fly_spheres: upload("fly_spheres", bytemuck::cast_slice(fly_s), sphere)?,
                    flags: (options.order == SlabOrder::PerPair) as u32
                        | (options.symmetric as u32) << 1,
                })
            }
        };
        let volumes = match scene.volumes() {
            None => None,
            Some(GpuVolumes::Obb(e, f)) => {
                let size = std::mem::size_of::<Obb32>();
                Some(VolumeBuffers {
                    env: upload("env_obbs", bytemuck::cast_slice(e), size)?,
                    fly: upload("fly_obbs", bytemuck::cast_slice(f), size)?,
                    obb: true,
                })
            }
            Some(GpuVolumes::Sphere(e, f)) => {
                let size = std::mem::size_of::<Sphere>();
                Some(VolumeBuffers {
                    env: upload("env_spheres", bytemuck::cast_slice(e), size)?,
                    fly: upload("fly_spheres", bytemuck::cast_slice(f), size)?,
                    obb: false,
                })
            }
        };
        let mut paging = Paging::default();
        let mut arrays = vec![
            &env_nodes,
            &fly_nodes,
            &env_tris,
            &fly_tris,
            &fly_offsets,
            &fly_points,
            &env_tri_index,
            &fly_tri_index,
            &fly_node_list,
        ];
        if let Some(d) = &dual {
            arrays.extend([&d.env_spheres, &d.fly_spheres]);
        }
        if let Some(v) = &volumes {
            arrays.extend([&v.env, &v.fly]);
        }
        for a in arrays {
            paging.arrays[a.id()] = a.layout();
        }
        let pipeline = |kernel: &'static kernels::Kernel| pipeline(ctx, kernel, H, &paging);
        let record = scene.coherence() && dual.is_none() && volumes.is_none();
        let plain = |p: &Pipelines| {
            p.expand_dual.is_none()
                && p.expand_volume.is_none()
                && p.expand_record.is_some() == record
        };
        let kept = old
            .filter(|o| {
                o.paging == paging && dual.is_none() && volumes.is_none() && plain(&o.pipelines)
            })
            .map(|o| o.pipelines);
        let pipelines = if let Some(p) = kept {
            p
        } else {
            Pipelines {
                tumble_exact_leaves: pipeline(&kernels::TUMBLE_EXACT_LEAVES),
                tumble_exact_merge: pipeline(&kernels::TUMBLE_EXACT_MERGE),
                tumble_front: pipeline(&kernels::TUMBLE_FRONT),
                prepare_tumble: pipeline(&kernels::PREPARE_TUMBLE),
                tumble_fresh: pipeline(&kernels::TUMBLE_FRESH),
                rehash: pipeline(&kernels::REHASH),
                reslot: pipeline(&kernels::RESLOT),
                expand: pipeline(&kernels::EXPAND),
                tri_test: pipeline(&kernels::TRI_TEST),
                expand_dual: dual.is_some().then(|| pipeline(&kernels::EXPAND_DUAL)),
                expand_volume: volumes.as_ref().map(|v| {
                    pipeline(if v.obb {
                        &kernels::EXPAND_OBB
                    } else {
                        &kernels::EXPAND_SPHERE
                    })
                }),
                expand_record: record.then(|| pipeline(&kernels::EXPAND_RECORD)),
                handover: record
                    .then(|| [&kernels::RECORD_COUNTS, &kernels::GATHER_SEEDS].map(pipeline)),
            }
        };
        // Shader compilation and pipeline creation report through the error handler.
        ctx.check()?;
        let slot = match &volumes {
            None => Self::KDOP,
            Some(v) if v.obb => std::mem::size_of::<crate::obb::sat::PosedObb>() as u64,
            Some(_) => std::mem::size_of::<Sphere>() as u64,
        };
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
            points_per_node: points.len() as f64 / n_fly.max(1) as f64,
            pipelines,
            dual,
            volumes,
            roots: HostRoots::of(scene),
            descent_larger: scene.descent_larger(),
            n_fly,
            slot,
            levels: env.depth + fly_bvh.depth - 1,
            static_bytes,
            capacities: Capacities::default(),
            max_buffer_bytes: limit,
            paged: paging.is_paged(),
            paging,
            batch_memory: ctx.batch_memory,
            max_batch_poses: MAX_BATCH_POSES,
            tolerance: Default::default(),
            env_widened: 0.0,
            budget: None,
            per_pose: None,
            group_eps: Vec::new(),
            last_poses: 0,
            buffers: None,
            uploaded: false,
            coherent: Default::default(),
        })
    }

    /// Every static array: `(name, pages, bytes)` (more than one page when it exceeds the
    /// binding limit, [`crate::gpu::paged`]).
    pub fn pages(&self) -> Vec<(&'static str, usize, u64)> {
        let mut arrays = vec![
            &self.env_nodes,
            &self.fly_nodes,
            &self.env_tris,
            &self.fly_tris,
            &self.fly_offsets,
            &self.fly_points,
            &self.env_tri_index,
            &self.fly_tri_index,
            &self.fly_node_list,
        ];
        if let Some(d) = &self.dual {
            arrays.extend([&d.env_spheres, &d.fly_spheres]);
        }
        if let Some(v) = &self.volumes {
            arrays.extend([&v.env, &v.fly]);
        }
        arrays
            .into_iter()
            .map(|a| (super::paged::PAGED[a.id()].0, a.pages.len(), a.bytes))
            .collect()
    }

    /// A's node array and A's and B's triangle corners, each one buffer (`None` when one
    /// is paged): the deforming backend ([`crate::gpu::deform`]) refits A's nodes and
    /// writes the corners of a frame in place, so the pipeline reads them with no copy.
    pub(crate) fn deform_buffers(&self) -> Option<[&wgpu::Buffer; 3]> {
        match (
            &self.env_nodes.pages[..],
            &self.env_tris.pages[..],
            &self.fly_tris.pages[..],
        ) {
            ([n], [a], [b]) => Some([n, a, b]),
            _ => None,
        }
    }

    /// All poses, in batches; results per pose in the order given, like
    /// [`crate::scene::collide_batch`]. [`GpuScene::collide_each`] without keeping the
    /// results is what the command line runs.
    pub fn collide_batch<S: GpuPairScene<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        poses: &[Pose],
        mode: Mode,
        tumble: TumbleMethod,
        progress: Option<Progress<'_>>,
    ) -> Result<GpuBatch<S::Sub>, GpuError> {
        let mut results = Vec::with_capacity(poses.len());
        let stats =
            self.collide_each(ctx, scene, poses.iter().copied(), mode, tumble, |i, r| {
                results.push(r);
                if let Some(progress) = progress {
                    progress(i + 1);
                }
                Ok::<_, GpuError>(())
            })?;
        Ok((results, stats))
    }
}
