//! The 9-byte node of a restricted boxtree and the one formula that derives a child's box
//! from its parent's (Zachmann, *Minimal Hierarchical Collision Detection*, 2002,
//! section 3.1 and Figure 1).

pub use crate::bv::Aabb;

/// One node: the box of its parent with one side moved inwards by `c` along `axis`.
///
/// `#[repr(C, packed)]`: 4 (`c`) + 4 (`child`) + 1 (`flags`) = 9 bytes, the paper's "about
/// 9 bytes per node" (Table 1). Leaves reference their triangles through `child` (the
/// position of their first triangle in the tree's reordered triangle arrays) and the
/// count in `flags`, so a leaf costs no byte more than an inner node. The triangle arrays
/// themselves (`tri_index`, `tris`) are per triangle, not per node, and are the same for
/// every hierarchy; like the k-DOP trees' they are not counted in the node bytes.
#[repr(C, packed)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Node {
    /// Distance (≥ 0) of this node's split plane from the parent's side it replaces: the
    /// upper side for a lower box, the lower side for an upper box (3.1).
    pub c: f32,
    /// Inner node: index of the first child (children at `child` and `child + 1`).
    /// Leaf: position of its first triangle in the reordered triangle arrays.
    pub child: u32,
    /// Bits 0–1: split axis (0, 1, 2; `ROOT_AXIS` for the root, which has no plane);
    /// bit 2: upper box (else lower); bit 3: leaf; bits 4–7: triangles in a leaf minus 1.
    pub flags: u8,
}

/// Axis value of the root, whose box is stored in the tree, not derived.
pub const ROOT_AXIS: u8 = 3;
const UPPER: u8 = 4;
const LEAF: u8 = 8;
/// Most triangles in a leaf (4 bits of `flags`); larger `--leaf-size` values are clamped.
pub const MAX_LEAF: u32 = 16;

impl Node {
    /// The root node: no split plane (axis `ROOT_AXIS`), its box stored in the tree.
    pub fn root() -> Node {
        Node {
            c: 0.0,
            child: 0,
            flags: ROOT_AXIS,
        }
    }

    /// A non-root node: its box is the parent's with side `upper ? lo : hi` of `axis`
    /// moved inwards by `c`.
    pub fn split(axis: usize, upper: bool, c: f32) -> Node {
        debug_assert!(axis < 3 && c >= 0.0);
        Node {
            c,
            child: 0,
            flags: axis as u8 | if upper { UPPER } else { 0 },
        }
    }

    /// Split axis (0, 1, 2), or `ROOT_AXIS` for the root.
    #[inline]
    pub fn axis(self) -> usize {
        (self.flags & 3) as usize
    }
    /// Whether this is the upper box of its parent (its lower side moved), else the lower.
    #[inline]
    pub fn is_upper(self) -> bool {
        self.flags & UPPER != 0
    }
    /// Whether this node is a leaf.
    #[inline]
    pub fn is_leaf(self) -> bool {
        self.flags & LEAF != 0
    }
    /// Triangles of a leaf (0 for inner nodes).
    #[inline]
    pub fn count(self) -> u32 {
        if self.is_leaf() {
            (self.flags >> 4) as u32 + 1
        } else {
            0
        }
    }

    /// Makes this node a leaf over `count` (1..=16) triangles from position `first`.
    pub fn make_leaf(&mut self, first: u32, count: u32) {
        debug_assert!((1..=MAX_LEAF).contains(&count));
        self.child = first;
        self.flags = (self.flags & 7) | LEAF | (((count - 1) as u8) << 4);
    }
}

/// The boxtree's one formula on the shared box ([`crate::bv::Aabb`]).
impl Aabb {
    /// The box of `node` given its parent's box. This rounding (one f64 subtraction or
    /// addition, to nearest) *defines* the boxes: the builder picks `c` so that the box
    /// computed this way contains the node's triangles, and the traversal computes A's
    /// boxes the same way, so A's boxes need no margin.
    #[inline]
    pub fn child(mut self, node: Node) -> Aabb {
        let a = node.axis();
        if a < 3 {
            let c = node.c as f64;
            if node.is_upper() {
                self.lo[a] += c;
            } else {
                self.hi[a] -= c;
            }
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn node_is_nine_bytes_and_flags_round_trip() {
        assert_eq!(std::mem::size_of::<Node>(), 9);
        let mut n = Node::split(2, true, 0.5);
        assert_eq!((n.axis(), n.is_upper(), n.is_leaf()), (2, true, false));
        n.make_leaf(7, 16);
        assert_eq!(
            (n.axis(), n.is_upper(), n.count(), { n.child }),
            (2, true, 16, 7)
        );
        let mut r = Node::root();
        r.make_leaf(0, 1);
        assert_eq!((r.axis(), r.count()), (3, 1));
    }
}
