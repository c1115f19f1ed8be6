//! Solids: closed meshes, exact point containment, and whether one mesh lies inside the
//! other at a pose where the surfaces do not meet (`--solid`, `inside.csv`).
//!
//! A small closed box entirely inside a big one gives no triangle pairs: the surfaces never
//! meet. CAD interference checking needs that case reported, so for closed meshes a pose
//! with no contact is also checked for containment ([`inside`], [`containment`]).
//!
//! # Closed meshes
//!
//! [`Solid::new`] refuses a mesh unless every edge belongs to exactly two triangles
//! ([`MeshError::NotClosed`] names one edge that does not, and how many triangles use it).
//! Edges are compared **by position**: two vertices with exactly equal coordinates (`-0.0`
//! equals `0.0`) are one vertex, because STL files are triangle soups that repeat every
//! position per triangle, and a mesh is closed or not as a surface, not as an index list.
//! A triangle with two corners at one position is a point or a segment whose three edges
//! cancel in pairs (`[a, a] + [a, b] + [b, a]`, each segment twice or of length zero), so it
//! is left out of the count; any other zero-area triangle (three distinct collinear
//! positions, the fillers of T-junctions) is counted like every other triangle. Neither kind
//! is ever crossed by a ray (below).
//!
//! # Inside, exactly: the parity of a ray
//!
//! Let `C` be the mesh's triangles that are proper (non-collinear) at the coordinates the
//! query sees, as a 2-chain mod 2. Its boundary is zero: every counted edge is used twice
//! (the same two positions, hence the same segment after any posing, which maps equal
//! positions to equal positions), and a triangle that is (or became, by rounding under a
//! pose) degenerate has a boundary that cancels on its own: for collinear corners `a, b, c`
//! with `b` between the others, every point of `[a, c]` lies on exactly two of `[a, b]`,
//! `[b, c]`, `[c, a]`. A point `p` off the surface is **inside** iff a segment from `p` to a
//! point `q` outside the bounding box that meets no edge of any triangle crosses `C` an odd
//! number of times: the mod-2 winding number, which for a closed surface without
//! self-intersections is the Jordan–Brouwer interior. It does not depend on `q`: moving `q`
//! along a path outside the box (which `C` never meets), the crossing count changes only
//! when the segment sweeps over an edge, and then every triangle at that edge toggles
//! between crossed and not crossed; an even number of triangle sides covers every point of
//! an edge (the boundary is zero), so the parity is unchanged. Nor does it change as `p`
//! moves without touching the surface, so it is constant on every connected set that does
//! not meet the surface (see [`containment`]). Outside the bounding box it is 0 (choose `q`
//! beyond a face of the box on `p`'s side), so such points are answered at once.
//!
//! Every decision is an exact sign of [`robust::orient3d`] or of the closed triangle tests
//! of [`crate::tri`] on the f64 coordinates, nothing is constructed. For triangle `t`, with
//! `s_p`, `s_q` the signs of `p` and `q` against `t`'s plane:
//!
//! - strictly opposite: the segment meets the plane at one point `X` strictly between `p`
//!   and `q`; the signs of `orient3d(p, q, t_i, t_i+1)` are one common factor times the side
//!   of `X` against each edge, so all three strictly equal is a crossing of `t`'s interior,
//!   equal with a zero is `X` on an edge (the ray is **degenerate**), and a strict
//!   disagreement is a miss;
//! - both zero (the segment lies in `t`'s plane, or `t` is collinear): if the segment meets
//!   the closed triangle then either `p` is in it (**on the surface**) or the segment meets
//!   its boundary (degenerate: it enters `t` through an edge, or `t` is a segment or a point
//!   and so its own edges);
//! - `s_p = 0` only: the segment meets the plane only at `p`: on the surface iff `p ∈ t`;
//! - `s_q = 0` only: only at `q`, which is outside the box, so not in `t`;
//! - strictly equal: no contact.
//!
//! A triangle whose three corners are all below `p` in some axis is skipped: every point of
//! the segment is at least `p` in every axis (`q ≥ p` componentwise, below).
//!
//! # Choosing the ray: why it terminates
//!
//! Try `n` uses `q_n = ((2 + j)·s, k·s, k²·s)` with `k = n mod 2^26 + 1`, `j = ⌊n / 2^26⌋`,
//! `s` the least power of two (at least `2^-200`) bounding every coordinate of the bounding
//! box: `q_n` is exact in f64 (`k² ≤ 2^52`), beyond the box in `x` and at least `p` in every
//! axis, and its coordinates stay within what the predicates handle exactly (magnitudes below
//! `2^155`, multiples of the mesh's own granularity; see [`crate::mesh::MAX_COORDINATE`]).
//! A try is degenerate only if the segment `pq` meets an edge `[u, v]` of some triangle not
//! containing `p` (shown case by case above). Then `q` lies in the plane through `p`, `u`,
//! `v` (or on the line through `p` and `u`, when they are collinear), which meets the plane
//! `x = (2 + j)·s` (it does not contain `p`) in at most a line; and a line meets the
//! parabola `(k·s, k²·s)` in at most two points. So each of the at most `3T` edges spoils at
//! most two tries of each `j`, and a mesh of `T` triangles needs at most `6T + 1` tries
//! (more than `2^26` only past eleven million triangles, where the next `j` continues). A
//! point on the surface is found at the first try not spoiled by another triangle: the
//! triangles containing `p` answer "on the surface", never "degenerate". In practice the
//! first try succeeds; from the centre of the box `[0, 2]³` the first two rays meet face
//! diagonals and the third succeeds (a unit test).
//!
//! Cost: `O(T)` exact orientation signs per try, no allocation; the bounding box of a posed
//! mesh is recomputed per call (`O(T)` more).

use crate::error::{Location, MeshError};
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::tri::{P3, point_triangle, tri_tri_general};
use robust::{Coord3D, orient3d};
use std::collections::HashMap;
use std::path::Path;

/// A closed mesh, checked ([`Solid::new`]), with one vertex of each connected component.
///
/// It does not own the mesh: its methods take the mesh it was built from (checked by its
/// vertex and triangle counts, a panic otherwise), so that the collider and the solid share
/// one copy.
#[derive(Debug, Clone, PartialEq)]
pub struct Solid {
    vertices: usize,
    triangles: usize,
    components: Vec<u32>,
    lo: P3,
    hi: P3,
}

/// Which mesh lies inside the other ([`inside`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Inner {
    /// (A component of) A lies inside the posed B.
    A,
    /// (A component of) the posed B lies inside A.
    B,
}

impl Inner {
    /// `a` or `b`, as the `inner` column of `inside.csv` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Inner::A => "a",
            Inner::B => "b",
        }
    }
}

/// Both containment answers of one pose ([`containment`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Containment {
    /// Some connected component of the posed B lies inside A.
    pub b_in_a: bool,
    /// Some connected component of A lies inside the posed B.
    pub a_in_b: bool,
}

/// What one ray found.
enum Ray {
    /// The segment met no edge: the parity of its crossings (odd: inside).
    Parity(bool),
    /// `p` lies on a triangle.
    OnSurface,
    /// The segment met an edge or a vertex: try the next `q`.
    Degenerate,
}

/// Positions per try of one plane `x = (2 + j)·s`: `k = 1 ..= 2^26`, so `k² ≤ 2^52` is exact.
const TRIES_PER_PLANE: u64 = 1 << 26;

impl Solid {
    /// Checks that `mesh` is closed and records its connected components; errors name
    /// "(mesh)" as the file. See [`Solid::named`].
    pub fn new(mesh: &Mesh) -> Result<Solid, MeshError> {
        Solid::named(mesh, Path::new("(mesh)"))
    }

    /// Checks `mesh` (the invariants of [`Mesh::validate`], then closedness: every edge,
    /// by exact vertex position, shared by exactly two triangles, see the module docs) and
    /// records one vertex per connected component. Errors name `path` as the file: a
    /// [`MeshError::NotClosed`] names the first triangle (in order) with an edge used by
    /// other than two triangles, that edge, and its number of triangles.
    ///
    /// Components are the classes of vertices (by position) joined by triangles: a
    /// component's triangles form a connected set, which is all [`containment`] needs (two
    /// spheres touching at one vertex are one component, as they are one connected set).
    pub fn named(mesh: &Mesh, path: &Path) -> Result<Solid, MeshError> {
        mesh.validate(path)?;
        // One id per distinct position; `+ 0.0` turns −0.0 into 0.0, which it equals.
        let mut ids: HashMap<[u64; 3], u32> = HashMap::with_capacity(mesh.positions.len());
        let canon: Vec<u32> = mesh
            .positions
            .iter()
            .map(|p| {
                let next = ids.len() as u32;
                *ids.entry(p.map(|c| (c + 0.0).to_bits())).or_insert(next)
            })
            .collect();
        let corners = |t: &[u32; 3]| t.map(|v| canon[v as usize]);
        let counted = |c: &[u32; 3]| c[0] != c[1] && c[1] != c[2] && c[0] != c[2];
        let key = |a: u32, b: u32| (a.min(b), a.max(b));

        let mut uses: HashMap<(u32, u32), usize> = HashMap::with_capacity(mesh.triangles.len() * 2);
        for t in &mesh.triangles {
            let c = corners(t);
            if counted(&c) {
                for i in 0..3 {
                    *uses.entry(key(c[i], c[(i + 1) % 3])).or_default() += 1;
                }
            }
        }
        for (f, t) in mesh.triangles.iter().enumerate() {
            let c = corners(t);
            if !counted(&c) {
                continue;
            }
            for i in 0..3 {
                let n = uses[&key(c[i], c[(i + 1) % 3])];
                if n != 2 {
                    let edge = [t[i], t[(i + 1) % 3]];
                    return Err(MeshError::NotClosed {
                        path: path.to_path_buf(),
                        location: Location::Face(f),
                        edge,
                        ends: edge.map(|v| mesh.positions[v as usize]),
                        uses: n,
                    });
                }
            }
        }

        // Union–find over positions, joined by every triangle (degenerate ones too: they
        // are connected sets as well).
        let mut parent: Vec<u32> = (0..ids.len() as u32).collect();
        fn find(parent: &mut [u32], mut x: u32) -> u32 {
            while parent[x as usize] != x {
                let up = parent[parent[x as usize] as usize];
                parent[x as usize] = up;
                x = up;
            }
            x
        }
        for t in &mesh.triangles {
            let c = corners(t);
            let r0 = find(&mut parent, c[0]);
            for &v in &c[1..] {
                let r = find(&mut parent, v);
                if r != r0 {
                    parent[r as usize] = r0;
                }
            }
        }
        let mut seen = vec![false; ids.len()];
        let mut components = Vec::new();
        for t in &mesh.triangles {
            for &v in t {
                let r = find(&mut parent, canon[v as usize]) as usize;
                if !seen[r] {
                    seen[r] = true;
                    components.push(v);
                }
            }
        }
        let (lo, hi) = mesh.bounds();
        Ok(Solid {
            vertices: mesh.positions.len(),
            triangles: mesh.triangles.len(),
            components,
            lo,
            hi,
        })
    }

    /// One vertex index per connected component, in order of first use by a triangle.
    pub fn components(&self) -> &[u32] {
        &self.components
    }

    /// Panics unless `mesh` has the counts of the mesh this solid was built from.
    fn check(&self, mesh: &Mesh) {
        assert!(
            mesh.positions.len() == self.vertices && mesh.triangles.len() == self.triangles,
            "Solid used with another mesh ({} vertices and {} triangles, built from {} and {})",
            mesh.positions.len(),
            mesh.triangles.len(),
            self.vertices,
            self.triangles
        );
    }

    /// Whether `p` lies inside the solid `mesh` (the mesh this solid was built from, as
    /// written): `Some(true)` inside, `Some(false)` outside, `None` exactly on the surface
    /// (on some closed triangle, degenerate ones included). Exact; see the module docs.
    pub fn contains(&self, mesh: &Mesh, p: P3) -> Option<bool> {
        self.contains_tries(mesh, p).0
    }

    /// [`Solid::contains`], with the number of rays it cast (0 when `p` is outside the
    /// bounding box; more than 1 when a ray met an edge or a vertex). For the tests.
    #[doc(hidden)]
    pub fn contains_tries(&self, mesh: &Mesh, p: P3) -> (Option<bool>, u64) {
        self.check(mesh);
        locate(
            &mesh.triangles,
            |v| mesh.positions[v as usize],
            (self.lo, self.hi),
            p,
        )
    }

    /// Whether `p` (in A's frame) lies inside the solid `mesh` moved by `pose`: every vertex
    /// posed by [`Pose::apply`], the f64 coordinates the collision query decides on; then
    /// as [`Solid::contains`]. (Moving `p` by the inverse pose instead would round it.)
    pub fn contains_posed(&self, mesh: &Mesh, pose: &Pose, p: P3) -> Option<bool> {
        self.check(mesh);
        let bounds = posed_bounds(mesh, pose);
        locate(
            &mesh.triangles,
            |v| pose.apply(mesh.positions[v as usize]),
            bounds,
            p,
        )
        .0
    }
}

/// Bounds of the corners of `mesh`'s triangles posed by `pose`.
fn posed_bounds(mesh: &Mesh, pose: &Pose) -> (P3, P3) {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for t in &mesh.triangles {
        for &v in t {
            let p = pose.apply(mesh.positions[v as usize]);
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
    }
    (lo, hi)
}

/// Both containment answers of `pose` for the solids `a` (of `a_mesh`, as written) and `b`
/// (of `b_mesh`, moved by `pose` with [`Pose::apply`], as the collision query moves it).
///
/// **Only meaningful where the surfaces do not meet** (the pose has no triangle pairs):
/// then every connected component of the posed B is a connected set off A's surface, on
/// which A's parity is constant (module docs), so one vertex decides the whole component;
/// likewise one vertex of each component of A, tested against the posed B (A's vertex as
/// written: posing A by the inverse pose would round it). `b_in_a`: some component of B
/// lies inside A; `a_in_b`: some component of A lies inside B. Both can hold for meshes of
/// several components (a small part of each inside a big part of the other). A vertex
/// exactly on the other surface means the surfaces meet, which the caller excludes; such a
/// vertex counts as not inside.
pub fn containment(a: &Solid, a_mesh: &Mesh, b: &Solid, b_mesh: &Mesh, pose: &Pose) -> Containment {
    Containment {
        b_in_a: b_in_a(a, a_mesh, b, b_mesh, pose),
        a_in_b: a_in_b(a, a_mesh, b, b_mesh, pose),
    }
}

fn b_in_a(a: &Solid, a_mesh: &Mesh, b: &Solid, b_mesh: &Mesh, pose: &Pose) -> bool {
    b.check(b_mesh);
    b.components.iter().any(|&v| {
        let p = pose.apply(b_mesh.positions[v as usize]);
        a.contains(a_mesh, p) == Some(true)
    })
}

fn a_in_b(a: &Solid, a_mesh: &Mesh, b: &Solid, b_mesh: &Mesh, pose: &Pose) -> bool {
    a.check(a_mesh);
    b.check(b_mesh);
    let bounds = posed_bounds(b_mesh, pose);
    a.components.iter().any(|&v| {
        let p = a_mesh.positions[v as usize];
        let at = |w: u32| pose.apply(b_mesh.positions[w as usize]);
        locate(&b_mesh.triangles, at, bounds, p).0 == Some(true)
    })
}

/// The `inner` of a pose with no surface contact ([`containment`]'s conditions): `Some(B)`
/// when some component of the posed B lies inside A, else `Some(A)` when some component of
/// A lies inside the posed B, else `None`. B is preferred when both hold (meshes of several
/// components; [`containment`] gives both), and A is not tested then.
pub fn inside(a: &Solid, a_mesh: &Mesh, b: &Solid, b_mesh: &Mesh, pose: &Pose) -> Option<Inner> {
    if b_in_a(a, a_mesh, b, b_mesh, pose) {
        Some(Inner::B)
    } else if a_in_b(a, a_mesh, b, b_mesh, pose) {
        Some(Inner::A)
    } else {
        None
    }
}

/// The least power of two at least `m` and at least `2^-200` (`m ≥ 0` finite).
fn power_of_two_above(m: f64) -> f64 {
    let floor = crate::mesh::MIN_COORDINATE;
    if m <= floor {
        return floor;
    }
    let bits = m.to_bits();
    if bits & ((1 << 52) - 1) == 0 {
        m
    } else {
        // m is normal (≥ 2^-200): the next exponent up.
        f64::from_bits(((bits >> 52) + 1) << 52)
    }
}

/// Point `p` against the closed mesh of `tris` with corners `at(v)` and bounds `(lo, hi)`:
/// the answer and the number of rays cast. See the module docs.
fn locate(
    tris: &[[u32; 3]],
    at: impl Fn(u32) -> P3,
    (lo, hi): (P3, P3),
    p: P3,
) -> (Option<bool>, u64) {
    if (0..3).any(|k| p[k] < lo[k] || p[k] > hi[k]) {
        return (Some(false), 0);
    }
    let m = (0..3).fold(0.0f64, |m, k| m.max(lo[k].abs()).max(hi[k].abs()));
    let s = power_of_two_above(m);
    let mut n: u64 = 0;
    loop {
        let (j, k) = (n / TRIES_PER_PLANE, (n % TRIES_PER_PLANE + 1) as f64);
        let q = [(2 + j) as f64 * s, k * s, k * k * s];
        n += 1;
        match cast(tris, &at, p, q) {
            Ray::Parity(odd) => return (Some(odd), n),
            Ray::OnSurface => return (None, n),
            Ray::Degenerate => {}
        }
    }
}

fn o3(a: &P3, b: &P3, c: &P3, d: &P3) -> f64 {
    let c3 = |p: &P3| Coord3D {
        x: p[0],
        y: p[1],
        z: p[2],
    };
    orient3d(c3(a), c3(b), c3(c), c3(d))
}

/// One ray, the segment `p → q` (`q ≥ p` componentwise, `q` outside the bounds).
fn cast(tris: &[[u32; 3]], at: &impl Fn(u32) -> P3, p: P3, q: P3) -> Ray {
    let mut odd = false;
    for t in tris {
        let t = t.map(at);
        if (0..3).any(|k| t[0][k] < p[k] && t[1][k] < p[k] && t[2][k] < p[k]) {
            continue;
        }
        let sp = o3(&t[0], &t[1], &t[2], &p);
        let sq = o3(&t[0], &t[1], &t[2], &q);
        if (sp > 0.0 && sq < 0.0) || (sp < 0.0 && sq > 0.0) {
            let e = [
                o3(&p, &q, &t[0], &t[1]),
                o3(&p, &q, &t[1], &t[2]),
                o3(&p, &q, &t[2], &t[0]),
            ];
            if e.iter().all(|&x| x > 0.0) || e.iter().all(|&x| x < 0.0) {
                odd = !odd;
            } else if e.iter().all(|&x| x >= 0.0) || e.iter().all(|&x| x <= 0.0) {
                return Ray::Degenerate;
            }
        } else if sp == 0.0 && sq == 0.0 {
            if tri_tri_general(&[p, q, q], &t) {
                return if tri_tri_general(&[p, p, p], &t) {
                    Ray::OnSurface
                } else {
                    Ray::Degenerate
                };
            }
        } else if sp == 0.0 && point_triangle(&p, &t) {
            // sq ≠ 0, so t is proper (a collinear t has every orientation 0).
            return Ray::OnSurface;
        }
    }
    Ray::Parity(odd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solid_powers_of_two() {
        assert_eq!(power_of_two_above(0.0), crate::mesh::MIN_COORDINATE);
        assert_eq!(power_of_two_above(1.0), 1.0);
        assert_eq!(power_of_two_above(1.5), 2.0);
        assert_eq!(power_of_two_above(3.0), 4.0);
        assert_eq!(power_of_two_above(1e7), 16777216.0);
        assert_eq!(power_of_two_above(0.3), 0.5);
    }

    #[test]
    fn solid_integer_box_rays_meet_diagonals() {
        // The box [0, 2]³ and its centre: the first ray, towards (4, 2, 2), meets the
        // diagonal of the face x = 2; the second, towards (4, 4, 8), that of z = 2.
        let m = crate::mesh::generate::box_mesh([0.0; 3], [2.0; 3]);
        let s = Solid::new(&m).unwrap();
        assert_eq!(s.contains_tries(&m, [1.0; 3]), (Some(true), 3));
        assert_eq!(s.components(), &[0]);
    }
}
