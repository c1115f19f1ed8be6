// Shared structs of the batch pipeline. Rust twins (layout tests in src/gpu/layout.rs):
// FrontPair ↔ gpu::layout::FrontPair, Counters ↔ gpu::layout::GpuCounters,
// PoseFrame ↔ tumble::PoseFrame (src/tumble.rs); re-exported in src/gpu/mirror/front.rs.

// A pair of node (or triangle position) indices of one pose, and where B's tumbled k-DOP
// of this pose is: its index in `tumbled` (NO_SLOT until `tumble_front` has placed it).
struct FrontPair {
    pose: u32,
    a: u32,
    b: u32,
    slot: u32,
}

// `FrontPair::slot` of a pair whose B node has no tumbled k-DOP yet (lazy tumbling).
const NO_SLOT: u32 = 0xffffffffu;
// `FrontPair::slot` of an entry of the leaf and UNSURE lists that is no leaf pair but the
// first of two child pairs a budgeted pose could not afford to test (`budget_skips`), whose
// parent split A's node (UNRESOLVED_A) or B's (UNRESOLVED_B): the host bounds the parent.
const UNRESOLVED_A: u32 = 0xfffffffeu;
const UNRESOLVED_B: u32 = 0xfffffffdu;

struct Counters {
    n_in: u32,
    n_out: atomic<u32>,
    n_leaf: atomic<u32>,
    n_contact: atomic<u32>,
    n_unsure: atomic<u32>,
    overflow: atomic<u32>,
    cap_front: u32,
    cap_leaf: u32,
    cap_contact: u32,
    cap_unsure: u32,
    max_front: atomic<u32>,
    max_leaf: atomic<u32>,
    level: u32,
    n_fly: u32,
    mode_first: u32,
    dual_flags: u32,
    descent_larger: u32,
    lazy: u32,
    hash_mask: u32,
    n_tumbled: atomic<u32>,
    resumed: u32,
    contact_mark: u32,
    unsure_mark: u32,
    n_fresh: atomic<u32>,
    fresh_in: u32,
    groups_done: atomic<u32>,
    frozen: u32,
    leaf_mark: u32,
    // 1: a tolerance query (kdop_within with `margins`, every triangle pair to UNSURE).
    within: u32,
    // 1: a budget of node tests per pose (`budget_state`, `budget_level`); 0: none.
    budgeted: u32,
    // The node tests a pose may spend after its root pair's (levels below the first).
    budget: u32,
    // Poses of the batch (the entries of `budget_state` the hand-over reads).
    n_poses: u32,
    // The f32 slab margins as bits (proximity::slab_margins_f32), MAX_SLABS of them.
    margins: array<u32, 13>,
}

// `Counters::resumed`: this level's node tests (bit 1) or triangle tests (bit 2) were
// counted before an overflow; the host resumed the batch at this level (see
// gpu::collide::batch), so the repeated kernel must not count them again.
const RESUMED_EXPAND: u32 = 1u;
const RESUMED_TRI: u32 = 2u;
// `Counters::overflow` bit of a full lazy tumbling table (set by `tumble_front`).
const OVERFLOW_TABLE: u32 = 16u;
// `Counters::overflow` bit of a full table met by an expansion's claim (with
// OVERFLOW_TABLE): the level's node tests were counted before it froze.
const OVERFLOW_CLAIM: u32 = 32u;

struct PoseFrame {
    r: array<f32, 9>,
    t: array<f32, 3>,
    t_err: f32,
    dir: array<f32, H * 3u>,
    off_lo: array<f32, H>,
    off_hi: array<f32, H>,
    root: Kdop,
    eps_w: f32,
    eps_t2: f32,
}

// The 2-D grid of workgroups for `n` invocations, at least one workgroup: every kernel that
// hands over to the next dispatch (`hand_over` of front_expand.wgsl) must run, even on an
// empty level.
// CPU twin: src/gpu/mirror/front.rs::groups
fn groups(n: u32) -> vec2<u32> {
    let g = max((n + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE, 1u);
    if (g <= DISPATCH_X) {
        return vec2<u32>(g, 1u);
    }
    return vec2<u32>(DISPATCH_X, (g + DISPATCH_X - 1u) / DISPATCH_X);
}

// Index of this invocation in a 2-D dispatch of at most DISPATCH_X groups per row.
// CPU twin: src/gpu/mirror/front.rs::linear_index
fn linear_index(gid: vec3<u32>) -> u32 {
    return gid.y * (DISPATCH_X * WORKGROUP_SIZE) + gid.x;
}

// The lazy tables of B's volumes per (pose, node) (the tumbled k-DOPs of `tumble_front`,
// the posed boxes and spheres of `expand_obb` and `expand_sphere`): open addressing with
// linear probing, keyed by `pose · n_fly + node + 1` (0 = empty).

// Probes before a key gives up and the batch runs again with a larger table: a full table
// must not cost a pass over it per pair.
const MAX_PROBES: u32 = 256u;

// A 32-bit mixer (the finalizer of MurmurHash3): the table index of a key.
// CPU twin: src/gpu/mirror/front.rs::hash_slot
fn hash_slot(key: u32, mask: u32) -> u32 {
    var x = key;
    x = x ^ (x >> 16u);
    x = x * 0x85ebca6bu;
    x = x ^ (x >> 13u);
    x = x * 0xc2b2ae35u;
    x = x ^ (x >> 16u);
    return x & mask;
}
