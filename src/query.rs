//! Batches of poses: the library's entry point. [`Collider`] holds both hierarchies for a
//! k chosen at run time; [`Collider::collide_batch`] runs many poses in parallel (rayon)
//! and returns per-pose contacts and counters.

use crate::Pose;
use crate::bv::BvKind;
use crate::bvh::{BuildOptions, Bvh};
use crate::dual::{DualOptions, DualScene};
use crate::mesh::Mesh;
use crate::traverse::{Counters, Descent, Mode, Workspace, collide_pose_descent};
use crate::tumble::{FlyingHierarchy, TumbleMethod};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Options of a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueryOptions {
    pub mode: Mode,
    pub tumble: TumbleMethod,
    /// The node-pair test of `--bv boxtree` (ignored by the k-DOPs).
    pub box_test: crate::boxtree::BoxTest,
    /// `--rtree-collide`: the R-tree's traversal (ignored by the other hierarchies).
    pub rtree_collide: crate::rtree::RtreeCollide,
    /// The k-DOP CPU traversal's descent rule (same contacts, different Nv). The GPU
    /// pipeline and the dual hierarchy always use Algorithm 1's ([`Descent::Environment`]).
    pub descent: Descent,
}

impl QueryOptions {
    /// The papers' traversal: all contacts, approximation-method tumbling, Algorithm 1's
    /// descent (`002_2561ef21643dcace.txt` 4.2), as the GPU runs it. The `bench`
    /// experiments use it so their counts compare with the papers' tables.
    pub const PAPER: QueryOptions = QueryOptions {
        mode: Mode::All,
        tumble: TumbleMethod::Approximate,
        box_test: crate::boxtree::BoxTest::SatLite,
        rtree_collide: crate::rtree::RtreeCollide::V2,
        descent: Descent::Environment,
    };
}

/// The contacts of one pose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoseResult {
    /// `(tri_a, tri_b)` in file numbering, sorted, without duplicates.
    pub pairs: Vec<(u32, u32)>,
    pub counters: Counters,
}

pub use crate::tumble::POSE_CHUNK;

/// What every hierarchy behind `--bv` provides: both hierarchies of a scene (A the
/// environment, B the flying object) answering one pose at a time. [`Collider`] dispatches
/// to the implementations; [`collide_batch`] runs any of them over many poses.
///
/// Counters mean the same for every hierarchy (ARCHITECTURE.md, "Counters"): Nv = overlap
/// tests of two bounding volumes (a node pair, whatever the volume and however many
/// sub-tests it takes), Np = exact triangle–triangle tests, Nu = bounding volumes of B
/// brought into A's frame for the pose (each counted once per pose).
pub trait PairScene: Sync + std::fmt::Debug {
    /// Per-thread scratch state, reused across poses.
    type Workspace: Send;
    fn workspace(&self) -> Self::Workspace;
    /// Called before each chunk of [`POSE_CHUNK`] poses of a batch, and before a single
    /// pose: results must not depend on which poses a workspace saw before.
    fn begin_chunk(&self, _ws: &mut Self::Workspace) {}
    /// Appends the contacts of one pose as `(tri_a, tri_b)` in the meshes' own triangle
    /// numbering, in any order, duplicates allowed.
    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut Self::Workspace,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters;
    /// `(nodes, bytes)` of A's and B's hierarchies (node arrays only).
    fn hierarchy_sizes(&self) -> [(usize, usize); 2];
    /// Depths of A's and B's hierarchies (a single leaf has depth 1).
    fn depths(&self) -> [u32; 2];

    /// One pose with its own workspace.
    fn collide(&self, pose: &Pose, opts: &QueryOptions) -> PoseResult {
        let mut ws = self.workspace();
        collide_with(self, pose, opts, &mut ws)
    }
}

fn collide_with<S: PairScene + ?Sized>(
    s: &S,
    pose: &Pose,
    opts: &QueryOptions,
    ws: &mut S::Workspace,
) -> PoseResult {
    let mut pairs = Vec::new();
    s.begin_chunk(ws);
    let counters = s.collide_into(pose, opts, ws, &mut pairs);
    pairs.sort_unstable();
    pairs.dedup();
    PoseResult { pairs, counters }
}

/// Many poses in parallel over fixed chunks of [`POSE_CHUNK`] poses (so results do not
/// depend on the thread count); `progress` is called with the number of poses finished.
pub fn collide_batch<S: PairScene>(
    s: &S,
    poses: &[Pose],
    opts: &QueryOptions,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<PoseResult> {
    let done = AtomicUsize::new(0);
    poses
        .par_chunks(POSE_CHUNK)
        .map_init(
            || s.workspace(),
            |ws, chunk| {
                s.begin_chunk(ws);
                let out: Vec<PoseResult> = chunk
                    .iter()
                    .map(|p| {
                        let mut pairs = Vec::new();
                        let counters = s.collide_into(p, opts, ws, &mut pairs);
                        pairs.sort_unstable();
                        pairs.dedup();
                        PoseResult { pairs, counters }
                    })
                    .collect();
                progress(done.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len());
                out
            },
        )
        .flatten_iter()
        .collect()
}

/// Both k-DOP hierarchies of a scene, for one k.
#[derive(Debug)]
pub struct Scene<const H: usize> {
    pub env: Bvh<H>,
    pub fly: FlyingHierarchy<H>,
    /// Workspaces kept between single-pose calls: a workspace holds per-node and
    /// per-triangle scratch arrays of B, too large to allocate for every pose.
    pool: std::sync::Mutex<Vec<Workspace<H>>>,
}

impl<const H: usize> Scene<H> {
    pub fn build(a: &Mesh, b: &Mesh, opt_a: &BuildOptions, opt_b: &BuildOptions) -> Self {
        let (env, fly) = rayon::join(|| Bvh::build(a, opt_a), || Bvh::build(b, opt_b));
        Scene {
            env,
            fly: FlyingHierarchy::new(fly),
            pool: Default::default(),
        }
    }

    /// Many poses in parallel; see [`collide_batch`].
    pub fn collide_batch(
        &self,
        poses: &[Pose],
        opts: &QueryOptions,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<PoseResult> {
        collide_batch(self, poses, opts, progress)
    }
}

impl<const H: usize> PairScene for Scene<H> {
    type Workspace = Workspace<H>;

    fn workspace(&self) -> Workspace<H> {
        Workspace::new(&self.fly)
    }

    fn begin_chunk(&self, ws: &mut Workspace<H>) {
        // Hill climbing starts where a fresh workspace would.
        ws.tumble.restart();
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut Workspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        collide_pose_descent(
            &self.env,
            &self.fly,
            pose,
            opts.mode,
            opts.tumble,
            opts.descent,
            ws,
            out,
        )
    }

    fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        [
            (self.env.nodes.len(), self.env.node_bytes()),
            (self.fly.bvh.nodes.len(), self.fly.bvh.node_bytes()),
        ]
    }

    fn depths(&self) -> [u32; 2] {
        [self.env.depth, self.fly.bvh.depth]
    }

    /// One pose, sequentially, with a pooled workspace.
    fn collide(&self, pose: &Pose, opts: &QueryOptions) -> PoseResult {
        let take = || self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut ws = take().unwrap_or_else(|| self.workspace());
        let r = collide_with(self, pose, opts, &mut ws);
        if let Ok(mut p) = self.pool.lock() {
            p.push(ws);
        }
        r
    }
}

/// A scene for a k chosen at run time.
#[derive(Debug)]
pub enum Collider {
    Kdop6(Scene<3>),
    Kdop14(Scene<7>),
    Kdop18(Scene<9>),
    Kdop26(Scene<13>),
    /// Zachmann's restricted boxtree (CPU only).
    Boxtree(crate::boxtree::BoxtreeScene),
    Rtree(crate::rtree::RtreeScene),
    /// The dual k-DOP–sphere hierarchies (`dual`).
    Dual6(DualScene<3>),
    Dual14(DualScene<7>),
    Dual18(DualScene<9>),
    Dual26(DualScene<13>),
}

/// Runs `$body` with `$s` bound to the scene, whatever its k.
macro_rules! with_scene {
    ($c:expr, $s:ident => $body:expr) => {
        match $c {
            Collider::Kdop6($s) => $body,
            Collider::Kdop14($s) => $body,
            Collider::Kdop18($s) => $body,
            Collider::Kdop26($s) => $body,
            Collider::Boxtree($s) => $body,
            Collider::Rtree($s) => $body,
            Collider::Dual6($s) => $body,
            Collider::Dual14($s) => $body,
            Collider::Dual18($s) => $body,
            Collider::Dual26($s) => $body,
        }
    };
}

/// Like `with_scene!` for the scenes the GPU pipeline runs (the k-DOPs and the dual
/// k-DOP–sphere hierarchies); `$other` for the rest.
#[cfg(feature = "gpu")]
macro_rules! with_gpu_scene {
    ($c:expr, $s:ident => $body:expr, $o:ident => $other:expr) => {
        match $c {
            Collider::Kdop6($s) => $body,
            Collider::Kdop14($s) => $body,
            Collider::Kdop18($s) => $body,
            Collider::Kdop26($s) => $body,
            Collider::Dual6($s) => $body,
            Collider::Dual14($s) => $body,
            Collider::Dual18($s) => $body,
            Collider::Dual26($s) => $body,
            $o => $other,
        }
    };
}

impl Collider {
    /// Builds A's (environment) and B's (flying) hierarchies.
    pub fn build(
        a: &Mesh,
        b: &Mesh,
        bv: BvKind,
        opt_a: &BuildOptions,
        opt_b: &BuildOptions,
    ) -> Collider {
        Collider::build_with(a, b, bv, opt_a, opt_b, &DualOptions::default())
    }

    /// [`Collider::build`] with the options of the dual hierarchy (ignored by the others).
    pub fn build_with(
        a: &Mesh,
        b: &Mesh,
        bv: BvKind,
        opt_a: &BuildOptions,
        opt_b: &BuildOptions,
        dual: &DualOptions,
    ) -> Collider {
        match bv {
            BvKind::Kdop6 => Collider::Kdop6(Scene::build(a, b, opt_a, opt_b)),
            BvKind::Kdop14 => Collider::Kdop14(Scene::build(a, b, opt_a, opt_b)),
            BvKind::Kdop18 => Collider::Kdop18(Scene::build(a, b, opt_a, opt_b)),
            BvKind::Kdop26 => Collider::Kdop26(Scene::build(a, b, opt_a, opt_b)),
            BvKind::Boxtree => {
                Collider::Boxtree(crate::boxtree::BoxtreeScene::build(a, b, opt_a, opt_b))
            }
            BvKind::Rtree => Collider::build_rtree(a, b, &Default::default())
                .expect("the default R-tree options are valid and meshes have triangles"),
            BvKind::Dual6 => Collider::Dual6(DualScene::build(a, b, opt_a, opt_b, dual)),
            BvKind::Dual14 => Collider::Dual14(DualScene::build(a, b, opt_a, opt_b, dual)),
            BvKind::Dual18 => Collider::Dual18(DualScene::build(a, b, opt_a, opt_b, dual)),
            BvKind::Dual26 => Collider::Dual26(DualScene::build(a, b, opt_a, opt_b, dual)),
        }
    }

    /// The R-tree scene with chosen fan-out (`--rtree-min`, `--rtree-max`).
    pub fn build_rtree(
        a: &Mesh,
        b: &Mesh,
        options: &crate::rtree::RtreeOptions,
    ) -> crate::Result<Collider> {
        Ok(Collider::Rtree(crate::rtree::RtreeScene::build(
            a, b, options,
        )?))
    }

    pub fn kind(&self) -> BvKind {
        match self {
            Collider::Kdop6(_) => BvKind::Kdop6,
            Collider::Kdop14(_) => BvKind::Kdop14,
            Collider::Kdop18(_) => BvKind::Kdop18,
            Collider::Kdop26(_) => BvKind::Kdop26,
            Collider::Boxtree(_) => BvKind::Boxtree,
            Collider::Rtree(_) => BvKind::Rtree,
            Collider::Dual6(_) => BvKind::Dual6,
            Collider::Dual14(_) => BvKind::Dual14,
            Collider::Dual18(_) => BvKind::Dual18,
            Collider::Dual26(_) => BvKind::Dual26,
        }
    }

    pub fn collide(&self, pose: &Pose, opts: &QueryOptions) -> PoseResult {
        with_scene!(self, s => s.collide(pose, opts))
    }

    pub fn collide_batch(
        &self,
        poses: &[Pose],
        opts: &QueryOptions,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Vec<PoseResult> {
        with_scene!(self, s => collide_batch(s, poses, opts, progress))
    }

    #[cfg(feature = "gpu")]
    /// The same batch on the GPU: pairs equal to [`Collider::collide_batch`]'s, plus what
    /// the GPU did; [`crate::gpu::GpuError::Unsupported`] for the CPU-only boxtree and
    /// R-tree. Uploads the hierarchies (once per call) and runs batches of poses; hold a
    /// [`crate::gpu::collide::GpuScene`] to upload once for many batches.
    pub fn collide_batch_gpu(
        &self,
        ctx: &crate::gpu::GpuContext,
        poses: &[Pose],
        opts: &QueryOptions,
        progress: &(dyn Fn(usize) + Sync),
    ) -> crate::Result<(Vec<PoseResult>, crate::gpu::collide::GpuStats)> {
        with_gpu_scene!(self, s => {
            let mut g = crate::gpu::collide::GpuScene::new(ctx, s)?;
            Ok(g.collide_batch(ctx, s, poses, opts.mode, opts.tumble, progress)?)
        }, other => Err(crate::gpu::GpuError::Unsupported { bv: other.kind().name() }.into()))
    }

    /// `(nodes, bytes)` of A's and B's node arrays.
    pub fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        with_scene!(self, s => s.hierarchy_sizes())
    }

    /// Depths of A's and B's hierarchies.
    pub fn depths(&self) -> [u32; 2] {
        with_scene!(self, s => s.depths())
    }
}

/// The oracle: every triangle pair tested, B transformed by the same [`Pose::apply`].
/// With `Mode::First` it still returns all pairs; callers check membership.
pub fn brute_force(a: &Mesh, b: &Mesh, pose: &Pose) -> Vec<(u32, u32)> {
    let tb: Vec<[[f64; 3]; 3]> = (0..b.triangle_count())
        .map(|j| b.triangle(j).map(|p| pose.apply(p)))
        .collect();
    let mut pairs: Vec<(u32, u32)> = (0..a.triangle_count())
        .into_par_iter()
        .flat_map_iter(|i| {
            let ta = a.triangle(i);
            let tb = &tb;
            (0..tb.len()).filter_map(move |j| {
                crate::tri::tri_tri_intersect(&ta, &tb[j]).then_some((i as u32, j as u32))
            })
        })
        .collect();
    pairs.sort_unstable();
    pairs
}
