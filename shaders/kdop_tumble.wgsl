// Rigid tumbling of the flying hierarchy B into A's frame (Klosowski et al., "Efficient
// Collision Detection Using Bounding Volume Hierarchies of k-DOPs", 4.1): lazily by the
// approximation method (`tumble_front`, below), or densely by the exact refit. CPU twins:
// the entry points in src/gpu/mirror/kdop_tumble.rs, the formulas tumble::tumble_points and
// tumble::posed_kdop, bit for bit. Node 0 (the root) is the host's exact hill-climbed
// k-DOP from the pose frame.

@group(0) @binding(0) var<storage, read> frames: array<PoseFrame>;
@group(0) @binding(1) var<storage, read> fly_offsets: array<u32>;
@group(0) @binding(2) var<storage, read> fly_points: array<f32>;
@group(0) @binding(3) var<storage, read_write> tumbled: array<Kdop>;

// Twin of tumble::tumble_points (src/tumble.rs): each point is read once and projected on
// every axis (min and max do not depend on the order, so the result is the reference's).
fn tumble_points(pose: u32, node: u32) -> Kdop {
    let first = fly_offsets_at(node);
    let last = fly_offsets_at(node + 1u);
    var dir: array<f32, H * 3u>;
    var lo: array<f32, H>;
    var hi: array<f32, H>;
    for (var i = 0u; i < H; i = i + 1u) {
        dir[3u * i] = frames[pose].dir[3u * i];
        dir[3u * i + 1u] = frames[pose].dir[3u * i + 1u];
        dir[3u * i + 2u] = frames[pose].dir[3u * i + 2u];
        lo[i] = bitcast<f32>(0x7f800000u);
        hi[i] = -lo[i];
    }
    for (var j = first; j < last; j = j + 1u) {
        let x = fly_points_at(3u * j);
        let y = fly_points_at(3u * j + 1u);
        let z = fly_points_at(3u * j + 2u);
        for (var i = 0u; i < H; i = i + 1u) {
            let v = (dir[3u * i] * x + dir[3u * i + 1u] * y) + dir[3u * i + 2u] * z;
            lo[i] = min(lo[i], v);
            hi[i] = max(hi[i], v);
        }
    }
    var k: Kdop;
    for (var i = 0u; i < H; i = i + 1u) {
        k.min[i] = lo[i] + frames[pose].off_lo[i];
        k.max[i] = hi[i] + frames[pose].off_hi[i];
    }
    return k;
}

// Exact refit per pose (TumbleMethod::Exact): leaves from their posed corners, then internal
// nodes level by level, deepest first. CPU twins: the entry points in
// src/gpu/mirror/kdop_tumble.rs, built from tumble::posed_kdop like the traversal's
// TumbleWorkspace::refit_all, bit for bit.

struct SliceParams {
    start: u32,
    count: u32,
    n_poses: u32,
    n_fly: u32,
}

@group(0) @binding(5) var<storage, read> fly_nodes: array<KdopNode>;
@group(0) @binding(6) var<storage, read> fly_tris: array<f32>;
@group(0) @binding(7) var<storage, read> fly_node_list: array<u32>;
@group(0) @binding(8) var<uniform> slice: SliceParams;

fn fly_corner(t: u32, c: u32) -> vec3<f32> {
    let o = 9u * t + 3u * c;
    return vec3<f32>(fly_tris_at(o), fly_tris_at(o + 1u), fly_tris_at(o + 2u));
}

// Twin of tumble::posed_kdop (src/tumble.rs).
fn posed_kdop(pose: u32, first: u32, count: u32) -> Kdop {
    var k: Kdop;
    let inf = bitcast<f32>(0x7f800000u);
    for (var i = 0u; i < H; i = i + 1u) {
        k.min[i] = inf;
        k.max[i] = -inf;
    }
    let r = frames[pose].r;
    let t = vec3<f32>(frames[pose].t[0], frames[pose].t[1], frames[pose].t[2]);
    for (var tri = first; tri < first + count; tri = tri + 1u) {
        for (var c = 0u; c < 3u; c = c + 1u) {
            let p = fly_corner(tri, c);
            let q = transform_f32(r, t, p);
            let e = transform_error_bound(p, t, frames[pose].t_err);
            for (var i = 0u; i < H; i = i + 1u) {
                let a = AXES[i];
                let b = slab_bounds(a, q);
                let n1 = (abs(a.x) + abs(a.y)) + abs(a.z);
                let w = (e * n1) * 2.0;
                k.min[i] = min(k.min[i], b.x - w);
                k.max[i] = max(k.max[i], b.y + w);
            }
        }
    }
    return k;
}

// CPU twin: src/gpu/mirror/kdop_tumble.rs::tumble_exact_leaves
@compute @workgroup_size(WORKGROUP_SIZE)
fn tumble_exact_leaves(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= slice.count * slice.n_poses) {
        return;
    }
    let pose = i / slice.count;
    let node = fly_node_list_at(slice.start + i % slice.count);
    let n = fly_nodes_at(node);
    tumbled[pose * slice.n_fly + node] = posed_kdop(pose, n.first, n.count);
}

// CPU twin: src/gpu/mirror/kdop_tumble.rs::tumble_exact_merge
@compute @workgroup_size(WORKGROUP_SIZE)
fn tumble_exact_merge(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= slice.count * slice.n_poses) {
        return;
    }
    let pose = i / slice.count;
    let node = fly_node_list_at(slice.start + i % slice.count);
    let c = fly_nodes_at(node).first;
    let base = pose * slice.n_fly;
    tumbled[base + node] = kdop_merge(tumbled[base + c], tumbled[base + c + 1u]);
}

// Lazy tumbling (the approximation method): only the (pose, node) pairs the front reaches
// are tumbled, once each, like the CPU traversal's TumbleWorkspace::node_bv, so Nu equals
// the CPU's. `tumbled` is then an open-addressing hash table of `hash_mask + 1` slots keyed
// by `pose · n_fly + node + 1` (0 = empty; the host clears the keys per batch and keeps
// `n_poses · n_fly < 2^32 - 1`). For every front pair without a slot, `tumble_front` finds
// or inserts its key and gives the pair the key's slot; the invocation that inserted a key
// appends the slot to `fresh`. `tumble_fresh` then tumbles the listed nodes into their
// slots, one node per invocation: in `tumble_front` a node would keep a whole SIMD group
// busy for the one lane in eight that inserted (lavapipe runs a branch under a mask; a GPU
// idles the warp the same way). The k-DOPs are read by `expand` in a later dispatch.

@group(0) @binding(9) var<storage, read_write> front: array<FrontPair>;
@group(0) @binding(10) var<storage, read_write> counters: Counters;
@group(0) @binding(11) var<storage, read_write> hash_keys: array<atomic<u32>>;
@group(0) @binding(12) var<storage, read_write> nu: array<atomic<u32>>;
@group(0) @binding(15) var<storage, read_write> fresh: array<u32>;

// CPU twin: src/gpu/mirror/kdop_tumble.rs::tumble_front
@compute @workgroup_size(WORKGROUP_SIZE)
fn tumble_front(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (counters.frozen != 0u || i >= counters.n_in) {
        return;
    }
    let p = front[i];
    if (p.slot != NO_SLOT) {
        return;
    }
    let key = p.pose * counters.n_fly + p.b + 1u;
    let mask = counters.hash_mask;
    var h = hash_slot(key, mask);
    // At most MAX_PROBES slots (the host keeps the load at most one half, where linear
    // probing averages under three); a weak exchange may fail spuriously (old value 0):
    // then the same slot is tried again. The loop only finds the slot (1: inserted here,
    // 2: inserted by another pair); the tumbling comes after it, once: lavapipe runs a
    // loop's whole body under a mask for as long as any lane of the SIMD group probes.
    var state = 0u;
    for (var tries = 0u; tries < MAX_PROBES && state == 0u; tries = tries + 1u) {
        let r = atomicCompareExchangeWeak(&hash_keys[h], 0u, key);
        if (r.exchanged) {
            state = 1u;
        } else if (r.old_value == key) {
            state = 2u;
        } else if (r.old_value != 0u) {
            h = (h + 1u) & mask;
        }
    }
    if (state == 0u) {
        // The table is (nearly) full: the pair keeps NO_SLOT and the batch stops here; the
        // host moves the table into a larger one (`rehash`, `reslot`) and runs this level
        // again (counted, so the host knows how many nodes asked for a slot).
        atomicAdd(&counters.n_tumbled, 1u);
        atomicOr(&counters.overflow, OVERFLOW_TABLE);
        return;
    }
    front[i].slot = h;
    if (state == 1u) {
        // At most one insert per slot and level: `fresh` (one entry per slot) has room.
        fresh[atomicAdd(&counters.n_fresh, 1u)] = h;
        atomicAdd(&counters.n_tumbled, 1u);
        atomicAdd(&nu[p.pose], 1u);
    }
}

// The nodes `tumble_front` inserted (`fresh[0..fresh_in]`, set by `prepare_tumble`): each
// slot's key names the pose and node; the root's k-DOP is the host's exact one.
// CPU twin: src/gpu/mirror/kdop_tumble.rs::tumble_fresh
@compute @workgroup_size(WORKGROUP_SIZE)
fn tumble_fresh(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= counters.fresh_in) {
        return;
    }
    let h = fresh[i];
    let key = atomicLoad(&hash_keys[h]) - 1u;
    let pose = key / counters.n_fly;
    let node = key % counters.n_fly;
    var k: Kdop;
    if (node == 0u) {
        k = frames[pose].root;
    } else {
        k = tumble_points(pose, node);
    }
    tumbled[h] = k;
}

// Growing a full table: every key of the old table (`old_keys`, bound to its exact size)
// moves with its k-DOP into the new, larger one (`hash_keys`, `tumbled`, `hash_mask`); then
// `reslot` points the pairs of the frozen level at their keys' new slots. Keys are unique,
// so no node is tumbled twice and Nu stays the CPU's.
@group(0) @binding(13) var<storage, read> old_keys: array<u32>;
@group(0) @binding(14) var<storage, read> old_tumbled: array<Kdop>;

// CPU twin: src/gpu/mirror/kdop_tumble.rs::rehash
@compute @workgroup_size(WORKGROUP_SIZE)
fn rehash(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= arrayLength(&old_keys)) {
        return;
    }
    let key = old_keys[i];
    if (key == 0u) {
        return;
    }
    let mask = counters.hash_mask;
    var h = hash_slot(key, mask);
    for (var tries = 0u; tries < MAX_PROBES; tries = tries + 1u) {
        let r = atomicCompareExchangeWeak(&hash_keys[h], 0u, key);
        if (r.exchanged) {
            tumbled[h] = old_tumbled[i];
            return;
        }
        if (r.old_value != 0u) {
            h = (h + 1u) & mask;
        }
    }
    atomicOr(&counters.overflow, OVERFLOW_TABLE);
}

// CPU twin: src/gpu/mirror/kdop_tumble.rs::reslot
@compute @workgroup_size(WORKGROUP_SIZE)
fn reslot(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= counters.n_in) {
        return;
    }
    let p = front[i];
    if (p.slot == NO_SLOT) {
        return;
    }
    let key = p.pose * counters.n_fly + p.b + 1u;
    let mask = counters.hash_mask;
    var h = hash_slot(key, mask);
    for (var tries = 0u; tries < MAX_PROBES; tries = tries + 1u) {
        if (atomicLoad(&hash_keys[h]) == key) {
            front[i].slot = h;
            return;
        }
        h = (h + 1u) & mask;
    }
    // Unreachable (`rehash` placed every key within MAX_PROBES); stop rather than misread.
    atomicOr(&counters.overflow, OVERFLOW_TABLE);
}
