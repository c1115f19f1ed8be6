//! CPU twins of the entry points of `shaders/kdop_refit.wgsl` (the deforming refit, host side
//! [`crate::gpu::GpuRefit`]): one function per entry point doing what one dispatch does over
//! its whole grid, on the same buffer contents. Built from `kdop_of_corners` and
//! [`super::kdop::kdop_merge`], the primitives of [`crate::Bvh::refit`], so a refit by these
//! twins, the CPU refit and the GPU refit agree bit for bit.

use super::kdop::kdop_merge;
use crate::bv::KdopNode;
use crate::bv::slab::kdop_of_corners;
use crate::gpu::layout::RefitRange;

/// `refit_leaves` of `shaders/kdop_refit.wgsl`: every leaf `node_list[range.start..]
/// [..range.count]` gets the k-DOP of its triangles' corners (`positions` at the vertex
/// indices `tri_verts`, three per reordered triangle). WGSL seeds the bounds with the first
/// corner instead of ±∞; min and max are exact, so the bits are the same.
pub fn refit_leaves<const H: usize>(
    nodes: &mut [KdopNode<H>],
    positions: &[[f32; 3]],
    tri_verts: &[u32],
    node_list: &[u32],
    range: &RefitRange,
) {
    let mut corners = Vec::new();
    for &n in &node_list[range.start as usize..][..range.count as usize] {
        let node = &mut nodes[n as usize];
        let (first, count) = (node.first as usize, node.count as usize);
        corners.clear();
        corners.extend(
            tri_verts[3 * first..3 * (first + count)]
                .chunks_exact(3)
                .map(|t| [0, 1, 2].map(|c| positions[t[c] as usize])),
        );
        node.bv = kdop_of_corners(&corners);
    }
}

/// `refit_internal` of `shaders/kdop_refit.wgsl`: every internal node of the slice becomes
/// the union of its two children (finished by an earlier dispatch).
pub fn refit_internal<const H: usize>(
    nodes: &mut [KdopNode<H>],
    node_list: &[u32],
    range: &RefitRange,
) {
    for &n in &node_list[range.start as usize..][..range.count as usize] {
        let c = nodes[n as usize].first as usize;
        nodes[n as usize].bv = kdop_merge(&nodes[c].bv, &nodes[c + 1].bv);
    }
}
