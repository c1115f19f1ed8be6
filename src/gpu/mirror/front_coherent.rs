//! CPU twins of the entry points of `shaders/front_coherent.wgsl`: the device hand-over of
//! temporal coherence's fronts from one step to the next (`gpu::collide::coherent`).

use crate::gpu::layout::{FrontPair, HandOver, HandOverParams, LaneRecord, NO_LANE, NO_SLOT};

/// `record_counts` of `shaders/front_coherent.wgsl`: per lane (the pairs' `pose`), the pairs
/// of `front_record[..n_record]` and whether one holds B's root (`b == 0`).
pub fn record_counts(
    front_record: &[FrontPair],
    params: &HandOverParams,
    lanes: &mut [LaneRecord],
) {
    for q in &front_record[..params.n_record as usize] {
        let lane = &mut lanes[q.pose as usize];
        lane.pairs = lane.pairs.wrapping_add(1);
        if q.b == 0 {
            lane.root |= 1;
        }
    }
}

/// `gather_seeds` of `shaders/front_coherent.wgsl`: each recorded pair to
/// `seeds[offset + k]` of its lane's [`HandOver`] (`k` from the lane's `cursor`; none for
/// [`NO_LANE`]), as `(lane, a, b, slot)`, then one root pair `(lane, 0, 0)` per root entry
/// (`hand[n_src..][..n_roots]`). The slot is `lane · n_fly + b` when dense, else
/// [`NO_SLOT`]. Pairs land in index order here, in the device's order there.
pub fn gather_seeds(
    front_record: &[FrontPair],
    params: &HandOverParams,
    hand: &[HandOver],
    cursor: &mut [u32],
    seeds: &mut [FrontPair],
) {
    let slot = |lane: u32, b: u32| {
        if params.dense != 0 {
            lane.wrapping_mul(params.n_fly).wrapping_add(b)
        } else {
            NO_SLOT
        }
    };
    for q in &front_record[..params.n_record as usize] {
        let h = hand[q.pose as usize];
        if h.lane == NO_LANE {
            continue;
        }
        let k = cursor[h.lane as usize];
        cursor[h.lane as usize] = k.wrapping_add(1);
        seeds[(h.offset + k) as usize] = FrontPair {
            pose: h.lane,
            a: q.a,
            b: q.b,
            slot: slot(h.lane, q.b),
        };
    }
    let roots = params.n_src as usize..(params.n_src + params.n_roots) as usize;
    for h in &hand[roots] {
        seeds[h.offset as usize] = FrontPair {
            pose: h.lane,
            a: 0,
            b: 0,
            slot: slot(h.lane, 0),
        };
    }
}
