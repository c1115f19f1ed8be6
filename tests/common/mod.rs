//! Helpers shared by the integration tests (`mod common;` at the top of a test file), one
//! module per concern, all re-exported here: a test writes `common::tori(12)`.
//!
//! - [`env`]: what the environment decides: the shared models (or a loud skip), how many
//!   random cases (`MESHCOLLIDE_CASES`, `MESHCOLLIDE_PROPTEST_CASES`).
//! - [`device`] (feature `gpu`): the GPU context (or a loud skip, `MESHCOLLIDE_REQUIRE_GPU`),
//!   the tiny capacities that force the overflow-and-resume path.
//! - [`scenes`]: generated meshes, poses and deforming scenes.
//! - [`exact`]: f64 coordinates as big integers, for the exact oracles.
//! - [`proximity`]: the tolerance and distance tests' scenes.
//! - [`skips`]: tests that skip, recorded and summed up in one line as the binary exits.
//! - [`cli`]: the command-line binary (`MESHCOLLIDE_TEST_BIN`), temporary folders, OBJ files.
//!
//! tests/README.md lists the environment variables and which file tests what.

// Each test binary uses a part of these helpers.
#![allow(dead_code, unused_imports)]

pub mod cli;
#[cfg(feature = "gpu")]
pub mod device;
pub mod env;
pub mod exact;
pub mod proximity;
pub mod scenes;
pub mod skips;

pub use cli::*;
#[cfg(feature = "gpu")]
pub use device::*;
pub use env::*;
pub use exact::*;
pub use proximity::*;
pub use scenes::*;
pub use skips::skip;
