//! Every node's bounding points include its corners or its polytope's vertices (the proof is
//! in the parent module's docs).

use super::{Violation, first_failure};
use crate::bv::polytope::kdop_vertices;
use crate::bvh::Bvh;
use crate::saved::invariants as inv;
use crate::tumble::{BoundingPoints, SMALL_SUBTREE};
use rayon::prelude::*;

/// Checks the bounding points of a tree that passed `tree` (its node `ranges`) and
/// `volumes`: the layout ([`inv::POINT_OFFSETS`], [`inv::FINITE_POINTS`]) and that each
/// node's points include its corners or its polytope's vertices ([`inv::POINTS_BOUND_NODE`];
/// the proof is in the module docs).
pub(in crate::saved) fn points<const H: usize>(
    bvh: &Bvh<H>,
    ranges: &[(u32, u32)],
    bp: &BoundingPoints,
) -> Result<(), Violation> {
    let (offsets, points) = (&bp.offsets, &bp.points);
    let n = bvh.nodes.len();
    if offsets.len() != n + 1 || offsets[0] != 0 {
        return Err(Violation::global(
            inv::POINT_OFFSETS,
            format!(
                "{} offsets for {n} nodes, the first {:?}",
                offsets.len(),
                offsets.first()
            ),
        ));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return Err(Violation::at(
            inv::POINT_OFFSETS,
            i,
            format!(
                "its points start at {} and end at {}",
                offsets[i],
                offsets[i + 1]
            ),
        ));
    }
    if offsets[n] as usize != points.len() {
        return Err(Violation::global(
            inv::POINT_OFFSETS,
            format!(
                "the offsets end at {}, the file has {} points",
                offsets[n],
                points.len()
            ),
        ));
    }
    if let Some(j) = points.iter().position(|p| p.iter().any(|c| !c.is_finite())) {
        let i = offsets.partition_point(|&o| o as usize <= j) - 1;
        return Err(Violation::at(
            inv::FINITE_POINTS,
            i,
            format!("bounding point {j} is {:?}", points[j]),
        ));
    }
    // Corner sets first, bottom up: cheap, and all a file as the build writes it needs below
    // `SMALL_SUBTREE` triangles. Then the polytope of every node not so covered.
    let q = |i: usize| &points[offsets[i] as usize..offsets[i + 1] as usize];
    let small = |i: usize| (ranges[i].1 - ranges[i].0) as usize <= SMALL_SUBTREE;
    let nodes = &bvh.nodes;
    let local_cover: Vec<bool> = (0..n)
        .into_par_iter()
        .with_min_len(1024)
        .map(|i| {
            let node = &nodes[i];
            if !small(i) {
                return false;
            }
            let Some(set) = Lookup::of(q(i)) else {
                return false; // left to `node_points`
            };
            if node.is_leaf() {
                (node.first..node.first + node.count)
                    .all(|p| bvh.tris.corners_f32(p as usize).iter().all(|&c| set.has(c)))
            } else {
                let c = node.first as usize;
                set.includes(q(c)) && set.includes(q(c + 1))
            }
        })
        .collect();
    // Children after parents: a reverse sweep sees children first.
    let mut covered = local_cover;
    for i in (0..n).rev() {
        if covered[i] && !nodes[i].is_leaf() {
            let c = nodes[i].first as usize;
            covered[i] = covered[c] && covered[c + 1];
        }
    }
    let checked = (0..n).into_par_iter().map_init(
        || (Vec::new(), Vec::new()),
        |(scratch, poly), i| {
            if covered[i] {
                return Ok(());
            }
            node_points(bvh, i, ranges[i], q(i), scratch, poly)
        },
    );
    first_failure(checked)
}

/// The bits of an f32 point (the build writes its points bit for bit).
fn bits(p: [f32; 3]) -> [u32; 3] {
    p.map(f32::to_bits)
}

/// A node's points, for membership by bits without copying them: a scan of a few points
/// (a one-triangle node's are its corners in order), or a search of points sorted by bits
/// (the build sorts its corner sets).
enum Lookup<'a> {
    Few(&'a [[f32; 3]]),
    Sorted(&'a [[f32; 3]]),
}

impl<'a> Lookup<'a> {
    /// At most this many points are scanned rather than searched.
    const FEW: usize = 8;

    /// `None` for many points out of order (`node_points` sorts a copy).
    fn of(q: &'a [[f32; 3]]) -> Option<Lookup<'a>> {
        if q.len() <= Self::FEW {
            Some(Lookup::Few(q))
        } else {
            is_sorted(q).then_some(Lookup::Sorted(q))
        }
    }

    fn has(&self, p: [f32; 3]) -> bool {
        let b = bits(p);
        match self {
            Lookup::Few(q) => q.iter().any(|&x| bits(x) == b),
            Lookup::Sorted(q) => q.binary_search_by(|&x| bits(x).cmp(&b)).is_ok(),
        }
    }

    /// Whether every point of `inner` is in the set: one merge walk where both are sorted
    /// (a child's corner set as the build writes it), else a lookup per point.
    fn includes(&self, inner: &[[f32; 3]]) -> bool {
        let Lookup::Sorted(outer) = self else {
            return inner.iter().all(|&p| self.has(p));
        };
        if !is_sorted(inner) {
            return inner.iter().all(|&p| self.has(p));
        }
        let mut j = 0;
        inner.iter().all(|&p| {
            let b = bits(p);
            while j < outer.len() && bits(outer[j]) < b {
                j += 1;
            }
            j < outer.len() && bits(outer[j]) == b
        })
    }
}

/// Whether `q` is sorted by bits.
fn is_sorted(q: &[[f32; 3]]) -> bool {
    q.is_sorted_by_key(|&p| bits(p))
}

/// [`inv::POINTS_BOUND_NODE`] for node `i` (triangle positions `range`, points `q`) where
/// the bottom-up corner cover did not settle it: every corner of its triangles among its
/// points (small subtrees), else every vertex of its volume's polytope. `scratch` and
/// `poly` are scratch buffers.
fn node_points<const H: usize>(
    bvh: &Bvh<H>,
    i: usize,
    (start, end): (u32, u32),
    q: &[[f32; 3]],
    scratch: &mut Vec<[f32; 3]>,
    poly: &mut Vec<[f64; 3]>,
) -> Result<(), Violation> {
    let set = match Lookup::of(q) {
        Some(set) => set,
        None => {
            scratch.clear();
            scratch.extend_from_slice(q);
            scratch.sort_unstable_by_key(|&p| bits(p));
            Lookup::Sorted(scratch)
        }
    };
    let own = start as usize..end as usize;
    let mut missing_corner = None;
    if own.len() <= SMALL_SUBTREE {
        missing_corner = own
            .clone()
            .flat_map(|p| bvh.tris.corners_f32(p))
            .find(|&c| !set.has(c));
        if missing_corner.is_none() {
            return Ok(());
        }
    }
    kdop_vertices(&bvh.nodes[i].bv, poly);
    let missing_vertex = if poly.is_empty() {
        Err(())
    } else {
        Ok(poly
            .iter()
            .map(|v| v.map(|c| c as f32))
            .find(|&v| !set.has(v)))
    };
    match (missing_vertex, missing_corner) {
        (Ok(None), _) => Ok(()),
        (vertex, corner) => {
            let vertex = match vertex {
                Ok(Some(v)) => format!("the vertex {v:?} of its volume's polytope"),
                _ => "its volume's polytope has no vertices".into(),
            };
            let corner = corner.map_or(String::new(), |c| {
                format!("neither the corner {c:?} of its triangles nor ")
            });
            Err(Violation::at(
                inv::POINTS_BOUND_NODE,
                i,
                format!(
                    "its {} bounding points (triangle positions {start}..{end}) miss {corner}{vertex}",
                    q.len()
                ),
            ))
        }
    }
}
