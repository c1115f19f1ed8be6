//! The simultaneous traversal of two boxtrees (Zachmann, *Minimal Hierarchical Collision
//! Detection*, 2002, section 3) with the node-specific work shifted up one level (3.3).
//!
//! Descent rule (the paper's scheme): when a pair overlaps, every child of A is paired with
//! every child of B (a leaf stands for itself), first child first. The children's intervals
//! are computed once per overlapping pair — two for A, two for B, the node-specific part
//! `c₁` of 3.3 — and passed down to the (up to) four child pairs, whose own test (`c₂`)
//! then compares only the interval ends that changed.
//!
//! Frames: the box tests run in local coordinates on the [`LocalPose`] of the pose (see
//! [`super::overlap`]); the leaf tests on the f64 corners as written, B's moved by the
//! global [`Pose::apply`], exactly as [`crate::brute_force`] moves them.
//!
//! Counters (ARCHITECTURE.md, "Counters"): Nv = node-pair box tests (the root pair
//! included), Np = exact triangle tests, Nu = distinct nodes of B whose box was brought
//! into A's frame for the pose (the root included).

use super::BoxTree;
use super::node::Node;
use super::overlap::{Iv, PoseDirections};
use super::{BoxTest, BoxtreeOptions};
use crate::bvh::BuildOptions;
use crate::frame::LocalPose;
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub, PairScene, QueryOptions, WorkspacePool};
use crate::tri::tri_tri_intersect;

/// Both boxtrees of a scene: A the environment, B the flying object.
#[derive(Debug)]
pub struct BoxtreeScene {
    /// A's tree.
    pub env: BoxTree,
    /// B's tree.
    pub fly: BoxTree,
    /// The node-pair test.
    pub options: BoxtreeOptions,
    /// Workspaces kept between single-pose calls (they hold per-triangle arrays of B).
    pool: WorkspacePool<BoxtreeWorkspace>,
}

impl BoxtreeScene {
    /// Builds both trees (only `leaf_size` of the options applies: the boxtree has its own
    /// splitting criterion, section 4).
    pub fn build(
        a: &Mesh,
        b: &Mesh,
        opt_a: &BuildOptions,
        opt_b: &BuildOptions,
        options: BoxtreeOptions,
    ) -> Self {
        let (env, fly) = rayon::join(
            || BoxTree::build(a, opt_a.leaf_size),
            || BoxTree::build(b, opt_b.leaf_size),
        );
        BoxtreeScene {
            env,
            fly,
            options,
            pool: Default::default(),
        }
    }
}

/// Per-thread scratch state: B's triangles in A's frame (filled lazily per pose), stamps
/// for Nu, and the lookup tables.
#[derive(Debug)]
pub struct BoxtreeWorkspace {
    pub(super) pose: u32,
    pub(super) tri_stamp: Vec<u32>,
    pub(super) tris: Vec<[[f64; 3]; 3]>,
    pub(super) node_stamp: Vec<u32>,
    pub(super) lut: Vec<f64>,
    /// A budgeted pose's frontier and node intervals ([`super::budget`]).
    pub(super) budget: super::budget_state::BudgetState,
}

impl BoxtreeWorkspace {
    /// Starts a pose: a fresh stamp (the stamps cleared when it wraps), B's root counted
    /// as brought into A's frame.
    pub(super) fn next_pose(&mut self) {
        self.pose = self.pose.wrapping_add(1);
        if self.pose == 0 {
            self.tri_stamp.fill(0);
            self.node_stamp.fill(0);
            self.pose = 1;
        }
        self.node_stamp[0] = self.pose;
    }

    /// B's triangle at position `p` as the exact test reads it: its f64 corners as written
    /// moved by the global `pose`, computed once per pose.
    #[inline]
    pub(super) fn moved(&mut self, fly: &BoxTree, pose: &Pose, p: usize) -> &[[f64; 3]; 3] {
        if self.tri_stamp[p] != self.pose {
            self.tri_stamp[p] = self.pose;
            self.tris[p] = fly.tris.corners_f64(p).map(|q| pose.apply(q));
        }
        &self.tris[p]
    }
}

struct Run<'a, const N: usize, const LUT: bool> {
    env: &'a BoxTree,
    fly: &'a BoxTree,
    frame: &'a PoseDirections<N>,
    pose: &'a Pose,
    mode: Mode,
    ws: &'a mut BoxtreeWorkspace,
    c: Counters,
    out: &'a mut Vec<(u32, u32)>,
}

impl<const N: usize, const LUT: bool> Run<'_, N, LUT> {
    #[inline]
    fn child_b(&mut self, parent: &Iv<N>, i: u32) -> Iv<N> {
        let i = i as usize;
        if self.ws.node_stamp[i] != self.ws.pose {
            self.ws.node_stamp[i] = self.ws.pose;
            self.c.bv_updates += 1;
        }
        let n = self.fly.nodes[i];
        if LUT {
            self.frame
                .child_b_lut(parent, n, self.fly.lut_codes[i], &self.ws.lut)
        } else {
            self.frame.child_b(parent, n)
        }
    }

    /// `(ai, bi)` overlap; returns true to stop (first contact found in `Mode::First`).
    fn descend(&mut self, ai: u32, sa: &Iv<N>, bi: u32, sb: &Iv<N>) -> bool {
        let na = self.env.nodes[ai as usize];
        let nb = self.fly.nodes[bi as usize];
        let (la, lb) = (na.is_leaf(), nb.is_leaf());
        if la && lb {
            return self.leaves(na, nb);
        }
        let mut ac = [(ai, sa.settled()); 2];
        let mut n_a = 1;
        if !la {
            let f = na.child;
            ac = [0, 1].map(|k| {
                let n = self.env.nodes[(f + k) as usize];
                (f + k, self.frame.child_a(sa, n))
            });
            n_a = 2;
        }
        let mut bc = [(bi, sb.settled()); 2];
        let mut n_b = 1;
        if !lb {
            let f = nb.child;
            bc = [(f, self.child_b(sb, f)), (f + 1, self.child_b(sb, f + 1))];
            n_b = 2;
        }
        for (x, a) in ac.iter().take(n_a) {
            for (y, b) in bc.iter().take(n_b) {
                self.c.bv_tests += 1;
                if self.frame.overlap_changed(a, b) && self.descend(*x, a, *y, b) {
                    return true;
                }
            }
        }
        false
    }

    fn leaves(&mut self, na: Node, nb: Node) -> bool {
        for pa in na.child..na.child + na.count() {
            let ta = self.env.tris.corners_f64(pa as usize);
            for pb in nb.child..nb.child + nb.count() {
                let p = pb as usize;
                self.c.tri_tests += 1;
                if tri_tri_intersect(&ta, self.ws.moved(self.fly, self.pose, p)) {
                    self.out
                        .push((self.env.tri_index[pa as usize], self.fly.tri_index[p]));
                    if self.mode == Mode::First {
                        return true;
                    }
                }
            }
        }
        false
    }
}

fn run<const N: usize, const LUT: bool>(
    s: &BoxtreeScene,
    pose: &Pose,
    mode: Mode,
    ws: &mut BoxtreeWorkspace,
    out: &mut Vec<(u32, u32)>,
) -> Counters {
    let lp = LocalPose::new(pose, s.env.frame(), s.fly.frame());
    let frame =
        PoseDirections::<N>::new(&lp, (&s.env.root, s.env.depth), (&s.fly.root, s.fly.depth));
    if LUT {
        frame.fill_lut(&s.fly, &mut ws.lut);
    }
    ws.next_pose();
    let ra = frame.root_a(&s.env.root);
    let rb = frame.root_b(&s.fly.root);
    let mut r = Run::<N, LUT> {
        env: &s.env,
        fly: &s.fly,
        frame: &frame,
        pose,
        mode,
        ws,
        c: Counters {
            bv_tests: 1,
            tri_tests: 0,
            bv_updates: 1,
            ..Default::default()
        },
        out,
    };
    if frame.overlap_full(&ra, &rb) {
        r.descend(0, &ra, 0, &rb);
    }
    r.c
}

impl PairScene for BoxtreeScene {
    type Workspace = BoxtreeWorkspace;
    type Sub = NoSub;

    fn prefault(&self, ws: &mut BoxtreeWorkspace) {
        use crate::tumble::touch_pages;
        touch_pages(&mut ws.tri_stamp);
        touch_pages(&mut ws.tris);
        touch_pages(&mut ws.node_stamp);
        touch_pages(&mut ws.lut);
    }

    fn workspace(&self) -> BoxtreeWorkspace {
        let (nt, nn) = (self.fly.tri_index.len(), self.fly.nodes.len());
        BoxtreeWorkspace {
            pose: 0,
            tri_stamp: vec![0; nt],
            tris: vec![[[0.0; 3]; 3]; nt],
            node_stamp: vec![0; nn],
            lut: Vec::new(),
            budget: Default::default(),
        }
    }

    fn begin_chunk(&self, ws: &mut BoxtreeWorkspace) {
        ws.budget.frontier.forget_hot();
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut BoxtreeWorkspace,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        if !opts.tolerance.is_zero() {
            let (a, b) = (&self.env, &self.fly);
            let eps = opts.tolerance.get();
            return crate::proximity::within_every_pair(
                &a.tris,
                &a.tri_index,
                &b.tris,
                &b.tri_index,
                pose,
                opts.mode,
                eps,
                out,
            );
        }
        match self.options.test {
            BoxTest::Align => run::<3, false>(self, pose, opts.mode, ws, out),
            BoxTest::Lut => run::<3, true>(self, pose, opts.mode, ws, out),
            BoxTest::SatLite => run::<6, false>(self, pose, opts.mode, ws, out),
            BoxTest::Sat => run::<15, false>(self, pose, opts.mode, ws, out),
        }
    }

    fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        [
            (self.env.nodes.len(), self.env.node_bytes()),
            (self.fly.nodes.len(), self.fly.node_bytes()),
        ]
    }

    fn depths(&self) -> [u32; 2] {
        [self.env.depth, self.fly.depth]
    }

    fn pool(&self) -> Option<&WorkspacePool<Self::Workspace>> {
        Some(&self.pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boxtree::far;
    use crate::scene::brute_force;

    /// Np of every box test over a scene's poses, checking the pairs against brute force
    /// (the f64 oracle) at every pose; also returns the contacts and the empty poses.
    fn run_case(c: &far::Case) -> ([u64; 4], usize, usize) {
        let o = BuildOptions::default();
        let mut s = BoxtreeScene::build(&c.a, &c.b, &o, &o, BoxtreeOptions::default());
        s.env
            .validate()
            .unwrap_or_else(|e| panic!("{} A: {e}", c.label));
        s.fly
            .validate()
            .unwrap_or_else(|e| panic!("{} B: {e}", c.label));
        let (mut np, mut contacts, mut empty) = ([0; 4], 0, 0);
        for (i, p) in c.poses.iter().enumerate() {
            let truth = brute_force(&c.a, &c.b, p);
            contacts += truth.len();
            empty += truth.is_empty() as usize;
            for (k, bt) in BoxTest::ALL.into_iter().enumerate() {
                s.options.test = bt;
                let opts = QueryOptions::default();
                let r = s.collide(p, &opts);
                assert_eq!(r.pairs, truth, "{} {bt:?} pose {i}", c.label);
                np[k] += r.counters.tri_tests;
                let first = s.collide(
                    p,
                    &QueryOptions {
                        mode: Mode::First,
                        ..opts
                    },
                );
                assert_eq!(first.pairs.is_empty(), truth.is_empty(), "{}", c.label);
            }
        }
        (np, contacts, empty)
    }

    /// Far from the origin (offsets to 10⁷, millimetre features), every box test gives
    /// brute force's pairs at every pose, translating and rotating, grazing within the f64
    /// resolution; and it culls as well as the same scene near the origin (Np within 10 %
    /// of it, and below a tenth of all triangle pairs on the tori).
    #[test]
    fn equals_brute_force_far_from_the_origin() {
        for c in far::cases() {
            let all_pairs = (c.a.triangle_count() * c.b.triangle_count() * c.poses.len()) as u64;
            let (np, contacts, empty) = run_case(&c);
            assert!(contacts > 0 && empty > 0, "{}: {contacts} {empty}", c.label);
            if c.grazing {
                continue;
            }
            let (np0, ..) = run_case(&far::near_origin(&c));
            let share = if c.a.triangle_count() > 100 { 10 } else { 2 };
            for (k, bt) in BoxTest::ALL.into_iter().enumerate() {
                assert!(
                    np[k] * 10 <= np0[k] * 11 && np[k] * share < all_pairs,
                    "{} {bt:?}: Np {} (near the origin {}) of {all_pairs} pairs",
                    c.label,
                    np[k],
                    np0[k]
                );
            }
        }
    }
}
