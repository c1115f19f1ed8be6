//! `meshcollide`: every intersecting triangle pair of two triangle meshes at each pose of one
//! relative to the other, exactly (on the f64 coordinates as written), with bounding volume
//! hierarchies on the CPU and a GPU compute pipeline on wgpu validated against them.
//!
//! Start with [`Collider`]: [`Collider::builder`] picks the hierarchy ([`BvKind`]: k-DOPs of
//! Klosowski et al. 1998, the dual k-DOP–sphere hierarchy of Fang et al., Zachmann's
//! restricted boxtree, Figueiredo's R-tree) and its options; [`Collider::collide_batch`]
//! answers many poses in parallel, [`Collider::collide_batch_gpu`] on the GPU (feature
//! `gpu`). Meshes come from [`mesh::load()`] (OBJ, STL, PLY, optionally gzipped) or
//! [`mesh::generate`]; poses from [`pose::read_poses`] or [`Pose::new`]. For many poses,
//! [`Collider::collide_stream`] hands each pose's contacts to a closure instead of keeping
//! them, with poses streamed from [`pose::PoseReader`]. Deforming meshes (a frame of vertex
//! positions per query, hierarchies refit, updated by Larsson and Akenine-Möller's hybrid
//! method, or rebuilt) go through [`deform::DeformingCollider`]; frame lists through
//! [`mesh::frames`].
//!
//! ```
//! use meshcollide::{BvKind, Collider, mesh::generate, pose::tumbling_poses};
//!
//! let a = generate::torus([0.0; 3], 1.0, 0.3, 40, 16);
//! let b = a.map_positions(|[x, y, z]| [x, z, y]); // the same ring, standing up
//! let poses = tumbling_poses(32, [0.0; 3], [1.0, 0.0, 0.0]);
//! let collider = Collider::builder(&a, &b).bv(BvKind::Kdop18).build()?;
//! let results = collider.collide_batch(&poses);
//! // The reference equals brute force over all triangle pairs.
//! for (pose, r) in poses.iter().zip(&results) {
//!     assert_eq!(r.pairs, meshcollide::brute_force(&a, &b, pose));
//! }
//! assert!(results.iter().any(|r| !r.pairs.is_empty()));
//! # Ok::<(), meshcollide::Error>(())
//! ```
//!
//! Features: `gpu` (wgpu, naga, pollster) and `cli` (the `meshcollide` command line: clap,
//! indicatif, plotters), both on by default; `--no-default-features` builds the CPU library
//! alone.

#![warn(missing_docs)]

#[macro_use]
pub mod option_names;

// The API: hierarchies, their scenes and options, meshes, poses, the GPU pipeline.
pub mod auto;
pub mod boxtree;
pub mod bv;
pub mod bvh;
mod collider;
pub mod deform;
pub mod dual;
pub mod error;
pub(crate) mod geom;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod kdop;
pub mod kind;
pub mod mesh;
pub mod obb;
pub mod pose;
pub(crate) mod prefetch;
pub mod rtree;
pub mod saved;
pub mod scene;
pub mod self_collide;
pub mod sphere;

// Internals: public only for the integration tests, benches, examples and the command
// line, not part of the API (hidden from the docs, no stability promise).
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod experiments;
#[doc(hidden)]
pub mod formats;
#[doc(hidden)]
pub mod frame;
#[doc(hidden)]
pub mod hull;
#[doc(hidden)]
pub mod isa;
#[doc(hidden)]
pub mod ordered;
#[doc(hidden)]
pub mod rng;
#[doc(hidden)]
pub mod traverse;
#[doc(hidden)]
pub mod tri;
#[doc(hidden)]
pub mod tumble;

pub use boxtree::{BoxTest, BoxtreeOptions};
pub use bvh::{BuildOptions, Bvh, SplitPoint, SplitRule};
pub use collider::{AnyScene, AnySub, Collider, ColliderBuilder, Contacts, WarmUp};
pub use dual::{DualCounters, DualOptions, SlabOrder};
pub use error::{Error, FrameError, Location, MeshError, PoseError, Result, SavedError};
pub use kdop::{Descent, KdopOptions};
pub use kind::BvKind;
pub use mesh::Mesh;
pub use pose::Pose;
pub use rtree::{RtreeCollide, RtreeOptions};
pub use saved::{KdopHierarchy, SavedHierarchy};
pub use scene::{Counters, Mode, PoseResult, QueryOptions, TumbleMethod, brute_force};
pub use self_collide::{SelfCollider, SelfColliderBuilder, brute_force_self};
