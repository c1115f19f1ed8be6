// Shared k-DOP pieces. Rust twins: the structs meshcollide::bv::{Kdop, KdopNode} (layout test
// in src/gpu/layout.rs), the functions in src/bv/kdop.rs and src/bv/slab.rs, found by their
// WGSL names in src/gpu/mirror/kdop.rs. H and AXES come from the generated preamble.

struct Kdop {
    min: array<f32, H>,
    max: array<f32, H>,
}

struct KdopNode {
    bv: Kdop,
    first: u32,
    count: u32,
}

// Twin of bv::Kdop::merge: the slab-wise union (exact: min and max only).
// CPU twin: src/gpu/mirror/kdop.rs::kdop_merge
fn kdop_merge(a: Kdop, b: Kdop) -> Kdop {
    var k: Kdop;
    for (var i = 0u; i < H; i = i + 1u) {
        k.min[i] = min(a.min[i], b.min[i]);
        k.max[i] = max(a.max[i], b.max[i]);
    }
    return k;
}

// Twin of bv::Kdop::overlaps: disjoint if one closed interval is disjoint. Every slab is
// tested, without an early exit: a loop that may leave early is neither unrolled nor kept
// in registers by lavapipe, and costs it 1.4× the whole expansion; a GPU pays a few
// comparisons. The answer is the same, in any order.
// CPU twin: src/gpu/mirror/kdop.rs::kdop_overlaps
fn kdop_overlaps(a: Kdop, b: Kdop) -> bool {
    var overlap = true;
    for (var i = 0u; i < H; i = i + 1u) {
        overlap = overlap & !(a.min[i] > b.max[i]) & !(b.min[i] > a.max[i]);
    }
    return overlap;
}

// Twin of proximity::kdops_within (see there for the proof, and for why the device decides
// as the CPU does): the slabs grown by the f32 margins `m` (each a normal f32 ≥ 2^-126, or
// +inf), a slab rejecting when fl(a.min - b.max) > m or fl(b.min - a.max) > m. Every slab is
// tested, without an early exit (as kdop_overlaps).
// CPU twin: src/gpu/mirror/kdop.rs::kdop_within
fn kdop_within(a: Kdop, b: Kdop, m: array<f32, H>) -> bool {
    var within = true;
    for (var i = 0u; i < H; i = i + 1u) {
        within = within & !(a.min[i] - b.max[i] > m[i]) & !(b.min[i] - a.max[i] > m[i]);
    }
    return within;
}

// Twin of tumble::kdop_gap_prunes (see there for the proof): a per-pose tolerance's gaps
// along x, y and z combined, `w` the widening of B's slabs and `t2` the threshold of the sum
// of squares (+inf prunes nothing).
// CPU twin: src/gpu/mirror/kdop.rs::kdop_gap_prunes
fn kdop_gap_prunes(a: Kdop, b: Kdop, w: f32, t2: f32) -> bool {
    var s = 0.0;
    for (var i = 0u; i < 3u; i = i + 1u) {
        let y = max(b.min[i] - a.max[i], a.min[i] - b.max[i]);
        let z = max(y + w, 0.0);
        s = s + z * z;
    }
    return s > t2;
}

// Twin of bv::Kdop::size: the sum of the slab widths, slab by slab from 0 (the size the
// descent rule Descent::Larger compares; additions only, in the CPU's order).
// CPU twin: src/gpu/mirror/kdop.rs::kdop_size
fn kdop_size(k: Kdop) -> f32 {
    var s = 0.0;
    for (var i = 0u; i < H; i = i + 1u) {
        s = s + (k.max[i] - k.min[i]);
    }
    return s;
}

// The slab-bound formula of bv::slab (deforming refit, exact rigid tumbling).
const F32_MIN_POSITIVE: f32 = 1.1754943508222875e-38; // 2^-126
const F32_MAX: f32 = 3.4028234663852886e38;
const SLAB_REL_MARGIN: f32 = 4.76837158203125e-7; // 2^-21
const SLAB_ABS_MARGIN: f32 = 7.888609052210118e-31; // 2^-100

// Twin of bv::slab::ftz: subnormals and -0 become +0, whatever the device's float mode.
// CPU twin: src/gpu/mirror/kdop.rs::ftz
fn ftz(x: f32) -> f32 {
    return select(x, 0.0, abs(x) < F32_MIN_POSITIVE);
}

// Twin of bv::slab::slab_bounds_f32 (see there for why [lo, hi] contains axis · p).
// CPU twin: src/gpu/mirror/kdop.rs::slab_bounds
fn slab_bounds(axis: vec3<f32>, p: vec3<f32>) -> vec2<f32> {
    let s = axis * 0.25;
    let x = ftz(p.x * s.x);
    let y = ftz(p.y * s.y);
    let z = ftz(p.z * s.z);
    let v = ftz(ftz(x + y) + z);
    let m = ftz(ftz(abs(x) + abs(y)) + abs(z));
    let d = max(m * SLAB_REL_MARGIN, SLAB_ABS_MARGIN);
    let lo = min(ftz(v - d) * 4.0, F32_MAX);
    let hi = max(ftz(v + d) * 4.0, -F32_MAX);
    return vec2<f32>(lo, hi);
}

