//! Temporal coherence on the GPU ([`crate::kdop::KdopOptions::coherence`], all-contacts
//! mode): the CPU's rule, pose for pose, so the pairs, Nv, Np and Nu are the CPU's.
//!
//! The CPU runs each chunk of [`POSE_CHUNK`] consecutive poses in order: a pose starts from
//! the front the chunk's previous pose recorded (the roots at the chunk's start and after a
//! pose the box pretest separated), and a pose from a front that tests more node pairs than
//! the chunk's last descent from the roots turns coherence off for the rest of the chunk.
//! Poses of one chunk depend on each other, poses of different chunks do not: the GPU runs
//! a group of chunks as [`POSE_CHUNK`] *steps* ("lanes"), step `s` holding pose `s` of every
//! chunk of the group, one batch of the ordinary pipeline each (in several when the
//! capacities call for it), each pose seeded with its chunk's front.
//!
//! Fronts are recorded on the device: `expand_record` (`shaders/front_expand.wgsl`) is
//! `expand` that also appends every pair found disjoint and every leaf pair, with its pose,
//! to a record buffer. This version is host-driven: after each step the host reads the
//! recorded fronts back (with the per-pose counters the pipeline reads anyway), decides the
//! per-chunk off-switch from Nv, and uploads the next step's seeds; the readbacks and
//! uploads are counted in [`GpuStats`]. A level run again after an overflow records its
//! pairs again: the host drops duplicates (a front holds each pair once). A record buffer
//! too small is grown to twice what was asked for and the step runs again (`reruns`).
//!
//! Nu: with the approximation method the host tumbles B's root for every pose (hill
//! climbing, [`crate::tumble::PoseFrame`]'s `root`), as the CPU does; the device counts a
//! node when a front pair reaches it, so a pose seeded with a front without B's root gets
//! that one update added here: Nu equals the CPU's too.
//!
//! Not yet on the device: the hand-over between steps. The fronts make a round trip through
//! the host (on the bunny, 1,200 poses 0.1° apart: about 0.4 GB read back and 0.7 GB
//! uploaded for 25 M node tests), which a kernel building the next step's seeds from
//! `front_record` and per-chunk `root_nv`/off flags on the device would remove.

use super::{
    BatchOutput, BatchWork, GpuHierarchies, GpuScene, GpuStats, PAIR, finish, rejected_pose,
};
use crate::Pose;
use crate::gpu::context::{GpuContext, GpuError};
use crate::gpu::layout::GpuCounters;
use crate::gpu::layout::{FrontPair, NO_SLOT};
use crate::scene::{Mode, PoseResult};
use crate::tumble::{POSE_CHUNK, TumbleMethod};

/// The coherent step being run: its seeds and the buffers `expand_record` writes.
#[derive(Default)]
pub(super) struct Recording {
    /// The step's first front, `pose` = lane (slots are set at upload); `None`: the roots
    /// (and no recording).
    seeds: Option<Vec<FrontPair>>,
    /// `front_record` and `record_count` (bindings 16, 17), while a step runs.
    buffers: Option<(wgpu::Buffer, wgpu::Buffer)>,
    /// Pairs `front_record` holds (0: [`FIRST_RECORD`]).
    cap: u32,
}

impl Recording {
    /// `expand_record` and its buffers while a coherent step runs.
    pub(super) fn recording<'a>(
        &'a self,
        pipe: &'a Option<wgpu::ComputePipeline>,
    ) -> Option<(
        &'a wgpu::ComputePipeline,
        (&'a wgpu::Buffer, &'a wgpu::Buffer),
    )> {
        let (record, count) = self.buffers.as_ref()?;
        self.seeds.as_ref()?;
        Some((pipe.as_ref()?, (record, count)))
    }

    /// Pairs of the first front of a batch of `p` poses.
    pub(super) fn first_front(&self, p: u32) -> u32 {
        self.seeds.as_ref().map_or(p, |s| s.len() as u32)
    }

    /// The seeds with their slots: dense tumbling reads B's k-DOP at `pose · n_fly + b`,
    /// lazy tumbling places it (`tumble_front`).
    pub(super) fn seeds(&self, dense: bool, n_fly: u32) -> Option<Vec<FrontPair>> {
        let seeds = self.seeds.as_ref()?;
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
/// `coherence_off`).
#[derive(Default, Clone)]
struct Chunk {
    front: Vec<(u32, u32)>,
    root_nv: u64,
    off: bool,
}

/// Initial pairs of the record buffer.
const FIRST_RECORD: u32 = 1 << 14;

impl<const H: usize> GpuScene<H> {
    /// [`GpuScene::collide_each`] with coherence (all-contacts mode, `expand_record` built):
    /// groups of up to [`GpuScene::max_batch_poses`] poses, each run as [`POSE_CHUNK`]
    /// steps (module docs).
    pub(super) fn collide_each_coherent<S: GpuHierarchies<H>, E: From<GpuError>>(
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
        let pretest_nv = scene.pretest().is_some() as u64;
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
                let mut lanes = Vec::new();
                for (k, chunk) in chunks.iter_mut().enumerate() {
                    let i = k * POSE_CHUNK + s;
                    let Some(pose) = group.get(i) else { continue };
                    if scene.pretest().is_some_and(|t| t.separated(pose)) {
                        chunk.front.clear();
                        results[i] = Some(rejected_pose(pretest_nv));
                    } else {
                        lanes.push(i);
                    }
                }
                let mut at = 0;
                let mut most = lanes.len();
                while at < lanes.len() {
                    // As many poses as the batches so far say fit (a probe first).
                    let (fit, _) = self.plan(lanes.len() - at, dense);
                    let lane = &lanes[at..at + most.min(fit).min(lanes.len() - at)];
                    let step = self.coherent_step(ctx, scene, &group, lane, &chunks, tumble);
                    self.coherent.seeds = None;
                    match step? {
                        Some((ran, work)) => {
                            add_batch(&mut stats, work, &ran.out);
                            let done =
                                finish(scene, &ran.poses, ran.out, Mode::All, dense, &mut stats);
                            for ((mut r, &i), unseen) in
                                done.into_iter().zip(lane).zip(ran.root_unseen)
                            {
                                r.counters.bv_updates += unseen as u64;
                                results[i] = Some(r);
                            }
                            let fronts = ran.fronts;
                            after_step(
                                lane,
                                &mut chunks,
                                &mut results,
                                fronts,
                                pretest_nv,
                                &mut stats,
                            );
                            at += lane.len();
                        }
                        None if lane.len() > 1 => {
                            stats.splits += 1;
                            most = lane.len() / 2;
                        }
                        None => {
                            return Err(GpuError::TooLarge {
                                needed: Self::largest_buffer(&self.capacities),
                                limit: self.max_buffer_bytes,
                            }
                            .into());
                        }
                    }
                }
            }
            for (i, r) in results.into_iter().enumerate() {
                sink(start + i, r.expect("every pose run or rejected"))?;
            }
            start += group.len();
        }
        self.coherent.buffers = None;
        Ok(stats)
    }

    /// Pairs the record buffer of temporal coherence holds before it grows (tests shrink it
    /// to force a step to run again); afterwards it keeps what the steps needed.
    pub fn set_record_capacity(&mut self, pairs: u32) {
        self.coherent.cap = pairs.max(1);
    }

    /// One step for the poses `lane` (indices into `group`): seeds uploaded, the batch run
    /// with `expand_record`, the fronts read back. `None`: the step does not fit the device
    /// with this many poses.
    fn coherent_step<S: GpuHierarchies<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        group: &[Pose],
        lane: &[usize],
        chunks: &[Chunk],
        tumble: TumbleMethod,
    ) -> Result<Option<(Ran, BatchWork)>, GpuError> {
        let dense = tumble == TumbleMethod::Exact;
        let p = lane.len();
        let mut seeds = Vec::new();
        let mut root_unseen = Vec::with_capacity(p);
        for (j, &i) in lane.iter().enumerate() {
            let chunk = &chunks[i / POSE_CHUNK];
            if chunk.off || chunk.front.is_empty() {
                seeds.push(FrontPair::new(j as u32, 0, 0));
                root_unseen.push(false);
            } else {
                seeds.extend(
                    chunk
                        .front
                        .iter()
                        .map(|&(a, b)| FrontPair::new(j as u32, a, b)),
                );
                root_unseen.push(!dense && chunk.front.iter().all(|&(_, b)| b != 0));
            }
        }
        let poses: Vec<Pose> = lane.iter().map(|&i| group[i]).collect();
        let frames = scene.pose_frames(&poses);
        let (_, mut caps) = self.plan(p, dense);
        caps.front = caps.front.max(seeds.len() as u32);
        let mut work = BatchWork {
            poses: p as u64,
            ..Default::default()
        };
        let n_seeds = seeds.len() as u64;
        self.coherent.seeds = Some(seeds);
        if self.coherent.cap == 0 {
            self.coherent.cap = FIRST_RECORD;
        }
        let most_records = (self.max_buffer_bytes / PAIR).min(u32::MAX as u64) as u32;
        self.coherent.cap = self.coherent.cap.min(most_records);
        loop {
            if !self.fits(&caps) {
                return Ok(None);
            }
            self.record_buffers(ctx)?;
            match self.run_batch(ctx, &frames, caps, Mode::All, tumble, &mut work) {
                Ok(Ok((out, counters))) => {
                    let (record, count) = self.coherent.buffers.as_ref().expect("made above");
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
                    let pairs: Vec<FrontPair> = ctx.read_pod(record, n as usize)?;
                    if n > 0 {
                        work.readbacks += 1;
                        work.bytes_read_back += n as u64 * PAIR;
                    }
                    let mut fronts = vec![Vec::new(); p];
                    for q in pairs {
                        fronts[q.pose as usize].push((q.a, q.b));
                    }
                    // Only a level run again (a resume) records pairs twice.
                    if work.resumes > 0 {
                        for f in &mut fronts {
                            f.sort_unstable();
                            f.dedup();
                        }
                    }
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
                Ok(Err(needed)) => {
                    work.reruns += 1;
                    caps = needed;
                    caps.front = caps.front.max(n_seeds as u32);
                    self.capacities = needed;
                }
                Err(GpuError::TooLarge { .. }) if p > 1 => return Ok(None),
                Err(e) => return Err(e),
            }
        }
    }

    /// The record buffer of [`Recording::cap`] pairs and its count, made when missing or
    /// too small.
    fn record_buffers(&mut self, ctx: &GpuContext) -> Result<(), GpuError> {
        let bytes = self.coherent.cap as u64 * PAIR;
        if self
            .coherent
            .buffers
            .as_ref()
            .is_some_and(|(r, _)| r.size() >= bytes)
        {
            return Ok(());
        }
        self.coherent.buffers = None;
        let record = ctx.storage_empty("front_record", bytes, wgpu::BufferUsages::empty())?;
        let count = ctx.storage_empty("record_count", 4, wgpu::BufferUsages::empty())?;
        self.coherent.buffers = Some((record, count));
        Ok(())
    }
}

/// What a step produced: its poses, the batch's output, and each pose's recorded front.
struct Ran {
    poses: Vec<Pose>,
    out: super::BatchOutput,
    fronts: Vec<Vec<(u32, u32)>>,
    /// Lazy tumbling, per pose: no seed pair holds B's root, so the device did not count
    /// it in Nu; the host tumbled it (the approximation method's hill climbing at the root,
    /// [`crate::tumble::PoseFrame`]'s `root`), which the CPU counts in every pose.
    root_unseen: Vec<bool>,
}

/// The CPU's rule after a step (`KdopScene::collide_coherent`): the off-switch from Nv, the
/// fronts for the next step, the pretest's test added to Nv.
fn after_step<Sub>(
    lane: &[usize],
    chunks: &mut [Chunk],
    results: &mut [Option<PoseResult<Sub>>],
    fronts: Vec<Vec<(u32, u32)>>,
    pretest_nv: u64,
    stats: &mut GpuStats,
) {
    for (&i, front) in lane.iter().zip(fronts) {
        let chunk = &mut chunks[i / POSE_CHUNK];
        let r = results[i].as_mut().expect("just run");
        let nv = r.counters.bv_tests;
        if !chunk.off {
            if chunk.front.is_empty() {
                chunk.root_nv = nv;
            } else {
                stats.seeded_poses += 1;
                if nv > chunk.root_nv {
                    chunk.off = true;
                    stats.coherence_off += 1;
                }
            }
        }
        chunk.front = if chunk.off { Vec::new() } else { front };
        r.counters.bv_tests += pretest_nv;
    }
}

/// A completed step's work and level sizes added to the call's stats.
fn add_batch(stats: &mut GpuStats, work: BatchWork, out: &BatchOutput) {
    for (s, v) in stats.level_sizes.iter_mut().zip(&out.level_sizes) {
        *s += *v as u64;
    }
    stats.reruns += work.reruns;
    stats.dispatches += work.dispatches;
    stats.bytes_uploaded += work.bytes_uploaded;
    stats.submissions += work.submissions;
    stats.resumes += work.resumes;
    stats.readbacks += work.readbacks;
    stats.bytes_read_back += work.bytes_read_back;
    stats.peak_buffer_bytes = stats.peak_buffer_bytes.max(work.buffer_bytes);
    stats.batches.push(work);
}

impl<const H: usize> GpuScene<H> {
    /// A completed step's counts in its work (as [`GpuScene::collide_each`] counts a batch).
    fn account(&self, work: &mut BatchWork, out: &BatchOutput, c: &GpuCounters, dense: bool) {
        work.node_pairs = out.nv.iter().map(|&v| v as u64).sum();
        work.tri_pairs = out.np.iter().map(|&v| v as u64).sum();
        work.nodes_tumbled = if dense {
            work.poses * self.n_fly as u64
        } else {
            c.n_tumbled as u64
        };
        self.count_work(work, c, dense);
    }
}
