//! Refit of a hierarchy to a deformed mesh (bottom-up update: the University of Freiburg's
//! lecture slides *Collision Detection*, "BVHs for Deformable Objects"): the tree structure
//! is kept, the leaf k-DOPs are recomputed from the new corners and every internal node
//! becomes the slab-wise union of its children.
//!
//! The CPU refit is the reference of the GPU refit (`gpu::refit`, `shaders/kdop_refit.wgsl`,
//! whose entry points' per-dispatch CPU twins are `src/gpu/mirror/kdop_refit.rs`) and must
//! agree with it bit for bit. That is arranged by construction rather than by tolerance: the
//! only rounded operations are one fixed formula, `bv::slab::slab_bounds_f32`, written in f32
//! with fixed-order additions and no products a compiler could refactor, and the merges are
//! min/max (exact, order-free).

use super::Bvh;
use crate::bv::Kdop;
#[cfg(doc)]
use crate::bv::slab::kdop_of_corners;
use crate::bv::slab::kdop_of_point;

impl<const H: usize> Bvh<H> {
    /// Refits the hierarchy to new vertex positions of the same mesh (same triangle list, mesh
    /// numbering): takes the new f64 positions, recomputes each leaf's k-DOP from the local
    /// f32 corners (`kdop_of_corners`, in the frame chosen at build time) and then every
    /// internal node bottom-up as the union of its two children. Structure, `tri_index`,
    /// the frame's origin and `depth` are unchanged, so the tree may fit worse than a
    /// rebuild after a large deformation, but it stays correct (`validate` holds).
    ///
    /// Conservative, like a fresh build's leaves (which round the local f64 corners outward,
    /// [`crate::bv::Kdop::from_points`]), by another route with the same guarantee: a local
    /// f32 corner `x = fl32(fl64(p − o))` lies within [`crate::frame::INPUT_REL`]`·|x|` (plus
    /// [`crate::frame::INPUT_ABS`], below the flush margin) of the real `p − o`
    /// ([`crate::frame`]), and `slab_bounds_f32` contains the real projection of every point
    /// that close to `x` (its proof, `bv/slab.rs`); the merges are min/max, which do not
    /// round. So every leaf k-DOP contains the real local corners of its triangles, and
    /// every node those of its subtree, whatever the positions (the bound is relative, so it
    /// holds far from the frame's origin too; `Frame::l1_max` follows the positions in
    /// `set_positions`). The bits differ from a build's by a few ulps; they equal the GPU
    /// refit's (`shaders/kdop_refit.wgsl`).
    ///
    /// Errors ([`crate::Error::InvalidOption`]) if the triangle count differs from the one at
    /// build time, a triangle names a missing vertex, or a coordinate is not finite or not
    /// in the supported range ([`crate::mesh::in_supported_range`]); the hierarchy is left
    /// untouched then.
    pub fn refit(
        &mut self,
        positions: &[[f64; 3]],
        triangles: &[[u32; 3]],
    ) -> Result<(), crate::error::Error> {
        let bad = |m: String| Err(crate::error::Error::InvalidOption(format!("refit: {m}")));
        if triangles.len() != self.tri_index.len() {
            return bad(format!(
                "the hierarchy was built over {} triangles, the deformed mesh has {}",
                self.tri_index.len(),
                triangles.len()
            ));
        }
        if let Some((i, t)) = triangles
            .iter()
            .enumerate()
            .find(|(_, t)| t.iter().any(|&v| v as usize >= positions.len()))
        {
            return bad(format!(
                "triangle {i} names vertices {t:?}, but there are {} positions",
                positions.len()
            ));
        }
        if let Some(i) = positions
            .iter()
            .position(|p| !p.iter().all(|c| c.is_finite()))
        {
            return bad(format!("vertex {i} has a NaN or infinite coordinate"));
        }
        if let Some(i) = positions
            .iter()
            .position(|p| !p.iter().all(|&c| crate::mesh::in_supported_range(c)))
        {
            return bad(format!(
                "vertex {i} has a coordinate outside the range the exact predicates support \
                 (0, or a magnitude from 2^-200 to 2^100)"
            ));
        }
        if let Some((p, _)) = self.tri_index.iter().enumerate().find(|&(p, &t)| {
            let c = &self.tris.corners[p];
            let v = &self.tris.vertex_map;
            triangles[t as usize] != [v[c[0] as usize], v[c[1] as usize], v[c[2] as usize]]
        }) {
            return bad(format!(
                "triangle {} names other vertices than at build time",
                self.tri_index[p]
            ));
        }
        self.tris.set_positions(positions);
        let vertex = self.vertex_kdops();
        // Children are stored after their parents, so reverse index order is bottom-up.
        for i in (0..self.nodes.len()).rev() {
            let n = self.nodes[i];
            let (a, b) = (n.first as usize, n.first as usize + n.count as usize);
            self.nodes[i].bv = if n.is_leaf() {
                self.corners_kdop(&vertex, a..b)
            } else {
                self.nodes[a].bv.merge(&self.nodes[a + 1].bv)
            };
        }
        Ok(())
    }

    /// Per vertex of [`Bvh::tris`] (its order), the k-DOP of its local f32 position
    /// (`bv::slab::kdop_of_point`): computed once per refit, merged per triangle corner.
    pub fn vertex_kdops(&self) -> Vec<Kdop<H>> {
        let f = &self.tris.frame;
        self.tris
            .positions
            .iter()
            .map(|&p| kdop_of_point(f.local_f32(p)))
            .collect()
    }

    /// The k-DOP of the corners of the triangles at positions `range`, from the vertices'
    /// k-DOPs ([`Bvh::vertex_kdops`]): bit for bit `bv::slab::kdop_of_corners` of those corners
    /// (min/max does not round).
    pub fn corners_kdop(&self, vertex: &[Kdop<H>], range: std::ops::Range<usize>) -> Kdop<H> {
        let mut k = Kdop::EMPTY;
        for p in range {
            for v in self.tris.corners[p] {
                k = k.merge(&vertex[v as usize]);
            }
        }
        k
    }

    /// Node indices per depth (`levels()[0] == [0]`, the root), each level in index order.
    pub fn levels(&self) -> Vec<Vec<u32>> {
        let mut levels = vec![vec![0u32]];
        loop {
            let next: Vec<u32> = levels
                .last()
                .into_iter()
                .flatten()
                .filter(|&&i| !self.nodes[i as usize].is_leaf())
                .flat_map(|&i| {
                    let c = self.nodes[i as usize].first;
                    [c, c + 1]
                })
                .collect();
            if next.is_empty() {
                return levels;
            }
            levels.push(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refit_of_the_same_mesh_validates_and_checks_counts() {
        let mesh = crate::bvh::tests::random_mesh(3, 200);
        let mut b = Bvh::<9>::build(&mesh, &Default::default());
        b.refit(&mesh.positions, &mesh.triangles).unwrap();
        b.validate().unwrap();
        assert!(b.refit(&mesh.positions, &mesh.triangles[1..]).is_err());
        let mut bad = mesh.triangles.clone();
        bad[5][1] = mesh.positions.len() as u32;
        assert!(b.refit(&mesh.positions, &bad).is_err());
        let mut nan = mesh.positions.clone();
        nan[0][2] = f64::NAN;
        assert!(b.refit(&nan, &mesh.triangles).is_err());
        // Per-vertex k-DOPs merged give kdop_of_corners' bits.
        let mut moved = mesh.positions.clone();
        for (i, p) in moved.iter_mut().enumerate() {
            p[i % 3] += 0.01 * (i as f64).sin();
        }
        b.refit(&moved, &mesh.triangles).unwrap();
        for n in &b.nodes {
            if n.is_leaf() {
                let r = n.first as usize..(n.first + n.count) as usize;
                let c: Vec<_> = r.map(|p| b.tris.corners_f32(p)).collect();
                assert_eq!(n.bv, crate::bv::slab::kdop_of_corners(&c));
            }
        }
        let levels = b.levels();
        assert_eq!(levels.len() as u32, b.depth);
        assert_eq!(levels.iter().map(Vec::len).sum::<usize>(), b.nodes.len());
    }
}
