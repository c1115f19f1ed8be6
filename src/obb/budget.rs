//! The volume trees' budgeted pose ([`crate::budget`]): the OBB or sphere test decides
//! whether a node pair overlaps, as in the unbudgeted descent, and the bound on the
//! translation that separates the pair comes from the nodes' boxes, the 6-DOPs of the
//! topology both trees share ([`PosedBoxes`]): A's as built, B's posed with the local
//! pose's proved error. (A bound from the OBB's own 15 axes would be tighter; any
//! container of the nodes' points gives a valid one.)

use super::descend::{self, PairTest, Tree, VolumeWorkspace};
use super::{Test, Volume, VolumeScene};
use crate::budget::{Budget, PoseStatus, Walk, search};
use crate::bv::Kdop;
use crate::frame::LocalPose;
use crate::obb::sat::PoseCheck;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub, QueryOptions};

impl<V: Volume> VolumeScene<V> {
    /// One pose under `budget` ([`crate::budget`]), appending `(tri_a, tri_b)` in the
    /// meshes' numbering (unsorted) to `out`: the pretest, then the budgeted search with
    /// the tree's node test and descent rule. The intersection query only; every pose
    /// starts at the roots (no temporal coherence).
    pub fn collide_budgeted(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        budget: Budget,
        ws: &mut VolumeWorkspace<V::Posed>,
        out: &mut Vec<(u32, u32)>,
    ) -> (Counters, PoseStatus) {
        ws.track.forget();
        let Some(start) = crate::kdop::budget::pretest_start(self.boxes.as_ref(), pose) else {
            return crate::kdop::budget::separated();
        };
        let lp = LocalPose::new(pose, self.env.frame(), self.fly.frame());
        let check = PoseCheck::new(lp);
        let test = Test {
            s: self,
            pose: &check,
        };
        let (env, fly) = self.trees();
        descend::begin_pose(ws);
        let mut frontier = std::mem::take(&mut ws.frontier);
        let mut walk = VolumeWalk {
            env,
            fly,
            pose,
            mode: opts.mode,
            test: &test,
            ws,
            boxes: PosedBoxes::new(&lp),
            updates: 0,
        };
        let (mut c, status) = search(&mut walk, budget, start, &mut frontier, out);
        c.bv_updates = walk.updates;
        walk.ws.frontier = frontier;
        (c, status)
    }
}

impl<P> crate::budget::HasFrontier for VolumeWorkspace<P> {
    fn frontier(&mut self) -> &mut crate::budget::Frontier {
        &mut self.frontier
    }
}

/// Two volume trees as the budgeted search walks them.
struct VolumeWalk<'a, T: PairTest> {
    env: Tree<'a>,
    fly: Tree<'a>,
    pose: &'a Pose,
    mode: Mode,
    test: &'a T,
    ws: &'a mut VolumeWorkspace<T::Posed>,
    boxes: PosedBoxes,
    /// B's volumes posed (Nu).
    updates: u64,
}

impl<T: PairTest> Walk for VolumeWalk<'_, T> {
    type Sub = NoSub;

    fn test(&mut self, e: u32, f: u32, _: &mut NoSub) -> Option<f64> {
        let mut c = Counters::default();
        let disjoint = descend::disjoint(self.test, self.ws, e as usize, f as usize, &mut c);
        self.updates += c.bv_updates;
        (!disjoint).then(|| {
            self.boxes.depth_bound(
                &self.env.bvh.nodes[e as usize].bv,
                &self.fly.bvh.nodes[f as usize].bv,
            )
        })
    }

    fn split(&mut self, e: u32, f: u32, kids: &mut Vec<(u32, u32)>) -> bool {
        let (ne, nf) = (self.env.links[e as usize], self.fly.links[f as usize]);
        let (a, b) = ((ne.is_leaf(), ne.first), (nf.is_leaf(), nf.first));
        crate::budget::skeleton::split_binary((e, f), a, b, kids, || {
            self.test.prefer_a(e as usize, f as usize)
        })
    }

    fn leaves(&mut self, e: u32, f: u32, out: &mut Vec<(u32, u32)>, c: &mut Counters) -> bool {
        descend::leaf_pair(
            self.env, self.fly, self.pose, self.mode, self.test, self.ws, e as usize, f as usize,
            out, c,
        )
    }
}

/// B's node boxes posed into A's local frame, for the bound of a node pair.
///
/// Proof. A node's 6-DOP holds the real local coordinates `p − o` of its triangles'
/// points (the builder's outward rounding, [`crate::frame::local_bounds_f32`]). For B's
/// node with box `[lo, hi]`, take `c = (lo + hi)/2` and `h ≥ max(hi − c, c − lo)` (rounded
/// up), so `q − o_B ∈ [c − h, c + h]`. Each point as the exact test sees it,
/// `Pose::apply(q)`, lies per coordinate within [`LocalPose::abs_err`] of
/// `o_A + R·(q − o_B) + t_L`, so `Pose::apply(q) − o_A` lies along axis k in
/// `(R·c)_k + t_L,k ± (E_k + abs_err)` with `E_k = Σ_j |R_kj|·h_j`. `P_k = (R·c)_k + t_L,k`
/// and `E_k` computed in f64 err by at most `γ₃` of `Σ_j |R_kj||c_j| + |t_L,k|` and of `E_k`,
/// and the two subtractions that make the ends by `u` of their operands: the slack
/// `2⁻⁴⁰(Σ_j |R_kj||c_j| + |t_L,k| + E_k) + f64::MIN_POSITIVE` covers all of it many times.
/// Along axis k A's node lies in `[a_lo, a_hi]` and B's posed node in `[b_lo, b_hi]`, so
/// moving B by `a_hi − b_lo` along +k or by `b_hi − a_lo` along −k leaves them touching at
/// a plane: the smallest of the six is a bound on the shortest separating translation, as
/// for [`Kdop::depth_bound`] (a negative one means the boxes are apart: bound 0). The last
/// subtraction and the minimum round once: the result times `1 + 2⁻⁴⁰`, rounded up, covers it.
struct PosedBoxes {
    lp: LocalPose,
}

const TWO_M40: f64 = 1.0 / (1u64 << 40) as f64;

impl PosedBoxes {
    fn new(lp: &LocalPose) -> PosedBoxes {
        PosedBoxes { lp: *lp }
    }

    fn depth_bound(&self, a: &Kdop<3>, b: &Kdop<3>) -> f64 {
        let (r, t) = (&self.lp.pose.r, &self.lp.pose.t);
        let c: [f64; 3] = std::array::from_fn(|j| 0.5 * (b.min[j] as f64 + b.max[j] as f64));
        let h: [f64; 3] = std::array::from_fn(|j| {
            (b.max[j] as f64 - c[j])
                .max(c[j] - b.min[j] as f64)
                .next_up()
        });
        let mut d = f64::INFINITY;
        for k in 0..3 {
            let row = &r[k];
            let p = row[0] * c[0] + row[1] * c[1] + row[2] * c[2] + t[k];
            let e = row[0].abs() * h[0] + row[1].abs() * h[1] + row[2].abs() * h[2];
            let mag = row[0].abs() * c[0].abs()
                + row[1].abs() * c[1].abs()
                + row[2].abs() * c[2].abs()
                + t[k].abs();
            let s = self.lp.abs_err + TWO_M40 * (mag + e) + f64::MIN_POSITIVE;
            let (b_lo, b_hi) = (p - e - s, p + e + s);
            let up = a.max[k] as f64 - b_lo;
            let down = b_hi - a.min[k] as f64;
            d = d.min(up.min(down));
        }
        (d.max(0.0) * (1.0 + TWO_M40)).next_up()
    }
}
