//! A mesh's triangles in a hierarchy's order, with the f64 vertices as written.
//!
//! Every hierarchy reorders the triangles so that a leaf is a contiguous range. The exact
//! test reads the f64 corners of those triangles, the f32 stages their local f32 corners
//! ([`crate::frame`]). Storing the vertices once (in order of first use, so a leaf's corners
//! sit close together in memory) and the triangles as index triples costs `24·V + 12·T`
//! bytes, less than f32 corners per triangle (`36·T`) did; the local f32 corners are derived
//! on demand (the GPU upload, the exact refit), always by [`Frame::local_f32`].

use crate::frame::Frame;
use crate::mesh::Mesh;

/// The triangles of a mesh in a hierarchy's order.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderedTriangles {
    /// The local frame of the f32 stages (origin at the centre of the vertices' box).
    pub frame: Frame,
    /// The vertices the triangles use, as written, in order of first use.
    pub positions: Vec<[f64; 3]>,
    /// Per position in the hierarchy's order, the corners as indices into `positions`.
    pub corners: Vec<[u32; 3]>,
    /// `positions[j]` is the mesh's vertex `vertex_map[j]` (for refits to new positions).
    pub vertex_map: Vec<u32>,
}

impl OrderedTriangles {
    /// The frame of a mesh's triangles (the vertices they use).
    pub fn frame_of(mesh: &Mesh) -> Frame {
        Frame::of_points(
            mesh.triangles
                .iter()
                .flatten()
                .map(|&v| &mesh.positions[v as usize]),
        )
    }

    /// Triangles `order[0], order[1], …` of `mesh` (file numbering), in its own frame.
    pub fn new(mesh: &Mesh, order: &[u32]) -> OrderedTriangles {
        OrderedTriangles::with_frame(mesh, order, OrderedTriangles::frame_of(mesh))
    }

    /// [`OrderedTriangles::new`] in a given frame.
    pub fn with_frame(mesh: &Mesh, order: &[u32], frame: Frame) -> OrderedTriangles {
        const NONE: u32 = u32::MAX;
        let mut local = vec![NONE; mesh.positions.len()];
        let mut positions = Vec::new();
        let mut vertex_map = Vec::new();
        let corners = order
            .iter()
            .map(|&t| {
                mesh.triangles[t as usize].map(|v| {
                    let slot = &mut local[v as usize];
                    if *slot == NONE {
                        *slot = positions.len() as u32;
                        positions.push(mesh.positions[v as usize]);
                        vertex_map.push(v);
                    }
                    *slot
                })
            })
            .collect();
        OrderedTriangles {
            frame,
            positions,
            corners,
            vertex_map,
        }
    }

    pub fn len(&self) -> usize {
        self.corners.len()
    }

    pub fn is_empty(&self) -> bool {
        self.corners.is_empty()
    }

    /// The corners of the triangle at position `p`, as written (f64): what the exact test
    /// decides on.
    #[inline]
    pub fn corners_f64(&self, p: usize) -> [[f64; 3]; 3] {
        self.corners[p].map(|v| self.positions[v as usize])
    }

    /// The corners of the triangle at position `p` in local f32 coordinates.
    #[inline]
    pub fn corners_f32(&self, p: usize) -> [[f32; 3]; 3] {
        self.corners[p].map(|v| self.frame.local_f32(self.positions[v as usize]))
    }

    /// The corners of the triangle at position `p` in local f64 coordinates (one rounding
    /// each, within 2⁻⁵³ relative of the real difference).
    #[inline]
    pub fn corners_local_f64(&self, p: usize) -> [[f64; 3]; 3] {
        self.corners[p].map(|v| self.frame.local_f64(self.positions[v as usize]))
    }

    /// The local f32 corners of every triangle, in order (what the GPU uploads).
    pub fn all_corners_f32(&self) -> Vec<[[f32; 3]; 3]> {
        (0..self.len()).map(|p| self.corners_f32(p)).collect()
    }

    /// Takes new positions of the same mesh (mesh numbering, checked by the caller); the
    /// frame's origin stays, its `l1_max` follows the new positions.
    pub fn set_positions(&mut self, mesh_positions: &[[f64; 3]]) {
        for (p, &v) in self.positions.iter_mut().zip(&self.vertex_map) {
            *p = mesh_positions[v as usize];
        }
        self.frame.l1_max = Frame::of_points(&self.positions).l1_max;
    }

    /// Bytes of the vertex and index arrays.
    pub fn bytes(&self) -> usize {
        std::mem::size_of_val(self.positions.as_slice())
            + std::mem::size_of_val(self.corners.as_slice())
            + std::mem::size_of_val(self.vertex_map.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate;

    #[test]
    fn corners_follow_the_order_and_the_file() {
        let m = generate::torus([1e6, -2e6, 3.5], 1.0, 0.3, 12, 8);
        let order: Vec<u32> = (0..m.triangle_count() as u32).rev().collect();
        let o = OrderedTriangles::new(&m, &order);
        assert_eq!(o.len(), m.triangle_count());
        for (p, &t) in order.iter().enumerate() {
            assert_eq!(o.corners_f64(p), m.triangle(t as usize));
            let l = o.corners_f32(p);
            for (lk, mk) in l.iter().zip(m.triangle(t as usize)) {
                for c in 0..3 {
                    let d = mk[c] - o.frame.origin[c];
                    assert!((lk[c] as f64 - d).abs() <= 1e-6 * (1.0 + d.abs()));
                }
            }
        }
        // Vertices in order of first use, each once.
        assert_eq!(o.positions.len(), m.positions.len());
        assert_eq!(o.corners[0][0], 0);
    }
}
