//! One pose of the query of Figueiredo, *An R-Tree Collision Detection Algorithm for
//! Polygonal Models* (2009): the common prelude (Figures 1 and 4, lines 1–4), then Collide
//! version 1 or 2.
//!
//! Frames: each R-tree's boxes are f32 in its own local frame ([`crate::frame`]), and every
//! box comparison runs in local coordinates: B's R-tree against the OAABB in B's frame, A's
//! boxes against the OAABB and the candidates' boxes in A's frame. The paper's `M_A,B` is
//! the [`LocalPose`] of the pose (`p ↦ R·p + t_L` between the local frames), its `M_B,A`
//! the inverse map (`aabb::inverse_apply`); the covers are widened by `aabb::margin`,
//! which holds the local pose's error bound. Why local and not global f64: far from the
//! origin the covers' margins scale with the coordinates (`1e-9·S`, 0.01 at `S = 10⁷`, ten
//! times the features we must resolve there), and the f32 boxes would need converting per
//! test; in A's frame `S` is the objects' own size (and their distance).
//!
//! As in the paper, B's R-tree is only ever compared in B's own frame (against the OAABB);
//! the boxes compared across objects are the optimal boxes of B's candidate triangles,
//! recomputed from the corners as [`Pose::apply`] moves them (the truth the exact test
//! decides on, as in [`crate::brute_force`]), brought into A's frame by subtracting its
//! origin, rounded outward ([`Aabb::of_triangle_local`]): exact up to a few f64 steps, not
//! covers (Figure 3 lines 2–3, Figure 4 lines 6–7).

use super::RtreeCollide;
use super::aabb::{Aabb, inverse_apply, is_rotation, margin};
use super::build::Rtree;
use crate::frame::LocalPose;
use crate::pose::Pose;
use crate::scene::{Counters, Mode};
use crate::tri::tri_tri_intersect;

/// The counters of one pose (or a sum), with the sub-tests the cost model keeps apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RtreeCounters {
    /// Nv: a box of A's R-tree against a box of B (see the module doc of [`super`]).
    pub bv_tests: u64,
    /// Np: exact triangle–triangle tests.
    pub tri_tests: u64,
    /// Nu: cover updates plus B's candidate triangles moved into A's frame.
    pub bv_updates: u64,
    /// Boxes of either R-tree (nodes and triangle entries) tested against an OAABB
    /// (Figure 2); not in Nv.
    pub filter_tests: u64,
    /// Triangles of B that passed the OAABB filter (the paper's `mT_B`).
    pub candidates_b: u64,
    /// Nodes of A's R-tree visited (a node is visited when its box is tested).
    pub nodes_visited_a: u64,
}

impl RtreeCounters {
    /// The counters every hierarchy reports.
    pub fn counters(&self) -> Counters {
        Counters {
            bv_tests: self.bv_tests,
            tri_tests: self.tri_tests,
            bv_updates: self.bv_updates,
            ..Default::default()
        }
    }
}

impl std::ops::AddAssign for RtreeCounters {
    fn add_assign(&mut self, o: RtreeCounters) {
        self.bv_tests += o.bv_tests;
        self.tri_tests += o.tri_tests;
        self.bv_updates += o.bv_updates;
        self.filter_tests += o.filter_tests;
        self.candidates_b += o.candidates_b;
        self.nodes_visited_a += o.nodes_visited_a;
    }
}

/// A triangle of B that passed the filter, moved by the pose (global f64, the exact test's
/// input), with its optimal box in A's local frame.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    tri: [[f64; 3]; 3],
    bx: Aabb,
    /// Entry index in B's R-tree.
    entry: u32,
}

/// Per-thread scratch arrays, reused across poses.
#[derive(Debug, Default)]
pub struct RtreeWorkspace {
    pub(super) stack: Vec<u32>,
    pub(super) entries_a: Vec<u32>,
    pub(super) entries_b: Vec<u32>,
    cand: Vec<Candidate>,
    /// Version 2: the candidates overlapping the node being visited, one list per level.
    lists: Vec<Vec<u32>>,
    /// A budgeted pose's frontier and candidates ([`super::budget`]).
    pub(super) budget: super::budget_state::BudgetState,
}

/// Runs one pose, appending `(tri_a, tri_b)` in file numbering to `out`; `visit` is called
/// with every node of A visited (tests count them).
#[allow(clippy::too_many_arguments)]
pub fn collide_pose(
    a: &Rtree,
    b: &Rtree,
    pose: &Pose,
    mode: Mode,
    version: RtreeCollide,
    s: &mut RtreeWorkspace,
    out: &mut Vec<(u32, u32)>,
    visit: &mut impl FnMut(usize),
) -> RtreeCounters {
    let mut c = RtreeCounters::default();
    let lp = LocalPose::new(pose, a.frame(), b.frame());
    let Some((oaabb_b, oaabb_a)) = prelude(a, b, &lp, &mut c) else {
        return c;
    };
    // Figure 1 line 4, Figure 4 line 4: B's triangles whose boxes meet the OAABB.
    let mut entries_b = std::mem::take(&mut s.entries_b);
    filter(
        b,
        &oaabb_b,
        &mut s.stack,
        &mut entries_b,
        &mut c,
        &mut |_| {},
    );
    c.candidates_b = entries_b.len() as u64;
    match version {
        RtreeCollide::V1 => version1(
            a, b, pose, mode, &oaabb_a, &entries_b, s, out, &mut c, visit,
        ),
        RtreeCollide::V2 => version2(
            a, b, pose, mode, &oaabb_a, &entries_b, s, out, &mut c, visit,
        ),
    }
    s.entries_b = entries_b;
    c
}

/// Lines 1–3 and 5 of Figure 1: the cover of A's root box in B's frame, the root test, the
/// OAABB in B's frame and its cover back in A's frame (clipped to A's root box, which holds
/// every point of A). `None` when the objects' boxes are disjoint.
///
/// Both covers are widened by [`margin`], so every point `y` of a contact (as decided on
/// B's corners moved by [`Pose::apply`]) lies in both OAABBs: `y − o_A` in A's, and in B's
/// the real local point of B that the local pose maps within its error bound of it (see
/// [`margin`]). When the pose's matrix is no rotation the inverse map is unavailable and
/// the OAABB in B's frame is B's whole box.
pub(super) fn prelude(
    a: &Rtree,
    b: &Rtree,
    lp: &LocalPose,
    c: &mut RtreeCounters,
) -> Option<(Aabb, Aabb)> {
    let (ra, rb) = (a.root_box(), b.root_box());
    let pose = &lp.pose;
    let oaabb_b = if is_rotation(pose) {
        let d = margin(&ra, &rb, lp);
        let a_in_b = ra.cover(d, |p| inverse_apply(pose, p));
        c.bv_updates += 1;
        c.bv_tests += 1;
        let rbw = rb.widen(d);
        if !a_in_b.overlaps(&rbw) {
            return None;
        }
        a_in_b.intersect(&rbw)
    } else {
        rb
    };
    let d = margin(&ra, &oaabb_b, lp);
    let oaabb_a = oaabb_b.cover(d, |p| pose.apply(p)).intersect(&ra);
    c.bv_updates += 1;
    (!oaabb_a.is_empty()).then_some((oaabb_b, oaabb_a))
}

/// Figure 2, depth first with an explicit stack: the entries (leaf-order indices) whose
/// boxes meet `bx`. Triangle entries are tested too (a leaf's records are boxes).
pub(super) fn filter(
    t: &Rtree,
    bx: &Aabb,
    stack: &mut Vec<u32>,
    out: &mut Vec<u32>,
    c: &mut RtreeCounters,
    visit: &mut impl FnMut(usize),
) {
    out.clear();
    stack.clear();
    stack.push(0);
    while let Some(i) = stack.pop() {
        let i = i as usize;
        visit(i);
        c.filter_tests += 1;
        if !t.node_box(i).overlaps(bx) {
            continue;
        }
        let n = t.nodes[i];
        let range = n.first..n.first + n.count;
        if t.is_leaf(i) {
            for e in range {
                c.filter_tests += 1;
                if t.entry_box(e as usize).overlaps(bx) {
                    out.push(e);
                }
            }
        } else {
            stack.extend(range.rev());
        }
    }
}

/// B's entry moved into A's (global) frame exactly as [`crate::brute_force`] moves it.
#[inline]
pub(super) fn moved(b: &Rtree, pose: &Pose, e: u32) -> [[f64; 3]; 3] {
    b.tris.corners_f64(e as usize).map(|p| pose.apply(p))
}

/// Figure 1 lines 5–7 with Figure 3: A's triangles filtered by the OAABB in A's frame, then
/// every pair of candidates whose optimal boxes meet is tested exactly.
#[allow(clippy::too_many_arguments)]
fn version1(
    a: &Rtree,
    b: &Rtree,
    pose: &Pose,
    mode: Mode,
    oaabb_a: &Aabb,
    entries_b: &[u32],
    s: &mut RtreeWorkspace,
    out: &mut Vec<(u32, u32)>,
    c: &mut RtreeCounters,
    visit: &mut impl FnMut(usize),
) {
    let mut visited = 0u64;
    filter(a, oaabb_a, &mut s.stack, &mut s.entries_a, c, &mut |i| {
        visited += 1;
        visit(i)
    });
    c.nodes_visited_a = visited;
    if s.entries_a.is_empty() {
        return;
    }
    for &eb in entries_b {
        let tb = moved(b, pose, eb);
        let bx = Aabb::of_triangle_local(&tb, &a.frame().origin);
        c.bv_updates += 1;
        for &ea in &s.entries_a {
            c.bv_tests += 1;
            if !a.entry_box(ea as usize).overlaps(&bx) {
                continue;
            }
            c.tri_tests += 1;
            if tri_tri_intersect(&a.entry_f64(ea as usize), &tb) {
                out.push((a.tri_index[ea as usize], b.tri_index[eb as usize]));
                if mode == Mode::First {
                    return;
                }
            }
        }
    }
}

/// Figure 4 lines 5–9, with the loops turned inside out so that each node of A is visited
/// at most once, as the paper's text claims (sections 3 and 5): written literally, line 8
/// descends A's R-tree once per triangle of B. We move every candidate of B into A's frame
/// first, then descend A once, carrying the candidates whose boxes meet the node; a child
/// tests only those. Each (node, candidate) box test happens exactly when the literal loop
/// would make it, so Nv and Np equal the literal version's; only the order changes.
///
/// Line 8 tests A's boxes against both the OAABB and the candidate's optimal box; we test
/// them against the common part of the two (a box): tighter, still conservative, one test
/// each. Candidates whose box misses the OAABB are dropped before the descent.
#[allow(clippy::too_many_arguments)]
fn version2(
    a: &Rtree,
    b: &Rtree,
    pose: &Pose,
    mode: Mode,
    oaabb_a: &Aabb,
    entries_b: &[u32],
    s: &mut RtreeWorkspace,
    out: &mut Vec<(u32, u32)>,
    c: &mut RtreeCounters,
    visit: &mut impl FnMut(usize),
) {
    s.cand.clear();
    for &eb in entries_b {
        let tri = moved(b, pose, eb);
        let bx = Aabb::of_triangle_local(&tri, &a.frame().origin).intersect(oaabb_a);
        c.bv_updates += 1;
        if !bx.is_empty() {
            s.cand.push(Candidate { tri, bx, entry: eb });
        }
    }
    if s.cand.is_empty() {
        return;
    }
    let depth = a.depth as usize;
    if s.lists.len() < depth + 1 {
        s.lists.resize_with(depth + 1, Vec::new);
    }
    let (all, rest) = s.lists.split_at_mut(1);
    all[0].clear();
    all[0].extend(0..s.cand.len() as u32);
    let mut d = Descent {
        a,
        b,
        cand: &s.cand,
        mode,
        out,
        c,
        visit,
    };
    d.node(0, &all[0], rest);
}

/// The state of one version-2 descent of A.
struct Descent<'a, V> {
    a: &'a Rtree,
    b: &'a Rtree,
    cand: &'a [Candidate],
    mode: Mode,
    out: &'a mut Vec<(u32, u32)>,
    c: &'a mut RtreeCounters,
    visit: &'a mut V,
}

impl<V: FnMut(usize)> Descent<'_, V> {
    /// Visits `node` with the candidates that met its parent; true when the query stops
    /// (first contact in `Mode::First`).
    fn node(&mut self, node: usize, parent: &[u32], lists: &mut [Vec<u32>]) -> bool {
        (self.visit)(node);
        self.c.nodes_visited_a += 1;
        let Some((mine, rest)) = lists.split_first_mut() else {
            return false; // deeper than A's depth: cannot happen (lists cover every level)
        };
        mine.clear();
        let nb = self.a.node_box(node);
        for &i in parent {
            self.c.bv_tests += 1;
            if nb.overlaps(&self.cand[i as usize].bx) {
                mine.push(i);
            }
        }
        if mine.is_empty() {
            return false;
        }
        let n = self.a.nodes[node];
        let range = n.first as usize..(n.first + n.count) as usize;
        if !self.a.is_leaf(node) {
            return range.into_iter().any(|child| self.node(child, mine, rest));
        }
        for e in range {
            let eb = self.a.entry_box(e);
            let mut ta = None;
            for &i in mine.iter() {
                let cd = &self.cand[i as usize];
                self.c.bv_tests += 1;
                if !eb.overlaps(&cd.bx) {
                    continue;
                }
                self.c.tri_tests += 1;
                let ta = ta.get_or_insert_with(|| self.a.entry_f64(e));
                if tri_tri_intersect(ta, &cd.tri) {
                    self.out
                        .push((self.a.tri_index[e], self.b.tri_index[cd.entry as usize]));
                    if self.mode == Mode::First {
                        return true;
                    }
                }
            }
        }
        false
    }
}
