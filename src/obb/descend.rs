//! The traversal of the volume trees: the simultaneous depth-first descent of A and B
//! (explicit stack), descending the node whose volume is larger (Gottschalk's OBBTree rule,
//! as `Descent::Larger` of the k-DOPs: A on ties, the other side when one is a leaf), and at
//! two leaves the exact triangle test on B's triangles moved by [`Pose::apply`] (the truth).
//!
//! Unlike `crate::traverse` nothing is tumbled: the node test poses B's volume itself, so
//! the workspace holds only the stack and B's moved triangles.

use crate::bvh::Bvh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub};
use crate::tri::tri_tri_intersect;

/// A node-pair test of two volume trees for one pose.
pub(crate) trait PairTest {
    /// Whether node `e` of A and node `f` of B are certainly disjoint.
    fn disjoint(&self, e: usize, f: usize) -> bool;
    /// With both nodes internal, whether to descend A (the larger volume; A on ties).
    fn prefer_a(&self, e: usize, f: usize) -> bool;
}

/// Per-thread scratch state: the stack and B's triangles moved for the current pose (valid
/// while their leaf's stamp is the pose's).
#[derive(Debug)]
pub struct Workspace {
    stack: Vec<(u32, u32)>,
    stamp: u32,
    leaf_stamp: Vec<u32>,
    moved: Vec<[[f64; 3]; 3]>,
}

impl Workspace {
    /// A workspace for B's tree.
    pub fn new<const H: usize>(fly: &Bvh<H>) -> Workspace {
        Workspace {
            stack: Vec::with_capacity(256),
            stamp: 0,
            leaf_stamp: vec![0; fly.nodes.len()],
            moved: vec![[[0.0; 3]; 3]; fly.triangle_count()],
        }
    }

    fn begin(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.leaf_stamp.fill(0);
            self.stamp = 1;
        }
    }
}

/// One pose: appends `(tri_a, tri_b)` in the meshes' own numbering (unsorted) to `out`.
/// Nv = node pairs tested, Np = triangle pairs tested, Nu = 0 (no volume of B is kept
/// moved: each test poses B's volume on the fly).
pub(crate) fn descend<const H: usize, T: PairTest>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    pose: &Pose,
    mode: Mode,
    test: &T,
    ws: &mut Workspace,
    out: &mut Vec<(u32, u32)>,
) -> Counters<NoSub> {
    let mut c = Counters::default();
    ws.begin();
    ws.stack.clear();
    ws.stack.push((0, 0));
    'outer: while let Some((e, f)) = ws.stack.pop() {
        let (e, f) = (e as usize, f as usize);
        c.bv_tests += 1;
        if test.disjoint(e, f) {
            continue;
        }
        let (ne, nf) = (&env.nodes[e], &fly.nodes[f]);
        if !ne.is_leaf() && (nf.is_leaf() || test.prefer_a(e, f)) {
            ws.stack.push((ne.first + 1, f as u32));
            ws.stack.push((ne.first, f as u32));
            continue;
        }
        if !nf.is_leaf() {
            ws.stack.push((e as u32, nf.first + 1));
            ws.stack.push((e as u32, nf.first));
            continue;
        }
        let r = nf.first as usize..(nf.first + nf.count) as usize;
        if ws.leaf_stamp[f] != ws.stamp {
            for p in r.clone() {
                ws.moved[p] = fly.tris.corners_f64(p).map(|x| pose.apply(x));
            }
            ws.leaf_stamp[f] = ws.stamp;
        }
        for pa in ne.first..ne.first + ne.count {
            let ta = env.tris.corners_f64(pa as usize);
            for pb in r.clone() {
                c.tri_tests += 1;
                if tri_tri_intersect(&ta, &ws.moved[pb]) {
                    out.push((env.tri_index[pa as usize], fly.tri_index[pb]));
                    if mode == Mode::First {
                        break 'outer;
                    }
                }
            }
        }
    }
    c
}
