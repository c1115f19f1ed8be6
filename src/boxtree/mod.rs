//! `--bv boxtree`: Zachmann's restricted boxtree (`000_ce88008c398d4cd9.txt`).
//!
//! Each node stores one split plane (a float, its axis, lower/upper side, one child index:
//! 9 bytes, [`node::Node`]); a node's axis-aligned box is its parent's with one side moved
//! inwards (3.1). The builder follows section 4 ([`build`]); the overlap tests of 3.2 —
//! axis alignment, lookup tables, full SAT, SAT lite — are one incremental scheme over
//! different sets of axes ([`overlap`]), with the node-specific work done once per parent
//! pair and passed down one level (3.3, [`traverse`]). Leaves are tested with the exact
//! `tri::tri_tri_intersect`, so the pairs equal brute force. CPU only.

pub mod build;
pub mod node;
pub mod overlap;
pub mod traverse;

use crate::mesh::Mesh;
pub use node::{Aabb, MAX_LEAF, Node};
pub use traverse::{BoxtreeScene, Workspace};

/// Entries per axis of the lookup tables of 3.2.2 (the paper used 1000).
pub const LUT_SIZE: usize = 1024;

/// The node-pair overlap test (`--box-test`), `000_ce88008c398d4cd9.txt` 3.2.
///
/// Every variant is conservative: it may report "overlap" for disjoint boxes, never the
/// reverse (a margin bounds the f64 rounding, see [`overlap`]). The default is SAT lite,
/// the paper's fastest (section 5, Figure 7); our measurements on the bunny agree
/// (BENCHMARKS.md, "Restricted boxtree").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum BoxTest {
    /// 3.2.1: B's box enclosed by an axis-aligned box in A's frame (3 axes).
    Align,
    /// 3.2.4: the axes of A and of B (6 axes).
    #[default]
    SatLite,
    /// 3.2.3: all 15 separating axes (no false positives up to the margin).
    Sat,
    /// 3.2.2: axis alignment with B's updates read from per-pose lookup tables.
    Lut,
}

impl BoxTest {
    pub const ALL: [BoxTest; 4] = [BoxTest::Align, BoxTest::SatLite, BoxTest::Sat, BoxTest::Lut];

    /// The command-line name (`satlite`).
    pub fn name(self) -> &'static str {
        match self {
            BoxTest::Align => "align",
            BoxTest::SatLite => "satlite",
            BoxTest::Sat => "sat",
            BoxTest::Lut => "lut",
        }
    }

    pub fn parse(s: &str) -> Option<BoxTest> {
        BoxTest::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// A restricted boxtree over one mesh.
#[derive(Debug, Clone)]
pub struct BoxTree {
    /// Node 0 is the root; children of a node are adjacent.
    pub nodes: Vec<Node>,
    /// The root's box (tight bounds of the mesh; f32 values), the only box stored.
    pub root: Aabb,
    /// Position in the reordered triangle arrays → triangle index in the mesh.
    pub tri_index: Vec<u32>,
    /// Corners of the reordered triangles (leaves index this array).
    pub tri_corners: Vec<[[f32; 3]; 3]>,
    /// Levels (a single leaf has depth 1).
    pub depth: u32,
    /// Per node `floor(c / step)` for the lookup-table test (3.2.2): a side array of 2 bytes
    /// per node, used only by `--box-test lut` and not part of the 9-byte nodes.
    pub lut_codes: Vec<u16>,
}

impl BoxTree {
    /// Builds the tree of `mesh` (non-empty, as `Mesh` validation ensures) with at most
    /// `leaf_size` triangles per leaf (clamped to 1..=[`MAX_LEAF`]).
    pub fn build(mesh: &Mesh, leaf_size: u32) -> BoxTree {
        build::build(mesh, leaf_size)
    }

    /// Bytes of the node array (9 per node).
    pub fn node_bytes(&self) -> usize {
        std::mem::size_of_val(self.nodes.as_slice())
    }

    /// Structural invariants and conservative boxes; see [`build::validate`].
    pub fn validate(&self) -> Result<(), String> {
        build::validate(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BvKind;

    #[test]
    fn names_round_trip() {
        for t in BoxTest::ALL {
            assert_eq!(BoxTest::parse(t.name()), Some(t));
        }
        assert_eq!(BvKind::parse("boxtree"), Some(BvKind::Boxtree));
        assert!(!BvKind::Boxtree.on_gpu() && BvKind::Kdop18.on_gpu());
        assert!(!BvKind::ALL.contains(&BvKind::Boxtree));
    }
}
