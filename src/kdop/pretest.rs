//! A pose-level test before any tumbling: B's bounding box, posed (an oriented box),
//! against A's bounding box along A's three axes, in f64 on the coordinates as written.
//!
//! Hill climbing B's root (the approximate tumbling) costs microseconds on a hull with
//! vertices of high degree (a wavy grid), which is nearly all of a pose that misses
//! (measured in `docs/notebook/cpu-speed-1-pretest-auto-cold-caches.md`, "The k-DOP pose
//! pretest"). Moving a box costs one [`Pose::apply`] and nine products. So each pose first
//! asks whether B's box and A's box are apart along x, y or z (three of the fifteen
//! separating axes of Gottschalk, Lin and Manocha's OBB test: the cheap ones, and the ones
//! that decide for flat parts above each other, where a bounding sphere would not); if so
//! the pose has no contact and neither hierarchy is touched. The test counts as one
//! bounding-volume test (Nv) of every pose that runs it, on both backends
//! ([`crate::gpu::collide::GpuScene`] runs it on the host and leaves the rejected poses out
//! of the batch).
//!
//! The papers' traversals begin at the roots; [`crate::KdopOptions::PAPER`] turns it off.

use crate::bvh::Bvh;
use crate::pose::Pose;

/// A's box, and B's box as centre and half-extents, in the meshes' own (f64) coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxPretest {
    a_lo: [f64; 3],
    a_hi: [f64; 3],
    center: [f64; 3],
    half: [f64; 3],
}

impl BoxPretest {
    /// From the two hierarchies' triangles (every vertex a triangle uses). `None` when a
    /// hierarchy has no triangle.
    pub fn new<const H: usize>(a: &Bvh<H>, b: &Bvh<H>) -> Option<Self> {
        let (a_lo, a_hi) = bounds(a)?;
        let (b_lo, b_hi) = bounds(b)?;
        let center: [f64; 3] = std::array::from_fn(|k| 0.5 * b_lo[k] + 0.5 * b_hi[k]);
        // The larger distance from the (rounded) centre to either end.
        let half = std::array::from_fn(|k| (b_hi[k] - center[k]).max(center[k] - b_lo[k]));
        Some(BoxPretest {
            a_lo,
            a_hi,
            center,
            half,
        })
    }

    /// The same pretest with A's box grown by `eps` on every side (rounded outward:
    /// [`crate::proximity::sub_down`], [`crate::proximity::add_up`]), for a tolerance
    /// query: a point of B outside the grown box differs from every point of A's box by
    /// more than `eps` in some coordinate, so it is farther than `eps` from A.
    pub fn widened(&self, eps: f64) -> BoxPretest {
        use crate::proximity::{add_up, sub_down};
        BoxPretest {
            a_lo: self.a_lo.map(|x| sub_down(x, eps)),
            a_hi: self.a_hi.map(|x| add_up(x, eps)),
            ..*self
        }
    }

    /// Whether B at `pose` certainly has no point in A's box, hence no contact (proof at
    /// `BoxPretest::axes`).
    pub fn separated(&self, pose: &Pose) -> bool {
        self.axes(pose)
            .any(|(above, below)| above > 0.0 || below > 0.0)
    }

    /// `None` when [`BoxPretest::separated`]; else an upper bound on the length of the
    /// shortest translation that separates B's posed box from A's box, hence B's triangles
    /// (as the exact test sees them) from A's: the smallest of the six overlaps along ±x,
    /// ±y, ±z, each made larger by the slack of [`BoxPretest::separated`]'s proof (B's
    /// posed vertices lie within `rho_k` of `P(c)_k`, so moving B by `hi_k − (P(c)_k −
    /// rho_k)` along +k leaves it at or above A's box), rounded up (`crate::budget`).
    pub fn depth_bound(&self, pose: &Pose) -> Option<f64> {
        let mut d = f64::INFINITY;
        for (above, below) in self.axes(pose) {
            if above > 0.0 || below > 0.0 {
                return None;
            }
            // `-above` is `hi_k − (P(c)_k − rho_k)` plus the comparison's slack: both
            // terms rounded once, so one relative step up each covers them.
            d = d.min((-above).min(-below));
        }
        Some((d * (1.0 + TWO_M40)).next_up())
    }

    /// Per axis k of A: how far B's posed box lies above A's box and below it, minus the
    /// slack of the proof below (positive: separated on that side).
    ///
    /// Proof. Let `c` be the centre and `h` the computed half-extents (`u = 2⁻⁵³`). Every
    /// vertex `v` of B has `|v_j − c_j| ≤ h_j(1 + u)` (one rounding in the subtraction that
    /// made `h_j`; the subtractions of values in the supported range never underflow
    /// inexactly). The truth of a vertex is `P(v) = Pose::apply(v)`: each coordinate
    /// `Σ_j R_kj·v_j + t_k` in f64 (three products, three sums) is within
    /// `γ₆(Σ_j |R_kj||v_j| + |t_k|) ≤ 7u(3.1(‖c‖∞ + 1.01‖h‖∞) + ‖t‖∞)` of its real value (`|R_kj| ≤ 1.01` for
    /// the f64 matrix of a unit quaternion), and so is `P(c)_k`; products that underflow
    /// add at most 2⁻¹⁰⁷⁴ each. So `|P(v)_k − P(c)_k| ≤ Σ_j |R_kj|·h_j(1 + u) + 2·err`, which
    /// `rho_k = Σ_j |R_kj|·h_j·(1 + 2⁻³⁰) + 2⁻³⁶(4(‖c‖∞ + ‖h‖∞) + ‖t‖∞) + f64::MIN_POSITIVE`
    /// exceeds by far (2⁻³⁰ also covers the rounding of the sum itself; 2⁻³⁶ is millions
    /// of times the `7u·3.1` terms). The comparison `P(c)_k − rho_k > hi_k` is made as
    /// `P(c)_k − hi_k > rho_k + 2⁻⁴⁰(|P(c)_k| + |hi_k|)`, the slack covering the rounding of
    /// the subtraction. Then every vertex of B, hence (triangles are convex) every point of
    /// B's triangles as the exact test sees them, is beyond A's box, which contains A.
    fn axes(&self, pose: &Pose) -> impl Iterator<Item = (f64, f64)> + '_ {
        let c = pose.apply(self.center);
        let inf = |v: &[f64; 3]| v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let err = TWO_M36 * (4.0 * (inf(&self.center) + inf(&self.half)) + inf(&pose.t))
            + f64::MIN_POSITIVE;
        let r = pose.r;
        (0..3).map(move |k| {
            let r = &r[k];
            let extent =
                r[0].abs() * self.half[0] + r[1].abs() * self.half[1] + r[2].abs() * self.half[2];
            let rho = extent * (1.0 + TWO_M30) + err;
            let above = c[k] - self.a_hi[k] - (rho + TWO_M40 * (c[k].abs() + self.a_hi[k].abs()));
            let below = self.a_lo[k] - c[k] - (rho + TWO_M40 * (c[k].abs() + self.a_lo[k].abs()));
            (above, below)
        })
    }
}

const TWO_M30: f64 = 1.0 / (1u64 << 30) as f64;
const TWO_M36: f64 = 1.0 / (1u64 << 36) as f64;
const TWO_M40: f64 = 1.0 / (1u64 << 40) as f64;

/// The f64 box of every vertex the hierarchy's triangles use (exact: min and max only).
fn bounds<const H: usize>(h: &Bvh<H>) -> Option<([f64; 3], [f64; 3])> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for t in 0..h.triangle_count() {
        for p in h.tris.corners_f64(t) {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    }
    (h.triangle_count() > 0).then_some((lo, hi))
}
