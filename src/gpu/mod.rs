//! The GPU pipeline on wgpu: headless device setup, the buffers shared with WGSL (same
//! bytes as the CPU arrays), and the compute kernels of `shaders/`.
//!
//! Every struct shared with WGSL has a layout test against its WGSL twin in [`layout`] (where
//! the GPU-only ones live); every shader is validated by naga in the tests; every entry point
//! is declared once, with its bindings by name, in [`kernels`] (checked against the WGSL by
//! naga), which compiles it and binds its buffers; every shader file and entry point has a
//! CPU twin of its name in [`mirror`] (`shaders/<stem>.wgsl` ↔ `src/gpu/mirror/<stem>.rs`,
//! `shaders/shared/<stem>.wgsl` ↔ the same), which a test checks.

pub mod collide;
pub mod context;
pub mod deform;
pub mod refit;
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

pub use context::{GpuContext, GpuError, adapters};
pub use refit::GpuRefit;
pub use self_collide::{GpuSelf, GpuSelfStats};
