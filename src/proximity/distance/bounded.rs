//! The host's two halves of a distance query whose node pairs another engine prunes (the
//! GPU's, [`crate::gpu::collide::GpuScene::within_each`]): a certified upper bound `U` of the
//! pose's distance first ([`distance_upper`]), then the exact minimum over the triangle
//! pairs within `U` that the engine returns ([`distance_of_pairs`]).
//!
//! Why that is the exact answer. The pair that gave `U` is at most `U` apart, so the set of
//! pairs within `U` is not empty, and every pair whose exact distance is the minimum `d* ≤
//! U` is in it: the minimum over the set, ties broken by the smaller `(tri_a, tri_b)`, is
//! [`super::distance_pose`]'s witness, field for field. With `upto = D` the engine runs at
//! `min(U, D)`: no pair within `D` means the pose is farther apart than `D`.

use super::{Best, DistanceVolumes, DistanceWorkspace, PoseDistance};
use crate::bvh::Bvh;
use crate::pose::Pose;
use crate::proximity::boxes::{BoxPose, box_gap_lower};
use crate::scene::Counters;
use crate::tri::distance::tri_tri_distance;

/// A certified upper bound of the distance between the meshes at `pose` (an f64 at least
/// the exact distance of some triangle pair), `None` when a mesh has no triangle: a beam
/// descent (`greedy_pair`, a beam of [`BEAM`]) gives a pair, and the previous pose's pair of `ws`
/// (coherence) another; the smaller bound of the two, whose pair `ws` keeps for the next
/// pose. The counters are added to `c`.
///
/// The bound decides the device's work: every triangle pair within it goes to the host.
/// Measured on two tori of 1,600 triangles at 48 random separated poses (`meshcollide
/// distance --backend gpu --stats`, lavapipe): pairs for the host 140,194 with one descent,
/// 29,631 with a beam of 4, 11,685 of 8, 6,889 of 16; 4,865 with the exact distance as the
/// bound.
pub fn distance_upper<const H: usize>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    vols: &DistanceVolumes,
    pose: &Pose,
    ws: &mut DistanceWorkspace,
    c: &mut Counters,
) -> Option<f64> {
    if env.triangle_count() == 0 || fly.triangle_count() == 0 {
        return None;
    }
    ws.next_pose();
    let mut first = greedy_pair(env, fly, vols, pose, ws, c);
    if let Some((pa, pb)) = ws.prev {
        let prev = pair_upper(env, fly, pose, pa, pb, c);
        if prev < first.0 {
            first = (prev, (pa, pb));
        }
    }
    c.bv_updates += ws.posed_count;
    ws.prev = Some(first.1);
    Some(first.0)
}

/// A certified upper bound of the exact distance of the triangles at positions `pa` of A
/// and `pb` of B (posed), counted in `c.tri_tests`.
fn pair_upper<const H: usize>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    pose: &Pose,
    pa: u32,
    pb: u32,
    c: &mut Counters,
) -> f64 {
    c.tri_tests += 1;
    let tb = fly.tris.corners_f64(pb as usize).map(|p| pose.apply(p));
    tri_tri_distance(&env.tris.corners_f64(pa as usize), &tb).upper()
}

/// Node pairs the beam descent of [`distance_upper`] follows at each depth.
pub const BEAM: usize = 16;

/// A beam descent from the roots: at each step the [`BEAM`] node pairs of the smallest box
/// bounds ([`box_gap_lower`]; the search's descent rule) among the children of the last
/// step's, those not above the best pair found so far; a leaf pair's triangle pairs are
/// measured as it is met. `(upper bound of the best pair's distance, its positions)`. A
/// best-first search with no bound yet may spread over many pairs of equal bound (all 0
/// where the meshes cross) before it reaches a leaf; this reaches leaves in depth steps,
/// and the beam keeps one wrong turn near the roots from costing the bound.
fn greedy_pair<const H: usize>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    vols: &DistanceVolumes,
    pose: &Pose,
    ws: &mut DistanceWorkspace,
    c: &mut Counters,
) -> (f64, (u32, u32)) {
    let [ba, bb] = &vols.boxes;
    let bpose = BoxPose::new(pose, bb.reach);
    let mut best = (f64::INFINITY, (0u32, 0u32));
    let mut beam: Vec<(f64, usize, usize)> = vec![(0.0, 0, 0)];
    let mut next: Vec<(f64, usize, usize)> = Vec::new();
    while !beam.is_empty() {
        next.clear();
        for &(lb, e, f) in &beam {
            if lb > best.0 {
                continue;
            }
            let (ne, nf) = (&env.nodes[e], &fly.nodes[f]);
            if ne.is_leaf() && nf.is_leaf() {
                for pa in ne.first..ne.first + ne.count {
                    for pb in nf.first..nf.first + nf.count {
                        let d = pair_upper(env, fly, pose, pa, pb, c);
                        if d < best.0 {
                            best = (d, (pa, pb));
                        }
                    }
                }
                continue;
            }
            for (e2, f2) in super::children(env, fly, vols, e, f) {
                c.bv_tests += 1;
                let posed = ws.posed_box(f2, bb, pose, &bpose);
                next.push((box_gap_lower(&ba.nodes[e2], posed, best.0), e2, f2));
            }
        }
        next.sort_unstable_by(|x, y| x.0.total_cmp(&y.0));
        next.truncate(BEAM);
        std::mem::swap(&mut beam, &mut next);
    }
    best
}

/// The exact minimum over `pairs` (file numbering, at `pose`): the first in `(exact
/// distance, tri_a, tri_b)` order, as [`super::distance_pose`] keeps it; none when `pairs`
/// is empty. Each pair measured adds to `c.tri_tests`. The engine's pairs are all within its
/// tolerance, so with `upto` (at most which it ran) nothing more is checked.
pub fn distance_of_pairs<const H: usize>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    vols: &DistanceVolumes,
    pose: &Pose,
    pairs: &[(u32, u32)],
    mut c: Counters,
) -> PoseDistance {
    let [pos_a, pos_b] = &vols.positions;
    let mut best: Option<Best> = None;
    for &tri in pairs {
        let (pa, pb) = (pos_a[tri.0 as usize], pos_b[tri.1 as usize]);
        let ta = env.tris.corners_f64(pa as usize);
        let tb = fly.tris.corners_f64(pb as usize).map(|p| pose.apply(p));
        c.tri_tests += 1;
        let d = tri_tri_distance(&ta, &tb);
        if best.as_ref().is_none_or(|b| b.beaten_by(&d, tri)) {
            best = Some(Best {
                d,
                tri,
                pos: (pa, pb),
            });
        }
    }
    match best {
        Some(b) => b.answer(c),
        None => PoseDistance::none(c),
    }
}
