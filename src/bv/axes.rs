//! The fixed slab directions of the k-DOPs, in the order the overlap test visits them.
//!
//! Directions are those of Klosowski et al., *Efficient Collision Detection Using Bounding
//! Volume Hierarchies of k-DOPs* (1998), section 3.3.3: the coordinate axes, the four
//! corner diagonals `(1,±1,±1)` (14-DOP), the six edge diagonals `(1,±1,0)`, `(1,0,±1)`,
//! `(0,1,±1)` (18-DOP), and all thirteen (26-DOP).
//!
//! Test order (section 4.4 leaves it open: "order the interval tests so that we test
//! intervals with largely different directions one after the other"). Our choice: the
//! coordinate axes first, then greedily the remaining direction with the smallest |cos| to the
//! direction tested just before, ties broken by the smallest sum of |cos| to all directions
//! tested so far, then by the table order above. The tables below are that greedy order
//! (checked by a test), and the node layout stores the slabs in the same order so the test
//! reads memory front to back. The first three slabs are always x, y, z: the builder's split
//! axes and the 6-DOP prefix rely on it.

/// Slab directions of the 6-DOP (the coordinate axes).
pub const AXES_6: [[i8; 3]; 3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
/// Slab directions of the 14-DOP, in test order.
pub const AXES_14: [[i8; 3]; 7] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 1, 1],
    [1, -1, 1],
    [1, 1, -1],
    [1, -1, -1],
];
/// Slab directions of the 18-DOP, in test order.
pub const AXES_18: [[i8; 3]; 9] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 1, 0],
    [1, -1, 0],
    [1, 0, 1],
    [1, 0, -1],
    [0, 1, 1],
    [0, 1, -1],
];
/// Slab directions of the 26-DOP, in test order.
pub const AXES_26: [[i8; 3]; 13] = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [1, 1, 0],
    [1, -1, 0],
    [1, 1, 1],
    [1, 0, -1],
    [1, -1, 1],
    [0, 1, 1],
    [0, 1, -1],
    [1, -1, -1],
    [1, 0, 1],
    [1, 1, -1],
];

/// The slab directions for `H = k/2` slabs, in test order.
pub const fn axes(h: usize) -> &'static [[i8; 3]] {
    match h {
        3 => &AXES_6,
        7 => &AXES_14,
        9 => &AXES_18,
        13 => &AXES_26,
        _ => panic!("k/2 must be 3, 7, 9 or 13"),
    }
}

const fn to_f64<const N: usize>(a: [[i8; 3]; N]) -> [[f64; 3]; N] {
    let mut out = [[0.0; 3]; N];
    let mut i = 0;
    while i < N {
        out[i] = [a[i][0] as f64, a[i][1] as f64, a[i][2] as f64];
        i += 1;
    }
    out
}

static AXES_F64_6: [[f64; 3]; 3] = to_f64(AXES_6);
static AXES_F64_14: [[f64; 3]; 7] = to_f64(AXES_14);
static AXES_F64_18: [[f64; 3]; 9] = to_f64(AXES_18);
static AXES_F64_26: [[f64; 3]; 13] = to_f64(AXES_26);

/// [`axes`] as f64 arrays of exactly `H` directions, so hot loops over a k-DOP's slabs
/// neither convert nor bounds-check.
#[inline]
pub fn axes_f64<const H: usize>() -> &'static [[f64; 3]; H] {
    let s: &'static [[f64; 3]] = match H {
        3 => &AXES_F64_6,
        7 => &AXES_F64_14,
        9 => &AXES_F64_18,
        13 => &AXES_F64_26,
        _ => panic!("k/2 must be 3, 7, 9 or 13"),
    };
    s.try_into().expect("table of H directions")
}

/// `axis · p` in f64 (exact for the {-1,0,1} directions up to one rounding of the sum).
#[inline]
pub fn project(axis: [i8; 3], p: [f64; 3]) -> f64 {
    axis[0] as f64 * p[0] + axis[1] as f64 * p[1] + axis[2] as f64 * p[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cos(a: [i8; 3], b: [i8; 3]) -> f64 {
        let d: i32 = (0..3).map(|i| a[i] as i32 * b[i] as i32).sum();
        let na: i32 = a.iter().map(|&x| x as i32 * x as i32).sum();
        let nb: i32 = b.iter().map(|&x| x as i32 * x as i32).sum();
        (d as f64).abs() / ((na * nb) as f64).sqrt()
    }

    /// Recomputes the documented greedy order from the paper's direction sets.
    fn greedy(cands: &[[i8; 3]]) -> Vec<[i8; 3]> {
        let mut order = cands[..3].to_vec();
        let mut rest: Vec<[i8; 3]> = cands[3..].to_vec();
        while !rest.is_empty() {
            let key = |c: &[i8; 3]| {
                let last = *order.last().unwrap();
                let a = (cos(*c, last) * 1e9).round() as i64;
                let b = (order.iter().map(|o| cos(*c, *o)).sum::<f64>() * 1e9).round() as i64;
                (a, b)
            };
            let best = (0..rest.len()).min_by_key(|&i| key(&rest[i])).unwrap();
            order.push(rest.remove(best));
        }
        order
    }

    #[test]
    fn tables_follow_the_documented_greedy_order() {
        let base = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
        let corner = [[1, 1, 1], [1, -1, 1], [1, 1, -1], [1, -1, -1]];
        let edge = [
            [1, 1, 0],
            [1, 0, 1],
            [0, 1, 1],
            [1, -1, 0],
            [1, 0, -1],
            [0, 1, -1],
        ];
        let c14: Vec<_> = base.iter().chain(&corner).copied().collect();
        let c18: Vec<_> = base.iter().chain(&edge).copied().collect();
        let c26: Vec<_> = base.iter().chain(&corner).chain(&edge).copied().collect();
        assert_eq!(greedy(&base), AXES_6.to_vec());
        assert_eq!(greedy(&c14), AXES_14.to_vec());
        assert_eq!(greedy(&c18), AXES_18.to_vec());
        assert_eq!(greedy(&c26), AXES_26.to_vec());
    }
}
