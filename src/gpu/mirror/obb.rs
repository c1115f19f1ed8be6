//! CPU twins of `shaders/shared/obb.wgsl`, the library piece of the OBB tree's node test (no entry
//! point), under their WGSL names. The code lives in [`crate::obb::sat`] and
//! [`crate::obb::fit`]: the CPU traversal runs the same functions, so the CPU and the GPU
//! make the same decisions.

/// `struct Obb32` and `struct PosedObb` of `shaders/shared/obb.wgsl` (layout test in `gpu::layout`).
pub use crate::obb::Obb32;
pub use crate::obb::sat::PosedObb;
/// `obb_mul`, `obb_add`, `obb_dot3`, `obb_posed`, `obb_disjoint` of `shaders/shared/obb.wgsl`.
pub use crate::obb::sat::{obb_add, obb_disjoint, obb_dot3, obb_mul, obb_posed};
