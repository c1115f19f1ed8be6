//! Choice of split axis and split point (Klosowski et al., *Efficient Collision Detection
//! Using Bounding Volume Hierarchies of k-DOPs*, 1998, section 3.3.4).

use crate::bv::Kdop;

/// Rule choosing the axis (x, y or z) orthogonal to the split plane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitRule {
    /// The axis along which the node's k-DOP is longest.
    LongestSide,
    /// The axis minimizing the sum of the children's volumes.
    MinSum,
    /// The axis minimizing the larger of the children's volumes.
    MinMax,
    /// The axis with the largest variance of the triangle centroids.
    Splatter,
}

option_names! {
    SplitRule, kind "split rule", all ALL {
        LongestSide => "longest",
        MinSum => "minsum",
        MinMax => "minmax",
        Splatter => "splatter",
    }
}

/// Where along the chosen axis the plane goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitPoint {
    /// The mean of the centroid coordinates; a triangle whose centroid lies on the plane
    /// goes to the upper side. If every centroid falls on one side the median is used.
    Mean,
    /// The median: the lower half (by centroid coordinate, ties by triangle index) goes left.
    Median,
}

option_names! {
    SplitPoint, kind "split point", all ALL {
        Mean => "mean",
        Median => "median",
    }
}

/// A triangle during construction: its centroid (in f64, the coordinates every rule
/// compares) beside its index in the mesh.
#[derive(Debug, Clone, Copy)]
pub(super) struct Item {
    pub c: [f64; 3],
    pub t: u32,
}

/// Per-build state for splitting: triangle k-DOPs, plus scratch space.
pub(super) struct SplitContext<'a, const H: usize> {
    tri_bv: &'a [Kdop<H>],
    rule: SplitRule,
    scratch: Vec<Item>,
}

impl<'a, const H: usize> SplitContext<'a, H> {
    pub fn new(tri_bv: &'a [Kdop<H>], rule: SplitRule) -> Self {
        SplitContext {
            tri_bv,
            rule,
            scratch: Vec::new(),
        }
    }

    /// Reorders `range` (≥ 2 triangles) into a left and a right part and returns the size
    /// of the left part, always in `1..range.len()`.
    pub fn split(&mut self, range: &mut [Item], point: SplitPoint) -> usize {
        let axis = match self.rule {
            SplitRule::LongestSide => {
                // The node's k-DOP along x, y, z (its first three slabs) is the box of its
                // triangles' k-DOPs.
                let bv = self.bound(range);
                (0..3)
                    .max_by(|&a, &b| bv.extent(a).total_cmp(&bv.extent(b)))
                    .unwrap_or(0)
            }
            SplitRule::Splatter => {
                // The variance pass already summed the centroids: reuse the sum as the mean.
                let (axis, sum) = splatter_axis(range);
                return partition_at(range, axis, point, sum / range.len() as f64);
            }
            SplitRule::MinSum | SplitRule::MinMax => self.volume_axis(range, point),
        };
        partition(range, axis, point)
    }

    fn bound(&self, part: &[Item]) -> Kdop<H> {
        part.iter().fold(Kdop::EMPTY, |acc, it| {
            acc.merge(&self.tri_bv[it.t as usize])
        })
    }

    /// Min sum / min max: volumes of the two children for each axis, computed on a scratch
    /// copy so `range` is only reordered once, by the chosen axis.
    fn volume_axis(&mut self, range: &[Item], point: SplitPoint) -> usize {
        let mut best = (f64::INFINITY, 0);
        let mut scratch = std::mem::take(&mut self.scratch);
        for axis in 0..3 {
            scratch.clear();
            scratch.extend_from_slice(range);
            let mid = partition(&mut scratch, axis, point);
            let (vl, vr) = (
                self.bound(&scratch[..mid]).volume(),
                self.bound(&scratch[mid..]).volume(),
            );
            let cost = match self.rule {
                SplitRule::MinMax => vl.max(vr),
                _ => vl + vr,
            };
            if cost < best.0 {
                best = (cost, axis);
            }
        }
        self.scratch = scratch;
        best.1
    }
}

/// The axis of largest centroid variance (ties: the lower axis), and the sum of the
/// centroid coordinates along it.
fn splatter_axis(range: &[Item]) -> (usize, f64) {
    let n = range.len() as f64;
    let mut sum = [0.0f64; 3];
    let mut sq = [0.0f64; 3];
    for it in range {
        for k in 0..3 {
            sum[k] += it.c[k];
            sq[k] += it.c[k] * it.c[k];
        }
    }
    let var = [0, 1, 2].map(|k| sq[k] / n - (sum[k] / n) * (sum[k] / n));
    let axis = (0..3).fold(0, |best, k| if var[k] > var[best] { k } else { best });
    (axis, sum[axis])
}

fn partition(range: &mut [Item], axis: usize, point: SplitPoint) -> usize {
    let mean = match point {
        SplitPoint::Mean => range.iter().map(|it| it.c[axis]).sum::<f64>() / range.len() as f64,
        SplitPoint::Median => f64::NAN,
    };
    partition_at(range, axis, point, mean)
}

/// Centroids below `mean` go left (for [`SplitPoint::Mean`]); the median if that leaves a
/// side empty, or for [`SplitPoint::Median`].
fn partition_at(range: &mut [Item], axis: usize, point: SplitPoint, mean: f64) -> usize {
    if point == SplitPoint::Mean {
        // Branch-free: [left, i) holds only upper items, so the unconditional swap keeps
        // the partition whatever the comparison says.
        let mut left = 0;
        for i in 0..range.len() {
            let below = range[i].c[axis] < mean;
            range.swap(i, left);
            left += below as usize;
        }
        if left > 0 && left < range.len() {
            return left;
        }
    }
    let mid = range.len() / 2;
    range.select_nth_unstable_by(mid, |a, b| {
        a.c[axis].total_cmp(&b.c[axis]).then(a.t.cmp(&b.t))
    });
    mid
}
