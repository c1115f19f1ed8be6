// The one-invocation kernel of lazy tumbling's first level (and of a level resumed after a
// full table): the size of the `tumble_fresh` dispatch, written on the GPU (indirect
// dispatch). Every later level's hand-over is done by the last workgroup of its expansion
// (`hand_over` of front_expand.wgsl).

@group(0) @binding(0) var<storage, read_write> counters: Counters;
@group(0) @binding(1) var<storage, read_write> args: array<u32, 3>;

// After `tumble_front`: size the `tumble_fresh` dispatch by the keys it inserted and clear
// the append. Not frozen by an overflow: after a full table the nodes already inserted are
// tumbled before `rehash` moves them (a frozen level inserts nothing, so this is empty);
// but then the level's `expand` is frozen, as its pairs without a slot cannot be tested
// (the host resumes the level).
// CPU twin: src/gpu/mirror/front_prepare.rs::prepare_tumble
@compute @workgroup_size(1)
fn prepare_tumble() {
    if ((atomicLoad(&counters.overflow) & OVERFLOW_TABLE) != 0u) {
        counters.frozen = 1u;
    }
    let n = atomicExchange(&counters.n_fresh, 0u);
    counters.fresh_in = n;
    let g = groups(n);
    args = array<u32, 3>(g.x, g.y, 1u);
}
