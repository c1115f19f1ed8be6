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

/// The bounding volume families behind `--bv`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BvKind {
    /// k-DOP hierarchy with k = 6: axis-aligned boxes.
    Kdop6,
    /// k-DOP hierarchy with k = 14: the axes and the four corner diagonals.
    Kdop14,
    /// k-DOP hierarchy with k = 18: the axes and the six edge diagonals.
    Kdop18,
    /// k-DOP hierarchy with k = 26: the axes and all ten diagonals.
    Kdop26,
    /// Zachmann's restricted boxtree (`crate::boxtree`), not a k-DOP; CPU only.
    Boxtree,
    /// Figueiredo's R-tree of triangle AABBs (`crate::rtree`); not a k-DOP, so not in
    /// [`BvKind::ALL`].
    Rtree,
    /// The dual k-DOP–sphere hierarchy (`dual`), k = 6, 14, 18, 26.
    Dual6,
    /// The dual hierarchy with 14-DOPs.
    Dual14,
    /// The dual hierarchy with 18-DOPs.
    Dual18,
    /// The dual hierarchy with 26-DOPs.
    Dual26,
    /// Gottschalk, Lin and Manocha's OBB tree (`crate::obb`).
    Obb,
    /// The sphere tree of smallest enclosing spheres (`crate::obb`).
    Sphere,
    /// The kdop18 and OBB trees, one picked per call by a sampling probe (`crate::auto`).
    Auto,
}

// `EVERY`: all twelve (`ALL` is the four k-DOPs).
option_names! {
    BvKind, kind "bv", all EVERY {
        Kdop6 => "kdop6": "k-DOPs (Klosowski et al. 1998, 'Efficient Collision Detection Using BVHs of k-DOPs'); kdop6: axis-aligned boxes",
        Kdop14 => "kdop14",
        Kdop18 => "kdop18",
        Kdop26 => "kdop26",
        Boxtree => "boxtree": "Zachmann's restricted boxtree (9 bytes per node; CPU only)",
        Rtree => "rtree": "Figueiredo's R-tree of triangle AABBs (CPU only)",
        Dual6 => "dual6": "Dual k-DOP–sphere hierarchies (Fang, Jiang, Xu, 'Efficient Collision Detection Using a Dual k-DOP-Sphere Bounding Volume Hierarchy')",
        Dual14 => "dual14",
        Dual18 => "dual18",
        Dual26 => "dual26",
        Obb => "obb": "OBB tree (Gottschalk, Lin, Manocha, 'OBBTree', 1996): principal-axis boxes, 15-axis separating axis test",
        Sphere => "sphere": "Sphere tree of smallest enclosing spheres (the lecture's first volume)",
        Auto => "auto": "kdop18 and OBB trees over one topology; a sampling probe picks one per call (the default; kdop18 where only a k-DOP serves)",
    }
}

impl BvKind {
    /// The four k-DOPs (tests and benches iterate over them); see also [`BvKind::Boxtree`].
    pub const ALL: [BvKind; 4] = [
        BvKind::Kdop6,
        BvKind::Kdop14,
        BvKind::Kdop18,
        BvKind::Kdop26,
    ];

    /// The dual k-DOP–sphere hierarchies (`ALL` stays the plain k-DOPs: its users build
    /// k-DOP scenes).
    pub const DUAL: [BvKind; 4] = [
        BvKind::Dual6,
        BvKind::Dual14,
        BvKind::Dual18,
        BvKind::Dual26,
    ];

    /// Number of slab directions, k/2 (of the k-DOP part for the dual hierarchies; 3 for
    /// the boxtree's and R-tree's axis-aligned boxes, and for the OBB and sphere trees,
    /// whose topology is the 6-DOP tree's).
    pub fn half_k(self) -> usize {
        match self {
            BvKind::Kdop6 | BvKind::Dual6 => 3,
            BvKind::Kdop14 | BvKind::Dual14 => 7,
            BvKind::Kdop18 | BvKind::Dual18 | BvKind::Auto => 9,
            BvKind::Kdop26 | BvKind::Dual26 => 13,
            BvKind::Boxtree => 3,
            BvKind::Rtree => 3,
            BvKind::Obb | BvKind::Sphere => 3,
        }
    }

    /// Whether this is a dual k-DOP–sphere hierarchy.
    pub fn is_dual(self) -> bool {
        BvKind::DUAL.contains(&self)
    }

    /// Whether the GPU pipeline runs this hierarchy: the k-DOPs, the dual k-DOP–sphere
    /// hierarchies, the OBB and the sphere trees; the boxtree and the R-tree are CPU only.
    pub fn on_gpu(self) -> bool {
        BvKind::ALL.contains(&self)
            || BvKind::DUAL.contains(&self)
            || matches!(self, BvKind::Obb | BvKind::Sphere | BvKind::Auto)
    }

    /// Whether temporal coherence ([`crate::kdop::KdopOptions::coherence`]) applies to this
    /// hierarchy on the backend: the k-DOP trees and `auto` on both (on the GPU `auto` is
    /// then its kdop18 tree alone), the OBB and sphere trees on the CPU only (the GPU runs
    /// them from the roots).
    pub fn coherent(self, gpu: bool) -> bool {
        BvKind::ALL.contains(&self)
            || self == BvKind::Auto
            || (!gpu && matches!(self, BvKind::Obb | BvKind::Sphere))
    }

    /// What serves this choice where `auto` cannot (deforming meshes, self-collision, saved
    /// hierarchies, coherence: k-DOP features): kdop18 for `auto`, else itself.
    pub fn concrete(self) -> BvKind {
        match self {
            BvKind::Auto => BvKind::Kdop18,
            k => k,
        }
    }
}

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
