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
//! # Where things are
//!
//! - Two rigid meshes, many poses: [`Collider`] (built by [`ColliderBuilder`]), the options
//!   re-exported here ([`BvKind`], [`BuildOptions`], [`QueryOptions`], [`KdopOptions`], …),
//!   the results ([`Contacts`], [`Counters`], [`PoseResult`]).
//! - Inputs: [`Mesh`] and [`mod@mesh`] (files, generated meshes, frame lists), [`Pose`] and
//!   [`mod@pose`] (pose files, tumbling and coherent paths).
//! - Deforming meshes: [`deform`]; one mesh against itself: [`self_collide`]; hierarchies
//!   saved to `.mch` files: [`saved`].
//! - The GPU (feature `gpu`): [`gpu::GpuContext`], then the `_gpu` methods of the colliders;
//!   [`gpu::GpuStats`] says what the device did.
//! - Errors: [`Error`] and its parts in [`error`], each naming the file, line, frame or pose.
//!
//! The hierarchies' own modules (k-DOP, dual, boxtree, R-tree, OBB and sphere trees, the
//! scene contract) are public for the tests, benches and the command line, but hidden here:
//! a user reaches them through [`BvKind`] and the options above.
//!
//! Features: `gpu` (wgpu, naga, pollster) and `cli` (the `meshcollide` command line: clap,
//! indicatif, plotters), both on by default; `--no-default-features` builds the CPU library
//! alone.

#![warn(missing_docs)]

// Textual macro scope: declared before every module that names its options.
#[macro_use]
#[doc(hidden)]
pub mod option_names;
// The input limit's variable and how messages cite it (errors and loaders alike).
#[doc(hidden)]
pub mod limits;

// The API a user reads: meshes, poses, errors, and the colliders (rigid pairs at the root,
// deforming meshes, self-collision, saved hierarchies), and the GPU's context and stats.
pub mod bodies;
pub mod budget;
pub mod deform;
pub mod error;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod mesh;
pub mod pose;
pub mod saved;
pub mod self_collide;
pub mod solid;

mod collider;
pub(crate) mod geom;
pub(crate) mod prefetch;

// The hierarchies' own modules: their options, counters and the choice between them are
// re-exported below (`BvKind`, `KdopOptions`, `DualCounters`, …), and a user never names
// these modules. They stay public, hidden from the docs with no stability promise, because
// the integration tests, benches, examples, the command line and the Python package drive
// the scenes directly (a scene against brute force, node layouts against WGSL).
#[doc(hidden)]
pub mod auto;
#[doc(hidden)]
pub mod boxtree;
#[doc(hidden)]
pub mod bv;
#[doc(hidden)]
pub mod bvh;
#[doc(hidden)]
pub mod dual;
#[doc(hidden)]
pub mod kdop;
#[doc(hidden)]
pub mod kind;
#[doc(hidden)]
pub mod obb;
#[doc(hidden)]
pub mod rtree;
#[doc(hidden)]
pub mod scene;
#[doc(hidden)]
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
pub mod proximity;
#[doc(hidden)]
pub mod rng;
#[doc(hidden)]
pub mod traverse;
#[doc(hidden)]
pub mod tri;
#[doc(hidden)]
pub mod tumble;

pub use auto::AutoCounters;
pub use bodies::{Body, BodyKind, Motion, Scene, SceneContact, SceneOptions, StepReport};
pub use boxtree::{BoxTest, BoxtreeOptions};
pub use budget::{Answer, Budget, Hint, Order, PoseStatus};
pub use bvh::{BuildOptions, Bvh, SplitPoint, SplitRule};
pub use collider::{AnyScene, AnySub, Collider, ColliderBuilder, Contacts, WarmUp};
pub use dual::{DualCounters, DualOptions, SlabOrder};
pub use error::{
    Error, FrameError, Location, MeshError, PoseError, Result, SavedError, SceneError,
};
pub use kdop::{Descent, KdopOptions};
pub use kind::BvKind;
pub use mesh::Mesh;
pub use pose::Pose;
pub use rtree::{RtreeCollide, RtreeCounters, RtreeOptions};
pub use saved::{KdopHierarchy, SavedHierarchy};
pub use scene::{Counters, Mode, PoseResult, QueryOptions, TumbleMethod, brute_force};
pub use self_collide::{
    SelfCollider, SelfColliderBuilder, brute_force_self, brute_force_self_within,
};
