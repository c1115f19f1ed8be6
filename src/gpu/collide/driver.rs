//! The one driver of the batch pipeline ([`GpuScene::collide_each`]), with or without
//! temporal coherence.
//!
//! Poses are read in groups (at most [`GpuScene::max_batch_poses`] at once) and a group is
//! cut into *chunks* of consecutive poses that run as *steps*: step `s` holds pose `s` of
//! every chunk, each seeded with the front its chunk's previous pose left
//! ([`super::coherent`]). Without coherence a chunk is one pose, so a group is one step
//! from the roots; with it a chunk is [`POSE_CHUNK`] poses, the CPU's rule. Every step goes
//! through one split loop ([`GpuScene::run_step`]: as many poses per batch as the plan
//! says fit, half as many after a batch that did not, doubling back after one that did)
//! and every batch through one attempt ([`GpuScene::attempt`]: the buffers grown and the
//! batch run again until they suffice). The host's pretest ([`Screen`]) keeps the poses it
//! separates off the device. Results go to the sink in pose order as soon as every earlier
//! pose of the group has one: without coherence, batch by batch.

use super::batch::BatchRun;
use super::coherent::{Chunk, FIRST_RECORD, Front, Ran, Seeds, Step, after_step};
use super::finish::Unresolved;
use super::handover::Layout;
use super::pair_scene::GpuPairScene;
use super::plan::Capacities;
use super::screen::Screen;
use super::stats::{BatchWork, GpuStats};
use super::{GpuScene, PAIR, finish};
use crate::gpu::context::{GpuContext, GpuError};
use crate::gpu::layout::{FrontPair, NO_SLOT};
use crate::pose::Pose;
use crate::scene::{Mode, PoseResult};
use crate::tumble::{POSE_CHUNK, TumbleMethod};

/// A group's results by pose, `None` until the pose has run (or once handed over).
pub(super) type Slots<Sub> = [Option<PoseResult<Sub>>];

/// Hands a step's finished results over after each batch ([`GpuScene::run_step`]), with
/// each pose's unresolved pairs (a budgeted run's).
pub(super) type Flush<'a, Sub, E> =
    dyn FnMut(&mut Slots<Sub>, &mut [Unresolved]) -> Result<(), E> + 'a;

/// Where a run's results go: each pose's index, result and unresolved pairs.
pub(super) type Sink<'a, Sub, E> =
    dyn FnMut(usize, PoseResult<Sub>, Unresolved) -> Result<(), E> + 'a;

/// What [`GpuScene::attempt`] gave.
#[allow(clippy::large_enum_variant)]
enum Attempt {
    /// The batch ran: its output, fronts and work.
    Ran(Ran, BatchWork),
    /// It does not fit the device with this many poses: the capacities last tried and the
    /// re-runs spent (counted with the batch that runs them).
    Fewer { tried: Capacities, reruns: u64 },
}

impl<const H: usize> GpuScene<H> {
    /// All poses, in batches, streamed: each pose's result goes to `sink` in pose order
    /// with the pose's index, and is not kept. At most [`GpuScene::max_batch_poses`] poses
    /// are read ahead and pose frames are computed batch by batch, so memory does not grow
    /// with the number of poses. With coherence (a k-DOP scene built with it, all-contacts
    /// mode) each chunk of [`POSE_CHUNK`] poses follows the CPU's rule (module docs). The
    /// first error of `sink` ends the run and is returned.
    pub fn collide_each<S: GpuPairScene<H>, E: From<GpuError>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        poses: impl IntoIterator<Item = Pose>,
        mode: Mode,
        tumble: TumbleMethod,
        mut sink: impl FnMut(usize, PoseResult<S::Sub>) -> Result<(), E>,
    ) -> Result<GpuStats, E> {
        let poses = poses.into_iter().map(|p| (p, None));
        self.run_each(ctx, scene, poses, mode, tumble, &mut |i, r, _| sink(i, r))
    }

    /// Every pose with its own tolerance: the pairs of triangles within `eps` of each other
    /// at the pose (`(pose, eps)`, `eps ≥ 0` finite), all contacts, in pose order to `sink`
    /// as [`GpuScene::collide_each`]'s. Runs with [`GpuScene::tolerance`] at 0 and the
    /// approximation method, on the k-DOP scenes only: B's tumbled k-DOPs are grown by the
    /// pose's `eps` in its frame ([`crate::tumble::PoseFrame::widened`]; the slab test is
    /// then the plain overlap), every triangle pair of the leaf pairs goes to the host,
    /// which decides it with [`crate::proximity::tri_tri_within`] at the pose's `eps`, and
    /// the pretest's box is widened by it. The distance query's device half
    /// ([`crate::proximity::distance`]): `eps` is there a pose's certified upper bound.
    pub fn within_each<S: GpuPairScene<H>, E: From<GpuError>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        poses: impl IntoIterator<Item = (Pose, f64)>,
        mut sink: impl FnMut(usize, PoseResult<S::Sub>) -> Result<(), E>,
    ) -> Result<GpuStats, E> {
        let tolerance = std::mem::take(&mut self.tolerance);
        let poses = poses.into_iter().map(|(p, e)| (p, Some(e)));
        let r = self.run_each(
            ctx,
            scene,
            poses,
            Mode::All,
            TumbleMethod::Approximate,
            &mut |i, r, _| sink(i, r),
        );
        self.tolerance = tolerance;
        self.group_eps.clear();
        r
    }

    /// [`GpuScene::collide_each`] and [`GpuScene::within_each`]: `Some(eps)` poses carry
    /// their own tolerance (all of them or none).
    pub(super) fn run_each<S: GpuPairScene<H>, E: From<GpuError>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        poses: impl Iterator<Item = (Pose, Option<f64>)>,
        mode: Mode,
        tumble: TumbleMethod,
        sink: &mut Sink<'_, S::Sub, E>,
    ) -> Result<GpuStats, E> {
        let mut poses = poses.peekable();
        let per_pose = poses.peek().is_some_and(|(_, e)| e.is_some());
        let eps = self.tolerance.get();
        // Per-pose tolerances grow B's k-DOPs in the frames, which the dual, OBB and
        // sphere trees' tests do not read (they grow A's volumes, `widen.rs`).
        if per_pose && (self.dual.is_some() || self.volumes.is_some()) {
            let bv = match (&self.dual, &self.volumes) {
                (Some(_), _) => "dual",
                (_, Some(v)) if v.obb => "obb",
                _ => "sphere",
            };
            return Err(GpuError::ToleranceUnsupported { bv }.into());
        }
        self.widen_env_volumes(ctx, scene, eps);
        // A tolerance query starts every pose at the roots, as on the CPU.
        // So does a budgeted one (breadth first from the roots, as on the CPU).
        let coherent = mode == Mode::All
            && self.pipelines.expand_record.is_some()
            && eps == 0.0
            && !per_pose
            && self.budget.is_none();
        let chunk_len = if coherent { POSE_CHUNK } else { 1 };
        // The volume trees tumble nothing, whatever the method.
        let dense = self.dense(tumble);
        let mut stats = self.begin_run(dense)?;
        let group_poses = self.max_batch_poses.max(1).next_multiple_of(chunk_len);
        let screen = Screen::of(scene).widened(eps);
        let mut start = 0;
        // Most poses of the next batch after one did not fit (`None`: as planned).
        let mut cut = None;
        loop {
            let (group, group_eps): (Vec<Pose>, Vec<Option<f64>>) =
                poses.by_ref().take(group_poses).unzip();
            if group.is_empty() {
                break;
            }
            self.group_eps = group_eps.into_iter().flatten().collect();
            debug_assert!(self.group_eps.is_empty() || self.group_eps.len() == group.len());
            let mut chunks = vec![Chunk::default(); group.len().div_ceil(chunk_len)];
            let mut results: Vec<Option<PoseResult<S::Sub>>> =
                (0..group.len()).map(|_| None).collect();
            let mut sent = 0;
            // Hands over every result whose earlier poses all have theirs.
            let mut unresolved: Vec<Unresolved> = vec![Vec::new(); group.len()];
            let mut flush = |results: &mut [Option<PoseResult<S::Sub>>],
                             unresolved: &mut [Unresolved]| {
                while let Some(r) = results.get_mut(sent).and_then(Option::take) {
                    sink(start + sent, r, std::mem::take(&mut unresolved[sent]))?;
                    sent += 1;
                }
                Ok::<(), E>(())
            };
            for s in 0..chunk_len {
                self.coherent.device.next_step();
                let mut lanes = Vec::new();
                for (k, chunk) in chunks.iter_mut().enumerate() {
                    let i = k * chunk_len + s;
                    let Some(pose) = group.get(i) else { continue };
                    let screen = match self.group_eps.get(i) {
                        Some(&e) => screen.widened(e),
                        None => screen,
                    };
                    if screen.separated(pose) {
                        chunk.front = Front::default();
                        results[i] = Some(screen.rejected());
                    } else {
                        lanes.push(i);
                    }
                }
                let mut step = Step {
                    chunks: &mut chunks,
                    chunk_len,
                    results: &mut results,
                    unresolved: &mut unresolved,
                    stats: &mut stats,
                    cut: &mut cut,
                };
                let next = s + 1 < chunk_len;
                let lanes = (&group[..], &lanes[..]);
                self.run_step(
                    ctx,
                    scene,
                    lanes,
                    (mode, tumble),
                    next,
                    screen,
                    &mut step,
                    &mut flush,
                )?;
                flush(&mut results, &mut unresolved)?;
            }
            debug_assert_eq!(sent, group.len(), "every pose run or rejected");
            start += group.len();
        }
        self.coherent.buffers = None;
        self.coherent.device = Default::default();
        Ok(stats)
    }

    /// One step: the poses `lanes` (indices into `group`, at most one per chunk, none
    /// separated by the pretest), in as many batches as fit the device; their results,
    /// fronts and off-switches by the CPU's rule, each batch's results then `flush`ed. With
    /// `next` (a pose of the chunk follows) the fronts are recorded.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_step<S: GpuPairScene<H>, E: From<GpuError>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        (group, lanes): (&[Pose], &[usize]),
        (mode, tumble): (Mode, TumbleMethod),
        next: bool,
        screen: Screen<'_>,
        out: &mut Step<'_, S::Sub>,
        flush: &mut Flush<'_, S::Sub, E>,
    ) -> Result<(), E> {
        let dense = self.dense(tumble);
        let mut at = 0;
        // Re-runs of attempts that did not fit, counted with the batch that runs their poses.
        let mut reruns = 0;
        while at < lanes.len() {
            let left = lanes.len() - at;
            // As many poses as the batches so far say fit (a probe first).
            let (p, caps) = self.plan(out.cut.map_or(left, |c| c.clamp(1, left)), dense);
            let lane = &lanes[at..at + p];
            let step = self.attempt(ctx, scene, (group, lane), out, (mode, tumble), next, caps);
            self.coherent.seeds = None;
            match step? {
                Attempt::Ran(ran, mut work) => {
                    // Doubling past usize::MAX wrapped to 0: every later batch one pose.
                    *out.cut = out.cut.and_then(|c| c.checked_mul(2));
                    work.reruns += std::mem::take(&mut reruns);
                    let stats = &mut *out.stats;
                    stats.reruns += work.reruns;
                    stats.add_batch(work, &ran.out);
                    match ran.fronts.first() {
                        Some(Front::Device { .. }) => stats.fronts_on_device += 1,
                        _ if next => stats.fronts_on_host += 1,
                        _ => {}
                    }
                    let eps: Vec<f64> = lane
                        .iter()
                        .map(|&i| self.group_eps.get(i).copied())
                        .map(|e| e.unwrap_or(self.tolerance.get()))
                        .collect();
                    let done = finish(scene, &ran.poses, ran.out, mode, dense, &eps, stats);
                    for ((mut r, &i), unseen) in done.into_iter().zip(lane).zip(ran.root_unseen) {
                        r.0.counters.bv_updates += unseen as u64;
                        out.results[i] = Some(r.0);
                        out.unresolved[i] = r.1;
                    }
                    after_step(lane, ran.fronts, screen, out);
                    flush(out.results, out.unresolved)?;
                    at += lane.len();
                }
                Attempt::Fewer { tried, reruns: r } if lane.len() > 1 => {
                    reruns += r;
                    out.stats.splits += 1;
                    self.capacities = tried.clamped(self.max_buffer_bytes, self.slot);
                    *out.cut = Some(lane.len() / 2);
                }
                Attempt::Fewer { .. } => {
                    return Err(GpuError::TooLarge {
                        needed: self.largest_buffer(&self.capacities),
                        limit: self.max_buffer_bytes,
                    }
                    .into());
                }
            }
        }
        Ok(())
    }

    /// One batch of the poses `lane` (indices into `group`) with capacities `caps`: seeds
    /// uploaded (or gathered on the device from the previous step's records; a pose
    /// without a front starts at the roots), the batch run and run again with what ran
    /// out grown, and with `next` (a step follows) its fronts recorded by `expand_record`
    /// and kept on the device (only per-lane counts read back), or read back after a
    /// resume. [`Attempt::Fewer`]: the batch does not fit the device with this many poses
    /// (one pose: not even with every buffer at the device's limit).
    #[allow(clippy::too_many_arguments)]
    fn attempt<S: GpuPairScene<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        (group, lane): (&[Pose], &[usize]),
        step: &Step<'_, S::Sub>,
        (mode, tumble): (Mode, TumbleMethod),
        next: bool,
        mut caps: Capacities,
    ) -> Result<Attempt, GpuError> {
        let dense = self.dense(tumble);
        let p = lane.len();
        let front = |i: usize| step.chunks[i / step.chunk_len].seed();
        // Seeds gathered on the device when some front is there, else uploaded; none (the
        // roots, laid out by `run_batch`) when no pose has a front.
        let on_device = lane
            .iter()
            .any(|&i| matches!(front(i), Some(Front::Device { .. })));
        let seeded = lane.iter().any(|&i| front(i).is_some());
        let mut seeds = Vec::new();
        let mut layout = Layout::default();
        let mut root_unseen = Vec::with_capacity(p);
        let slot = |j: u32, b: u32| if dense { j * self.n_fly + b } else { NO_SLOT };
        for (j, &i) in lane.iter().enumerate() {
            let j = j as u32;
            match front(i) {
                None if on_device => layout.root(j),
                None => seeds.push(FrontPair::new(j, 0, 0)),
                Some(Front::Host(f)) => {
                    let f = f.iter().map(|&(a, b)| FrontPair::new(j, a, b));
                    if on_device {
                        layout.host(
                            f.map(|q| FrontPair {
                                slot: slot(j, q.b),
                                ..q
                            })
                            .collect(),
                        );
                    } else {
                        seeds.extend(f);
                    }
                }
                Some(&Front::Device {
                    record,
                    lane,
                    pairs,
                    ..
                }) => {
                    let lanes = self.coherent.device.held[record].lanes;
                    layout.seeded(j, (record, lane, pairs), lanes);
                }
            }
            root_unseen.push(match front(i) {
                _ if dense => false,
                None => false,
                Some(Front::Host(f)) => f.iter().all(|&(_, b)| b != 0),
                Some(Front::Device { root, .. }) => !root,
            });
        }
        let n_seeds = if on_device {
            layout.total
        } else {
            seeds.len() as u32
        };
        let poses: Vec<Pose> = lane.iter().map(|&i| group[i]).collect();
        let mut frames = scene.pose_frames(&poses);
        if !self.group_eps.is_empty() {
            for (f, &i) in frames.iter_mut().zip(lane) {
                *f = f.widened(self.group_eps[i]);
            }
        }
        caps.front = caps.front.max(n_seeds);
        let mut work = BatchWork {
            poses: p as u64,
            ..Default::default()
        };
        let mut gathered = false;
        // A step that records marks itself by its seeds, the roots included.
        self.coherent.seeds = (seeded || next).then_some(Seeds::Host(seeds));
        self.coherent.record = next;
        if self.coherent.cap == 0 {
            self.coherent.cap = FIRST_RECORD;
        }
        let most_records = (self.max_buffer_bytes / PAIR).min(u32::MAX as u64) as u32;
        self.coherent.cap = self.coherent.cap.min(most_records);
        // The capacities of a one-pose run that overflowed at the device's limit.
        let mut at_limit: Option<Capacities> = None;
        let fewer = |tried, work: &BatchWork| {
            Ok(Attempt::Fewer {
                tried,
                reruns: work.reruns,
            })
        };
        loop {
            if !self.fits(&caps) {
                if p > 1 {
                    return fewer(caps, &work);
                }
                // One pose: the growth estimate may overshoot; try what fits.
                caps = caps.clamped(self.max_buffer_bytes, self.slot);
                if at_limit == Some(caps) || !self.fits(&caps) {
                    return fewer(caps, &work);
                }
            }
            if on_device && !gathered {
                match self.gather_seeds(ctx, &layout, p as u32, dense, &mut work) {
                    Err(GpuError::TooLarge { .. }) if p > 1 => return fewer(caps, &work),
                    r => r?,
                }
                self.coherent.seeds = Some(Seeds::Device(n_seeds));
                gathered = true;
            }
            if next {
                self.record_buffers(ctx)?;
            }
            match self.run_batch(ctx, &frames, caps, mode, tumble, &mut work) {
                Ok(BatchRun::Done(out, counters)) => {
                    let fronts = if !next {
                        vec![Front::default(); p]
                    } else {
                        let count = &self.coherent.buffers.as_ref().expect("made above").1;
                        let n = bytemuck::pod_read_unaligned::<u32>(&ctx.read(count, 4)?[..4]);
                        work.readbacks += 1;
                        work.bytes_read_back += 4;
                        if n > self.coherent.cap {
                            // The fronts did not fit: a larger buffer, or fewer poses.
                            if n > most_records {
                                return fewer(caps, &work);
                            }
                            work.reruns += 1;
                            self.coherent.cap = n.saturating_mul(2).min(most_records);
                            continue;
                        }
                        self.fronts(ctx, n, p, &mut work)?
                    };
                    self.learn(p, &counters);
                    self.last_poses = p;
                    self.capacities = caps;
                    self.account(&mut work, &out, &counters, dense);
                    let ran = Ran {
                        poses,
                        out,
                        fronts,
                        root_unseen,
                    };
                    return Ok(Attempt::Ran(ran, work));
                }
                Ok(BatchRun::Grow(needed)) => {
                    work.reruns += 1;
                    if p == 1 && !self.fits(&needed) {
                        at_limit = Some(caps);
                    }
                    caps = needed;
                    caps.front = caps.front.max(n_seeds);
                    self.capacities = needed;
                }
                // A buffer beyond the device's limit: fewer poses per submission.
                Err(GpuError::TooLarge { .. }) if p > 1 => return fewer(caps, &work),
                Err(e) => return Err(e),
            }
        }
    }
}
