//! CPU twins of the entry points of `shaders/kdop_tumble.wgsl` (B's k-DOPs at every pose of
//! a batch): one function per entry point doing what one dispatch does over its whole grid,
//! on the same buffer contents (dense: `tumbled[pose · n_fly + node]`; lazy: the hash table of
//! [`tumble_front`]). Built from
//! [`crate::tumble::tumble_points`] and [`crate::tumble::posed_kdop`], the formulas of the
//! CPU traversal, so the GPU, these twins and the traversal agree bit for bit.

use super::front::{MAX_PROBES, claim_key, hash_slot};
use super::kdop::kdop_merge;
use crate::bv::{Kdop, KdopNode};
use crate::bvh::Bvh;
use crate::gpu::layout::{FrontPair, GpuCounters, NO_SLOT, OVERFLOW_TABLE, SliceParams};
use crate::tumble::{PoseFrame, posed_kdop, tumble_points};

/// `tumble_exact_leaves` of `shaders/kdop_tumble.wgsl` (exact method): for every pose and
/// every leaf of the slice, the k-DOP of its posed triangles ([`posed_kdop`]; `fly_tris`
/// holds B's local f32 corners, nine floats per reordered triangle).
pub fn tumble_exact_leaves<const H: usize>(
    frames: &[PoseFrame<H>],
    tumbled: &mut [Kdop<H>],
    fly_nodes: &[KdopNode<H>],
    fly_tris: &[[[f32; 3]; 3]],
    fly_node_list: &[u32],
    slice: &SliceParams,
) {
    let count = slice.count as usize;
    for i in 0..count * slice.n_poses as usize {
        let pose = i / count;
        let node = fly_node_list[slice.start as usize + i % count] as usize;
        let n = &fly_nodes[node];
        let tris = &fly_tris[n.first as usize..(n.first + n.count) as usize];
        tumbled[pose * slice.n_fly as usize + node] = posed_kdop(&frames[pose], tris);
    }
}

/// `tumble_exact_merge` of `shaders/kdop_tumble.wgsl`: for every pose and every internal
/// node of the slice, the union of its children's tumbled k-DOPs (an earlier dispatch).
pub fn tumble_exact_merge<const H: usize>(
    tumbled: &mut [Kdop<H>],
    fly_nodes: &[KdopNode<H>],
    fly_node_list: &[u32],
    slice: &SliceParams,
) {
    let count = slice.count as usize;
    for i in 0..count * slice.n_poses as usize {
        let pose = i / count;
        let node = fly_node_list[slice.start as usize + i % count] as usize;
        let c = fly_nodes[node].first as usize;
        let base = pose * slice.n_fly as usize;
        tumbled[base + node] = kdop_merge(&tumbled[base + c], &tumbled[base + c + 1]);
    }
}

/// The exact method's dispatch order, as `gpu::collide` uploads it: `node_list` holds the
/// leaves, then the internal nodes level by level, deepest first; the `(start, count)`
/// slices are the leaves' (for [`tumble_exact_leaves`]), then each internal level's (for
/// [`tumble_exact_merge`]).
pub fn exact_dispatch_order<const H: usize>(bvh: &Bvh<H>) -> (Vec<u32>, Vec<(u32, u32)>) {
    let levels = bvh.levels();
    let is_leaf = |i: &&u32| bvh.nodes[**i as usize].is_leaf();
    let mut node_list: Vec<u32> = levels.iter().flatten().filter(is_leaf).copied().collect();
    let mut slices = vec![(0, node_list.len() as u32)];
    for level in levels.iter().rev() {
        let start = node_list.len() as u32;
        node_list.extend(level.iter().filter(|i| !is_leaf(i)));
        if node_list.len() as u32 > start {
            slices.push((start, node_list.len() as u32 - start));
        }
    }
    (node_list, slices)
}

/// `tumble_front` of `shaders/kdop_tumble.wgsl`: every pair without a slot finds its key
/// `pose · n_fly + b + 1` in the table ([`claim_key`]: [`hash_slot`] and linear probing, at most
/// [`MAX_PROBES`] slots; a full table raises [`OVERFLOW_TABLE`] and leaves the pair without a slot),
/// inserting it if absent: then the slot is appended to `fresh` (for [`tumble_fresh`]) and
/// the node counted in `nu` and `counters.n_tumbled`. Invocations run in index order, so
/// the slots may differ from the GPU's when keys collide; what each pair's slot holds is
/// the same. (One argument per WGSL binding, as in the other twins.)
pub fn tumble_front(
    front: &mut [FrontPair],
    counters: &mut GpuCounters,
    hash_keys: &mut [u32],
    nu: &mut [u32],
    fresh: &mut [u32],
) {
    if counters.frozen != 0 {
        return;
    }
    for p in &mut front[..counters.n_in as usize] {
        if p.slot != NO_SLOT {
            continue;
        }
        if let Some((slot, inserted)) = claim_key(counters, hash_keys, nu, p.pose, p.b) {
            p.slot = slot;
            if inserted {
                fresh[counters.n_fresh as usize] = slot;
                counters.n_fresh += 1;
            }
        }
    }
}

/// `tumble_fresh` of `shaders/kdop_tumble.wgsl`: the slots `fresh[..counters.fresh_in]`
/// get their node's k-DOP for their pose, both read from the slot's key: the root's from
/// the frame (the host's exact one), any other node's by [`tumble_points`].
pub fn tumble_fresh<const H: usize>(
    frames: &[PoseFrame<H>],
    fly_offsets: &[u32],
    fly_points: &[[f32; 3]],
    tumbled: &mut [Kdop<H>],
    counters: &GpuCounters,
    hash_keys: &[u32],
    fresh: &[u32],
) {
    for &h in &fresh[..counters.fresh_in as usize] {
        let key = hash_keys[h as usize].wrapping_sub(1);
        let (pose, node) = (
            (key / counters.n_fly) as usize,
            (key % counters.n_fly) as usize,
        );
        tumbled[h as usize] = if node == 0 {
            frames[pose].root
        } else {
            tumble_points(
                &frames[pose],
                &fly_points[fly_offsets[node] as usize..fly_offsets[node + 1] as usize],
            )
        };
    }
}

/// `rehash` of `shaders/kdop_tumble.wgsl`: every key of the old table moves, with its
/// k-DOP, into the new one (`hash_keys`, `tumbled`, `counters.hash_mask`), by the probing of
/// [`tumble_front`].
pub fn rehash<const H: usize>(
    tumbled: &mut [Kdop<H>],
    counters: &mut GpuCounters,
    hash_keys: &mut [u32],
    old_keys: &[u32],
    old_tumbled: &[Kdop<H>],
) {
    let mask = counters.hash_mask;
    'key: for (i, &key) in old_keys.iter().enumerate() {
        if key == 0 {
            continue;
        }
        let mut h = hash_slot(key, mask);
        for _ in 0..MAX_PROBES.min(mask + 1) {
            if hash_keys[h as usize] == 0 {
                hash_keys[h as usize] = key;
                tumbled[h as usize] = old_tumbled[i];
                continue 'key;
            }
            h = (h + 1) & mask;
        }
        counters.overflow |= OVERFLOW_TABLE;
    }
}

/// `reslot` of `shaders/kdop_tumble.wgsl`: every pair of `front[..counters.n_in]` with a
/// slot takes its key's slot in the new table.
pub fn reslot(front: &mut [FrontPair], counters: &mut GpuCounters, hash_keys: &[u32]) {
    let mask = counters.hash_mask;
    'pair: for p in &mut front[..counters.n_in as usize] {
        if p.slot == NO_SLOT {
            continue;
        }
        let key = p.pose.wrapping_mul(counters.n_fly).wrapping_add(p.b + 1);
        let mut h = hash_slot(key, mask);
        for _ in 0..MAX_PROBES.min(mask + 1) {
            if hash_keys[h as usize] == key {
                p.slot = h;
                continue 'pair;
            }
            h = (h + 1) & mask;
        }
        counters.overflow |= OVERFLOW_TABLE;
    }
}
