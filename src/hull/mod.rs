//! Exact 3D convex hull of a point set, stored as a vertex graph for hill climbing.
//!
//! Klosowski et al. (*Efficient Collision Detection Using Bounding Volume Hierarchies of
//! k-DOPs*, 1998, section 4.1 "Tumbling the BV-Trees", method 1) keep the B-rep of the
//! convex hull of the flying object and, after each rotation, update the extremal vertex
//! along each of the k/2 k-DOP directions by "climbing the hill": move from the previous
//! extremal vertex to the neighbour that increases the coordinate most, until no neighbour
//! increases it. This is exact because a linear function over the vertex–edge graph of a
//! convex polytope has no local maximum that is not global (the polytope lies in the cone
//! spanned at a vertex by its incident edges, so a vertex no incident edge improves is a
//! global maximiser).
//!
//! That guarantee needs the graph to be the *true* hull's graph, so every decision here
//! is exact: visibility and coplanarity use Shewchuk's adaptive `orient3d` / `orient2d`
//! (`robust` crate), and [`ConvexHull::climb`] compares `d·v` exactly (floating-point filter
//! with an exact expansion fallback). Hull vertices are the strict extreme points only
//! (no points interior to edges or facets), and [`ConvexHull::neighbors`] lists true hull
//! edges only (no diagonals of triangulated coplanar facets); [`ConvexHull::faces`] is a
//! triangulation of the boundary and may split a planar facet into several triangles.
//!
//! `quickhull` builds the hull (exact predicates, conflict lists); `climb` walks its
//! vertex graph ([`ConvexHull::climb`], [`ClimbTable`], the exact comparison [`dot_cmp`]).

mod climb;
mod quickhull;

pub use climb::{ClimbTable, dot_cmp};
pub use quickhull::orient_outside;

/// Convex hull as a vertex graph for hill climbing (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct ConvexHull {
    /// Hull vertices (strict extreme points), in increasing order of input index.
    points: Vec<[f64; 3]>,
    /// Index into the input slice of each hull vertex.
    original: Vec<u32>,
    /// CSR adjacency: neighbours of `v` are `neighbors[offsets[v]..offsets[v + 1]]`.
    offsets: Vec<u32>,
    neighbors: Vec<u32>,
    /// Boundary triangles, counter-clockwise seen from outside (outward normal
    /// `(b - a) × (c - a)`); empty unless the hull is full-dimensional.
    faces: Vec<[u32; 3]>,
}

impl ConvexHull {
    /// Hull vertices, in increasing order of their index in the input.
    pub fn vertices(&self) -> &[[f64; 3]] {
        &self.points
    }

    /// Index into the input slice of hull vertex `v`.
    pub fn original_index(&self, v: u32) -> u32 {
        self.original[v as usize]
    }

    /// Vertices sharing a hull edge with `v`, in increasing order.
    pub fn neighbors(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.neighbors[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    /// Boundary triangles, counter-clockwise seen from outside; empty when the hull is
    /// not full-dimensional.
    pub fn faces(&self) -> &[[u32; 3]] {
        &self.faces
    }
}
