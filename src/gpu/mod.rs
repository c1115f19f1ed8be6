//! The GPU pipeline on wgpu: headless device setup, the buffers shared with WGSL (same
//! bytes as the CPU arrays), and the compute kernels of `shaders/`.
//!
//! Every struct shared with WGSL has a layout test against its WGSL twin in [`layout`] (where
//! the GPU-only ones live); every shader is validated by naga in the tests; every entry point
//! is declared once, with its bindings by name, in [`kernels`] (checked against the WGSL by
//! naga), which compiles it and binds its buffers; every shader file and entry point has a
//! CPU twin of its name in [`mirror`] (`shaders/<stem>.wgsl` ↔ `src/gpu/mirror/<stem>.rs`,
//! `shaders/shared/<stem>.wgsl` ↔ the same), which a test checks.

pub mod deform;

// The pipeline's parts: what a user calls is re-exported below (the context, the stats of
// a batch, the self-collision and refit scenes); the modules stay public, hidden from the
// docs with no stability promise, for the integration tests (a kernel against its CPU
// twin, tiny capacities), the benches and the command line.
#[doc(hidden)]
pub mod collide;
#[doc(hidden)]
pub mod context;
#[doc(hidden)]
pub mod refit;
// A valid `XDG_RUNTIME_DIR` before the first wgpu instance (no false Wayland errors).
pub(crate) mod runtime_dir;
#[doc(hidden)]
pub mod self_collide;

// Internals: the kernel registry, the buffer layouts shared with WGSL, the shader sources
// and the kernels' CPU twins; public for the integration tests, not part of the API.
#[doc(hidden)]
pub mod kernels;
#[doc(hidden)]
pub mod layout;
#[doc(hidden)]
pub mod mirror;
#[doc(hidden)]
pub mod paged;
#[doc(hidden)]
pub mod shader;

pub use collide::{BatchWork, GpuStats};
pub use context::{GpuContext, GpuError, adapters};
pub use refit::GpuRefit;
pub use self_collide::{GpuSelf, GpuSelfStats};
