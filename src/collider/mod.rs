//! The library's entry point: a [`Collider`] holds both hierarchies of a scene for a
//! bounding volume chosen at run time ([`BvKind`]) and answers poses on the CPU (and on the
//! GPU with the `gpu` feature). Made by [`Collider::builder`]:
//!
//! ```
//! use meshcollide::{BvKind, Collider, Pose, mesh::generate};
//!
//! let a = generate::uv_sphere([0.0; 3], 1.0, 8, 16);
//! let b = generate::uv_sphere([0.0; 3], 1.0, 8, 16);
//! let collider = Collider::builder(&a, &b).bv(BvKind::Kdop18).build()?;
//! let results = collider.collide_batch(&[Pose::IDENTITY, Pose::translation([5.0, 0.0, 0.0])]);
//! assert!(!results[0].pairs.is_empty() && results[1].pairs.is_empty());
//! # Ok::<(), meshcollide::Error>(())
//! ```
//!
//! This module sits above every hierarchy: it imports them, none imports it.

#[cfg(feature = "gpu")]
mod gpu_cache;
mod warm;

pub use builder::ColliderBuilder;
pub use warm::WarmUp;

#[cfg(feature = "gpu")]
use crate::auto::Choice;
use crate::auto::{AutoCounters, AutoScene};
use crate::boxtree::{BoxtreeOptions, BoxtreeScene};
use crate::bvh::BuildOptions;
use crate::dual::{DualCounters, DualOptions, DualScene};
use crate::kdop::{KdopOptions, KdopScene};
use crate::kind::{BvKind, for_each_k};
use crate::mesh::Mesh;
use crate::obb::ObbScene;
use crate::pose::Pose;
use crate::rtree::{RtreeOptions, RtreeScene};
use crate::saved::KdopHierarchy;
use crate::scene::{
    Counters, NoSub, PairScene, PoseResult, Progress, QueryOptions, STREAM_CHUNK, SubCounters,
};
use crate::sphere::SphereScene;

/// The sub-counters of whichever hierarchy a [`Collider`] runs: none, or the dual
/// hierarchy's [`DualCounters`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AnySub {
    /// The k-DOPs, the boxtree and the R-tree.
    #[default]
    None,
    /// The dual k-DOP–sphere hierarchy.
    Dual(DualCounters),
    /// `--bv auto`: which tree answered, and the probes.
    Auto(AutoCounters),
}

impl AnySub {
    /// The dual hierarchy's sub-counters, if this is one.
    pub fn dual(self) -> Option<DualCounters> {
        match self {
            AnySub::Dual(d) => Some(d),
            _ => None,
        }
    }

    /// `auto`'s sub-counters, if this is `auto`.
    pub fn auto(self) -> Option<AutoCounters> {
        match self {
            AnySub::Auto(a) => Some(a),
            _ => None,
        }
    }
}

impl std::ops::AddAssign for AnySub {
    /// Sums like [`DualCounters`]; `None` is the zero (one collider never mixes kinds).
    fn add_assign(&mut self, o: AnySub) {
        match (self, o) {
            (AnySub::Dual(a), AnySub::Dual(b)) => *a += b,
            (AnySub::Auto(a), AnySub::Auto(b)) => *a += b,
            (_, AnySub::None) => {}
            (s, o) => *s = o,
        }
    }
}

impl SubCounters for AnySub {}

impl From<NoSub> for AnySub {
    fn from(_: NoSub) -> AnySub {
        AnySub::None
    }
}

impl From<AutoCounters> for AnySub {
    fn from(a: AutoCounters) -> AnySub {
        AnySub::Auto(a)
    }
}

impl From<DualCounters> for AnySub {
    fn from(d: DualCounters) -> AnySub {
        AnySub::Dual(d)
    }
}

impl Counters<AnySub> {
    /// The dual hierarchy's sub-counters (zeros for the other hierarchies).
    pub fn dual(&self) -> DualCounters {
        self.sub.dual().unwrap_or_default()
    }
}

/// The result of one pose from a [`Collider`]: contacts, counters and the hierarchy's
/// sub-counters.
pub type Contacts = PoseResult<AnySub>;

/// The scene behind a [`Collider`], for a hierarchy chosen at run time.
#[derive(Debug)]
#[allow(missing_docs)] // The variants are named after their `BvKind`.
pub enum AnyScene {
    Kdop6(KdopScene<3>),
    Kdop14(KdopScene<7>),
    Kdop18(KdopScene<9>),
    Kdop26(KdopScene<13>),
    /// Zachmann's restricted boxtree (CPU only).
    Boxtree(BoxtreeScene),
    /// Figueiredo's R-tree (CPU only).
    Rtree(RtreeScene),
    /// The dual k-DOP–sphere hierarchies.
    Dual6(DualScene<3>),
    Dual14(DualScene<7>),
    Dual18(DualScene<9>),
    Dual26(DualScene<13>),
    /// The OBB tree.
    Obb(ObbScene),
    /// The sphere tree.
    Sphere(SphereScene),
    /// The kdop18 and OBB trees, one picked per call (`crate::auto`); boxed, as it holds
    /// two scenes.
    Auto(Box<AutoScene>),
}

/// Runs `$body` with `$s` bound to the scene, whatever its kind.
macro_rules! with_scene {
    ($c:expr, $s:ident => $body:expr) => {
        for_each_k!($c, AnyScene($s) => $body,
            AnyScene::Boxtree($s) => $body,
            AnyScene::Rtree($s) => $body,
            AnyScene::Dual6($s) => $body,
            AnyScene::Dual14($s) => $body,
            AnyScene::Dual18($s) => $body,
            AnyScene::Dual26($s) => $body,
            AnyScene::Obb($s) => $body,
            AnyScene::Sphere($s) => $body,
            AnyScene::Auto($s) => {
                let $s: &AutoScene = $s;
                $body
            }
        )
    };
}

/// Like `with_scene!` for the scenes the GPU pipeline runs (the k-DOPs, the dual
/// k-DOP–sphere hierarchies, the OBB and sphere trees); `$other` for the rest.
#[cfg(feature = "gpu")]
macro_rules! with_gpu_scene {
    ($c:expr, $s:ident => $body:expr, $o:ident => $other:expr) => {
        for_each_k!($c, AnyScene($s) => $body,
            AnyScene::Dual6($s) => $body,
            AnyScene::Dual14($s) => $body,
            AnyScene::Dual18($s) => $body,
            AnyScene::Dual26($s) => $body,
            AnyScene::Obb($s) => $body,
            AnyScene::Sphere($s) => $body,
            $o => $other,
        )
    };
}

// After the dispatch macros (textual scope): the builder uses them.
mod budget;
#[cfg(feature = "gpu")]
mod budget_gpu;
mod builder;
mod distance;

impl AnyScene {
    /// The bounding volume of this scene.
    pub fn kind(&self) -> BvKind {
        match self {
            AnyScene::Kdop6(_) => BvKind::Kdop6,
            AnyScene::Kdop14(_) => BvKind::Kdop14,
            AnyScene::Kdop18(_) => BvKind::Kdop18,
            AnyScene::Kdop26(_) => BvKind::Kdop26,
            AnyScene::Boxtree(_) => BvKind::Boxtree,
            AnyScene::Rtree(_) => BvKind::Rtree,
            AnyScene::Dual6(_) => BvKind::Dual6,
            AnyScene::Dual14(_) => BvKind::Dual14,
            AnyScene::Dual18(_) => BvKind::Dual18,
            AnyScene::Dual26(_) => BvKind::Dual26,
            AnyScene::Obb(_) => BvKind::Obb,
            AnyScene::Sphere(_) => BvKind::Sphere,
            AnyScene::Auto(_) => BvKind::Auto,
        }
    }
}

/// Both hierarchies of a scene (A the environment, B the flying object) for a bounding
/// volume chosen at run time, with the query options its calls use.
#[derive(Debug)]
pub struct Collider {
    scene: AnyScene,
    query: QueryOptions,
    /// [`ColliderBuilder::stream_chunk`].
    chunk: Option<usize>,
    /// The poses of this scene that [`Collider::warm_up`] runs.
    own: warm::OwnPoses,
    /// Mesh B's bounding box, for the budget's hot start across coherent steps
    /// ([`crate::budget::Hint`]).
    fly_box: ([f64; 3], [f64; 3]),
    /// The distance query's node volumes ([`Collider::prepare_distance`]), built on first use.
    distance_volumes: std::sync::OnceLock<crate::proximity::distance::DistanceVolumes>,
    /// Its hierarchies uploaded to each GPU it ran on, kept between calls.
    #[cfg(feature = "gpu")]
    gpu: gpu_cache::GpuCache,
}

/// Puts a first workspace in the scene's pool, if it keeps one, and decides the hot loops'
/// instruction set ([`crate::isa::v3`]): its first call reads the CPU's features, 30 µs on
/// the virtual machines measured (each `cpuid` leaves the guest), a quarter of a single
/// query of nested spheres, which belongs to the build.
fn prepare<S: PairScene>(s: &S) {
    crate::isa::v3();
    if let Some(pool) = s.pool() {
        pool.prepare(s);
    }
}

/// One pose of any [`PairScene`], its sub-counters made [`AnySub`].
fn one<S: PairScene>(s: &S, pose: &Pose, opts: &QueryOptions) -> Contacts
where
    AnySub: From<S::Sub>,
{
    s.collide(pose, opts).map_sub(AnySub::from)
}

/// Many poses of any [`PairScene`], sub-counters made [`AnySub`].
fn many<S: PairScene>(
    s: &S,
    poses: &[Pose],
    opts: &QueryOptions,
    progress: Option<Progress<'_>>,
) -> Vec<Contacts>
where
    AnySub: From<S::Sub>,
{
    s.collide_batch(poses, opts, progress)
        .into_iter()
        .map(|r| r.map_sub(AnySub::from))
        .collect()
}

/// Many poses of any [`PairScene`], streamed to `sink` ([`crate::scene::collide_each`]).
fn each<S: PairScene>(
    s: &S,
    poses: impl IntoIterator<Item = Pose>,
    opts: &QueryOptions,
    chunk: usize,
    mut sink: impl FnMut(usize, Contacts) -> crate::error::Result<()>,
) -> crate::error::Result<()>
where
    AnySub: From<S::Sub>,
{
    s.collide_each(poses, opts, chunk, |i, r| sink(i, r.map_sub(AnySub::from)))
}

impl Collider {
    /// A builder for the scene of A (the environment) and B (the flying mesh, moved by the
    /// poses).
    pub fn builder<'m>(a: &'m Mesh, b: &'m Mesh) -> ColliderBuilder<'m> {
        ColliderBuilder::new(a, b)
    }

    /// The bounding volume.
    pub fn kind(&self) -> BvKind {
        self.scene.kind()
    }

    /// The scene, to reach a hierarchy's own structures and options.
    pub fn scene(&self) -> &AnyScene {
        &self.scene
    }

    /// The scene, mutably (to change a hierarchy's traversal options between calls; the
    /// scenes uploaded to a GPU are dropped, as they were compiled for the old options).
    pub fn scene_mut(&mut self) -> &mut AnyScene {
        #[cfg(feature = "gpu")]
        self.gpu.clear();
        &mut self.scene
    }

    /// The query options of [`Collider::collide`] and [`Collider::collide_batch`].
    pub fn query_options(&self) -> QueryOptions {
        self.query
    }

    /// Whether later calls run with temporal coherence ([`KdopOptions::coherence`]; the
    /// hierarchies without it: false).
    pub fn coherence(&self) -> bool {
        for_each_k!(&self.scene, AnyScene(s) => s.options.coherence,
            AnyScene::Obb(s) => s.coherence,
            AnyScene::Sphere(s) => s.coherence,
            AnyScene::Auto(s) => s.kdop.options.coherence,
            _ => false,
        )
    }

    /// Turns temporal coherence on or off for later calls, on every tree that has it
    /// ([`crate::BvKind::coherent`]); for instance on when [`crate::pose::coherent_path`]
    /// says the next poses are a motion path.
    pub fn set_coherence(&mut self, on: bool) {
        #[cfg(feature = "gpu")]
        self.gpu.clear();
        for_each_k!(&mut self.scene, AnyScene(s) => s.options.coherence = on,
            AnyScene::Obb(s) => s.coherence = on,
            AnyScene::Sphere(s) => s.coherence = on,
            AnyScene::Auto(s) => {
                s.kdop.options.coherence = on;
                s.obb.coherence = on;
            }
            _ => {}
        )
    }

    /// Sets the query options of later calls.
    pub fn set_query_options(&mut self, o: QueryOptions) {
        self.query = o;
    }

    /// The contacts of one pose.
    pub fn collide(&self, pose: &Pose) -> Contacts {
        self.collide_with(pose, &self.query)
    }

    /// The contacts of one pose with other query options.
    pub fn collide_with(&self, pose: &Pose, opts: &QueryOptions) -> Contacts {
        with_scene!(&self.scene, s => one(s, pose, opts))
    }

    /// The contacts of many poses, in parallel (the same results whatever the thread count).
    pub fn collide_batch(&self, poses: &[Pose]) -> Vec<Contacts> {
        self.collide_batch_with(poses, &self.query, None)
    }

    /// [`Collider::collide_batch`] with other query options and, if given, a progress
    /// callback called with the number of poses finished.
    pub fn collide_batch_with(
        &self,
        poses: &[Pose],
        opts: &QueryOptions,
        progress: Option<Progress<'_>>,
    ) -> Vec<Contacts> {
        with_scene!(&self.scene, s => many(s, poses, opts, progress))
    }

    /// Many poses, streamed: each pose's contacts go to `sink` in pose order with the
    /// pose's index (from 0), and are not kept; poses are read from `poses` a chunk at a
    /// time ([`ColliderBuilder::stream_chunk`]), each chunk in parallel. So memory does not
    /// grow with the number of poses, and the results equal [`Collider::collide_batch_with`]'s.
    /// The first error of `sink` ends the run and is returned.
    pub fn collide_stream(
        &self,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        sink: impl FnMut(usize, Contacts) -> crate::error::Result<()>,
    ) -> crate::error::Result<()> {
        let chunk = self.chunk.unwrap_or(STREAM_CHUNK);
        with_scene!(&self.scene, s => each(s, poses, opts, chunk, sink))
    }

    /// The same batch on the GPU: pairs equal to [`Collider::collide_batch_with`]'s, plus
    /// what the GPU did. [`crate::gpu::GpuError::Unsupported`] for the CPU-only boxtree and R-tree.
    /// The first call on a device uploads the hierarchies and compiles the pipelines; the
    /// collider keeps them for its later calls on that device.
    #[cfg(feature = "gpu")]
    pub fn collide_batch_gpu(
        &self,
        ctx: &crate::gpu::GpuContext,
        poses: &[Pose],
        opts: &QueryOptions,
        progress: Option<Progress<'_>>,
    ) -> crate::error::Result<(Vec<Contacts>, crate::gpu::collide::GpuStats)> {
        let mut results = Vec::with_capacity(poses.len());
        let stats = self.collide_stream_gpu(ctx, poses.iter().copied(), opts, |i, r| {
            results.push(r);
            if let Some(progress) = progress {
                progress(i + 1);
            }
            Ok(())
        })?;
        Ok((results, stats))
    }

    /// [`Collider::collide_stream`] on the GPU, batch by batch
    /// ([`crate::gpu::collide::GpuScene::collide_each`]): the same contacts, plus what the
    /// GPU did. Errors as [`Collider::collide_batch_gpu`]'s, or the first of `sink`.
    #[cfg(feature = "gpu")]
    pub fn collide_stream_gpu(
        &self,
        ctx: &crate::gpu::GpuContext,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        mut sink: impl FnMut(usize, Contacts) -> crate::error::Result<()>,
    ) -> crate::error::Result<crate::gpu::collide::GpuStats> {
        if !opts.tolerance.is_zero() {
            // A tolerance query runs on every binary tree ([`crate::proximity`]).
            match &self.scene {
                AnyScene::Auto(_)
                | AnyScene::Kdop6(_)
                | AnyScene::Kdop14(_)
                | AnyScene::Kdop18(_)
                | AnyScene::Kdop26(_)
                | AnyScene::Obb(_)
                | AnyScene::Sphere(_)
                | AnyScene::Dual6(_)
                | AnyScene::Dual14(_)
                | AnyScene::Dual18(_)
                | AnyScene::Dual26(_) => {}
                // The boxtree and the R-tree have no GPU pipeline.
                other => {
                    let bv = other.kind().name();
                    return Err(crate::gpu::GpuError::Unsupported { bv }.into());
                }
            }
        }
        if let AnyScene::Auto(s) = &self.scene {
            // Coherence runs on the GPU's k-DOP trees only: kdop18 alone, no probe; a
            // tolerance query runs on the kdop18 tree, without the probe, as on the CPU.
            if (s.kdop.options.coherence && opts.mode == crate::scene::Mode::All)
                || !opts.tolerance.is_zero()
            {
                let mut tail = |i: usize, mut r: Contacts| {
                    let sub = crate::auto::answered(&r.counters.cost(), Choice::Kdop18);
                    r.counters.sub = AnySub::Auto(sub);
                    sink(i, r)
                };
                return self.gpu_run(ctx, &s.kdop, poses, opts, &mut tail);
            }
            // The host's probe answers the first poses until one decides, as on the CPU;
            // the rest go to the device with the tree it chose (the same counters).
            let mut head_sink =
                |i: usize, r: crate::scene::PoseResult<crate::auto::AutoCounters>| {
                    sink(i, r.map_sub(AnySub::from))
                };
            let (head, choice, it) = s.probe_head(poses.into_iter(), opts, &mut head_sink)?;
            let mut tail = |i: usize, mut r: Contacts| {
                r.counters.sub = AnySub::Auto(crate::auto::answered(&r.counters.cost(), choice));
                sink(head + i, r)
            };
            return match choice {
                Choice::Kdop18 => self.gpu_run(ctx, &s.kdop, it, opts, &mut tail),
                Choice::Obb => self.gpu_run(ctx, &s.obb, it, opts, &mut tail),
            };
        }
        with_gpu_scene!(&self.scene, s => self.gpu_run(ctx, s, poses, opts, sink),
            other => Err(crate::gpu::GpuError::Unsupported { bv: other.kind().name() }.into()))
    }

    /// [`Collider::collide_stream_gpu`] on one scene.
    #[cfg(feature = "gpu")]
    fn gpu_run<const H: usize, S: crate::gpu::collide::GpuPairScene<H> + 'static>(
        &self,
        ctx: &crate::gpu::GpuContext,
        s: &S,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        mut sink: impl FnMut(usize, Contacts) -> crate::error::Result<()>,
    ) -> crate::error::Result<crate::gpu::collide::GpuStats>
    where
        AnySub: From<S::Sub>,
    {
        self.gpu.with(ctx, s, |g| {
            g.max_batch_poses = self.chunk.unwrap_or(crate::gpu::collide::MAX_BATCH_POSES);
            g.tolerance = opts.tolerance;
            g.collide_each(ctx, s, poses, opts.mode, opts.tumble, |i, r| {
                sink(i, r.map_sub(AnySub::from))
            })
        })
    }

    /// `(nodes, bytes)` of A's and B's node arrays.
    pub fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        with_scene!(&self.scene, s => s.hierarchy_sizes())
    }

    /// Depths of A's and B's hierarchies.
    pub fn depths(&self) -> [u32; 2] {
        with_scene!(&self.scene, s => s.depths())
    }
}
