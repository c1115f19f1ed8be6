//! The hierarchy a user picks (`--bv`, `bv=` in Python, [`crate::ColliderBuilder::bv`]):
//! every bounding volume family of the papers, and what each one supports (the GPU,
//! coherence, the k-DOP features). The slab directions of the k-DOPs are `bv::axes`.

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
        Boxtree => "boxtree": "Restricted boxtree (Zachmann 2002, 'Minimal Hierarchical Collision Detection'; 9 bytes per node; CPU only)",
        Rtree => "rtree": "R-tree of triangle AABBs (Figueiredo et al. 2009, 'An R-Tree Collision Detection Algorithm for Polygonal Models'; CPU only)",
        Dual6 => "dual6": "Dual k-DOP–sphere hierarchies (Fang, Jiang, Xu, 'Efficient Collision Detection Using a Dual k-DOP-Sphere Bounding Volume Hierarchy')",
        Dual14 => "dual14",
        Dual18 => "dual18",
        Dual26 => "dual26",
        Obb => "obb": "OBB tree (Gottschalk, Lin, Manocha, 'OBBTree', 1996): principal-axis boxes, 15-axis separating axis test",
        Sphere => "sphere": "Sphere tree: one smallest enclosing sphere per node (the simplest bounding volume; the same spheres as the dual hierarchies')",
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

/// The one dispatch over the four k-DOP widths (k = 6, 14, 18, 26, `H` = 3, 7, 9, 13):
/// every enum of the crate that holds one generic value per width names its variants
/// `Kdop6`, `Kdop14`, `Kdop18`, `Kdop26`, and this macro writes the four arms, so that a
/// new width (or a renamed one) is one edit here. Further arms (other hierarchies, a
/// mismatch) follow after a comma.
///
/// - `for_each_k!(e, Enum(x) => body, more arms…)`: `match e { Enum::Kdop6(x) => body, … }`;
/// - `for_each_k!(e, (EnumA(x), EnumB(y)) => body, more arms…)`: two enums side by side,
///   matched on the same width (`e` a tuple);
/// - `for_each_k!(map e, EnumA(x) => EnumB(body))`: the value of the same width in
///   another enum.
macro_rules! for_each_k {
    (map $e:expr, $E:ident($($p:pat),+) => $F:ident($body:expr) $(, $($rest:tt)*)?) => {
        match $e {
            $E::Kdop6($($p),+) => $F::Kdop6($body),
            $E::Kdop14($($p),+) => $F::Kdop14($body),
            $E::Kdop18($($p),+) => $F::Kdop18($body),
            $E::Kdop26($($p),+) => $F::Kdop26($body),
            $($($rest)*)?
        }
    };
    ($e:expr, ($E:ident($($p:pat),+), $F:ident($($q:pat),+)) => $body:expr $(, $($rest:tt)*)?) => {
        match $e {
            ($E::Kdop6($($p),+), $F::Kdop6($($q),+)) => $body,
            ($E::Kdop14($($p),+), $F::Kdop14($($q),+)) => $body,
            ($E::Kdop18($($p),+), $F::Kdop18($($q),+)) => $body,
            ($E::Kdop26($($p),+), $F::Kdop26($($q),+)) => $body,
            $($($rest)*)?
        }
    };
    ($e:expr, $E:ident($($p:pat),+) => $body:expr $(, $($rest:tt)*)?) => {
        match $e {
            $E::Kdop6($($p),+) => $body,
            $E::Kdop14($($p),+) => $body,
            $E::Kdop18($($p),+) => $body,
            $E::Kdop26($($p),+) => $body,
            $($($rest)*)?
        }
    };
}
pub(crate) use for_each_k;
