//! CPU twins of `shaders/shared/tri_filter.wgsl`, a library piece (no entry point): its three public
//! functions under their WGSL names. The literal twin of the whole file, private `tf_*`
//! helpers included, is [`crate::tri::filter`] (`tests/tri_filter.rs` compares the texts).

/// `tri_tri_farther` of `shaders/shared/tri_filter.wgsl`: a tolerance query's certified
/// "farther apart than it" (the literal twin in [`crate::tri::filter`]).
pub use crate::tri::filter::tri_tri_farther;
/// `tri_tri_filter(a0, a1, a2, q0, q1, q2, eps_q)` of `shaders/shared/tri_filter.wgsl`: the corners
/// as separate arguments, [`crate::tri::filter::tri_tri_filter_corners`] (not the
/// array-taking [`crate::tri::filter::tri_tri_filter`]).
pub use crate::tri::filter::tri_tri_filter_corners as tri_tri_filter;
/// `TF_MISS`, `TF_HIT`, `TF_UNSURE`: the filter's verdicts.
pub use crate::tri::filter::{HIT as TF_HIT, MISS as TF_MISS, UNSURE as TF_UNSURE};
/// `transform_f32` and `transform_error_bound` of `shaders/shared/tri_filter.wgsl`.
pub use crate::tri::filter::{transform_error_bound, transform_f32};
