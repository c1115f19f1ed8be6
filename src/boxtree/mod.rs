//! `--bv boxtree`: Zachmann's restricted boxtree (*Minimal Hierarchical Collision
//! Detection*, 2002).
//!
//! Each node stores one split plane (a float, its axis, lower/upper side, one child index:
//! 9 bytes, [`node::Node`]); a node's axis-aligned box is its parent's with one side moved
//! inwards (3.1). The builder follows section 4 (`build`); the overlap tests of 3.2 —
//! axis alignment, lookup tables, full SAT, SAT lite — are one incremental scheme over
//! different sets of axes ([`overlap`]), with the node-specific work done once per parent
//! pair and passed down one level (3.3, `traverse`). Leaves are tested with the exact
//! `tri::tri_tri_intersect` on the f64 corners as written (B's moved by the global
//! [`crate::Pose::apply`]), so the pairs equal brute force. CPU only.
//!
//! Frames ([`crate::frame`]): each tree's boxes are in its own local coordinates (relative
//! to [`BoxTree::frame`]), f32 root box and f32 plane distances as before, so they are as
//! fine far from the origin as near it; the tests between the two trees run on the
//! [`crate::frame::LocalPose`] of the pose, whose error bound joins their margin.

pub(crate) mod budget;
pub(crate) mod budget_state;
pub(crate) mod build;
pub(crate) mod node;
// Internals, public for the integration tests.
#[doc(hidden)]
pub mod overlap;
pub(crate) mod traverse;

use crate::frame::Frame;
use crate::mesh::Mesh;
use crate::ordered::OrderedTriangles;
pub use node::{Aabb, MAX_LEAF, Node};

/// Refuses leaf sizes the boxtree cannot hold: its node keeps a leaf's triangle count in 4
/// bits ([`MAX_LEAF`]), and a larger size silently built with 16 would be reported as the
/// size asked for. [`crate::Error::InvalidOption`] names the mesh, the size and the limit.
pub fn check_leaf_sizes(a: u32, b: u32) -> crate::error::Result<()> {
    for (size, mesh) in [(a, "A"), (b, "B")] {
        if !(1..=MAX_LEAF).contains(&size) {
            return Err(crate::error::Error::InvalidOption(format!(
                "leaf size {size} of mesh {mesh}: the boxtree holds 1 to {MAX_LEAF} triangles per leaf (a 4-bit count in its 9-byte node)"
            )));
        }
    }
    Ok(())
}
pub use traverse::{BoxtreeScene, BoxtreeWorkspace};

/// Entries per axis of the lookup tables of 3.2.2 (the paper used 1000).
pub const LUT_SIZE: usize = 1024;

/// The node-pair overlap test (`--box-test`), Zachmann, *Minimal Hierarchical Collision
/// Detection* (2002), section 3.2.
///
/// Every variant is conservative: it may report "overlap" for disjoint boxes, never the
/// reverse (a margin bounds the f64 rounding, see [`overlap`]). The default is SAT lite,
/// the paper's fastest (section 5, Figure 7); our measurements on the bunny agree
/// (`docs/notebook/boxtree.md`).
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

/// Options of the boxtree scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoxtreeOptions {
    /// The node-pair test (same contacts, different cost).
    pub test: BoxTest,
}

option_names! {
    BoxTest, kind "box test", all ALL {
        Align => "align": "Axis alignment: B's box aligned to A's axes (Zachmann 2002, 'Minimal Hierarchical Collision Detection', section 3.2.1)",
        SatLite => "satlite": "SAT lite: separating axes among the 6 face normals of both boxes only (Zachmann 2002, section 3.2.4; the fastest)",
        Sat => "sat": "Full separating axis test: 15 axes, face normals and edge cross products (Zachmann 2002, section 3.2.3)",
        Lut => "lut": "Axis alignment with lookup tables of the box corners (Zachmann 2002, section 3.2.2)",
    }
}

/// A restricted boxtree over one mesh.
#[derive(Debug, Clone)]
pub struct BoxTree {
    /// Node 0 is the root; children of a node are adjacent.
    pub nodes: Vec<Node>,
    /// The root's box (local coordinates; f32 values bounding the real local corners), the
    /// only box stored.
    pub root: Aabb,
    /// Position in the reordered triangle arrays → triangle index in the mesh.
    pub tri_index: Vec<u32>,
    /// The reordered triangles (leaves index them): f64 corners as written and the local
    /// frame of the boxes.
    pub tris: OrderedTriangles,
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

    /// The local frame of the boxes.
    pub fn frame(&self) -> &Frame {
        &self.tris.frame
    }

    /// Bytes of the node array (9 per node).
    pub fn node_bytes(&self) -> usize {
        std::mem::size_of_val(self.nodes.as_slice())
    }

    /// Structural invariants and conservative boxes; see `build::validate`.
    pub fn validate(&self) -> Result<(), String> {
        build::validate(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kind::BvKind;

    #[test]
    fn names_round_trip() {
        for t in BoxTest::ALL {
            assert_eq!(t.name().parse::<BoxTest>(), Ok(t));
        }
        assert_eq!("boxtree".parse::<BvKind>(), Ok(BvKind::Boxtree));
        assert!(!BvKind::Boxtree.on_gpu() && BvKind::Kdop18.on_gpu());
        assert!(!BvKind::ALL.contains(&BvKind::Boxtree));
    }
}

/// Scenes far from the origin for the hierarchies' exactness tests (boxtree and R-tree):
/// millimetre features at offsets of 10⁶–10⁷, coordinates with 17 significant digits.
#[cfg(test)]
pub(crate) mod far {
    use crate::mesh::{Mesh, generate};
    use crate::pose::{Pose, tumbling_poses};

    /// One scene and its poses.
    pub(crate) struct Case {
        pub a: Mesh,
        pub b: Mesh,
        pub poses: Vec<Pose>,
        pub label: &'static str,
        /// The poses graze within the f64 resolution at the offset, where the local pose's
        /// error bound, not the geometry, decides what is culled: compare no culling.
        pub grazing: bool,
    }

    /// Rotation by `angle` about `axis` through the point `at`, then a shift.
    fn about(at: [f64; 3], axis: [f64; 3], angle: f64, shift: [f64; 3]) -> Pose {
        let rot = Pose::from_axis_angle(axis, angle, [0.0; 3]);
        let r = rot.apply(at);
        Pose::new(rot.q, std::array::from_fn(|k| at[k] - r[k] + shift[k]))
    }

    /// The same scene moved near the origin (A by `−o_A`, B by `−o_B`, the poses
    /// following), for comparing the culling.
    pub(crate) fn near_origin(c: &Case) -> Case {
        let (oa, ob) = (c.a.bounds().0, c.b.bounds().0);
        let poses = c
            .poses
            .iter()
            .map(|p| {
                let r = Pose::new(p.q, [0.0; 3]).apply(ob);
                Pose::new(p.q, std::array::from_fn(|k| r[k] + p.t[k] - oa[k]))
            })
            .collect();
        Case {
            a: c.a.map_positions(|p| std::array::from_fn(|k| p[k] - oa[k])),
            b: c.b.map_positions(|p| std::array::from_fn(|k| p[k] - ob[k])),
            poses,
            ..*c
        }
    }

    pub(crate) fn cases() -> Vec<Case> {
        let c = [
            1e7 + 0.123456789012345,
            -3e6 - 0.987654321098765,
            2.5e6 + 0.5,
        ];
        let ring = generate::torus(c, 1e-2, 3e-3, 24, 12);
        // Tori: translations from deep overlap through grazing (outer diameter 0.026) to
        // apart, then tumbling about the centre, then tilted shifts.
        let mut ring_poses: Vec<Pose> = [0.0, 0.004, 0.013, 0.02, 0.0259, 0.0261, 0.03]
            .iter()
            .map(|&d| Pose::translation([d, 0.0, 0.0]))
            .collect();
        ring_poses.extend(tumbling_poses(8, c, [0.012, 0.003, 0.0]));
        ring_poses
            .extend([0.3, 1.2, 2.5].map(|a| about(c, [0.6, 0.0, 0.8], a, [0.016, -0.002, 0.001])));
        // The same torus built at the origin and placed by the pose (frames 10⁷ apart),
        // always turned: the same torus shifted in its plane would be coplanar with A's
        // up to the rounding at 10⁷, which changes the contacts themselves (not a fair
        // culling comparison with the scene near the origin).
        let ring0 = generate::torus([0.0; 3], 1e-2, 3e-3, 24, 12);
        let ring0_poses: Vec<Pose> = [(0.1, 0.002), (0.7, 0.014), (1.9, 0.021), (0.2, 0.04)]
            .iter()
            .map(|&(a, d)| {
                Pose::from_axis_angle([0.0, 0.8, 0.6], a, [c[0] + d, c[1] + 0.001, c[2]])
            })
            .collect();
        // Boxes 0.01 apart along x near x = 10⁶: apart, nearly touching, touching (up to
        // rounding: brute force decides), overlapping; then small turns about B's near face.
        let box_a = generate::box_mesh([1e6, 0.0, 0.0], [1e6 + 0.11, 1.0, 1.0]);
        let box_b = generate::box_mesh([1e6 + 0.12, 0.0, 0.0], [1e6 + 0.23, 1.0, 1.0]);
        let mut box_poses: Vec<Pose> = [0.0, -0.0099, -0.01, -0.0101, -0.05]
            .iter()
            .map(|&d| Pose::translation([d, 0.0, 0.0]))
            .collect();
        let face = [1e6 + 0.12, 0.5, 0.5];
        box_poses.extend(
            [
                (1e-3, -0.0099),
                (1e-3, -0.0102),
                (-4e-4, -0.0098),
                (2e-2, 0.0),
            ]
            .map(|(a, d)| about(face, [0.0, 0.0, 1.0], a, [d, 0.0, 0.0])),
        );
        box_poses.push(about(face, [0.0, 0.6, 0.8], 5e-3, [-0.0095, 0.0, 0.0]));
        // Millimetre boxes at 10⁷ grazing within a few f64 steps there (1.9·10⁻⁹): the
        // rounding of `Pose::apply` decides these contacts, and only the local pose's
        // error bound in the margins keeps them (without it, pose 1 loses its pairs).
        let g = [1e7 + 0.3, -3e6 - 0.1, 2.5e6 + 0.7];
        let tiny_a = generate::box_mesh(g, g.map(|x| x + 1e-3));
        let tiny_b = generate::box_mesh(
            [g[0] + 2e-3, g[1], g[2]],
            [g[0] + 3e-3, g[1] + 1e-3, g[2] + 1e-3],
        );
        let centre = [g[0] + 2.5e-3, g[1] + 5e-4, g[2] + 5e-4];
        let mut rng = crate::rng::Rng::new(17);
        let tiny_poses = (0..64)
            .map(|_| {
                let axis: [f64; 3] = std::array::from_fn(|_| rng.range(-1.0, 1.0));
                let n = axis.iter().map(|x| x * x).sum::<f64>().sqrt();
                let angle = rng.range(-1e-6, 1e-6) * rng.below(2) as f64;
                let shift = [-1e-3 + rng.range(-8e-9, 8e-9), 0.0, 0.0];
                about(centre, axis.map(|x| x / n), angle, shift)
            })
            .collect();
        let case = |a, b, poses, label, grazing| Case {
            a,
            b,
            poses,
            label,
            grazing,
        };
        vec![
            case(ring.clone(), ring, ring_poses, "tori at 1e7", false),
            case(
                generate::torus(c, 1e-2, 3e-3, 24, 12),
                ring0,
                ring0_poses,
                "torus at 1e7, torus at 0",
                false,
            ),
            case(box_a, box_b, box_poses, "boxes at 1e6", false),
            case(tiny_a, tiny_b, tiny_poses, "millimetre boxes at 1e7", true),
        ]
    }
}
