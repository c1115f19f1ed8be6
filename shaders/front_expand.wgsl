// Breadth-first, stackless expansion of the front of node pairs (pose, a, b): one level per
// dispatch, the descent rule of the CPU reference (traverse.rs: Algorithm 1 of Klosowski et
// al., "Efficient Collision Detection Using Bounding Volume Hierarchies of k-DOPs", 4.2, or
// the k-DOP scene's default Descent::Larger); leaf pairs go to the leaf list. B's tumbled
// k-DOP is read at the pair's slot. Appends by atomicAdd; an append beyond capacity raises
// `overflow` instead of writing. `prepare_*` write the next dispatch sizes on the GPU (indirect dispatch), so the
// host never reads back between levels.

@group(0) @binding(0) var<storage, read> env_nodes: array<KdopNode>;
@group(0) @binding(1) var<storage, read> fly_nodes: array<KdopNode>;
@group(0) @binding(2) var<storage, read> tumbled: array<Kdop>;
@group(0) @binding(3) var<storage, read> front_in: array<FrontPair>;
@group(0) @binding(4) var<storage, read_write> front_out: array<FrontPair>;
@group(0) @binding(5) var<storage, read_write> leaves: array<FrontPair>;
@group(0) @binding(6) var<storage, read_write> counters: Counters;
@group(0) @binding(7) var<storage, read_write> nv: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> done: array<atomic<u32>>;

// Appends the two children of a pair with one atomic (both or, beyond the capacity,
// neither: overflow bit 1; the count asked for grows by two either way).
fn push_children(c0: FrontPair, c1: FrontPair, cap: u32) {
    let k = atomicAdd(&counters.n_out, 2u);
    if (k < cap && cap - k >= 2u) {
        front_out[k] = c0;
        front_out[k + 1u] = c1;
    } else {
        atomicOr(&counters.overflow, 1u);
    }
}

fn push_leaf(p: FrontPair, cap: u32) {
    let k = atomicAdd(&counters.n_leaf, 1u);
    if (k < cap) {
        leaves[k] = p;
    } else {
        atomicOr(&counters.overflow, 2u);
    }
}

// The descent of a pair whose volumes overlap, the rule of traverse::descend: A while its
// node is internal and B's is a leaf or A is preferred (always by Algorithm 1; by
// Descent::Larger when A's k-DOP is at least as large as B's tumbled `kb`), else B, else a
// leaf pair.
fn descend(p: FrontPair, na: KdopNode, kb: Kdop) {
    let larger = counters.descent_larger != 0u;
    descend_pref(p, na, !larger || kdop_size(na.bv) >= kdop_size(kb));
}

// `descend` with the preference given: with both nodes internal, A's children when
// `prefer_a`. Children of A keep B's slot; children of B get theirs from `tumble_front`
// (lazy) or at their dense index. One append site for both children and one for the leaf:
// lavapipe runs every branch of a SIMD group under a mask, so each site costs every pair.
fn descend_pref(p: FrontPair, na: KdopNode, prefer_a: bool) {
    let caps = vec2<u32>(counters.cap_front, counters.cap_leaf);
    let lazy = counters.lazy != 0u;
    let n_fly = counters.n_fly;
    let nb = fly_nodes_at(p.b);
    var c0 = p;
    var c1 = p;
    if (na.count == 0u && (nb.count != 0u || prefer_a)) {
        c0.a = na.first;
        c1.a = na.first + 1u;
    } else if (nb.count == 0u) {
        c0.b = nb.first;
        c1.b = nb.first + 1u;
        c0.slot = select(p.pose * n_fly + nb.first, NO_SLOT, lazy);
        c1.slot = select(p.pose * n_fly + nb.first + 1u, NO_SLOT, lazy);
    } else {
        push_leaf(p, caps.y);
        return;
    }
    push_children(c0, c1, caps.x);
}

// The start of every invocation: true to skip it (beyond the input; a pose already done in
// first-contact mode), else the pair is counted in `nv` unless this level was counted
// before a resume. (After a full tumbling table, whose pairs' slots are unknown,
// `prepare_tumble` sizes this dispatch to nothing.)
fn enter_skips(i: u32) -> bool {
    if (i >= counters.n_in) {
        return true;
    }
    let pose = front_in[i].pose;
    if (counters.mode_first != 0u && atomicLoad(&done[pose]) != 0u) {
        return true;
    }
    if ((counters.resumed & RESUMED_EXPAND) == 0u) {
        atomicAdd(&nv[pose], 1u);
    }
    return false;
}

// CPU twin: src/gpu/mirror/front_expand.rs::expand
@compute @workgroup_size(WORKGROUP_SIZE)
fn expand(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (enter_skips(i)) {
        return;
    }
    let p = front_in[i];
    let na = env_nodes_at(p.a);
    let kb = tumbled[p.slot];
    if (!kdop_overlaps(na.bv, kb)) {
        return;
    }
    descend(p, na, kb);
}

// The dual k-DOP–sphere hierarchy (dual::collide_pose): one Nv per pair, the sphere test
// first, then the k-DOP slabs (per-pair Minkowski order when bit 0 of `dual_flags` is set;
// B's tumbled k-DOP symmetrized when bit 1 is). Per pose, `dual_counts` holds
// (sphere rejects, slab rejects, slab tests).
@group(0) @binding(9) var<storage, read> env_spheres: array<Sphere>;
@group(0) @binding(10) var<storage, read> fly_spheres: array<Sphere>;
@group(0) @binding(11) var<storage, read> frames: array<PoseFrame>;
@group(0) @binding(12) var<storage, read_write> dual_counts: array<atomic<u32>>;

// CPU twin: src/gpu/mirror/front_expand.rs::expand_dual
@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_dual(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (enter_skips(i)) {
        return;
    }
    let p = front_in[i];
    let counted = (counters.resumed & RESUMED_EXPAND) == 0u;
    let sb = sphere_posed(fly_spheres_at(p.b), frames[p.pose].r, frames[p.pose].t, frames[p.pose].t_err);
    if (sphere_disjoint(env_spheres_at(p.a), sb)) {
        if (counted) {
            atomicAdd(&dual_counts[3u * p.pose], 1u);
        }
        return;
    }
    let kt = tumbled[p.slot];
    var kb = kt;
    if ((counters.dual_flags & 2u) != 0u) {
        kb = kdop_symmetrize(kt);
    }
    let na = env_nodes_at(p.a);
    let r = kdop_overlaps_dual(na.bv, kb, (counters.dual_flags & 1u) != 0u);
    if (counted) {
        atomicAdd(&dual_counts[3u * p.pose + 2u], r.y);
    }
    if (r.x == 0u) {
        if (counted) {
            atomicAdd(&dual_counts[3u * p.pose + 1u], 1u);
        }
        return;
    }
    descend(p, na, kt);
}

// The OBB tree and the sphere tree (src/obb): B's volume posed by the pose's f32 frame in
// every test (nothing tumbled: the pairs carry no slot), the descent by the volumes' sizes
// (Descent::Larger, as obb::descend). A's nodes give the topology only.
@group(0) @binding(13) var<storage, read> env_obbs: array<Obb32>;
@group(0) @binding(14) var<storage, read> fly_obbs: array<Obb32>;

// CPU twin: src/gpu/mirror/front_expand.rs::expand_obb
@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_obb(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (enter_skips(i)) {
        return;
    }
    let p = front_in[i];
    let f = frames[p.pose];
    let a = env_obbs_at(p.a);
    let b = fly_obbs_at(p.b);
    if (obb_disjoint(a, obb_posed(b, f.r, f.t, f.t_err))) {
        return;
    }
    descend_pref(p, env_nodes_at(p.a), a.size >= b.size);
}

// CPU twin: src/gpu/mirror/front_expand.rs::expand_sphere
@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_sphere(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (enter_skips(i)) {
        return;
    }
    let p = front_in[i];
    let f = frames[p.pose];
    let a = env_spheres_at(p.a);
    let b = fly_spheres_at(p.b);
    if (sphere_disjoint(a, sphere_posed(b, f.r, f.t, f.t_err))) {
        return;
    }
    descend_pref(p, env_nodes_at(p.a), a.r >= b.r);
}

// Self-collision (self_collide::collide_bvh): one hierarchy against itself in its own frame,
// nothing tumbled or posed (pose 0; B's node is another node of A, read from `env_nodes`).
// A pair (n, n) needs no test: a leaf goes to the leaf list (its triangles pairwise), an
// internal node to its child pairs (c0 + 1, c0 + 1), (c0, c0 + 1), (c0, c0), so each unordered
// pair of distinct nodes is met once. A pair of distinct nodes is counted in `nv`, tested
// with the k-DOP slabs and, on overlap, descends the internal node (the one with the larger
// k-DOP, A on ties, when both are), or goes to the leaf list: the CPU's rule, in the CPU's
// order of the two nodes, so the node pairs met (Nv) and the leaf pairs (Np) are its own.
// CPU twin: src/gpu/mirror/front_expand.rs::expand_self
@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_self(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= counters.n_in) {
        return;
    }
    let p = front_in[i];
    if (counters.mode_first != 0u && atomicLoad(&done[p.pose]) != 0u) {
        return;
    }
    let na = env_nodes_at(p.a);
    if (p.a == p.b) {
        if (na.count != 0u) {
            push_leaf(p, counters.cap_leaf);
            return;
        }
        let c = na.first;
        let cap = counters.cap_front;
        let k = atomicAdd(&counters.n_out, 3u);
        if (k < cap && cap - k >= 3u) {
            front_out[k] = FrontPair(p.pose, c + 1u, c + 1u, NO_SLOT);
            front_out[k + 1u] = FrontPair(p.pose, c, c + 1u, NO_SLOT);
            front_out[k + 2u] = FrontPair(p.pose, c, c, NO_SLOT);
        } else {
            atomicOr(&counters.overflow, 1u);
        }
        return;
    }
    if ((counters.resumed & RESUMED_EXPAND) == 0u) {
        atomicAdd(&nv[p.pose], 1u);
    }
    let nb = env_nodes_at(p.b);
    if (!kdop_overlaps(na.bv, nb.bv)) {
        return;
    }
    var c0 = p;
    var c1 = p;
    if (na.count == 0u && (nb.count != 0u || kdop_size(na.bv) >= kdop_size(nb.bv))) {
        c0.a = na.first + 1u;
        c1.a = na.first;
    } else if (nb.count == 0u) {
        c0.b = nb.first + 1u;
        c1.b = nb.first;
    } else {
        push_leaf(p, counters.cap_leaf);
        return;
    }
    push_children(c0, c1, counters.cap_front);
}

// Temporal coherence (kdop::KdopOptions::coherence on the GPU, gpu::collide::coherent):
// `expand` that also records the pose's front, the pairs where its descent stops (those
// found disjoint and the leaf pairs, traverse::descend_from), in `front_record` (slot
// NO_SLOT), for the next pose of its chunk to start from. One append site; beyond the
// buffer's length the count still grows (the host grows the buffer and runs the step
// again). A level run again after an overflow records its pairs again: the host removes
// the duplicates (a front holds each pair once).
@group(0) @binding(16) var<storage, read_write> front_record: array<FrontPair>;
@group(0) @binding(17) var<storage, read_write> record_count: array<atomic<u32>>;

// CPU twin: src/gpu/mirror/front_expand.rs::expand_record
@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_record(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (enter_skips(i)) {
        return;
    }
    let p = front_in[i];
    let na = env_nodes_at(p.a);
    let kb = tumbled[p.slot];
    let overlap = kdop_overlaps(na.bv, kb);
    let leaf_b = fly_nodes_at(p.b).count != 0u;
    if (!overlap || (na.count != 0u && leaf_b)) {
        let k = atomicAdd(&record_count[0], 1u);
        if (k < arrayLength(&front_record)) {
            front_record[k] = FrontPair(p.pose, p.a, p.b, NO_SLOT);
        }
    }
    if (overlap) {
        descend(p, na, kb);
    }
}
