//! The k-DOP part of the dual node test: the slab order of Fang, Jiang and Xu, *Efficient
//! Collision Detection Using a Dual k-DOP-Sphere Bounding Volume Hierarchy*, section III.B,
//! and the centrally symmetric k-DOPs of its section III.A.
//!
//! **Order.** III.B concludes: "In all k/2 potential separating axes for k-DOP, the axis
//! with the smallest extent in Minkowski sum of two k-DOPs is preferred and should be test
//! as a priority." The Minkowski sum is that of the *two* k-DOPs under test, so the order
//! is per node pair: [`SlabOrder::PerPair`] (the default) sorts the slabs by the sum of
//! both widths, divided by the direction's length (the paper's extents are geometric; our
//! directions like (1,1,1) are not unit). Ties keep the table order of `bv::axes`. The
//! paper's own closing remark ("axes can dynamically be selected depending on the relative
//! shapes of two k-DOPs") is this per-pair choice. [`SlabOrder::Fixed`] keeps the k-DOP
//! hierarchy's fixed order (Klosowski et al., *Efficient Collision Detection Using Bounding
//! Volume Hierarchies of k-DOPs*, 1998, section 4.4), for comparison. The order never
//! changes which pairs are rejected, only how many slabs are tested (`slab_tests`).
//!
//! **Central symmetry.** III.A builds k-DOPs that are centrally symmetric: the centre from
//! the first slabs (in 3D the box of x, y, z), then each further slab placed symmetrically
//! about that centre at the object's largest projected distance from it. Since the largest
//! projection of the object along a direction is the tight k-DOP's bound, [`symmetrize`]
//! computes exactly that from a tight k-DOP: the box slabs are unchanged (already symmetric
//! about the box centre), every other slab becomes `a·c ± max(max − a·c, a·c − min)`,
//! rounded outward and never narrower than the original. The overlap test keeps its
//! interval form, which for symmetric k-DOPs is Theorem 1's `|a·(c_A − c_B)| ≤ r_A + r_B`.

use crate::bv::Kdop;
use crate::bv::axes::{axes, project};
use crate::bv::kdop::{round_down, round_up};

/// The order in which the node test visits the k-DOP slabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlabOrder {
    /// Smallest Minkowski-sum extent first, per node pair (the paper's rule).
    #[default]
    PerPair,
    /// The fixed order of `bv::axes` (the k-DOP hierarchy's).
    Fixed,
}

option_names! {
    SlabOrder, kind "dual order", all ALL {
        PerPair => "pair": "Smallest Minkowski-sum extent first, per node pair (the paper's rule)",
        Fixed => "fixed": "The k-DOP hierarchy's fixed order",
    }
}

/// `1/|a|` of one slab direction, rounded to f32 (WGSL twin: `INV_NORM` of the preamble).
pub fn inv_norm(a: [i8; 3]) -> f32 {
    let n2: i32 = a.iter().map(|&c| c as i32 * c as i32).sum();
    (1.0 / (n2 as f64).sqrt()) as f32
}

/// `1/|a_i|` for the slab directions of this H.
pub fn inv_norms<const H: usize>() -> [f32; H] {
    let ax = axes(H);
    std::array::from_fn(|i| inv_norm(ax[i]))
}

/// The slab indices sorted by the geometric width of the Minkowski sum of `a` and `b`
/// (smallest first; stable, so ties keep the table order). The widths are non-negative
/// finite f32 (extents of non-empty k-DOPs), whose bit patterns order like the values, so
/// `bits << 8 | index` are distinct keys in the stable order; an odd-even transposition
/// network sorts them with branch-free min/max (an insertion sort's mispredicted branches
/// cost twice as much here). A stable order is unique, so this equals the WGSL twin's
/// insertion sort (`kdop_overlaps_dual`).
#[inline]
pub fn minkowski_order<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, inv: &[f32; H]) -> [u8; H] {
    let mut k: [u64; H] = std::array::from_fn(|i| {
        let w = (a.extent(i) + b.extent(i)) * inv[i];
        u64::from(w.to_bits()) << 8 | i as u64
    });
    for round in 0..H {
        let mut j = round & 1;
        while j + 1 < H {
            let (x, y) = (k[j], k[j + 1]);
            k[j] = x.min(y);
            k[j + 1] = x.max(y);
            j += 2;
        }
    }
    k.map(|x| x as u8)
}

/// The insertion sort the WGSL kernel runs, kept as the reference for [`minkowski_order`].
#[cfg(test)]
fn insertion_order<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, inv: &[f32; H]) -> [u8; H] {
    let w: [f32; H] = std::array::from_fn(|i| (a.extent(i) + b.extent(i)) * inv[i]);
    let mut order: [u8; H] = std::array::from_fn(|i| i as u8);
    for i in 1..H {
        let x = order[i];
        let mut j = i;
        while j > 0 && w[order[j - 1] as usize] > w[x as usize] {
            order[j] = order[j - 1];
            j -= 1;
        }
        order[j] = x;
    }
    order
}

/// The closed-interval test of the k-DOPs in the given slab order. Returns whether they
/// overlap and how many slabs were tested.
#[inline]
pub fn overlaps_in_order<const H: usize>(a: &Kdop<H>, b: &Kdop<H>, order: &[u8; H]) -> (bool, u32) {
    for (n, &i) in order.iter().enumerate() {
        let i = i as usize;
        if a.min[i] > b.max[i] || b.min[i] > a.max[i] {
            return (false, n as u32 + 1);
        }
    }
    (true, H as u32)
}

/// The identity order (slab table order).
pub fn table_order<const H: usize>() -> [u8; H] {
    std::array::from_fn(|i| i as u8)
}

/// The centrally symmetric k-DOP around the centre of `k`'s x, y, z box that contains `k`
/// (see the module doc). Empty k-DOPs stay as they are.
pub fn symmetrize<const H: usize>(k: &Kdop<H>) -> Kdop<H> {
    if k.is_empty() {
        return *k;
    }
    let c = [0, 1, 2].map(|i| 0.5 * (k.min[i] as f64 + k.max[i] as f64));
    let ax = axes(H);
    let mut s = *k;
    for (i, &a) in ax.iter().enumerate().skip(3) {
        let ac = project(a, c);
        let r = (k.max[i] as f64 - ac).max(ac - k.min[i] as f64);
        s.min[i] = round_down(ac - r).min(k.min[i]);
        s.max[i] = round_up(ac + r).max(k.max[i]);
    }
    s
}

/// [`symmetrize`] in f32 only, for B's k-DOPs after tumbling on the CPU and the GPU (WGSL
/// twin: `kdop_symmetrize` in `shaders/shared/dual.wgsl`, operation for operation, every result
/// flushed like [`crate::bv::slab::ftz`]). The rounding only moves the common centre by a
/// few ulps; the final `min`/`max` with the original bounds make the result contain `k`
/// whatever the rounding did, so it stays conservative. Empty k-DOPs are not expected (tumbled k-DOPs
/// never are).
pub fn symmetrize_f32<const H: usize>(k: &Kdop<H>) -> Kdop<H> {
    use crate::bv::slab::ftz;
    let mut s = *k;
    let cx = ftz(ftz(k.min[0] + k.max[0]) * 0.5);
    let cy = ftz(ftz(k.min[1] + k.max[1]) * 0.5);
    let cz = ftz(ftz(k.min[2] + k.max[2]) * 0.5);
    for (i, a) in axes(H).iter().enumerate().skip(3) {
        let a = a.map(f32::from);
        let ac = ftz(ftz(ftz(a[0] * cx) + ftz(a[1] * cy)) + ftz(a[2] * cz));
        let r = ftz(k.max[i] - ac).max(ftz(ac - k.min[i]));
        s.min[i] = ftz(ac - r).min(k.min[i]);
        s.max[i] = ftz(ac + r).max(k.max[i]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random_kdop<const H: usize>(rng: &mut Rng) -> Kdop<H> {
        let c = [0; 3].map(|_| rng.range(-3.0, 3.0));
        let pts: Vec<[f64; 3]> = (0..1 + rng.below(6))
            .map(|_| [0, 1, 2].map(|k| c[k] + rng.range(-1.0, 1.0) * rng.f64()))
            .collect();
        Kdop::from_points(pts)
    }

    fn check_order<const H: usize>(rng: &mut Rng) {
        let inv = inv_norms::<H>();
        for _ in 0..500 {
            let (a, b) = (random_kdop::<H>(rng), random_kdop::<H>(rng));
            let o = minkowski_order(&a, &b, &inv);
            assert_eq!(o, insertion_order(&a, &b, &inv));
            // A permutation ...
            let mut seen = [false; H];
            o.iter().for_each(|&i| seen[i as usize] = true);
            assert!(seen.iter().all(|&s| s));
            // ... sorted by the Minkowski sum's geometric width, recomputed in f64 from the
            // directions' lengths.
            let width = |i: usize| {
                let n: f64 = axes(H)[i].iter().map(|&c| (c as f64).powi(2)).sum();
                (a.extent(i) as f64 + b.extent(i) as f64) / n.sqrt()
            };
            for w in o.windows(2) {
                assert!(width(w[0] as usize) <= width(w[1] as usize) * (1.0 + 1e-6));
            }
            // The order changes the work, not the answer.
            let (ov, n) = overlaps_in_order(&a, &b, &o);
            assert_eq!(ov, a.overlaps(&b));
            let (ov2, n2) = overlaps_in_order(&a, &b, &table_order());
            assert_eq!(ov2, ov);
            assert!(n >= 1 && n as usize <= H && n2 >= 1);
            if ov {
                assert_eq!((n, n2), (H as u32, H as u32));
            }
        }
    }

    /// Ties everywhere (k-DOPs of points on a coarse grid): the rank order is the stable
    /// insertion sort's.
    fn check_ties<const H: usize>(rng: &mut Rng) {
        let inv = inv_norms::<H>();
        let grid = |rng: &mut Rng| {
            Kdop::<H>::from_points(
                (0..1 + rng.below(3)).map(|_| [0; 3].map(|_| rng.below(3) as f64 * 0.5)),
            )
        };
        for _ in 0..500 {
            let (a, b) = (grid(rng), grid(rng));
            assert_eq!(minkowski_order(&a, &b, &inv), insertion_order(&a, &b, &inv));
        }
    }

    #[test]
    fn rank_order_equals_the_kernels_insertion_sort_with_ties() {
        let mut rng = Rng::new(6);
        check_ties::<3>(&mut rng);
        check_ties::<7>(&mut rng);
        check_ties::<9>(&mut rng);
        check_ties::<13>(&mut rng);
    }

    #[test]
    fn per_pair_order_is_sorted_by_minkowski_width_and_keeps_the_answer() {
        let mut rng = Rng::new(3);
        check_order::<3>(&mut rng);
        check_order::<7>(&mut rng);
        check_order::<9>(&mut rng);
        check_order::<13>(&mut rng);
    }

    #[test]
    fn thin_direction_goes_first() {
        // Two flat plates in z: the z slab has the smallest Minkowski extent.
        let plate = |lo: [f64; 3], hi: [f64; 3]| {
            Kdop::<9>::from_points(
                (0..8).map(|c| [0, 1, 2].map(|k| if c >> k & 1 == 1 { hi[k] } else { lo[k] })),
            )
        };
        let a = plate([0.0, 0.0, 0.0], [4.0, 4.0, 0.1]);
        let b = plate([1.0, 1.0, 1.0], [5.0, 5.0, 1.1]);
        let o = minkowski_order(&a, &b, &inv_norms());
        assert_eq!(o[0], 2);
        assert_eq!(overlaps_in_order(&a, &b, &o), (false, 1));
        // The fixed order needs three tests (x and y overlap).
        assert_eq!(overlaps_in_order(&a, &b, &table_order()), (false, 3));
    }

    fn check_symmetric<const H: usize>(rng: &mut Rng, sym: fn(&Kdop<H>) -> Kdop<H>) {
        for _ in 0..500 {
            let k = random_kdop::<H>(rng);
            let s = sym(&k);
            assert!(s.contains(&k), "{k:?} not inside {s:?}");
            let c = [0, 1, 2].map(|i| 0.5 * (s.min[i] as f64 + s.max[i] as f64));
            for i in 0..H {
                // Symmetric about one common centre, up to the outward rounding.
                let ac = project(axes(H)[i], c);
                let (lo, hi) = (ac - s.min[i] as f64, s.max[i] as f64 - ac);
                assert!(
                    (lo - hi).abs() <= 1e-5 * (1.0 + lo.abs()),
                    "slab {i}: {lo} vs {hi}"
                );
            }
        }
    }

    #[test]
    fn symmetrized_kdops_contain_the_original_and_share_one_centre() {
        let mut rng = Rng::new(4);
        check_symmetric::<3>(&mut rng, symmetrize);
        check_symmetric::<7>(&mut rng, symmetrize);
        check_symmetric::<9>(&mut rng, symmetrize);
        check_symmetric::<13>(&mut rng, symmetrize);
    }

    #[test]
    fn f32_symmetrized_kdops_contain_the_original_and_share_one_centre() {
        let mut rng = Rng::new(5);
        check_symmetric::<3>(&mut rng, symmetrize_f32);
        check_symmetric::<7>(&mut rng, symmetrize_f32);
        check_symmetric::<9>(&mut rng, symmetrize_f32);
        check_symmetric::<13>(&mut rng, symmetrize_f32);
        // Far from the origin and tiny: still contained (the clamps), still symmetric.
        let far = Kdop::<9>::from_points([[1e6, 2e6, -3e6], [1e6 + 1.0, 2e6 + 0.5, -3e6 + 0.25]]);
        assert!(symmetrize_f32(&far).contains(&far));
        let tiny = Kdop::<9>::from_points([[1e-30, 0.0, 0.0], [2e-30, 1e-38, 0.0]]);
        assert!(symmetrize_f32(&tiny).contains(&tiny));
    }
}
