//! `tri_tri.wgsl` against `gpu::mirror::tri_tri`: `tri_test` over the leaf pairs that
//! `front_expand.rs` meets (ample and tiny append capacities), and self-collision's
//! `expand_self` (of `front_expand.wgsl`) and `tri_test_self`, level by level.

use crate::{Gpu, sorted};
use meshcollide::gpu::collide::GpuPairScene;
use meshcollide::gpu::kernels;
use meshcollide::gpu::layout::{FrontPair, GpuCounters, UNRESOLVED_A, UNRESOLVED_B};
use meshcollide::gpu::mirror::front_expand::{self, ExpandBindings};
use meshcollide::gpu::mirror::tri_tri::{self, TriTestBindings};
use meshcollide::tumble::PoseFrame;
use meshcollide::{BuildOptions, Mesh};

/// One `tri_test` dispatch over `leaves`, with ample and with tiny append capacities.
pub(crate) fn tri_test<const H: usize, S: GpuPairScene<H>>(
    gpu: &mut Gpu,
    scene: &S,
    frames: &[PoseFrame<H>],
    leaves: &[FrontPair],
    first: bool,
    done0: &[u32],
) {
    let (env, fly) = (scene.env(), scene.fly().expect("a tumbling scene"));
    let (env_tris, fly_tris) = (env.tris.all_corners_f32(), fly.bvh.tris.all_corners_f32());
    let p = frames.len();
    let pairs: usize = leaves
        .iter()
        .map(|l| (env.nodes[l.a as usize].count * fly.bvh.nodes[l.b as usize].count) as usize)
        .sum();
    let zero = FrontPair::new(0, 0, 0);
    let statics = [
        gpu.buf(&env.nodes),
        gpu.buf(&fly.bvh.nodes),
        gpu.buf(&env_tris),
        gpu.buf(&fly_tris),
        gpu.buf(frames),
        gpu.buf(leaves),
    ];
    let (env_ti, fly_ti) = (gpu.buf(&env.tri_index), gpu.buf(&fly.bvh.tri_index));
    for tiny in [false, true] {
        // Every triangle pair, and every UNRESOLVED entry of a budget passed on.
        let ample = (pairs + leaves.len()).max(1) as u32;
        let (cap_contact, cap_unsure) = if tiny { (2, 1) } else { (ample, ample) };
        let c0 = GpuCounters {
            n_leaf: leaves.len() as u32 + 5,
            cap_leaf: leaves.len() as u32,
            n_contact: 1,
            cap_contact: cap_contact + 1,
            cap_unsure,
            mode_first: first as u32,
            ..Default::default()
        };
        let np0: Vec<u32> = (0..p as u32).map(|i| 7 * i).collect();
        let (c_b, np_b, done_b) = (gpu.buf(&[c0]), gpu.buf(&np0), gpu.buf(done0));
        let (contacts_b, unsure_b) = (
            gpu.buf(&vec![zero; cap_contact as usize + 1]),
            gpu.buf(&vec![zero; cap_unsure as usize]),
        );
        let names = [
            "env_nodes",
            "fly_nodes",
            "env_tris",
            "fly_tris",
            "frames",
            "leaves",
        ];
        let mut b: Vec<(&str, &wgpu::Buffer)> = names.into_iter().zip(&statics).collect();
        b.extend([
            ("counters", &c_b),
            ("np", &np_b),
            ("done", &done_b),
            ("contacts", &contacts_b),
            ("unsure", &unsure_b),
            ("env_tri_index", &env_ti),
            ("fly_tri_index", &fly_ti),
        ]);
        gpu.run(&kernels::TRI_TEST, H, &b, leaves.len() as u64);
        let (mut c, mut np, mut done) = (c0, np0, done0.to_vec());
        let mut contacts = vec![zero; cap_contact as usize + 1];
        let mut unsure = vec![zero; cap_unsure as usize];
        tri_tri::tri_test(&mut TriTestBindings {
            env_nodes: &env.nodes,
            fly_nodes: &fly.bvh.nodes,
            env_tris: &env_tris,
            fly_tris: &fly_tris,
            frames,
            leaves,
            counters: &mut c,
            np: &mut np,
            done: &mut done,
            contacts: &mut contacts,
            unsure: &mut unsure,
            env_tri_index: &env.tri_index,
            fly_tri_index: &fly.bvh.tri_index,
        });
        let label = format!("tri_test H={H} first={first} tiny={tiny}");
        let got_c: GpuCounters = gpu.read(&c_b, 1)[0];
        let got_done: Vec<u32> = gpu.read(&done_b, p);
        assert_eq!(got_done, done, "{label}: done");
        if first {
            // Invocations of one pose race for `done`: how many ran is the device's.
            continue;
        }
        assert_eq!(got_c, c, "{label}: counters");
        assert_eq!(gpu.read::<u32>(&np_b, p), np, "{label}: np");
        if !tiny {
            let n = |k: u32| k as usize;
            assert_eq!(
                sorted(gpu.read(&contacts_b, n(c.n_contact))),
                sorted(contacts[..n(c.n_contact)].to_vec()),
                "{label}: contacts"
            );
            assert_eq!(
                sorted(gpu.read(&unsure_b, n(c.n_unsure))),
                sorted(unsure[..n(c.n_unsure)].to_vec()),
                "{label}: unsure"
            );
            // (A budget may stop every pose before its contacts.)
            let budgeted = leaves
                .iter()
                .any(|l| [UNRESOLVED_A, UNRESOLVED_B].contains(&l.slot));
            assert!(
                budgeted || c.n_contact > 1,
                "{label}: the scene has contacts"
            );
        } else {
            assert_ne!(c.overflow, 0, "{label}: overflow");
        }
    }
}

/// `expand_self` and `tri_test_self` (self-collision) against their twins, level by level
/// from the root pair of one hierarchy: the same counters, Nv and Np, and the same appended
/// pairs as sorted lists; each level's input is the twin's output.
fn self_levels<const H: usize>(gpu: &mut Gpu, mesh: &Mesh, leaf: u32, first: bool) -> usize {
    use meshcollide::gpu::mirror::tri_tri::SelfTriBindings;
    let bvh = meshcollide::bvh::Bvh::<H>::build(
        mesh,
        &BuildOptions {
            leaf_size: leaf,
            ..Default::default()
        },
    );
    let tris = bvh.tris.all_corners_f32();
    let zero = FrontPair::new(0, 0, 0);
    let (nodes_b, tris_b, ti_b, slots_b) = (
        gpu.buf(&bvh.nodes),
        gpu.buf(&tris),
        gpu.buf(&bvh.tri_index),
        gpu.buf(&bvh.tris.corners),
    );
    let mut front_in = vec![zero];
    let mut contacts_total = 0;
    for level in 0..2 * bvh.depth - 1 {
        let label = format!("self H={H} leaf={leaf} first={first} level {level}");
        let n = front_in.len();
        let c0 = GpuCounters {
            n_in: n as u32,
            cap_front: 3 * n as u32,
            cap_leaf: n as u32,
            mode_first: first as u32,
            ..Default::default()
        };
        let (c_b, in_b, out_b, leaves_b, nv_b, done_b) = (
            gpu.buf(&[c0]),
            // At least one pair each: a binding holds a whole element.
            gpu.buf(&if n == 0 { vec![zero] } else { front_in.clone() }),
            gpu.buf(&vec![zero; 3 * n.max(1)]),
            gpu.buf(&vec![zero; n.max(1)]),
            gpu.buf(&[5u32]),
            gpu.buf(&[0u32]),
        );
        let (next_b, tri_b, sizes_b) = (gpu.buf(&[7u32; 3]), gpu.buf(&[7u32; 3]), gpu.buf(&[7u32]));
        let budget_b = gpu.buf(&[0u32; 2]);
        gpu.run(
            &kernels::EXPAND_SELF,
            H,
            &[
                ("env_nodes", &nodes_b),
                ("front_in", &in_b),
                ("front_out", &out_b),
                ("leaves", &leaves_b),
                ("counters", &c_b),
                ("nv", &nv_b),
                ("done", &done_b),
                ("next_args", &next_b),
                ("tri_args", &tri_b),
                ("level_sizes", &sizes_b),
                ("budget_state", &budget_b),
            ],
            n as u64,
        );
        let (mut c, mut nv, mut out, mut leaves) = (c0, [5u32], vec![zero; 3 * n], vec![zero; n]);
        let (mut next, mut tri, mut sizes) = ([7u32; 3], [7u32; 3], [7u32]);
        front_expand::expand_self(&mut ExpandBindings {
            env_nodes: &bvh.nodes,
            fly_nodes: &bvh.nodes,
            tumbled: &mut [],
            front_in: &front_in,
            front_out: &mut out,
            leaves: &mut leaves,
            counters: &mut c,
            nv: &mut nv,
            done: &[0],
            next_args: &mut next,
            tri_args: &mut tri,
            level_sizes: &mut sizes,
            frames: &[],
            hash_keys: &mut [],
            nu: &mut [],
            budget_state: &mut [],
            fly_offsets: &[],
            fly_points: &[],
        });
        assert_eq!(gpu.read::<GpuCounters>(&c_b, 1)[0], c, "{label}: counters");
        assert_eq!(gpu.read::<u32>(&nv_b, 1), nv.to_vec(), "{label}: nv");
        assert_eq!(gpu.read::<u32>(&next_b, 3), next, "{label}: next_args");
        assert_eq!(gpu.read::<u32>(&tri_b, 3), tri, "{label}: tri_args");
        assert_eq!(gpu.read::<u32>(&sizes_b, 1), sizes, "{label}: level_sizes");
        // After the hand-over the appended pairs are the next input.
        let (n_out, n_leaf) = (c.n_in as usize, c.n_leaf as usize);
        assert_eq!(
            sorted(gpu.read(&out_b, n_out)),
            sorted(out[..n_out].to_vec())
        );
        assert_eq!(
            sorted(gpu.read(&leaves_b, n_leaf)),
            sorted(leaves[..n_leaf].to_vec()),
            "{label}: leaves"
        );
        let leaves = leaves[..n_leaf].to_vec();
        let room: usize = leaves
            .iter()
            .map(|l| (bvh.nodes[l.a as usize].count * bvh.nodes[l.b as usize].count) as usize)
            .sum::<usize>()
            .max(1);
        let t0 = GpuCounters {
            n_leaf: n_leaf as u32,
            cap_leaf: n_leaf as u32,
            cap_contact: room as u32,
            cap_unsure: room as u32,
            mode_first: first as u32,
            ..Default::default()
        };
        let (t_b, l_b, np_b, done_b, con_b, uns_b) = (
            gpu.buf(&[t0]),
            // At least one pair: a binding holds a whole element.
            gpu.buf(&if leaves.is_empty() {
                vec![zero]
            } else {
                leaves.clone()
            }),
            gpu.buf(&[3u32]),
            gpu.buf(&[0u32]),
            gpu.buf(&vec![zero; room]),
            gpu.buf(&vec![zero; room]),
        );
        gpu.run(
            &kernels::TRI_TEST_SELF,
            H,
            &[
                ("env_nodes", &nodes_b),
                ("env_tris", &tris_b),
                ("leaves", &l_b),
                ("counters", &t_b),
                ("np", &np_b),
                ("done", &done_b),
                ("contacts", &con_b),
                ("unsure", &uns_b),
                ("env_tri_index", &ti_b),
                ("env_slots", &slots_b),
            ],
            n_leaf as u64,
        );
        let (mut t, mut np, mut done) = (t0, [3u32], [0u32]);
        let (mut con, mut uns) = (vec![zero; room], vec![zero; room]);
        tri_tri::tri_test_self(&mut SelfTriBindings {
            env_nodes: &bvh.nodes,
            env_tris: &tris,
            leaves: &leaves,
            counters: &mut t,
            np: &mut np,
            done: &mut done,
            contacts: &mut con,
            unsure: &mut uns,
            env_tri_index: &bvh.tri_index,
            env_slots: &bvh.tris.corners,
        });
        assert_eq!(gpu.read::<u32>(&done_b, 1), done.to_vec(), "{label}: done");
        if !first {
            assert_eq!(
                gpu.read::<GpuCounters>(&t_b, 1)[0],
                t,
                "{label}: tri counters"
            );
            assert_eq!(gpu.read::<u32>(&np_b, 1), np.to_vec(), "{label}: np");
            let (nc, nu) = (t.n_contact as usize, t.n_unsure as usize);
            assert_eq!(sorted(gpu.read(&con_b, nc)), sorted(con[..nc].to_vec()));
            assert_eq!(sorted(gpu.read(&uns_b, nu)), sorted(uns[..nu].to_vec()));
            contacts_total += nc;
        }
        out.truncate(n_out);
        front_in = out;
    }
    assert!(front_in.is_empty(), "2·depth − 1 levels empty the front");
    contacts_total
}

#[test]
fn self_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    // Its intersections are touching contacts at the fold (UNSURE for the filter).
    let sheet = meshcollide::mesh::generate::folded_sheet(24, 4, 0.5);
    self_levels::<9>(&mut gpu, &sheet, 1, false);
    let spindle = meshcollide::mesh::generate::torus([0.0; 3], 1.0, 1.3, 16, 10);
    self_levels::<9>(&mut gpu, &spindle, 2, true);
    // Proper crossings: the filter's HITs.
    let soup = meshcollide::mesh::generate::random_soup(1, 150, 1.0, 0.3);
    assert!(self_levels::<9>(&mut gpu, &soup, 1, false) > 0);
    self_levels::<9>(&mut gpu, &soup, 4, true);
    self_levels::<13>(&mut gpu, &sheet, 3, false);
    self_levels::<9>(&mut gpu, &sheet, 1, true);
    let soup = meshcollide::mesh::generate::degenerate_soup(3, 120, 1.0);
    self_levels::<3>(&mut gpu, &soup, 2, false);
}
