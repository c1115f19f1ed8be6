// Rigid tumbling, dense: every flying node's k-DOP in A's frame for every pose of the
// batch, by the approximation method (002_2561ef21643dcace.txt 4.1). CPU twins: the entry
// points in src/gpu/mirror/kdop_tumble.rs, the formula tumble::tumble_points, bit for bit.
// Node 0 (the root) is the host's exact hill-climbed k-DOP from the pose frame.

struct TumbleParams {
    n_fly: u32,
    n_poses: u32,
}

@group(0) @binding(0) var<storage, read> frames: array<PoseFrame>;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> points: array<f32>;
@group(0) @binding(3) var<storage, read_write> tumbled: array<Kdop>;
@group(0) @binding(4) var<uniform> params: TumbleParams;

// Twin of tumble::tumble_points (src/tumble.rs).
fn tumble_points(pose: u32, node: u32) -> Kdop {
    var k: Kdop;
    let first = offsets[node];
    let last = offsets[node + 1u];
    for (var i = 0u; i < H; i = i + 1u) {
        let dx = frames[pose].dir[3u * i];
        let dy = frames[pose].dir[3u * i + 1u];
        let dz = frames[pose].dir[3u * i + 2u];
        var lo = bitcast<f32>(0x7f800000u);
        var hi = -lo;
        for (var j = first; j < last; j = j + 1u) {
            let v = (dx * points[3u * j] + dy * points[3u * j + 1u]) + dz * points[3u * j + 2u];
            lo = min(lo, v);
            hi = max(hi, v);
        }
        k.min[i] = lo + frames[pose].off_lo[i];
        k.max[i] = hi + frames[pose].off_hi[i];
    }
    return k;
}

// CPU twin: src/gpu/mirror/kdop_tumble.rs::tumble
@compute @workgroup_size(WORKGROUP_SIZE)
fn tumble(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = linear_index(gid);
    if (i >= params.n_fly * params.n_poses) {
        return;
    }
    let pose = i / params.n_fly;
    let node = i % params.n_fly;
    if (node == 0u) {
        tumbled[i] = frames[pose].root;
    } else {
        tumbled[i] = tumble_points(pose, node);
    }
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
@group(0) @binding(7) var<storage, read> node_list: array<u32>;
@group(0) @binding(8) var<uniform> slice: SliceParams;

fn fly_corner(t: u32, c: u32) -> vec3<f32> {
    let o = 9u * t + 3u * c;
    return vec3<f32>(fly_tris[o], fly_tris[o + 1u], fly_tris[o + 2u]);
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
    let node = node_list[slice.start + i % slice.count];
    let n = fly_nodes[node];
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
    let node = node_list[slice.start + i % slice.count];
    let c = fly_nodes[node].first;
    let base = pose * slice.n_fly;
    tumbled[base + node] = kdop_merge(tumbled[base + c], tumbled[base + c + 1u]);
}
