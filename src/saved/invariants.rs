//! The names of the invariants a loaded `.mch` file must satisfy, as
//! [`crate::SavedError::Invariant`] reports them (`invariant`), each with what it guarantees
//! the queries. Every load checks every one of them (`verify/`, `format.rs`): a file is
//! shared between machines and users, and its checksums are no defence against a file
//! edited and re-summed, so nothing in it is trusted that could make a query inexact, crash
//! it, or make it run out of bounds.
//!
//! The mesh itself (finite coordinates in range, vertex indices in range) is checked by
//! [`crate::Mesh::validate`] ([`crate::SavedError::Mesh`]). What is not stored is not
//! checked: the local frame, the ordered triangles, B's convex hull and its climb table
//! (hill climbing at the root) are all computed from the mesh on load, as a build computes
//! them.

/// The header's k is 6, 14, 18 or 26 (it fixes the node size, so it is checked before
/// anything else is read).
pub const KIND: &str = "k-DOP kind";

/// The header's split rule and split point are ones this build knows and the leaf size is at
/// least 1 (queries compare them with their own options, so they must name real ones).
pub const OPTIONS: &str = "build options";

/// At most 2³² triangles and vertices (the indices are u32), and between 1 and 2T − 1 nodes
/// for T triangles (a binary tree with non-empty leaves has 2L − 1 nodes for L ≤ T leaves).
pub const COUNTS: &str = "counts";

/// The leaf order is a permutation of the mesh's triangles: the ordered triangles the
/// leaves index are built from it, and every pair is reported in file numbering through it.
pub const LEAF_ORDER: &str = "leaf order";

/// Every node's slabs are finite with min ≤ max: the polytope of the volume (bounding
/// points) is computed from them, and the traversal's slab tests and sizes must be defined.
pub const FINITE_VOLUMES: &str = "finite volumes";

/// An internal node's children (`first`, `first + 1`) come after it and exist: the
/// traversal indexes them, and the checks below sweep children before or after parents.
pub const CHILD_INDICES: &str = "child indices";

/// Every node but the root is the child of exactly one node: with children after their
/// parents, the nodes form one binary tree rooted at node 0 (nothing unreachable, nothing
/// shared).
pub const ONE_PARENT: &str = "one parent";

/// A leaf holds 1 to leaf-size triangles (the header's leaf size), all within the
/// triangle count: its range `first..first + count` indexes the ordered triangles.
pub const LEAF_RANGE: &str = "leaf range";

/// The subtrees' triangle ranges nest: a left child's range ends where its right sibling's
/// begins and the root's is all triangles, so every triangle position is in exactly one
/// leaf (no triangle is missed, none tested twice) and every subtree is one contiguous
/// range (what the hybrid update of a deforming B and the bounding points assume).
pub const RANGES_NEST: &str = "ranges nest";

/// The header's depth is the tree's number of levels: the GPU sizes its per-level buffers
/// by it.
pub const DEPTH: &str = "depth";

/// A leaf's stored k-DOP contains the k-DOP a build computes from its triangles' corners
/// (`Kdop::from_points` of the local f64 corners, which contains the real local corners),
/// slab by slab: so it contains the real corners the triangle tests use.
pub const CONTAINS_TRIANGLES: &str = "volume contains triangles";

/// An internal node's stored k-DOP contains both children's, slab by slab: by induction it
/// contains every triangle below it, so no culled node hides a contact.
pub const CONTAINS_CHILDREN: &str = "volume contains children";

/// One bounding-point range per node: `N + 1` offsets from 0, non-decreasing, ending at the
/// last point.
pub const POINT_OFFSETS: &str = "point offsets";

/// Every bounding point is finite.
pub const FINITE_POINTS: &str = "finite points";

/// A node's bounding points include every corner of its triangles (f32 local corners;
/// subtrees of at most `crate::tumble::SMALL_SUBTREE` triangles) or every vertex of its
/// stored k-DOP's polytope (rounded to f32, as the build rounds them): what makes the
/// tumbled k-DOP of B's node (the approximation method) contain the node's triangles at
/// every pose. See `verify/mod.rs` for the proof.
pub const POINTS_BOUND_NODE: &str = "bounding points bound the node";
