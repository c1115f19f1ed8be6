//! The one axis-aligned box of the crate, closed, in f64: Zachmann's restricted boxtree
//! (*Minimal Hierarchical Collision Detection*, 2002, section 3.1) derives its nodes' boxes
//! from it ([`crate::boxtree`] adds `child`), and Figueiredo's R-tree (*An R-Tree Collision
//! Detection Algorithm for Polygonal Models*, 2009) stores it per node and covers it after
//! a rigid map ([`Aabb::cover`]; [`crate::rtree`] adds the rounded local triangle boxes).
//! [`Aabb::contains_real`] lives beside `real_within` in [`crate::frame`].

/// A closed axis-aligned box `lo..=hi`; empty when some `lo[k] > hi[k]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub lo: [f64; 3],
    /// Upper corner.
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

    /// The optimal box of a triangle (Figueiredo 2009, Figure 3 line 3): exact min and max.
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

    /// Whether the f64 point lies inside (closed).
    pub fn contains_point(&self, p: [f64; 3]) -> bool {
        (0..3).all(|k| self.lo[k] <= p[k] && p[k] <= self.hi[k])
    }

    /// Whether `o` lies inside `self`.
    pub fn contains(&self, o: &Aabb) -> bool {
        (0..3).all(|k| self.lo[k] <= o.lo[k] && o.hi[k] <= self.hi[k])
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
