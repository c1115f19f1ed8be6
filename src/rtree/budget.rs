//! The R-tree's budgeted pose ([`crate::budget`]): Figueiredo's query (*An R-Tree Collision
//! Detection Algorithm for Polygonal Models*, 2009) under a budget of node tests.
//!
//! **The node pairs.** The query compares a box of A's R-tree (a node or a triangle entry)
//! with one candidate triangle of B (its optimal box in A's frame); each comparison is one
//! node test (Nv, [`super`]). So the budgeted search walks pairs (A's node or entry, B's
//! candidate): the prelude (Figures 1 and 4, lines 1–4: the roots' covers, counted as one
//! test as in the unbudgeted query when the pose's matrix is a rotation) is its pretest,
//! and the filters and the candidates' optimal boxes are computed before the search (no
//! node test, as unbudgeted: `filter_tests` and Nu). Then
//! - version 2 (Figure 4, the default): the root pairs are (A's root, each candidate whose
//!   box meets the OAABB), and expanding (node, candidate) tests the node's children (its
//!   entries, at a leaf) against the same candidate — the tests of the unbudgeted descent,
//!   which carries the candidates that met a node down to its children, one pair at a time;
//! - version 1 (Figure 1 with Figure 3): the root pairs are every (entry of A in the
//!   OAABB, candidate of B), each one test, as the unbudgeted loop makes them. The
//!   frontier then holds them all at once (a pair of `u32` and a bound each).
//!
//! A pair of an entry and a candidate is a leaf pair: its exact triangle test is one Np.
//! With an unlimited budget the tests, the triangle tests and the pairs are the unbudgeted
//! query's; the depth-first order runs them candidate by candidate instead of node by node.
//!
//! **The bound.** A's boxes hold the real local coordinates of A's triangles
//! ([`super::build`]); a candidate's optimal box ([`Aabb::of_triangle_local`], the whole
//! box, not its part in the OAABB that the test reads) holds those of B's triangle as the
//! exact test reads it (corners moved by [`Pose::apply`], less A's origin). Two boxes in
//! one frame: [`box_bound`]. The untested root pairs share the bound of A's root box
//! against B's root box covered into A's frame ([`root_bound`]).

use super::RtreeCollide;
use super::aabb::{Aabb, margin};
use super::budget_state::{Cand, NONE};
use super::build::Rtree;
use super::collide::{RtreeCounters, RtreeWorkspace, filter, moved, prelude};
use super::scene::RtreeScene;
use crate::budget::{Budget, Frontier, HasFrontier, PoseStatus, Start, Walk, search};
use crate::frame::LocalPose;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub, QueryOptions};
use crate::tri::tri_tri_intersect;

impl HasFrontier for RtreeWorkspace {
    fn frontier(&mut self) -> &mut Frontier {
        &mut self.budget.frontier
    }
}

impl RtreeScene {
    /// One pose under `budget` ([`crate::budget`]), appending `(tri_a, tri_b)` in the
    /// meshes' numbering (unsorted) to `out`: the prelude and the filters, then the
    /// budgeted search over (A's node or entry, B's candidate) pairs (module docs). The
    /// intersection query only (`opts`' tolerance is not read).
    pub fn collide_budgeted(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        budget: Budget,
        ws: &mut RtreeWorkspace,
        out: &mut Vec<(u32, u32)>,
    ) -> (Counters, PoseStatus) {
        let (a, b) = (&self.a, &self.b);
        let mut c = RtreeCounters::default();
        let lp = LocalPose::new(pose, a.frame(), b.frame());
        let Some((oaabb_b, oaabb_a)) = prelude(a, b, &lp, &mut c) else {
            return (c.counters(), PoseStatus::complete(false, c.bv_tests));
        };
        // The prelude's root test is the pretest (none when the matrix is no rotation).
        let d = root_bound(a, b, &lp);
        let start = match c.bv_tests {
            0 => Start::Untested(d),
            _ => Start::Pretested(d),
        };
        let mut st = std::mem::take(&mut ws.budget);
        for x in &st.cand {
            st.slot[x.entry as usize] = NONE;
        }
        st.cand.clear();
        st.slot.resize(b.tri_index.len(), NONE);
        let mut entries_b = std::mem::take(&mut ws.entries_b);
        filter(
            b,
            &oaabb_b,
            &mut ws.stack,
            &mut entries_b,
            &mut c,
            &mut |_| {},
        );
        let version = self.options.collide;
        let entries_a = match version {
            RtreeCollide::V1 => {
                filter(
                    a,
                    &oaabb_a,
                    &mut ws.stack,
                    &mut ws.entries_a,
                    &mut c,
                    &mut |_| {},
                );
                &ws.entries_a[..]
            }
            RtreeCollide::V2 => &[],
        };
        // Version 1 moves no candidate when no entry of A is in the OAABB, as unbudgeted.
        if version == RtreeCollide::V2 || !entries_a.is_empty() {
            for &eb in &entries_b {
                let tri = moved(b, pose, eb);
                let whole = Aabb::of_triangle_local(&tri, &a.frame().origin);
                c.bv_updates += 1;
                let test = match version {
                    RtreeCollide::V1 => whole,
                    RtreeCollide::V2 => whole.intersect(&oaabb_a),
                };
                if !test.is_empty() {
                    st.slot[eb as usize] = st.cand.len() as u32;
                    st.cand.push(Cand {
                        tri,
                        whole,
                        test,
                        entry: eb,
                    });
                }
            }
        }
        ws.entries_b = entries_b;
        let mut frontier = std::mem::take(&mut st.frontier);
        let mut walk = RtreeWalk {
            a,
            b,
            pose,
            mode: opts.mode,
            base: a.nodes.len() as u32,
            cand: &st.cand,
            slot: &st.slot,
            entries_a: match version {
                RtreeCollide::V1 => Some(entries_a),
                RtreeCollide::V2 => None,
            },
        };
        let (s, status) = search(&mut walk, budget, start, &mut frontier, out);
        st.frontier = frontier;
        ws.budget = st;
        let counters = Counters {
            bv_tests: s.bv_tests,
            tri_tests: s.tri_tests,
            bv_updates: c.bv_updates,
            ..Default::default()
        };
        (counters, status)
    }
}

/// The pairs of the budgeted search: A's node `e` (below `base`) or A's triangle entry
/// `e − base`, against B's candidate with entry `f`.
struct RtreeWalk<'a> {
    a: &'a Rtree,
    b: &'a Rtree,
    pose: &'a Pose,
    mode: Mode,
    /// A's node count: codes from here on are A's triangle entries.
    base: u32,
    cand: &'a [Cand],
    /// Per entry of B: its index in `cand`, or [`NONE`].
    slot: &'a [u32],
    /// Version 1: A's entries in the OAABB (the root pairs pair each with every candidate).
    entries_a: Option<&'a [u32]>,
}

impl RtreeWalk<'_> {
    /// The box of A's node or entry `e` (local frame, exact in f64).
    #[inline]
    fn box_a(&self, e: u32) -> Aabb {
        match e.checked_sub(self.base) {
            Some(entry) => self.a.entry_box(entry as usize),
            None => self.a.node_box(e as usize),
        }
    }
}

impl Walk for RtreeWalk<'_> {
    type Sub = NoSub;

    /// No front: see [`crate::budget::Walk::carries_front`].
    fn carries_front(&self) -> bool {
        false
    }

    #[inline]
    fn test(&mut self, e: u32, f: u32, _: &mut NoSub) -> Option<f64> {
        let cd = &self.cand[self.slot[f as usize] as usize];
        let bx = self.box_a(e);
        bx.overlaps(&cd.test).then(|| box_bound(&bx, &cd.whole))
    }

    #[inline]
    fn split(&mut self, e: u32, f: u32, kids: &mut Vec<(u32, u32)>) -> bool {
        if e >= self.base {
            return false;
        }
        let n = self.a.nodes[e as usize];
        let first = match self.a.is_leaf(e as usize) {
            true => self.base + n.first,
            false => n.first,
        };
        kids.extend((first..first + n.count).map(|x| (x, f)));
        true
    }

    fn leaves(&mut self, e: u32, f: u32, out: &mut Vec<(u32, u32)>, c: &mut Counters) -> bool {
        // A hot start from another scene's hint names no pair here: nothing to test.
        let Some(ea) = e.checked_sub(self.base).map(|x| x as usize) else {
            return false;
        };
        let eb = f as usize;
        if ea >= self.a.tri_index.len() || eb >= self.b.tri_index.len() {
            return false;
        }
        // The hot start's triangle may be no candidate this pose.
        let tb = match self.slot[eb] {
            NONE => moved(self.b, self.pose, f),
            i => self.cand[i as usize].tri,
        };
        c.tri_tests += 1;
        if tri_tri_intersect(&self.a.entry_f64(ea), &tb) {
            out.push((self.a.tri_index[ea], self.b.tri_index[eb]));
            return self.mode == Mode::First;
        }
        false
    }

    fn roots(&mut self, roots: &mut Vec<(u32, u32)>) {
        match self.entries_a {
            None => roots.extend(self.cand.iter().map(|x| (0, x.entry))),
            Some(entries) => {
                for x in self.cand {
                    roots.extend(entries.iter().map(|&ea| (self.base + ea, x.entry)));
                }
            }
        }
    }
}

/// An upper bound on the length of the shortest translation that separates two boxes in
/// one frame (meaningful when they overlap).
///
/// Proof. Along axis k the boxes overlap by `min(a.hi − b.lo, b.hi − a.lo)`; moving `b` by
/// that length along `+e_k` (or `−e_k`) leaves the two touching at the plane `x_k = a.hi`
/// (`a.lo`), which separates them and so their contents: the shortest separating
/// translation is at most the least of the six lengths (a negative one means the boxes are
/// apart: bound 0). Each subtraction rounds to nearest, within half a step of the real
/// difference, so its `next_up` is at least the real value, and so is the minimum.
fn box_bound(a: &Aabb, b: &Aabb) -> f64 {
    let mut d = f64::INFINITY;
    for k in 0..3 {
        let up = (a.hi[k] - b.lo[k]).next_up();
        let down = (b.hi[k] - a.lo[k]).next_up();
        d = d.min(up.min(down));
    }
    d.max(0.0)
}

/// The bound of every root pair before its test: A's root box against B's root box
/// covered into A's frame by the local pose.
///
/// Proof. The cover widened by [`margin`] holds every point of B as the exact test reads
/// it, less A's origin (the forward cover of [`margin`]'s proof, applied to B's whole root
/// box), and A's root box holds A's; every triangle pair under a root pair is such a pair
/// of points' hulls, so [`box_bound`] of the two boxes bounds its penetration depth.
fn root_bound(a: &Rtree, b: &Rtree, lp: &LocalPose) -> f64 {
    let (ra, rb) = (a.root_box(), b.root_box());
    let cover = rb.cover(margin(&ra, &rb, lp), |p| lp.pose.apply(p));
    box_bound(&ra, &cover)
}
