//! Construction of [`ConvexHull`]: the dimension of the input, then quickhull with
//! conflict lists for a solid (twice if the first pass keeps non-extreme boundary points),
//! or Andrew's monotone chain for a coplanar input. Every decision is an exact predicate.

use super::ConvexHull;
use crate::geom::{cross, dot, sub};
use robust::{Coord, Coord3D, orient2d, orient3d};
use std::cmp::Ordering;

const NONE: u32 = u32::MAX;

/// Exact sign, as `f64`, of the position of `p` relative to the plane of triangle `abc`:
/// positive iff `p` is strictly on the side the right-handed normal `(b - a) × (c - a)`
/// points to (strictly outside, for an outward face). Note that this is `-orient3d` in
/// Shewchuk's convention, where "above" is negative.
#[inline]
pub fn orient_outside(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3], p: &[f64; 3]) -> f64 {
    -orient3d(c3(a), c3(b), c3(c), c3(p))
}

#[inline]
fn c3(p: &[f64; 3]) -> Coord3D<f64> {
    Coord3D {
        x: p[0],
        y: p[1],
        z: p[2],
    }
}

impl ConvexHull {
    /// Exact convex hull of `points`. Does not panic on degenerate input: non-finite points
    /// are ignored, duplicates are fine, and lower-dimensional inputs give a polygon
    /// (adjacency is the polygon cycle), a segment (its two endpoints) or a single point;
    /// empty input gives an empty hull. Vertices are the strict extreme points of the input.
    ///
    /// Exactness assumes the predicates neither overflow nor underflow, which holds for any
    /// coordinates that are `f32` values widened to `f64` (as mesh positions are); the only
    /// panic is on `u32::MAX` or more input points.
    pub fn new(points: &[[f64; 3]]) -> ConvexHull {
        assert!(
            points.len() < NONE as usize,
            "too many points for u32 indices"
        );
        let ids: Vec<u32> = (0..points.len() as u32)
            .filter(|&i| points[i as usize].iter().all(|c| c.is_finite()))
            .collect();
        match initial_simplex(points, &ids) {
            Dim::Empty => ConvexHull::default(),
            Dim::Point(a) => ConvexHull::from_graph(points, &[a], vec![vec![]], vec![]),
            Dim::Segment(a, b) => {
                ConvexHull::from_graph(points, &[a, b], vec![vec![1], vec![0]], vec![])
            }
            Dim::Polygon(a, b, c) => polygon_hull(points, &ids, [a, b, c]),
            Dim::Solid(simplex) => {
                let mut b = Builder::new(points);
                let mut ids = ids;
                let mut simplex = simplex;
                // A triangulated hull may keep non-extreme boundary points as vertices
                // (inserted before later points made them coplanar or collinear). Drop them
                // and rebuild from the strict extreme points, on which no such point can
                // arise. The second pass never needs a third; the loop is defensive.
                loop {
                    b.build(&ids, simplex);
                    let (verts, strict) = b.extract();
                    if verts.len() == strict.len() {
                        return b.into_hull(&verts);
                    }
                    ids = strict;
                    match initial_simplex(points, &ids) {
                        Dim::Solid(s) => simplex = s,
                        _ => unreachable!("extreme points of a 3-polytope span 3D"),
                    }
                }
            }
        }
    }

    fn from_graph(
        points: &[[f64; 3]],
        original: &[u32],
        adj: Vec<Vec<u32>>,
        faces: Vec<[u32; 3]>,
    ) -> ConvexHull {
        let mut offsets = Vec::with_capacity(adj.len() + 1);
        offsets.push(0u32);
        let mut neighbors = Vec::new();
        for mut list in adj {
            list.sort_unstable();
            list.dedup();
            neighbors.extend_from_slice(&list);
            offsets.push(neighbors.len() as u32);
        }
        ConvexHull {
            points: original.iter().map(|&i| points[i as usize]).collect(),
            original: original.to_vec(),
            offsets,
            neighbors,
            faces,
        }
    }
}

enum Dim {
    Empty,
    Point(u32),
    Segment(u32, u32),
    Polygon(u32, u32, u32),
    Solid([u32; 4]),
}

fn lex_cmp(a: &[f64; 3], b: &[f64; 3]) -> Ordering {
    a.partial_cmp(b).unwrap_or(Ordering::Equal)
}

/// Exact: are `a`, `b`, `c` collinear (all three coordinate projections degenerate)?
fn collinear(a: &[f64; 3], b: &[f64; 3], c: &[f64; 3]) -> bool {
    (0..3).all(|k| orient2d(proj(a, k), proj(b, k), proj(c, k)) == 0.0)
}

/// Drops coordinate `k`.
#[inline]
fn proj(p: &[f64; 3], k: usize) -> Coord<f64> {
    match k {
        0 => Coord { x: p[1], y: p[2] },
        1 => Coord { x: p[2], y: p[0] },
        _ => Coord { x: p[0], y: p[1] },
    }
}

/// Finds the dimension of the input and, for a solid, a large (float-heuristic) but
/// exactly non-degenerate starting tetrahedron, so that most interior points are discarded
/// in the first pass.
fn initial_simplex(pts: &[[f64; 3]], ids: &[u32]) -> Dim {
    let Some(&first) = ids.first() else {
        return Dim::Empty;
    };
    let p = |i: u32| &pts[i as usize];
    // Extremes along the axes; if every coordinate's min equals its max, all points are equal.
    let mut ext = [first; 6];
    for &i in ids {
        for k in 0..3 {
            if p(i)[k] < p(ext[2 * k])[k] {
                ext[2 * k] = i;
            }
            if p(i)[k] > p(ext[2 * k + 1])[k] {
                ext[2 * k + 1] = i;
            }
        }
    }
    let (mut a, mut b, mut best) = (first, first, -1.0);
    for &i in &ext {
        for &j in &ext {
            let d = sub(*p(i), *p(j));
            let l = dot(d, d);
            if p(i) != p(j) && l > best {
                (a, b, best) = (i, j, l);
            }
        }
    }
    if p(a) == p(b) {
        return Dim::Point(first);
    }
    // Third point: farthest from line ab (float), accepted only if exactly non-collinear.
    let ab = sub(*p(b), *p(a));
    let far = ids
        .iter()
        .copied()
        .max_by(|&i, &j| {
            let ci = cross(ab, sub(*p(i), *p(a)));
            let cj = cross(ab, sub(*p(j), *p(a)));
            dot(ci, ci).total_cmp(&dot(cj, cj))
        })
        .unwrap();
    let c = if !collinear(p(a), p(b), p(far)) {
        far
    } else if let Some(&c) = ids.iter().find(|&&i| !collinear(p(a), p(b), p(i))) {
        c
    } else {
        let lo = *ids.iter().min_by(|&&i, &&j| lex_cmp(p(i), p(j))).unwrap();
        let hi = *ids.iter().max_by(|&&i, &&j| lex_cmp(p(i), p(j))).unwrap();
        // Lexicographic order is the order along the line for collinear points.
        return Dim::Segment(lo.min(hi), lo.max(hi));
    };
    let n = cross(ab, sub(*p(c), *p(a)));
    let far = ids
        .iter()
        .copied()
        .max_by(|&i, &j| {
            let di = dot(n, sub(*p(i), *p(a))).abs();
            let dj = dot(n, sub(*p(j), *p(a))).abs();
            di.total_cmp(&dj)
        })
        .unwrap();
    let off = |i: u32| orient_outside(p(a), p(b), p(c), p(i)) != 0.0;
    let d = if off(far) {
        far
    } else if let Some(&d) = ids.iter().find(|&&i| off(i)) {
        d
    } else {
        return Dim::Polygon(a, b, c);
    };
    Dim::Solid([a, b, c, d])
}

/// Coplanar input: Andrew's monotone chain on an injective coordinate projection, with
/// exact `orient2d`, dropping collinear boundary points (strict extreme points only).
fn polygon_hull(pts: &[[f64; 3]], ids: &[u32], [a, b, c]: [u32; 3]) -> ConvexHull {
    let p = |i: u32| &pts[i as usize];
    let k = (0..3)
        .find(|&k| orient2d(proj(p(a), k), proj(p(b), k), proj(p(c), k)) != 0.0)
        .unwrap_or(2);
    let key = |i: u32| {
        let q = proj(p(i), k);
        (q.x, q.y)
    };
    let mut order: Vec<u32> = ids.to_vec();
    order.sort_by(|&i, &j| {
        key(i)
            .partial_cmp(&key(j))
            .unwrap_or(Ordering::Equal)
            .then(i.cmp(&j))
    });
    order.dedup_by(|x, y| key(*x) == key(*y));
    let turn = |h: &[u32], i: u32| {
        orient2d(
            proj(p(h[h.len() - 2]), k),
            proj(p(h[h.len() - 1]), k),
            proj(p(i), k),
        )
    };
    let mut hull: Vec<u32> = Vec::new();
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &u32>> = if pass == 0 {
            Box::new(order.iter())
        } else {
            Box::new(order.iter().rev())
        };
        for &i in iter {
            while hull.len() >= start + 2 && turn(&hull, i) <= 0.0 {
                hull.pop();
            }
            hull.push(i);
        }
        hull.pop(); // the last point starts the other chain
    }
    // Index order: sort vertex ids by input index, neighbours are cycle predecessor/successor.
    let m = hull.len();
    let mut original = hull.clone();
    original.sort_unstable();
    let local = |i: u32| original.binary_search(&i).unwrap() as u32;
    let mut adj = vec![Vec::new(); m];
    for t in 0..m {
        let (u, v) = (local(hull[t]), local(hull[(t + 1) % m]));
        adj[u as usize].push(v);
        adj[v as usize].push(u);
    }
    ConvexHull::from_graph(pts, &original, adj, vec![])
}

/// A boundary triangle during construction. Edge `i` runs from `v[i]` to `v[(i + 1) % 3]`
/// and `n[i]` is the face across it.
#[derive(Clone)]
struct Face {
    v: [u32; 3],
    n: [u32; 3],
    normal: [f64; 3],
    offset: f64,
    /// Conflict list: points strictly outside this face, each in exactly one list.
    outside: Vec<u32>,
    far: u32,
    far_dist: f64,
    alive: bool,
    mark: u32,
    visible: bool,
}

/// Incremental hull with conflict lists (quickhull order: the farthest point of a face is
/// inserted next). All visibility decisions are exact (`orient_outside > 0`), so the
/// visible region is a disk with a simple horizon and the result is a triangulation of the
/// true hull's boundary, possibly with coplanar triangles and non-extreme vertices.
struct Builder<'a> {
    pts: &'a [[f64; 3]],
    faces: Vec<Face>,
    free: Vec<u32>,
    work: Vec<u32>,
    generation: u32,
    /// Scratch indexed by point: the new face whose horizon edge starts at that point.
    start_of: Vec<u32>,
    pool: Vec<u32>,
    visible: Vec<u32>,
    horizon: Vec<(u32, u32, u32)>,
    dfs: Vec<u32>,
    new_faces: Vec<u32>,
}

impl<'a> Builder<'a> {
    fn new(pts: &'a [[f64; 3]]) -> Self {
        Builder {
            pts,
            faces: Vec::new(),
            free: Vec::new(),
            work: Vec::new(),
            generation: 0,
            start_of: vec![NONE; pts.len()],
            pool: Vec::new(),
            visible: Vec::new(),
            horizon: Vec::new(),
            dfs: Vec::new(),
            new_faces: Vec::new(),
        }
    }

    #[inline]
    fn p(&self, i: u32) -> &'a [f64; 3] {
        &self.pts[i as usize]
    }

    #[inline]
    fn sees(&self, f: u32, q: u32) -> bool {
        let v = self.faces[f as usize].v;
        orient_outside(self.p(v[0]), self.p(v[1]), self.p(v[2]), self.p(q)) > 0.0
    }

    fn alloc(&mut self, v: [u32; 3]) -> u32 {
        let (a, b, c) = (self.p(v[0]), self.p(v[1]), self.p(v[2]));
        let normal = cross(sub(*b, *a), sub(*c, *a));
        let offset = dot(normal, *a);
        let face = Face {
            v,
            n: [NONE; 3],
            normal,
            offset,
            outside: Vec::new(),
            far: NONE,
            far_dist: f64::NEG_INFINITY,
            alive: true,
            mark: 0,
            visible: false,
        };
        if let Some(f) = self.free.pop() {
            let slot = &mut self.faces[f as usize];
            let mut outside = std::mem::take(&mut slot.outside);
            outside.clear();
            *slot = Face { outside, ..face };
            f
        } else {
            self.faces.push(face);
            (self.faces.len() - 1) as u32
        }
    }

    fn assign(&mut self, f: u32, q: u32) {
        let pq = self.p(q);
        let face = &mut self.faces[f as usize];
        face.outside.push(q);
        let dist = dot(face.normal, *pq) - face.offset;
        if face.far == NONE || dist > face.far_dist {
            face.far_dist = dist;
            face.far = q;
        }
    }

    fn build(&mut self, ids: &[u32], s: [u32; 4]) {
        self.faces.clear();
        self.free.clear();
        self.work.clear();
        let [a, mut b, mut c, d] = s;
        if orient_outside(self.p(a), self.p(b), self.p(c), self.p(d)) > 0.0 {
            std::mem::swap(&mut b, &mut c);
        }
        // d is now strictly below abc; the other faces keep the tetrahedron's orientation.
        let tris = [[a, b, c], [a, d, b], [b, d, c], [c, d, a]];
        for t in tris {
            self.alloc(t);
        }
        for f in 0..4u32 {
            for i in 0..3 {
                let (x, y) = (
                    self.faces[f as usize].v[i],
                    self.faces[f as usize].v[(i + 1) % 3],
                );
                let g = (0..4u32)
                    .find(|&g| {
                        let w = self.faces[g as usize].v;
                        (0..3).any(|j| w[j] == y && w[(j + 1) % 3] == x)
                    })
                    .expect("tetrahedron faces are consistently oriented");
                self.faces[f as usize].n[i] = g;
            }
        }
        for &q in ids {
            if s.contains(&q) {
                continue;
            }
            if let Some(f) = (0..4u32).find(|&f| self.sees(f, q)) {
                self.assign(f, q);
            }
        }
        self.work.extend(0..4u32);
        while let Some(f) = self.work.pop() {
            let face = &self.faces[f as usize];
            if face.alive && !face.outside.is_empty() {
                let p = face.far;
                self.insert(f, p);
            }
        }
    }

    /// Adds point `p`, strictly outside face `f0`.
    fn insert(&mut self, f0: u32, p: u32) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for f in &mut self.faces {
                f.mark = 0;
            }
            self.generation = 1;
        }
        let g_id = self.generation;
        self.visible.clear();
        self.horizon.clear();
        self.dfs.clear();
        {
            let f = &mut self.faces[f0 as usize];
            f.mark = g_id;
            f.visible = true;
        }
        self.dfs.push(f0);
        while let Some(f) = self.dfs.pop() {
            self.visible.push(f);
            for i in 0..3 {
                let g = self.faces[f as usize].n[i];
                if self.faces[g as usize].mark != g_id {
                    let vis = self.sees(g, p);
                    let face = &mut self.faces[g as usize];
                    face.mark = g_id;
                    face.visible = vis;
                    if vis {
                        self.dfs.push(g);
                    }
                }
                if !self.faces[g as usize].visible {
                    let v = self.faces[f as usize].v;
                    self.horizon.push((v[i], v[(i + 1) % 3], g));
                }
            }
        }
        // Collect conflict points and free the visible faces.
        self.pool.clear();
        for k in 0..self.visible.len() {
            let f = self.visible[k] as usize;
            self.pool.extend_from_slice(&self.faces[f].outside);
            self.faces[f].outside.clear();
            self.faces[f].alive = false;
            self.free.push(f as u32);
        }
        // Cone of new faces (a, b, p) over the horizon, linked to each other and outward.
        self.new_faces.clear();
        for k in 0..self.horizon.len() {
            let (a, b, g) = self.horizon[k];
            let f = self.alloc([a, b, p]);
            self.faces[f as usize].n[0] = g;
            let gv = self.faces[g as usize].v;
            let j = (0..3)
                .find(|&j| gv[j] == b && gv[(j + 1) % 3] == a)
                .expect("horizon edge present in neighbour");
            self.faces[g as usize].n[j] = f;
            self.start_of[a as usize] = f;
            self.new_faces.push(f);
        }
        for k in 0..self.new_faces.len() {
            let f = self.new_faces[k];
            let b = self.faces[f as usize].v[1];
            let h = self.start_of[b as usize];
            self.faces[f as usize].n[1] = h;
            self.faces[h as usize].n[2] = f;
        }
        for k in 0..self.new_faces.len() {
            let a = self.faces[self.new_faces[k] as usize].v[0];
            self.start_of[a as usize] = NONE;
        }
        // Reassign: a point outside the new hull that saw a deleted face sees a new face.
        let pool = std::mem::take(&mut self.pool);
        for &q in &pool {
            if q == p {
                continue;
            }
            for k in 0..self.new_faces.len() {
                let f = self.new_faces[k];
                if self.sees(f, q) {
                    self.assign(f, q);
                    break;
                }
            }
        }
        self.pool = pool;
        for k in 0..self.new_faces.len() {
            let f = self.new_faces[k];
            if !self.faces[f as usize].outside.is_empty() {
                self.work.push(f);
            }
        }
    }

    /// Returns (all triangulation vertices, the strict extreme ones), both sorted. A vertex
    /// is a strict extreme point iff at least three non-flat triangulation edges meet there
    /// (points inside a facet have none, points inside a hull edge exactly two).
    fn extract(&self) -> (Vec<u32>, Vec<u32>) {
        let mut verts: Vec<u32> = Vec::new();
        let mut sharp = vec![0u32; 0];
        let mut pos = std::collections::HashMap::new();
        for f in self.faces.iter().filter(|f| f.alive) {
            for &v in &f.v {
                pos.entry(v).or_insert_with(|| {
                    verts.push(v);
                    verts.len() - 1
                });
            }
        }
        sharp.resize(verts.len(), 0);
        for (fi, f) in self.faces.iter().enumerate() {
            if !f.alive {
                continue;
            }
            for i in 0..3 {
                if (f.n[i] as usize) < fi {
                    continue;
                }
                if !self.is_flat(fi as u32, i) {
                    sharp[pos[&f.v[i]]] += 1;
                    sharp[pos[&f.v[(i + 1) % 3]]] += 1;
                }
            }
        }
        let mut strict: Vec<u32> = (0..verts.len())
            .filter(|&k| sharp[k] >= 3)
            .map(|k| verts[k])
            .collect();
        verts.sort_unstable();
        strict.sort_unstable();
        (verts, strict)
    }

    /// Is edge `i` of face `f` between two coplanar triangles (a diagonal of a facet)?
    fn is_flat(&self, f: u32, i: usize) -> bool {
        let face = &self.faces[f as usize];
        let g = &self.faces[face.n[i] as usize];
        let (x, y) = (face.v[i], face.v[(i + 1) % 3]);
        let opp = *g.v.iter().find(|&&w| w != x && w != y).unwrap();
        orient_outside(
            self.p(face.v[0]),
            self.p(face.v[1]),
            self.p(face.v[2]),
            self.p(opp),
        ) == 0.0
    }

    fn into_hull(self, verts: &[u32]) -> ConvexHull {
        let local = |i: u32| verts.binary_search(&i).unwrap() as u32;
        let mut adj = vec![Vec::new(); verts.len()];
        let mut faces = Vec::new();
        for (fi, f) in self.faces.iter().enumerate() {
            if !f.alive {
                continue;
            }
            faces.push([local(f.v[0]), local(f.v[1]), local(f.v[2])]);
            for i in 0..3 {
                if (f.n[i] as usize) < fi || self.is_flat(fi as u32, i) {
                    continue;
                }
                let (u, v) = (local(f.v[i]), local(f.v[(i + 1) % 3]));
                adj[u as usize].push(v);
                adj[v as usize].push(u);
            }
        }
        ConvexHull::from_graph(self.pts, verts, adj, faces)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degenerate_dimensions() {
        assert!(ConvexHull::new(&[]).vertices().is_empty());
        let h = ConvexHull::new(&[[1.0, 2.0, 3.0]; 5]);
        assert_eq!(h.vertices().len(), 1);
        assert_eq!(h.original_index(0), 0);
        let line: Vec<[f64; 3]> = (0..10).map(|i| [i as f64, 2.0 * i as f64, 3.0]).collect();
        let h = ConvexHull::new(&line);
        assert_eq!((h.original_index(0), h.original_index(1)), (0, 9));
        assert_eq!(h.neighbors(0), &[1]);
        let nan = ConvexHull::new(&[[f64::NAN, 0.0, 0.0], [0.0, 0.0, 0.0]]);
        assert_eq!(nan.vertices().len(), 1);
        assert_eq!(nan.original_index(0), 1);
    }
}
