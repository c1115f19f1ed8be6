//! The batch pipeline's kernels run on the CPU, literally: the same stages over the same
//! arrays (tumble → per level: expand, tri_test, prepare_next), invocations as loops in
//! order, atomics as increments, the f32 triangle filter's Rust twin. For debugging and for
//! per-level parity with the GPU (`level_sizes`); the reference for pairs and Nv remains
//! the depth-first traversal of [`crate::traverse`].

use super::collide::{BatchOutput, GpuStats, finish};
use super::layout::FrontPair;
use crate::Pose;
use crate::bv::Kdop;
use crate::kdop::KdopScene;
use crate::scene::{Mode, PoseResult};
use crate::tri::filter::{HIT, UNSURE, transform_error_bound, transform_f32, tri_tri_filter};
use crate::tumble::tumble_points;

/// Runs every pose as one batch; returns the results and the front size per level.
pub fn collide_batch_mirror<const H: usize>(
    scene: &KdopScene<H>,
    poses: &[Pose],
    mode: Mode,
) -> (Vec<PoseResult>, GpuStats) {
    let env = &scene.env;
    let fly = &scene.fly;
    let n_fly = fly.bvh.nodes.len();
    let levels = (env.depth + fly.bvh.depth - 1) as usize;
    let frames = fly.pose_frames(env.frame(), poses);
    // kdop_tumble.wgsl: `tumble`, one invocation per (pose, node).
    let mut tumbled: Vec<Kdop<H>> = Vec::with_capacity(poses.len() * n_fly);
    for f in &frames {
        tumbled.push(f.root);
        tumbled.extend((1..n_fly).map(|node| tumble_points(f, fly.node_points(node))));
    }
    let mut stats = GpuStats {
        level_sizes: vec![0; levels],
        ..Default::default()
    };
    let p = poses.len();
    let mut out = BatchOutput {
        nv: vec![0; p],
        np: vec![0; p],
        contacts: Vec::new(),
        unsure: Vec::new(),
        dual: Vec::new(),
    };
    let mut done = vec![false; p];
    let first = mode == Mode::First;
    let mut front: Vec<FrontPair> = (0..p as u32)
        .map(|pose| FrontPair { pose, a: 0, b: 0 })
        .collect();
    for level_size in stats.level_sizes.iter_mut() {
        *level_size = front.len() as u64;
        // front_expand.wgsl: `expand`.
        let mut next = Vec::new();
        let mut leaves = Vec::new();
        for pr in &front {
            if first && done[pr.pose as usize] {
                continue;
            }
            out.nv[pr.pose as usize] += 1;
            let na = &env.nodes[pr.a as usize];
            if !na
                .bv
                .overlaps(&tumbled[pr.pose as usize * n_fly + pr.b as usize])
            {
                continue;
            }
            if na.count == 0 {
                next.push(FrontPair { a: na.first, ..*pr });
                next.push(FrontPair {
                    a: na.first + 1,
                    ..*pr
                });
                continue;
            }
            let nb = &fly.bvh.nodes[pr.b as usize];
            if nb.count == 0 {
                next.push(FrontPair { b: nb.first, ..*pr });
                next.push(FrontPair {
                    b: nb.first + 1,
                    ..*pr
                });
                continue;
            }
            leaves.push(*pr);
        }
        // tri_tri.wgsl: `tri_test`.
        'leaf: for pr in &leaves {
            if first && done[pr.pose as usize] {
                continue;
            }
            let (na, nb) = (&env.nodes[pr.a as usize], &fly.bvh.nodes[pr.b as usize]);
            out.np[pr.pose as usize] += na.count * nb.count;
            let f = &frames[pr.pose as usize];
            for ib in nb.first..nb.first + nb.count {
                let b = fly.bvh.tris.corners_f32(ib as usize);
                let q = b.map(|c| transform_f32(&f.r, &f.t, c));
                let eps = b
                    .iter()
                    .map(|&c| transform_error_bound(c, &f.t, f.t_err))
                    .fold(0.0f32, f32::max);
                for ia in na.first..na.first + na.count {
                    let verdict = tri_tri_filter(&env.tris.corners_f32(ia as usize), &q, eps);
                    let hit = FrontPair {
                        pose: pr.pose,
                        a: ia,
                        b: ib,
                    };
                    if verdict == HIT {
                        out.contacts.push(FrontPair {
                            pose: pr.pose,
                            a: env.tri_index[ia as usize],
                            b: fly.bvh.tri_index[ib as usize],
                        });
                        if first {
                            done[pr.pose as usize] = true;
                            continue 'leaf;
                        }
                    } else if verdict == UNSURE {
                        out.unsure.push(hit);
                    }
                }
            }
        }
        // front_prepare.wgsl: `prepare_next`.
        front = next;
    }
    let results = finish(scene, poses, out, mode, &mut stats);
    (results, stats)
}
