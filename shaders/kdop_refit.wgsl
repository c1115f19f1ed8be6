// placeholder kernel so the module list is not empty (replaced by the refit kernel)
@group(0) @binding(0) var<storage, read_write> nodes: array<KdopNode>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x < arrayLength(&nodes)) {
        nodes[gid.x].count = nodes[gid.x].count;
    }
}
