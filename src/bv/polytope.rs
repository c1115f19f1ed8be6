//! The polytope of a k-DOP: the intersection of its k half-spaces, as faces (polygons),
//! vertices and volume.
//!
//! `002_2561ef21643dcace.txt` 4.1 computes the B-rep by duality (convex hull of the dual
//! points); we clip instead: start from the box of the three coordinate slabs and cut it by
//! each diagonal half-space (Sutherland–Hodgman per face, the cut face closed from the
//! points on the plane). Same result, O(k·V) per k-DOP, and it stays well defined for flat
//! k-DOPs (a planar leaf, a flat grid), where duality degenerates. The vertices feed the
//! approximation method of tumbling (4.1, method 2); the volume feeds the min-sum and
//! min-max splitting rules (3.3.4, footnote 4).
//!
//! Points within a tolerance (1e-12 of the polytope's scale) of a cutting plane count as on
//! it and are kept: errors only ever make the polytope slightly larger, never smaller, and
//! the tumbling margin covers what is left.

use super::axes::axes;
use super::kdop::Kdop;

/// A convex polytope as a list of planar faces, each with its outward normal.
#[derive(Debug, Clone, Default)]
pub struct Polytope {
    pub faces: Vec<Face>,
    tol: f64,
}

#[derive(Debug, Clone)]
pub struct Face {
    /// Outward normal (not normalized: a k-DOP slab direction).
    pub normal: [f64; 3],
    /// Vertices in order around the face.
    pub points: Vec<[f64; 3]>,
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn lerp(a: [f64; 3], b: [f64; 3], t: f64) -> [f64; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

impl Polytope {
    /// The polytope of a k-DOP (empty for the empty k-DOP).
    pub fn of_kdop<const H: usize>(k: &Kdop<H>) -> Polytope {
        let lo: Vec<f64> = k.min.iter().map(|&v| v as f64).collect();
        let hi: Vec<f64> = k.max.iter().map(|&v| v as f64).collect();
        Polytope::from_slabs(axes(H), &lo, &hi)
    }

    /// Intersection of the slabs `lo[i] ≤ axes[i]·p ≤ hi[i]`; `axes[0..3]` must be x, y, z.
    pub fn from_slabs(axes: &[[i8; 3]], lo: &[f64], hi: &[f64]) -> Polytope {
        if (0..axes.len()).any(|i| lo[i].is_nan() || hi[i].is_nan() || lo[i] > hi[i]) {
            return Polytope::default();
        }
        let scale = lo
            .iter()
            .chain(hi.iter())
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(f64::MIN_POSITIVE);
        let mut p = Polytope::aabb([lo[0], lo[1], lo[2]], [hi[0], hi[1], hi[2]]);
        p.tol = 1e-12 * scale;
        for i in 3..axes.len() {
            let n = axes[i].map(f64::from);
            p.clip(n, hi[i]);
            p.clip(n.map(|c| -c), -lo[i]);
            if p.faces.is_empty() {
                break;
            }
        }
        p
    }

    fn aabb(lo: [f64; 3], hi: [f64; 3]) -> Polytope {
        let c = |x: usize, y: usize, z: usize| {
            [
                if x == 1 { hi[0] } else { lo[0] },
                if y == 1 { hi[1] } else { lo[1] },
                if z == 1 { hi[2] } else { lo[2] },
            ]
        };
        let face = |normal: [f64; 3], pts: [[usize; 3]; 4]| Face {
            normal,
            points: pts.iter().map(|q| c(q[0], q[1], q[2])).collect(),
        };
        Polytope {
            faces: vec![
                face(
                    [-1.0, 0.0, 0.0],
                    [[0, 0, 0], [0, 0, 1], [0, 1, 1], [0, 1, 0]],
                ),
                face(
                    [1.0, 0.0, 0.0],
                    [[1, 0, 0], [1, 1, 0], [1, 1, 1], [1, 0, 1]],
                ),
                face(
                    [0.0, -1.0, 0.0],
                    [[0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1]],
                ),
                face(
                    [0.0, 1.0, 0.0],
                    [[0, 1, 0], [0, 1, 1], [1, 1, 1], [1, 1, 0]],
                ),
                face(
                    [0.0, 0.0, -1.0],
                    [[0, 0, 0], [0, 1, 0], [1, 1, 0], [1, 0, 0]],
                ),
                face(
                    [0.0, 0.0, 1.0],
                    [[0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]],
                ),
            ],
            tol: 0.0,
        }
    }

    /// Keeps the part with `n·p ≤ d` (within the tolerance) and closes it with a face on
    /// the plane.
    fn clip(&mut self, n: [f64; 3], d: f64) {
        let tol = self.tol * dot(n, n).sqrt();
        let mut cap: Vec<[f64; 3]> = Vec::new();
        let mut faces = Vec::with_capacity(self.faces.len() + 1);
        for f in self.faces.drain(..) {
            let m = f.points.len();
            let mut out = Vec::with_capacity(m + 2);
            for j in 0..m {
                let (a, b) = (f.points[j], f.points[(j + 1) % m]);
                let (da, db) = (dot(n, a) - d, dot(n, b) - d);
                let (ina, inb) = (da <= tol, db <= tol);
                if ina {
                    out.push(a);
                    if da.abs() <= tol {
                        cap.push(a);
                    }
                }
                if ina != inb {
                    let t = (da / (da - db)).clamp(0.0, 1.0);
                    let x = lerp(a, b, t);
                    out.push(x);
                    cap.push(x);
                }
            }
            if !out.is_empty() {
                faces.push(Face {
                    normal: f.normal,
                    points: out,
                });
            }
        }
        if !cap.is_empty() && !faces.is_empty() {
            faces.push(Face {
                normal: n,
                points: order_around(dedup(cap, tol), n),
            });
        }
        self.faces = faces;
    }

    /// The distinct vertices (points closer than the tolerance are merged).
    pub fn vertices(&self) -> Vec<[f64; 3]> {
        dedup(
            self.faces
                .iter()
                .flat_map(|f| f.points.iter().copied())
                .collect(),
            self.tol,
        )
    }

    /// Volume by the divergence theorem: Σ_faces (n̂·p)·area / 3.
    pub fn volume(&self) -> f64 {
        let mut v = 0.0;
        for f in &self.faces {
            if f.points.len() < 3 {
                continue;
            }
            let p0 = f.points[0];
            let mut area2 = [0.0; 3];
            for j in 1..f.points.len() - 1 {
                let c = cross(sub(f.points[j], p0), sub(f.points[j + 1], p0));
                area2 = [area2[0] + c[0], area2[1] + c[1], area2[2] + c[2]];
            }
            let nn = dot(f.normal, f.normal).sqrt();
            let area = dot(area2, area2).sqrt() * 0.5;
            v += dot(f.normal, p0) / nn * area / 3.0;
        }
        v.max(0.0)
    }
}

fn dedup(mut pts: Vec<[f64; 3]>, tol: f64) -> Vec<[f64; 3]> {
    let mut out: Vec<[f64; 3]> = Vec::with_capacity(pts.len());
    for p in pts.drain(..) {
        if !out
            .iter()
            .any(|q| (0..3).all(|k| (p[k] - q[k]).abs() <= tol))
        {
            out.push(p);
        }
    }
    out
}

/// Sorts coplanar points by angle around their centroid, seen along `n`.
fn order_around(mut pts: Vec<[f64; 3]>, n: [f64; 3]) -> Vec<[f64; 3]> {
    if pts.len() < 3 {
        return pts;
    }
    let k = pts.len() as f64;
    let c = pts.iter().fold([0.0; 3], |s, p| {
        [s[0] + p[0] / k, s[1] + p[1] / k, s[2] + p[2] / k]
    });
    let helper = if n[0].abs() < 0.5 * dot(n, n).sqrt() {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let u = cross(n, helper);
    let v = cross(n, u);
    pts.sort_by(|a, b| {
        let (da, db) = (sub(*a, c), sub(*b, c));
        let aa = dot(da, v).atan2(dot(da, u));
        let ab = dot(db, v).atan2(dot(db, u));
        aa.total_cmp(&ab)
    });
    pts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random_points(rng: &mut Rng, n: usize) -> Vec<[f64; 3]> {
        (0..n)
            .map(|_| {
                [
                    rng.range(-1.0, 1.0),
                    rng.range(-2.0, 0.5),
                    rng.range(0.0, 3.0),
                ]
            })
            .collect()
    }

    /// The polytope of exact f64 extents: every vertex satisfies every slab, and every slab
    /// is attained by some vertex (the k-DOP of the vertices is the k-DOP itself).
    fn check_vertices<const H: usize>(pts: &[[f64; 3]]) {
        let (lo, hi) = Kdop::<H>::extents_f64(pts.iter().copied());
        let verts = Polytope::from_slabs(axes(H), &lo, &hi).vertices();
        let scale = lo.iter().chain(&hi).fold(1.0f64, |m, v| m.max(v.abs()));
        let tol = 1e-9 * scale;
        let (vlo, vhi) = Kdop::<H>::extents_f64(verts.iter().copied());
        for i in 0..H {
            assert!(
                vlo[i] >= lo[i] - tol && vhi[i] <= hi[i] + tol,
                "slab {i} violated"
            );
            assert!(
                (vlo[i] - lo[i]).abs() < tol,
                "slab {i} min not attained (H={H})"
            );
            assert!(
                (vhi[i] - hi[i]).abs() < tol,
                "slab {i} max not attained (H={H})"
            );
        }
    }

    #[test]
    fn vertices_are_tight_for_random_sets() {
        let mut rng = Rng::new(7);
        for n in [1, 2, 3, 4, 10, 100] {
            for _ in 0..20 {
                let pts = random_points(&mut rng, n);
                check_vertices::<3>(&pts);
                check_vertices::<7>(&pts);
                check_vertices::<9>(&pts);
                check_vertices::<13>(&pts);
            }
        }
    }

    #[test]
    fn flat_kdops_keep_their_vertices() {
        // A planar point set: the polytope is a polygon.
        let pts = [
            [0.0, 0.0, 1.0],
            [2.0, 0.5, 1.0],
            [0.3, 1.7, 1.0],
            [1.0, 1.0, 1.0],
        ];
        check_vertices::<13>(&pts);
        check_vertices::<9>(&pts);
        let (lo, hi) = Kdop::<13>::extents_f64(pts);
        assert!(Polytope::from_slabs(axes(13), &lo, &hi).volume() < 1e-12);
        // Rounded outward to f32 it is a thin slab, not empty.
        assert!(Kdop::<13>::from_points(pts).volume() < 1e-5);
    }

    #[test]
    fn volume_of_box_and_ordering_by_k() {
        let b = Kdop::<3>::from_points([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]);
        assert!((b.volume() - 6.0).abs() < 1e-5);
        // The 14-DOP of a cube's corners is the cube; of a tetrahedron it cuts corners.
        let tet = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ];
        let v14 = Kdop::<7>::from_points(tet).volume();
        assert!((v14 - 1.0 / 6.0).abs() < 1e-5, "{v14}");
        let mut rng = Rng::new(3);
        for _ in 0..50 {
            let pts = random_points(&mut rng, 30);
            let v6 = Kdop::<3>::from_points(pts.iter().copied()).volume();
            let v14 = Kdop::<7>::from_points(pts.iter().copied()).volume();
            let v18 = Kdop::<9>::from_points(pts.iter().copied()).volume();
            let v26 = Kdop::<13>::from_points(pts.iter().copied()).volume();
            let eps = 1e-6 * v6;
            assert!(v26 <= v18 + eps && v26 <= v14 + eps && v18 <= v6 + eps && v14 <= v6 + eps);
        }
    }
}
