//! Construction of a restricted boxtree (Zachmann, *Minimal Hierarchical Collision
//! Detection*, 2002, section 4).
//!
//! Criterion (4.1): split a node's triangles so that `Vol(child 1) + Vol(child 2)` is least.
//! Algorithm (4.2): for each of the three axes and each of the three cases (lower + upper,
//! lower + lower, upper + upper child) pick one seed triangle per child, "as close as
//! possible to the outer border perpendicular to the splitting axis", then assign every
//! other triangle in turn to the child whose volume grows least; keep the candidate of
//! least total volume. Each candidate is two passes over the node's triangles, so a node
//! costs O(n) and a level O(n) (4.3; the paper's recurrence assumes balanced splits).
//!
//! Choices where section 4 is silent (each tested in `tests`):
//! - "Coplanar splitting planes" (4.2, Figure 1) is read as: both children of a node split
//!   along the same axis, each with its own plane distance `c`.
//! - Seed of a lower child: the triangle with the smallest maximum along the axis (alone it
//!   gives the smallest lower box, i.e. it is closest to the lower border); of an upper
//!   child: the largest minimum. Two children of the same kind take the best and the
//!   second best.
//! - "In turn" is the order of the node's triangles (the parent's partition keeps order).
//!   Ties (equal growth) go to the child with fewer triangles, which keeps identical or
//!   nested triangles balanced.
//! - Volumes use extents padded by 1e-3 of the root's largest extent, so flat meshes (zero
//!   volume everywhere) are still compared by area.
//! - Balance guard (our addition): the criterion alone does not see triangle counts, and a
//!   restricted child keeps its parent's cross-section, so peeling one triangle off
//!   (lower + lower or upper + upper, the other child keeping nearly the whole box) costs
//!   about as much volume as a balanced split whose children overlap by a triangle width.
//!   On the bunny it peeled one triangle per level (depth 67, and many times kdop18's
//!   triangle tests: `docs/notebook/boxtree.md`,
//!   `docs/notebook/moved-from-module-docs.md`). So candidates whose smaller child gets
//!   fewer than 1/8 of the triangles are rejected, and when none is left the node is split
//!   at the median (lower + upper).
//! - Depth guard: beyond `2·log2(n) + 16` levels a node is split at the median centroid of
//!   its longest side (lower + upper), so adversarial inputs cannot make the tree deep
//!   and the build quadratic (the k-DOP builder has the same guard).
//!
//! Conservative boxes, in the mesh's local frame ([`crate::frame`]): each triangle's bounds
//! are f32, rounded outward from its local f64 corners so that they contain the *real*
//! local corners `p − o` ([`local_bounds_f32`] has the proof); the root box is their union
//! (f32 values), and `c` is chosen (rounded down to f32 and checked) so that the box
//! computed by [`Aabb::child`] in f64 still contains the child's triangle bounds. `validate`
//! checks every real local corner against every ancestor's box.

#![allow(clippy::needless_range_loop)] // per-axis arithmetic reads best indexed

use super::node::{Aabb, MAX_LEAF, Node};
use super::{BoxTree, LUT_SIZE};
use crate::frame::local_bounds_f32;
use crate::mesh::Mesh;
use crate::ordered::OrderedTriangles;

/// Per triangle: its local bounds `[lo, hi]` ([`local_bounds_f32`]).
type TriBounds = [[f32; 3]; 2];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    LowerUpper,
    LowerLower,
    UpperUpper,
}

impl Case {
    const ALL: [Case; 3] = [Case::LowerUpper, Case::LowerLower, Case::UpperUpper];
    /// Whether child 0 / child 1 is an upper box.
    fn kinds(self) -> [bool; 2] {
        match self {
            Case::LowerUpper => [false, true],
            Case::LowerLower => [false, false],
            Case::UpperUpper => [true, true],
        }
    }
}

/// A candidate whose smaller child gets fewer than 1/`MIN_SHARE` of the triangles is
/// rejected (see the module doc, "Balance guard").
const MIN_SHARE: usize = 8;

fn fallback_depth(n: usize) -> u32 {
    2 * (usize::BITS - n.leading_zeros()) + 16
}

/// Largest f32 ≤ `x` (x ≥ 0).
fn down32(x: f64) -> f32 {
    let f = x as f32;
    if f as f64 > x { f.next_down() } else { f }
}

/// The plane distance for a child whose triangles reach `target` along the axis, given the
/// parent's side `side` (hi for a lower child, lo for an upper one): the largest candidate
/// whose computed box side (as [`Aabb::child`] computes it) still reaches `target`.
fn choose_c(side: f64, target: f64, upper: bool) -> f32 {
    let d = if upper { target - side } else { side - target };
    if d.is_nan() || d <= 0.0 {
        return 0.0;
    }
    let ok = |c: f32| {
        let s = if upper {
            side + c as f64
        } else {
            side - c as f64
        };
        if upper { s <= target } else { s >= target }
    };
    for shrink in [1.0, 1.0 - 2f64.powi(-40), 1.0 - 2f64.powi(-20)] {
        let c = down32(d * shrink);
        if c > 0.0 && ok(c) {
            return c;
        }
    }
    0.0
}

struct Builder<'a> {
    tb: &'a [TriBounds],
    pad: f64,
    assign: Vec<bool>,
    best_assign: Vec<bool>,
    tmp: Vec<u32>,
}

/// A candidate split: axis, case, total padded volume.
#[derive(Clone, Copy)]
struct Candidate {
    axis: usize,
    case: Case,
    volume: f64,
}

impl Builder<'_> {
    /// Extent along `axis` of a child box of `bx` whose plane sits at `p`.
    fn extent(bx: &Aabb, axis: usize, upper: bool, p: f64) -> f64 {
        if upper {
            bx.hi[axis] - p
        } else {
            p - bx.lo[axis]
        }
    }

    /// The greedy assignment of one (axis, case) into `self.assign`; returns the total
    /// padded volume of the two children and the smaller child's triangle count.
    fn greedy(&mut self, ids: &[u32], bx: &Aabb, axis: usize, case: Case) -> (f64, usize) {
        let tb = self.tb;
        let kinds = case.kinds();
        let key = |t: u32, upper: bool| -> f64 {
            let b = &tb[t as usize];
            if upper {
                -(b[0][axis] as f64)
            } else {
                b[1][axis] as f64
            }
        };
        // Seeds: smallest key (see the module doc), the second child the best other one.
        let best_of = |upper: bool, skip: Option<usize>| -> usize {
            let mut best = usize::MAX;
            let mut bk = f64::INFINITY;
            for (i, &t) in ids.iter().enumerate() {
                if Some(i) == skip {
                    continue;
                }
                let k = key(t, upper);
                if best == usize::MAX || k < bk {
                    best = i;
                    bk = k;
                }
            }
            best
        };
        let s0 = best_of(kinds[0], None);
        let mut s1 = best_of(kinds[1], None);
        if s1 == s0 {
            s1 = best_of(kinds[1], Some(s0));
        }
        // Plane positions (the reach of each child's triangles) and counts.
        let reach = |t: u32, upper: bool| -> f64 {
            let b = &tb[t as usize];
            if upper {
                b[0][axis] as f64
            } else {
                b[1][axis] as f64
            }
        };
        let mut p = [reach(ids[s0], kinds[0]), reach(ids[s1], kinds[1])];
        let mut count = [1usize, 1];
        self.assign.clear();
        self.assign.resize(ids.len(), false);
        self.assign[s1] = true;
        for (i, &t) in ids.iter().enumerate() {
            if i == s0 || i == s1 {
                continue;
            }
            let grow = |k: usize| -> f64 {
                let r = reach(t, kinds[k]);
                if kinds[k] {
                    (p[k] - r).max(0.0)
                } else {
                    (r - p[k]).max(0.0)
                }
            };
            let (g0, g1) = (grow(0), grow(1));
            let k = if g0 < g1 || (g0 == g1 && count[0] <= count[1]) {
                0
            } else {
                1
            };
            let r = reach(t, kinds[k]);
            p[k] = if kinds[k] { p[k].min(r) } else { p[k].max(r) };
            count[k] += 1;
            self.assign[i] = k == 1;
        }
        let perp: f64 = (0..3)
            .filter(|&k| k != axis)
            .map(|k| bx.hi[k] - bx.lo[k] + self.pad)
            .product();
        let e0 = Self::extent(bx, axis, kinds[0], p[0]) + self.pad;
        let e1 = Self::extent(bx, axis, kinds[1], p[1]) + self.pad;
        (perp * (e0 + e1), count[0].min(count[1]))
    }

    /// Chooses the split of `ids` (≥ 2 triangles) and partitions it: child 0 first.
    /// Returns (axis, kinds, size of child 0).
    fn split(&mut self, ids: &mut [u32], bx: &Aabb, median: bool) -> (usize, [bool; 2], usize) {
        if median {
            let axis = (0..3)
                .max_by(|&x, &y| (bx.hi[x] - bx.lo[x]).total_cmp(&(bx.hi[y] - bx.lo[y])))
                .unwrap_or(0);
            let tb = self.tb;
            let c = |t: &u32| tb[*t as usize][0][axis] as f64 + tb[*t as usize][1][axis] as f64;
            let mid = ids.len() / 2;
            ids.select_nth_unstable_by(mid, |x, y| c(x).total_cmp(&c(y)));
            return (axis, [false, true], mid);
        }
        let mut best: Option<Candidate> = None;
        for axis in 0..3 {
            for case in Case::ALL {
                let (volume, small) = self.greedy(ids, bx, axis, case);
                if small * MIN_SHARE < ids.len() {
                    continue;
                }
                if best.is_none_or(|b| volume < b.volume) {
                    best = Some(Candidate { axis, case, volume });
                    std::mem::swap(&mut self.assign, &mut self.best_assign);
                }
            }
        }
        let Some(b) = best else {
            // No balanced candidate: the median split.
            return self.split(ids, bx, true);
        };
        // Stable partition by the best assignment.
        self.tmp.clear();
        let mut n0 = 0;
        for i in 0..ids.len() {
            let t = ids[i];
            if !self.best_assign[i] {
                ids[n0] = t;
                n0 += 1;
            } else {
                self.tmp.push(t);
            }
        }
        ids[n0..].copy_from_slice(&self.tmp);
        (b.axis, b.case.kinds(), n0)
    }
}

/// Builds the boxtree of `mesh` (non-empty) with at most `leaf_size` (clamped to 1..=16)
/// triangles per leaf.
pub fn build(mesh: &Mesh, leaf_size: u32) -> BoxTree {
    let n = mesh.triangle_count();
    let leaf = leaf_size.clamp(1, MAX_LEAF) as usize;
    let frame = OrderedTriangles::frame_of(mesh);
    let tb: Vec<TriBounds> = (0..n)
        .map(|i| local_bounds_f32(mesh.triangle(i).map(|p| frame.local_f64(p))))
        .collect();
    let mut root = Aabb {
        lo: [f64::INFINITY; 3],
        hi: [f64::NEG_INFINITY; 3],
    };
    for b in &tb {
        for k in 0..3 {
            root.lo[k] = root.lo[k].min(b[0][k] as f64);
            root.hi[k] = root.hi[k].max(b[1][k] as f64);
        }
    }
    let max_ext = (0..3).map(|k| root.hi[k] - root.lo[k]).fold(0.0, f64::max);
    let mut builder = Builder {
        tb: &tb,
        pad: if max_ext > 0.0 { 1e-3 * max_ext } else { 1.0 },
        assign: Vec::new(),
        best_assign: Vec::new(),
        tmp: Vec::new(),
    };
    let mut idx: Vec<u32> = (0..n as u32).collect();
    let mut nodes = vec![Node::root()];
    let mut depth = 1;
    let fallback = fallback_depth(n);
    let mut stack = vec![(0usize, 0usize, n, root, 1u32)];
    while let Some((node, start, end, bx, level)) = stack.pop() {
        depth = depth.max(level);
        if end - start <= leaf {
            nodes[node].make_leaf(start as u32, (end - start) as u32);
            continue;
        }
        let ids = &mut idx[start..end];
        let (axis, kinds, n0) = builder.split(ids, &bx, level >= fallback);
        let first = nodes.len();
        nodes[node].child = first as u32;
        let ranges = [(start, start + n0), (start + n0, end)];
        for (k, &(s, e)) in ranges.iter().enumerate() {
            let upper = kinds[k];
            let reach = idx[s..e]
                .iter()
                .map(|&t| {
                    let b = &tb[t as usize];
                    if upper {
                        b[0][axis] as f64
                    } else {
                        b[1][axis] as f64
                    }
                })
                .fold(
                    if upper {
                        f64::INFINITY
                    } else {
                        f64::NEG_INFINITY
                    },
                    |m, v| {
                        if upper { m.min(v) } else { m.max(v) }
                    },
                );
            let side = if upper { bx.lo[axis] } else { bx.hi[axis] };
            let c = choose_c(side, reach, upper);
            nodes.push(Node::split(axis, upper, c));
        }
        for k in [1, 0] {
            let (s, e) = ranges[k];
            let cb = bx.child(nodes[first + k]);
            stack.push((first + k, s, e, cb, level + 1));
        }
    }
    let lut_codes = lut_codes(&nodes, &root);
    let tris = OrderedTriangles::with_frame(mesh, &idx, frame);
    BoxTree {
        nodes,
        root,
        tri_index: idx,
        tris,
        depth,
        lut_codes,
    }
}

/// Step of the lookup tables along each axis: the root's extent over `LUT_SIZE - 1`.
pub fn lut_step(root: &Aabb) -> [f64; 3] {
    std::array::from_fn(|k| (root.hi[k] - root.lo[k]) / (LUT_SIZE - 1) as f64)
}

/// `floor(c / step)` per node (3.2.2: "c now is an integer"): the lookup test shrinks a box
/// by `code · step ≤ c`, never more than the true box.
fn lut_codes(nodes: &[Node], root: &Aabb) -> Vec<u16> {
    let step = lut_step(root);
    nodes
        .iter()
        .map(|n| {
            let a = n.axis();
            if a >= 3 || step[a].is_nan() || step[a] <= 0.0 {
                return 0;
            }
            let mut q = ((n.c as f64 / step[a]).floor() as usize).min(LUT_SIZE - 1);
            // Never more than c (the division rounds).
            while q > 0 && q as f64 * step[a] > n.c as f64 {
                q -= 1;
            }
            q as u16
        })
        .collect()
}

/// Checks: children after their parent and every node reached once; leaf ranges cover
/// every triangle position once; `tri_index` a permutation; every child box inside its
/// parent's; every triangle's real local corners inside the box of every ancestor (boxes
/// computed by [`Aabb::child`], exactly as the traversal computes them; corners checked by
/// [`Aabb::contains_real`] on their local f64 values).
pub fn validate(t: &BoxTree) -> Result<(), String> {
    let nn = t.nodes.len();
    let nt = t.tri_index.len();
    if t.tris.len() != nt || t.lut_codes.len() != nn {
        return Err("array lengths differ".into());
    }
    let mut seen_node = vec![false; nn];
    let mut seen_tri = vec![false; nt];
    // (node, box, depth); ancestors' boxes on a path stack.
    let mut path: Vec<Aabb> = Vec::new();
    let mut stack = vec![(0usize, t.root, 1u32)];
    let mut max_depth = 0;
    while let Some((i, bx, d)) = stack.pop() {
        path.truncate(d as usize - 1);
        path.push(bx);
        max_depth = max_depth.max(d);
        if std::mem::replace(&mut seen_node[i], true) {
            return Err(format!("node {i} reached twice"));
        }
        let n = t.nodes[i];
        if i != 0 && n.c < 0.0 {
            return Err(format!("node {i} has negative c"));
        }
        if n.is_leaf() {
            let (a, b) = (n.child as usize, n.child as usize + n.count() as usize);
            if b > nt {
                return Err(format!("leaf {i} range {a}..{b} beyond {nt}"));
            }
            for p in a..b {
                if std::mem::replace(&mut seen_tri[p], true) {
                    return Err(format!("triangle position {p} in two leaves"));
                }
                for c in t.tris.corners_local_f64(p) {
                    if let Some(k) = path.iter().position(|bx| !bx.contains_real(c)) {
                        return Err(format!(
                            "corner {c:?} of leaf {i} outside its ancestor at depth {}",
                            k + 1
                        ));
                    }
                }
            }
        } else {
            let c = n.child as usize;
            if c <= i || c + 1 >= nn {
                return Err(format!("node {i} has children {c}, {} out of order", c + 1));
            }
            for k in [c, c + 1] {
                if t.nodes[k].axis() >= 3 {
                    return Err(format!("node {k} has no split axis"));
                }
                let cb = bx.child(t.nodes[k]);
                if !bx.contains(&cb) {
                    return Err(format!("child {k} box leaves its parent's"));
                }
                stack.push((k, cb, d + 1));
            }
        }
    }
    if max_depth != t.depth {
        return Err(format!("depth {} but {} levels", t.depth, max_depth));
    }
    if let Some(i) = seen_node.iter().position(|s| !s) {
        return Err(format!("node {i} unreachable"));
    }
    if let Some(p) = seen_tri.iter().position(|s| !s) {
        return Err(format!("triangle position {p} in no leaf"));
    }
    let mut perm = vec![false; nt];
    for &x in &t.tri_index {
        if x as usize >= nt || std::mem::replace(&mut perm[x as usize], true) {
            return Err(format!("tri_index is not a permutation (at {x})"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate;

    #[test]
    fn choose_c_keeps_the_computed_side_outside_the_triangles() {
        for (side, target) in [
            (1.0, 0.3f32 as f64),
            (1e6 + 1e-10, 1e6),
            (-3.7, -5.1f32 as f64),
            (0.1, 0.1),
            (1e-30, -1e-30f32 as f64),
        ] {
            let c = choose_c(side, target, false);
            assert!(c >= 0.0 && side - c as f64 >= target, "{side} {target} {c}");
            let c = choose_c(-side, -target, true);
            assert!(-side + c as f64 <= -target, "{side} {target} {c}");
        }
        // A real cut, not a zero.
        assert!(choose_c(1.0, 0.5, false) == 0.5);
    }

    fn check(m: &Mesh, leaf: u32) -> BoxTree {
        let t = build(m, leaf);
        validate(&t).unwrap_or_else(|e| panic!("leaf {leaf}: {e}"));
        assert!(
            t.depth <= 2 * fallback_depth(m.triangle_count()) + 8,
            "{}",
            t.depth
        );
        t
    }

    #[test]
    fn trees_are_valid_on_varied_meshes() {
        let meshes = [
            generate::random_soup(1, 1, 1.0, 0.3),
            generate::random_soup(2, 2, 1.0, 0.3),
            generate::random_soup(3, 300, 1.0, 0.3),
            generate::degenerate_soup(4, 200, 1.0),
            generate::torus([0.0; 3], 1.0, 0.3, 20, 10),
            generate::grid(10, 10, 0.1, 0.0),
            generate::uv_sphere([1.0, -2.0, 3.0], 1e3, 8, 12),
        ];
        for m in &meshes {
            for leaf in [1, 3, 16, 40] {
                check(m, leaf);
            }
        }
    }

    #[test]
    fn identical_triangles_stay_balanced() {
        let tri = [[0.0f64, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]];
        let positions: Vec<[f64; 3]> = (0..300).map(|i| tri[i % 3]).collect();
        let triangles = (0..100u32).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect();
        let m = Mesh::new(positions, triangles).unwrap();
        let t = check(&m, 1);
        assert!(
            t.depth <= 9,
            "ties go to the smaller child: depth {}",
            t.depth
        );
    }

    #[test]
    fn exponential_spacing_stays_shallow() {
        let mut positions = Vec::new();
        let mut triangles = Vec::new();
        for i in 0..2000u32 {
            let x = 1.01f64.powi(i as i32 * 3); // below `MAX_COORDINATE`
            positions.extend([[x, 0.0, 0.0], [x, 1.0, 0.0], [x, 0.0, 1.0]]);
            triangles.push([3 * i, 3 * i + 1, 3 * i + 2]);
        }
        check(&Mesh::new(positions, triangles).unwrap(), 1);
    }

    #[test]
    fn two_separate_clusters_split_apart() {
        // Two clusters along y: the least-volume split is along y, lower + upper.
        let a = generate::random_soup(5, 50, 1.0, 0.2);
        let b = a.map_positions(|[x, y, z]| [x, y + 10.0, z]);
        let m = generate::merge(&[a, b]);
        let t = check(&m, 1);
        let (c0, c1) = (t.nodes[1], t.nodes[2]);
        assert_eq!((c0.axis(), c1.axis()), (1, 1));
        assert_ne!(c0.is_upper(), c1.is_upper());
        let cb = [t.root.child(c0), t.root.child(c1)];
        assert!(cb.iter().all(|b| b.hi[1] - b.lo[1] <= 1.01), "{cb:?}");
    }

    #[test]
    fn lut_codes_never_exceed_c() {
        let m = generate::random_soup(9, 500, 1.0, 0.3);
        let t = build(&m, 1);
        let step = lut_step(&t.root);
        for (n, &q) in t.nodes.iter().zip(&t.lut_codes) {
            if n.axis() < 3 {
                assert!(q as f64 * step[n.axis()] <= n.c as f64);
                assert!((n.c as f64 - q as f64 * step[n.axis()]) <= step[n.axis()] * 1.000001);
            }
        }
    }
}
