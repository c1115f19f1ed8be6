//! The polytope of a k-DOP: the intersection of its k half-spaces, as faces (polygons),
//! vertices and volume.
//!
//! Klosowski et al. (*Efficient Collision Detection Using Bounding Volume Hierarchies of
//! k-DOPs*, 1998, section 4.1) compute the B-rep by duality (convex hull of the dual
//! points); we clip instead: start from the box of the three coordinate slabs and cut it by
//! each diagonal half-space. Same result, O(k·V) per k-DOP, and it stays well defined for
//! flat k-DOPs (a planar leaf, a flat grid), where duality degenerates. The vertices feed
//! the approximation method of tumbling (4.1, method 2); the volume feeds the min-sum and
//! min-max splitting rules (3.3.4, footnote 4).
//!
//! The clipper works on fixed-capacity arrays (no heap allocation, [`kdop_vertices`]): a
//! vertex pool with stable indices and the faces as cyclic index lists into it, each with
//! its vertex set as a bit mask. Each half-space classifies every vertex once (out if
//! beyond the plane by more than the tolerance), so faces sharing an edge agree on it: the
//! cut point of an edge is computed once and shared by index, only the faces actually cut
//! are rewritten, and the new face on the plane is assembled by chaining the one cut edge
//! each clipped face contributes (no angular sort). A half-space that leaves every vertex
//! inside is skipped outright. The surface stays closed (every directed edge matched by its
//! reverse), also when a flat or degenerate k-DOP collapses faces to slivers; faces that
//! collapse to two vertices are kept (a segment must still be cut by later planes). Only
//! when the box is flat or a vertex came within the tolerance of a cutting plane can two
//! vertices be that close; then, and only then, the vertex list is merged (O(n²)).
//!
//! Points within a tolerance (1e-12 of the polytope's scale) of a cutting plane count as on
//! it and are kept: errors only ever make the polytope slightly larger, never smaller, and
//! the tumbling margin covers what is left. The same holds if a clip ever exceeded the
//! fixed capacities (far beyond what k ≤ 26 needs): that half-space is skipped.
//!
//! The fixed-capacity clipper is in `clipper`; the retired heap-based one survives only as
//! the test oracle (`reference`, compiled for tests).

use super::axes::axes;
use super::kdop::Kdop;
use crate::geom::{add, cross, dot, sub};
use clipper::Clipper;

mod clipper;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

/// A convex polytope as a list of planar faces, each with its outward normal, and its
/// distinct vertices. Two allocations in all (see [`Polytope::faces`]).
#[derive(Debug, Clone, Default)]
pub struct Polytope {
    /// The distinct vertices (`..nverts`), then the faces' corners, face after face.
    pts: Vec<[f64; 3]>,
    nverts: usize,
    faces: Vec<FaceSpan>,
}

#[derive(Debug, Clone, Copy)]
struct FaceSpan {
    normal: [f64; 3],
    start: u32,
    len: u32,
}

/// One face of a [`Polytope`].
#[derive(Debug, Clone, Copy)]
pub struct Face<'a> {
    /// Outward normal (not normalized: a k-DOP slab direction).
    pub normal: [f64; 3],
    /// Vertices in order around the face (counterclockwise seen from outside).
    pub points: &'a [[f64; 3]],
}

/// The vertices of the polytope of `k` (the distinct ones, as [`Polytope::vertices`]),
/// written to `out` (cleared first; left empty for the empty k-DOP). No heap allocation
/// besides `out`'s growth.
pub fn kdop_vertices<const H: usize>(k: &Kdop<H>, out: &mut Vec<[f64; 3]>) {
    let lo: [f64; H] = k.min.map(f64::from);
    let hi: [f64; H] = k.max.map(f64::from);
    let mut c = Clipper::new();
    if c.run(axes(H), &lo, &hi) {
        c.vertices_into(out);
    } else {
        out.clear();
    }
}

// The k-DOP's polytope methods live here, beside the polytope, so that `kdop.rs` (below)
// does not reach up into this file.
impl<const H: usize> Kdop<H> {
    /// Volume of the polytope (half-space intersection), see the module's `Polytope`.
    pub fn volume(&self) -> f64 {
        Polytope::of_kdop(self).volume()
    }

    /// Vertices of the polytope, see the module's `Polytope`.
    pub fn vertices(&self) -> Vec<[f64; 3]> {
        Polytope::of_kdop(self).vertices()
    }
}

impl Polytope {
    /// The polytope of a k-DOP (empty for the empty k-DOP).
    pub fn of_kdop<const H: usize>(k: &Kdop<H>) -> Polytope {
        let lo: [f64; H] = k.min.map(f64::from);
        let hi: [f64; H] = k.max.map(f64::from);
        Polytope::from_slabs(axes(H), &lo, &hi)
    }

    /// Intersection of the slabs `lo[i] ≤ axes[i]·p ≤ hi[i]`; `axes[0..3]` must be x, y, z.
    pub fn from_slabs(axes: &[[i8; 3]], lo: &[f64], hi: &[f64]) -> Polytope {
        let mut c = Clipper::new();
        if c.run(axes, lo, hi) {
            c.to_polytope()
        } else {
            Polytope::default()
        }
    }

    /// The faces (polygons of two or more vertices: flat and degenerate k-DOPs keep their
    /// collapsed slivers, as a closed surface).
    pub fn faces(&self) -> impl ExactSizeIterator<Item = Face<'_>> + '_ {
        self.faces.iter().map(|f| Face {
            normal: f.normal,
            points: &self.pts[f.start as usize..(f.start + f.len) as usize],
        })
    }

    /// The distinct vertices (points closer than the tolerance are merged).
    pub fn vertices(&self) -> Vec<[f64; 3]> {
        self.pts[..self.nverts].to_vec()
    }

    /// Volume by the divergence theorem: Σ_faces (n̂·p)·area / 3.
    pub fn volume(&self) -> f64 {
        let v: f64 = self.faces().map(|f| face_volume(f.normal, f.points)).sum();
        v.max(0.0)
    }
}

/// One face's term of the divergence theorem, (n̂·p₀)·area / 3, for `pts` in order.
fn face_volume(normal: [f64; 3], pts: &[[f64; 3]]) -> f64 {
    if pts.len() < 3 {
        return 0.0;
    }
    let p0 = pts[0];
    let mut area2 = [0.0; 3];
    for j in 1..pts.len() - 1 {
        let c = cross(sub(pts[j], p0), sub(pts[j + 1], p0));
        area2 = add(area2, c);
    }
    let nn = dot(normal, normal).sqrt();
    let area = dot(area2, area2).sqrt() * 0.5;
    dot(normal, p0) / nn * area / 3.0
}
