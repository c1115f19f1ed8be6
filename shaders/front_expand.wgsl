// Breadth-first, stackless expansion of the front of node pairs (pose, a, b): one level per
// dispatch, the descent rule of the CPU reference (traverse.rs, Algorithm 1 of
// 002_2561ef21643dcace.txt 4.2): descend A while internal, then B; leaf pairs go to the leaf
// list. Appends by atomicAdd; an append beyond capacity raises `overflow` instead of
// writing. `prepare_*` write the next dispatch sizes on the GPU (indirect dispatch), so the
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

fn push_front(p: FrontPair) {
    let k = atomicAdd(&counters.n_out, 1u);
    if (k < counters.cap_front) {
        front_out[k] = p;
    } else {
        atomicOr(&counters.overflow, 1u);
    }
}

fn push_leaf(p: FrontPair) {
    let k = atomicAdd(&counters.n_leaf, 1u);
    if (k < counters.cap_leaf) {
        leaves[k] = p;
    } else {
        atomicOr(&counters.overflow, 2u);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn expand(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= counters.n_in) {
        return;
    }
    let p = front_in[i];
    if (counters.mode_first != 0u && atomicLoad(&done[p.pose]) != 0u) {
        return;
    }
    atomicAdd(&nv[p.pose], 1u);
    let na = env_nodes[p.a];
    if (!kdop_overlaps(na.bv, tumbled[p.pose * counters.n_fly + p.b])) {
        return;
    }
    if (na.count == 0u) {
        push_front(FrontPair(p.pose, na.first, p.b));
        push_front(FrontPair(p.pose, na.first + 1u, p.b));
        return;
    }
    let nb = fly_nodes[p.b];
    if (nb.count == 0u) {
        push_front(FrontPair(p.pose, p.a, nb.first));
        push_front(FrontPair(p.pose, p.a, nb.first + 1u));
        return;
    }
    push_leaf(p);
}
