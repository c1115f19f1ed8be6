// One-invocation kernels between levels: dispatch sizes for the next kernel, written on the
// GPU (indirect dispatch), and the counter hand-over from one level to the next. After an
// overflow both size the next dispatches to nothing and change no counter: the batch stops
// where it ran out of room, with that level's input intact, and the host grows the buffers
// and resumes it there (gpu::collide::batch).

@group(0) @binding(0) var<storage, read_write> counters: Counters;
@group(0) @binding(1) var<storage, read_write> args: array<u32, 9>;
@group(0) @binding(2) var<storage, read_write> level_sizes: array<u32>;

fn groups(n: u32) -> vec2<u32> {
    let g = (n + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
    if (g <= DISPATCH_X) {
        return vec2<u32>(g, 1u);
    }
    return vec2<u32>(DISPATCH_X, (g + DISPATCH_X - 1u) / DISPATCH_X);
}

// After `expand`: size the triangle-test dispatch by this level's leaf pairs.
// CPU twin: src/gpu/mirror/front_prepare.rs::prepare_tri
@compute @workgroup_size(1)
fn prepare_tri() {
    if (atomicLoad(&counters.overflow) != 0u) {
        args[3] = 0u;
        return;
    }
    counters.contact_mark = atomicLoad(&counters.n_contact);
    counters.unsure_mark = atomicLoad(&counters.n_unsure);
    let n = min(atomicLoad(&counters.n_leaf), counters.cap_leaf);
    atomicMax(&counters.max_leaf, atomicLoad(&counters.n_leaf));
    let g = groups(n);
    args[3] = g.x;
    args[4] = g.y;
    args[5] = 1u;
}

// After the triangle tests: the output front becomes the next input; reset the appends.
// CPU twin: src/gpu/mirror/front_prepare.rs::prepare_next
@compute @workgroup_size(1)
fn prepare_next() {
    if (atomicLoad(&counters.overflow) != 0u) {
        args[0] = 0u;
        return;
    }
    counters.resumed = 0u;
    let produced = atomicLoad(&counters.n_out);
    atomicMax(&counters.max_front, produced);
    let level = counters.level;
    if (level < arrayLength(&level_sizes)) {
        level_sizes[level] = counters.n_in;
    }
    counters.level = level + 1u;
    let n = min(produced, counters.cap_front);
    counters.n_in = n;
    atomicStore(&counters.n_out, 0u);
    atomicStore(&counters.n_leaf, 0u);
    let g = groups(n);
    args[0] = g.x;
    args[1] = g.y;
    args[2] = 1u;
}

// After `tumble_front`: size the `tumble_fresh` dispatch by the keys it inserted and clear
// the append. Not frozen by an overflow: after a full table the nodes already inserted are
// tumbled before `rehash` moves them (a frozen level inserts nothing, so this is empty);
// but then the level's `expand` (`args[0..3]`) is sized to nothing, as its pairs without a
// slot cannot be tested (the host resumes the level).
// CPU twin: src/gpu/mirror/front_prepare.rs::prepare_tumble
@compute @workgroup_size(1)
fn prepare_tumble() {
    if ((atomicLoad(&counters.overflow) & OVERFLOW_TABLE) != 0u) {
        args[0] = 0u;
    }
    let n = atomicExchange(&counters.n_fresh, 0u);
    counters.fresh_in = n;
    let g = groups(n);
    args[6] = g.x;
    args[7] = g.y;
    args[8] = 1u;
}
