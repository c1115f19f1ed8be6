//! Vector helpers on `[f64; 3]`, shared by the hull, the k-DOP polytope, the boxtree's
//! overlap tests and the dual hierarchy's spheres.
//!
//! Each function fixes its operation order (sums left to right, no FMA): the error bounds
//! of the conservative tests are proved on these exact formulas, so a caller's result is
//! bit-identical to the private copy it replaces. Change none of them without revisiting
//! those bounds; a differently ordered variant gets its own name.

/// `a + b`.
#[inline]
pub(crate) fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// `a − b`.
#[inline]
pub(crate) fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a·b`, summed as `(a₀b₀ + a₁b₁) + a₂b₂`.
#[inline]
pub(crate) fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `a × b`, each coordinate as one difference of two products.
#[inline]
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// `a + (b − a)·t` per coordinate (exactly `a` at `t = 0`).
#[inline]
pub(crate) fn lerp(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// `|a − b|²`, as `dot(sub(a, b), sub(a, b))`.
#[inline]
pub(crate) fn dist2(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = sub(a, b);
    dot(d, d)
}

/// `|a − b|`, the square root of [`dist2`].
#[inline]
pub(crate) fn dist(a: [f64; 3], b: [f64; 3]) -> f64 {
    dist2(a, b).sqrt()
}
