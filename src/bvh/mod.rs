//! Top-down construction of k-DOP hierarchies (Klosowski et al., *Efficient Collision
//! Detection Using Bounding Volume Hierarchies of k-DOPs*, 1998, section 3.3.4): binary
//! trees, one split plane orthogonal to x, y or z per node, triangles assigned by their
//! centroid, the axis chosen by one of four rules and the plane placed at the mean or the
//! median of the centroids.
//!
//! The result is flat: a `Vec` of `#[repr(C)]` Pod nodes (children of a node are adjacent,
//! `first` and `first + 1`) and the triangles reordered so that every leaf is one contiguous
//! range — the same bytes the GPU stage uploads.

mod refit;
mod split;
mod validate;

use crate::bv::{Kdop, KdopNode};
use crate::mesh::Mesh;
use crate::ordered::OrderedTriangles;
use split::Item;
pub use split::{SplitPoint, SplitRule};

/// How to build a hierarchy. The default is the paper's recommendation: splatter at the mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildOptions {
    /// How the split axis of a node is chosen.
    pub rule: SplitRule,
    /// Where the split plane is placed along that axis (mean or median of the centroids).
    pub point: SplitPoint,
    /// A node with at most this many triangles becomes a leaf (the threshold t of 4.3).
    pub leaf_size: u32,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            rule: SplitRule::Splatter,
            point: SplitPoint::Mean,
            leaf_size: 1,
        }
    }
}

/// A flattened k-DOP hierarchy with `H = k/2` slabs over one mesh.
#[derive(Debug, Clone)]
pub struct Bvh<const H: usize> {
    /// Node 0 is the root.
    pub nodes: Vec<KdopNode<H>>,
    /// Position in the reordered triangle array → triangle index in the mesh (file order).
    pub tri_index: Vec<u32>,
    /// The reordered triangles (leaf ranges index them): f64 corners as written, local
    /// frame, local f32 corners on demand.
    pub tris: OrderedTriangles,
    /// Number of levels (a single leaf has depth 1).
    pub depth: u32,
    /// The options it was built with.
    pub options: BuildOptions,
}

/// The node order: the top levels of the tree (down to this level, the root's being 1) are
/// numbered breadth first, one level after another; below them the subtree of each node of
/// the last such level is numbered depth first, in one contiguous run (children stay
/// adjacent, `first` and `first + 1`, and after their parent). A query starts at the roots
/// and crosses the top levels wherever the meshes come close: numbered depth first
/// throughout, those few nodes lie scattered over the whole array, one page and one cache
/// miss each, which a single query pays cold; here the top 1,023 nodes take 80 KB (kdop18),
/// and a deep descent stays within one run. Measured on the side-by-side's scenes
/// (`benches/peers`; `docs/notebook/cpu-speed-2-lanes-isa-node-order-batches.md`, "The top
/// levels numbered breadth first"), µs a query, the same build with this constant varied:
/// single nested 20k spheres α = 0.1, 86–98 all depth first, 86–96 with 6 levels, 65–75
/// with 8, 10, 11 or 14, 62–70 all breadth first; the deep bunny (500 warm poses) 693–705
/// with 1 level against 681–701 with 10, and in another build 700–745 with 1 level against
/// 720–751 all breadth first (no runs left).
pub const BREADTH_FIRST_LEVELS: u32 = 10;

/// Beyond this depth the mean split gives way to the median, so that adversarial inputs
/// (centroids spaced exponentially) cannot make the tree, and the build, quadratic. The
/// paper does not discuss it; on real meshes mean-split trees stay far shallower.
fn median_fallback_depth(n: usize) -> u32 {
    2 * (usize::BITS - n.leading_zeros()) + 16
}

impl<const H: usize> Bvh<H> {
    /// Each node's range `(start, end)` of the reordered triangles: a leaf's own, an internal
    /// node's the union of its children's (children follow parents in the array, so a reverse
    /// sweep sees children first). For volumes fitted per node (spheres, OBBs).
    pub fn node_ranges(&self) -> Vec<(u32, u32)> {
        let n = self.nodes.len();
        let mut range = vec![(0u32, 0u32); n];
        for i in (0..n).rev() {
            let node = &self.nodes[i];
            range[i] = if node.is_leaf() {
                (node.first, node.first + node.count)
            } else {
                let (l, r) = (range[node.first as usize], range[node.first as usize + 1]);
                (l.0.min(r.0), l.1.max(r.1))
            };
        }
        range
    }

    /// Builds the hierarchy of `mesh` (which must be non-empty; `Mesh` validation ensures it).
    ///
    /// Top-down, one pass per level over contiguous `Item`s (centroid beside the triangle
    /// index, so partitions stream through memory); node k-DOPs are merged bottom-up at the
    /// end, O(n) merges in all. Min/max merging is exact, so the bytes equal a top-down merge.
    ///
    /// Everything is computed in the mesh's local frame ([`crate::frame`]): centroids in
    /// local f64, the k-DOPs from local f64 corners by [`Kdop::from_points`], which contains
    /// the real local corners whatever the rounding of the subtraction.
    pub fn build(mesh: &Mesh, options: &BuildOptions) -> Bvh<H> {
        let n = mesh.triangle_count();
        let leaf_size = options.leaf_size.max(1) as usize;
        let frame = OrderedTriangles::frame_of(mesh);
        let local = |i: usize| mesh.triangle(i).map(|p| frame.local_f64(p));
        let mut items: Vec<Item> = (0..n)
            .map(|i| {
                let t = local(i);
                Item {
                    c: [0, 1, 2].map(|k| (t[0][k] + t[1][k] + t[2][k]) / 3.0),
                    t: i as u32,
                }
            })
            .collect();
        // Triangle k-DOPs by mesh index, for the rules that bound candidate children.
        let tri_bv: Vec<Kdop<H>> = match options.rule {
            SplitRule::Splatter => Vec::new(),
            _ => (0..n).map(|i| Kdop::from_points(local(i))).collect(),
        };
        let mut nodes = Vec::with_capacity(2 * n.div_ceil(leaf_size));
        nodes.push(KdopNode {
            bv: Kdop::EMPTY,
            first: 0,
            count: 0,
        });
        let mut depth = 1;
        let fallback = median_fallback_depth(n);
        let mut ctx = split::SplitContext::new(&tri_bv, options.rule);
        // Nodes to split as (node, start, end, level): the queue holds the top levels' in
        // breadth-first order, the stack one depth-first run ([`BREADTH_FIRST_LEVELS`]).
        let mut queue = std::collections::VecDeque::from([(0usize, 0usize, n, 1u32)]);
        let mut stack = Vec::new();
        while let Some(top) = queue.pop_front() {
            stack.push(top);
            while let Some((node, start, end, level)) = stack.pop() {
                depth = depth.max(level);
                let range = &mut items[start..end];
                if range.len() <= leaf_size {
                    nodes[node].first = start as u32;
                    nodes[node].count = range.len() as u32;
                    continue;
                }
                let point = if level >= fallback {
                    SplitPoint::Median
                } else {
                    options.point
                };
                let mid = start + ctx.split(range, point);
                let c = nodes.len();
                nodes.push(nodes[node]);
                nodes.push(nodes[node]);
                nodes[node].first = c as u32;
                nodes[node].count = 0;
                let (left, right) = ((c, start, mid, level + 1), (c + 1, mid, end, level + 1));
                if level < BREADTH_FIRST_LEVELS {
                    queue.push_back(left);
                    queue.push_back(right);
                } else {
                    stack.push(right);
                    stack.push(left);
                }
            }
        }
        drop(tri_bv);
        let tri_index: Vec<u32> = items.iter().map(|it| it.t).collect();
        drop(items);
        let tris = OrderedTriangles::with_frame(mesh, &tri_index, frame);
        // Children have larger indices than their parent: one reverse sweep merges upward.
        for i in (0..nodes.len()).rev() {
            let nd = nodes[i];
            nodes[i].bv = if nd.is_leaf() {
                Kdop::from_points(
                    (nd.first as usize..(nd.first + nd.count) as usize)
                        .flat_map(|p| tris.corners_local_f64(p)),
                )
            } else {
                let f = nd.first as usize;
                nodes[f].bv.merge(&nodes[f + 1].bv)
            };
        }
        Bvh {
            nodes,
            tri_index,
            tris,
            depth,
            options: *options,
        }
    }

    /// The root node, whose k-DOP bounds the whole mesh (local frame).
    pub fn root(&self) -> &KdopNode<H> {
        &self.nodes[0]
    }

    /// Number of triangles of the mesh.
    pub fn triangle_count(&self) -> usize {
        self.tri_index.len()
    }

    /// The local frame of the node k-DOPs and of the f32 corners.
    pub fn frame(&self) -> &crate::frame::Frame {
        &self.tris.frame
    }

    /// Bytes of the node array (what a GPU upload of the nodes costs).
    pub fn node_bytes(&self) -> usize {
        std::mem::size_of_val(self.nodes.as_slice())
    }

    /// Checks the structural invariants; see `validate`.
    pub fn validate(&self) -> Result<(), String> {
        validate::validate(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    pub(crate) fn random_mesh(seed: u64, n: usize) -> Mesh {
        let mut rng = Rng::new(seed);
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        for i in 0..n as u32 {
            let c = [
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
                rng.range(-1.0, 1.0),
            ];
            for _ in 0..3 {
                positions.push([0, 1, 2].map(|k| c[k] + rng.range(-0.1, 0.1)));
            }
            triangles.push([3 * i, 3 * i + 1, 3 * i + 2]);
        }
        Mesh::new(positions, triangles).unwrap()
    }

    fn all_options() -> Vec<BuildOptions> {
        let mut v = Vec::new();
        for rule in SplitRule::ALL {
            for point in [SplitPoint::Mean, SplitPoint::Median] {
                for leaf_size in [1, 3, 8] {
                    v.push(BuildOptions {
                        rule,
                        point,
                        leaf_size,
                    });
                }
            }
        }
        v
    }

    fn check_all<const H: usize>(mesh: &Mesh) {
        for o in all_options() {
            let bvh = Bvh::<H>::build(mesh, &o);
            bvh.validate()
                .unwrap_or_else(|e| panic!("H={H} {o:?}: {e}"));
        }
    }

    #[test]
    fn every_rule_builds_valid_trees() {
        for (seed, n) in [(1, 1), (2, 2), (3, 7), (4, 100), (5, 513)] {
            let m = random_mesh(seed, n);
            check_all::<3>(&m);
            check_all::<7>(&m);
            check_all::<9>(&m);
            check_all::<13>(&m);
        }
    }

    #[test]
    fn identical_centroids_still_terminate() {
        let tri = [[0.0f64, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let positions: Vec<[f64; 3]> = (0..300).map(|i| tri[i % 3]).collect();
        let triangles = (0..100u32).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect();
        let m = Mesh::new(positions, triangles).unwrap();
        check_all::<9>(&m);
        let b = Bvh::<9>::build(&m, &BuildOptions::default());
        assert!(
            b.depth <= 8,
            "median fallback keeps it balanced: {}",
            b.depth
        );
    }

    #[test]
    fn exponential_spacing_stays_shallow() {
        // Mean splits of exponentially spaced centroids peel one triangle per level.
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        for i in 0..2000u32 {
            let x = 1.01f64.powi(i as i32 * 3); // up to 9e25: inside the supported range
            positions.extend([[x, 0.0, 0.0], [x, 1.0, 0.0], [x, 0.0, 1.0]]);
            triangles.push([3 * i, 3 * i + 1, 3 * i + 2]);
        }
        let m = Mesh::new(positions, triangles).unwrap();
        let b = Bvh::<3>::build(&m, &BuildOptions::default());
        b.validate().unwrap();
        assert!(
            b.depth <= 2 * median_fallback_depth(2000) + 12,
            "{}",
            b.depth
        );
    }

    /// The order of [`BREADTH_FIRST_LEVELS`]: the nodes of levels 1 to it come first, level by
    /// level; below, each node of its last level owns one contiguous run of its descendants,
    /// the runs in that level's order, and within a run a pair's left subtree comes before
    /// its right one (depth first). The oracle is a walk that records each node's level and
    /// subtree size, whatever the builder did.
    #[test]
    fn top_levels_breadth_first_then_subtrees_in_runs() {
        let top = BREADTH_FIRST_LEVELS;
        for (seed, n, leaf) in [(6, 5_000, 1), (7, 3_000, 4), (8, 40, 1)] {
            let m = random_mesh(seed, n);
            let o = BuildOptions {
                leaf_size: leaf,
                ..BuildOptions::default()
            };
            let b = Bvh::<9>::build(&m, &o);
            b.validate().unwrap();
            let nodes = &b.nodes;
            let children = |i: usize| (!nodes[i].is_leaf()).then_some(nodes[i].first as usize);
            let mut level = vec![1u32; nodes.len()];
            for i in 0..nodes.len() {
                if let Some(c) = children(i) {
                    level[c] = level[i] + 1;
                    level[c + 1] = level[i] + 1;
                }
            }
            let mut size = vec![1usize; nodes.len()];
            for i in (0..nodes.len()).rev() {
                if let Some(c) = children(i) {
                    size[i] = 1 + size[c] + size[c + 1];
                }
            }
            let below = level.iter().position(|&l| l > top).unwrap_or(nodes.len());
            assert!(
                level[..below].windows(2).all(|w| w[0] <= w[1]),
                "seed {seed}"
            );
            assert!(level[below..].iter().all(|&l| l > top), "seed {seed}");
            if n > 1000 {
                assert!(below < nodes.len(), "seed {seed}: the tree reaches below");
            }
            let mut next = below;
            for i in 0..nodes.len() {
                let Some(c) = children(i) else { continue };
                if level[i] == top {
                    assert_eq!(c, next, "seed {seed}: node {i}'s run");
                    next += size[i] - 1;
                }
                if level[i] >= top {
                    // The left child's pair right after this pair, the right child's after
                    // the left child's subtree.
                    if let Some(g) = children(c) {
                        assert_eq!(g, c + 2, "seed {seed}: node {c}");
                    }
                    if let Some(g) = children(c + 1) {
                        assert_eq!(g, c + 1 + size[c], "seed {seed}: node {}", c + 1);
                    }
                }
            }
            assert_eq!(next, nodes.len(), "seed {seed}: the runs fill the rest");
        }
    }
}
