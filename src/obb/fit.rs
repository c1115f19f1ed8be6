//! Fitting an oriented bounding box to a node's triangles, and the proof that it contains
//! them.
//!
//! Orientation: the lecture (the University of Freiburg's slides *Collision Detection*,
//! "Oriented Bounding Box OBB") takes the eigenvectors of the covariance matrix of the
//! vertices, and warns that "inhomogeneous vertex distribution can cause bad OBBs".
//! Gottschalk, Lin and Manocha ("OBBTree", SIGGRAPH 1996) fix that by integrating over the
//! surface: the covariance of the triangles *area-weighted* (each triangle a uniform mass
//! sheet), ideally of the convex hull's triangles. Our choice: the area-weighted covariance
//! of the node's own triangles, not of their hull: a quickhull per node (`crate::hull`,
//! exact predicates) made the OBB build several times slower and moved Nv by under 2%
//! either way (measured with `examples/volumes_compare.rs`, the hull's faces swapped in:
//! `docs/notebook/moved-from-module-docs.md`). The box is tight along whatever axes it
//! gets, so the choice moves Nv, never the contacts. When the node's area is zero
//! (degenerate triangles), the lecture's vertex covariance is used; when that is zero too
//! (one point), the coordinate axes.
//!
//! The eigenvectors come from a cyclic Jacobi iteration in f64, orthonormalized
//! (Gram–Schmidt, third axis the cross product). The box itself is the tight box of the
//! vertices' projections on those axes, then widened so that it provably contains every
//! *real* local vertex ([`Obb::fit`] has the proof).

use crate::geom::{cross, dot, sub};

/// An oriented box in generator form: the points `c + Σᵢ sᵢ·axes[i]` with `|sᵢ| ≤ h[i]`, for
/// the stored f64 numbers exactly (the axes are orthonormal up to 2⁻⁴⁰, checked when
/// fitted). The generator form makes the projection of the box on any direction `L` exactly
/// `c·L ± Σᵢ h[i]·|axes[i]·L|`, whatever the axes' rounding: what the separating axis test
/// ([`super::sat`]) reasons on. 120 bytes, local coordinates of the hierarchy's frame.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obb {
    /// Centre.
    pub c: [f64; 3],
    /// The three axes (rows), unit and orthogonal up to [`AXES_TOLERANCE`].
    pub axes: [[f64; 3]; 3],
    /// Half extents along the axes, widened to contain every real vertex.
    pub h: [f64; 3],
}

/// Largest `|aᵢ·aⱼ − δᵢⱼ|` (real) of a stored box's axes: the fit checks the computed Gram
/// matrix against `2⁻⁴²` (its own rounding is below `4·2⁻⁵³`), and falls back to the exact
/// coordinate axes when the check fails.
pub const AXES_TOLERANCE: f64 = 1.0 / (1u64 << 40) as f64;

const TWO_M37: f64 = 1.0 / (1u64 << 37) as f64;
const TWO_M40: f64 = AXES_TOLERANCE;
const TWO_M42: f64 = 1.0 / (1u64 << 42) as f64;
const TWO_M45: f64 = 1.0 / (1u64 << 45) as f64;
const TWO_M50: f64 = 1.0 / (1u64 << 50) as f64;

const IDENTITY: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn inf(v: [f64; 3]) -> f64 {
    v[0].abs().max(v[1].abs()).max(v[2].abs())
}

impl Obb {
    /// The box of `tris` (local f64 corners `x = fl(p − o)`, at least one triangle),
    /// containing every *real* local corner `p − o`.
    ///
    /// Proof (`u = 2⁻⁵³`). Let `E` have the stored axes as rows and `G = E·Eᵀ = I + Δ`
    /// (real); the Gram check gives `|Δᵢⱼ| ≤ δ = 2⁻⁴²+4u < 2⁻⁴⁰` (each computed entry errs
    /// by at most `γ₃·‖aᵢ‖‖aⱼ‖ < 4u`, and `ĝᵢᵢ − 1` is exact by Sterbenz). A real corner `v`
    /// is `c + Eᵀs` for `s = G⁻¹p`, `p = E(v − c)`, and `‖G⁻¹ − I‖∞ ≤ 3δ/(1 − 3δ) ≤ 4δ`, so
    /// `|sᵢ| ≤ |pᵢ| + 4δ‖p‖∞`. The computed `p̂ᵢ = fl(aᵢ·fl(x − c))`: `|x − v| ≤ u|x|` per
    /// coordinate, the subtraction adds `u|d̂|` (`d̂ = fl(x − c)`), and the dot product
    /// `γ₃‖aᵢ‖₁‖d̂‖∞ ≤ 5.4u‖d̂‖∞` (`‖aᵢ‖₁ ≤ √3·1.01`), so `|p̂ᵢ − pᵢ| ≤ 8u(‖d̂‖∞ + ‖x‖∞) =
    /// 2⁻⁵⁰K_v`; underflowing products add at most `3·2⁻¹⁰⁷⁴`. With `Mᵢ = maxᵥ|p̂ᵢ|` and
    /// `K = maxᵥ K_v`: `|sᵢ| ≤ Mᵢ + 2⁻⁵⁰K + 2⁻³⁸(maxⱼ Mⱼ + 2⁻⁵⁰K) < Mᵢ + 2⁻⁴⁵K +
    /// 2⁻³⁷maxⱼ Mⱼ`. The stored `h[i] = fl((Mᵢ + 2⁻⁴⁵K + 2⁻³⁷maxⱼMⱼ)·(1 + 2⁻⁴⁰)) +
    /// f64::MIN_POSITIVE` exceeds that: four roundings of positive terms lose at most
    /// `4u < 2⁻⁴⁰` relative, and `MIN_POSITIVE` covers the underflows. So every real
    /// corner, hence (convexity) every real point of the triangles, is in the box.
    pub fn fit(tris: &[[[f64; 3]; 3]]) -> Obb {
        let axes = checked(principal_axes(tris));
        let c = Obb::centre(&axes, tris);
        Obb {
            c,
            axes,
            h: Obb::extents(&axes, c, tris),
        }
    }

    /// The centre of the tight box of `tris` along `axes` (any reference point: rounding
    /// here only moves the centre; [`Obb::extents`] and [`Obb32::from_fit`] prove the
    /// extents from it).
    pub fn centre(axes: &[[f64; 3]; 3], tris: &[[[f64; 3]; 3]]) -> [f64; 3] {
        let r = tris[0][0];
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for p in tris.iter().flatten() {
            let d = sub(*p, r);
            for i in 0..3 {
                let s = dot(axes[i], d);
                lo[i] = lo[i].min(s);
                hi[i] = hi[i].max(s);
            }
        }
        let mid: [f64; 3] = std::array::from_fn(|i| 0.5 * lo[i] + 0.5 * hi[i]);
        std::array::from_fn(|k| {
            r[k] + (mid[0] * axes[0][k] + mid[1] * axes[1][k]) + mid[2] * axes[2][k]
        })
    }

    /// The proved half extents of [`Obb::fit`] around centre `c` with `axes`.
    pub fn extents(axes: &[[f64; 3]; 3], c: [f64; 3], tris: &[[[f64; 3]; 3]]) -> [f64; 3] {
        let (mut m, mut k) = ([0.0f64; 3], 0.0f64);
        for x in tris.iter().flatten() {
            let d = sub(*x, c);
            for i in 0..3 {
                m[i] = m[i].max(dot(axes[i], d).abs());
            }
            k = k.max(inf(d) + inf(*x));
        }
        let big = m[0].max(m[1]).max(m[2]);
        m.map(|mi| (mi + TWO_M45 * k + TWO_M37 * big) * (1.0 + TWO_M40) + f64::MIN_POSITIVE)
    }

    /// Whether the f64 point is inside, tested in f64 with a relative slack of 2⁻³⁰ of the
    /// extents (validators and tests; not a proof).
    pub fn contains_approx(&self, p: [f64; 3]) -> bool {
        let d = sub(p, self.c);
        (0..3).all(|i| dot(self.axes[i], d).abs() <= self.h[i] * (1.0 + 1e-9))
    }

    /// Size for the descent rule: the sum of the half extents.
    #[inline]
    pub fn size(&self) -> f64 {
        self.h[0] + self.h[1] + self.h[2]
    }
}

/// The stored box of a node, in f32 (what the CPU traversal and the GPU test; WGSL twin
/// `struct Obb32` in `shaders/shared/obb.wgsl`): the points `x` with `|aᵢ·(x − c)| ≤ h[i]` for the
/// stored numbers exactly, `aᵢ = e[3i..3i + 3]`, whose Gram matrix is within
/// [`AXES_TOLERANCE_F32`] of the identity entry by entry. `size` is the descent rule's
/// (`(h₀ + h₁) + h₂` in f32). 64 bytes, local coordinates of the hierarchy's frame; a
/// fitted box stores no number below 2⁻⁵¹ but 0 (devices may flush subnormals). Aligned to
/// 64 bytes, one cache line: a node test reads one line of A's box, not two.
#[repr(C, align(64))]
#[derive(Debug, Clone, Copy, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Obb32 {
    /// Centre.
    pub c: [f32; 3],
    /// The three axes, rows (`e[3i + k]`).
    pub e: [f32; 9],
    /// Half extents.
    pub h: [f32; 3],
    /// `(h₀ + h₁) + h₂`, the size the descent compares.
    pub size: f32,
}

/// Largest real `|aᵢ·aⱼ − δᵢⱼ|` of an [`Obb32`]'s axes.
pub const AXES_TOLERANCE_F32: f64 = 1.0 / (1u64 << 20) as f64;

/// 2⁻⁵¹: smaller stored values are 0 ([`Obb32::from_fit`]).
const COARSE: f32 = 1.0 / (1u64 << 51) as f32;

const IDENTITY_F32: [f32; 9] = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];

impl Obb32 {
    /// A box from its parts (tests, and [`Obb32::from_fit`]); the size is computed.
    pub fn new(c: [f32; 3], e: [f32; 9], h: [f32; 3]) -> Obb32 {
        let ftz = crate::bv::slab::ftz;
        Obb32 {
            c,
            e,
            h,
            size: ftz(ftz(h[0] + h[1]) + h[2]),
        }
    }

    /// The f32 box of `tris` (local f64 corners `x = fl(p − o)`) along the f64 axes `axes`
    /// (those of a fit, checked orthonormal) around `centre`, containing every *real* local
    /// corner `p − o`.
    ///
    /// Proof (`u = 2⁻⁵³`). The axes are `fl32` of `axes`, subnormals flushed; their Gram
    /// matrix is computed in f64 from exact f32 products (two roundings, below 2⁻⁵¹), so
    /// the check `|ĝ − δ| ≤ 2⁻²⁰ − 2⁻⁴⁰` proves [`AXES_TOLERANCE_F32`]; the exact
    /// coordinate axes replace them when it fails. The centre is `fl32` of `centre` (any
    /// point will do). For a real corner `v` with `x` its nearest f64, `|x − v| ≤ u|x|`
    /// per coordinate, and the computed `p̂ᵢ = fl(aᵢ·fl(x − c))` errs from `aᵢ·(v − c)` by
    /// at most `γ₃‖aᵢ‖₁‖d̂‖∞ + ‖aᵢ‖₁u(‖d̂‖∞ + ‖x‖∞) ≤ 8u(‖d̂‖∞ + ‖x‖∞) = 2⁻⁵⁰K_v`
    /// (`‖aᵢ‖₁ ≤ 1.74`), plus `3·2⁻¹⁰⁷⁴` for underflows. So `h[i] = fl32↑((Mᵢ + 2⁻⁴⁵K)(1 +
    /// 2⁻⁴⁰) + MIN_POSITIVE)` with `Mᵢ = maxᵥ|p̂ᵢ|`, `K = maxᵥ K_v`, rounded up to a normal
    /// f32 ([`crate::bv::kdop::round_up`]) and at least 2⁻⁵¹, bounds every real
    /// `|aᵢ·(v − c)|`: the box contains the real corners, hence (convexity) the triangles.
    /// Axis and centre components below 2⁻⁵¹ are stored as 0 (before the Gram check and
    /// the extents, so the proof covers them): every stored number is 0 or at least 2⁻⁵¹,
    /// which the CPU's fast test relies on for speed, not for correctness.
    pub fn from_fit(axes: &[[f64; 3]; 3], centre: [f64; 3], tris: &[[[f64; 3]; 3]]) -> Obb32 {
        // Values below 2⁻⁵¹ become 0 (the CPU's screen, `sat::obb_disjoint_cpu`, then
        // passes for every stored box); the extents are computed from what is stored.
        let flush = |x: f64| {
            let f = x as f32;
            if f.abs() < COARSE { 0.0 } else { f }
        };
        let mut e: [f32; 9] = std::array::from_fn(|n| flush(axes[n / 3][n % 3]));
        let row = |e: &[f32; 9], i: usize| [0, 1, 2].map(|k| e[3 * i + k] as f64);
        let gram_ok = (0..3).all(|i| {
            (0..3).all(|j| {
                let g = dot(row(&e, i), row(&e, j)) - if i == j { 1.0 } else { 0.0 };
                g.abs() <= AXES_TOLERANCE_F32 - TWO_M40
            })
        });
        if !gram_ok {
            e = IDENTITY_F32;
        }
        let c = centre.map(flush);
        let c64 = c.map(f64::from);
        let (mut m, mut k) = ([0.0f64; 3], 0.0f64);
        for x in tris.iter().flatten() {
            let d = sub(*x, c64);
            for (i, mi) in m.iter_mut().enumerate() {
                *mi = mi.max(dot(row(&e, i), d).abs());
            }
            k = k.max(inf(d) + inf(*x));
        }
        let h = m.map(|mi| {
            let v = (mi + TWO_M45 * k) * (1.0 + TWO_M40) + f64::MIN_POSITIVE;
            crate::bv::kdop::round_up(v).max(COARSE)
        });
        Obb32::new(c, e, h)
    }

    /// The box's f64 generator form (exact conversion), for validators and tests.
    pub fn as_f64(&self) -> Obb {
        Obb {
            c: self.c.map(f64::from),
            axes: std::array::from_fn(|i| [0, 1, 2].map(|k| self.e[3 * i + k] as f64)),
            h: self.h.map(f64::from),
        }
    }
}

/// `axes` if they pass [`orthonormal`]'s check, else the coordinate axes.
pub(crate) fn checked(axes: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    if orthonormal(&axes) { axes } else { IDENTITY }
}

/// Whether the computed Gram matrix of `axes` is within `2⁻⁴²` of the identity (so the real
/// one is within [`AXES_TOLERANCE`]); false for any NaN.
fn orthonormal(axes: &[[f64; 3]; 3]) -> bool {
    (0..3).all(|i| {
        (0..3).all(|j| {
            let g = dot(axes[i], axes[j]) - if i == j { 1.0 } else { 0.0 };
            g.abs() <= TWO_M42
        })
    })
}

/// Orthonormal principal axes (rows) of the triangles' area-weighted covariance (vertex
/// covariance when the area is zero; the coordinate axes when both vanish), from their
/// moments about the first corner, for accuracy far from the local origin.
fn principal_axes(tris: &[[[f64; 3]; 3]]) -> [[f64; 3]; 3] {
    let o = tris[0][0];
    let cov = Moments::of(tris, o).covariance();
    axes_of(cov.unwrap_or_else(|| vertex_covariance(tris, o)))
}

/// The orthonormal eigenvectors (rows) of a covariance, the coordinate axes for a zero or
/// non-finite one.
pub(crate) fn axes_of(cov: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    if cov.iter().flatten().all(|&x| x == 0.0) || cov.iter().flatten().any(|x| !x.is_finite()) {
        return IDENTITY;
    }
    orthonormalize(eigenvectors(cov))
}

/// The lecture's covariance of the triangles' vertices, about `o` then centred.
fn vertex_covariance(tris: &[[[f64; 3]; 3]], o: [f64; 3]) -> [[f64; 3]; 3] {
    let (mut mean, mut second) = ([0.0; 3], [[0.0; 3]; 3]);
    for p in tris.iter().flatten().map(|x| sub(*x, o)) {
        for j in 0..3 {
            mean[j] += p[j];
            for k in 0..3 {
                second[j][k] += p[j] * p[k];
            }
        }
    }
    covariance(second, mean, (3 * tris.len()) as f64)
}

/// The area-weighted moments [`principal_axes`] reads, about a reference point (a node's
/// first corner, kept by the caller): each triangle a uniform sheet, `Σa`, `Σa·m` with `m`
/// its centroid, and `Σa/12·(9mmᵀ + ppᵀ + qqᵀ + rrᵀ)` (its six distinct entries), all of
/// `p − o`. They add up, so a node's are its children's moved to its reference by the
/// parallel-axis rule ([`Moments::moved`]): a tree's moments take one pass over the
/// triangles ([`node_moments`]), not one per level. 80 bytes a node, for the time of the
/// fit. (Nodes of zero area, whose axes come from their vertices, read their triangles
/// again: [`vertex_covariance`].)
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Moments {
    area: f64,
    mean: [f64; 3],
    /// `[xx, xy, xz, yy, yz, zz]`.
    second: [f64; 6],
}

/// The row-major index pairs of [`Moments::second`]'s entries.
const UPPER: [(usize, usize); 6] = [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)];

impl Moments {
    /// The moments of `tris` about `o`.
    pub(crate) fn of(tris: &[[[f64; 3]; 3]], o: [f64; 3]) -> Moments {
        let mut m = Moments::default();
        for t in tris {
            let [p, q, r] = t.map(|x| sub(x, o));
            let a = 0.5 * norm(cross(sub(q, p), sub(r, p)));
            let c: [f64; 3] = std::array::from_fn(|k| (p[k] + q[k] + r[k]) / 3.0);
            m.area += a;
            for (mj, cj) in m.mean.iter_mut().zip(c) {
                *mj += a * cj;
            }
            for (n, (j, k)) in UPPER.into_iter().enumerate() {
                m.second[n] +=
                    a / 12.0 * (9.0 * c[j] * c[k] + p[j] * p[k] + q[j] * q[k] + r[j] * r[k]);
            }
        }
        m
    }

    /// The same moments about `to` instead of `from`: with `d = from − to`, a point's
    /// `p − to = (p − from) + d`, so `Σw(x + d)(x + d)ᵀ = S + Mdᵀ + dMᵀ + Wddᵀ` and
    /// `Σw(x + d) = M + Wd` (a triangle's second-moment term is quadratic in its corners,
    /// and the sum of its corners is three times its centroid).
    fn moved(&self, from: [f64; 3], to: [f64; 3]) -> Moments {
        let d = sub(from, to);
        let (w, m) = (self.area, self.mean);
        Moments {
            area: w,
            mean: std::array::from_fn(|k| m[k] + w * d[k]),
            second: std::array::from_fn(|n| {
                let (j, k) = UPPER[n];
                self.second[n] + m[j] * d[k] + d[j] * m[k] + w * d[j] * d[k]
            }),
        }
    }

    /// The area-weighted covariance, `None` when the area is zero (or not finite).
    pub(crate) fn covariance(&self) -> Option<[[f64; 3]; 3]> {
        // Where each entry of the full matrix sits in `second` (the order of `UPPER`).
        const AT: [[usize; 3]; 3] = [[0, 1, 2], [1, 3, 4], [2, 4, 5]];
        let second = AT.map(|row| row.map(|n| self.second[n]));
        (self.area > 0.0 && self.area.is_finite()).then(|| covariance(second, self.mean, self.area))
    }

    /// The sum of two moments about the same reference.
    fn plus(&self, b: &Moments) -> Moments {
        Moments {
            area: self.area + b.area,
            mean: std::array::from_fn(|k| self.mean[k] + b.mean[k]),
            second: std::array::from_fn(|n| self.second[n] + b.second[n]),
        }
    }
}

/// Every node's [`Moments`] about its first triangle's first corner (`corners[range.0][0]`,
/// the reference [`principal_axes`] takes for the node alone): the leaves' from their
/// triangles, each internal node's its children's moved and added (children follow their
/// parent in the node array). `corners` holds the tree's local f64 corners in its order.
pub(crate) fn node_moments<const H: usize>(
    bvh: &crate::bvh::Bvh<H>,
    ranges: &[(u32, u32)],
    corners: &[[[f64; 3]; 3]],
) -> Vec<Moments> {
    let n = bvh.nodes.len();
    let mut m = vec![Moments::default(); n];
    let at = |i: usize| corners[ranges[i].0 as usize][0];
    for i in (0..n).rev() {
        let node = &bvh.nodes[i];
        let (s, e) = (ranges[i].0 as usize, ranges[i].1 as usize);
        m[i] = if node.is_leaf() {
            Moments::of(&corners[s..e], at(i))
        } else {
            let (l, r) = (node.first as usize, node.first as usize + 1);
            m[l].moved(at(l), at(i)).plus(&m[r].moved(at(r), at(i)))
        };
    }
    m
}

/// The axes of a node's box: from its merged moments ([`node_moments`]), or, for a node of
/// zero area, from its vertices.
pub(crate) fn node_axes(m: &Moments, tris: &[[[f64; 3]; 3]]) -> [[f64; 3]; 3] {
    axes_of(
        m.covariance()
            .unwrap_or_else(|| vertex_covariance(tris, tris[0][0])),
    )
}

fn norm(v: [f64; 3]) -> f64 {
    dot(v, v).sqrt()
}

/// `second/w − (mean/w)(mean/w)ᵀ`.
fn covariance(second: [[f64; 3]; 3], mean: [f64; 3], w: f64) -> [[f64; 3]; 3] {
    let mu = mean.map(|x| x / w);
    std::array::from_fn(|j| std::array::from_fn(|k| second[j][k] / w - mu[j] * mu[k]))
}

/// Eigenvectors (rows) of a symmetric 3×3 matrix: [`closed_form`]'s, or the Jacobi
/// iteration's where two eigenvalues are too close for it.
fn eigenvectors(a: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    closed_form(a).unwrap_or_else(|| jacobi_eigenvectors(a))
}

/// The eigenvectors of the largest and smallest eigenvalues of a symmetric 3×3 matrix (the
/// third row left to [`orthonormalize`]'s cross product), in closed form: the eigenvalues
/// by Smith's trigonometric formula (O. K. Smith, "Eigenvalues of a symmetric 3 × 3
/// matrix", CACM 4(4), 1961), each eigenvector the largest cross product of two rows of
/// `A − λI`, which spans its null space. `None` where such a cross product is below `10⁻⁶`
/// of the matrix's scale squared (eigenvalues within about `10⁻⁶` of its scale: the
/// vector is then poorly determined), and for a zero or non-finite deviatoric part.
///
/// Why: the Jacobi iteration (about four sweeps a node) took 330 ns a node, a quarter of
/// `auto`'s build; this takes 145 ns, and on the 16,000 nodes of a torus's OBB tree its
/// axes are the iteration's within `1 − |cos| ≤ 5·10⁻¹⁶` (one node fell back). Any
/// orthonormal axes give a proved box ([`Obb32::from_fit`]); these only make it tight.
fn closed_form(a: [[f64; 3]; 3]) -> Option<[[f64; 3]; 3]> {
    let p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    let q = (a[0][0] + a[1][1] + a[2][2]) / 3.0;
    let p2 = (a[0][0] - q).powi(2) + (a[1][1] - q).powi(2) + (a[2][2] - q).powi(2) + 2.0 * p1;
    let p = (p2 / 6.0).sqrt();
    if !(p > 0.0 && p.is_finite()) {
        return None;
    }
    let b: [[f64; 3]; 3] = std::array::from_fn(|i| {
        std::array::from_fn(|j| (a[i][j] - if i == j { q } else { 0.0 }) / p)
    });
    let det = b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1])
        - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
        + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]);
    let phi = (0.5 * det).clamp(-1.0, 1.0).acos() / 3.0;
    let largest = q + 2.0 * p * phi.cos();
    let smallest = q + 2.0 * p * (phi + 2.0 * std::f64::consts::FRAC_PI_3).cos();
    let floor = 1e-12 * (p * p) * (p * p);
    let null = |l: f64| {
        let m: [[f64; 3]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|j| a[i][j] - if i == j { l } else { 0.0 })
        });
        [cross(m[0], m[1]), cross(m[0], m[2]), cross(m[1], m[2])]
            .into_iter()
            .max_by(|x, y| dot(*x, *x).total_cmp(&dot(*y, *y)))
            .filter(|v| dot(*v, *v) > floor)
    };
    Some([null(largest)?, null(smallest)?, [0.0; 3]])
}

/// Eigenvectors (rows) of a symmetric 3×3 matrix by cyclic Jacobi rotations.
fn jacobi_eigenvectors(mut a: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut v = IDENTITY; // columns are the eigenvectors
    for _sweep in 0..50 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        let diag = a[0][0].abs() + a[1][1].abs() + a[2][2].abs();
        // Converged when the off-diagonal is at the matrix's rounding level: sweeps after
        // that only turn the axes by rounding (any orthonormal axes give a proved box;
        // these only make it tight), and a threshold below it, 1e-30, ran all 50 sweeps on
        // most nodes: half of the OBB tree's build
        // (`docs/notebook/cpu-speed-3-first-calls-warm-up-obb-fit.md`, "The OBB tree's
        // fit").
        if off <= TWO_M50 * diag || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for row in a.iter_mut() {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (rp, rq) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * rp[k] - s * rq[k]);
            a[q] = std::array::from_fn(|k| s * rp[k] + c * rq[k]);
            for row in v.iter_mut() {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    std::array::from_fn(|i| [v[0][i], v[1][i], v[2][i]])
}

/// Gram–Schmidt on the first two rows, the third their cross product, each normalized.
fn orthonormalize(e: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let unit = |v: [f64; 3]| {
        let n = norm(v);
        v.map(|x| x / n)
    };
    let a = unit(e[0]);
    let d = dot(a, e[1]);
    let b = unit([0, 1, 2].map(|k| e[1][k] - d * a[k]));
    let c = unit(cross(a, b));
    [a, b, c]
}

#[cfg(test)]
mod tests;
