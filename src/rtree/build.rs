//! The R-tree of one object's triangle boxes, bulk loaded bottom-up by Sort-Tile-Recursive
//! (STR: Leutenegger, Lopez, Edgington, "STR: a simple and efficient algorithm for R-tree
//! packing", ICDE 1997) and flattened into arrays.
//!
//! Why STR: the paper (Figueiredo, *An R-Tree Collision Detection Algorithm for Polygonal
//! Models*, 2009, section 2) only says the R-tree groups neighbouring triangles with m..M
//! children per node (Guttman, its reference [3]), not how it is built. Our objects are
//! static, so a bulk load beats Guttman's one-by-one insertion: STR tiles space into slabs
//! along x, then y, then z, giving compact, little-overlapping boxes in O(n log n),
//! deterministically. Our one change: the entries of a level are split into `⌈n/M⌉` groups
//! of even sizes (⌊n/g⌋ or ⌈n/g⌉) instead of full groups plus a remainder, so every
//! non-root node has at least ⌊M/2⌋ ≥ m entries.
//!
//! Boxes are f32 in the mesh's local frame ([`crate::frame`]): a triangle's box is the min
//! and max of its local f64 corners rounded outward, so it holds the *real* local corners
//! `p − o` ([`local_bounds_f32`] has the proof), and a node's box is the min and max of its
//! entries' (no rounding).

use super::RtreeOptions;
use crate::frame::Frame;
use crate::frame::local_bounds_f32;
use crate::mesh::Mesh;
use crate::ordered::OrderedTriangles;

/// One node: its box and its entries, `count` consecutive nodes (inner node) or triangle
/// entries (leaf) starting at `first`.
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct RNode {
    /// Lower corner of the box (tree's local frame).
    pub lo: [f32; 3],
    /// Upper corner of the box (tree's local frame).
    pub hi: [f32; 3],
    /// Inner node: index of its first child in [`Rtree::nodes`]; leaf: its first triangle
    /// entry (index into `tri_lo`, `tri_hi`, `tri_index`).
    pub first: u32,
    /// Number of children or triangle entries.
    pub count: u32,
}

/// An R-tree over a mesh's triangles. Nodes are stored level by level from the root (index
/// 0); all leaves are on the last level (an R-tree is balanced), `nodes[first_leaf..]`.
#[derive(Debug, Clone)]
pub struct Rtree {
    /// All nodes, level by level from the root (index 0).
    pub nodes: Vec<RNode>,
    /// Index of the first leaf: nodes from here on are leaves.
    pub first_leaf: u32,
    /// Box of each triangle entry (local coordinates), in leaf order (a leaf's entries are
    /// consecutive).
    pub tri_lo: Vec<[f32; 3]>,
    /// Upper corners of the triangle entries' boxes, as `tri_lo`.
    pub tri_hi: Vec<[f32; 3]>,
    /// The entries' triangles: file numbering, and the f64 corners as written with the
    /// local frame of every box.
    pub tri_index: Vec<u32>,
    /// The entries' triangles in entry order: f64 corners as written and the local frame.
    pub tris: OrderedTriangles,
    /// Levels of nodes (a root that is a leaf has depth 1).
    pub depth: u32,
    /// The options it was built with.
    pub options: RtreeOptions,
}

/// One entry while a level is packed: its box and what it refers to.
#[derive(Clone, Copy)]
struct Item {
    lo: [f32; 3],
    hi: [f32; 3],
    id: u32,
}

impl Item {
    /// Twice the centre along `k` (f64: exact, no overflow).
    fn key(&self, k: usize) -> f64 {
        f64::from(self.lo[k]) + f64::from(self.hi[k])
    }
}

impl Rtree {
    /// Bulk loads the R-tree of `mesh` (options checked: a typed error, never a panic).
    pub fn build(mesh: &Mesh, options: &RtreeOptions) -> crate::error::Result<Rtree> {
        options.validate()?;
        if mesh.triangle_count() == 0 {
            return Err(crate::error::MeshError::Empty {
                path: "(generated)".into(),
            }
            .into());
        }
        let big_m = options.max_children as usize;
        let frame = OrderedTriangles::frame_of(mesh);
        let mut items: Vec<Item> = (0..mesh.triangle_count())
            .map(|i| {
                let [lo, hi] = local_bounds_f32(mesh.triangle(i).map(|p| frame.local_f64(p)));
                Item {
                    lo,
                    hi,
                    id: i as u32,
                }
            })
            .collect();
        // Leaf entries in STR order, then each level above from the groups below.
        let sizes = str_pack(&mut items, big_m);
        let tri_index: Vec<u32> = items.iter().map(|it| it.id).collect();
        let tris = OrderedTriangles::with_frame(mesh, &tri_index, frame);
        let tri_lo = items.iter().map(|it| it.lo).collect();
        let tri_hi = items.iter().map(|it| it.hi).collect();
        // Levels bottom-up; `first` indexes the level below (entries for leaves).
        let mut levels: Vec<Vec<RNode>> = vec![group_nodes(&items, &sizes)];
        while levels.last().is_some_and(|l| l.len() > 1) {
            let below = levels.last().map(Vec::as_slice).unwrap_or_default();
            let mut items: Vec<Item> = below
                .iter()
                .enumerate()
                .map(|(i, n)| Item {
                    lo: n.lo,
                    hi: n.hi,
                    id: i as u32,
                })
                .collect();
            let sizes = str_pack(&mut items, big_m);
            // Reorder the level below into STR order so each group's children are
            // consecutive; its own `first` fields keep pointing one level further down.
            let reordered: Vec<RNode> = items.iter().map(|it| below[it.id as usize]).collect();
            for (k, it) in items.iter_mut().enumerate() {
                it.id = k as u32;
            }
            let up = group_nodes(&items, &sizes);
            if let Some(l) = levels.last_mut() {
                *l = reordered;
            }
            levels.push(up);
        }
        // Flatten from the root down: a level's `first` gains the offset of the level below.
        levels.reverse();
        let mut offsets = Vec::with_capacity(levels.len());
        let mut total = 0usize;
        for l in &levels {
            offsets.push(total);
            total += l.len();
        }
        let depth = levels.len() as u32;
        let first_leaf = offsets[levels.len() - 1] as u32;
        let mut nodes = Vec::with_capacity(total);
        for (d, l) in levels.iter().enumerate() {
            let below = offsets.get(d + 1).copied().unwrap_or(0) as u32;
            nodes.extend(l.iter().map(|n| RNode {
                first: n.first + below,
                ..*n
            }));
        }
        Ok(Rtree {
            nodes,
            first_leaf,
            tri_lo,
            tri_hi,
            tri_index,
            tris,
            depth,
            options: *options,
        })
    }

    /// Whether node `node` is a leaf (its entries are triangles).
    #[inline]
    pub fn is_leaf(&self, node: usize) -> bool {
        node >= self.first_leaf as usize
    }

    /// The local frame of every box.
    pub fn frame(&self) -> &Frame {
        &self.tris.frame
    }

    /// The root's box: the object's AABB in its own local frame.
    pub fn root_box(&self) -> super::aabb::Aabb {
        super::aabb::Aabb::of_f32(self.nodes[0].lo, self.nodes[0].hi)
    }

    /// The box of node `node` (local frame), exact in f64.
    #[inline]
    pub fn node_box(&self, node: usize) -> super::aabb::Aabb {
        super::aabb::Aabb::of_f32(self.nodes[node].lo, self.nodes[node].hi)
    }

    /// The box of triangle entry `e` (local frame), exact in f64.
    #[inline]
    pub fn entry_box(&self, e: usize) -> super::aabb::Aabb {
        super::aabb::Aabb::of_f32(self.tri_lo[e], self.tri_hi[e])
    }

    /// Triangle entry `e` as written, in global f64 (A's side of a leaf test).
    #[inline]
    pub fn entry_f64(&self, e: usize) -> [[f64; 3]; 3] {
        self.tris.corners_f64(e)
    }

    /// Bytes of the node array plus the entries' boxes (an R-tree leaf stores a box per
    /// entry, Guttman's index records): 32 B per node and 24 B per triangle.
    pub fn bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<RNode>()
            + self.tri_lo.len() * std::mem::size_of::<[f32; 3]>() * 2
    }
}

/// Sorts `items` into STR order and returns the sizes of its `⌈n/M⌉` consecutive groups
/// (even sizes, larger groups first).
fn str_pack(items: &mut [Item], big_m: usize) -> Vec<usize> {
    let n = items.len();
    let g = n.div_ceil(big_m).max(1);
    let sizes: Vec<usize> = (0..g).map(|i| n / g + usize::from(i < n % g)).collect();
    tile(items, &sizes, 0);
    sizes
}

/// Sorts by the centre along `axis`, cuts the groups into `⌈g^(1/(3−axis))⌉` slabs of
/// consecutive groups and recurses into each slab along the next axis.
fn tile(items: &mut [Item], sizes: &[usize], axis: usize) {
    if axis == 3 || sizes.len() <= 1 {
        return;
    }
    items.sort_by(|a, b| a.key(axis).total_cmp(&b.key(axis)).then(a.id.cmp(&b.id)));
    let g = sizes.len();
    let slabs = ((g as f64).powf(1.0 / (3 - axis) as f64).ceil() as usize).clamp(1, g);
    let mut start = 0;
    for s in 0..slabs {
        let (g0, g1) = (s * g / slabs, (s + 1) * g / slabs);
        let len: usize = sizes[g0..g1].iter().sum();
        tile(&mut items[start..start + len], &sizes[g0..g1], axis + 1);
        start += len;
    }
}

/// One node per group of consecutive items: the union of their boxes.
fn group_nodes(items: &[Item], sizes: &[usize]) -> Vec<RNode> {
    let mut out = Vec::with_capacity(sizes.len());
    let mut start = 0;
    for &len in sizes {
        let group = &items[start..start + len];
        let mut lo = group[0].lo;
        let mut hi = group[0].hi;
        for it in &group[1..] {
            for k in 0..3 {
                lo[k] = lo[k].min(it.lo[k]);
                hi[k] = hi[k].max(it.hi[k]);
            }
        }
        out.push(RNode {
            lo,
            hi,
            first: start as u32,
            count: len as u32,
        });
        start += len;
    }
    out
}
