//! The device hand-over of temporal coherence (module docs of [`super::coherent`]): each
//! batch of a step keeps its `front_record` (`Held`) until the next step has run, the host
//! reads back only each lane's pair count and root flag (`record_counts`), and the next
//! step's seeds are gathered from the records into a seed buffer (`gather_seeds`) that
//! `run_batch` copies to its first front.

use super::stats::BatchWork;
use super::{GpuScene, PAIR, groups};
use crate::gpu::context::{GpuContext, GpuError};
use crate::gpu::layout::{FrontPair, HandOver, HandOverParams, LaneRecord, NO_LANE};

/// A batch's record kept on the device for the next step: the buffers, the pairs recorded
/// and the lanes (poses) of the batch.
pub(super) struct Held {
    pub(super) record: wgpu::Buffer,
    pub(super) count: wgpu::Buffer,
    pub(super) n: u32,
    pub(super) lanes: u32,
}

/// The device side of the hand-over, kept across steps.
#[derive(Default)]
pub(super) struct DeviceFronts {
    /// The records of the previous step's batches (a front's `record` indexes them).
    pub(super) held: Vec<Held>,
    /// The records of this step's batches so far.
    pub(super) current: Vec<Held>,
    /// Record buffers of earlier steps, reused by the next recordings.
    pub(super) spare: Vec<(wgpu::Buffer, wgpu::Buffer)>,
    /// The seed buffer `gather_seeds` writes (grown when too small).
    pub(super) seeds: Option<wgpu::Buffer>,
}

impl DeviceFronts {
    /// A new step: this step's records become the held ones, the older ones spare.
    pub(super) fn next_step(&mut self) {
        let old = std::mem::replace(&mut self.held, std::mem::take(&mut self.current));
        self.spare
            .extend(old.into_iter().map(|h| (h.record, h.count)));
    }

    /// Spare record buffers of at least `bytes`, if any (smaller ones are freed: the
    /// record capacity only grows).
    pub(super) fn spare_of(&mut self, bytes: u64) -> Option<(wgpu::Buffer, wgpu::Buffer)> {
        self.spare.retain(|(r, _)| r.size() >= bytes);
        self.spare.pop()
    }
}

/// The next step's seeds laid out from the lanes' fronts: per held record, one entry per
/// lane ([`NO_LANE`] unless seeded from it here); the lanes starting from the roots; the
/// lanes whose fronts are on the host (written, not gathered).
#[derive(Default)]
pub(super) struct Layout {
    hand: Vec<Vec<HandOver>>,
    roots: Vec<HandOver>,
    host: Vec<(u32, Vec<FrontPair>)>,
    /// Seeds in all.
    pub(super) total: u32,
    /// Lanes seeded from held records.
    pub(super) seeded: u32,
}

impl Layout {
    /// Next lane `lane` starts from the roots.
    pub(super) fn root(&mut self, lane: u32) {
        self.roots.push(HandOver {
            lane,
            offset: self.total,
        });
        self.total += 1;
    }

    /// Next lane `lane` starts from the `pairs` pairs of lane `src` of held record
    /// `record` (of `lanes` lanes).
    pub(super) fn seeded(
        &mut self,
        lane: u32,
        (record, src, pairs): (usize, u32, u32),
        lanes: u32,
    ) {
        if self.hand.len() <= record {
            self.hand.resize(record + 1, Vec::new());
        }
        let hand = &mut self.hand[record];
        if hand.is_empty() {
            let none = HandOver {
                lane: NO_LANE,
                offset: 0,
            };
            hand.resize(lanes as usize, none);
        }
        hand[src as usize] = HandOver {
            lane,
            offset: self.total,
        };
        self.total += pairs;
        self.seeded += 1;
    }

    /// Next lane `lane` starts from a front on the host (`pose` = lane, slots set).
    pub(super) fn host(&mut self, front: Vec<FrontPair>) {
        let n = front.len() as u32;
        self.host.push((self.total, front));
        self.total += n;
    }
}

impl<const H: usize> GpuScene<H> {
    /// Per lane of the batch just recorded (`n` pairs in the current record buffer, `p`
    /// lanes): its pairs and root flag (`record_counts`, one readback of `8 p` bytes); the
    /// record is then kept for the next step, as record `current.len() - 1`.
    pub(super) fn count_lanes(
        &mut self,
        ctx: &GpuContext,
        n: u32,
        p: u32,
        work: &mut BatchWork,
    ) -> Result<Vec<LaneRecord>, GpuError> {
        let (record, count) = self.coherent.buffers.take().expect("a step recorded");
        let lanes_bytes = p as u64 * std::mem::size_of::<LaneRecord>() as u64;
        let lanes = ctx.storage_empty("lane_records", lanes_bytes, wgpu::BufferUsages::empty())?;
        let params = self.hand_over_params(n, 0, 0);
        let params = ctx.storage(
            "hand_over",
            bytemuck::bytes_of(&params),
            wgpu::BufferUsages::empty(),
        );
        let pipe = &self
            .pipelines
            .handover
            .as_ref()
            .expect("built with coherence")[0];
        let bg = pipe.bind(
            ctx,
            &[
                ("front_record", &record),
                ("params", &params),
                ("lanes", &lanes),
            ],
        );
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("lane_records"),
            size: lanes_bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        if n > 0 {
            let mut pass = enc.begin_compute_pass(&Default::default());
            let (gx, gy) = groups(n as u64);
            pass.set_pipeline(pipe);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(gx, gy, 1);
            work.dispatches += 1;
        }
        enc.copy_buffer_to_buffer(&lanes, 0, &staging, 0, lanes_bytes);
        ctx.queue.submit([enc.finish()]);
        let out: Vec<LaneRecord> = bytemuck::pod_collect_to_vec(&ctx.map_read(&staging)?);
        work.submissions += 1;
        work.readbacks += 1;
        work.bytes_read_back += lanes_bytes;
        work.bytes_uploaded += std::mem::size_of::<HandOverParams>() as u64;
        self.coherent.device.current.push(Held {
            record,
            count,
            n,
            lanes: p,
        });
        Ok(out)
    }

    /// Writes the next step's seeds as `layout` says into the seed buffer: gathered from
    /// each held record (`gather_seeds`, one dispatch per record, the roots with the
    /// first), fronts on the host written; no readback.
    pub(super) fn gather_seeds(
        &mut self,
        ctx: &GpuContext,
        layout: &Layout,
        lanes: u32,
        dense: bool,
        work: &mut BatchWork,
    ) -> Result<(), GpuError> {
        let bytes = layout.total as u64 * PAIR;
        let d = &mut self.coherent.device;
        if d.seeds.as_ref().is_none_or(|s| s.size() < bytes) {
            d.seeds = None;
            d.seeds = Some(ctx.storage_empty("seeds", bytes, wgpu::BufferUsages::empty())?);
        }
        let d = &self.coherent.device;
        let seeds = d.seeds.as_ref().expect("made above");
        for (offset, front) in &layout.host {
            ctx.queue
                .write_buffer(seeds, *offset as u64 * PAIR, bytemuck::cast_slice(front));
            work.bytes_uploaded += front.len() as u64 * PAIR;
        }
        let cursor = ctx.storage_empty("cursor", lanes as u64 * 4, wgpu::BufferUsages::empty())?;
        let pipe = &self
            .pipelines
            .handover
            .as_ref()
            .expect("built with coherence")[1];
        let mut groups_ = Vec::new();
        let mut roots: &[HandOver] = &layout.roots;
        for (k, hand) in layout.hand.iter().enumerate() {
            if hand.is_empty() {
                continue;
            }
            let held = &d.held[k];
            let mut params = self.hand_over_params(held.n, held.lanes, roots.len() as u32);
            params.dense = dense as u32;
            let table: Vec<HandOver> = hand.iter().chain(roots).copied().collect();
            let params_b = ctx.storage(
                "hand_over",
                bytemuck::bytes_of(&params),
                wgpu::BufferUsages::empty(),
            );
            let hand_b = ctx.storage(
                "hand",
                bytemuck::cast_slice(&table),
                wgpu::BufferUsages::empty(),
            );
            work.bytes_uploaded +=
                std::mem::size_of::<HandOverParams>() as u64 + table.len() as u64 * 8;
            let bg = pipe.bind(
                ctx,
                &[
                    ("front_record", &held.record),
                    ("params", &params_b),
                    ("hand", &hand_b),
                    ("cursor", &cursor),
                    ("seeds", seeds),
                ],
            );
            groups_.push((bg, held.n as u64 + roots.len() as u64));
            roots = &[];
        }
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(pipe);
            for (bg, n) in &groups_ {
                let (gx, gy) = groups(*n);
                pass.set_bind_group(0, bg, &[]);
                pass.dispatch_workgroups(gx, gy, 1);
                work.dispatches += 1;
            }
        }
        ctx.queue.submit([enc.finish()]);
        work.submissions += 1;
        Ok(())
    }

    fn hand_over_params(&self, n_record: u32, n_src: u32, n_roots: u32) -> HandOverParams {
        HandOverParams {
            n_record,
            n_src,
            n_roots,
            n_fly: self.n_fly,
            ..Default::default()
        }
    }
}
