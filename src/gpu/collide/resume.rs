//! Overflow handling of a batch: after an overflow the hand-overs freeze the batch at
//! the level that ran out; here the host grows what ran out (keeping its contents) and says
//! where to resume, or sizes a whole new run when growing cannot help.

use super::plan::Capacities;
use super::stats::BatchWork;
use super::{GpuScene, PAIR, groups};
use crate::gpu::context::{GpuContext, GpuError};
use crate::gpu::layout::{
    GpuCounters, OVERFLOW_CLAIM, OVERFLOW_TABLE, RESUMED_EXPAND, RESUMED_TRI,
};
use crate::scene::Mode;
use wgpu::BufferUsages as U;

/// Where a submission of the batch starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Resume {
    /// The whole batch.
    Start,
    /// A level frozen by an overflow of its node tests: they run again (not counted twice).
    Expand(u32),
    /// A level frozen by an overflow of its triangle tests: they run again.
    Tri(u32),
    /// A level frozen by a full tumbling table: the table moves into a larger one, then
    /// the level runs.
    Table(u32),
}

impl<const H: usize> GpuScene<H> {
    /// After an overflow froze the batch at level `c.level`: grows the buffers that ran
    /// out (to twice what was asked for: later levels usually need more), keeping what they
    /// hold, and sets the counters to resume there: the level's node tests again (front or
    /// leaf pairs ran out) or only its triangle tests (contacts or unsure pairs ran out).
    /// `None` when only a whole new run can help: a full table of the volume trees' posed
    /// volumes, a buffer beyond the binding limit, or contacts in
    /// first-contact mode (a pose marked done may have lost its contact).
    pub(super) fn resume(
        &mut self,
        ctx: &GpuContext,
        c: &GpuCounters,
        mode: Mode,
        nu_sum: u32,
        work: &mut BatchWork,
    ) -> Result<Option<Resume>, GpuError> {
        let expand_stage = c.overflow & 3 != 0;
        if c.overflow & OVERFLOW_TABLE != 0 {
            // The volume trees' table fills inside `expand_*`, which claimed children
            // already: the batch runs again with a larger one (`rerun_capacities`).
            if self.volumes.is_some() {
                return Ok(None);
            }
            return self.resume_table(ctx, c, nu_sum, work);
        }
        if !expand_stage && mode == Mode::First {
            return Ok(None);
        }
        let grow = |cap: u32, need: u32| {
            if need > cap {
                need.saturating_mul(2)
            } else {
                cap
            }
        };
        let mut n = thawed(c);
        if expand_stage {
            n.cap_front = grow(c.cap_front, c.n_out);
            n.cap_leaf = grow(c.cap_leaf, c.n_leaf);
            n.n_out = 0;
            // The leaf pairs of the levels before stay; this level's append again.
            n.n_leaf = c.leaf_mark;
            n.resumed = RESUMED_EXPAND;
        } else {
            n.cap_contact = grow(c.cap_contact, c.n_contact);
            n.cap_unsure = grow(c.cap_unsure, c.n_unsure);
            n.n_contact = c.contact_mark;
            n.n_unsure = c.unsure_mark;
            n.resumed = RESUMED_EXPAND | RESUMED_TRI;
        }
        let largest = [n.cap_front, n.cap_leaf, n.cap_contact, n.cap_unsure]
            .iter()
            .map(|&k| k as u64 * PAIR)
            .max()
            .unwrap_or(0);
        if largest > self.max_buffer_bytes {
            return Ok(None);
        }
        self.grow_buffers(ctx, &n)?;
        let bb = self.buffers.as_ref().expect("grown above");
        ctx.queue
            .write_buffer(&bb.counters, 0, bytemuck::bytes_of(&n));
        work.bytes_uploaded += std::mem::size_of::<GpuCounters>() as u64;
        // The frozen hand-overs wrote one-workgroup sizes; the level's input is intact.
        let (args, count) = if expand_stage {
            (&bb.level_args[c.level as usize % 2], n.n_in)
        } else {
            (&bb.tri_args, n.n_leaf.min(n.cap_leaf))
        };
        let (gx, gy) = groups(count as u64);
        ctx.queue
            .write_buffer(args, 0, bytemuck::cast_slice(&[gx, gy, 1]));
        work.bytes_uploaded += 12;
        work.resumes += 1;
        Ok(Some(if expand_stage {
            Resume::Expand(c.level)
        } else {
            Resume::Tri(c.level)
        }))
    }

    /// A full lazy table at level `c.level`: a table at least twice as large (four slots per
    /// node asked for), the old one kept for `rehash`. `None` beyond the binding limit.
    fn resume_table(
        &mut self,
        ctx: &GpuContext,
        c: &GpuCounters,
        nu_sum: u32,
        work: &mut BatchWork,
    ) -> Result<Option<Resume>, GpuError> {
        let old_slots = c.hash_mask.wrapping_add(1);
        let slots = (c.n_tumbled as u64 * 4)
            .max(2 * old_slots as u64)
            .next_power_of_two();
        if slots * self.slot > self.max_buffer_bytes || slots > u32::MAX as u64 {
            return Ok(None);
        }
        let tumbled = ctx.storage_empty("tumbled", slots * self.slot, U::empty())?;
        let keys = ctx.storage_empty("hash_keys", slots * 4, U::empty())?;
        // The full level's inserted nodes were tumbled before the batch froze: the list
        // starts empty.
        let fresh = ctx.storage_empty("fresh", slots * 4, U::empty())?;
        let bb = self.buffers.as_mut().expect("buffers before growing");
        bb.fresh = fresh;
        let old_tumbled = std::mem::replace(&mut bb.tumbled, tumbled);
        let old_keys = std::mem::replace(&mut bb.hash_keys, keys);
        bb.old_table = Some((old_tumbled, old_keys, old_slots));
        // The table now has `slots` slots, fewer than a reused buffer's when this batch used
        // only part of it (its hash mask is the batch's): the capacity follows the buffer.
        bb.caps.tumbled = slots as u32;
        bb.bytes += (slots - old_slots as u64) * (self.slot + 8);
        let mut n = thawed(c);
        n.hash_mask = (slots - 1) as u32;
        if c.overflow & OVERFLOW_CLAIM != 0 {
            // The level's expansion ran (its node tests counted) and met the full table
            // claiming children: it runs again, its appends restarting.
            n.n_out = 0;
            n.n_leaf = c.leaf_mark;
            n.resumed = RESUMED_EXPAND;
        }
        // The failed inserts were counted too; the nodes placed are the per-pose Nu.
        n.n_tumbled = nu_sum;
        ctx.queue
            .write_buffer(&bb.counters, 0, bytemuck::bytes_of(&n));
        // The frozen hand-overs wrote one-workgroup sizes; the level's input is intact.
        let (gx, gy) = groups(n.n_in as u64);
        ctx.queue.write_buffer(
            &bb.level_args[c.level as usize % 2],
            0,
            bytemuck::cast_slice(&[gx, gy, 1]),
        );
        work.bytes_uploaded += std::mem::size_of::<GpuCounters>() as u64 + 12;
        work.resumes += 1;
        Ok(Some(Resume::Table(c.level)))
    }

    /// Replaces the pair buffers smaller than the capacities in `n` by larger ones holding
    /// the same contents (one copy submission).
    fn grow_buffers(&mut self, ctx: &GpuContext, n: &GpuCounters) -> Result<(), GpuError> {
        let bb = self.buffers.as_mut().expect("buffers before growing");
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        let mut grow = |buf: &mut wgpu::Buffer, have: &mut u32, want: u32, name: &str| {
            if want <= *have {
                return Ok::<u64, GpuError>(0);
            }
            let new = ctx.storage_empty(name, want as u64 * PAIR, U::empty())?;
            enc.copy_buffer_to_buffer(buf, 0, &new, 0, *have as u64 * PAIR);
            let added = (want - *have) as u64 * PAIR;
            *buf = new;
            *have = want;
            Ok(added)
        };
        let mut caps = bb.caps;
        let mut front_b = caps.front;
        let mut added = grow(&mut bb.front_a, &mut caps.front, n.cap_front, "front_a")?;
        added += grow(&mut bb.front_b, &mut front_b, n.cap_front, "front_b")?;
        added += grow(&mut bb.leaves, &mut caps.leaf, n.cap_leaf, "leaves")?;
        added += grow(
            &mut bb.contacts,
            &mut caps.contact,
            n.cap_contact,
            "contacts",
        )?;
        added += grow(&mut bb.unsure, &mut caps.unsure, n.cap_unsure, "unsure")?;
        bb.caps = caps;
        bb.bytes += added;
        ctx.queue.submit([enc.finish()]);
        Ok(())
    }
}

/// The counters of a frozen batch, ready to resume: no overflow, not frozen, no workgroup
/// counted done.
fn thawed(c: &GpuCounters) -> GpuCounters {
    GpuCounters {
        overflow: 0,
        frozen: 0,
        groups_done: 0,
        ..*c
    }
}

/// Capacities for a whole new run after an overflow that cannot be resumed: every exhausted
/// capacity grows to what was asked for, with room to spare. A truncated level under-reports
/// the levels after it, so every capacity but the exact counts (contacts, unsure pairs)
/// grows by the largest shortfall seen (at least twice).
pub(super) fn rerun_capacities(c: &GpuCounters) -> Capacities {
    let tumbled = c.hash_mask.wrapping_add(1).max(1);
    let short = |cap: u32, need: u32, bit: u32| {
        if c.overflow & bit != 0 {
            need as f64 / cap.max(1) as f64
        } else {
            1.0
        }
    };
    let factor = [
        short(c.cap_front, c.n_out.max(c.max_front), 1),
        short(c.cap_leaf, c.n_leaf.max(c.max_leaf), 2),
        short(tumbled, c.n_tumbled, OVERFLOW_TABLE),
    ]
    .into_iter()
    .fold(2.0f64, f64::max);
    let scale = |cap: u32| (cap as f64 * factor).min(u32::MAX as f64) as u32;
    let grow = |cap: u32, need: u32, bit: u32| {
        if c.overflow & bit != 0 {
            need.max(cap).saturating_mul(2)
        } else {
            cap
        }
    };
    Capacities {
        front: scale(c.cap_front),
        leaf: scale(c.cap_leaf),
        contact: grow(c.cap_contact, c.n_contact, 4),
        unsure: grow(c.cap_unsure, c.n_unsure, 8),
        tumbled: scale(tumbled),
    }
}
