//! `front_expand.wgsl` against `gpu::mirror::front_expand`: `expand` (both descent rules,
//! tiny capacities, first-contact mode, each run ending with a `tri_test` of `tri_tri.wgsl`),
//! `expand_dual` and `expand_record`, level by level from the roots. `expand_self` runs with
//! `tri_test_self` in `tri_tri.rs`.

use crate::{Gpu, dual_scene, kdop_scene, kdop_scene_with, poses, sorted, tri_tri::tri_test};
use meshcollide::bv::Kdop;
use meshcollide::dual::{DualOptions, SlabOrder};
use meshcollide::gpu::collide::GpuPairScene;
use meshcollide::gpu::kernels;
use meshcollide::gpu::layout::{FrontPair, GpuCounters, UNRESOLVED_A, UNRESOLVED_B};
use meshcollide::gpu::mirror::front_expand::{self, DualBindings, ExpandBindings, RecordBindings};
use meshcollide::tumble::PoseFrame;
use meshcollide::{KdopOptions, Pose};

/// What one `expand` (or `expand_dual`) dispatch wrote, its hand-over included.
#[derive(Debug, PartialEq)]
struct Expanded {
    counters: GpuCounters,
    front_out: Vec<(u32, u32, u32, u32)>,
    leaves: Vec<(u32, u32, u32, u32)>,
    nv: Vec<u32>,
    dual_counts: Vec<u32>,
    budget_state: Vec<u32>,
    /// `next_args`, `tri_args`, `level_sizes[0]`.
    hand_over: ([u32; 3], [u32; 3], u32),
}

/// Lazy tumbling's bindings of the k-DOP expansions: `hash_keys`, `nu`, `fly_offsets`,
/// `fly_points`.
fn lazy_table_buffers(
    gpu: &Gpu,
    p: u32,
    offsets: &[u32],
    points: &[[f32; 3]],
) -> [wgpu::Buffer; 4] {
    [
        gpu.buf(&[0u32; 1]),
        gpu.buf(&vec![0u32; p as usize]),
        gpu.buf(offsets),
        gpu.buf(points),
    ]
}

/// The hand-over's buffers: `next_args`, `tri_args`, `level_sizes` (one level).
fn hand_over_buffers(gpu: &Gpu) -> [wgpu::Buffer; 3] {
    [
        gpu.buf(&[7u32; 3]),
        gpu.buf(&[7u32; 3]),
        gpu.buf(&[7u32; 1]),
    ]
}

/// The hand-over as read back from the device.
fn read_hand_over(gpu: &Gpu, b: &[wgpu::Buffer; 3]) -> ([u32; 3], [u32; 3], u32) {
    let three = |v: Vec<u32>| [v[0], v[1], v[2]];
    (
        three(gpu.read(&b[0], 3)),
        three(gpu.read(&b[1], 3)),
        gpu.read(&b[2], 1)[0],
    )
}

/// Pairs an expansion appended to `front_out`: after a hand-over they are the next input
/// (`n_in`); after an overflow the counters stay as the expansion left them.
fn appended(c: &GpuCounters, cap_front: u32) -> usize {
    if c.overflow != 0 {
        c.n_out.min(cap_front) as usize
    } else {
        c.n_in as usize
    }
}

/// Runs the front level by level on both sides (each level's input is the twin's output),
/// comparing every `expand` dispatch, then one `tri_test` over all leaf pairs met. `caps`:
/// `(front, leaf)` capacities, or `None` for enough room; with `first`, a third of the poses
/// start done in first-contact mode. With `budget`, each pose may spend that many node
/// tests below its root pair (`budget_state` carried from level to level, each level's
/// input the twin's output): stopped poses' pairs come back as UNRESOLVED leaf entries.
fn front_levels<const H: usize, S: GpuPairScene<H>>(
    gpu: &mut Gpu,
    scene: &S,
    poses: &[Pose],
    caps: Option<(u32, u32)>,
    first: bool,
    budget: Option<u32>,
) -> Vec<FrontPair> {
    front_levels_within(gpu, scene, poses, caps, first, budget, None)
}

/// [`front_levels`] of a tolerance query at `within` (`None`: the intersection query): the
/// counters' `within` flag and the slab margins of `proximity::slab_margins_f32`.
fn front_levels_within<const H: usize, S: GpuPairScene<H>>(
    gpu: &mut Gpu,
    scene: &S,
    poses: &[Pose],
    caps: Option<(u32, u32)>,
    first: bool,
    budget: Option<u32>,
    within: Option<f64>,
) -> Vec<FrontPair> {
    let mut margins = [0u32; meshcollide::gpu::layout::MAX_SLABS];
    if let Some(eps) = within {
        for (m, x) in margins
            .iter_mut()
            .zip(meshcollide::proximity::slab_margins_f32::<H>(eps))
        {
            *m = x.to_bits();
        }
    }
    let (env, fly) = (scene.env(), scene.fly().expect("a tumbling scene"));
    let frames: Vec<PoseFrame<H>> = fly.pose_frames(env.frame(), poses);
    let (p, n_fly) = (poses.len() as u32, fly.bvh.nodes.len() as u32);
    // Dense tumbled k-DOPs (`pose · n_fly + node`), by the traversal's formula.
    let tumbled: Vec<Kdop<H>> = (0..p as usize * n_fly as usize)
        .map(|i| {
            let (pose, node) = (i / n_fly as usize, i % n_fly as usize);
            if node == 0 {
                frames[pose].root
            } else {
                fly.tumble_node(node, &frames[pose])
            }
        })
        .collect();
    let dual = scene.dual();
    let dual_flags = dual.map_or(0, |(_, _, o)| {
        (o.order == SlabOrder::PerPair) as u32 | (o.symmetric as u32) << 1
    });
    let done: Vec<u32> = (0..p).map(|i| (first && i % 3 == 1) as u32).collect();
    let (env_nodes, fly_nodes, tumbled_b, done_b, frames_b) = (
        gpu.buf(&env.nodes),
        gpu.buf(&fly.bvh.nodes),
        gpu.buf(&tumbled),
        gpu.buf(&done),
        gpu.buf(&frames),
    );
    let spheres = dual.map(|(e, f, _)| (gpu.buf(e), gpu.buf(f)));
    // Lazy tumbling's bindings, unused here (dense slots, `lazy` 0).
    let table_b = lazy_table_buffers(gpu, p, &fly.offsets, &fly.points);
    let zero = FrontPair::new(0, 0, 0);
    let mut front: Vec<FrontPair> = (0..p)
        .map(|pose| FrontPair {
            pose,
            a: 0,
            b: 0,
            slot: pose * n_fly,
        })
        .collect();
    let mut all_leaves = Vec::new();
    let mut level = 0;
    let mut overflowed = false;
    let mut budget_state = vec![0u32; 2 * p as usize];
    while !front.is_empty() {
        let (cap_front, cap_leaf) = caps.unwrap_or((2 * front.len() as u32, front.len() as u32));
        let c0 = GpuCounters {
            n_in: front.len() as u32,
            cap_front,
            cap_leaf,
            n_fly,
            mode_first: first as u32,
            dual_flags,
            descent_larger: scene.descent_larger() as u32,
            budgeted: budget.is_some() as u32,
            budget: budget.unwrap_or(0),
            n_poses: p,
            within: within.is_some() as u32,
            margins,
            ..Default::default()
        };
        let nv0: Vec<u32> = (0..p).map(|i| 3 * i).collect();
        let budget_b = gpu.buf(&budget_state);
        let dc0: Vec<u32> = (0..3 * p).collect();
        let (front_in_b, front_out_b, leaves_b, c_b, nv_b, dc_b) = (
            gpu.buf(&front),
            gpu.buf(&vec![zero; cap_front as usize]),
            gpu.buf(&vec![zero; cap_leaf as usize]),
            gpu.buf(&[c0]),
            gpu.buf(&nv0),
            gpu.buf(&dc0),
        );
        let hb = hand_over_buffers(gpu);
        let mut b: Vec<(&str, &wgpu::Buffer)> = vec![
            ("env_nodes", &env_nodes),
            ("fly_nodes", &fly_nodes),
            ("tumbled", &tumbled_b),
            ("front_in", &front_in_b),
            ("front_out", &front_out_b),
            ("leaves", &leaves_b),
            ("counters", &c_b),
            ("nv", &nv_b),
            ("done", &done_b),
            ("next_args", &hb[0]),
            ("tri_args", &hb[1]),
            ("level_sizes", &hb[2]),
            ("frames", &frames_b),
            ("hash_keys", &table_b[0]),
            ("nu", &table_b[1]),
            ("fly_offsets", &table_b[2]),
            ("fly_points", &table_b[3]),
            ("budget_state", &budget_b),
        ];
        let (mut c, mut nv, mut dc) = (c0, nv0, dc0);
        let mut front_out = vec![zero; cap_front as usize];
        let mut leaves = vec![zero; cap_leaf as usize];
        let (mut next_args, mut tri_args, mut level_sizes) = ([7u32; 3], [7u32; 3], [7u32; 1]);
        let (mut tumbled, mut keys, mut nu) = (tumbled.clone(), [0u32; 1], vec![0u32; p as usize]);
        let mut e = ExpandBindings {
            env_nodes: &env.nodes,
            fly_nodes: &fly.bvh.nodes,
            tumbled: &mut tumbled,
            front_in: &front,
            front_out: &mut front_out,
            leaves: &mut leaves,
            counters: &mut c,
            nv: &mut nv,
            done: &done,
            next_args: &mut next_args,
            tri_args: &mut tri_args,
            level_sizes: &mut level_sizes,
            frames: &frames,
            hash_keys: &mut keys,
            nu: &mut nu,
            fly_offsets: &fly.offsets,
            fly_points: &fly.points,
            budget_state: &mut budget_state,
        };
        let kernel = match (dual, &spheres) {
            (Some((env_s, fly_s, _)), Some((env_sb, fly_sb))) => {
                b.extend([
                    ("env_spheres", env_sb),
                    ("fly_spheres", fly_sb),
                    ("dual_counts", &dc_b),
                ]);
                let mut d = DualBindings {
                    env_spheres: env_s,
                    fly_spheres: fly_s,
                    dual_counts: &mut dc,
                };
                front_expand::expand_dual(&mut e, &mut d);
                &kernels::EXPAND_DUAL
            }
            _ => {
                front_expand::expand(&mut e);
                &kernels::EXPAND
            }
        };
        gpu.run(kernel, H, &b, front.len() as u64);
        let entry = kernel.entry;
        let got_c: GpuCounters = gpu.read(&c_b, 1)[0];
        let stored = |n: u32, cap: u32| n.min(cap) as usize;
        let (n_out, n_leaf) = (appended(&c, cap_front), stored(c.n_leaf, cap_leaf));
        let got = Expanded {
            counters: got_c,
            front_out: sorted(gpu.read(&front_out_b, appended(&got_c, cap_front))),
            leaves: sorted(gpu.read(&leaves_b, stored(got_c.n_leaf, cap_leaf))),
            nv: gpu.read(&nv_b, p as usize),
            dual_counts: gpu.read(&dc_b, 3 * p as usize),
            budget_state: gpu.read(&budget_b, 2 * p as usize),
            hand_over: read_hand_over(gpu, &hb),
        };
        let mut want = Expanded {
            counters: c,
            front_out: sorted(front_out[..n_out].to_vec()),
            leaves: sorted(leaves[..n_leaf].to_vec()),
            nv,
            dual_counts: dc,
            budget_state: budget_state.clone(),
            hand_over: (next_args, tri_args, level_sizes[0]),
        };
        if c.overflow != 0 {
            // Which appends found room is the device's order: compare the counters only.
            overflowed = true;
            want.front_out.clone_from(&got.front_out);
            want.leaves.clone_from(&got.leaves);
        }
        assert_eq!(got, want, "{entry} H={H} level {level}");
        all_leaves.extend_from_slice(&leaves[..n_leaf]);
        front_out.truncate(n_out);
        front = front_out;
        level += 1;
    }
    assert_eq!(
        caps.is_some(),
        overflowed,
        "tiny capacities overflow, ample ones do not"
    );
    assert!(level < (env.depth + fly.bvh.depth) as usize, "levels H={H}");
    if !all_leaves.is_empty() {
        tri_test::<H, S>(gpu, scene, &frames, &all_leaves, first, &done);
    }
    all_leaves
}

#[test]
fn expand_and_tri_test_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    for first in [false, true] {
        let leaves = front_levels::<9, _>(&mut gpu, &kdop_scene::<9>(1), &poses, None, first, None);
        assert!(!leaves.is_empty());
        front_levels::<13, _>(&mut gpu, &kdop_scene::<13>(3), &poses, None, first, None);
    }
    front_levels::<9, _>(
        &mut gpu,
        &kdop_scene::<9>(1),
        &poses,
        Some((8, 3)),
        false,
        None,
    );
    // The CPU's default descent (the larger k-DOP first).
    let larger = kdop_scene_with::<9>(1, KdopOptions::default());
    let leaves = front_levels::<9, _>(&mut gpu, &larger, &poses, None, false, None);
    assert!(!leaves.is_empty());
}

/// The budget's part of `expand` and its hand-over (`budget_skips`, the pushes counted,
/// `budget_level`) against the twins, with budgets that stop poses at different levels, one
/// with tiny capacities (an overflowed level does not spend), and first-contact mode: some
/// pose stops and its pairs come back as UNRESOLVED leaf entries.
#[test]
fn a_budgeted_expand_matches_its_twin() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    let scene = kdop_scene::<9>(1);
    for budget in [0, 2, 6, 14, 40] {
        let leaves = front_levels::<9, _>(&mut gpu, &scene, &poses, None, false, Some(budget));
        let unresolved = leaves
            .iter()
            .filter(|l| [UNRESOLVED_A, UNRESOLVED_B].contains(&l.slot))
            .count();
        if budget <= 14 {
            assert!(unresolved > 0, "budget {budget}: some pose stops");
        }
    }
    front_levels::<9, _>(&mut gpu, &scene, &poses, Some((8, 3)), false, Some(6));
    front_levels::<9, _>(&mut gpu, &scene, &poses, None, true, Some(6));
}

/// `expand_record` (temporal coherence) against its twin, level by level from the roots:
/// the expansion of `expand` and the recorded front (disjoint and leaf pairs), with a record
/// buffer large enough and one of two pairs (the count still grows).
#[test]
fn expand_record_matches_its_twin() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    let scene = kdop_scene_with::<9>(1, KdopOptions::default());
    let (env, fly) = (&scene.env, &scene.fly);
    let frames: Vec<PoseFrame<9>> = fly.pose_frames(env.frame(), &poses);
    let (p, n_fly) = (poses.len() as u32, fly.bvh.nodes.len() as u32);
    let tumbled: Vec<Kdop<9>> = (0..p as usize * n_fly as usize)
        .map(|i| {
            let (pose, node) = (i / n_fly as usize, i % n_fly as usize);
            if node == 0 {
                frames[pose].root
            } else {
                fly.tumble_node(node, &frames[pose])
            }
        })
        .collect();
    let done = vec![0u32; p as usize];
    let (env_nodes, fly_nodes, tumbled_b, done_b, frames_b) = (
        gpu.buf(&env.nodes),
        gpu.buf(&fly.bvh.nodes),
        gpu.buf(&tumbled),
        gpu.buf(&done),
        gpu.buf(&frames),
    );
    let table_b = lazy_table_buffers(&gpu, p, &fly.offsets, &fly.points);
    let budget_b = gpu.buf(&[0u32; 2]);
    let zero = FrontPair::new(0, 0, 0);
    for record_cap in [1usize << 16, 2] {
        let mut front: Vec<FrontPair> = (0..p)
            .map(|pose| FrontPair {
                pose,
                a: 0,
                b: 0,
                slot: pose * n_fly,
            })
            .collect();
        let mut level = 0;
        let mut recorded = 0u32;
        while !front.is_empty() {
            let (cap_front, cap_leaf) = (2 * front.len() as u32, front.len() as u32);
            let c0 = GpuCounters {
                n_in: front.len() as u32,
                cap_front,
                cap_leaf,
                n_fly,
                descent_larger: 1,
                ..Default::default()
            };
            let nv0 = vec![0u32; p as usize];
            let (front_in_b, front_out_b, leaves_b, c_b, nv_b, rec_b, count_b) = (
                gpu.buf(&front),
                gpu.buf(&vec![zero; cap_front as usize]),
                gpu.buf(&vec![zero; cap_leaf as usize]),
                gpu.buf(&[c0]),
                gpu.buf(&nv0),
                gpu.buf(&vec![zero; record_cap]),
                gpu.buf(&[recorded]),
            );
            let (mut c, mut nv) = (c0, nv0);
            let mut front_out = vec![zero; cap_front as usize];
            let mut leaves = vec![zero; cap_leaf as usize];
            let mut records = vec![zero; record_cap];
            let mut count = [recorded];
            let hb = hand_over_buffers(&gpu);
            let (mut next_args, mut tri_args, mut level_sizes) = ([7u32; 3], [7u32; 3], [7u32; 1]);
            let (mut tumbled, mut keys, mut nu) =
                (tumbled.clone(), [0u32; 1], vec![0u32; p as usize]);
            front_expand::expand_record(
                &mut ExpandBindings {
                    env_nodes: &env.nodes,
                    fly_nodes: &fly.bvh.nodes,
                    tumbled: &mut tumbled,
                    front_in: &front,
                    front_out: &mut front_out,
                    leaves: &mut leaves,
                    counters: &mut c,
                    nv: &mut nv,
                    done: &done,
                    next_args: &mut next_args,
                    tri_args: &mut tri_args,
                    level_sizes: &mut level_sizes,
                    frames: &frames,
                    hash_keys: &mut keys,
                    nu: &mut nu,
                    fly_offsets: &fly.offsets,
                    fly_points: &fly.points,
                    budget_state: &mut [0, 0],
                },
                &mut RecordBindings {
                    front_record: &mut records,
                    record_count: &mut count,
                },
            );
            let b: Vec<(&str, &wgpu::Buffer)> = vec![
                ("env_nodes", &env_nodes),
                ("fly_nodes", &fly_nodes),
                ("tumbled", &tumbled_b),
                ("front_in", &front_in_b),
                ("front_out", &front_out_b),
                ("leaves", &leaves_b),
                ("counters", &c_b),
                ("nv", &nv_b),
                ("done", &done_b),
                ("front_record", &rec_b),
                ("record_count", &count_b),
                ("next_args", &hb[0]),
                ("tri_args", &hb[1]),
                ("level_sizes", &hb[2]),
                ("frames", &frames_b),
                ("hash_keys", &table_b[0]),
                ("nu", &table_b[1]),
                ("fly_offsets", &table_b[2]),
                ("fly_points", &table_b[3]),
                ("budget_state", &budget_b),
            ];
            gpu.run(&kernels::EXPAND_RECORD, 9, &b, front.len() as u64);
            let label = format!("expand_record level {level}, record buffer {record_cap}");
            let got_c: GpuCounters = gpu.read(&c_b, 1)[0];
            assert_eq!(got_c, c, "{label}: counters");
            assert_eq!(c.overflow, 0, "{label}");
            assert_eq!(
                read_hand_over(&gpu, &hb),
                (next_args, tri_args, level_sizes[0]),
                "{label}: hand-over"
            );
            let (n_out, n_leaf) = (c.n_in as usize, c.n_leaf as usize);
            assert_eq!(
                sorted(gpu.read(&front_out_b, n_out)),
                sorted(front_out[..n_out].to_vec()),
                "{label}: front_out"
            );
            assert_eq!(
                sorted(gpu.read(&leaves_b, n_leaf)),
                sorted(leaves[..n_leaf].to_vec()),
                "{label}: leaves"
            );
            assert_eq!(gpu.read::<u32>(&nv_b, p as usize), nv, "{label}: nv");
            let got_count = gpu.read::<u32>(&count_b, 1)[0];
            assert_eq!(got_count, count[0], "{label}: record_count");
            let (from, to) = (recorded as usize, (count[0] as usize).min(record_cap));
            if from < to && record_cap > 2 {
                // Which appends found room is the device's order when the buffer is full.
                assert_eq!(
                    sorted(gpu.read::<FrontPair>(&rec_b, to)[from..].to_vec()),
                    sorted(records[from..to].to_vec()),
                    "{label}: front_record"
                );
            }
            recorded = count[0];
            front_out.truncate(n_out);
            front = front_out;
            level += 1;
        }
        assert!(recorded > 2, "fronts recorded");
    }
}

/// A tolerance query's expansion (`within`: every slab grown by its margin; the dual's
/// sphere test first, then all its grown slabs) against the twins, on the k-DOP and dual
/// scenes, at a small and a large margin.
#[test]
fn a_tolerance_expand_matches_its_twin() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    for eps in [0.01, 0.3] {
        let scene = kdop_scene::<9>(1);
        let leaves =
            front_levels_within::<9, _>(&mut gpu, &scene, &poses, None, false, None, Some(eps));
        assert!(!leaves.is_empty());
        for symmetric in [false, true] {
            let options = DualOptions {
                symmetric,
                order: SlabOrder::PerPair,
            };
            let leaves = front_levels_within::<9, _>(
                &mut gpu,
                &dual_scene::<9>(options),
                &poses,
                None,
                false,
                None,
                Some(eps),
            );
            assert!(!leaves.is_empty());
        }
    }
}

#[test]
fn expand_dual_matches_its_twin() {
    let Some(mut gpu) = Gpu::new() else { return };
    let poses = poses();
    for order in [SlabOrder::PerPair, SlabOrder::Fixed] {
        for symmetric in [false, true] {
            let options = DualOptions { symmetric, order };
            front_levels::<9, _>(
                &mut gpu,
                &dual_scene::<9>(options),
                &poses,
                None,
                false,
                None,
            );
        }
    }
    let options = DualOptions::default();
    front_levels::<7, _>(
        &mut gpu,
        &dual_scene::<7>(options),
        &poses,
        None,
        true,
        None,
    );
    front_levels::<9, _>(
        &mut gpu,
        &dual_scene::<9>(options),
        &poses,
        Some((8, 3)),
        false,
        None,
    );
    // A budgeted dual expansion (its own node test, the shared budget and hand-over).
    front_levels::<9, _>(
        &mut gpu,
        &dual_scene::<9>(options),
        &poses,
        None,
        false,
        Some(6),
    );
}
