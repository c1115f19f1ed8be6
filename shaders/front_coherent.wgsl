// Temporal coherence (gpu::collide::coherent): the hand-over of the fronts one step
// recorded (`expand_record`, shaders/front_expand.wgsl) to the next step's seeds, on the
// device, so the fronts never travel to the host. `record_counts` counts each lane's
// recorded pairs (the host reads back these few words and lays the next step's seeds
// out); `gather_seeds` copies each pair to its lane's place in the seed buffer. Rust twins
// of the structs: gpu::layout::{LaneRecord, HandOver, HandOverParams}.

// Per lane of the recorded step: its pairs, and 1 when one of them holds B's root (b = 0).
struct LaneRecord {
    pairs: atomic<u32>,
    root: atomic<u32>,
}

// Where a lane's pairs go: the next step's lane (NO_LANE: nowhere) and the index of its
// first seed.
struct HandOver {
    lane: u32,
    offset: u32,
}

// `n_record` pairs recorded; `hand` holds `n_src` entries per recorded lane, then `n_roots`
// entries of next lanes that start from the roots. `dense`: exact tumbling (B's k-DOP at
// `lane · n_fly + b`), else lazy (NO_SLOT, placed by `tumble_front`).
struct HandOverParams {
    n_record: u32,
    n_src: u32,
    n_roots: u32,
    n_fly: u32,
    dense: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

const NO_LANE: u32 = 0xffffffffu;

@group(0) @binding(0) var<storage, read> front_record: array<FrontPair>;
@group(0) @binding(1) var<storage, read> params: HandOverParams;
@group(0) @binding(2) var<storage, read_write> lanes: array<LaneRecord>;
@group(0) @binding(3) var<storage, read> hand: array<HandOver>;
@group(0) @binding(4) var<storage, read_write> cursor: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> seeds: array<FrontPair>;

// CPU twin: src/gpu/mirror/front_coherent.rs::record_counts
@compute @workgroup_size(WORKGROUP_SIZE)
fn record_counts(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= params.n_record) {
        return;
    }
    let q = front_record[i];
    atomicAdd(&lanes[q.pose].pairs, 1u);
    if (q.b == 0u) {
        atomicOr(&lanes[q.pose].root, 1u);
    }
}

// One invocation per recorded pair, then one per root lane. A lane's pairs land in the
// device's order (fronts are sets: nothing downstream depends on their order).
// CPU twin: src/gpu/mirror/front_coherent.rs::gather_seeds
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather_seeds(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    var h: HandOver;
    var a = 0u;
    var b = 0u;
    var k = 0u;
    if (i < params.n_record) {
        let q = front_record[i];
        h = hand[q.pose];
        if (h.lane == NO_LANE) {
            return;
        }
        a = q.a;
        b = q.b;
        k = atomicAdd(&cursor[h.lane], 1u);
    } else if (i - params.n_record < params.n_roots) {
        h = hand[params.n_src + i - params.n_record];
    } else {
        return;
    }
    let slot = select(NO_SLOT, h.lane * params.n_fly + b, params.dense != 0u);
    seeds[h.offset + k] = FrontPair(h.lane, a, b, slot);
}
