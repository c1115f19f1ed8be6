//! One batch on the device: its buffers (kept and reused while large enough) and the
//! submission of every kernel for every level, then the readbacks.

use super::bind_groups::{BindGroups, LazyGroups};
use super::finish::BatchOutput;
use super::plan::Capacities;
use super::profile::KernelClock;
use super::resume::{Resume, rerun_capacities};
use super::stages::{Stage, Tumbling, stages};
use super::stats::BatchWork;
use super::{GpuScene, PAIR, groups};
use crate::gpu::context::{GpuContext, GpuError};
use crate::gpu::kernels::Pipeline;
use crate::gpu::layout::{FrontPair, GpuCounters, NO_SLOT};
use crate::scene::Mode;
use crate::tumble::{PoseFrame, TumbleMethod};
use wgpu::BufferUsages as U;

/// The buffers of one batch, kept and reused while they are large enough.
pub(super) struct BatchBuffers {
    /// Poses they hold.
    pub(super) poses: u32,
    pub(super) caps: Capacities,
    /// Whether `tumbled` is dense (`poses · n_fly` k-DOPs) rather than the lazy table.
    pub(super) dense: bool,
    pub(super) frames: wgpu::Buffer,
    pub(super) tumbled: wgpu::Buffer,
    pub(super) hash_keys: wgpu::Buffer,
    /// The slots `tumble_front` inserted on this level, for `tumble_fresh` (one entry per
    /// slot of the table: a level inserts each key once).
    pub(super) fresh: wgpu::Buffer,
    pub(super) front_a: wgpu::Buffer,
    pub(super) front_b: wgpu::Buffer,
    pub(super) leaves: wgpu::Buffer,
    pub(super) contacts: wgpu::Buffer,
    pub(super) unsure: wgpu::Buffer,
    pub(super) counters: wgpu::Buffer,
    /// Per pose: nv, np, nu, done (u32 each), then the dual sub-counters (3 × u32).
    pub(super) nv: wgpu::Buffer,
    pub(super) np: wgpu::Buffer,
    pub(super) nu: wgpu::Buffer,
    pub(super) done: wgpu::Buffer,
    pub(super) dual_counts: wgpu::Buffer,
    /// A budget's state per pose ([`GpuCounters::budgeted`]): node tests spent, then the
    /// next level's pushed (2 × u32 per pose).
    pub(super) budget_state: wgpu::Buffer,
    /// The indirect dispatch sizes (x, y, z) of level `L`'s `expand`, `tumble_front` and
    /// `reslot`, in `level_args[L % 2]`: level `L`'s hand-over writes level `L + 1`'s into
    /// the other (a dispatch cannot write the buffer it is dispatched from).
    pub(super) level_args: [wgpu::Buffer; 2],
    /// The triangle tests' dispatch size (written by every hand-over).
    pub(super) tri_args: wgpu::Buffer,
    /// `tumble_fresh`'s dispatch size (written by `prepare_tumble`).
    pub(super) fresh_args: wgpu::Buffer,
    pub(super) level_sizes: wgpu::Buffer,
    pub(super) slices: wgpu::Buffer,
    /// A full lazy table being moved into `tumbled` and `hash_keys` (`Resume::Table`):
    /// its k-DOPs, keys and slots.
    pub(super) old_table: Option<(wgpu::Buffer, wgpu::Buffer, u32)>,
    pub(super) bytes: u64,
}

impl<const H: usize> GpuScene<H> {
    /// The batch buffers for `p` poses and `caps`, reusing the current ones when they are
    /// large enough.
    fn buffers(
        &mut self,
        ctx: &GpuContext,
        p: u32,
        caps: Capacities,
        dense: bool,
    ) -> Result<&BatchBuffers, GpuError> {
        let table = caps.tumbled.next_power_of_two();
        let caps = Capacities {
            tumbled: table,
            ..caps
        };
        let reuse = self.buffers.as_ref().is_some_and(|b| {
            b.poses >= p
                && b.dense == dense
                && b.caps.front >= caps.front
                && b.caps.leaf >= caps.leaf
                && b.caps.contact >= caps.contact
                && b.caps.unsure >= caps.unsure
                && (dense || b.caps.tumbled >= caps.tumbled)
        });
        if !reuse {
            // Free the old buffers before creating the new ones.
            self.buffers = None;
            let mut total = 0u64;
            let mut make = |name: &str, size: u64, extra: U| {
                total += size;
                ctx.storage_empty(name, size, extra)
            };
            let tumbled = if dense {
                make(
                    "tumbled",
                    p as u64 * self.n_fly as u64 * self.slot,
                    U::empty(),
                )?
            } else {
                make("tumbled", table as u64 * self.slot, U::empty())?
            };
            let hash_keys = make(
                "hash_keys",
                if dense { 4 } else { table as u64 * 4 },
                U::empty(),
            )?;
            let per_pose = p as u64 * 4;
            let b = BatchBuffers {
                poses: p,
                caps,
                dense,
                frames: make(
                    "frames",
                    p as u64 * std::mem::size_of::<PoseFrame<H>>() as u64,
                    U::empty(),
                )?,
                tumbled,
                fresh: make(
                    "fresh",
                    if dense { 4 } else { table as u64 * 4 },
                    U::empty(),
                )?,
                hash_keys,
                front_a: make("front_a", caps.front as u64 * PAIR, U::empty())?,
                front_b: make("front_b", caps.front as u64 * PAIR, U::empty())?,
                leaves: make("leaves", caps.leaf as u64 * PAIR, U::empty())?,
                contacts: make("contacts", caps.contact as u64 * PAIR, U::empty())?,
                unsure: make("unsure", caps.unsure as u64 * PAIR, U::empty())?,
                counters: make(
                    "counters",
                    std::mem::size_of::<GpuCounters>() as u64,
                    U::empty(),
                )?,
                nv: make("nv", per_pose, U::empty())?,
                np: make("np", per_pose, U::empty())?,
                nu: make("nu", per_pose, U::empty())?,
                done: make("done", per_pose, U::empty())?,
                budget_state: make("budget_state", 2 * per_pose, U::empty())?,
                dual_counts: make(
                    "dual_counts",
                    if self.dual.is_some() { 3 * per_pose } else { 4 },
                    U::empty(),
                )?,
                level_args: [
                    make("level_args_0", 12, U::INDIRECT)?,
                    make("level_args_1", 12, U::INDIRECT)?,
                ],
                tri_args: make("tri_args", 12, U::INDIRECT)?,
                fresh_args: make("fresh_args", 12, U::INDIRECT)?,
                level_sizes: make("level_sizes", self.levels as u64 * 4, U::empty())?,
                slices: ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("tumble_slices"),
                    size: Self::slice_slot(ctx) * self.fly_slices.len().max(1) as u64,
                    usage: U::UNIFORM | U::COPY_DST,
                    mapped_at_creation: false,
                }),
                old_table: None,
                bytes: 0,
            };
            self.buffers = Some(BatchBuffers { bytes: total, ..b });
        }
        Ok(self.buffers.as_ref().expect("just made"))
    }

    /// Records the batch's kernels from `from` to the last level, in the order of
    /// [`stages`] (the mirror's too), each timed by `clock` when there is one; returns the
    /// dispatches and how many of them are indirect.
    fn record(
        &self,
        enc: &mut wgpu::CommandEncoder,
        bg: &BindGroups<'_>,
        (from, p): (Resume, u32),
        mut clock: Option<&mut KernelClock>,
    ) -> (u64, u64) {
        let pl = &self.pipelines;
        let bb = self.buffers.as_ref().expect("buffers before recording");
        let lazy = || -> &LazyGroups { bg.front.as_ref().expect("lazy tumbling's groups") };
        let tumbling = if !bg.tumble.is_empty() {
            Tumbling::Exact {
                slices: bg.tumble.len(),
            }
        } else if bg.front.is_some() {
            Tumbling::Lazy
        } else {
            Tumbling::None
        };
        let mut pass = enc.begin_compute_pass(&Default::default());
        if let Some(c) = clock.as_deref_mut() {
            c.mark(&mut pass, "start");
        }
        let list = stages(self.levels, tumbling, from);
        let mut indirect = 0;
        for &(level, stage) in &list {
            let side = level as usize % 2;
            // Direct dispatches (sizes known on the host) or indirect ones (sizes written on
            // the device by the hand-overs and `prepare_tumble`).
            let level_args = &bb.level_args[side];
            let (pipe, group, size): (&Pipeline, &wgpu::BindGroup, _) = match stage {
                Stage::TumbleExact(k) => {
                    let (pipe, g, count) = &bg.tumble[k];
                    (pipe, g, Size::Direct(groups(p as u64 * *count as u64)))
                }
                Stage::Rehash => {
                    let (old, slots) = bg.rehash.as_ref().expect("the old table is kept");
                    (&pl.rehash, old, Size::Direct(groups(*slots as u64)))
                }
                Stage::Reslot => (&pl.reslot, &bg.reslot[side], Size::Indirect(level_args)),
                // The roots, one pair per pose, or a coherent step's seeds: sized here.
                Stage::TumbleFront if level == 0 && from == Resume::Start => (
                    &pl.tumble_front,
                    &lazy().front[0],
                    Size::Direct(groups(self.coherent.first_front(p) as u64)),
                ),
                Stage::TumbleFront => (
                    &pl.tumble_front,
                    &lazy().front[side],
                    Size::Indirect(level_args),
                ),
                Stage::PrepareTumble => (&pl.prepare_tumble, &lazy().prepare, Size::Direct((1, 1))),
                Stage::TumbleFresh => (
                    &pl.tumble_fresh,
                    &lazy().fresh,
                    Size::Indirect(&bb.fresh_args),
                ),
                Stage::Expand => (bg.expand_pipe, &bg.expand[side], Size::Indirect(level_args)),
                Stage::TriTest => (&pl.tri_test, &bg.tri, Size::Indirect(&bb.tri_args)),
            };
            pass.set_pipeline(pipe);
            pass.set_bind_group(0, group, &[]);
            match size {
                Size::Direct((x, y)) => pass.dispatch_workgroups(x, y, 1),
                Size::Indirect(args) => {
                    indirect += 1;
                    pass.dispatch_workgroups_indirect(args, 0)
                }
            }
            if let Some(c) = clock.as_deref_mut() {
                c.mark(&mut pass, stage.label());
            }
        }
        (list.len() as u64, indirect)
    }

    /// Aligned size of one uniform slot of the exact method's slice parameters.
    pub(super) fn slice_slot(ctx: &GpuContext) -> u64 {
        ctx.device
            .limits()
            .min_uniform_buffer_offset_alignment
            .max(16) as u64
    }

    /// `Counters::margins` of a tolerance query (zeros for the intersection query).
    fn margin_bits(&self) -> [u32; crate::gpu::layout::MAX_SLABS] {
        let mut bits = [0; crate::gpu::layout::MAX_SLABS];
        let eps = self.tolerance.get();
        if eps != 0.0 {
            let m = crate::proximity::slab_margins_f32::<H>(eps);
            for (b, m) in bits.iter_mut().zip(m) {
                *b = m.to_bits();
            }
        }
        bits
    }

    /// One submission of `frames.len()` poses: [`BatchRun::Done`] with its output, or
    /// [`BatchRun::Grow`] when a capacity ran out.
    pub(super) fn run_batch(
        &mut self,
        ctx: &GpuContext,
        frames: &[PoseFrame<H>],
        caps: Capacities,
        mode: Mode,
        tumble: TumbleMethod,
        work: &mut BatchWork,
    ) -> Result<BatchRun, GpuError> {
        let p = frames.len() as u32;
        let dense = self.dense(tumble);
        // The volume trees' roots are tested here; the device starts at level 1.
        let mut level_one = self.roots.map(|r| r.level_one(frames));
        let n0 = level_one
            .as_ref()
            .map_or(self.coherent.first_front(p), |l| l.pairs.len() as u32);
        let caps = Capacities {
            front: caps.front.max(2 * p).max(n0),
            ..caps
        };
        self.buffers(ctx, p, caps, dense)?;
        let bb = self.buffers.as_ref().expect("made above");
        let caps = Capacities {
            tumbled: caps.tumbled.next_power_of_two(),
            ..caps
        };
        work.buffer_bytes = work.buffer_bytes.max(bb.bytes);
        let n_fly = self.n_fly;
        let initial: Vec<FrontPair> = match self.coherent.seeds(dense, n_fly) {
            Some(seeds) => seeds,
            None if level_one.is_some() => {
                std::mem::take(&mut level_one.as_mut().expect("tested").pairs)
            }
            None => (0..p)
                .map(|pose| FrontPair {
                    pose,
                    a: 0,
                    b: 0,
                    slot: if dense { pose * n_fly } else { NO_SLOT },
                })
                .collect(),
        };
        let counters0 = GpuCounters {
            n_in: n0,
            cap_front: caps.front,
            cap_leaf: caps.leaf,
            cap_contact: caps.contact,
            cap_unsure: caps.unsure,
            n_fly,
            mode_first: (mode == Mode::First) as u32,
            dual_flags: self.dual.as_ref().map_or(0, |d| d.flags),
            descent_larger: self.descent_larger as u32,
            lazy: !dense as u32,
            hash_mask: if dense { 0 } else { caps.tumbled - 1 },
            // After the host's root tests the device starts at level 1, on its side.
            level: level_one.is_some() as u32,
            // Per-pose tolerances grow B's k-DOPs in the frames: the plain overlap then.
            within: (self.tolerance.get() != 0.0 || !self.group_eps.is_empty()) as u32,
            margins: self.margin_bits(),
            budgeted: self.budget.is_some() as u32,
            // The host's root tests spent level 1's two tests (`GpuScene::budget`).
            budget: self
                .budget
                .map_or(0, |b| b.saturating_sub(2 * level_one.is_some() as u32)),
            n_poses: p,
            ..Default::default()
        };
        let first = counters0.level as usize;
        let (gx, gy) = groups(n0 as u64);
        let q = &ctx.queue;
        q.write_buffer(&bb.frames, 0, bytemuck::cast_slice(frames));
        if !initial.is_empty() {
            let front = [&bb.front_a, &bb.front_b][first];
            q.write_buffer(front, 0, bytemuck::cast_slice(&initial));
        }
        q.write_buffer(&bb.counters, 0, bytemuck::bytes_of(&counters0));
        q.write_buffer(&bb.level_args[first], 0, bytemuck::cast_slice(&[gx, gy, 1]));
        work.bytes_uploaded += std::mem::size_of_val(frames) as u64
            + initial.len() as u64 * PAIR
            + std::mem::size_of::<GpuCounters>() as u64
            + 12;

        if dense {
            let slot = Self::slice_slot(ctx);
            for (k, &(start, count)) in self.fly_slices.iter().enumerate() {
                let params = [start, count, p, n_fly];
                q.write_buffer(&bb.slices, k as u64 * slot, bytemuck::cast_slice(&params));
            }
        }
        let per_pose = p as u64 * 4;
        let counters_bytes = std::mem::size_of::<GpuCounters>() as u64;
        // Where the next submission starts: the whole batch, or a level frozen by an
        // overflow (its node tests again, or only its triangle tests).
        let mut from = Resume::Start;
        let (c, summary) = loop {
            let bgs = self.bind_groups(ctx, dense);
            let bb = self.buffers.as_ref().expect("made above");
            let mut enc = ctx.device.create_command_encoder(&Default::default());
            if from == Resume::Start {
                for b in [&bb.nv, &bb.np, &bb.nu, &bb.done] {
                    enc.clear_buffer(b, 0, Some(per_pose));
                }
                enc.clear_buffer(&bb.dual_counts, 0, None);
                enc.clear_buffer(&bb.level_sizes, 0, None);
                enc.clear_buffer(&bb.budget_state, 0, Some(2 * per_pose));
                if !dense {
                    enc.clear_buffer(&bb.hash_keys, 0, Some(caps.tumbled as u64 * 4));
                }
                if let Some((_, (_, count))) =
                    self.coherent.recording(&self.pipelines.expand_record)
                {
                    enc.clear_buffer(count, 0, None);
                }
                // Seeds gathered on the device (`coherent`): copied, not uploaded.
                if let Some((seeds, bytes)) = self.coherent.device_seeds() {
                    enc.copy_buffer_to_buffer(seeds, 0, &bb.front_a, 0, bytes);
                }
            }
            if from != Resume::Start && self.budget.is_some() {
                // A frozen level runs again: its pushes are counted afresh.
                enc.clear_buffer(&bb.budget_state, per_pose, Some(per_pose));
            }
            let mut clock = if ctx.kernel_clock {
                KernelClock::new(ctx)
            } else {
                None
            };
            let (all, indirect) = self.record(&mut enc, &bgs, (from, p), clock.as_mut());
            work.dispatches += all;
            work.indirect_dispatches += indirect;
            work.levels = self.levels as u64;
            let stamps = clock.as_ref().and_then(|c| c.resolve(ctx, &mut enc));
            work.buffer_bytes = work.buffer_bytes.max(bb.bytes);
            // One readback of everything of fixed size: counters, level sizes, per-pose
            // counters.
            let lv = self.levels as u64 * 4;
            let dual_bytes = if self.dual.is_some() { 3 * per_pose } else { 0 };
            let parts: [(&wgpu::Buffer, u64); 6] = [
                (&bb.counters, counters_bytes),
                (&bb.level_sizes, lv),
                (&bb.nv, per_pose),
                (&bb.np, per_pose),
                (&bb.nu, per_pose),
                (&bb.dual_counts, dual_bytes),
            ];
            let summary_bytes: u64 = parts.iter().map(|(_, n)| n).sum();
            let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("summary"),
                size: summary_bytes,
                usage: U::MAP_READ | U::COPY_DST,
                mapped_at_creation: false,
            });
            let mut at = 0;
            for (b, n) in parts {
                if n > 0 {
                    enc.copy_buffer_to_buffer(b, 0, &staging, at, n);
                    at += n;
                }
            }
            q.submit([enc.finish()]);
            work.submissions += 1;
            let summary = ctx.map_read(&staging)?;
            if let (Some(c), Some(st)) = (&clock, &stamps) {
                c.read(ctx, st, &mut work.kernel_ns)?;
            }
            work.readbacks += 1;
            work.bytes_read_back += summary_bytes;
            let c: GpuCounters = bytemuck::pod_read_unaligned(&summary[..counters_bytes as usize]);
            drop(bgs);
            if let Some(b) = self.buffers.as_mut() {
                b.old_table = None;
            }
            if c.overflow == 0 {
                break (c, summary);
            }
            // Resume where the batch froze when the buffers that ran out can grow (the
            // appends' counters say how much was asked for), else run the whole batch again.
            let nu_sum = {
                let words: &[u8] = &summary[counters_bytes as usize..];
                let at = (self.levels as usize + 2 * p as usize) * 4;
                bytemuck::pod_collect_to_vec::<u8, u32>(&words[at..at + 4 * p as usize])
                    .iter()
                    .fold(0u32, |s, &v| s.wrapping_add(v))
            };
            match self.resume(ctx, &c, mode, nu_sum, work)? {
                Some(r) => from = r,
                None => return Ok(BatchRun::Grow(rerun_capacities(&c))),
            }
        };
        debug_assert_eq!(c.n_in, 0, "depth(A) + depth(B) - 1 levels empty the front");
        let bb = self.buffers.as_ref().expect("made above");
        let words: Vec<u32> = bytemuck::pod_collect_to_vec(&summary[counters_bytes as usize..]);
        let (lvl, rest) = words.split_at(self.levels as usize);
        let (nv, rest) = rest.split_at(p as usize);
        let (np, rest) = rest.split_at(p as usize);
        let (nu, dual) = rest.split_at(p as usize);
        // The contacts and the unsure pairs, in one readback when there are any.
        let (n_c, n_u) = (c.n_contact as u64 * PAIR, c.n_unsure as u64 * PAIR);
        let (contacts, unsure) = ctx.read_two("pairs", (&bb.contacts, n_c), (&bb.unsure, n_u))?;
        if n_c + n_u > 0 {
            work.readbacks += 1;
            work.bytes_read_back += n_c + n_u;
        }
        let mut out = BatchOutput {
            level_sizes: lvl.to_vec(),
            nv: nv.to_vec(),
            np: np.to_vec(),
            nu: nu.to_vec(),
            contacts,
            unsure,
            dual: dual.to_vec(),
        };
        let mut c = c;
        if let Some(l) = &level_one {
            // The host's root tests: level 0's pairs, one node test per pose, the roots of
            // B it posed.
            l.count(&mut out, &mut c);
        }
        Ok(BatchRun::Done(out, c))
    }
}

/// A dispatch's size: workgroups counted on the host, or read from an indirect buffer.
enum Size<'a> {
    Direct((u32, u32)),
    Indirect(&'a wgpu::Buffer),
}

/// What one submission of a batch gave (once per submission, moved once: its size does
/// not matter).
#[allow(clippy::large_enum_variant)]
pub(super) enum BatchRun {
    /// It completed: its output and the device's counters.
    Done(BatchOutput, GpuCounters),
    /// A capacity ran out: the capacities large enough for what the counters asked for;
    /// the batch is run again with them (nothing of it was kept).
    Grow(Capacities),
}
