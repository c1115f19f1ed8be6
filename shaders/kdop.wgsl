// Shared k-DOP pieces. Rust twins: meshcollide::bv::{Kdop, KdopNode} (layout test in
// src/gpu/layout.rs). H and AXES come from the generated preamble.

struct Kdop {
    min: array<f32, H>,
    max: array<f32, H>,
}

struct KdopNode {
    bv: Kdop,
    first: u32,
    count: u32,
}

// Twin of Kdop::overlaps: disjoint if one closed interval is disjoint, in slab order.
fn kdop_overlaps(a: Kdop, b: Kdop) -> bool {
    for (var i = 0u; i < H; i = i + 1u) {
        if (a.min[i] > b.max[i] || b.min[i] > a.max[i]) {
            return false;
        }
    }
    return true;
}
