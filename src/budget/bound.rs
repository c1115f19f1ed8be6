//! The k-DOPs' bound on the separating translation ([`Kdop::depth_bound`]), the budget's
//! `depth_bound` on the k-DOP trees and the dual hierarchy.

use crate::bv::Kdop;

/// `1/√2` and `1/√3` rounded up: each literal is the shortest decimal of an f64 a step or
/// two above the real value (tested exactly in `tests.rs`).
pub(crate) const INV_SQRT2_UP: f64 = 0.707_106_781_186_547_7;
/// See [`INV_SQRT2_UP`].
pub(crate) const INV_SQRT3_UP: f64 = 0.577_350_269_189_626;

/// The inverse length of each k-DOP direction, rounded up (the directions have integer
/// components in {−1, 0, 1}, so `|n|² ∈ {1, 2, 3}`).
fn inverse_lengths<const H: usize>() -> [f64; H] {
    let axes = crate::bv::axes(H);
    std::array::from_fn(|i| match axes[i].iter().filter(|&&c| c != 0).count() {
        1 => 1.0,
        2 => INV_SQRT2_UP,
        _ => INV_SQRT3_UP,
    })
}

impl<const H: usize> Kdop<H> {
    /// An upper bound on the length of the shortest translation of `o`'s contents that
    /// separates them from this k-DOP's contents (both k-DOPs in one frame); meaningful when
    /// the two overlap ([`Kdop::overlaps`]).
    ///
    /// Proof. Along direction `n_i` the slabs overlap by `o_i = min(max_i − o.min_i,
    /// o.max_i − min_i)` (in units of `n_i·x`). Moving `o` by `o_i·n_i/|n_i|²` (or its
    /// opposite), a translation of length `o_i/|n_i|`, leaves the two slabs touching at
    /// one plane, which separates the two k-DOPs (each lies in its slab) and so their
    /// contents. So the shortest separating translation is at most `min_i o_i/|n_i|`.
    /// Rounding: the f32 ends are exact in f64 and their difference is rounded once
    /// (relative error at most `u = 2⁻⁵³`, and never below f64's normal range: f32 values
    /// differ by a multiple of 2⁻¹⁴⁹); the inverse lengths are rounded up; the product
    /// rounds once more. So each computed term is at least `(1 − u)²` times its real value
    /// and the final product by `1 + 2⁻⁵⁰` (itself rounded, `(1 + 2⁻⁵⁰)(1 − u) > (1 − u)⁻²`)
    /// is at least the real minimum. A zero overlap stays zero (touching slabs: the
    /// translation 0 separates them).
    pub fn depth_bound(&self, o: &Kdop<H>) -> f64 {
        let inv = inverse_lengths::<H>();
        let mut d = f64::INFINITY;
        for (i, inv) in inv.iter().enumerate() {
            let up = self.max[i] as f64 - o.min[i] as f64;
            let down = o.max[i] as f64 - self.min[i] as f64;
            d = d.min(up.min(down).max(0.0) * inv);
        }
        d * (1.0 + TWO_M50)
    }
}

const TWO_M50: f64 = 1.0 / (1u64 << 50) as f64;
