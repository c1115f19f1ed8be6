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
//! capacities call for it), each pose seeded with its chunk's front: the one driver
//! ([`super::driver`]) runs them, as it runs poses without coherence (chunks of one pose).
//! Here: the state a step leaves for the next (chunks, fronts, records) and the handover.
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

use super::finish::Unresolved;
use super::handover::DeviceFronts;
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
pub(super) use steps::{Step, after_step};

/// The coherent step being run: its seeds and the buffers `expand_record` writes.
#[derive(Default)]
pub(super) struct Recording {
    /// The step's first front; `None`: the roots (and no recording).
    pub(super) seeds: Option<Seeds>,
    /// `front_record` and `record_count` (`expand_record`'s), while a step runs.
    pub(super) buffers: Option<(wgpu::Buffer, wgpu::Buffer)>,
    /// Pairs `front_record` holds (0: [`FIRST_RECORD`]).
    pub(super) cap: u32,
    /// The records kept on the device for the next step, and its seed buffer.
    pub(super) device: DeviceFronts,
    /// Tests: every `host_every`-th batch hands its fronts over through the host (the
    /// fallback path; 0: none), counting the batches that recorded in `recorded`.
    host_every: u32,
    recorded: u32,
    /// Whether this step records its fronts (not a chunk's last step: no pose follows).
    pub(super) record: bool,
}

/// A step's first front.
pub(super) enum Seeds {
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
pub(super) struct Chunk {
    pub(super) front: Front,
    root_nv: u64,
    off: bool,
    root_front: usize,
}

impl Chunk {
    /// The front the chunk's next pose starts from, if any: none when coherence is off,
    /// or the front is empty or has [`regrown`] (the CPU's `FrontTrack::seed`).
    pub(super) fn seed(&self) -> Option<&Front> {
        Some(&self.front)
            .filter(|f| !self.off && !f.is_empty() && !regrown(f.len(), self.root_front))
    }
}

/// Where a chunk's front is: on the host, or lane `lane` of held record `record`
/// ([`DeviceFronts::held`]).
#[derive(Clone)]
pub(super) enum Front {
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
pub(super) const FIRST_RECORD: u32 = 1 << 14;

impl<const H: usize> GpuScene<H> {
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
        let mut stats = self.begin_run(self.dense(tumble))?;
        // A frame of the same chunk follows: record, unless coherence is off for it.
        let next = frames.tick() && !frames.chunk.off;
        self.coherent.device.next_step();
        let mut results = vec![None];
        let mut unresolved = vec![Vec::new()];
        let mut step = Step {
            chunks: std::slice::from_mut(&mut frames.chunk),
            chunk_len: 1,
            results: &mut results,
            unresolved: &mut unresolved,
            stats: &mut stats,
            cut: &mut None,
        };
        let screen = Screen::counted_by_caller();
        let lanes = (&[pose][..], &[0][..]);
        let run = (Mode::All, tumble);
        let mut keep = |_: &mut [Option<_>], _: &mut [Unresolved]| Ok::<_, GpuError>(());
        self.run_step(ctx, scene, lanes, run, next, screen, &mut step, &mut keep)?;
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

    /// The record buffer of [`Recording::cap`] pairs and its count, made when missing or
    /// too small (from the spare of an earlier step when that is large enough).
    pub(super) fn record_buffers(&mut self, ctx: &GpuContext) -> Result<(), GpuError> {
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
    pub(super) fn fronts(
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
pub(super) struct Ran {
    pub(super) poses: Vec<Pose>,
    pub(super) out: super::finish::BatchOutput,
    pub(super) fronts: Vec<Front>,
    /// Lazy tumbling, per pose: no seed pair holds B's root, so the device did not count
    /// it in Nu; the host tumbled it (the approximation method's hill climbing at the root,
    /// [`crate::tumble::PoseFrame`]'s `root`), which the CPU counts in every pose.
    pub(super) root_unseen: Vec<bool>,
}
