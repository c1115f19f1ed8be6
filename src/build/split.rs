//! Choice of split axis and split point (`002_2561ef21643dcace.txt`, 3.3.4).

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

impl SplitRule {
    pub const ALL: [SplitRule; 4] = [
        SplitRule::LongestSide,
        SplitRule::MinSum,
        SplitRule::MinMax,
        SplitRule::Splatter,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            SplitRule::LongestSide => "longest",
            SplitRule::MinSum => "minsum",
            SplitRule::MinMax => "minmax",
            SplitRule::Splatter => "splatter",
        }
    }

    pub fn parse(s: &str) -> Option<SplitRule> {
        SplitRule::ALL.into_iter().find(|r| r.name() == s)
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

impl SplitPoint {
    pub fn name(self) -> &'static str {
        match self {
            SplitPoint::Mean => "mean",
            SplitPoint::Median => "median",
        }
    }

    pub fn parse(s: &str) -> Option<SplitPoint> {
        [SplitPoint::Mean, SplitPoint::Median]
            .into_iter()
            .find(|p| p.name() == s)
    }
}

/// Per-build state for splitting: centroids and triangle k-DOPs, plus scratch space.
pub(super) struct SplitContext<'a, const H: usize> {
    centroids: &'a [[f64; 3]],
    tri_bv: &'a [Kdop<H>],
    rule: SplitRule,
    scratch: Vec<u32>,
}

impl<'a, const H: usize> SplitContext<'a, H> {
    pub fn new(centroids: &'a [[f64; 3]], tri_bv: &'a [Kdop<H>], rule: SplitRule) -> Self {
        SplitContext {
            centroids,
            tri_bv,
            rule,
            scratch: Vec::new(),
        }
    }

    /// Reorders `range` (≥ 2 triangles) into a left and a right part and returns the size
    /// of the left part, always in `1..range.len()`.
    pub fn split(&mut self, range: &mut [u32], bv: &Kdop<H>, point: SplitPoint) -> usize {
        let axis = match self.rule {
            SplitRule::LongestSide => (0..3)
                .max_by(|&a, &b| bv.extent(a).total_cmp(&bv.extent(b)))
                .unwrap_or(0),
            SplitRule::Splatter => self.splatter_axis(range),
            SplitRule::MinSum | SplitRule::MinMax => self.volume_axis(range, point),
        };
        self.partition(range, axis, point)
    }

    /// The axis of largest centroid variance (ties: the lower axis).
    fn splatter_axis(&self, range: &[u32]) -> usize {
        let n = range.len() as f64;
        let mut sum = [0.0f64; 3];
        let mut sq = [0.0f64; 3];
        for &t in range {
            let c = self.centroids[t as usize];
            for k in 0..3 {
                sum[k] += c[k];
                sq[k] += c[k] * c[k];
            }
        }
        let var = [0, 1, 2].map(|k| sq[k] / n - (sum[k] / n) * (sum[k] / n));
        (0..3).fold(0, |best, k| if var[k] > var[best] { k } else { best })
    }

    /// Min sum / min max: volumes of the two children for each axis, computed on a scratch
    /// copy so `range` is only reordered once, by the chosen axis.
    fn volume_axis(&mut self, range: &[u32], point: SplitPoint) -> usize {
        let mut best = (f64::INFINITY, 0);
        let mut scratch = std::mem::take(&mut self.scratch);
        for axis in 0..3 {
            scratch.clear();
            scratch.extend_from_slice(range);
            let mid = self.partition(&mut scratch, axis, point);
            let bound = |part: &[u32]| {
                part.iter()
                    .fold(Kdop::<H>::EMPTY, |acc, &t| {
                        acc.merge(&self.tri_bv[t as usize])
                    })
                    .volume()
            };
            let (vl, vr) = (bound(&scratch[..mid]), bound(&scratch[mid..]));
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

    fn partition(&self, range: &mut [u32], axis: usize, point: SplitPoint) -> usize {
        let c = self.centroids;
        if point == SplitPoint::Mean {
            let mean = range.iter().map(|&t| c[t as usize][axis]).sum::<f64>() / range.len() as f64;
            let mut left = 0;
            for i in 0..range.len() {
                if c[range[i] as usize][axis] < mean {
                    range.swap(i, left);
                    left += 1;
                }
            }
            if left > 0 && left < range.len() {
                return left;
            }
        }
        let mid = range.len() / 2;
        range.select_nth_unstable_by(mid, |&a, &b| {
            c[a as usize][axis]
                .total_cmp(&c[b as usize][axis])
                .then(a.cmp(&b))
        });
        mid
    }
}
