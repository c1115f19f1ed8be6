// Bottom-up refit of a k-DOP hierarchy to deformed vertices ("BVHs for Deformable Objects"
// in the University of Freiburg's lecture slides *Collision Detection*). Rust twins: per
// entry point src/gpu/mirror/kdop_refit.rs, built from
// meshcollide::bv::slab::{slab_bounds_f32, kdop_of_corners} like Bvh::refit
// (src/bvh/refit.rs; bit-identical by construction: same operations in the same order,
// merges by exact min/max); host side meshcollide::gpu::refit.
//
// Bindings (the table REFIT_LEAVES_BINDINGS / REFIT_INTERNAL_BINDINGS in src/gpu/refit.rs):
//   0 nodes       the hierarchy, same bytes as Bvh::nodes (only `bv` is written)
//   1 positions   3 f32 per vertex (flat: a vec3 array would be padded to 16 bytes)
//   2 tri_verts   3 vertex indices per reordered triangle position
//   3 node_list   the leaves, then the internal nodes level by level, deepest first
//   4 range       the slice of node_list of this dispatch (dynamic uniform offset)

struct RefitRange {
    start: u32,
    count: u32,
    pad0: u32,
    pad1: u32,
}

@group(0) @binding(0) var<storage, read_write> nodes: array<KdopNode>;
@group(0) @binding(1) var<storage, read> positions: array<f32>;
@group(0) @binding(2) var<storage, read> tri_verts: array<u32>;
@group(0) @binding(3) var<storage, read> node_list: array<u32>;
@group(0) @binding(4) var<uniform> range: RefitRange;

// ftz, slab_bounds and their constants live in shared/kdop.wgsl (shared with kdop_tumble.wgsl).

// 1-D index over a possibly 2-D grid (more than max_compute_workgroups_per_dimension groups).
fn thread_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WORKGROUP_SIZE;
}

fn vertex(v: u32) -> vec3<f32> {
    return vec3<f32>(positions[3u * v], positions[3u * v + 1u], positions[3u * v + 2u]);
}

// One thread per leaf: per slab, min of lo and max of hi over its triangles' corners.
// CPU twin: src/gpu/mirror/kdop_refit.rs::refit_leaves
@compute @workgroup_size(WORKGROUP_SIZE)
fn refit_leaves(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let t = thread_index(gid, nwg);
    if (t >= range.count) {
        return;
    }
    let n = node_list[range.start + t];
    let first = nodes[n].first;
    let count = nodes[n].count;
    var bv: Kdop;
    // The first corner initialises the bounds (no infinities: a leaf has count > 0).
    let p0 = vertex(tri_verts[3u * first]);
    for (var i = 0u; i < H; i = i + 1u) {
        let b = slab_bounds(AXES[i], p0);
        bv.min[i] = b.x;
        bv.max[i] = b.y;
    }
    for (var c = 3u * first; c < 3u * (first + count); c = c + 1u) {
        let p = vertex(tri_verts[c]);
        for (var i = 0u; i < H; i = i + 1u) {
            let b = slab_bounds(AXES[i], p);
            bv.min[i] = min(bv.min[i], b.x);
            bv.max[i] = max(bv.max[i], b.y);
        }
    }
    nodes[n].bv = bv;
}

// One thread per internal node of one level: the slab-wise union of its two children, which
// the previous dispatch (leaves or the level below) has finished.
// CPU twin: src/gpu/mirror/kdop_refit.rs::refit_internal
@compute @workgroup_size(WORKGROUP_SIZE)
fn refit_internal(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let t = thread_index(gid, nwg);
    if (t >= range.count) {
        return;
    }
    let n = node_list[range.start + t];
    let c = nodes[n].first;
    nodes[n].bv = kdop_merge(nodes[c].bv, nodes[c + 1u].bv);
}
