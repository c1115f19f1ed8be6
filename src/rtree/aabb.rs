//! Axis-aligned boxes in f64 and the paper's "cover bounding volume update" (the box of a
//! box's eight corners after a rigid map), rounded outward so no contact is lost.

use crate::Pose;

/// A closed axis-aligned box `lo..=hi`; empty when some `lo[k] > hi[k]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    pub lo: [f64; 3],
    pub hi: [f64; 3],
}

impl Aabb {
    /// The box of f32 points, exact (f32 → f64 widening is exact).
    pub fn of_f32(lo: [f32; 3], hi: [f32; 3]) -> Aabb {
        Aabb {
            lo: lo.map(f64::from),
            hi: hi.map(f64::from),
        }
    }

    /// The optimal box of a triangle (paper, Figure 3 line 3): exact min and max.
    #[inline]
    pub fn of_triangle(t: &[[f64; 3]; 3]) -> Aabb {
        let mut b = Aabb { lo: t[0], hi: t[0] };
        for p in &t[1..] {
            for (k, &x) in p.iter().enumerate() {
                b.lo[k] = b.lo[k].min(x);
                b.hi[k] = b.hi[k].max(x);
            }
        }
        b
    }

    /// Whether the closed boxes share a point (touching counts).
    #[inline]
    pub fn overlaps(&self, o: &Aabb) -> bool {
        (0..3).all(|k| self.lo[k] <= o.hi[k] && o.lo[k] <= self.hi[k])
    }

    /// Whether the box holds a point (`lo ≤ hi` on every axis).
    #[inline]
    pub fn is_empty(&self) -> bool {
        (0..3).any(|k| self.lo[k] > self.hi[k])
    }

    /// The common part of two boxes (the paper's OAABB); empty when they are disjoint.
    #[inline]
    pub fn intersect(&self, o: &Aabb) -> Aabb {
        Aabb {
            lo: [0, 1, 2].map(|k| self.lo[k].max(o.lo[k])),
            hi: [0, 1, 2].map(|k| self.hi[k].min(o.hi[k])),
        }
    }

    /// The box grown by `d` on every side.
    pub fn widen(&self, d: f64) -> Aabb {
        Aabb {
            lo: self.lo.map(|x| x - d),
            hi: self.hi.map(|x| x + d),
        }
    }

    /// The largest coordinate magnitude (scale of the rounding errors).
    pub fn magnitude(&self) -> f64 {
        self.lo
            .iter()
            .chain(&self.hi)
            .fold(0.0_f64, |m, x| m.max(x.abs()))
    }

    /// The cover box of the eight corners mapped by `f`, grown by `margin`.
    pub fn cover(&self, margin: f64, f: impl Fn([f64; 3]) -> [f64; 3]) -> Aabb {
        let mut out = Aabb {
            lo: [f64::INFINITY; 3],
            hi: [f64::NEG_INFINITY; 3],
        };
        for c in 0..8 {
            let p = f([0, 1, 2].map(|k| {
                if c >> k & 1 == 0 {
                    self.lo[k]
                } else {
                    self.hi[k]
                }
            }));
            for (k, &x) in p.iter().enumerate() {
                out.lo[k] = out.lo[k].min(x);
                out.hi[k] = out.hi[k].max(x);
            }
        }
        out.widen(margin)
    }
}

/// B's frame from A's: `R^T (x − t)`, the inverse of [`Pose::apply_f64`] when `R` is a
/// rotation.
#[inline]
pub fn inverse_apply(pose: &Pose, x: [f64; 3]) -> [f64; 3] {
    pose.rotate_inverse([0, 1, 2].map(|k| x[k] - pose.t[k]))
}

/// Whether `R·Rᵀ` is the identity within 1e-12 per entry, so that `Rᵀ` is `R`'s inverse
/// to well within [`margin`]. Poses from [`Pose::new`] always are; a hand-built `Pose` with
/// another matrix makes the query skip the filter in B's frame (still exact, only slower).
pub fn is_rotation(pose: &Pose) -> bool {
    let r = &pose.r;
    (0..3).all(|i| {
        (0..3).all(|j| {
            let d: f64 = (0..3).map(|k| r[i][k] * r[j][k]).sum();
            (d - if i == j { 1.0 } else { 0.0 }).abs() <= 1e-12
        })
    })
}

/// The outward margin of every cover update: `1e-9 · S`, with `S` the largest coordinate
/// magnitude of the two root boxes and the translation.
///
/// Why it suffices: the contacts are decided on B's corners as [`Pose::apply`] rounds them;
/// the f64 error of that map, of the inverse map above and of `Rᵀ` standing for `R⁻¹`
/// (≤ 1e-12, [`is_rotation`]) are each below `1e-11 · S` for points of either box, so a
/// point of a contact seen from the other frame stays within the widened covers.
pub fn margin(ra: &Aabb, rb: &Aabb, pose: &Pose) -> f64 {
    let s = ra
        .magnitude()
        .max(rb.magnitude())
        .max(pose.t.iter().fold(0.0_f64, |m, x| m.max(x.abs())));
    1e-9 * s + f64::MIN_POSITIVE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_closed_and_intersection_is_common_part() {
        let a = Aabb {
            lo: [0.0; 3],
            hi: [1.0; 3],
        };
        let b = Aabb {
            lo: [1.0, 0.5, 0.5],
            hi: [2.0; 3],
        };
        assert!(a.overlaps(&b));
        let c = a.intersect(&b);
        assert_eq!(c.lo, [1.0, 0.5, 0.5]);
        assert_eq!(c.hi, [1.0; 3]);
        assert!(!c.is_empty());
        let far = Aabb {
            lo: [1.5; 3],
            hi: [2.0; 3],
        };
        assert!(!a.overlaps(&far));
        assert!(a.intersect(&far).is_empty());
    }

    #[test]
    fn cover_holds_every_mapped_point() {
        let mut rng = crate::rng::Rng::new(7);
        for _ in 0..200 {
            let pose = Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-3.0, 3.0)));
            assert!(is_rotation(&pose));
            let b = Aabb {
                lo: [0; 3].map(|_| rng.range(-2.0, 0.0)),
                hi: [0; 3].map(|_| rng.range(0.0, 2.0)),
            };
            let c = b.cover(0.0, |p| pose.apply_f64(p));
            let back = c.cover(margin(&b, &c, &pose), |p| inverse_apply(&pose, p));
            for _ in 0..50 {
                let p = [0, 1, 2].map(|k| rng.range(b.lo[k], b.hi[k]));
                let q = pose.apply_f64(p);
                assert!(c.widen(1e-12).overlaps(&Aabb { lo: q, hi: q }));
                assert!(back.overlaps(&Aabb { lo: p, hi: p }));
            }
        }
    }
}
