//! `kdop_refit.wgsl` against `gpu::mirror::kdop_refit`: `refit_leaves` and `refit_internal`
//! bit for bit, and the twins composed against `Bvh::refit`.

use crate::{Gpu, bits, common};
use meshcollide::bv::KdopNode;
use meshcollide::gpu::kernels;
use meshcollide::gpu::layout::RefitRange;
use meshcollide::gpu::mirror::{kdop_refit, kdop_tumble};
use meshcollide::{BuildOptions, Bvh, Mesh};

/// `refit_leaves` and `refit_internal` on a deformed mesh, bit for bit after every dispatch.
fn refit<const H: usize>(gpu: &mut Gpu, mesh: &Mesh) {
    let bvh = Bvh::<H>::build(mesh, &BuildOptions::default());
    let moved: Vec<[f64; 3]> = mesh
        .positions
        .iter()
        .map(|&[x, y, z]| {
            let (s, c) = (0.6 * z).sin_cos();
            [c * x - s * y, s * x + c * y, 1.5 * z + 0.25]
        })
        .collect();
    let positions: Vec<[f32; 3]> = moved.iter().map(|&p| bvh.frame().local_f32(p)).collect();
    let tri_verts: Vec<u32> = bvh
        .tri_index
        .iter()
        .flat_map(|&t| mesh.triangles[t as usize])
        .collect();
    // The refit's dispatch order is the exact tumbling's (leaves, then levels deepest first).
    let (node_list, slices) = kdop_tumble::exact_dispatch_order(&bvh);
    let nodes_b = gpu.buf(&bvh.nodes);
    let (pos_b, verts_b, list_b) = (
        gpu.buf(&positions),
        gpu.buf(&tri_verts),
        gpu.buf(&node_list),
    );
    let mut cpu = bvh.nodes.clone();
    for (k, &(start, count)) in slices.iter().enumerate() {
        let range = RefitRange {
            start,
            count,
            ..Default::default()
        };
        let range_b = gpu.uniform(&range);
        if k == 0 {
            let b = [
                ("nodes", &nodes_b),
                ("positions", &pos_b),
                ("tri_verts", &verts_b),
                ("node_list", &list_b),
                ("range", &range_b),
            ];
            gpu.run(&kernels::REFIT_LEAVES, H, &b, count as u64);
            kdop_refit::refit_leaves(&mut cpu, &positions, &tri_verts, &node_list, &range);
        } else {
            let b = [
                ("nodes", &nodes_b),
                ("node_list", &list_b),
                ("range", &range_b),
            ];
            gpu.run(&kernels::REFIT_INTERNAL, H, &b, count as u64);
            kdop_refit::refit_internal(&mut cpu, &node_list, &range);
        }
        let got = gpu.read::<KdopNode<H>>(&nodes_b, cpu.len());
        assert_eq!(bits(&got), bits(&cpu), "refit H={H}, dispatch {k}");
    }
    // The twins compose to the CPU refit.
    let mut reference = bvh.clone();
    reference.refit(&moved, &mesh.triangles).unwrap();
    assert_eq!(
        bits(&reference.nodes),
        bits(&cpu),
        "refit H={H}: Bvh::refit"
    );
}

#[test]
fn refit_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let (a, _) = common::tori(12);
    refit::<9>(&mut gpu, &a);
    refit::<7>(
        &mut gpu,
        &common::grid_soup(&mut meshcollide::rng::Rng::new(3), 300),
    );
}
