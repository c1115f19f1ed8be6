//! Batch sizing: how many poses the next batch holds and how large its buffers are, from
//! the per-pose needs of the batches before it, within the memory budget and the device's
//! binding limit.

use super::{GpuScene, PAIR};
use crate::bv::Kdop;
use crate::gpu::layout::GpuCounters;
use crate::tumble::{POSE_CHUNK, PoseFrame};

/// Capacities of the batch buffers; they grow on overflow and follow what batches need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacities {
    /// Node pairs of one level of the breadth-first front (all poses of a batch).
    pub front: u32,
    /// Leaf pairs waiting for triangle tests.
    pub leaf: u32,
    /// Triangle pairs the f32 filter proved intersecting.
    pub contact: u32,
    /// Triangle pairs the f32 filter could not decide (the host decides them exactly).
    pub unsure: u32,
    /// Slots of the lazy tumbling table (rounded up to a power of two).
    pub tumbled: u32,
}

impl Default for Capacities {
    fn default() -> Self {
        Capacities {
            front: 1 << 18,
            leaf: 1 << 17,
            contact: 1 << 17,
            unsure: 1 << 14,
            tumbled: 1 << 14,
        }
    }
}

/// What batches needed per pose so far (the largest rate seen), to size the next ones.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PerPose {
    front: f64,
    leaf: f64,
    contact: f64,
    unsure: f64,
    tumbled: f64,
}

/// Headroom over the per-pose needs seen so far when sizing a batch.
const HEADROOM: f64 = 3.0;

/// Poses of the first batch of a scene (nothing learned yet).
const FIRST_BATCH: usize = POSE_CHUNK;

/// Largest expected load of the lazy tumbling table (linear probing stays short).
const TABLE_LOAD: f64 = 0.5;

/// Headroom over the tumbled nodes per pose seen so far when sizing the lazy table.
const TABLE_HEADROOM: f64 = 1.5;

impl<const H: usize> GpuScene<H> {
    /// Bytes of one tumbled k-DOP (the lazy table's slot of a k-DOP scene, `self.slot`).
    pub(super) const KDOP: u64 = std::mem::size_of::<Kdop<H>>() as u64;

    /// Most poses one batch may hold: the key space of the lazy table and, for dense
    /// tumbling, the binding limit and the memory budget for `poses · n_fly` k-DOPs.
    pub(super) fn pose_limit(&self, dense: bool) -> usize {
        let n_fly = self.n_fly.max(1) as u64;
        let keys = (u32::MAX as u64 - 1) / n_fly;
        let mut most = keys;
        if dense {
            let per_pose = n_fly * self.slot;
            most = most
                .min(self.max_buffer_bytes / per_pose)
                .min(self.batch_memory / per_pose);
        }
        most.max(1) as usize
    }

    /// Poses and capacities of the next batch of at most `left` poses. The first batch of
    /// a scene is a small probe with default capacities (its lazy table sized for up to
    /// 4096 tumbled nodes per pose); later ones are sized from the largest per-pose needs
    /// seen, with [`HEADROOM`], the lazy table kept at most [`TABLE_LOAD`] full.
    pub(super) fn plan(&self, left: usize, dense: bool) -> (usize, Capacities) {
        let limit = self.pose_limit(dense);
        let Some(r) = self.per_pose else {
            let p = left.min(FIRST_BATCH).min(limit);
            let table = (2 * p as u64 * (self.n_fly as u64).min(4096)).next_power_of_two();
            let caps = Capacities {
                tumbled: self.capacities.tumbled.max(table.min(1 << 30) as u32),
                ..self.capacities
            };
            return (p, caps.clamped(self.max_buffer_bytes, self.slot));
        };
        let frame = std::mem::size_of::<PoseFrame<H>>() as f64;
        // Slots per pose of the lazy table (before rounding to a power of two). The nodes
        // tumbled per batch vary little (a sum over many poses): a smaller headroom.
        let slots = TABLE_HEADROOM * r.tumbled / TABLE_LOAD;
        let tumbled_bytes = if dense {
            self.n_fly as f64 * self.slot as f64
        } else {
            2.0 * slots * (self.slot + 4) as f64
        };
        let per_pose = HEADROOM * PAIR as f64 * (2.0 * r.front + r.leaf + r.contact + r.unsure)
            + tumbled_bytes
            + frame
            + 28.0;
        let by_memory = (self.batch_memory as f64 / per_pose) as usize;
        let largest = |rate: f64, bytes: f64| {
            if rate > 0.0 {
                (self.max_buffer_bytes as f64 / (rate * bytes)) as usize
            } else {
                usize::MAX
            }
        };
        // The table's power of two must fit one binding.
        let max_slots = 1u64 << (self.max_buffer_bytes / self.slot).max(1).ilog2();
        let by_table = if dense || slots <= 0.0 {
            usize::MAX
        } else {
            (max_slots as f64 / slots) as usize
        };
        let by_binding = [
            largest(HEADROOM * r.front, PAIR as f64),
            largest(HEADROOM * r.leaf, PAIR as f64),
            largest(HEADROOM * r.contact, PAIR as f64),
            largest(HEADROOM * r.unsure, PAIR as f64),
            by_table,
        ]
        .into_iter()
        .min()
        .unwrap_or(usize::MAX);
        // At most four times the poses of the last batch: needs vary along a pose sequence,
        // and a batch sized from too few poses would overflow and run again.
        let mut p = by_memory
            .min(by_binding)
            .min(limit)
            .min(4 * self.last_poses.max(1))
            .max(1);
        if p > POSE_CHUNK {
            p -= p % POSE_CHUNK;
        }
        let p = p.min(left);
        let cap = |rate: f64| (HEADROOM * rate * p as f64).ceil().min(u32::MAX as f64) as u32;
        let caps = Capacities {
            front: cap(r.front).max(2 * p as u32).max(64),
            leaf: cap(r.leaf).max(64),
            contact: cap(r.contact).max(64),
            unsure: cap(r.unsure).max(64),
            tumbled: ((slots * p as f64).ceil() as u64)
                .clamp(64, max_slots)
                .next_power_of_two() as u32,
        };
        (p, caps)
    }

    /// Records what a batch of `p` poses needed (per pose, the largest seen).
    pub(super) fn learn(&mut self, p: usize, c: &GpuCounters) {
        let p = p.max(1) as f64;
        let seen = PerPose {
            front: c.max_front as f64 / p,
            leaf: c.max_leaf as f64 / p,
            contact: c.n_contact as f64 / p,
            unsure: c.n_unsure as f64 / p,
            tumbled: c.n_tumbled as f64 / p,
        };
        self.per_pose = Some(match self.per_pose {
            None => seen,
            Some(r) => PerPose {
                front: r.front.max(seen.front),
                leaf: r.leaf.max(seen.leaf),
                contact: r.contact.max(seen.contact),
                unsure: r.unsure.max(seen.unsure),
                tumbled: r.tumbled.max(seen.tumbled),
            },
        });
    }

    /// The largest buffer of these capacities (bytes).
    pub(super) fn largest_buffer(&self, c: &Capacities) -> u64 {
        let table = c.tumbled.next_power_of_two() as u64 * self.slot;
        [c.front, c.leaf, c.contact, c.unsure]
            .iter()
            .map(|&n| n as u64 * PAIR)
            .fold(table, u64::max)
    }

    /// Whether buffers of these capacities stay within [`GpuScene::max_buffer_bytes`].
    pub(super) fn fits(&self, c: &Capacities) -> bool {
        self.largest_buffer(c) <= self.max_buffer_bytes
    }
}

impl Capacities {
    /// Each capacity cut to what fits in a buffer of `bytes`.
    pub(super) fn clamped(self, bytes: u64, kdop: u64) -> Capacities {
        let most = (bytes / PAIR).min(u32::MAX as u64) as u32;
        let table = (bytes / kdop).min(1 << 31) as u32;
        let table = if table.is_power_of_two() {
            table
        } else {
            (table.next_power_of_two() / 2).max(1)
        };
        Capacities {
            front: self.front.min(most),
            leaf: self.leaf.min(most),
            contact: self.contact.min(most),
            unsure: self.unsure.min(most),
            tumbled: self.tumbled.min(table),
        }
    }
}
