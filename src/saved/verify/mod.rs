//! The checks a decoded hierarchy passes before anything uses it (the invariants of
//! `invariants.rs`): its tree, its volumes, its bounding points. Each is linear in the file
//! up to a logarithm (a node costs at most one k-DOP polytope, bounded by k, and lookups
//! among its points), so a crafted file cannot make a load much slower than a build of its
//! mesh; the volumes and the bounding points are checked in parallel, and a failure
//! reports the first failing node in node order.
//!
//! # Why these checks make a loaded hierarchy as exact as a built one
//!
//! *Tree* (`tree.rs`): children after their parents and one parent per node make the nodes a
//! binary tree rooted at node 0; nested, adjacent ranges ending in leaves of 1 to leaf-size
//! triangles put every triangle position in exactly one leaf. Every index the traversal,
//! the tumbling and the GPU follow (`first`, `first + 1`, `first + count`, the depth) is
//! then in bounds.
//!
//! *Volumes* (`volumes.rs`): `Kdop::from_points` of a leaf's local f64 corners contains the
//! real local corners (its proof: the f64 projections' error is covered by the widening and
//! the outward rounding to f32). A stored leaf volume that contains it slab by slab (f32
//! comparisons, exact) contains the real corners; a stored internal volume that contains its
//! children's contains, by induction from the leaves, every real corner below it. This is
//! all A's hierarchy needs: its volumes are used as stored, and the triangle tests run on
//! the mesh's own f64 coordinates.
//!
//! *Bounding points* (`points.rs`): B's nodes other than the root are tumbled from their
//! bounding points Q (`crate::tumble::tumble_points`): per slab the min and max over Q of
//! one f32 expression per point, plus the pose frame's offsets, widened by a margin that
//! grows with `scale`, the largest coordinate of any bounding point. The tumble module
//! proves the result conservative when Q is the node's f32 local corners, or the f32
//! rounding of the vertices of a k-DOP containing those corners. A loaded Q is accepted
//! when it *includes* one of these two sets, S (the corners for subtrees of at most
//! `SMALL_SUBTREE` triangles, or the polytope vertices of the node's stored volume, which
//! contains the node's corners by the volume checks; the vertices computed and rounded as
//! the build computes and rounds them). Then the tumbled k-DOP of Q contains the tumbled
//! k-DOP of S at every pose: the min over a superset is at most the min over the subset and
//! the max at least the max (each point's value does not depend on the other points), the
//! `scale` of the file's points is at least that of S (so the margin and both outward
//! rounded offsets are at least as wide), and the final f32 additions are monotone. So every
//! accepted node tumbles to a k-DOP at least as large as the proved one. Extra points only
//! loosen it (pairs unchanged, more node tests). The root is tumbled exactly by hill
//! climbing on the convex hull of the mesh's vertices, which is computed on load, not read.
//!
//! A small node's corners are found among its points bottom up: a leaf's are looked up
//! directly; an internal node is a *corner cover* when its points include both children's
//! and both children are corner covers (by induction its points include the corners of
//! every triangle below it, since its triangles are its children's). A node that is not
//! a corner cover is checked directly: its corners (small subtrees), else its polytope.
//!
//! Cost. Checking instead that the convex hull of Q contains the corners would need a hull
//! per node; recomputing every node's points as `BoundingPoints::of` does costs the
//! polytope of every node of more than six corners, most of a build. Here a small node
//! costs a merge of sorted point sets, and only the nodes whose points are not corner sets
//! (in a file as the build writes it, those of more than `SMALL_SUBTREE` triangles: 4.4% of
//! the dragon's nodes) cost a polytope, which is still most of the checks' time
//! (`docs/notebook/saved-hierarchies.md`, "Every load verified").

mod points;
mod tree;
mod volumes;

pub(super) use points::points;
pub(super) use tree::tree;
pub(super) use volumes::volumes;

use rayon::prelude::*;

/// An invariant that fails, where, and how.
#[derive(Debug)]
pub(in crate::saved) struct Violation {
    pub invariant: &'static str,
    pub node: Option<usize>,
    pub message: String,
}

impl Violation {
    /// A violation at node `node`; the message starts by naming it.
    pub(super) fn at(
        invariant: &'static str,
        node: usize,
        message: impl std::fmt::Display,
    ) -> Violation {
        Violation {
            invariant,
            node: Some(node),
            message: format!("node {node}: {message}"),
        }
    }

    /// A violation of the whole file (a header field, a count).
    pub(super) fn global(invariant: &'static str, message: impl Into<String>) -> Violation {
        Violation {
            invariant,
            node: None,
            message: message.into(),
        }
    }
}

/// The first error of `results` in their order (rayon stops the others early).
pub(super) fn first_failure(
    results: impl IndexedParallelIterator<Item = Result<(), Violation>>,
) -> Result<(), Violation> {
    results.find_first(Result::is_err).unwrap_or(Ok(()))
}
