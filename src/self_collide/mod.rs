//! Self-collision: every pair of triangles of one mesh that intersect, with neighbours
//! (triangles sharing vertex indices) reported only when they meet outside their shared
//! vertices (`docs/FORMATS.md`, "Self-collision"; the decision and its proof are in
//! [`adjacency`]).
//!
//! One k-DOP hierarchy ([`Bvh`], Klosowski et al., "Efficient Collision Detection Using
//! Bounding Volume Hierarchies of k-DOPs", 1998) is traversed against itself in its own
//! frame: nothing is tumbled (Nu = 0). A node pair `(n, n)` needs no overlap test and
//! descends to its child pairs `(c0, c0)`, `(c0, c1)`, `(c1, c1)`, so each unordered pair of
//! distinct nodes is met at most once; a pair of distinct nodes is tested with the k-DOP
//! slab test (counted in Nv) and, on overlap, descends the larger k-DOP (the query's default
//! `larger` rule). A leaf against itself tests its triangles pairwise. Every triangle pair
//! is thus tested at most once (Np), in the same order whatever the thread count.
//!
//! **Tolerance** ([`SelfCollider::collide_within`], `meshcollide self --tolerance EPS`): a
//! pair of triangles that share no vertex index is reported iff its distance is at most
//! `ε` (exactly, [`crate::proximity::tri_tri_within`]), and node pairs are kept by the
//! query's grown slab test ([`crate::proximity::kdops_within`]: both k-DOPs are in the
//! hierarchy's one frame, a translation of the mesh's, so its proof holds as written).
//! Neighbours, which share a vertex index, are always at distance 0: for them the rule
//! stays the one above (reported iff they meet outside their shared vertices), so that a
//! tolerance reports what comes close across the surface, not the surface's own fabric.
//! `ε = 0` is the ordinary query, byte for byte.
//!
//! ```
//! use meshcollide::{BvKind, SelfCollider, mesh::generate};
//!
//! let sheet = generate::folded_sheet(20, 4, 0.1);
//! let c = SelfCollider::builder(&sheet).bv(BvKind::Kdop18).build()?;
//! let r = c.collide();
//! assert_eq!(r.pairs, meshcollide::brute_force_self(&sheet));
//! assert!(!r.pairs.is_empty());
//! # Ok::<(), meshcollide::Error>(())
//! ```

// The exact neighbour rule, public for the self-collision oracle tests and the GPU's host side.
#[doc(hidden)]
pub mod adjacency;

use crate::bvh::{BuildOptions, Bvh};
use crate::kind::{BvKind, for_each_k};
use crate::mesh::Mesh;
use crate::ordered::OrderedTriangles;
use crate::scene::{Counters, Mode, PoseResult};
use adjacency::self_pair_intersects;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Node pairs the sequential expansion hands to the parallel phase (at least): a fixed
/// number, so the work split, and the counters, do not depend on the thread count.
const PARALLEL_TASKS: usize = 256;

/// Whether the triangles at positions `p`, `q` of a hierarchy's order are reported
/// ([`adjacency::self_pair_intersects`] on their local vertex slots, which number the mesh's
/// vertices one to one).
#[inline]
fn pair_hits(tris: &OrderedTriangles, p: usize, q: usize, eps: f64) -> bool {
    self_pair_within(
        tris.corners[p],
        &tris.corners_f64(p),
        tris.corners[q],
        &tris.corners_f64(q),
        eps,
    )
}

/// The self-collision rule at tolerance `eps` (module docs): triangles without a common
/// vertex index by their exact distance, neighbours by [`self_pair_intersects`].
pub fn self_pair_within(
    ia: [u32; 3],
    a: &[[f64; 3]; 3],
    ib: [u32; 3],
    b: &[[f64; 3]; 3],
    eps: f64,
) -> bool {
    if eps == 0.0 || ia.iter().any(|x| ib.contains(x)) {
        self_pair_intersects(ia, a, ib, b)
    } else {
        crate::proximity::tri_tri_within(a, b, eps)
    }
}

/// The oracle: every triangle pair `i < j` of `mesh` decided by the same exact rule, sorted.
pub fn brute_force_self(mesh: &Mesh) -> Vec<(u32, u32)> {
    brute_force_self_within(mesh, 0.0)
}

/// [`brute_force_self`] at tolerance `eps` (module docs).
pub fn brute_force_self_within(mesh: &Mesh, eps: f64) -> Vec<(u32, u32)> {
    let n = mesh.triangle_count();
    let mut pairs: Vec<(u32, u32)> = (0..n)
        .into_par_iter()
        .flat_map_iter(|i| {
            let (ti, ci) = (mesh.triangles[i], mesh.triangle(i));
            (i + 1..n).filter_map(move |j| {
                self_pair_within(ti, &ci, mesh.triangles[j], &mesh.triangle(j), eps)
                    .then_some((i as u32, j as u32))
            })
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

/// One traversal state: what the descent has found and counted so far.
struct Walk<'a, const H: usize> {
    bvh: &'a Bvh<H>,
    mode: Mode,
    stop: &'a AtomicBool,
    counters: Counters,
    out: Vec<(u32, u32)>,
    /// The tolerance (0: intersection) and its slab margins.
    eps: f64,
    margins: [f32; H],
}

impl<const H: usize> Walk<'_, H> {
    /// Records a hit at positions `p`, `q`; returns whether the traversal must stop.
    fn hit(&mut self, p: usize, q: usize) -> bool {
        let (a, b) = (self.bvh.tri_index[p], self.bvh.tri_index[q]);
        self.out.push((a.min(b), a.max(b)));
        if self.mode == Mode::First {
            self.stop.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// One step of the descent on node pair `(n, m)` (`n ≤ m`): tests, and pushes the child
    /// pairs to `next`. Returns whether the traversal must stop.
    fn step(&mut self, n: u32, m: u32, next: &mut Vec<(u32, u32)>) -> bool {
        let nodes = &self.bvh.nodes;
        let (a, b) = (nodes[n as usize], nodes[m as usize]);
        if n == m {
            if a.is_leaf() {
                let (lo, hi) = (a.first as usize, (a.first + a.count) as usize);
                for p in lo..hi {
                    for q in p + 1..hi {
                        self.counters.tri_tests += 1;
                        if pair_hits(&self.bvh.tris, p, q, self.eps) && self.hit(p, q) {
                            return true;
                        }
                    }
                }
            } else {
                let c = a.first;
                next.extend([(c + 1, c + 1), (c, c + 1), (c, c)]);
            }
            return false;
        }
        self.counters.bv_tests += 1;
        let near = if self.eps == 0.0 {
            a.bv.overlaps(&b.bv)
        } else {
            crate::proximity::kdops_within(&a.bv, &b.bv, &self.margins)
        };
        if !near {
            return false;
        }
        match (a.is_leaf(), b.is_leaf()) {
            (true, true) => {
                for p in a.first..a.first + a.count {
                    for q in b.first..b.first + b.count {
                        self.counters.tri_tests += 1;
                        let (p, q) = (p as usize, q as usize);
                        if pair_hits(&self.bvh.tris, p, q, self.eps) && self.hit(p, q) {
                            return true;
                        }
                    }
                }
            }
            (false, true) => next.extend([(a.first + 1, m), (a.first, m)]),
            (true, false) => next.extend([(n, b.first + 1), (n, b.first)]),
            (false, false) if a.bv.size() >= b.bv.size() => {
                next.extend([(a.first + 1, m), (a.first, m)])
            }
            (false, false) => next.extend([(n, b.first + 1), (n, b.first)]),
        }
        false
    }

    /// Depth-first descent from one node pair, until done or told to stop.
    fn descend(&mut self, start: (u32, u32)) {
        let mut stack = vec![start];
        while let Some((n, m)) = stack.pop() {
            if self.mode == Mode::First && self.stop.load(Ordering::Relaxed) {
                return;
            }
            if self.step(n, m, &mut stack) {
                return;
            }
        }
    }
}

/// All self-intersecting pairs of one hierarchy (in its own frame), in parallel: a
/// breadth-first expansion on the calling thread to at least `PARALLEL_TASKS` (256) node
/// pairs (or until only leaf pairs are left), then a depth-first descent of each in
/// parallel. Pairs are sorted and deduplicated; in [`Mode::First`] at most one is kept.
pub fn collide_bvh<const H: usize>(bvh: &Bvh<H>, mode: Mode) -> PoseResult {
    collide_bvh_within(bvh, mode, 0.0)
}

/// [`collide_bvh`] at tolerance `eps` (finite, at least 0; module docs).
pub fn collide_bvh_within<const H: usize>(bvh: &Bvh<H>, mode: Mode, eps: f64) -> PoseResult {
    let stop = AtomicBool::new(false);
    let margins = crate::proximity::slab_margins_f32::<H>(eps);
    let walk = || Walk {
        bvh,
        mode,
        stop: &stop,
        counters: Counters::default(),
        out: Vec::new(),
        eps,
        margins,
    };
    let mut head = walk();
    let mut front = vec![(0u32, 0u32)];
    let is_leaf_pair =
        |(n, m): (u32, u32)| bvh.nodes[n as usize].is_leaf() && bvh.nodes[m as usize].is_leaf();
    while front.len() < PARALLEL_TASKS && !front.iter().all(|&p| is_leaf_pair(p)) {
        let mut next = Vec::with_capacity(3 * front.len());
        for &(n, m) in &front {
            if is_leaf_pair((n, m)) {
                next.push((n, m));
            } else if head.step(n, m, &mut next) {
                break;
            }
        }
        front = next;
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    let parts: Vec<(Counters, Vec<(u32, u32)>)> = front
        .par_iter()
        .map(|&pair| {
            let mut w = walk();
            w.descend(pair);
            (w.counters, w.out)
        })
        .collect();
    let mut counters = head.counters;
    let mut pairs = head.out;
    for (c, out) in parts {
        counters += c;
        pairs.extend(out);
    }
    pairs.sort_unstable();
    pairs.dedup();
    if mode == Mode::First {
        pairs.truncate(1);
    }
    PoseResult { pairs, counters }
}

/// The k-DOP hierarchy of a [`SelfCollider`], for a k chosen at run time.
#[derive(Debug, Clone)]
#[allow(missing_docs)] // The variants are named after their `BvKind`.
pub enum SelfHierarchy {
    Kdop6(Bvh<3>),
    Kdop14(Bvh<7>),
    Kdop18(Bvh<9>),
    Kdop26(Bvh<13>),
}

/// Builds a [`SelfCollider`]: kdop18, splatter at the mean, leaf size 1 and all pairs by
/// default, like [`crate::Collider::builder`].
#[derive(Debug, Clone)]
#[must_use]
pub struct SelfColliderBuilder<'m> {
    mesh: &'m Mesh,
    bv: BvKind,
    build: BuildOptions,
    mode: Mode,
}

impl SelfColliderBuilder<'_> {
    /// The bounding volume: one of the k-DOPs (`kdop6` … `kdop26`).
    pub fn bv(mut self, bv: BvKind) -> Self {
        self.bv = bv;
        self
    }
    /// How the hierarchy is built.
    pub fn build_options(mut self, o: BuildOptions) -> Self {
        self.build = o;
        self
    }
    /// All pairs, or at most one.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// Checks the mesh and the options and builds the hierarchy.
    ///
    /// Errors: a mesh without triangles, with a triangle naming a missing vertex or a
    /// coordinate not finite or outside the supported range ([`crate::Error::Mesh`]); a
    /// bounding volume other than the k-DOPs ([`crate::Error::InvalidOption`]: the
    /// self-collision traversal is written for them).
    pub fn build(self) -> crate::error::Result<SelfCollider> {
        self.mesh.validate(std::path::Path::new("mesh"))?;
        let (m, o) = (self.mesh, &self.build);
        let bvh = match self.bv {
            BvKind::Kdop6 => SelfHierarchy::Kdop6(Bvh::build(m, o)),
            BvKind::Kdop14 => SelfHierarchy::Kdop14(Bvh::build(m, o)),
            BvKind::Kdop18 => SelfHierarchy::Kdop18(Bvh::build(m, o)),
            BvKind::Kdop26 => SelfHierarchy::Kdop26(Bvh::build(m, o)),
            other => {
                return Err(crate::error::Error::InvalidOption(format!(
                    "self-collision runs on the k-DOP hierarchies (kdop6, kdop14, kdop18, kdop26), not {}",
                    other.name()
                )));
            }
        };
        Ok(SelfCollider {
            bvh,
            triangles: m.triangles.clone(),
            mode: self.mode,
        })
    }
}

/// A mesh's k-DOP hierarchy, ready to report its self-intersecting triangle pairs, and to
/// follow new vertex positions of the same mesh ([`SelfCollider::refit`]).
#[derive(Debug, Clone)]
pub struct SelfCollider {
    bvh: SelfHierarchy,
    /// The mesh's triangles (file numbering), which every refit must keep.
    triangles: Vec<[u32; 3]>,
    mode: Mode,
}

impl SelfCollider {
    /// A builder for the self-collision of `mesh`.
    pub fn builder(mesh: &Mesh) -> SelfColliderBuilder<'_> {
        SelfColliderBuilder {
            mesh,
            bv: BvKind::Kdop18,
            build: BuildOptions::default(),
            mode: Mode::All,
        }
    }

    /// The self-intersecting pairs `(tri_a, tri_b)`, `tri_a < tri_b` in file numbering,
    /// sorted, with Nv and Np (Nu is 0: nothing moves). Equal to [`brute_force_self`] in
    /// [`Mode::All`]; in [`Mode::First`] at most one of its pairs (which one, and the
    /// counters, may vary between runs: the parallel descents stop at the first found).
    pub fn collide(&self) -> PoseResult {
        self.collide_with(self.mode)
    }

    /// [`SelfCollider::collide`] in another mode.
    pub fn collide_with(&self, mode: Mode) -> PoseResult {
        for_each_k!(&self.bvh, SelfHierarchy(h) => collide_bvh(h, mode))
    }

    /// Every pair within `tolerance` instead of intersecting (module docs): equal to
    /// [`brute_force_self_within`] in [`Mode::All`]; a zero tolerance is
    /// [`SelfCollider::collide_with`], counters included.
    pub fn collide_within(&self, mode: Mode, tolerance: crate::proximity::Tolerance) -> PoseResult {
        let eps = tolerance.get();
        for_each_k!(&self.bvh, SelfHierarchy(h) => collide_bvh_within(h, mode, eps))
    }

    /// Takes new vertex positions of the same mesh (a frame of a deforming mesh): the
    /// k-DOPs are refitted bottom-up ([`Bvh::refit`]), the tree structure kept, so later
    /// queries answer for the new positions exactly (the refitted k-DOPs contain the f64
    /// triangles, so culling stays conservative). Errors ([`crate::Error::InvalidOption`]) on
    /// too few positions or a coordinate not finite or out of range; the hierarchy is then
    /// unchanged.
    pub fn refit(&mut self, positions: &[[f64; 3]]) -> crate::error::Result<()> {
        let t = &self.triangles;
        for_each_k!(&mut self.bvh, SelfHierarchy(h) => h.refit(positions, t))
    }

    /// The bounding volume.
    pub fn kind(&self) -> BvKind {
        match self.bvh {
            SelfHierarchy::Kdop6(_) => BvKind::Kdop6,
            SelfHierarchy::Kdop14(_) => BvKind::Kdop14,
            SelfHierarchy::Kdop18(_) => BvKind::Kdop18,
            SelfHierarchy::Kdop26(_) => BvKind::Kdop26,
        }
    }

    /// The hierarchy.
    pub fn hierarchy(&self) -> &SelfHierarchy {
        &self.bvh
    }

    /// `(nodes, bytes)` of the node array.
    pub fn hierarchy_size(&self) -> (usize, usize) {
        for_each_k!(&self.bvh, SelfHierarchy(h) => (h.nodes.len(), h.node_bytes()))
    }

    /// Depth of the hierarchy (a single leaf has depth 1).
    pub fn depth(&self) -> u32 {
        for_each_k!(&self.bvh, SelfHierarchy(h) => h.depth)
    }

    /// The build options of the hierarchy.
    pub fn build_options(&self) -> BuildOptions {
        for_each_k!(&self.bvh, SelfHierarchy(h) => h.options)
    }
}
