//! CPU twins of the entry points of `shaders/kdop_tumble.wgsl` (B's k-DOPs at every pose of
//! a batch): one function per entry point doing what one dispatch does over its whole grid,
//! on the same buffer contents (`tumbled[pose · n_fly + node]`). Built from
//! [`crate::tumble::tumble_points`] and [`crate::tumble::posed_kdop`], the formulas of the
//! CPU traversal, so the GPU, these twins and the traversal agree bit for bit.

use super::kdop::kdop_merge;
use crate::bv::{Kdop, KdopNode};
use crate::bvh::Bvh;
use crate::gpu::layout::{SliceParams, TumbleParams};
use crate::tumble::{PoseFrame, posed_kdop, tumble_points};

/// `tumble` of `shaders/kdop_tumble.wgsl` (the approximation method): for every (pose,
/// node), the root's k-DOP from the pose frame, every other node's from its bounding points
/// `points[offsets[node]..offsets[node + 1]]` ([`tumble_points`]).
pub fn tumble<const H: usize>(
    frames: &[PoseFrame<H>],
    offsets: &[u32],
    points: &[[f32; 3]],
    tumbled: &mut [Kdop<H>],
    params: &TumbleParams,
) {
    let n_fly = params.n_fly as usize;
    let grid = n_fly * params.n_poses as usize;
    for (i, out) in tumbled[..grid].iter_mut().enumerate() {
        let (pose, node) = (i / n_fly, i % n_fly);
        *out = if node == 0 {
            frames[pose].root
        } else {
            let pts = &points[offsets[node] as usize..offsets[node + 1] as usize];
            tumble_points(&frames[pose], pts)
        };
    }
}

/// `tumble_exact_leaves` of `shaders/kdop_tumble.wgsl` (exact method): for every pose and
/// every leaf of the slice, the k-DOP of its posed triangles ([`posed_kdop`]; `fly_tris`
/// holds B's local f32 corners, nine floats per reordered triangle).
pub fn tumble_exact_leaves<const H: usize>(
    frames: &[PoseFrame<H>],
    tumbled: &mut [Kdop<H>],
    fly_nodes: &[KdopNode<H>],
    fly_tris: &[[[f32; 3]; 3]],
    node_list: &[u32],
    slice: &SliceParams,
) {
    let count = slice.count as usize;
    for i in 0..count * slice.n_poses as usize {
        let pose = i / count;
        let node = node_list[slice.start as usize + i % count] as usize;
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
    node_list: &[u32],
    slice: &SliceParams,
) {
    let count = slice.count as usize;
    for i in 0..count * slice.n_poses as usize {
        let pose = i / count;
        let node = node_list[slice.start as usize + i % count] as usize;
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
