use super::bound::{INV_SQRT2_UP, INV_SQRT3_UP};
use crate::bv::Kdop;

/// `x² · n ≥ 1` exactly: `x·x = p + err` with `err` from a fused multiply-add (exact), and
/// `n·p − 1` exact for `n·p` in [1/2, 2] (Sterbenz).
fn square_times_at_least_one(x: f64, n: f64) -> bool {
    let p = x * x;
    let err = x.mul_add(x, -p);
    (n * p - 1.0) + n * err >= 0.0
}

#[test]
fn inverse_lengths_are_rounded_up() {
    assert!(square_times_at_least_one(INV_SQRT2_UP, 2.0));
    assert!(square_times_at_least_one(INV_SQRT3_UP, 3.0));
    // And by no more than a few steps (a wrong literal far above would still pass above).
    assert!(!square_times_at_least_one(
        INV_SQRT2_UP.next_down().next_down(),
        2.0
    ));
    assert!(!square_times_at_least_one(
        INV_SQRT3_UP.next_down().next_down(),
        3.0
    ));
}

#[test]
fn kdop_depth_bound_is_the_least_slab_overlap_over_the_axis_length() {
    // Two unit cubes overlapping by 0.25 along x: the 6-DOP bound is 0.25.
    let a = Kdop::<3> {
        min: [0.0; 3],
        max: [1.0; 3],
    };
    let b = Kdop::<3> {
        min: [0.75, 0.0, 0.0],
        max: [1.75, 1.0, 1.0],
    };
    let d = a.depth_bound(&b);
    assert!((0.25..0.25 * (1.0 + 1e-14)).contains(&d), "{d}");
    // Touching: 0 exactly.
    let c = Kdop::<3> {
        min: [1.0, 0.0, 0.0],
        max: [2.0, 1.0, 1.0],
    };
    assert_eq!(a.depth_bound(&c), 0.0);
    // Along a diagonal of the 14-DOP: slab values are x+y+z, so an overlap of 0.3 there is
    // a translation of 0.3/√3.
    let mut a14 = Kdop::<7> {
        min: [-10.0; 7],
        max: [10.0; 7],
    };
    let mut b14 = a14;
    let axes = crate::bv::axes(7);
    let diag = axes.iter().position(|n| n.iter().all(|&c| c == 1)).unwrap();
    a14.max[diag] = 1.0;
    b14.min[diag] = 0.7;
    let d = a14.depth_bound(&b14);
    // The f32 ends are 1.0 and 0.7f32.
    let want = (1.0 - 0.7f32 as f64) / 3f64.sqrt();
    assert!(d >= want && d <= want * (1.0 + 1e-12), "{d} {want}");
}
