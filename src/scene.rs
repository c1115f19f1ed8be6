//! The contract every hierarchy implements: a [`PairScene`] holds both hierarchies of a scene
//! (A the environment, B the flying object) and answers one pose at a time with a
//! [`PoseResult`]: the contacts and the cost model's [`Counters`]. [`collide_batch`] runs any
//! scene over many poses in parallel; [`brute_force`] is the oracle every scene must equal.
//!
//! This module sits below every hierarchy (`kdop`, `dual`, `boxtree`, `rtree`): they import
//! it, it imports none of them. A hierarchy's own sub-counters are its [`SubCounters`] type.

use crate::mesh::Mesh;
use crate::pose::Pose;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Poses processed in order by one worker, so hill climbing at the root starts from the
/// previous pose's extremal vertices (step-to-step coherence, 4.1). Fixed-size chunks keep
/// the results independent of the number of threads.
pub const POSE_CHUNK: usize = 16;

/// How the flying hierarchy's k-DOPs follow a pose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TumbleMethod {
    /// Hill climbing at the root, the approximation method below (the paper's default).
    #[default]
    Approximate,
    /// Exact bottom-up refit from the transformed vertices, all nodes per pose.
    Exact,
}

option_names! {
    TumbleMethod, kind "tumble method", all ALL {
        Approximate => "approx",
        Exact => "exact",
    }
}

/// All contacts, or stop at the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Every intersecting triangle pair.
    #[default]
    All,
    /// Stop at the first intersecting pair found (any one).
    First,
}

option_names! {
    Mode, kind "mode", all ALL {
        All => "all",
        First => "first",
    }
}

/// The distance within which a query reports a pair of triangles ([`crate::proximity`]):
/// a finite `ε ≥ 0`
/// (a decimal on the command line, rounded once to f64). Zero is the ordinary query.
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Tolerance(f64);

// A `Tolerance` is never NaN ([`Tolerance::new`]), so equality is an equivalence.
impl Eq for Tolerance {}

impl Tolerance {
    /// The ordinary query.
    pub const ZERO: Tolerance = Tolerance(0.0);

    /// `ε`, which must be finite and at least 0 (`-0` is 0); the error names `what`
    /// (the option or argument that gave it).
    pub fn new(eps: f64, what: &str) -> crate::error::Result<Tolerance> {
        if eps.is_finite() && eps >= 0.0 {
            Ok(Tolerance(eps + 0.0))
        } else {
            Err(crate::error::Error::InvalidOption(format!(
                "{what} must be a finite number at least 0, got {eps}"
            )))
        }
    }

    /// `ε`.
    #[inline]
    pub fn get(self) -> f64 {
        self.0
    }

    /// Whether this is the ordinary query.
    #[inline]
    pub fn is_zero(self) -> bool {
        self.0 == 0.0
    }
}

/// Options of a query that mean the same for every hierarchy. A hierarchy's own knobs
/// (descent rule, box test, R-tree traversal, sphere pretest) are its options, given to
/// [`crate::ColliderBuilder`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct QueryOptions {
    /// All contacts or the first.
    pub mode: Mode,
    /// How B's bounding volumes are brought into A's frame by the hierarchies that tumble
    /// (the k-DOPs and the dual hierarchy; the boxtree and the R-tree have their own rule).
    pub tumble: TumbleMethod,
    /// Report every pair of triangles within this distance instead of the intersecting
    /// ones ([`crate::proximity`]); zero (the default) is the ordinary query.
    pub tolerance: Tolerance,
}

impl QueryOptions {
    /// The papers' query: all contacts, approximation-method tumbling (Klosowski et al.
    /// 1998, 4.1). With [`crate::KdopOptions::PAPER`] (Algorithm 1's descent) the `bench`
    /// experiments' counts compare with the papers' tables; see
    /// [`crate::ColliderBuilder::paper`].
    pub const PAPER: QueryOptions = QueryOptions {
        mode: Mode::All,
        tumble: TumbleMethod::Approximate,
        tolerance: Tolerance::ZERO,
    };
}

/// Counters a hierarchy keeps beyond the cost model's three (for example the dual
/// hierarchy's sphere and slab rejections); summed over poses like [`Counters`].
pub trait SubCounters:
    Copy + Default + std::fmt::Debug + PartialEq + Eq + std::ops::AddAssign + Send + Sync + 'static
{
}

/// No sub-counters: the k-DOPs, the boxtree and the R-tree behind [`PairScene`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NoSub;

impl std::ops::AddAssign for NoSub {
    fn add_assign(&mut self, _: NoSub) {}
}

impl SubCounters for NoSub {}

/// The cost model's counters (T = Nv·Cv + Np·Cp + Nu·Cu of Klosowski et al., "Efficient
/// Collision Detection Using Bounding Volume Hierarchies of k-DOPs", 1998, section 4) for
/// one pose or summed over many, with a hierarchy's sub-counters `S`.
///
/// They mean the same for every hierarchy (ARCHITECTURE.md, "Counters"): Nv = overlap tests
/// of two bounding volumes (a node pair, however many sub-tests it takes), Np = exact
/// triangle–triangle tests, Nu = bounding volumes of B brought into A's frame for the pose
/// (each counted once per pose).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters<S = NoSub> {
    /// Nv: bounding-volume overlap tests.
    pub bv_tests: u64,
    /// Np: triangle–triangle tests.
    pub tri_tests: u64,
    /// Nu: flying-hierarchy bounding volumes updated.
    pub bv_updates: u64,
    /// The hierarchy's own sub-counters.
    pub sub: S,
}

impl<S> Counters<S> {
    /// The cost model's three counters, without the sub-counters.
    pub fn cost(&self) -> Counters {
        Counters {
            bv_tests: self.bv_tests,
            tri_tests: self.tri_tests,
            bv_updates: self.bv_updates,
            sub: NoSub,
        }
    }

    /// The same counters with the sub-counters mapped by `f`.
    pub fn map_sub<T>(self, f: impl FnOnce(S) -> T) -> Counters<T> {
        Counters {
            bv_tests: self.bv_tests,
            tri_tests: self.tri_tests,
            bv_updates: self.bv_updates,
            sub: f(self.sub),
        }
    }
}

impl<S: std::ops::AddAssign> std::ops::AddAssign for Counters<S> {
    fn add_assign(&mut self, o: Counters<S>) {
        self.bv_tests += o.bv_tests;
        self.tri_tests += o.tri_tests;
        self.bv_updates += o.bv_updates;
        self.sub += o.sub;
    }
}

/// The contacts of one pose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoseResult<S = NoSub> {
    /// `(tri_a, tri_b)` in file numbering, sorted, without duplicates.
    pub pairs: Vec<(u32, u32)>,
    /// What the traversal did for this pose.
    pub counters: Counters<S>,
}

impl<S> PoseResult<S> {
    /// The same result with the sub-counters mapped by `f`.
    pub fn map_sub<T>(self, f: impl FnOnce(S) -> T) -> PoseResult<T> {
        PoseResult {
            pairs: self.pairs,
            counters: self.counters.map_sub(f),
        }
    }
}

/// Sums the counters of many poses.
pub fn total_counters<S: SubCounters>(results: &[PoseResult<S>]) -> Counters<S> {
    let mut c = Counters::default();
    for r in results {
        c += r.counters;
    }
    c
}

/// Both hierarchies of a scene answering one pose at a time; what every hierarchy behind
/// [`crate::BvKind`] provides. [`collide_batch`] runs any of them over many poses.
pub trait PairScene: Sync + std::fmt::Debug {
    /// Per-thread scratch state, reused across poses.
    type Workspace: Send;
    /// The hierarchy's sub-counters ([`NoSub`] if none).
    type Sub: SubCounters;
    /// A fresh workspace.
    fn workspace(&self) -> Self::Workspace;
    /// Maps the pages of a fresh workspace's per-node and per-triangle arrays now (see
    /// `tumble::touch_pages`); called once, at build, on the workspace the pool keeps.
    fn prefault(&self, _ws: &mut Self::Workspace) {}
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
    ) -> Counters<Self::Sub>;
    /// `(nodes, bytes)` of A's and B's hierarchies (node arrays only).
    fn hierarchy_sizes(&self) -> [(usize, usize); 2];
    /// Depths of A's and B's hierarchies (a single leaf has depth 1).
    fn depths(&self) -> [u32; 2];

    /// Workspaces kept between calls, if the scene keeps any: batches and single poses
    /// take theirs from it, so only the first call of a thread pays for one.
    fn pool(&self) -> Option<&WorkspacePool<Self::Workspace>> {
        None
    }

    /// One pose, sequentially, with a pooled workspace (or its own without a pool).
    fn collide(&self, pose: &Pose, opts: &QueryOptions) -> PoseResult<Self::Sub> {
        match self.pool() {
            Some(pool) => pool.collide(self, pose, opts),
            None => collide_with(self, pose, opts, &mut self.workspace()),
        }
    }

    /// Many poses in parallel: [`collide_batch`]. A scene that answers a call as a whole
    /// otherwise overrides it (`auto`: a probe on the call's first poses, then the tree it
    /// chose), so that every call of [`crate::Collider`] goes through its scene.
    fn collide_batch(
        &self,
        poses: &[Pose],
        opts: &QueryOptions,
        progress: Option<Progress<'_>>,
    ) -> Vec<PoseResult<Self::Sub>>
    where
        Self: Sized,
    {
        collide_batch(self, poses, opts, progress)
    }

    /// Many poses streamed to `sink` in pose order, chunk after chunk: [`collide_each`];
    /// overridden with [`PairScene::collide_batch`].
    fn collide_each<E>(
        &self,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        chunk: usize,
        sink: impl FnMut(usize, PoseResult<Self::Sub>) -> Result<(), E>,
    ) -> Result<(), E>
    where
        Self: Sized,
    {
        collide_each(self, poses, opts, chunk, sink)
    }
}

/// One pose with a given workspace: [`PairScene::begin_chunk`], then the sorted, deduplicated
/// contacts.
pub fn collide_with<S: PairScene + ?Sized>(
    s: &S,
    pose: &Pose,
    opts: &QueryOptions,
    ws: &mut S::Workspace,
) -> PoseResult<S::Sub> {
    s.begin_chunk(ws);
    one_pose(s, pose, opts, ws)
}

fn one_pose<S: PairScene + ?Sized>(
    s: &S,
    pose: &Pose,
    opts: &QueryOptions,
    ws: &mut S::Workspace,
) -> PoseResult<S::Sub> {
    let mut pairs = Vec::new();
    let counters = s.collide_into(pose, opts, ws, &mut pairs);
    pairs.sort_unstable();
    pairs.dedup();
    PoseResult { pairs, counters }
}

/// A progress callback: called with the number of poses finished so far.
pub type Progress<'a> = &'a (dyn Fn(usize) + Sync);

/// Many poses in parallel over fixed chunks of [`POSE_CHUNK`] poses (so results do not
/// depend on the thread count); `progress`, if given, is called with the number of poses
/// finished.
pub fn collide_batch<S: PairScene>(
    s: &S,
    poses: &[Pose],
    opts: &QueryOptions,
    progress: Option<Progress<'_>>,
) -> Vec<PoseResult<S::Sub>> {
    match s.pool() {
        Some(pool) => collide_pooled(s, poses, opts, progress, pool),
        None => collide_pooled(s, poses, opts, progress, &WorkspacePool::default()),
    }
}

/// [`collide_batch`] with workspaces taken from, and given back to, `pool`.
fn collide_pooled<S: PairScene>(
    s: &S,
    poses: &[Pose],
    opts: &QueryOptions,
    progress: Option<Progress<'_>>,
    pool: &WorkspacePool<S::Workspace>,
) -> Vec<PoseResult<S::Sub>> {
    if poses.len() <= POSE_CHUNK || rayon::current_num_threads() == 1 {
        // One chunk, or one worker: on the caller's thread, chunk after chunk (the same
        // chunks, so the same results). Handing work to a sleeping worker costs a wake-up
        // (tens of µs), most of a single query's time and more than a batch of separated
        // poses takes.
        let mut ws = Pooled(pool, Some(pool.lend(s)));
        let ws = ws.1.as_mut().expect("a workspace until dropped");
        let mut out = Vec::with_capacity(poses.len());
        for chunk in poses.chunks(POSE_CHUNK) {
            s.begin_chunk(ws);
            out.extend(chunk.iter().map(|p| one_pose(s, p, opts, ws)));
            if let Some(progress) = progress {
                progress(out.len());
            }
        }
        return out;
    }
    let done = AtomicUsize::new(0);
    poses
        .par_chunks(POSE_CHUNK)
        .map_init(
            || Pooled(pool, Some(pool.lend(s))),
            |ws, chunk| {
                let ws = ws.1.as_mut().expect("a workspace until dropped");
                s.begin_chunk(ws);
                let out: Vec<PoseResult<S::Sub>> =
                    chunk.iter().map(|p| one_pose(s, p, opts, ws)).collect();
                if let Some(progress) = progress {
                    progress(done.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len());
                }
                out
            },
        )
        .flatten_iter()
        .collect()
}

/// A workspace lent by a [`WorkspacePool`], given back when dropped.
struct Pooled<'p, W>(&'p WorkspacePool<W>, Option<Box<W>>);

impl<W> Drop for Pooled<'_, W> {
    fn drop(&mut self) {
        if let Some(ws) = self.1.take() {
            self.0.put(ws);
        }
    }
}

/// Poses per chunk of [`collide_each`] by default: the results held at once. Small enough
/// that contacts of heavy poses stay in memory only briefly, large enough to keep every
/// thread busy.
pub const STREAM_CHUNK: usize = 1024;

/// Many poses, streamed: `poses` are taken `chunk` at a time (rounded up to a multiple of
/// [`POSE_CHUNK`], so counters equal [`collide_batch`]'s), each chunk runs in parallel, and
/// its results go to `sink` in pose order with the pose's index; none are kept, so memory
/// does not grow with the number of poses. The first error of `sink` ends the run and is
/// returned.
pub fn collide_each<S: PairScene, E>(
    s: &S,
    poses: impl IntoIterator<Item = Pose>,
    opts: &QueryOptions,
    chunk: usize,
    mut sink: impl FnMut(usize, PoseResult<S::Sub>) -> Result<(), E>,
) -> Result<(), E> {
    let chunk = chunk.max(1).next_multiple_of(POSE_CHUNK);
    let mut poses = poses.into_iter();
    let mut done = 0;
    // Workspaces (per-node scratch arrays of B) outlive the chunks.
    let own = WorkspacePool::default();
    let pool = s.pool().unwrap_or(&own);
    if rayon::current_num_threads() == 1 {
        // One worker: pose after pose on the caller's thread, each result given to `sink`
        // as soon as it is made (the same chunks of POSE_CHUNK, so the same results).
        // Buffering a chunk of poses and of results would only write memory a short call
        // finds cold: a call of 300 separated poses spent a third of its time there.
        let mut ws = Pooled(pool, Some(pool.lend(s)));
        let ws = ws.1.as_mut().expect("a workspace until dropped");
        for (i, pose) in poses.enumerate() {
            if i % POSE_CHUNK == 0 {
                s.begin_chunk(ws);
            }
            sink(i, one_pose(s, &pose, opts, ws))?;
        }
        return Ok(());
    }
    let mut buf = Vec::with_capacity(chunk);
    loop {
        buf.clear();
        buf.extend(poses.by_ref().take(chunk));
        if buf.is_empty() {
            return Ok(());
        }
        for (i, r) in collide_pooled(s, &buf, opts, None, pool)
            .into_iter()
            .enumerate()
        {
            sink(done + i, r)?;
        }
        done += buf.len();
    }
}

/// Workspaces kept between calls: a workspace holds per-node and per-triangle scratch
/// arrays of B, too large to allocate for every pose or batch. Boxed, so that lending one
/// moves a pointer, not the struct (600 bytes of a kdop18 or OBB workspace, moved in and
/// out four times by `crate::auto`'s single call: 4 % of a near miss's 1.6 µs).
#[derive(Debug)]
pub struct WorkspacePool<W>(std::sync::Mutex<Vec<Box<W>>>);

impl<W> Default for WorkspacePool<W> {
    fn default() -> Self {
        WorkspacePool(Default::default())
    }
}

impl<W> WorkspacePool<W> {
    pub(crate) fn take(&self) -> Option<Box<W>> {
        self.0.lock().ok().and_then(|mut p| p.pop())
    }

    pub(crate) fn put(&self, ws: Box<W>) {
        if let Ok(mut p) = self.0.lock() {
            p.push(ws);
        }
    }

    /// A pooled workspace, or a new one of `s` when the pool is empty.
    pub(crate) fn lend<S: PairScene<Workspace = W> + ?Sized>(&self, s: &S) -> Box<W> {
        self.take().unwrap_or_else(|| Box::new(s.workspace()))
    }

    /// Puts `make()` in the pool if it holds none.
    pub(crate) fn fill_with(&self, make: impl FnOnce() -> W) {
        if let Ok(mut p) = self.0.lock()
            && p.is_empty()
        {
            p.push(Box::new(make()));
        }
    }

    /// Puts one workspace of `s` in the pool if it holds none, so that the scene's first
    /// query costs what a later one does (the allocation belongs to the build).
    pub fn prepare<S: PairScene<Workspace = W> + ?Sized>(&self, s: &S) {
        self.fill_with(|| {
            let mut ws = s.workspace();
            s.prefault(&mut ws);
            ws
        });
    }

    /// One pose of `s`, sequentially, with a pooled workspace.
    pub fn collide<S: PairScene<Workspace = W> + ?Sized>(
        &self,
        s: &S,
        pose: &Pose,
        opts: &QueryOptions,
    ) -> PoseResult<S::Sub> {
        let mut ws = self.lend(s);
        let r = collide_with(s, pose, opts, &mut ws);
        self.put(ws);
        r
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
