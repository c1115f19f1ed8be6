// Breadth-first, stackless expansion of the front of node pairs (pose, a, b): one level per
// dispatch, the descent rule of the CPU reference (traverse.rs: Algorithm 1 of Klosowski et
// al., "Efficient Collision Detection Using Bounding Volume Hierarchies of k-DOPs", 4.2, or
// the k-DOP scene's default Descent::Larger); leaf pairs are appended to the leaf list, which
// keeps every level's (the triangle tests run once, after the last level). B's tumbled
// k-DOP is read at the pair's slot. Appends by atomicAdd; an append beyond capacity raises
// `overflow` instead of writing. The last workgroup of each dispatch to finish hands the
// level over (`hand_over`): it writes the next level's dispatch size and the triangle
// tests', so the host never reads back between levels and no one-invocation kernel runs
// between them.

@group(0) @binding(0) var<storage, read> env_nodes: array<KdopNode>;
@group(0) @binding(1) var<storage, read> fly_nodes: array<KdopNode>;
@group(0) @binding(2) var<storage, read_write> tumbled: array<Kdop>;
@group(0) @binding(3) var<storage, read> front_in: array<FrontPair>;
@group(0) @binding(4) var<storage, read_write> front_out: array<FrontPair>;
@group(0) @binding(5) var<storage, read_write> leaves: array<FrontPair>;
@group(0) @binding(6) var<storage, read_write> counters: Counters;
@group(0) @binding(7) var<storage, read_write> nv: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> done: array<atomic<u32>>;

// Appends the two children of a pair with one atomic (both or, beyond the capacity,
// neither: overflow bit 1; the count asked for grows by two either way).
fn push_children(c0: FrontPair, c1: FrontPair, cap: u32) {
    if (counters.budgeted != 0u) {
        // The next level's node tests of this pose (`budget_level`).
        atomicAdd(&budget_state[counters.n_poses + c0.pose], 2u);
    }
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
// `prefer_a`. Children of A keep B's slot; children of B get theirs at their dense index,
// or lazily from the table (`place_kdop`: the pair that pushes them claims their keys and
// tumbles those it inserted). One append site for both children and one for the leaf:
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
        if (lazy) {
            c0.slot = place_kdop(p.pose, c0.b);
            c1.slot = place_kdop(p.pose, c1.b);
            if (c0.slot == NO_SLOT || c1.slot == NO_SLOT) {
                // A full table: the host grows it and runs this level again.
                return;
            }
        } else {
            c0.slot = p.pose * n_fly + nb.first;
            c1.slot = p.pose * n_fly + nb.first + 1u;
        }
    } else {
        push_leaf(p, caps.y);
        return;
    }
    push_children(c0, c1, caps.x);
}

// The start of every invocation: true to skip it (the batch frozen by an overflow, e.g. a
// full tumbling table whose pairs' slots are unknown; beyond the input; a pose already done
// in first-contact mode), else the pair is counted in `nv` unless this level was counted
// before a resume.
fn enter_skips(i: u32) -> bool {
    if (counters.frozen != 0u || i >= counters.n_in) {
        return true;
    }
    let pose = front_in[i].pose;
    if (counters.mode_first != 0u && atomicLoad(&done[pose]) != 0u) {
        return true;
    }
    if (budget_skips(i)) {
        return true;
    }
    if ((counters.resumed & RESUMED_EXPAND) == 0u) {
        atomicAdd(&nv[pose], 1u);
    }
    return false;
}

// A budget of node tests per pose (src/budget/levels.rs): a level is tested whole or not at
// all. `budget_state` holds, per pose, the node tests spent below the root pair (with the
// STOPPED bit once a level did not fit) in its first `n_poses` entries, and in the next
// `n_poses` the next level's tests as the expansion pushes them (two per expanded pair).
// The hand-over (`budget_level`) adds those to the spent ones if the budget has room for
// them all, else marks the pose stopped; a stopped pose's pairs are not tested. Children
// are pushed two by two (`push_children`), so a level's input holds siblings at indices
// 2k and 2k + 1: the first of the two goes to the leaf list as UNRESOLVED_A or _B (which
// node its parent split), and the host bounds the parent, a pair of the pose's frontier.
@group(0) @binding(26) var<storage, read_write> budget_state: array<atomic<u32>>;

const STOPPED: u32 = 0x80000000u;

// CPU twin: src/gpu/mirror/front_expand.rs::budget_skips
fn budget_skips(i: u32) -> bool {
    if (counters.budgeted == 0u) {
        return false;
    }
    let p = front_in[i];
    if ((atomicLoad(&budget_state[p.pose]) & STOPPED) == 0u) {
        return false;
    }
    if ((i & 1u) == 0u) {
        let side = select(UNRESOLVED_B, UNRESOLVED_A, front_in[i + 1u].a != p.a);
        push_leaf(FrontPair(p.pose, p.a, p.b, side), counters.cap_leaf);
    }
    return true;
}

// The budget's hand-over (one workgroup, its invocation `lid` taking every
// WORKGROUP_SIZE-th pose): the level just expanded pushed `next` node tests of a pose;
// they are spent if they fit, else the pose stops.
// CPU twin: src/gpu/mirror/front_expand.rs::budget_level
fn budget_level(lid: u32) {
    let n = counters.n_poses;
    for (var pose = lid; pose < n; pose = pose + WORKGROUP_SIZE) {
        let next = atomicLoad(&budget_state[n + pose]);
        if (next == 0u) {
            continue;
        }
        atomicStore(&budget_state[n + pose], 0u);
        let spent = atomicLoad(&budget_state[pose]);
        if (next > counters.budget - spent) {
            atomicStore(&budget_state[pose], spent | STOPPED);
        } else {
            atomicStore(&budget_state[pose], spent + next);
        }
    }
}

// A tolerance query's slab margins (`counters.margins`, f32 bits; `within` set).
// CPU twin: src/gpu/mirror/front_expand.rs::within_margins
fn within_margins() -> array<f32, H> {
    var m: array<f32, H>;
    for (var k = 0u; k < H; k = k + 1u) {
        m[k] = bitcast<f32>(counters.margins[k]);
    }
    return m;
}

// CPU twin: src/gpu/mirror/front_expand.rs::expand
fn expand_one(i: u32) {
    if (enter_skips(i)) {
        return;
    }
    let p = front_in[i];
    let na = env_nodes_at(p.a);
    let kb = tumbled[p.slot];
    var keep: bool;
    if (counters.within != 0u) {
        // A tolerance query: the slabs grown by the margins (uniform branch).
        let m = within_margins();
        // A tolerance per pose (its frame's: `eps_t2 = +inf` otherwise) also combines the
        // coordinate gaps.
        let f = frames[p.pose];
        keep = kdop_within(na.bv, kb, m) && !kdop_gap_prunes(na.bv, kb, f.eps_w, f.eps_t2);
    } else {
        keep = kdop_overlaps(na.bv, kb);
    }
    if (!keep) {
        return;
    }
    descend(p, na, kb);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn expand(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    expand_one(linear_index(gid));
    hand_over(lid, nwg);
}

// The dual k-DOP–sphere hierarchy (dual::collide_pose): one Nv per pair, the sphere test
// first, then the k-DOP slabs (per-pair Minkowski order when bit 0 of `dual_flags` is set;
// B's tumbled k-DOP symmetrized when bit 1 is; in a tolerance query every slab, grown by
// its margin). Per pose, `dual_counts` holds (sphere rejects, slab rejects, slab tests).
@group(0) @binding(9) var<storage, read> env_spheres: array<Sphere>;
@group(0) @binding(10) var<storage, read> fly_spheres: array<Sphere>;
@group(0) @binding(11) var<storage, read> frames: array<PoseFrame>;
@group(0) @binding(12) var<storage, read_write> dual_counts: array<atomic<u32>>;

// CPU twin: src/gpu/mirror/front_expand.rs::expand_dual
fn expand_dual_one(i: u32) {
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
    var r: vec2<u32>;
    if (counters.within != 0u) {
        // A tolerance query (dual::DualTest::overlaps): A's spheres are grown in their
        // array (src/gpu/collide/widen.rs); every slab grown by its margin, all H tested.
        let m = within_margins();
        r = vec2<u32>(u32(kdop_within(na.bv, kb, m)), H);
    } else {
        r = kdop_overlaps_dual(na.bv, kb, (counters.dual_flags & 1u) != 0u);
    }
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_dual(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    expand_dual_one(linear_index(gid));
    hand_over(lid, nwg);
}

// The OBB tree and the sphere tree (src/obb): B's volume posed by the pose's f32 frame once
// per (pose, node) the front reaches, as the CPU's VolumeWorkspace poses each node of B once
// per pose on first use (so Nu is the CPU's), and kept in a lazy table like the tumbled
// k-DOPs (`hash_keys`, keys and probing of shared/front.wgsl) whose slots hold the posed
// boxes (`posed_obbs`) or spheres (`posed_spheres`). The pair that descends B claims its two
// children's keys (`claim`) and poses each child it inserted into its slot; the next level
// reads them there, so no dispatch is added. A root pair (level 0, one per pose, slot
// NO_SLOT) poses and inserts its own. Every pair pushed is tested at the next level, so the
// (pose, node) pairs posed are those tested: the CPU's set. The descent goes by the volumes'
// sizes (Descent::Larger, as obb::descend); A's nodes give the topology only. A full table
// raises OVERFLOW_TABLE and the host runs the batch again with a larger one.
// Lazy tumbling of the k-DOP scenes (the approximation method, Klosowski et al. 4.1): the
// children of B a pair descends to are claimed in the table (`claim`, below) as they are
// pushed, and the pair that inserted a key tumbles that node into its slot (`place_kdop`),
// so the next level reads them and no dispatch of its own tumbles them. Every pair pushed
// is tested at the next level, so the (pose, node) pairs tumbled are those the front
// reaches, once each: Nu is the CPU's (TumbleWorkspace::node_bv). The roots (and a
// coherent step's seeds) get their slots before the first level (`tumble_front`,
// `tumble_fresh` of kdop_tumble.wgsl).
@group(0) @binding(24) var<storage, read> fly_offsets: array<u32>;
@group(0) @binding(25) var<storage, read> fly_points: array<f32>;

// Twin of tumble::tumble_points (src/tumble.rs), the text of `tumble_points` in
// kdop_tumble.wgsl (a test keeps the two identical: WGSL has no includes, and a shared
// piece may not read bindings).
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

// B's node `node` (never the root) tumbled at `pose` into a slot claimed for it (NO_SLOT if
// the table is full).
fn place_kdop(pose: u32, node: u32) -> u32 {
    let c = claim(pose, node);
    if (c.y == 1u) {
        tumbled[c.x] = tumble_points(pose, node);
    }
    return select(c.x, NO_SLOT, c.y == 0u);
}

@group(0) @binding(13) var<storage, read> env_obbs: array<Obb32>;
@group(0) @binding(14) var<storage, read> fly_obbs: array<Obb32>;
@group(0) @binding(15) var<storage, read_write> hash_keys: array<atomic<u32>>;
@group(0) @binding(18) var<storage, read_write> posed_obbs: array<PosedObb>;
@group(0) @binding(19) var<storage, read_write> posed_spheres: array<Sphere>;
@group(0) @binding(20) var<storage, read_write> nu: array<atomic<u32>>;

// Finds or inserts the key of B's node `node` at pose `pose`: (slot, 1) when inserted here
// (counted in Nu and `n_tumbled`), (slot, 2) when there before, (_, 0) when the table is
// full (OVERFLOW_TABLE raised; counted in `n_tumbled`, so the host sizes the next table).
// A weak exchange may fail spuriously (old value 0): then the same slot is tried again.
// CPU twin: ExpandBindings::claim in src/gpu/mirror/front_expand.rs
fn claim(pose: u32, node: u32) -> vec2<u32> {
    let key = pose * counters.n_fly + node + 1u;
    let mask = counters.hash_mask;
    var h = hash_slot(key, mask);
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
    if (state != 2u) {
        atomicAdd(&counters.n_tumbled, 1u);
    }
    if (state == 0u) {
        atomicOr(&counters.overflow, OVERFLOW_TABLE | OVERFLOW_CLAIM);
    } else if (state == 1u) {
        atomicAdd(&nu[pose], 1u);
    }
    return vec2<u32>(h, state);
}

// Which way a pair of overlapping volumes descends (traverse::descend): 0 A's children, 1
// B's, 2 a leaf pair.
fn descent_side(na: KdopNode, nb: KdopNode, prefer_a: bool) -> u32 {
    if (na.count == 0u && (nb.count != 0u || prefer_a)) {
        return 0u;
    }
    return select(2u, 1u, nb.count == 0u);
}

// The pair's children (`side` 0 or 1) with the slots `s0`, `s1` (B's children) or the
// pair's own (A's), or the leaf pair (`side` 2). One append site each, as in descend_pref.
fn push_descent(p: FrontPair, na: KdopNode, nb: KdopNode, side: u32, s0: u32, s1: u32) {
    if (side == 2u) {
        push_leaf(p, counters.cap_leaf);
        return;
    }
    if (s0 == NO_SLOT || s1 == NO_SLOT) {
        // A full table: the batch runs again.
        return;
    }
    var c0 = p;
    var c1 = p;
    if (side == 0u) {
        c0.a = na.first;
        c1.a = na.first + 1u;
    } else {
        c0.b = nb.first;
        c1.b = nb.first + 1u;
        c0.slot = s0;
        c1.slot = s1;
    }
    push_children(c0, c1, counters.cap_front);
}

// B's box of `node` posed at `pose` into a slot claimed for it (NO_SLOT if the table is full).
fn place_obb(pose: u32, node: u32) -> u32 {
    let c = claim(pose, node);
    if (c.y == 1u) {
        let f = frames[pose];
        posed_obbs[c.x] = obb_posed(fly_obbs_at(node), f.r, f.t, f.t_err);
    }
    return select(c.x, NO_SLOT, c.y == 0u);
}

// CPU twin: src/gpu/mirror/front_expand.rs::expand_obb
fn expand_obb_one(i: u32) {
    if (enter_skips(i)) {
        return;
    }
    var p = front_in[i];
    let a = env_obbs_at(p.a);
    let b = fly_obbs_at(p.b);
    var posed: PosedObb;
    if (p.slot == NO_SLOT) {
        let f = frames[p.pose];
        posed = obb_posed(b, f.r, f.t, f.t_err);
        let c = claim(p.pose, p.b);
        if (c.y == 1u) {
            posed_obbs[c.x] = posed;
        }
        p.slot = select(c.x, NO_SLOT, c.y == 0u);
    } else {
        posed = posed_obbs[p.slot];
    }
    if (obb_disjoint(a, posed)) {
        return;
    }
    let na = env_nodes_at(p.a);
    let nb = fly_nodes_at(p.b);
    let side = descent_side(na, nb, a.size >= b.size);
    var s = vec2<u32>(p.slot, p.slot);
    if (side == 1u) {
        s = vec2<u32>(place_obb(p.pose, nb.first), place_obb(p.pose, nb.first + 1u));
    }
    push_descent(p, na, nb, side, s.x, s.y);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_obb(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    expand_obb_one(linear_index(gid));
    hand_over(lid, nwg);
}

// B's sphere of `node` posed at `pose` into a slot claimed for it (NO_SLOT if the table is full).
fn place_sphere(pose: u32, node: u32) -> u32 {
    let c = claim(pose, node);
    if (c.y == 1u) {
        let f = frames[pose];
        posed_spheres[c.x] = sphere_posed(fly_spheres_at(node), f.r, f.t, f.t_err);
    }
    return select(c.x, NO_SLOT, c.y == 0u);
}

// CPU twin: src/gpu/mirror/front_expand.rs::expand_sphere
fn expand_sphere_one(i: u32) {
    if (enter_skips(i)) {
        return;
    }
    var p = front_in[i];
    let a = env_spheres_at(p.a);
    let b = fly_spheres_at(p.b);
    var posed: Sphere;
    if (p.slot == NO_SLOT) {
        let f = frames[p.pose];
        posed = sphere_posed(b, f.r, f.t, f.t_err);
        let c = claim(p.pose, p.b);
        if (c.y == 1u) {
            posed_spheres[c.x] = posed;
        }
        p.slot = select(c.x, NO_SLOT, c.y == 0u);
    } else {
        posed = posed_spheres[p.slot];
    }
    if (sphere_disjoint(a, posed)) {
        return;
    }
    let na = env_nodes_at(p.a);
    let nb = fly_nodes_at(p.b);
    let side = descent_side(na, nb, a.r >= b.r);
    var s = vec2<u32>(p.slot, p.slot);
    if (side == 1u) {
        s = vec2<u32>(place_sphere(p.pose, nb.first), place_sphere(p.pose, nb.first + 1u));
    }
    push_descent(p, na, nb, side, s.x, s.y);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_sphere(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    expand_sphere_one(linear_index(gid));
    hand_over(lid, nwg);
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
fn expand_self_one(i: u32) {
    if (counters.frozen != 0u || i >= counters.n_in) {
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
    var near: bool;
    if (counters.within != 0u) {
        // A tolerance query (self_collide::collide_bvh_within): the slabs grown by the
        // margins (uniform branch).
        let m = within_margins();
        near = kdop_within(na.bv, nb.bv, m);
    } else {
        near = kdop_overlaps(na.bv, nb.bv);
    }
    if (!near) {
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_self(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    expand_self_one(linear_index(gid));
    hand_over(lid, nwg);
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
fn expand_record_one(i: u32) {
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn expand_record(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    expand_record_one(linear_index(gid));
    hand_over(lid, nwg);
}

// The hand-over from one level to the next, by the last workgroup of the dispatch to finish
// (each workgroup counts itself done in `groups_done`; the one that brings it to the size
// of the grid is last). Nothing waits on another workgroup, so nothing assumes that
// workgroups run concurrently. Every invocation's appends and counts are atomics on
// `counters`, `nv` and the lists, made before its workgroup's `storageBarrier` (naga emits
// OpControlBarrier with device-scope AcquireRelease semantics on storage memory), which
// releases them before the workgroup's increment of `groups_done`; the last workgroup,
// having seen the full count, runs a `storageBarrier` of its own (an acquire) before it
// reads the counters: the fence–atomic–atomic–fence synchronization of the Vulkan memory
// model, and CUDA's threadfence reduction. The lists themselves are read only by later
// dispatches. The grid is never empty (`groups` sizes at least one workgroup), so the
// chain of hand-overs never breaks.
@group(0) @binding(21) var<storage, read_write> next_args: array<u32, 3>;
@group(0) @binding(22) var<storage, read_write> tri_args: array<u32, 3>;
@group(0) @binding(23) var<storage, read_write> level_sizes: array<u32>;

// Whether this workgroup finished last (written by its invocation 0).
var<workgroup> finished_last: u32;

fn hand_over(lid: u32, nwg: vec3<u32>) {
    storageBarrier();
    if (lid == 0u) {
        let finished = atomicAdd(&counters.groups_done, 1u) + 1u;
        finished_last = u32(finished == nwg.x * nwg.y * nwg.z);
    }
    if (workgroupUniformLoad(&finished_last) == 0u) {
        return;
    }
    storageBarrier();
    // Before `next_level` (invocation 0, after the barrier below) may clear the flag it
    // reads: a frozen level runs again, its pushes counted afresh (the host clears them).
    if (counters.budgeted != 0u && atomicLoad(&counters.overflow) == 0u) {
        budget_level(lid);
    }
    workgroupBarrier();
    if (lid == 0u) {
        atomicStore(&counters.groups_done, 0u);
        next_level();
    }
}

// The output front becomes the next input (`n_in`, `next_args`), the level's input size
// goes to `level_sizes`, the leaf pairs so far are marked (a resumed level restarts its
// appends there) and the triangle tests are sized by them (`tri_args`). After an overflow
// (this level's or an earlier one's) nothing changes but `frozen`: every later kernel skips
// its work and the batch stops where it ran out of room, with the level's input intact;
// the host grows what ran out and resumes it there (gpu::collide::batch). The next level
// still runs one workgroup, whose hand-over keeps the chain.
// CPU twin: src/gpu/mirror/front_expand.rs::next_level
fn next_level() {
    if (atomicLoad(&counters.overflow) != 0u) {
        counters.frozen = 1u;
        next_args = array<u32, 3>(1u, 1u, 1u);
        tri_args = array<u32, 3>(0u, 1u, 1u);
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
    let leaves = atomicLoad(&counters.n_leaf);
    atomicMax(&counters.max_leaf, leaves);
    counters.leaf_mark = leaves;
    counters.contact_mark = atomicLoad(&counters.n_contact);
    counters.unsure_mark = atomicLoad(&counters.n_unsure);
    let g = groups(n);
    next_args = array<u32, 3>(g.x, g.y, 1u);
    let t = groups(min(leaves, counters.cap_leaf));
    tri_args = array<u32, 3>(t.x, t.y, 1u);
}
