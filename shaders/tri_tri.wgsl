// Triangle tests of the leaf pairs of every level (one dispatch after the last level; skipped
// when an overflow froze the batch). B's corners are moved into A's frame in f32 and
// the certified filter (shared/tri_filter.wgsl) decides HIT or MISS when the f32 error bound
// allows; UNSURE pairs go to a list the host decides with the exact f64 test, so the result
// equals the CPU reference exactly. Contacts carry the meshes' own triangle numbers (file
// order); UNSURE pairs carry positions in the reordered arrays, for the host's exact test.

@group(0) @binding(0) var<storage, read> env_nodes: array<KdopNode>;
@group(0) @binding(1) var<storage, read> fly_nodes: array<KdopNode>;
@group(0) @binding(2) var<storage, read> env_tris: array<f32>;
@group(0) @binding(3) var<storage, read> fly_tris: array<f32>;
@group(0) @binding(4) var<storage, read> frames: array<PoseFrame>;
@group(0) @binding(5) var<storage, read> leaves: array<FrontPair>;
@group(0) @binding(6) var<storage, read_write> counters: Counters;
@group(0) @binding(7) var<storage, read_write> np: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> done: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read_write> contacts: array<FrontPair>;
@group(0) @binding(10) var<storage, read_write> unsure: array<FrontPair>;
@group(0) @binding(11) var<storage, read> env_tri_index: array<u32>;
@group(0) @binding(12) var<storage, read> fly_tri_index: array<u32>;

fn env_corner(t: u32, c: u32) -> vec3<f32> {
    let o = 9u * t + 3u * c;
    return vec3<f32>(env_tris_at(o), env_tris_at(o + 1u), env_tris_at(o + 2u));
}

fn fly_corner(t: u32, c: u32) -> vec3<f32> {
    let o = 9u * t + 3u * c;
    return vec3<f32>(fly_tris_at(o), fly_tris_at(o + 1u), fly_tris_at(o + 2u));
}

fn push_contact(p: FrontPair) {
    let k = atomicAdd(&counters.n_contact, 1u);
    if (k < counters.cap_contact) {
        contacts[k] = p;
    } else {
        atomicOr(&counters.overflow, 4u);
    }
}

fn push_unsure(p: FrontPair) {
    let k = atomicAdd(&counters.n_unsure, 1u);
    if (k < counters.cap_unsure) {
        unsure[k] = p;
    } else {
        atomicOr(&counters.overflow, 8u);
    }
}

// CPU twin: src/gpu/mirror/tri_tri.rs::tri_test
@compute @workgroup_size(WORKGROUP_SIZE)
fn tri_test(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (counters.frozen != 0u || i >= min(atomicLoad(&counters.n_leaf), counters.cap_leaf)) {
        return;
    }
    let p = leaves[i];
    if (counters.mode_first != 0u && atomicLoad(&done[p.pose]) != 0u) {
        return;
    }
    if (p.slot == UNRESOLVED_A || p.slot == UNRESOLVED_B) {
        // Node pairs a budgeted pose did not test: to the host with the UNSURE pairs.
        push_unsure(p);
        return;
    }
    let na = env_nodes_at(p.a);
    let nb = fly_nodes_at(p.b);
    if ((counters.resumed & RESUMED_TRI) == 0u) {
        atomicAdd(&np[p.pose], na.count * nb.count);
    }
    let r = frames[p.pose].r;
    let t = vec3<f32>(frames[p.pose].t[0], frames[p.pose].t[1], frames[p.pose].t[2]);
    if (counters.within != 0u) {
        // A tolerance query: the f32 filter cannot decide a distance, so every triangle
        // pair goes to the host's exact tri_tri_within (positions, as UNSURE pairs), but
        // those a tolerance per pose (its frame's `eps_t2`, +inf otherwise) certifies
        // farther apart than it.
        let t2 = frames[p.pose].eps_t2;
        let te = frames[p.pose].t_err;
        for (var ib = nb.first; ib < nb.first + nb.count; ib = ib + 1u) {
            let b0 = fly_corner(ib, 0u);
            let b1 = fly_corner(ib, 1u);
            let b2 = fly_corner(ib, 2u);
            let q0 = transform_f32(r, t, b0);
            let q1 = transform_f32(r, t, b1);
            let q2 = transform_f32(r, t, b2);
            let eps = max(max(transform_error_bound(b0, t, te), transform_error_bound(b1, t, te)), transform_error_bound(b2, t, te));
            for (var ia = na.first; ia < na.first + na.count; ia = ia + 1u) {
                if (!tri_tri_farther(env_corner(ia, 0u), env_corner(ia, 1u), env_corner(ia, 2u), q0, q1, q2, eps, t2)) {
                    push_unsure(FrontPair(p.pose, ia, ib, NO_SLOT));
                }
            }
        }
        return;
    }
    for (var ib = nb.first; ib < nb.first + nb.count; ib = ib + 1u) {
        let b0 = fly_corner(ib, 0u);
        let b1 = fly_corner(ib, 1u);
        let b2 = fly_corner(ib, 2u);
        let q0 = transform_f32(r, t, b0);
        let q1 = transform_f32(r, t, b1);
        let q2 = transform_f32(r, t, b2);
        let te = frames[p.pose].t_err;
        let eps = max(max(transform_error_bound(b0, t, te), transform_error_bound(b1, t, te)), transform_error_bound(b2, t, te));
        for (var ia = na.first; ia < na.first + na.count; ia = ia + 1u) {
            let verdict = tri_tri_filter(env_corner(ia, 0u), env_corner(ia, 1u), env_corner(ia, 2u), q0, q1, q2, eps);
            if (verdict == TF_HIT) {
                push_contact(FrontPair(p.pose, env_tri_index_at(ia), fly_tri_index_at(ib), NO_SLOT));
                if (counters.mode_first != 0u) {
                    atomicOr(&done[p.pose], 1u);
                    return;
                }
            } else if (verdict == TF_UNSURE) {
                push_unsure(FrontPair(p.pose, ia, ib, NO_SLOT));
            }
        }
    }
}

// Self-collision: the triangle pairs of the leaf pairs of one hierarchy against
// itself (`expand_self`), positions p < q of a leaf against itself, all pairs of two
// distinct leaves. `env_slots` holds each position's three local vertex slots (one to one
// with the mesh's vertex indices). A pair sharing a vertex index is never decided here: the
// self-collision rule (self_collide::adjacency) then asks for more than intersection, so it
// goes to the UNSURE list for the host's exact rule. Every other pair's rule is plain
// intersection, which the filter decides or leaves UNSURE. Both triangles are A's local f32
// corners; B's error bound `eps_q` is transform_error_bound(q, 0, 0) = 8u·|q|₁ + 2^-100,
// above the input rounding 2u·‖q‖∞ + 1e-44 of a local corner (frame::INPUT_REL, INPUT_ABS):
// the filter's contract holds with the identity pose (nothing moved, nothing rounded).
// Contacts carry (min, max) of the two file numbers.
@group(0) @binding(13) var<storage, read> env_slots: array<u32>;

fn shares_vertex(p: u32, q: u32) -> bool {
    var found = false;
    for (var i = 0u; i < 3u; i = i + 1u) {
        let s = env_slots_at(3u * p + i);
        found = found | (s == env_slots_at(3u * q)) | (s == env_slots_at(3u * q + 1u)) | (s == env_slots_at(3u * q + 2u));
    }
    return found;
}

// CPU twin: src/gpu/mirror/tri_tri.rs::tri_test_self
@compute @workgroup_size(WORKGROUP_SIZE)
fn tri_test_self(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (counters.frozen != 0u || i >= min(atomicLoad(&counters.n_leaf), counters.cap_leaf)) {
        return;
    }
    let p = leaves[i];
    if (counters.mode_first != 0u && atomicLoad(&done[p.pose]) != 0u) {
        return;
    }
    let na = env_nodes_at(p.a);
    let nb = env_nodes_at(p.b);
    let same = p.a == p.b;
    if ((counters.resumed & RESUMED_TRI) == 0u) {
        atomicAdd(&np[p.pose], select(na.count * nb.count, na.count * (na.count - 1u) / 2u, same));
    }
    let zero = vec3<f32>(0.0, 0.0, 0.0);
    for (var ib = nb.first; ib < nb.first + nb.count; ib = ib + 1u) {
        let q0 = env_corner(ib, 0u);
        let q1 = env_corner(ib, 1u);
        let q2 = env_corner(ib, 2u);
        let eps = max(max(transform_error_bound(q0, zero, 0.0), transform_error_bound(q1, zero, 0.0)), transform_error_bound(q2, zero, 0.0));
        let from_a = select(na.first, ib + 1u, same);
        for (var ia = from_a; ia < na.first + na.count; ia = ia + 1u) {
            // A tolerance query sends every pair to the host's exact rule.
            var verdict = TF_UNSURE;
            if (counters.within == 0u && !shares_vertex(ia, ib)) {
                verdict = tri_tri_filter(env_corner(ia, 0u), env_corner(ia, 1u), env_corner(ia, 2u), q0, q1, q2, eps);
            }
            if (verdict == TF_HIT) {
                let ta = env_tri_index_at(ia);
                let tb = env_tri_index_at(ib);
                push_contact(FrontPair(p.pose, min(ta, tb), max(ta, tb), NO_SLOT));
                if (counters.mode_first != 0u) {
                    atomicOr(&done[p.pose], 1u);
                    return;
                }
            } else if (verdict == TF_UNSURE) {
                push_unsure(FrontPair(p.pose, ia, ib, NO_SLOT));
            }
        }
    }
}
