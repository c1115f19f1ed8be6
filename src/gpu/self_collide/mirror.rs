//! The self-collision pipeline on the CPU, dispatch by dispatch through the kernels' twins
//! (`gpu::mirror`), for parity tests and debugging.

use super::*;

/// [`GpuSelfScene::collide`] on the CPU through the kernels' twins (`gpu::mirror`:
/// `expand_self`, `prepare_tri`, `tri_test_self`, `prepare_next` level by level, with room
/// for every append), then the same host decision: for debugging and for parity of the
/// twins with the kernels and with [`crate::self_collide::collide_bvh`]. Also returns the
/// node pairs entering each level.
pub fn collide_mirror<const H: usize>(bvh: &Bvh<H>, mode: Mode) -> (PoseResult, Vec<u32>) {
    use crate::gpu::mirror::front_expand::{ExpandBindings, expand_self};
    use crate::gpu::mirror::front_prepare::{prepare_next, prepare_tri};
    use crate::gpu::mirror::tri_tri::{SelfTriBindings, tri_test_self};
    let levels = (2 * bvh.depth - 1) as usize;
    let tris = bvh.tris.all_corners_f32();
    let zero = FrontPair::new(0, 0, 0);
    let mut c = GpuCounters {
        n_in: 1,
        mode_first: (mode == Mode::First) as u32,
        ..Default::default()
    };
    let (mut nv, mut np, mut done) = ([0u32], [0u32], [0u32]);
    let (mut contacts, mut unsure) = (Vec::new(), Vec::new());
    let mut level_sizes = vec![0u32; levels];
    let mut args = [0u32; 9];
    let mut front_in = vec![zero];
    for _ in 0..levels {
        // Each input pair appends at most three children or one leaf pair.
        let mut front_out = vec![zero; 3 * c.n_in as usize];
        let mut leaves = vec![zero; c.n_in as usize];
        c.cap_front = front_out.len() as u32;
        c.cap_leaf = leaves.len() as u32;
        expand_self(&mut ExpandBindings {
            env_nodes: &bvh.nodes,
            fly_nodes: &bvh.nodes,
            tumbled: &[],
            front_in: &front_in,
            front_out: &mut front_out,
            leaves: &mut leaves,
            counters: &mut c,
            nv: &mut nv,
            done: &done,
        });
        prepare_tri(&mut c, &mut args);
        let need: usize = leaves[..c.n_leaf as usize]
            .iter()
            .map(|l| (bvh.nodes[l.a as usize].count * bvh.nodes[l.b as usize].count) as usize)
            .sum();
        contacts.resize(c.n_contact as usize + need, zero);
        unsure.resize(c.n_unsure as usize + need, zero);
        c.cap_contact = contacts.len() as u32;
        c.cap_unsure = unsure.len() as u32;
        tri_test_self(&mut SelfTriBindings {
            env_nodes: &bvh.nodes,
            env_tris: &tris,
            leaves: &leaves,
            counters: &mut c,
            np: &mut np,
            done: &mut done,
            contacts: &mut contacts,
            unsure: &mut unsure,
            env_tri_index: &bvh.tri_index,
            env_slots: &bvh.tris.corners,
        });
        prepare_next(&mut c, &mut args, &mut level_sizes);
        front_out.truncate(c.n_in as usize);
        front_in = front_out;
    }
    debug_assert_eq!(c.overflow, 0, "the mirror's capacities never run out");
    contacts.truncate(c.n_contact as usize);
    unsure.truncate(c.n_unsure as usize);
    let pairs = decide(bvh, &contacts, &unsure, mode);
    let counters = Counters {
        bv_tests: nv[0] as u64,
        tri_tests: np[0] as u64,
        ..Default::default()
    };
    (PoseResult { pairs, counters }, level_sizes)
}
