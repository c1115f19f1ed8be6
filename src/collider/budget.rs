//! Budgeted queries through the façade ([`crate::budget`]): a budget of node tests per pose,
//! and for each pose its contacts found and its [`PoseStatus`].

use super::{AnyScene, AnySub, Collider, Contacts};
use crate::budget::{Budget, HasFrontier, Hint, PoseStatus};
use crate::pose::Pose;
use crate::scene::{Counters, POSE_CHUNK, PairScene, QueryOptions, STREAM_CHUNK};
use rayon::prelude::*;

/// One budgeted pose of a scene, its pairs unsorted.
pub(super) type OnePose<'s, W> =
    dyn Fn(&Pose, &mut W, &mut Vec<(u32, u32)>) -> (Counters<AnySub>, PoseStatus) + Sync + 's;

impl Collider {
    /// Whether a budgeted query can run: every hierarchy answers one (`auto` with its
    /// kdop18 tree, so the answer does not depend on the probe); the error names what a
    /// budget does not combine with (a tolerance above 0).
    pub fn check_budgeted(&self, opts: &QueryOptions) -> crate::error::Result<()> {
        if !opts.tolerance.is_zero() {
            return Err(crate::error::Error::InvalidOption(
                "a budget applies to the intersection query; with a tolerance above 0 it is not supported"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The contacts of each pose within `budget` node tests ([`crate::budget`]), with its
    /// status: `contact`, `free` or `maybe`, whether the search finished, and a proven
    /// bound on the penetration depth left undecided. The same on every machine and thread
    /// count. With [`Budget::UNLIMITED`] the pairs equal [`Collider::collide_batch_with`]'s.
    pub fn collide_budgeted(
        &self,
        poses: &[Pose],
        opts: &QueryOptions,
        budget: Budget,
    ) -> crate::error::Result<Vec<(Contacts, PoseStatus)>> {
        let mut all = Vec::with_capacity(poses.len());
        self.collide_budgeted_stream(poses.iter().copied(), opts, budget, |_, r, s| {
            all.push((r, s));
            Ok(())
        })?;
        Ok(all)
    }

    /// [`Collider::collide_budgeted`] streamed as [`Collider::collide_stream`] streams: each
    /// pose's contacts and status go to `sink` in pose order; the first error of `sink`
    /// ends the run and is returned.
    pub fn collide_budgeted_stream(
        &self,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        budget: Budget,
        sink: impl FnMut(usize, Contacts, PoseStatus) -> crate::error::Result<()>,
    ) -> crate::error::Result<()> {
        self.check_budgeted(opts)?;
        let chunk = self.chunk.unwrap_or(STREAM_CHUNK);
        let fly_box = self.fly_box;
        self.dispatch(
            opts,
            budget,
            Stream {
                poses,
                chunk,
                sink,
                fly_box,
            },
        )
    }

    /// One pose under `budget`, on the calling thread (as [`Collider::collide_with`]), for
    /// latency-bound callers and timing. `hint` carries the hot start from one pose of a
    /// path to the next ([`Hint`]: start with [`Hint::NONE`]; the call updates it).
    pub fn collide_budgeted_pose(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        budget: Budget,
        hint: &mut Hint,
    ) -> crate::error::Result<(Contacts, PoseStatus)> {
        self.check_budgeted(opts)?;
        let fly_box = self.fly_box;
        Ok(self.dispatch(
            opts,
            budget,
            One {
                pose,
                hint,
                fly_box,
            },
        ))
    }

    /// Calls `visit` with the scene that answers the budget and its one-pose search.
    pub(super) fn dispatch<R>(
        &self,
        opts: &QueryOptions,
        budget: Budget,
        visit: impl Visit<R>,
    ) -> R {
        let plain = |c: Counters| c.map_sub(AnySub::from);
        macro_rules! own {
            ($s:expr) => {{
                let s = $s;
                visit.visit(s, &|p, ws, out| {
                    let (c, st) = s.collide_budgeted(p, opts, budget, ws, out);
                    (plain(c), st)
                })
            }};
        }
        macro_rules! dual {
            ($s:expr) => {{
                let s = $s;
                visit.visit(s, &|p, ws, out| {
                    let (c, st) = crate::dual::collide_budgeted(
                        s,
                        p,
                        opts.mode,
                        opts.tumble,
                        budget,
                        ws,
                        out,
                    );
                    (c.map_sub(AnySub::Dual), st)
                })
            }};
        }
        match &self.scene {
            AnyScene::Kdop6(s) => own!(s),
            AnyScene::Kdop14(s) => own!(s),
            AnyScene::Kdop18(s) => own!(s),
            AnyScene::Kdop26(s) => own!(s),
            AnyScene::Auto(a) => own!(&a.kdop),
            AnyScene::Dual6(s) => dual!(s),
            AnyScene::Dual14(s) => dual!(s),
            AnyScene::Dual18(s) => dual!(s),
            AnyScene::Dual26(s) => dual!(s),
            AnyScene::Obb(s) => own!(s),
            AnyScene::Sphere(s) => own!(s),
            AnyScene::Boxtree(s) => own!(s),
            AnyScene::Rtree(s) => own!(s),
        }
    }
}

/// What to do with the scene that answers a budget and its one-pose search.
pub(super) trait Visit<R> {
    fn visit<S: PairScene>(self, s: &S, one: &OnePose<'_, S::Workspace>) -> R
    where
        S::Workspace: HasFrontier;
}

/// Many poses, streamed to a sink.
struct Stream<I, K> {
    poses: I,
    chunk: usize,
    sink: K,
    /// B's bounding box, for [`Hint::step_to`].
    fly_box: ([f64; 3], [f64; 3]),
}

impl<I, K> Visit<crate::error::Result<()>> for Stream<I, K>
where
    I: IntoIterator<Item = Pose>,
    K: FnMut(usize, Contacts, PoseStatus) -> crate::error::Result<()>,
{
    fn visit<S: PairScene>(self, s: &S, one: &OnePose<'_, S::Workspace>) -> crate::error::Result<()>
    where
        S::Workspace: HasFrontier,
    {
        stream(s, self.poses, self.chunk, one, self.sink, self.fly_box)
    }
}

/// One pose, with a pooled workspace and the caller's hot start.
struct One<'p> {
    pose: &'p Pose,
    hint: &'p mut Hint,
    /// B's bounding box, for [`Hint::step_to`].
    fly_box: ([f64; 3], [f64; 3]),
}

impl Visit<(Contacts, PoseStatus)> for One<'_> {
    fn visit<S: PairScene>(self, s: &S, one: &OnePose<'_, S::Workspace>) -> (Contacts, PoseStatus)
    where
        S::Workspace: HasFrontier,
    {
        lent(s, |ws| {
            s.begin_chunk(ws);
            ws.frontier().hot = std::mem::take(self.hint);
            let r = on_path(self.pose, ws, one, self.fly_box);
            *self.hint = std::mem::take(&mut ws.frontier().hot);
            r
        })
    }
}

/// Runs `f` with a workspace of `s`, lent from its pool (or a fresh one) and given back.
pub(super) fn lent<S: PairScene, R>(s: &S, f: impl FnOnce(&mut S::Workspace) -> R) -> R {
    let fresh;
    let pool = match s.pool() {
        Some(p) => p,
        None => {
            fresh = crate::scene::WorkspacePool::default();
            &fresh
        }
    };
    let mut ws = pool.lend(s);
    let r = f(&mut ws);
    pool.put(ws);
    r
}

/// One pose of a path: the hot start's front kept only across a coherent step from the
/// previous pose ([`Hint::step_to`]), then [`sorted`].
fn on_path<W: HasFrontier>(
    pose: &Pose,
    ws: &mut W,
    one: &OnePose<'_, W>,
    fly_box: ([f64; 3], [f64; 3]),
) -> (Contacts, PoseStatus) {
    ws.frontier().hot.step_to(pose, fly_box);
    sorted(pose, ws, one)
}

/// One pose's search, its pairs sorted.
fn sorted<W>(pose: &Pose, ws: &mut W, one: &OnePose<'_, W>) -> (Contacts, PoseStatus) {
    let mut pairs = Vec::new();
    let (counters, status) = one(pose, ws, &mut pairs);
    pairs.sort_unstable();
    pairs.dedup();
    (Contacts { pairs, counters }, status)
}

/// Reads `poses` a block of `chunk` at a time, runs each block in parallel over fixed
/// chunks of [`POSE_CHUNK`] poses (so nothing depends on the thread count), and hands the
/// results to `sink` in order.
fn stream<S: PairScene>(
    s: &S,
    poses: impl IntoIterator<Item = Pose>,
    chunk: usize,
    one: &OnePose<'_, S::Workspace>,
    mut sink: impl FnMut(usize, Contacts, PoseStatus) -> crate::error::Result<()>,
    fly_box: ([f64; 3], [f64; 3]),
) -> crate::error::Result<()>
where
    S::Workspace: HasFrontier,
{
    let mut poses = poses.into_iter();
    let mut block = Vec::with_capacity(chunk.max(1));
    let mut next = 0;
    loop {
        block.clear();
        block.extend(poses.by_ref().take(chunk.max(1)));
        if block.is_empty() {
            return Ok(());
        }
        let results: Vec<Vec<(Contacts, PoseStatus)>> = block
            .par_chunks(POSE_CHUNK)
            .map_init(
                || s.workspace(),
                |ws, poses| {
                    // Each chunk starts where a fresh workspace would (hill climbing), so the
                    // counters do not depend on which chunks a thread ran before.
                    s.begin_chunk(ws);
                    poses.iter().map(|p| on_path(p, ws, one, fly_box)).collect()
                },
            )
            .collect();
        for (r, s) in results.into_iter().flatten() {
            sink(next, r, s)?;
            next += 1;
        }
    }
}
