//! The k-DOP itself: `H = k/2` intervals along the fixed directions of [`super::axes()`].
//!
//! Values are f32 (the GPU's format) and every constructor rounds outward, so a k-DOP built
//! from points contains those points exactly, whatever rounding the f64 projections made.

use super::axes::{axes, project};
use bytemuck::{Pod, Zeroable};

/// A k-DOP with `H = k/2` slabs: `min[i] ≤ axes(H)[i]·p ≤ max[i]` for every point `p` inside.
/// WGSL twin: `struct Kdop { min: array<f32, H>, max: array<f32, H> }` in `shaders/shared/kdop.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kdop<const H: usize> {
    /// Lower end of each slab, in [`super::axes()`] order.
    pub min: [f32; H],
    /// Upper end of each slab, in [`super::axes()`] order.
    pub max: [f32; H],
}

// SAFETY: two f32 arrays, repr(C), no padding, every bit pattern valid.
unsafe impl<const H: usize> Zeroable for Kdop<H> {}
unsafe impl<const H: usize> Pod for Kdop<H> {}

/// One node of a flattened hierarchy. `count == 0`: internal node whose children are
/// `first` and `first + 1`; `count > 0`: leaf holding triangles `first .. first + count` of
/// the hierarchy's reordered triangle array. WGSL twin: `struct KdopNode { bv: Kdop, first:
/// u32, count: u32 }` in `shaders/shared/kdop.wgsl` (no padding: every field is 4 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KdopNode<const H: usize> {
    /// The node's k-DOP (its hierarchy's local frame).
    pub bv: Kdop<H>,
    /// Internal node: index of the first child (the second is `first + 1`); leaf: position of
    /// its first triangle in the hierarchy's reordered triangle array.
    pub first: u32,
    /// Triangles of a leaf; 0 for an internal node.
    pub count: u32,
}

// SAFETY: repr(C) of Pod fields that are all 4-byte aligned, so there is no padding.
unsafe impl<const H: usize> Zeroable for KdopNode<H> {}
unsafe impl<const H: usize> Pod for KdopNode<H> {}

impl<const H: usize> KdopNode<H> {
    /// Whether this node is a leaf (`count > 0`).
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.count > 0
    }
}

/// Largest f32 that is ≤ `x`, then one ulp further down: the extra ulp absorbs the one
/// rounding of the f64 projection sum, so the result is ≤ the exact real value.
#[inline]
pub fn round_down(x: f64) -> f32 {
    let f = x as f32;
    let f = if f as f64 > x { f.next_down() } else { f };
    f.next_down()
}

/// Mirror of [`round_down`].
#[inline]
pub fn round_up(x: f64) -> f32 {
    let f = x as f32;
    let f = if (f as f64) < x { f.next_up() } else { f };
    f.next_up()
}

impl<const H: usize> Kdop<H> {
    /// The empty k-DOP (min = +inf, max = -inf): the identity of [`Kdop::merge`].
    pub const EMPTY: Kdop<H> = Kdop {
        min: [f32::INFINITY; H],
        max: [f32::NEG_INFINITY; H],
    };

    /// The slab directions of this k.
    #[inline]
    pub fn axes() -> &'static [[i8; 3]] {
        axes(H)
    }

    /// Tight f64 extents of points along every direction (no rounding to f32 yet).
    pub fn extents_f64(points: impl IntoIterator<Item = [f64; 3]>) -> ([f64; H], [f64; H]) {
        // The same sum as `project`, with the directions already in f64.
        let ax = super::axes::axes_f64::<H>();
        let mut lo = [f64::INFINITY; H];
        let mut hi = [f64::NEG_INFINITY; H];
        for p in points {
            for i in 0..H {
                let d = ax[i][0] * p[0] + ax[i][1] * p[1] + ax[i][2] * p[2];
                lo[i] = if d < lo[i] { d } else { lo[i] };
                hi[i] = if d > hi[i] { d } else { hi[i] };
            }
        }
        (lo, hi)
    }

    /// Builds from f64 extents, widening each by `margin` and rounding outward to f32.
    pub fn from_extents(lo: &[f64; H], hi: &[f64; H], margin: f64) -> Kdop<H> {
        let mut k = Kdop::EMPTY;
        for i in 0..H {
            if lo[i] <= hi[i] {
                k.min[i] = round_down(lo[i] - margin);
                k.max[i] = round_up(hi[i] + margin);
            }
        }
        k
    }

    /// The smallest k-DOP (up to the outward rounding) containing the points, and every
    /// real point `x` with `|x_k − p_k| ≤ 2⁻⁵³·|p_k|` per coordinate: the points may be f64
    /// local coordinates `fl64(v − o)` ([`crate::frame`]), and the real `v − o` must be in.
    ///
    /// Proof: per point and slab, the f64 projection `fl(a·p)` (two additions of terms
    /// `±p_k` or 0, exact products) errs by at most `γ₂·‖p‖₁`, and `|a·(x − p)| ≤
    /// 2⁻⁵³·‖p‖₁`; so `|fl(a·p) − a·x| ≤ 3.01·2⁻⁵³·‖p‖₁ < 2⁻⁵¹·‖p‖₁ =: e`. The extents are
    /// taken of `fl(a·p) ∓ e'` with `e' = fl(‖p‖₁·2⁻⁵¹)·(1 + 2⁻⁵⁰)` (above `e` whatever the
    /// rounding of the norm); the subtraction's own rounding, relative to the result, and
    /// the f64 → f32 step are covered by [`round_down`]'s extra ulp (an f32 ulp is 2²⁹ f64
    /// ulps of the same value).
    pub fn from_points(points: impl IntoIterator<Item = [f64; 3]>) -> Kdop<H> {
        let ax = super::axes::axes_f64::<H>();
        let mut lo = [f64::INFINITY; H];
        let mut hi = [f64::NEG_INFINITY; H];
        const REL: f64 = 1.0 / (1u64 << 51) as f64 * (1.0 + 1.0 / (1u64 << 50) as f64);
        for p in points {
            let e = (p[0].abs() + p[1].abs() + p[2].abs()) * REL;
            for i in 0..H {
                let d = ax[i][0] * p[0] + ax[i][1] * p[1] + ax[i][2] * p[2];
                lo[i] = lo[i].min(d - e);
                hi[i] = hi[i].max(d + e);
            }
        }
        Self::from_extents(&lo, &hi, 0.0)
    }

    /// Whether some slab is empty (`min > max`), as for [`Kdop::EMPTY`].
    pub fn is_empty(&self) -> bool {
        (0..H).any(|i| self.min[i] > self.max[i])
    }

    /// Union bound of two k-DOPs. WGSL twin: `kdop_merge` in `shaders/shared/kdop.wgsl`.
    #[inline]
    pub fn merge(&self, o: &Kdop<H>) -> Kdop<H> {
        let mut k = *self;
        for i in 0..H {
            k.min[i] = k.min[i].min(o.min[i]);
            k.max[i] = k.max[i].max(o.max[i]);
        }
        k
    }

    /// Sum of the slab widths in f32, slab by slab from 0.0: the size the descent rule
    /// `Descent::Larger` compares. WGSL twin: `kdop_size` in `shaders/shared/kdop.wgsl`, the same
    /// additions in the same order (no multiplication, so no contraction can change it).
    #[inline]
    pub fn size(&self) -> f32 {
        let mut s = 0.0f32;
        for i in 0..H {
            s += self.max[i] - self.min[i];
        }
        s
    }

    /// Conservative overlap test of Klosowski et al., *Efficient Collision Detection Using
    /// Bounding Volume Hierarchies of k-DOPs* (1998), section 4.4: the k-DOPs are disjoint
    /// if one of the H closed intervals is disjoint, tested in [`super::axes()`] order.
    /// Touching intervals overlap (closed sets: touching triangles must reach the leaf
    /// test). WGSL twin: `kdop_overlaps` in `shaders/shared/kdop.wgsl`.
    #[inline(always)]
    pub fn overlaps(&self, o: &Kdop<H>) -> bool {
        for i in 0..H {
            if self.min[i] > o.max[i] || o.min[i] > self.max[i] {
                return false;
            }
        }
        true
    }

    /// Whether the exact f64 point lies inside (closed), for validators and tests.
    pub fn contains_point(&self, p: [f64; 3]) -> bool {
        let ax = axes(H);
        (0..H).all(|i| {
            let d = project(ax[i], p);
            self.min[i] as f64 <= d && d <= self.max[i] as f64
        })
    }

    /// Whether `o` lies inside `self` slab by slab.
    pub fn contains(&self, o: &Kdop<H>) -> bool {
        (0..H).all(|i| self.min[i] <= o.min[i] && o.max[i] <= self.max[i])
    }

    /// Extent along slab `i` (for i < 3 a coordinate axis).
    #[inline]
    pub fn extent(&self, i: usize) -> f32 {
        self.max[i] - self.min[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_is_outward() {
        for x in [0.1f64, -0.1, 1.0, 1e-30, -3.3e7, 0.0] {
            assert!((round_down(x) as f64) < x || (round_down(x) as f64) <= x);
            assert!(round_down(x) as f64 <= x && round_up(x) as f64 >= x);
        }
    }

    #[test]
    fn overlap_is_closed_and_symmetric() {
        let a = Kdop::<3>::from_points([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]]);
        let b = Kdop::<3>::from_points([[1.0, 0.5, 0.5], [2.0, 2.0, 2.0]]);
        let c = Kdop::<3>::from_points([[1.5, 0.5, 0.5], [2.0, 2.0, 2.0]]);
        assert!(a.overlaps(&b) && b.overlaps(&a));
        assert!(!a.overlaps(&c) && !c.overlaps(&a));
        // Diagonal slabs separate what the box cannot.
        let d = Kdop::<7>::from_points([
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ]);
        let e = Kdop::<7>::from_points([[0.9, 0.9, 0.9], [1.0, 1.0, 1.0]]);
        assert!(!d.overlaps(&e));
        let (d6, e6) = (
            Kdop::<3>::from_points(d.vertices()),
            Kdop::<3>::from_points(e.vertices()),
        );
        assert!(d6.overlaps(&e6));
    }

    #[test]
    fn node_layout_has_no_padding() {
        assert_eq!(std::mem::size_of::<KdopNode<9>>(), 4 * (18 + 2));
        assert_eq!(std::mem::size_of::<KdopNode<13>>(), 4 * (26 + 2));
    }
}
