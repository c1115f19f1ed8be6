//! Bounding volumes: k-DOPs for k = 6, 14, 18, 26 (`002_2561ef21643dcace.txt`, 3.2 and
//! 3.3.3), their polytopes (vertices, faces, volume) and the flat node layout shared with
//! the GPU.

pub mod axes;
pub mod kdop;
pub(crate) mod polytope;
pub(crate) mod slab;

pub use axes::{BvKind, axes};
pub use kdop::{Kdop, KdopNode};
