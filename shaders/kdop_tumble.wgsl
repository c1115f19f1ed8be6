// Rigid tumbling, dense: every flying node's k-DOP in A's frame for every pose of the
// batch, by the approximation method (002_2561ef21643dcace.txt 4.1). CPU twin:
// tumble::tumble_points, bit for bit. Node 0 (the root) is the host's exact hill-climbed
// k-DOP from the pose frame.

struct TumbleParams {
    n_fly: u32,
    n_poses: u32,
}

@group(0) @binding(0) var<storage, read> frames: array<PoseFrame>;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> points: array<f32>;
@group(0) @binding(3) var<storage, read_write> tumbled: array<Kdop>;
@group(0) @binding(4) var<uniform> params: TumbleParams;

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
