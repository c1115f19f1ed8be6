//! Moving the flying hierarchy B into A's frame for one pose ("tumbling": Klosowski et al.,
//! *Efficient Collision Detection Using Bounding Volume Hierarchies of k-DOPs*, 1998,
//! section 4.1).
//!
//! [`TumbleMethod::Approximate`] is the paper's choice: the root's k-DOP is exact, found by
//! hill climbing on the convex hull of B's vertices (method 1), and every other node's
//! k-DOP bounds its transformed *bounding points* (method 2, the approximation method). A
//! node's bounding points are the vertices of its k-DOP's polytope, or — our addition, when
//! it is the smaller set — the distinct corners of the triangles below it (subtrees of at
//! most [`SMALL_SUBTREE`] triangles), which gives the exact k-DOP of small nodes at lower
//! cost. Nodes are tumbled lazily, the first time the traversal
//! needs them in a query, and counted once each (Nu, as the paper's "last tumbled" stamp).
//!
//! [`TumbleMethod::Exact`] refits every node from the transformed triangle corners, bottom
//! up (Nu = all nodes): the tightest k-DOPs, at the cost of touching every vertex per pose.
//!
//! The approximation method runs in f32 with one fixed formula, [`tumble_points`], shared
//! bit for bit with the GPU kernel `shaders/kdop_tumble.wgsl`: per pose the host computes a
//! [`PoseFrame`] (the slab directions rotated into B's frame, rounded to f32, and each
//! slab's offset `axis·t` widened by a margin and rounded outward); per node and slab the
//! kernel takes the min and max of `(d.x·p.x + d.y·p.y) + d.z·p.z` over the bounding points
//! and adds the offsets. The expression has no common factors, so no compiler may
//! refactor it (Mesa's NIR does factor `a·b + a·c`, see `examples/fma_probe.rs`).
//!
//! Frames: everything here is in local coordinates ([`crate::frame`]): B's bounding points
//! and hull relative to B's origin, the tumbled k-DOPs relative to A's, through the
//! [`LocalPose`] of the pose.
//!
//! Conservativeness: the triangle tests run on `Pose::apply` of B's corners in f64. The
//! margin of [`PoseFrame`] covers the f32 rounding of directions, bounding points (the local
//! f32 corners included, within 2·2⁻²⁴ of the real ones), products, sums and offsets (about
//! 26·2⁻²⁴ of B's scale, we take 4·10⁻⁶) plus the local pose's [`LocalPose::abs_err`], and
//! the root's and the exact refit's f64 paths round outward, so every tumbled k-DOP contains
//! the f64 points the triangle tests use, less A's origin, and the culling never loses a
//! contact.

use crate::bv::Kdop;
use crate::bv::axes::{axes, project};
use crate::bv::polytope::kdop_vertices;
use crate::bvh::Bvh;
use crate::frame::{Frame, LocalPose};
use crate::hull::{ClimbTable, ConvexHull};
use crate::pose::Pose;
use rayon::prelude::*;

/// Defined with the query options in the contract (`scene`), which holds them.
pub use crate::scene::{POSE_CHUNK, TumbleMethod};

mod pose_frame;
pub use pose_frame::{
    PoseFrame, kdop_gap_prunes, posed_kdop, tolerance_t2, tumble_points, tumble_points_reference,
};

/// Subtrees of at most this many triangles may use their distinct corners as bounding
/// points (beyond it, the polytope has fewer vertices on real meshes).
pub const SMALL_SUBTREE: usize = 16;

/// Widening of tumbled k-DOPs relative to B's coordinate scale: above the worst-case f32
/// error of [`tumble_points`] (≈ 24·2⁻²⁴ ≈ 1.4·10⁻⁶).
pub const TUMBLE_MARGIN_REL: f64 = 4e-6;

/// The absolute widening for a flying object of local coordinate scale `scale` at the
/// local pose `lp` (f64 paths: the root by hill climbing): the f64 rounding of the local
/// corners and of the projections, and the local pose's own error.
#[inline]
pub fn margin(scale: f64, lp: &LocalPose) -> f64 {
    let t = lp.pose.t.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    TUMBLE_MARGIN_REL * scale + 1e-12 * t + lp.abs_err
}

/// The local pose as the GPU has it: the rotation (row-major) and the local translation
/// rounded to f32 ([`PoseFrame::r`], [`PoseFrame::t`]), and [`LocalPose::abs_err`] doubled
/// and rounded up ([`PoseFrame::t_err`]).
#[inline]
pub fn pose_f32(lp: &LocalPose) -> ([f32; 9], [f32; 3], f32) {
    (
        std::array::from_fn(|i| lp.pose.r[i / 3][i % 3] as f32),
        lp.pose.t.map(|c| c as f32),
        crate::bv::kdop::round_up(2.0 * lp.abs_err),
    )
}

/// The flying hierarchy with what tumbling needs, built once per mesh.
#[derive(Debug)]
pub struct FlyingHierarchy<const H: usize> {
    pub bvh: Bvh<H>,
    /// Node `i`'s bounding points are `points[offsets[i] .. offsets[i + 1]]`.
    pub offsets: Vec<u32>,
    pub points: Vec<[f32; 3]>,
    /// Convex hull of all of B's corners, for hill climbing at the root.
    pub hull: ConvexHull,
    /// Where hill climbing starts for a pose without a previous one (the first of a chunk,
    /// a single query): see [`FlyingHierarchy::fresh_start`].
    pub climb_table: ClimbTable,
    /// Largest absolute local coordinate of any bounding point (the margin's scale).
    pub scale: f64,
    /// The mesh was deformed after the bounding points, the hull and `scale` were computed
    /// (`crate::deform`): they no longer bound the nodes, so [`TumbleWorkspace::begin`]
    /// tumbles by [`TumbleMethod::Exact`] (from the current corners) whatever is asked.
    pub deformed: bool,
}

/// The bounding points of every node of a hierarchy (the approximation method's input):
/// node `i`'s are `points[offsets[i] .. offsets[i + 1]]`. The costliest part of preparing a
/// flying hierarchy (the polytope of every node), so saved hierarchies store it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoundingPoints {
    pub offsets: Vec<u32>,
    pub points: Vec<[f32; 3]>,
}

impl BoundingPoints {
    /// Checks the layout against a hierarchy of `nodes` nodes: one range per node, in order,
    /// ending at the last point; every coordinate finite.
    pub fn check(&self, nodes: usize) -> Result<(), String> {
        if self.offsets.len() != nodes + 1 || self.offsets[0] != 0 {
            return Err(format!(
                "{} point offsets for {nodes} nodes",
                self.offsets.len()
            ));
        }
        if let Some(i) = self.offsets.windows(2).position(|w| w[1] < w[0]) {
            return Err(format!("point offsets of node {i} are out of order"));
        }
        if self.offsets[nodes] as usize != self.points.len() {
            return Err("point offsets do not end at the last point".into());
        }
        if self.points.iter().flatten().any(|c| !c.is_finite()) {
            return Err("a bounding point is not finite".into());
        }
        Ok(())
    }

    /// The bounding points of every node of `bvh` (see the module docs), in parallel.
    pub fn of<const H: usize>(bvh: &Bvh<H>) -> BoundingPoints {
        // Every subtree covers one contiguous range of the reordered triangles; children
        // follow their parents, so a reverse sweep sees children first.
        let mut ranges = vec![(0u32, 0u32); bvh.nodes.len()];
        for i in (0..bvh.nodes.len()).rev() {
            let n = &bvh.nodes[i];
            ranges[i] = if n.is_leaf() {
                (n.first, n.first + n.count)
            } else {
                let c = n.first as usize;
                (ranges[c].0, ranges[c + 1].1)
            };
        }
        // Bounding points per node, in parallel (the polytopes dominate preparation time).
        let per_node: Vec<Vec<[f32; 3]>> = bvh
            .nodes
            .par_iter()
            .zip(ranges.par_iter())
            .map_init(Vec::new, |poly, (node, &(start, end))| {
                let own = start as usize..end as usize;
                // A node of one triangle is always cheaper (and exact) with its own corners.
                if own.len() == 1 {
                    return bvh.tris.corners_f32(own.start).to_vec();
                }
                // Small subtrees: their distinct corners (shared vertices once) when they
                // are fewer than the polytope's vertices; exact, and tumbling is linear in
                // the number of points.
                let corners = (own.len() <= SMALL_SUBTREE).then(|| {
                    let mut c: Vec<[f32; 3]> =
                        own.clone().flat_map(|p| bvh.tris.corners_f32(p)).collect();
                    c.sort_unstable_by_key(|p| p.map(f32::to_bits));
                    c.dedup_by_key(|p| p.map(f32::to_bits));
                    c
                });
                if let Some(c) = &corners
                    && c.len() <= 6
                {
                    return c.clone();
                }
                kdop_vertices(&node.bv, poly);
                match corners {
                    Some(c) if c.len() <= poly.len() => c,
                    _ => poly.iter().map(|p| p.map(|c| c as f32)).collect(),
                }
            })
            .collect();
        let mut offsets = Vec::with_capacity(bvh.nodes.len() + 1);
        offsets.push(0u32);
        let mut total = 0u32;
        for p in &per_node {
            total += p.len() as u32;
            offsets.push(total);
        }
        let points: Vec<[f32; 3]> = per_node.into_iter().flatten().collect();
        BoundingPoints { offsets, points }
    }
}

impl<const H: usize> FlyingHierarchy<H> {
    /// Prepares `bvh` for tumbling: its bounding points, its hull.
    pub fn new(bvh: Bvh<H>) -> FlyingHierarchy<H> {
        let points = BoundingPoints::of(&bvh);
        FlyingHierarchy::with_points(bvh, points)
    }

    /// [`FlyingHierarchy::new`] with bounding points computed before (by
    /// [`BoundingPoints::of`] on this hierarchy: a saved hierarchy's).
    pub fn with_points(bvh: Bvh<H>, bp: BoundingPoints) -> FlyingHierarchy<H> {
        let BoundingPoints { offsets, points } = bp;
        let scale = points
            .iter()
            .flatten()
            .fold(0.0f64, |m, &c| m.max((c as f64).abs()));
        // B's vertices (each once) in local f64 coordinates.
        let corners: Vec<[f64; 3]> = bvh
            .tris
            .positions
            .iter()
            .map(|&p| bvh.tris.frame.local_f64(p))
            .collect();
        let hull = ConvexHull::new(&corners);
        let climb_table = ClimbTable::new(&hull);
        FlyingHierarchy {
            bvh,
            offsets,
            points,
            hull,
            climb_table,
            scale,
            deformed: false,
        }
    }

    /// A flying hierarchy for a deforming mesh: no bounding points and no hull (they would
    /// be stale after the next frame), marked [`FlyingHierarchy::deformed`], so it is only
    /// ever tumbled from its current corners ([`TumbleMethod::Exact`] or the hybrid update
    /// of `crate::deform`).
    pub fn deforming(bvh: Bvh<H>) -> FlyingHierarchy<H> {
        let n = bvh.nodes.len();
        FlyingHierarchy {
            bvh,
            offsets: vec![0; n + 1],
            points: Vec::new(),
            hull: ConvexHull::new(&[]),
            climb_table: ClimbTable::default(),
            scale: 0.0,
            deformed: true,
        }
    }

    /// The node's bounding points.
    #[inline]
    pub fn node_points(&self, node: usize) -> &[[f32; 3]] {
        &self.points[self.offsets[node] as usize..self.offsets[node + 1] as usize]
    }

    /// Approximation method for one node: the k-DOP of its transformed bounding points.
    #[inline]
    pub fn tumble_node(&self, node: usize, frame: &PoseFrame<H>) -> Kdop<H> {
        tumble_points(frame, self.node_points(node))
    }

    /// Hill-climbing start vertices for `pose` when no previous pose's extremes are at hand:
    /// per direction of [`FlyingHierarchy::tumble_root`], the [`ClimbTable`] entry of its
    /// cube-map cell. Depends on the pose alone, so the CPU traversal and the GPU's frames
    /// climb alike; the answer does not depend on the start at all, only the moves do.
    /// Written into `start` (2H entries), so a workspace reuses its buffer.
    pub fn fresh_start(&self, pose: &Pose, start: &mut Vec<u32>) {
        start.clear();
        start.extend((0..2 * H).map(|d| self.climb_table.start(direction::<H>(d, pose))));
    }

    /// B's local frame.
    pub fn frame(&self) -> &Frame {
        &self.bvh.tris.frame
    }

    /// The local pose of `pose` into the frame `env` of A.
    pub fn local_pose(&self, env: &Frame, pose: &Pose) -> LocalPose {
        LocalPose::new(pose, env, self.frame())
    }

    /// The frames of many poses as the CPU reference computes them: hill climbing restarts
    /// from [`FlyingHierarchy::fresh_start`] every [`POSE_CHUNK`] poses and carries its
    /// extremal vertices from pose to pose within a chunk. `env` is A's frame.
    pub fn pose_frames(&self, env: &Frame, poses: &[Pose]) -> Vec<PoseFrame<H>> {
        poses
            .par_chunks(POSE_CHUNK)
            .flat_map_iter(|chunk| {
                let mut start = Vec::new();
                self.fresh_start(&chunk[0], &mut start);
                chunk
                    .iter()
                    .map(|p| {
                        let lp = self.local_pose(env, p);
                        let (root, _) = self.tumble_root(&lp, &mut start);
                        PoseFrame::new(&lp, self.scale, root)
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// The exact k-DOP of all of B at the local pose `lp` by hill climbing on the hull,
    /// starting from `start` (updated to the extremal vertices found, for the next pose's
    /// coherence). Returns the k-DOP and the number of hill-climbing moves.
    pub fn tumble_root(&self, lp: &LocalPose, start: &mut [u32]) -> (Kdop<H>, u32) {
        let pose = &lp.pose;
        let ax = axes(H);
        let mut lo = [0.0; H];
        let mut hi = [0.0; H];
        let mut moves = 0;
        if self.hull.vertices().is_empty() {
            return (Kdop::EMPTY, 0);
        }
        for i in 0..H {
            for slot in [2 * i, 2 * i + 1] {
                let (v, m) = self.hull.climb(direction::<H>(slot, pose), start[slot]);
                start[slot] = v;
                moves += m;
                let p = self.hull.vertices()[v as usize];
                let x = project(ax[i], pose.apply(p));
                if slot.is_multiple_of(2) {
                    hi[i] = x;
                } else {
                    lo[i] = x;
                }
            }
        }
        (Kdop::from_extents(&lo, &hi, margin(self.scale, lp)), moves)
    }
}

/// Direction `d` of the 2H extremal queries (`2i`: max along slab i, `2i + 1`: min), in
/// B's own frame at `pose`.
fn direction<const H: usize>(d: usize, pose: &Pose) -> [f64; 3] {
    let sign = if d.is_multiple_of(2) { 1.0 } else { -1.0 };
    pose.rotate_inverse(axes(H)[d / 2].map(|c| sign * c as f64))
}

/// Per-thread scratch state of tumbling: the lazily tumbled k-DOPs of the current pose and
/// B's transformed triangles, valid while their stamp equals the current one.
#[derive(Debug, Default)]
pub struct TumbleWorkspace<const H: usize> {
    stamp: u32,
    node_stamp: Vec<u32>,
    node_bv: Vec<Kdop<H>>,
    leaf_stamp: Vec<u32>,
    tri_world: Vec<[[f64; 3]; 3]>,
    /// Hill-climbing start vertices, carried from pose to pose (coherence).
    pub climb_start: Vec<u32>,
    /// The next pose starts hill climbing from [`FlyingHierarchy::fresh_start`] instead of
    /// `climb_start` (set by [`TumbleWorkspace::restart`]).
    pub fresh: bool,
    /// The current pose's frame.
    pub frame: Option<PoseFrame<H>>,
    /// Nodes tumbled in the current pose (Nu).
    pub updates: u64,
    /// Hill-climbing moves in the current pose.
    pub climb_moves: u64,
    /// Hybrid update of a deforming B ([`TumbleWorkspace::begin_hybrid`]): nodes not yet
    /// tumbled in this pose are bounded from their posed corners, not their bounding points.
    lazy_posed: bool,
    /// Each node's range of reordered triangles (hybrid update only).
    ranges: Vec<(u32, u32)>,
    corners: Vec<[[f32; 3]; 3]>,
}

/// Writes one element per 4 KiB page of `v` (its own value back), so that the kernel maps
/// those pages now. Workspaces are zeroed by `calloc`, which hands out pages that are mapped
/// only when first written: without this the first pose of a scene paid one page fault per
/// page it touched (a 20k-triangle nested-spheres query: 0.31 ms cold against 0.10 warm).
pub(crate) fn touch_pages<T: Copy>(v: &mut [T]) {
    let step = (4096 / std::mem::size_of::<T>().max(1)).max(1);
    for x in v.iter_mut().step_by(step) {
        *x = std::hint::black_box(*x);
    }
}

impl<const H: usize> TumbleWorkspace<H> {
    pub fn new(fly: &FlyingHierarchy<H>) -> Self {
        let n = fly.bvh.nodes.len();
        TumbleWorkspace {
            stamp: 0,
            node_stamp: vec![0; n],
            // Zeroed, not filled: calloc hands out untouched pages, so a fresh workspace
            // costs what a pose touches, not O(nodes) (`node_stamp` guards every read).
            node_bv: bytemuck::zeroed_vec(n),
            leaf_stamp: vec![0; n],
            tri_world: vec![[[0.0; 3]; 3]; fly.bvh.triangle_count()],
            climb_start: Vec::with_capacity(2 * H),
            fresh: true,
            frame: None,
            updates: 0,
            climb_moves: 0,
            lazy_posed: false,
            ranges: Vec::new(),
            corners: Vec::new(),
        }
    }

    /// Maps the pages of the per-node and per-triangle arrays ([`touch_pages`]).
    pub fn prefault(&mut self) {
        touch_pages(&mut self.node_stamp);
        touch_pages(&mut self.node_bv);
        touch_pages(&mut self.leaf_stamp);
        touch_pages(&mut self.tri_world);
    }

    /// Makes the next pose start hill climbing afresh (from the climb table), so that what
    /// a query computes does not depend on the poses this workspace saw before.
    pub fn restart(&mut self) {
        self.fresh = true;
    }

    /// Starts a new pose (its local pose `lp`): forgets every tumbled node (O(1) by
    /// stamping) and, for [`TumbleMethod::Exact`], refits the whole hierarchy.
    pub fn begin(&mut self, fly: &FlyingHierarchy<H>, lp: &LocalPose, method: TumbleMethod) {
        let pose = &lp.pose;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.node_stamp.fill(0);
            self.leaf_stamp.fill(0);
            self.stamp = 1;
        }
        self.updates = 0;
        self.climb_moves = 0;
        self.lazy_posed = false;
        // Stale bounding points and hull would not bound a deformed mesh: refit instead.
        let method = if fly.deformed {
            TumbleMethod::Exact
        } else {
            method
        };
        match method {
            TumbleMethod::Approximate => {
                if self.fresh {
                    fly.fresh_start(pose, &mut self.climb_start);
                    self.fresh = false;
                }
                let (root, moves) = fly.tumble_root(lp, &mut self.climb_start);
                self.frame = Some(PoseFrame::new(lp, fly.scale, root));
                self.node_bv[0] = root;
                self.node_stamp[0] = self.stamp;
                self.updates = 1;
                self.climb_moves = moves as u64;
            }
            TumbleMethod::Exact => self.refit_all(fly, lp),
        }
    }

    /// The hybrid update of a deforming B at the local pose `lp` (Larsson and
    /// Akenine-Möller, "Collision Detection for Continuously Deforming Objects", 2001, as
    /// `crate::deform` describes it), done directly in A's frame: the nodes of depth
    /// `<= cut` (`depth[i]`, root 0) are bounded now — those at depth `cut`, and leaves above
    /// it, from their posed corners ([`posed_kdop`]), the others as the union of their
    /// children — and every deeper node from its posed corners when the traversal first
    /// needs it ([`TumbleWorkspace::node_bv`]). A min/max over the same corners does not
    /// round, so every node gets the very k-DOP [`TumbleMethod::Exact`]'s full refit gives
    /// it (conservative by [`posed_kdop`]'s proof). `ranges` are the nodes' triangle ranges
    /// ([`Bvh::node_ranges`]).
    pub fn begin_hybrid(
        &mut self,
        fly: &FlyingHierarchy<H>,
        lp: &LocalPose,
        cut: u32,
        depth: &[u32],
        ranges: &[(u32, u32)],
    ) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.node_stamp.fill(0);
            self.leaf_stamp.fill(0);
            self.stamp = 1;
        }
        self.updates = 0;
        self.climb_moves = 0;
        self.lazy_posed = true;
        if self.ranges.as_slice() != ranges {
            self.ranges = ranges.to_vec();
        }
        let frame = PoseFrame::new(lp, fly.scale, Kdop::EMPTY);
        self.frame = Some(frame);
        let bvh = &fly.bvh;
        for i in (0..bvh.nodes.len()).rev() {
            if depth[i] > cut {
                continue;
            }
            let node = &bvh.nodes[i];
            self.node_bv[i] = if depth[i] == cut || node.is_leaf() {
                self.posed_range(fly, i)
            } else {
                let c = node.first as usize;
                self.node_bv[c].merge(&self.node_bv[c + 1])
            };
            self.node_stamp[i] = self.stamp;
            self.updates += 1;
        }
    }

    /// Node `i`'s volume as last tumbled (valid for the current pose only if it was
    /// tumbled in it: the nodes down to the hybrid cut, every node of an exact refit).
    pub fn tumbled(&self, i: usize) -> &Kdop<H> {
        &self.node_bv[i]
    }

    /// [`posed_kdop`] of the corners of node `i`'s triangles (hybrid update).
    fn posed_range(&mut self, fly: &FlyingHierarchy<H>, i: usize) -> Kdop<H> {
        let (a, b) = self.ranges[i];
        self.corners.clear();
        self.corners
            .extend((a as usize..b as usize).map(|p| fly.bvh.tris.corners_f32(p)));
        let frame = self.frame.as_ref().expect("begin_hybrid sets the frame");
        posed_kdop(frame, &self.corners)
    }

    /// Exact refit: bound every leaf's posed corners ([`posed_kdop`]), merge upwards
    /// (children are stored after their parents, so a reverse sweep visits children first).
    /// The GPU's twin, dispatch by dispatch: `tumble_exact_leaves` and `tumble_exact_merge`
    /// (`shaders/kdop_tumble.wgsl`, CPU twins in `src/gpu/mirror/kdop_tumble.rs`).
    fn refit_all(&mut self, fly: &FlyingHierarchy<H>, lp: &LocalPose) {
        let bvh = &fly.bvh;
        let frame = PoseFrame::new(lp, fly.scale, Kdop::EMPTY);
        let mut corners = Vec::new();
        for i in (0..bvh.nodes.len()).rev() {
            let node = &bvh.nodes[i];
            self.node_bv[i] = if node.is_leaf() {
                let r = node.first as usize..(node.first + node.count) as usize;
                corners.clear();
                corners.extend(r.map(|p| bvh.tris.corners_f32(p)));
                posed_kdop(&frame, &corners)
            } else {
                let c = node.first as usize;
                self.node_bv[c].merge(&self.node_bv[c + 1])
            };
            self.node_stamp[i] = self.stamp;
        }
        self.updates = bvh.nodes.len() as u64;
    }

    /// The tumbled k-DOP of `node` at `pose`, computed on first use in this pose. Always
    /// inlined, like the slab test that reads it: the descent's node test then has no call
    /// but the tumble itself (side-by-side deep bunny 0.73–0.76 → 0.73–0.74 ms a pose, nested
    /// 2k α = 0.001 ×20 0.75–0.77 → 0.71–0.72 ms; `benches/peers`).
    #[inline(always)]
    pub fn node_bv(&mut self, fly: &FlyingHierarchy<H>, node: usize) -> &Kdop<H> {
        if self.node_stamp[node] != self.stamp {
            self.node_bv[node] = if self.lazy_posed {
                self.posed_range(fly, node)
            } else {
                let frame = self
                    .frame
                    .as_ref()
                    .expect("begin() sets the frame before any node");
                fly.tumble_node(node, frame)
            };
            self.node_stamp[node] = self.stamp;
            self.updates += 1;
        }
        &self.node_bv[node]
    }

    /// B's triangles of leaf `node` in A's frame (global f64: [`Pose::apply`] of the
    /// corners as written), transformed on first use.
    #[inline]
    pub fn leaf_triangles(
        &mut self,
        fly: &FlyingHierarchy<H>,
        pose: &Pose,
        node: usize,
    ) -> &[[[f64; 3]; 3]] {
        let n = &fly.bvh.nodes[node];
        let r = n.first as usize..(n.first + n.count) as usize;
        if self.leaf_stamp[node] != self.stamp {
            for p in r.clone() {
                self.tri_world[p] = fly.bvh.tris.corners_f64(p).map(|c| pose.apply(c));
            }
            self.leaf_stamp[node] = self.stamp;
        }
        &self.tri_world[r]
    }
}
