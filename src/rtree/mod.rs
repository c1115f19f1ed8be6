//! `--bv rtree`: Figueiredo's R-tree collision detection (*An R-Tree Collision Detection
//! Algorithm for Polygonal Models*, 2009).
//!
//! Each object gets an R-tree of its triangles' axis-aligned boxes in its own local frame
//! (f32, relative to its [`crate::frame::Frame`] origin; [`Rtree`], bulk loaded by
//! Sort-Tile-Recursive, m..M entries per node). A query follows the paper's pipeline: the
//! cover box of A's root in B's frame, the overlapping box (OAABB) of the two objects, the
//! R-tree filter of B's triangles against it (Figure 2), the OAABB brought back into A's
//! frame, and then either
//! - Collide version 1 (Figure 1 with Figure 3): filter A's triangles too, then test every
//!   candidate pair by the boxes of its two triangles, or
//! - Collide version 2 (Figure 4): descend A's R-tree with the optimal boxes of B's
//!   candidate triangles, each node of A visited at most once (`collide`).
//!
//! Leaf tests are the exact [`crate::tri::tri_tri_intersect`] on the f64 triangles as
//! written, B moved by [`crate::Pose::apply`] as in [`crate::brute_force`], so pairs equal
//! brute force; every box test on the way is conservative for that truth (`collide`).
//!
//! Counters (ARCHITECTURE.md, "Counters"): Nv counts overlap tests of a box of A's R-tree
//! (node or triangle entry) against a box of B (its root box, or a candidate triangle's
//! optimal box in A's frame): the root test, Figure 3's pair tests (v1), Figure 4's descent
//! tests (v2). The paper's filter (a tree box against the OAABB, Figure 2) tests no node of A
//! against a node of B, so it is counted apart, in [`RtreeCounters::filter_tests`]. Nu
//! counts the cover updates (A's root box into B's frame, the OAABB back into A's) and the
//! candidate triangles of B moved into A's frame with their optimal boxes.

mod aabb;
mod budget;
mod budget_state;
mod build;
pub(crate) mod collide;
mod scene;
mod validate;

pub use aabb::Aabb;
pub use build::{RNode, Rtree};
pub use collide::RtreeCounters;
pub use collide::RtreeWorkspace;
pub use scene::RtreeScene;
pub use validate::validate;

/// Which traversal of the paper (`--rtree-collide`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum RtreeCollide {
    /// Figure 1 (with Figures 2 and 3): both objects filtered by the OAABB, then every pair
    /// of candidates tested by their boxes.
    V1,
    /// Figure 4: B's candidates descend A's R-tree, each node of A visited once.
    #[default]
    V2,
}

option_names! {
    RtreeCollide, kind "rtree collide", all ALL {
        V1 => "v1": "Figure 1: both objects filtered by the overlapping AABB, then all candidate pairs",
        V2 => "v2": "Figure 4: B's candidates descend A's R-tree, each node of A visited once",
    }
}

/// Fan-out of the R-trees: every node but the root has between `min_children` (m) and
/// `max_children` (M) entries.
///
/// The paper gives no values for m and M. Defaults: M = 8, the fastest and fewest Nv of M =
/// 2, 4, 8, 16, 32 on the bunny (`docs/notebook/rtree.md`), and m = 4, the largest m
/// Guttman's R-tree allows (m ≤ M/2, the paper's reference \[3\]); the bulk loader fills
/// nodes evenly, so every non-root node holds at least ⌊M/2⌋ entries whatever m is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtreeOptions {
    /// m: fewest entries of a node but the root.
    pub min_children: u32,
    /// M: most entries of a node.
    pub max_children: u32,
    /// The traversal (version 1 or 2 of the paper's Collide); not a build option.
    pub collide: RtreeCollide,
}

impl Default for RtreeOptions {
    fn default() -> Self {
        RtreeOptions {
            min_children: 4,
            max_children: 8,
            collide: RtreeCollide::default(),
        }
    }
}

impl RtreeOptions {
    /// Largest accepted M (node counts are stored in a `u32`; bigger nodes only waste tests).
    pub const MAX_FANOUT: u32 = 1024;

    /// Checks 1 ≤ m ≤ ⌊M/2⌋, 2 ≤ M and M ≤ [`RtreeOptions::MAX_FANOUT`] (Guttman's condition).
    pub fn validate(&self) -> crate::error::Result<()> {
        let (m, big_m) = (self.min_children, self.max_children);
        if !(2..=Self::MAX_FANOUT).contains(&big_m) {
            return Err(crate::error::Error::InvalidOption(format!(
                "R-tree: M (most children per node) must be in 2..={}, got {big_m}",
                Self::MAX_FANOUT
            )));
        }
        if m < 1 || m > big_m / 2 {
            return Err(crate::error::Error::InvalidOption(format!(
                "R-tree: m (fewest children per node) must be in 1..=M/2 = {}, got {m}",
                big_m / 2
            )));
        }
        Ok(())
    }
}
