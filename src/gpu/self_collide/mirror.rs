//! The self-collision pipeline on the CPU, dispatch by dispatch through the kernels' twins
//! (`gpu::mirror`), for parity tests and debugging.

use super::*;

/// [`GpuSelfScene::collide`] on the CPU through the kernels' twins (`gpu::mirror`:
/// `expand_self` level by level with its hand-over, then `tri_test_self` over every level's
/// leaf pairs, with room for every append), then the same host decision: for debugging and for parity of the
/// twins with the kernels and with [`crate::self_collide::collide_bvh`]. Also returns the
/// node pairs entering each level.
pub fn collide_mirror<const H: usize>(bvh: &Bvh<H>, mode: Mode) -> (PoseResult, Vec<u32>) {
    collide_mirror_within(bvh, mode, 0.0)
}

/// [`collide_mirror`] at tolerance `eps` ([`GpuSelfScene::collide_within`]).
pub fn collide_mirror_within<const H: usize>(
    bvh: &Bvh<H>,
    mode: Mode,
    eps: f64,
) -> (PoseResult, Vec<u32>) {
    use crate::gpu::mirror::front_expand::{ExpandBindings, expand_self};
    use crate::gpu::mirror::tri_tri::{SelfTriBindings, tri_test_self};
    let levels = (2 * bvh.depth - 1) as usize;
    let tris = bvh.tris.all_corners_f32();
    let zero = FrontPair::new(0, 0, 0);
    let mut c = GpuCounters {
        n_in: 1,
        mode_first: (mode == Mode::First) as u32,
        ..within_counters::<H>(eps)
    };
    let (mut nv, mut np, mut done) = ([0u32], [0u32], [0u32]);
    let mut level_sizes = vec![0u32; levels];
    let (mut next_args, mut tri_args) = ([0u32; 3], [0u32; 3]);
    let mut front_in = vec![zero];
    let mut leaves = Vec::new();
    for _ in 0..levels {
        // Each input pair appends at most three children or one leaf pair; the leaf list
        // keeps every level's.
        let mut front_out = vec![zero; 3 * c.n_in as usize];
        leaves.resize(c.n_leaf as usize + c.n_in as usize, zero);
        c.cap_front = front_out.len() as u32;
        c.cap_leaf = leaves.len() as u32;
        expand_self(&mut ExpandBindings {
            env_nodes: &bvh.nodes,
            fly_nodes: &bvh.nodes,
            tumbled: &mut [],
            front_in: &front_in,
            front_out: &mut front_out,
            leaves: &mut leaves,
            counters: &mut c,
            nv: &mut nv,
            done: &done,
            next_args: &mut next_args,
            tri_args: &mut tri_args,
            level_sizes: &mut level_sizes,
            frames: &[],
            hash_keys: &mut [],
            nu: &mut [],
            fly_offsets: &[],
            fly_points: &[],
            budget_state: &mut [],
        });
        front_out.truncate(c.n_in as usize);
        front_in = front_out;
    }
    let need: usize = leaves[..c.n_leaf as usize]
        .iter()
        .map(|l| (bvh.nodes[l.a as usize].count * bvh.nodes[l.b as usize].count) as usize)
        .sum();
    let mut contacts = vec![zero; need];
    let mut unsure = vec![zero; need];
    c.cap_contact = need as u32;
    c.cap_unsure = need as u32;
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
    debug_assert_eq!(c.overflow, 0, "the mirror's capacities never run out");
    contacts.truncate(c.n_contact as usize);
    unsure.truncate(c.n_unsure as usize);
    let pairs = decide(bvh, &contacts, &unsure, mode, eps);
    let counters = Counters {
        bv_tests: nv[0] as u64,
        tri_tests: np[0] as u64,
        ..Default::default()
    };
    (PoseResult { pairs, counters }, level_sizes)
}
