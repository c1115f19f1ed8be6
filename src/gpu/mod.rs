//! The GPU pipeline on wgpu: headless device setup, the buffers shared with WGSL (same
//! bytes as the CPU arrays), and the compute kernels of `shaders/`.
//!
//! Every struct shared with WGSL lives in [`layout`] with a test against its WGSL twin;
//! every shader is validated by naga in the tests.

pub mod collide;
pub mod context;
pub mod layout;
pub mod mirror;
pub mod refit;
pub mod shader;

pub use context::{GpuContext, GpuError, adapters};
pub use refit::GpuRefit;
