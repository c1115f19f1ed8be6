//! Bounding volumes: k-DOPs for k = 6, 14, 18, 26 (Klosowski et al., *Efficient Collision
//! Detection Using Bounding Volume Hierarchies of k-DOPs*, 1998, sections 3.2 and 3.3.3),
//! their polytopes (vertices, faces, volume) and the flat node layout shared with the GPU.

pub mod aabb;
pub mod axes;
pub mod kdop;
pub(crate) mod polytope;
pub(crate) mod slab;

pub use aabb::Aabb;
pub use axes::axes;
pub use kdop::{Kdop, KdopNode};
