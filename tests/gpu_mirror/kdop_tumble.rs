//! `kdop_tumble.wgsl` against `gpu::mirror::kdop_tumble`: lazy tumbling into the hash table
//! (`tumble_front`, `tumble_fresh`, with `prepare_tumble` of `front_prepare.wgsl` between),
//! the table's growth (`rehash`, `reslot`), and exact tumbling (`tumble_exact_leaves`,
//! `tumble_exact_merge`).

use crate::{Gpu, bits, kdop_scene, poses};
use meshcollide::Pose;
use meshcollide::bv::Kdop;
use meshcollide::gpu::kernels;
use meshcollide::gpu::layout::{FrontPair, GpuCounters, NO_SLOT, SliceParams};
use meshcollide::gpu::mirror::{front_prepare, kdop_tumble};
use meshcollide::kdop::KdopScene as Scene;

/// `rehash` (a full table moved into one twice as large) and `reslot` (the front's pairs
/// pointed at the new slots) against their twins: every placed pair's new slot holds the
/// k-DOP its old slot held, the keys are the same, nothing overflows.
fn grow_table<const H: usize>(
    gpu: &mut Gpu,
    front: &[FrontPair],
    keys_b: &wgpu::Buffer,
    tumbled_b: &wgpu::Buffer,
    c: GpuCounters,
    table: u32,
) {
    let big = 2 * table;
    let old_keys: Vec<u32> = gpu.read(keys_b, table as usize);
    let old_tumbled: Vec<Kdop<H>> = gpu.read(tumbled_b, table as usize);
    let c1 = GpuCounters {
        hash_mask: big - 1,
        n_in: front.len() as u32,
        ..c
    };
    let front_b = &gpu.buf(front);
    let (new_t, new_k, c1_b) = (
        gpu.buf(&vec![Kdop::<H>::EMPTY; big as usize]),
        gpu.buf(&vec![0u32; big as usize]),
        gpu.buf(&[c1]),
    );
    let b = [
        ("tumbled", &new_t),
        ("counters", &c1_b),
        ("hash_keys", &new_k),
        ("old_keys", keys_b),
        ("old_tumbled", tumbled_b),
    ];
    gpu.run(&kernels::REHASH, H, &b, table as u64);
    let b = [
        ("front", front_b),
        ("counters", &c1_b),
        ("hash_keys", &new_k),
    ];
    gpu.run(&kernels::RESLOT, H, &b, front.len() as u64);
    let (mut m_t, mut m_k, mut m_c) = (
        vec![Kdop::<H>::EMPTY; big as usize],
        vec![0u32; big as usize],
        c1,
    );
    let mut m_front = front.to_vec();
    kdop_tumble::rehash(&mut m_t, &mut m_c, &mut m_k, &old_keys, &old_tumbled);
    kdop_tumble::reslot(&mut m_front, &mut m_c, &m_k);
    assert_eq!(m_c.overflow, 0, "the twin's table grew without overflow");
    let g_c: GpuCounters = gpu.read(&c1_b, 1)[0];
    assert_eq!(g_c.overflow, 0, "rehash/reslot H={H}: overflow");
    let g_front: Vec<FrontPair> = gpu.read(front_b, front.len());
    let g_t: Vec<Kdop<H>> = gpu.read(&new_t, big as usize);
    let mut moved = 0;
    for (i, old) in front.iter().enumerate() {
        if old.slot == NO_SLOT {
            continue;
        }
        let was = bits(&[old_tumbled[old.slot as usize]]);
        assert_eq!(
            bits(&[g_t[g_front[i].slot as usize]]),
            was,
            "reslot H={H} pair {i}"
        );
        assert_eq!(
            bits(&[m_t[m_front[i].slot as usize]]),
            was,
            "twin H={H} pair {i}"
        );
        moved += 1;
    }
    assert!(moved > 0);
    let sorted = |mut k: Vec<u32>| {
        k.retain(|&x| x != 0);
        k.sort_unstable();
        k
    };
    let g_k = sorted(gpu.read(&new_k, big as usize));
    assert_eq!(g_k, sorted(m_k), "rehash H={H}: keys");
    assert_eq!(g_k, sorted(old_keys), "rehash H={H}: every key moved");
}

/// `tumble_front`, `prepare_tumble` and `tumble_fresh` (lazy tumbling into a hash table)
/// against their twins: every pair's slot holds the same k-DOP on both sides (slots may
/// differ where keys collide, as insertion order does), the same keys are inserted and
/// listed as fresh, the same nodes counted per pose; a table too small overflows on both.
/// Then `tumble_exact_leaves` and `tumble_exact_merge`, bit for bit after every dispatch.
fn tumbling<const H: usize>(gpu: &mut Gpu, scene: &Scene<H>, poses: &[Pose]) {
    let fly = &scene.fly;
    let frames = fly.pose_frames(scene.env.frame(), poses);
    let (p, n_fly) = (poses.len() as u32, fly.bvh.nodes.len() as u32);
    let n = (p * n_fly) as usize;
    let frames_b = gpu.buf(&frames);
    let (offsets, points) = (gpu.buf(&fly.offsets), gpu.buf(&fly.points));
    // A front with repeated (pose, node) keys, the root, and pairs already placed.
    let mut rng = meshcollide::rng::Rng::new(5);
    let front: Vec<FrontPair> = (0..3 * n as u32 / 4)
        .map(|i| {
            let pose = rng.below(p as u64) as u32;
            let b = if i % 7 == 0 {
                0
            } else {
                rng.below(n_fly as u64 / 3) as u32
            };
            let slot = if i % 11 == 0 { 3 } else { NO_SLOT };
            FrontPair {
                pose,
                a: i,
                b,
                slot,
            }
        })
        .collect();
    for table in [(2 * n).next_power_of_two() as u32, 16] {
        let c0 = GpuCounters {
            n_in: front.len() as u32,
            n_fly,
            lazy: 1,
            hash_mask: table - 1,
            ..Default::default()
        };
        let (tumbled_b, front_b, c_b, keys_b, nu_b, fresh_b, args_b) = (
            gpu.buf(&vec![Kdop::<H>::EMPTY; table as usize]),
            gpu.buf(&front),
            gpu.buf(&[c0]),
            gpu.buf(&vec![0u32; table as usize]),
            gpu.buf(&vec![0u32; p as usize]),
            gpu.buf(&vec![0u32; table as usize]),
            gpu.buf(&[0u32; 3]),
        );
        let b = [
            ("front", &front_b),
            ("counters", &c_b),
            ("hash_keys", &keys_b),
            ("nu", &nu_b),
            ("fresh", &fresh_b),
        ];
        gpu.run(&kernels::TUMBLE_FRONT, H, &b, front.len() as u64);
        gpu.run(
            &kernels::PREPARE_TUMBLE,
            H,
            &[("counters", &c_b), ("args", &args_b)],
            1,
        );
        let b = [
            ("frames", &frames_b),
            ("fly_offsets", &offsets),
            ("fly_points", &points),
            ("tumbled", &tumbled_b),
            ("counters", &c_b),
            ("hash_keys", &keys_b),
            ("fresh", &fresh_b),
        ];
        gpu.run(&kernels::TUMBLE_FRESH, H, &b, table as u64);
        let mut cpu_tumbled = vec![Kdop::<H>::EMPTY; table as usize];
        let mut cpu_front = front.clone();
        let mut c = c0;
        let mut keys = vec![0u32; table as usize];
        let mut nu = vec![0u32; p as usize];
        let mut fresh = vec![0u32; table as usize];
        let mut args = [0u32; 3];
        kdop_tumble::tumble_front(&mut cpu_front, &mut c, &mut keys, &mut nu, &mut fresh);
        front_prepare::prepare_tumble(&mut c, &mut args);
        kdop_tumble::tumble_fresh(
            &frames,
            &fly.offsets,
            &fly.points,
            &mut cpu_tumbled,
            &c,
            &keys,
            &fresh,
        );
        let g_c: GpuCounters = gpu.read(&c_b, 1)[0];
        assert_eq!(
            (g_c.n_fresh, g_c.fresh_in),
            (c.n_fresh, c.fresh_in),
            "prepare_tumble H={H}"
        );
        assert_eq!(gpu.read::<u32>(&args_b, 3), args, "prepare_tumble H={H}");
        // On each side the fresh list names every inserted key once (full table or not).
        let g_table: Vec<u32> = gpu.read(&keys_b, table as usize);
        let g_fresh: Vec<u32> = gpu.read(&fresh_b, g_c.fresh_in as usize);
        for (side, table_keys, list) in [
            ("gpu", &g_table, &g_fresh[..]),
            ("twin", &keys, &fresh[..c.fresh_in as usize]),
        ] {
            let mut listed: Vec<u32> = list.iter().map(|&h| table_keys[h as usize]).collect();
            let mut inserted: Vec<u32> = table_keys.iter().copied().filter(|&k| k != 0).collect();
            listed.sort_unstable();
            inserted.sort_unstable();
            assert_eq!(listed, inserted, "tumble_front H={H} {side}: fresh slots");
        }
        assert_eq!(
            g_c.overflow & 16,
            c.overflow & 16,
            "tumble_front H={H} overflow"
        );
        if table == 16 {
            assert_ne!(c.overflow & 16, 0, "a 16-slot table must fill up");
            continue;
        }
        assert_eq!(c.overflow, 0);
        let g_front: Vec<FrontPair> = gpu.read(&front_b, front.len());
        let g_tumbled: Vec<Kdop<H>> = gpu.read(&tumbled_b, table as usize);
        for (i, (g, m)) in g_front.iter().zip(&cpu_front).enumerate() {
            assert_eq!((g.pose, g.a, g.b), (m.pose, m.a, m.b));
            if front[i].slot != NO_SLOT {
                assert_eq!(g.slot, front[i].slot, "a placed pair keeps its slot");
                continue;
            }
            assert_eq!(
                bits(&[g_tumbled[g.slot as usize]]),
                bits(&[cpu_tumbled[m.slot as usize]]),
                "tumble_front H={H} pair {i}"
            );
            // And it is the node's k-DOP at that pose (the CPU traversal's formula).
            let want = if g.b == 0 {
                frames[g.pose as usize].root
            } else {
                fly.tumble_node(g.b as usize, &frames[g.pose as usize])
            };
            assert_eq!(bits(&[g_tumbled[g.slot as usize]]), bits(&[want]));
        }
        let mut g_keys: Vec<u32> = gpu.read(&keys_b, table as usize);
        g_keys.retain(|&k| k != 0);
        g_keys.sort_unstable();
        keys.retain(|&k| k != 0);
        keys.sort_unstable();
        assert_eq!(g_keys, keys, "tumble_front H={H}: inserted keys");
        assert_eq!(
            gpu.read::<u32>(&nu_b, p as usize),
            nu,
            "tumble_front H={H}: nu"
        );
        assert_eq!(g_c.n_tumbled, c.n_tumbled);
        assert!(c.n_tumbled > p, "some nodes tumbled per pose");
        // The pairs tumble_front placed (the made-up slots of the others name no key).
        let placed: Vec<FrontPair> = g_front
            .iter()
            .zip(&front)
            .filter(|(_, f)| f.slot == NO_SLOT)
            .map(|(g, _)| *g)
            .collect();
        grow_table::<H>(gpu, &placed, &keys_b, &tumbled_b, g_c, table);
    }
    // Exact method: the leaves, then one merge per level, compared after each dispatch.
    let tris = fly.bvh.tris.all_corners_f32();
    let (node_list, slices) = kdop_tumble::exact_dispatch_order(&fly.bvh);
    let tumbled_b = gpu.buf(&vec![Kdop::<H>::EMPTY; n]);
    let (nodes_b, tris_b, list_b) = (gpu.buf(&fly.bvh.nodes), gpu.buf(&tris), gpu.buf(&node_list));
    let mut cpu = vec![Kdop::<H>::EMPTY; n];
    for (k, &(start, count)) in slices.iter().enumerate() {
        let slice = SliceParams {
            start,
            count,
            n_poses: p,
            n_fly,
        };
        let slice_b = gpu.uniform(&slice);
        let grid = (count * p) as u64;
        if k == 0 {
            let b = [
                ("frames", &frames_b),
                ("tumbled", &tumbled_b),
                ("fly_nodes", &nodes_b),
                ("fly_tris", &tris_b),
                ("fly_node_list", &list_b),
                ("slice", &slice_b),
            ];
            gpu.run(&kernels::TUMBLE_EXACT_LEAVES, H, &b, grid);
            kdop_tumble::tumble_exact_leaves(
                &frames,
                &mut cpu,
                &fly.bvh.nodes,
                &tris,
                &node_list,
                &slice,
            );
        } else {
            let b = [
                ("tumbled", &tumbled_b),
                ("fly_nodes", &nodes_b),
                ("fly_node_list", &list_b),
                ("slice", &slice_b),
            ];
            gpu.run(&kernels::TUMBLE_EXACT_MERGE, H, &b, grid);
            kdop_tumble::tumble_exact_merge(&mut cpu, &fly.bvh.nodes, &node_list, &slice);
        }
        assert_eq!(
            bits(&gpu.read::<Kdop<H>>(&tumbled_b, n)),
            bits(&cpu),
            "exact tumbling H={H}, dispatch {k}"
        );
    }
}

#[test]
fn tumble_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    tumbling::<9>(&mut gpu, &kdop_scene(1), &poses);
    tumbling::<13>(&mut gpu, &kdop_scene(4), &poses);
    tumbling::<3>(&mut gpu, &kdop_scene(2), &poses);
}
