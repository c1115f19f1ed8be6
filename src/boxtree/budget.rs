//! The boxtree's budgeted pose ([`crate::budget`]): Zachmann's descent (every child of A
//! with every child of B, up to four child pairs per expansion, [`super::traverse`]) and
//! his incremental box tests ([`super::overlap`]) under a budget of node tests, with a
//! bound on the separating translation of each node pair from the intervals on A's axes.
//!
//! **Intervals per node.** The unbudgeted descent passes each pair's intervals down the
//! recursion (Zachmann 2002, 3.3). A frontier pair waits instead, so the intervals live in
//! per-node arrays of the workspace, written when a pair is expanded: a node's intervals
//! (its projections onto the test's directions, with the ends that changed from its
//! parent's) depend on the node alone, so every pair that computes them writes the same
//! values. A child pair `(x, y)` is tested with [`PoseDirections::overlap_changed`] on the
//! two nodes' intervals: it compares the ends that changed in `x` or `y` from their
//! parents, a superset of those that changed from the pair expanded (whose other ends
//! passed there), so its answer is the unbudgeted test's exactly; the root pair is compared
//! on every direction, as there. With an unlimited budget the pairs tested are the
//! unbudgeted query's, so Nv, Np and the pairs are equal (`tests/budget.rs`); Nu counts the
//! nodes of B tested, which are the nodes of B the unbudgeted query brings into A's frame.

use super::budget_state::{BudgetState, NodeIntervals};
use super::overlap::{Iv, PoseDirections};
use super::traverse::{BoxtreeScene, BoxtreeWorkspace};
use super::{BoxTest, BoxTree};
use crate::budget::{Budget, Frontier, HasFrontier, PoseStatus, Start, Walk, search};
use crate::frame::LocalPose;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub, QueryOptions};
use crate::tri::tri_tri_intersect;

impl HasFrontier for BoxtreeWorkspace {
    fn frontier(&mut self) -> &mut Frontier {
        &mut self.budget.frontier
    }
}

impl BoxtreeScene {
    /// One pose under `budget` ([`crate::budget`]), appending `(tri_a, tri_b)` in the
    /// meshes' numbering (unsorted) to `out`: the root pair's test (the boxtree has no
    /// pretest; its root test counts as in the unbudgeted query), then the budgeted search
    /// with the scene's box test. The intersection query only (`opts`' tolerance is not
    /// read).
    pub fn collide_budgeted(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        budget: Budget,
        ws: &mut BoxtreeWorkspace,
        out: &mut Vec<(u32, u32)>,
    ) -> (Counters, PoseStatus) {
        let mode = opts.mode;
        match self.options.test {
            BoxTest::Align => budgeted::<3, false>(self, pose, mode, budget, ws, out),
            BoxTest::Lut => budgeted::<3, true>(self, pose, mode, budget, ws, out),
            BoxTest::SatLite => budgeted::<6, false>(self, pose, mode, budget, ws, out),
            BoxTest::Sat => budgeted::<15, false>(self, pose, mode, budget, ws, out),
        }
    }
}

fn budgeted<const N: usize, const LUT: bool>(
    s: &BoxtreeScene,
    pose: &Pose,
    mode: Mode,
    budget: Budget,
    ws: &mut BoxtreeWorkspace,
    out: &mut Vec<(u32, u32)>,
) -> (Counters, PoseStatus)
where
    BudgetState: NodeIntervals<N>,
{
    let (env, fly) = (&s.env, &s.fly);
    let lp = LocalPose::new(pose, env.frame(), fly.frame());
    let frame = PoseDirections::<N>::new(&lp, (&env.root, env.depth), (&fly.root, fly.depth));
    if LUT {
        frame.fill_lut(fly, &mut ws.lut);
    }
    ws.next_pose();
    let mut state = std::mem::take(&mut ws.budget);
    let mut frontier = std::mem::take(&mut state.frontier);
    let [ia, ib] = state.intervals();
    let (ra, rb) = (frame.root_a(&env.root), frame.root_b(&fly.root));
    ia.resize(env.nodes.len(), ra);
    ib.resize(fly.nodes.len(), rb);
    ia[0] = ra;
    ib[0] = rb;
    let mut walk = BoxWalk::<N, LUT> {
        env,
        fly,
        frame: &frame,
        pose,
        mode,
        ws,
        ia,
        ib,
        updates: 1,
    };
    let (mut c, status) = search(&mut walk, budget, Start::Roots, &mut frontier, out);
    c.bv_updates = walk.updates;
    state.frontier = frontier;
    ws.budget = state;
    (c, status)
}

/// Two boxtrees as the budgeted search walks them at one pose.
struct BoxWalk<'a, const N: usize, const LUT: bool> {
    env: &'a BoxTree,
    fly: &'a BoxTree,
    frame: &'a PoseDirections<N>,
    pose: &'a Pose,
    mode: Mode,
    ws: &'a mut BoxtreeWorkspace,
    /// The intervals of A's nodes and of B's (module docs).
    ia: &'a mut Vec<Iv<N>>,
    ib: &'a mut Vec<Iv<N>>,
    /// Nu: B's nodes brought into A's frame (the root included).
    updates: u64,
}

impl<const N: usize, const LUT: bool> Walk for BoxWalk<'_, N, LUT> {
    type Sub = NoSub;

    /// No front: see [`crate::budget::Walk::carries_front`].
    fn carries_front(&self) -> bool {
        false
    }

    #[inline]
    fn test(&mut self, e: u32, f: u32, _: &mut NoSub) -> Option<f64> {
        let (e, f) = (e as usize, f as usize);
        if self.ws.node_stamp[f] != self.ws.pose {
            self.ws.node_stamp[f] = self.ws.pose;
            self.updates += 1;
        }
        let (a, b) = (&self.ia[e], &self.ib[f]);
        let overlap = if e == 0 && f == 0 {
            self.frame.overlap_full(a, b)
        } else {
            self.frame.overlap_changed(a, b)
        };
        overlap.then(|| depth_bound(self.frame, a, b))
    }

    #[inline]
    fn split(&mut self, e: u32, f: u32, kids: &mut Vec<(u32, u32)>) -> bool {
        let (na, nb) = (self.env.nodes[e as usize], self.fly.nodes[f as usize]);
        let (la, lb) = (na.is_leaf(), nb.is_leaf());
        if la && lb {
            return false;
        }
        let (one_a, one_b) = ([e], [f]);
        let (mut xs, mut ys): (&[u32], &[u32]) = (&one_a, &one_b);
        let (first_a, first_b) = (na.child, nb.child);
        let (pair_a, pair_b) = ([first_a, first_a + 1], [first_b, first_b + 1]);
        if !la {
            let parent = self.ia[e as usize];
            for x in pair_a {
                let n = self.env.nodes[x as usize];
                self.ia[x as usize] = self.frame.child_a(&parent, n);
            }
            xs = &pair_a;
        }
        if !lb {
            let parent = self.ib[f as usize];
            for y in pair_b {
                let i = y as usize;
                let n = self.fly.nodes[i];
                self.ib[i] = if LUT {
                    self.frame
                        .child_b_lut(&parent, n, self.fly.lut_codes[i], &self.ws.lut)
                } else {
                    self.frame.child_b(&parent, n)
                };
            }
            ys = &pair_b;
        }
        // The unbudgeted order: A's first child with each of B's, then A's second.
        for &x in xs {
            kids.extend(ys.iter().map(|&y| (x, y)));
        }
        true
    }

    fn leaves(&mut self, e: u32, f: u32, out: &mut Vec<(u32, u32)>, c: &mut Counters) -> bool {
        let (e, f) = (e as usize, f as usize);
        // A hot start from another scene's hint names no leaf pair here: nothing to test.
        let (Some(&na), Some(&nb)) = (self.env.nodes.get(e), self.fly.nodes.get(f)) else {
            return false;
        };
        if !na.is_leaf() || !nb.is_leaf() {
            return false;
        }
        for pa in na.child..na.child + na.count() {
            let ta = self.env.tris.corners_f64(pa as usize);
            for pb in nb.child..nb.child + nb.count() {
                let p = pb as usize;
                c.tri_tests += 1;
                if tri_tri_intersect(&ta, self.ws.moved(self.fly, self.pose, p)) {
                    out.push((self.env.tri_index[pa as usize], self.fly.tri_index[p]));
                    if self.mode == Mode::First {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// An upper bound on the length of the shortest translation that separates the contents
/// of A's node with intervals `a` from those of B's node (posed) with intervals `b`, from
/// the first three directions, A's axes `e_0, e_1, e_2` (every test has them).
///
/// Proof. On A's axes A's intervals are its node's box exactly (the subtraction of
/// [`super::Aabb::child`], [`super::overlap`]), which holds the real local coordinates of
/// A's triangles. B's interval on `e_j` is the projection of B's node posed, computed in
/// f64; the margin `m_j` of [`PoseDirections`] bounds how far the truth the exact test
/// reads (B's corners moved by [`Pose::apply`], less A's origin) reaches beyond it: the
/// test declares the two disjoint when `a.hi + m_j < b.lo` or `b.hi + m_j < a.lo` with A's
/// end exact, so B's real points lie in `[b.lo − m_j, b.hi + m_j]` along `e_j` (the
/// overlap module's proof). Moving B by `a.hi − b.lo + m_j` along `+e_j` (or by `b.hi +
/// m_j − a.lo` along `−e_j`) leaves the two touching at the plane `x_j = a.hi` (`a.lo`),
/// which separates A's node box from B's posed node and so their triangles: the shortest
/// separating translation is at most the least of the six lengths (a negative one means
/// the two are apart along `e_j`: bound 0). Rounding: each subtraction and each addition
/// is followed by `next_up`, which is at least the real result of the rounded operation
/// (round to nearest errs by at most half a step), so each computed length is at least its
/// real value, and so is their minimum.
fn depth_bound<const N: usize>(frame: &PoseDirections<N>, a: &Iv<N>, b: &Iv<N>) -> f64 {
    let mut d = f64::INFINITY;
    for j in 0..3 {
        let m = frame.margin[j];
        let up = ((a.hi[j] - b.lo[j]).next_up() + m).next_up();
        let down = ((b.hi[j] - a.lo[j]).next_up() + m).next_up();
        d = d.min(up.min(down));
    }
    d.max(0.0)
}
