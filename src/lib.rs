//! `meshcollide`: exact collision detection between triangle meshes with bounding volume
//! hierarchies of k-DOPs (Klosowski et al., `002_2561ef21643dcace.txt`), a CPU reference
//! traversal, and (in later stages) a GPU pipeline on wgpu validated against it.
//!
//! The pipeline: [`mesh`] → [`bvh`] (flat node arrays) → [`tumble`] (flying hierarchy
//! into A's frame per pose) → [`traverse`] (Algorithm 1) → [`tri`] (exact triangle tests).
//! [`query`] runs many poses in parallel.
//!
//! ```
//! use meshcollide::{mesh::generate, pose::tumbling_poses, BuildOptions, BvKind, Collider, QueryOptions};
//!
//! let a = generate::torus([0.0; 3], 1.0, 0.3, 40, 16);
//! let b = a.map_positions(|[x, y, z]| [x, z, y]); // the same ring, standing up
//! let poses = tumbling_poses(32, [0.0; 3], [1.0, 0.0, 0.0]);
//! let o = BuildOptions::default();
//! let collider = Collider::build(&a, &b, BvKind::Kdop18, &o, &o);
//! let results = collider.collide_batch(&poses, &QueryOptions::default(), &|_| {});
//! // The reference equals brute force over all triangle pairs.
//! for (pose, r) in poses.iter().zip(&results) {
//!     assert_eq!(r.pairs, meshcollide::brute_force(&a, &b, pose));
//! }
//! assert!(results.iter().any(|r| !r.pairs.is_empty()));
//! ```

#[macro_use]
pub mod option_names;

pub mod boxtree;
pub mod bv;
pub mod bvh;
pub mod dual;
pub mod error;
pub mod frame;
pub mod hull;
pub mod mesh;
pub mod ordered;
pub mod pose;
pub mod rng;
pub mod tri;

pub use error::{Error, Location, MeshError, PoseError, Result};
pub use mesh::Mesh;
pub use pose::Pose;
pub mod query;
pub mod traverse;
pub mod tumble;

pub use boxtree::BoxTest;
pub use bv::BvKind;
pub use bvh::{BuildOptions, Bvh, SplitPoint, SplitRule};
pub use query::{Collider, PoseResult, QueryOptions, brute_force};
pub use traverse::{Counters, Descent, Mode};
pub use tumble::TumbleMethod;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
pub mod experiments;
pub mod formats;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod rtree;
