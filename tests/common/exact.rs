//! Exact arithmetic for the oracles: f64 coordinates as big integers.

use num_bigint::BigInt;

/// `(mantissa, exponent)` with `x = mantissa · 2^exponent` exactly (finite `x`).
pub fn mantissa_exponent(x: f64) -> (i64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = (bits & ((1u64 << 52) - 1)) as i64;
    let (m, e) = if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1i64 << 52), exp - 1075)
    };
    (if x.is_sign_negative() { -m } else { m }, e)
}

/// The corners of two triangles as big integers, every coordinate multiplied by one power
/// of two (2 to the minus the smallest exponent of the nonzero ones): exact, so that
/// predicates on the integers decide for the f64 values.
pub fn scaled_to_integers(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[[BigInt; 3]; 3]; 2] {
    let e_min = a
        .iter()
        .chain(b)
        .flatten()
        .filter(|x| **x != 0.0)
        .map(|&x| mantissa_exponent(x).1)
        .min()
        .unwrap_or(0);
    let int = |x: f64| -> BigInt {
        if x == 0.0 {
            return BigInt::from(0);
        }
        let (m, e) = mantissa_exponent(x);
        BigInt::from(m) << ((e - e_min) as usize)
    };
    let big = |t: &[[f64; 3]; 3]| t.map(|p| p.map(int));
    [big(a), big(b)]
}
