//! The original clipper (heap `Vec`s, atan2-ordered cap faces, O(n²) merging), retired
//! from production and kept as the oracle the fixed-capacity clipper is checked against.

use crate::bv::axes::axes;
use crate::bv::kdop::Kdop;
use crate::geom::{add, cross, dot, lerp, sub};

/// A convex polytope as a list of planar faces, each with its outward normal.
#[derive(Debug, Clone, Default)]
pub struct OldPolytope {
    pub faces: Vec<OldFace>,
    tol: f64,
}

#[derive(Debug, Clone)]
pub struct OldFace {
    /// Outward normal (not normalized: a k-DOP slab direction).
    pub normal: [f64; 3],
    /// Vertices in order around the face.
    pub points: Vec<[f64; 3]>,
}

impl OldPolytope {
    /// The polytope of a k-DOP (empty for the empty k-DOP).
    pub fn of_kdop<const H: usize>(k: &Kdop<H>) -> OldPolytope {
        let lo: Vec<f64> = k.min.iter().map(|&v| v as f64).collect();
        let hi: Vec<f64> = k.max.iter().map(|&v| v as f64).collect();
        OldPolytope::from_slabs(axes(H), &lo, &hi)
    }

    /// Intersection of the slabs `lo[i] ≤ axes[i]·p ≤ hi[i]`; `axes[0..3]` must be x, y, z.
    pub fn from_slabs(axes: &[[i8; 3]], lo: &[f64], hi: &[f64]) -> OldPolytope {
        if (0..axes.len()).any(|i| lo[i].is_nan() || hi[i].is_nan() || lo[i] > hi[i]) {
            return OldPolytope::default();
        }
        let scale = lo
            .iter()
            .chain(hi.iter())
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(f64::MIN_POSITIVE);
        let mut p = OldPolytope::aabb([lo[0], lo[1], lo[2]], [hi[0], hi[1], hi[2]]);
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

    fn aabb(lo: [f64; 3], hi: [f64; 3]) -> OldPolytope {
        let c = |x: usize, y: usize, z: usize| {
            [
                if x == 1 { hi[0] } else { lo[0] },
                if y == 1 { hi[1] } else { lo[1] },
                if z == 1 { hi[2] } else { lo[2] },
            ]
        };
        let face = |normal: [f64; 3], pts: [[usize; 3]; 4]| OldFace {
            normal,
            points: pts.iter().map(|q| c(q[0], q[1], q[2])).collect(),
        };
        OldPolytope {
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
                faces.push(OldFace {
                    normal: f.normal,
                    points: out,
                });
            }
        }
        if !cap.is_empty() && !faces.is_empty() {
            faces.push(OldFace {
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
                area2 = add(area2, c);
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
