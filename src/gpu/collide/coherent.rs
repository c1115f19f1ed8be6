//! Temporal coherence on the GPU ([`crate::kdop::KdopOptions::coherence`], all-contacts
//! mode): the CPU's rule, pose for pose, so the pairs, Nv, Np and Nu are the CPU's.
//!
//! The CPU runs each chunk of [`POSE_CHUNK`] consecutive poses in order: a pose starts from
//! the front the chunk's previous pose recorded (the roots at the chunk's start and after a
//! pose the box pretest separated, or when the front has grown past
//! [`crate::traverse::regrown`] of the one the chunk's last descent from the roots
//! recorded), and a pose from a front that tests more node pairs than the chunk's last
//! descent from the roots turns coherence off for the rest of the chunk.
//! Poses of one chunk depend on each other, poses of different chunks do not: the GPU runs
//! a group of chunks as [`POSE_CHUNK`] *steps* ("lanes"), step `s` holding pose `s` of every
//! chunk of the group, one batch of the ordinary pipeline each (in several when the
//! capacities call for it), each pose seeded with its chunk's front.
//!
//! Fronts are recorded on the device: `expand_record` (`shaders/front_expand.wgsl`) is
//! `expand` that also appends every pair found disjoint and every leaf pair, with its pose,
//! to a record buffer (one per batch), and stay there ([`super::handover`]): after a
//! batch, `record_counts` (`shaders/front_coherent.wgsl`) counts each lane's pairs and
//! flags B's root, and the host reads back only those 8 bytes per pose. It decides the
//! per-chunk off-switch from the Nv it reads anyway, lays the next step's seeds out (a
//! seeded lane: its chunk's pairs; a root lane: one pair) and uploads that small table;
//! `gather_seeds` copies the pairs from the held records into a seed buffer that the next
//! batch copies to its first front. Order within a front does not matter: its pairs are
//! expanded independently and the results sorted. The last step records nothing.
//!
//! The host path is the fallback, batch by batch: a batch that resumed (a level run again
//! records its pairs twice) has its record read back and deduplicated, and a step whose
//! lanes mix both kinds writes the host's fronts into the seed buffer. A record buffer too
//! small is grown to twice what was asked for and the batch runs again (`reruns`).
//! [`GpuStats`] counts every readback and upload of both paths.
//!
//! Frames of deforming meshes ([`crate::gpu::deform`]) come one call at a time: each is
//! one step of a chunk whose state ([`FrameChunk`]) the caller holds between calls, the
//! records staying on the device from one call to the next ([`GpuScene::collide_frame`]);
//! the same step ([`GpuScene::run_step`]) and rule (`after_step`) as a batch of poses.
//!
//! Nu: with the approximation method the host tumbles B's root for every pose (hill
//! climbing, [`crate::tumble::PoseFrame`]'s `root`), as the CPU does; the device counts a
//! node when a front pair reaches it, so a pose seeded with a front without B's root gets
//! that one update added here: Nu equals the CPU's too.

use super::batch::BatchRun;
use super::finish::finish;
use super::handover::{DeviceFronts, Layout};
use super::pair_scene::GpuPairScene;
use super::screen::Screen;
use super::stats::{BatchWork, GpuStats};
use super::{GpuScene, PAIR};
use crate::gpu::context::{GpuContext, GpuError};
use crate::gpu::kernels::Pipeline;
use crate::gpu::layout::{FrontPair, NO_SLOT};
use crate::pose::Pose;
use crate::scene::{Mode, PoseResult};
use crate::traverse::regrown;
use crate::tumble::{POSE_CHUNK, TumbleMethod};

mod steps;
pub(crate) use steps::FrameChunk;
use steps::{Step, after_step};

/// The coherent step being run: its seeds and the buffers `expand_record` writes.
#[derive(Default)]
pub(super) struct Recording {
    /// The step's first front; `None`: the roots (and no recording).
    seeds: Option<Seeds>,
    /// `front_record` and `record_count` (`expand_record`'s), while a step runs.
    pub(super) buffers: Option<(wgpu::Buffer, wgpu::Buffer)>,
    /// Pairs `front_record` holds (0: [`FIRST_RECORD`]).
    cap: u32,
    /// The records kept on the device for the next step, and its seed buffer.
    pub(super) device: DeviceFronts,
    /// Tests: every `host_every`-th batch hands its fronts over through the host (the
    /// fallback path; 0: none), counting the batches that recorded in `recorded`.
    host_every: u32,
    recorded: u32,
    /// Whether this step records its fronts (not a chunk's last step: no pose follows).
    record: bool,
}

/// A step's first front.
enum Seeds {
    /// Uploaded: `pose` = lane (slots are set at upload).
    Host(Vec<FrontPair>),
    /// This many pairs in [`DeviceFronts::seeds`], slots set (`gather_seeds`).
    Device(u32),
}

impl Recording {
    /// `expand_record` and its buffers while a coherent step runs.
    pub(super) fn recording<'a>(
        &'a self,
        pipe: &'a Option<Pipeline>,
    ) -> Option<(&'a Pipeline, (&'a wgpu::Buffer, &'a wgpu::Buffer))> {
        let (record, count) = self.buffers.as_ref().filter(|_| self.record)?;
        self.seeds.as_ref()?;
        Some((pipe.as_ref()?, (record, count)))
    }

    /// Pairs of the first front of a batch of `p` poses.
    pub(super) fn first_front(&self, p: u32) -> u32 {
        match &self.seeds {
            None => p,
            Some(Seeds::Host(s)) => s.len() as u32,
            Some(Seeds::Device(n)) => *n,
        }
    }

    /// Seeds on the device: the buffer and the bytes to copy to the first front.
    pub(super) fn device_seeds(&self) -> Option<(&wgpu::Buffer, u64)> {
        match self.seeds {
            Some(Seeds::Device(n)) => Some((self.device.seeds.as_ref()?, n as u64 * PAIR)),
            _ => None,
        }
    }

    /// The seeds to upload with their slots: dense tumbling reads B's k-DOP at
    /// `pose · n_fly + b`, lazy tumbling places it (`tumble_front`). Empty for seeds on the
    /// device ([`Recording::device_seeds`]).
    pub(super) fn seeds(&self, dense: bool, n_fly: u32) -> Option<Vec<FrontPair>> {
        let seeds = match self.seeds.as_ref()? {
            Seeds::Host(s) => s,
            Seeds::Device(_) => return Some(Vec::new()),
        };
        Some(
            seeds
                .iter()
                .map(|s| FrontPair {
                    slot: if dense { s.pose * n_fly + s.b } else { NO_SLOT },
                    ..*s
                })
                .collect(),
        )
    }
}

/// One chunk's state between steps (the CPU workspace's `front`, `root_nv`,
/// `coherence_off`, `root_front`).
#[derive(Default, Clone)]
struct Chunk {
    front: Front,
    root_nv: u64,
    off: bool,
    root_front: usize,
}

impl Chunk {
    /// The front the chunk's next pose starts from, if any: none when coherence is off,
    /// or the front is empty or has [`regrown`] (the CPU's `FrontTrack::seed`).
    fn seed(&self) -> Option<&Front> {
        Some(&self.front)
            .filter(|f| !self.off && !f.is_empty() && !regrown(f.len(), self.root_front))
    }
}

/// Where a chunk's front is: on the host, or lane `lane` of held record `record`
/// ([`DeviceFronts::held`]).
#[derive(Clone)]
enum Front {
    Host(Vec<(u32, u32)>),
    Device {
        record: usize,
        lane: u32,
        pairs: u32,
        root: bool,
    },
}

impl Default for Front {
    fn default() -> Front {
        Front::Host(Vec::new())
    }
}

impl Front {
    /// No front: the next pose starts from the roots.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Its pairs.
    fn len(&self) -> usize {
        match self {
            Front::Host(f) => f.len(),
            Front::Device { pairs, .. } => *pairs as usize,
        }
    }
}

/// Initial pairs of the record buffer.
const FIRST_RECORD: u32 = 1 << 14;

impl<const H: usize> GpuScene<H> {
    /// [`GpuScene::collide_each`] with coherence (all-contacts mode, `expand_record` built):
    /// groups of up to [`GpuScene::max_batch_poses`] poses, each run as [`POSE_CHUNK`]
    /// steps (module docs).
    pub(super) fn collide_each_coherent<S: GpuPairScene<H>, E: From<GpuError>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        poses: impl IntoIterator<Item = Pose>,
        tumble: TumbleMethod,
        mut sink: impl FnMut(usize, PoseResult<S::Sub>) -> Result<(), E>,
    ) -> Result<GpuStats, E> {
        let dense = tumble == TumbleMethod::Exact;
        let mut stats = self.begin_run(dense)?;
        let group_poses = self.max_batch_poses.max(1).next_multiple_of(POSE_CHUNK);
        let screen = Screen::of(scene);
        let mut poses = poses.into_iter();
        let mut start = 0;
        loop {
            let group: Vec<Pose> = poses.by_ref().take(group_poses).collect();
            if group.is_empty() {
                break;
            }
            let mut chunks = vec![Chunk::default(); group.len().div_ceil(POSE_CHUNK)];
            let mut results: Vec<Option<PoseResult<S::Sub>>> =
                (0..group.len()).map(|_| None).collect();
            for s in 0..POSE_CHUNK {
                self.coherent.device.next_step();
                let mut lanes = Vec::new();
                for (k, chunk) in chunks.iter_mut().enumerate() {
                    let i = k * POSE_CHUNK + s;
                    let Some(pose) = group.get(i) else { continue };
                    if screen.separated(pose) {
                        chunk.front = Front::default();
                        results[i] = Some(screen.rejected());
                    } else {
                        lanes.push(i);
                    }
                }
                let next = s + 1 < POSE_CHUNK;
                let mut step = Step {
                    chunks: &mut chunks,
                    results: &mut results,
                    stats: &mut stats,
                };
                self.run_step(ctx, scene, &group, &lanes, tumble, next, screen, &mut step)?;
            }
            for (i, r) in results.into_iter().enumerate() {
                sink(start + i, r.expect("every pose run or rejected"))?;
            }
            start += group.len();
        }
        self.coherent.buffers = None;
        self.coherent.device = DeviceFronts::default();
        Ok(stats)
    }

    /// One step: the poses `lanes` (indices into `group`, at most one per chunk, none
    /// separated by the pretest), in as many batches as fit the device; their results,
    /// fronts and off-switches by the CPU's rule. With `next` (a pose of the chunk follows)
    /// the fronts are recorded.
    #[allow(clippy::too_many_arguments)]
    fn run_step<S: GpuPairScene<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        group: &[Pose],
        lanes: &[usize],
        tumble: TumbleMethod,
        next: bool,
        screen: Screen<'_>,
        out: &mut Step<'_, S::Sub>,
    ) -> Result<(), GpuError> {
        let dense = tumble == TumbleMethod::Exact;
        let mut at = 0;
        let mut most = lanes.len();
        while at < lanes.len() {
            // As many poses as the batches so far say fit (a probe first).
            let (fit, _) = self.plan(lanes.len() - at, dense);
            let lane = &lanes[at..at + most.min(fit).min(lanes.len() - at)];
            let step = self.coherent_step(ctx, scene, group, lane, out.chunks, tumble, next);
            self.coherent.seeds = None;
            match step? {
                Some((ran, work)) => {
                    let stats = &mut *out.stats;
                    stats.reruns += work.reruns;
                    stats.add_batch(work, &ran.out);
                    match ran.fronts.first() {
                        Some(Front::Device { .. }) => stats.fronts_on_device += 1,
                        _ if next => stats.fronts_on_host += 1,
                        _ => {}
                    }
                    let done = finish(scene, &ran.poses, ran.out, Mode::All, dense, stats);
                    for ((mut r, &i), unseen) in done.into_iter().zip(lane).zip(ran.root_unseen) {
                        r.counters.bv_updates += unseen as u64;
                        out.results[i] = Some(r);
                    }
                    after_step(lane, ran.fronts, screen, out);
                    at += lane.len();
                }
                None if lane.len() > 1 => {
                    out.stats.splits += 1;
                    most = lane.len() / 2;
                }
                None => {
                    return Err(GpuError::TooLarge {
                        needed: Self::largest_buffer(&self.capacities),
                        limit: self.max_buffer_bytes,
                    });
                }
            }
        }
        Ok(())
    }

    /// One frame of a deforming scene ([`crate::gpu::deform`]) with coherence across
    /// frames: the frames are the steps of one chunk, one lane each, so the CPU's rule
    /// (`DeformingScene::query_frame`) runs frame for frame: `frames` holds the chunk
    /// between calls (its front on the device, in this scene's records). The host ran the
    /// pretest (a separated frame calls [`FrameChunk::forget`] and comes not here); the
    /// caller restarts `frames` when a hierarchy is rebuilt (new trees, new scene).
    pub(crate) fn collide_frame<S: GpuPairScene<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        pose: Pose,
        tumble: TumbleMethod,
        frames: &mut FrameChunk,
    ) -> Result<(PoseResult<S::Sub>, GpuStats), GpuError> {
        let mut stats = self.begin_run(tumble == TumbleMethod::Exact)?;
        // A frame of the same chunk follows: record, unless coherence is off for it.
        let next = frames.tick() && !frames.chunk.off;
        self.coherent.device.next_step();
        let mut results = vec![None];
        let mut step = Step {
            chunks: std::slice::from_mut(&mut frames.chunk),
            results: &mut results,
            stats: &mut stats,
        };
        let screen = Screen::counted_by_caller();
        self.run_step(ctx, scene, &[pose], &[0], tumble, next, screen, &mut step)?;
        let r = results.pop().flatten().expect("the frame was run");
        Ok((r, stats))
    }

    /// Pairs the record buffer of temporal coherence holds before it grows (tests shrink it
    /// to force a step to run again); afterwards it keeps what the steps needed.
    pub fn set_record_capacity(&mut self, pairs: u32) {
        self.coherent.cap = pairs.max(1);
    }

    /// Tests: every `every`-th batch (1: all, 0: none but those the rule sends) hands its
    /// fronts over through the host, the fallback path.
    pub fn set_host_handover(&mut self, every: u32) {
        self.coherent.host_every = every;
    }

    /// One step for the poses `lane` (indices into `group`): seeds uploaded (or gathered on
    /// the device from the previous step's records), the batch run, and with `next` (a
    /// step follows) its fronts recorded by `expand_record` and kept on the device (only
    /// per-lane counts read back), or read back after a resume. `None`: the step does not
    /// fit the device with this many poses.
    #[allow(clippy::too_many_arguments)]
    fn coherent_step<S: GpuPairScene<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        group: &[Pose],
        lane: &[usize],
        chunks: &[Chunk],
        tumble: TumbleMethod,
        next: bool,
    ) -> Result<Option<(Ran, BatchWork)>, GpuError> {
        let dense = tumble == TumbleMethod::Exact;
        let p = lane.len();
        let front = |i: usize| chunks[i / POSE_CHUNK].seed();
        // Seeds gathered on the device when some front is there, else uploaded.
        let on_device = lane
            .iter()
            .any(|&i| matches!(front(i), Some(Front::Device { .. })));
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
        let frames = scene.pose_frames(&poses);
        let (_, mut caps) = self.plan(p, dense);
        caps.front = caps.front.max(n_seeds);
        let mut work = BatchWork {
            poses: p as u64,
            ..Default::default()
        };
        let mut gathered = false;
        self.coherent.seeds = Some(Seeds::Host(seeds));
        self.coherent.record = next;
        if self.coherent.cap == 0 {
            self.coherent.cap = FIRST_RECORD;
        }
        let most_records = (self.max_buffer_bytes / PAIR).min(u32::MAX as u64) as u32;
        self.coherent.cap = self.coherent.cap.min(most_records);
        loop {
            if !self.fits(&caps) {
                return Ok(None);
            }
            if on_device && !gathered {
                match self.gather_seeds(ctx, &layout, p as u32, dense, &mut work) {
                    Err(GpuError::TooLarge { .. }) if p > 1 => return Ok(None),
                    r => r?,
                }
                self.coherent.seeds = Some(Seeds::Device(n_seeds));
                gathered = true;
            }
            if next {
                self.record_buffers(ctx)?;
            }
            match self.run_batch(ctx, &frames, caps, Mode::All, tumble, &mut work) {
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
                                return Ok(None);
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
                    return Ok(Some((
                        Ran {
                            poses,
                            out,
                            fronts,
                            root_unseen,
                        },
                        work,
                    )));
                }
                Ok(BatchRun::Grow(needed)) => {
                    work.reruns += 1;
                    caps = needed;
                    caps.front = caps.front.max(n_seeds);
                    self.capacities = needed;
                }
                Err(GpuError::TooLarge { .. }) if p > 1 => return Ok(None),
                Err(e) => return Err(e),
            }
        }
    }

    /// The record buffer of [`Recording::cap`] pairs and its count, made when missing or
    /// too small (from the spare of an earlier step when that is large enough).
    fn record_buffers(&mut self, ctx: &GpuContext) -> Result<(), GpuError> {
        let bytes = self.coherent.cap as u64 * PAIR;
        let large = |b: &Option<(wgpu::Buffer, wgpu::Buffer)>| {
            b.as_ref().is_some_and(|(r, _)| r.size() >= bytes)
        };
        if large(&self.coherent.buffers) {
            return Ok(());
        }
        self.coherent.buffers = self.coherent.device.spare_of(bytes);
        if self.coherent.buffers.is_some() {
            return Ok(());
        }
        let record = ctx.storage_empty("front_record", bytes, wgpu::BufferUsages::empty())?;
        let count = ctx.storage_empty("record_count", 4, wgpu::BufferUsages::empty())?;
        self.coherent.buffers = Some((record, count));
        Ok(())
    }
}

impl<const H: usize> GpuScene<H> {
    /// The fronts of the `p` lanes of a batch that recorded `n` pairs: kept on the device
    /// (only per-lane counts read back), or, after a resume (a level run again records its
    /// pairs twice) or in tests, read back and deduplicated on the host.
    fn fronts(
        &mut self,
        ctx: &GpuContext,
        n: u32,
        p: usize,
        work: &mut BatchWork,
    ) -> Result<Vec<Front>, GpuError> {
        let c = &mut self.coherent;
        let forced = c.host_every > 0 && c.recorded.is_multiple_of(c.host_every);
        c.recorded = c.recorded.wrapping_add(1);
        if work.resumes == 0 && !forced {
            let lanes = self.count_lanes(ctx, n, p as u32, work)?;
            let record = self.coherent.device.current.len() - 1;
            return Ok((0..p as u32)
                .zip(lanes)
                .map(|(lane, l)| Front::Device {
                    record,
                    lane,
                    pairs: l.pairs,
                    root: l.root != 0,
                })
                .collect());
        }
        let record = &self.coherent.buffers.as_ref().expect("a step recorded").0;
        let pairs: Vec<FrontPair> = ctx.read_pod(record, n as usize)?;
        if n > 0 {
            work.readbacks += 1;
            work.bytes_read_back += n as u64 * PAIR;
        }
        let mut fronts = vec![Vec::new(); p];
        for q in pairs {
            fronts[q.pose as usize].push((q.a, q.b));
        }
        if work.resumes > 0 {
            for f in &mut fronts {
                f.sort_unstable();
                f.dedup();
            }
        }
        Ok(fronts.into_iter().map(Front::Host).collect())
    }
}

/// What a step produced: its poses, the batch's output, and each pose's recorded front.
struct Ran {
    poses: Vec<Pose>,
    out: super::finish::BatchOutput,
    fronts: Vec<Front>,
    /// Lazy tumbling, per pose: no seed pair holds B's root, so the device did not count
    /// it in Nu; the host tumbled it (the approximation method's hill climbing at the root,
    /// [`crate::tumble::PoseFrame`]'s `root`), which the CPU counts in every pose.
    root_unseen: Vec<bool>,
}
