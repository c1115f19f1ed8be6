//! The polytope of a k-DOP: the intersection of its k half-spaces, as faces (polygons),
//! vertices and volume.
//!
//! `002_2561ef21643dcace.txt` 4.1 computes the B-rep by duality (convex hull of the dual
//! points); we clip instead: start from the box of the three coordinate slabs and cut it by
//! each diagonal half-space. Same result, O(k·V) per k-DOP, and it stays well defined for
//! flat k-DOPs (a planar leaf, a flat grid), where duality degenerates. The vertices feed
//! the approximation method of tumbling (4.1, method 2); the volume feeds the min-sum and
//! min-max splitting rules (3.3.4, footnote 4).
//!
//! The clipper works on fixed-capacity arrays (no heap allocation, [`kdop_vertices`]): a
//! vertex pool with stable indices and the faces as cyclic index lists into it, each with
//! its vertex set as a bit mask. Each half-space classifies every vertex once (out if
//! beyond the plane by more than the tolerance), so faces sharing an edge agree on it: the
//! cut point of an edge is computed once and shared by index, only the faces actually cut
//! are rewritten, and the new face on the plane is assembled by chaining the one cut edge
//! each clipped face contributes (no angular sort). A half-space that leaves every vertex
//! inside is skipped outright. The surface stays closed (every directed edge matched by its
//! reverse), also when a flat or degenerate k-DOP collapses faces to slivers; faces that
//! collapse to two vertices are kept (a segment must still be cut by later planes). Only
//! when the box is flat or a vertex came within the tolerance of a cutting plane can two
//! vertices be that close; then, and only then, the vertex list is merged (O(n²)).
//!
//! Points within a tolerance (1e-12 of the polytope's scale) of a cutting plane count as on
//! it and are kept: errors only ever make the polytope slightly larger, never smaller, and
//! the tumbling margin covers what is left. The same holds if a clip ever exceeded the
//! fixed capacities (far beyond what k ≤ 26 needs): that half-space is skipped.

use super::axes::axes;
use super::kdop::Kdop;

/// A convex polytope as a list of planar faces, each with its outward normal, and its
/// distinct vertices. Two allocations in all (see [`Polytope::faces`]).
#[derive(Debug, Clone, Default)]
pub struct Polytope {
    /// The distinct vertices (`..nverts`), then the faces' corners, face after face.
    pts: Vec<[f64; 3]>,
    nverts: usize,
    faces: Vec<FaceSpan>,
}

#[derive(Debug, Clone, Copy)]
struct FaceSpan {
    normal: [f64; 3],
    start: u32,
    len: u32,
}

/// One face of a [`Polytope`].
#[derive(Debug, Clone, Copy)]
pub struct Face<'a> {
    /// Outward normal (not normalized: a k-DOP slab direction).
    pub normal: [f64; 3],
    /// Vertices in order around the face (counterclockwise seen from outside).
    pub points: &'a [[f64; 3]],
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

/// The vertices of the polytope of `k` (the distinct ones, as [`Polytope::vertices`]),
/// written to `out` (cleared first; left empty for the empty k-DOP). No heap allocation
/// besides `out`'s growth.
pub fn kdop_vertices<const H: usize>(k: &Kdop<H>, out: &mut Vec<[f64; 3]>) {
    let lo: [f64; H] = k.min.map(f64::from);
    let hi: [f64; H] = k.max.map(f64::from);
    let mut c = Clipper::new();
    if c.run(axes(H), &lo, &hi) {
        c.vertices_into(out);
    } else {
        out.clear();
    }
}

impl Polytope {
    /// The polytope of a k-DOP (empty for the empty k-DOP).
    pub fn of_kdop<const H: usize>(k: &Kdop<H>) -> Polytope {
        let lo: [f64; H] = k.min.map(f64::from);
        let hi: [f64; H] = k.max.map(f64::from);
        Polytope::from_slabs(axes(H), &lo, &hi)
    }

    /// Intersection of the slabs `lo[i] ≤ axes[i]·p ≤ hi[i]`; `axes[0..3]` must be x, y, z.
    pub fn from_slabs(axes: &[[i8; 3]], lo: &[f64], hi: &[f64]) -> Polytope {
        let mut c = Clipper::new();
        if c.run(axes, lo, hi) {
            c.to_polytope()
        } else {
            Polytope::default()
        }
    }

    /// The faces (polygons of two or more vertices: flat and degenerate k-DOPs keep their
    /// collapsed slivers, as a closed surface).
    pub fn faces(&self) -> impl ExactSizeIterator<Item = Face<'_>> + '_ {
        self.faces.iter().map(|f| Face {
            normal: f.normal,
            points: &self.pts[f.start as usize..(f.start + f.len) as usize],
        })
    }

    /// The distinct vertices (points closer than the tolerance are merged).
    pub fn vertices(&self) -> Vec<[f64; 3]> {
        self.pts[..self.nverts].to_vec()
    }

    /// Volume by the divergence theorem: Σ_faces (n̂·p)·area / 3.
    pub fn volume(&self) -> f64 {
        let v: f64 = self.faces().map(|f| face_volume(f.normal, f.points)).sum();
        v.max(0.0)
    }
}

/// One face's term of the divergence theorem, (n̂·p₀)·area / 3, for `pts` in order.
fn face_volume(normal: [f64; 3], pts: &[[f64; 3]]) -> f64 {
    if pts.len() < 3 {
        return 0.0;
    }
    let p0 = pts[0];
    let mut area2 = [0.0; 3];
    for j in 1..pts.len() - 1 {
        let c = cross(sub(pts[j], p0), sub(pts[j + 1], p0));
        area2 = [area2[0] + c[0], area2[1] + c[1], area2[2] + c[2]];
    }
    let nn = dot(normal, normal).sqrt();
    let area = dot(area2, area2).sqrt() * 0.5;
    dot(normal, p0) / nn * area / 3.0
}

/// Points closer than `tol` (per coordinate) to an earlier one are dropped, in place.
fn dedup_in_place(pts: &mut Vec<[f64; 3]>, tol: f64) {
    let mut n = 0;
    for i in 0..pts.len() {
        let p = pts[i];
        if !pts[..n]
            .iter()
            .any(|q| (0..3).all(|k| (p[k] - q[k]).abs() <= tol))
        {
            pts[n] = p;
            n += 1;
        }
    }
    pts.truncate(n);
}

/// Vertex pool capacity, the width of the vertex masks. A k-DOP polytope (k ≤ 26) has at
/// most 48 vertices; indices are stable while clipping (cut points are appended) and the
/// pool is renumbered only when it runs out of room.
const MAX_VERTS: usize = 64;
/// Faces (≤ 26 for k ≤ 26, plus collapsed slivers of degenerate polytopes).
const MAX_FACES: usize = 64;
/// Index list storage. Rewritten faces are appended (the live lists total twice the number
/// of edges, ≤ 144 for k ≤ 26); the storage is compacted when it runs out of room.
const MAX_IDX: usize = 512;
/// Cut edges (and cap edges) of one clip: at most one per face in the generic case.
const MAX_CUTS: usize = 64;
const NONE: u8 = u8::MAX;
const _: () = assert!(MAX_VERTS <= 64 && MAX_CUTS <= 64 && MAX_IDX <= u16::MAX as usize);

#[inline]
fn bit(v: u8) -> u64 {
    1u64 << v
}

/// Iterates over the set bits of `m`, lowest first.
fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            v
        })
    })
}

#[derive(Debug, Clone, Copy)]
struct FaceRef {
    /// The face's vertices as a set.
    mask: u64,
    normal: [f64; 3],
    start: u16,
    len: u16,
}

const NO_FACE: FaceRef = FaceRef {
    mask: 0,
    normal: [0.0; 3],
    start: 0,
    len: 0,
};

/// Fixed-capacity polytope under construction: a vertex pool and the faces as cyclic lists
/// of pool indices, each consistently oriented (counterclockwise seen from outside), plus
/// the scratch space of one clip.
struct Clipper {
    pts: [[f64; 3]; MAX_VERTS],
    /// Pool entries in use (live or dead).
    npts: usize,
    /// The vertices of the polytope (a point may be kept by no face of three vertices or
    /// more: a degenerate k-DOP reduced to a point).
    live: u64,
    faces: [FaceRef; MAX_FACES],
    nf: usize,
    idx: [u8; MAX_IDX],
    /// Index storage in use (the faces' lists and garbage).
    nidx: usize,
    /// Coordinate tolerance (1e-12 of the scale).
    tol: f64,
    /// Some vertices may lie within the tolerance of each other (a flat box, a plane
    /// through a vertex): the vertex list is merged before it is reported.
    near: bool,
    // Scratch of one clip.
    dist: [f64; MAX_VERTS],
    /// Cut edges as (inside, outside) vertex, and the vertex at their cut point.
    cut_key: [(u8, u8); MAX_CUTS],
    cut_val: [u8; MAX_CUTS],
    ncut: usize,
    /// Directed edges of the new face on the plane, in its orientation.
    cap: [(u8, u8); MAX_CUTS],
    ncap: usize,
}

impl Clipper {
    fn new() -> Clipper {
        Clipper {
            pts: [[0.0; 3]; MAX_VERTS],
            npts: 0,
            live: 0,
            faces: [NO_FACE; MAX_FACES],
            nf: 0,
            idx: [0; MAX_IDX],
            nidx: 0,
            tol: 0.0,
            near: false,
            dist: [0.0; MAX_VERTS],
            cut_key: [(0, 0); MAX_CUTS],
            cut_val: [0; MAX_CUTS],
            ncut: 0,
            cap: [(0, 0); MAX_CUTS],
            ncap: 0,
        }
    }

    /// Builds the polytope of the slabs `lo[i] ≤ axes[i]·p ≤ hi[i]` (`axes[0..3]` = x, y,
    /// z); false if it is empty (or a bound is NaN).
    fn run(&mut self, axes: &[[i8; 3]], lo: &[f64], hi: &[f64]) -> bool {
        if (0..axes.len()).any(|i| lo[i].is_nan() || hi[i].is_nan() || lo[i] > hi[i]) {
            return false;
        }
        let scale = lo
            .iter()
            .chain(hi.iter())
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(f64::MIN_POSITIVE);
        self.aabb([lo[0], lo[1], lo[2]], [hi[0], hi[1], hi[2]], 1e-12 * scale);
        for i in 3..axes.len() {
            let n = axes[i].map(f64::from);
            self.clip(n, hi[i]);
            self.clip(n.map(|x| -x), -lo[i]);
            if self.live == 0 {
                return false;
            }
        }
        true
    }

    /// The box `lo ≤ p ≤ hi`.
    fn aabb(&mut self, lo: [f64; 3], hi: [f64; 3], tol: f64) {
        // Corner `4x + 2y + z` (bit set: the high side).
        for (v, p) in self.pts[..8].iter_mut().enumerate() {
            *p = [
                if v & 4 != 0 { hi[0] } else { lo[0] },
                if v & 2 != 0 { hi[1] } else { lo[1] },
                if v & 1 != 0 { hi[2] } else { lo[2] },
            ];
        }
        const BOX: [([f64; 3], [u8; 4]); 6] = [
            ([-1.0, 0.0, 0.0], [0, 1, 3, 2]),
            ([1.0, 0.0, 0.0], [4, 6, 7, 5]),
            ([0.0, -1.0, 0.0], [0, 4, 5, 1]),
            ([0.0, 1.0, 0.0], [2, 3, 7, 6]),
            ([0.0, 0.0, -1.0], [0, 2, 6, 4]),
            ([0.0, 0.0, 1.0], [1, 5, 7, 3]),
        ];
        for (f, (normal, quad)) in BOX.iter().enumerate() {
            self.idx[4 * f..4 * f + 4].copy_from_slice(quad);
            self.faces[f] = FaceRef {
                mask: quad.iter().fold(0, |m, &v| m | bit(v)),
                normal: *normal,
                start: 4 * f as u16,
                len: 4,
            };
        }
        (self.npts, self.live, self.nf, self.nidx) = (8, 0xff, 6, 24);
        self.tol = tol;
        self.near = (0..3).any(|i| hi[i] - lo[i] <= tol);
    }

    /// Keeps the part with `n·p ≤ d` (within the tolerance) and closes it with a face on
    /// the plane. Vertices within the tolerance count as inside and are kept as they are.
    fn clip(&mut self, n: [f64; 3], d: f64) {
        let tol = self.tol * dot(n, n).sqrt();
        let (mut out, mut near) = (0u64, false);
        for v in bits(self.live) {
            let s = dot(n, self.pts[v]) - d;
            self.dist[v] = s;
            out |= u64::from(s > tol) << v;
            near |= s.abs() <= tol;
        }
        if out == 0 {
            return;
        }
        if out == self.live {
            (self.live, self.nf) = (0, 0);
            return;
        }
        // Room: every cut edge is left by exactly one face (kept → cut off, in the face's
        // order): at most one new vertex each, one cap entry each, and a cut face grows by
        // at most two entries per exit. Half the cut faces' entries bound the exits; they
        // are counted exactly only if that bound is short of room.
        let mut cut_len = 0;
        for f in &self.faces[..self.nf] {
            if f.mask & out != 0 && f.mask & !out != 0 {
                cut_len += f.len as usize;
            }
        }
        let room = |c: &Clipper, exits: usize| {
            c.nidx + cut_len + 3 * exits <= MAX_IDX
                && c.npts + exits <= MAX_VERTS
                && exits <= MAX_CUTS
                && c.nf + exits <= MAX_FACES
        };
        if !room(self, cut_len / 2) {
            let exits = self.count_exits(out);
            if !room(self, exits) {
                out = self.compact(out);
                if !room(self, exits) {
                    // Far beyond k ≤ 26: skip the half-space (the polytope stays larger).
                    return;
                }
            }
        }
        let first_new = self.npts;
        (self.ncut, self.ncap) = (0, 0);
        let mut w = 0;
        for f in 0..self.nf {
            let face = self.faces[f];
            if face.mask & out == 0 {
                self.faces[w] = face;
                w += 1;
            } else if face.mask & !out != 0
                && let Some(g) = self.cut_face(face, out)
            {
                self.faces[w] = g;
                w += 1;
            }
        }
        // The cap: chain the cap edges into closed loops (one in the generic case).
        let mut used = 0u64;
        for e0 in 0..self.ncap {
            if used >> e0 & 1 != 0 {
                continue;
            }
            let fstart = self.nidx;
            let first = self.cap[e0].0;
            let mut e = e0;
            loop {
                used |= 1 << e;
                self.push(fstart, self.cap[e].0);
                let to = self.cap[e].1;
                if to == first {
                    break;
                }
                match (0..self.ncap).find(|&g| used >> g & 1 == 0 && self.cap[g].0 == to) {
                    Some(g) => e = g,
                    None => break,
                }
            }
            if let Some(g) = self.close_face(fstart, n) {
                self.faces[w] = g;
                w += 1;
            }
        }
        self.nf = w;
        let new = (first_new..self.npts).fold(0, |m, v| m | 1u64 << v);
        self.near |= near;
        self.live = self.live & !out | new;
    }

    /// Writes the part of `face` inside the plane (vertices `out` cut off; some kept) as a
    /// new list, recording its cut edge(s) on the cap. `None` if it collapses to a point.
    fn cut_face(&mut self, face: FaceRef, out: u64) -> Option<FaceRef> {
        let (start, len) = (face.start as usize, face.len as usize);
        let fstart = self.nidx;
        // Walk from a kept vertex, so every exit from the kept part precedes its entry.
        let r = (0..len)
            .find(|&j| out & bit(self.idx[start + j]) == 0)
            .unwrap_or(0);
        let mut exit = NONE;
        let mut a = self.idx[start + r];
        for j in r + 1..=r + len {
            let b = self.idx[start + if j < len { j } else { j - len }];
            let (ina, inb) = (out & bit(a) == 0, out & bit(b) == 0);
            if ina {
                self.push(fstart, a);
                if !inb {
                    exit = self.cut(a, b);
                    self.push(fstart, exit);
                }
            } else if inb {
                let entry = self.cut(b, a);
                self.push(fstart, entry);
                // The face runs exit → entry along the plane; the cap runs backwards.
                if entry != exit && self.ncap < MAX_CUTS {
                    self.cap[self.ncap] = (entry, exit);
                    self.ncap += 1;
                }
            }
            a = b;
        }
        self.close_face(fstart, face.normal)
    }

    /// The number of cut edges: edges from a kept vertex to one in `out`, in face order.
    fn count_exits(&self, out: u64) -> usize {
        let mut exits = 0;
        for f in &self.faces[..self.nf] {
            if f.mask & out != 0 && f.mask & !out != 0 {
                let list = &self.idx[f.start as usize..(f.start + f.len) as usize];
                let mut a = list[list.len() - 1];
                for &b in list {
                    exits += usize::from(out & bit(a) == 0 && out & bit(b) != 0);
                    a = b;
                }
            }
        }
        exits
    }

    /// Appends `v` to the list being written from `fstart`, unless it repeats the last one.
    #[inline]
    fn push(&mut self, fstart: usize, v: u8) {
        let ni = self.nidx;
        if ni == fstart || self.idx[ni - 1] != v {
            self.idx[ni] = v;
            self.nidx = ni + 1;
        }
    }

    /// Ends the list written from `fstart`: drops a repeat of its first vertex at the end,
    /// then makes it a face if it still has an edge (two vertices or more).
    fn close_face(&mut self, fstart: usize, normal: [f64; 3]) -> Option<FaceRef> {
        if self.nidx - fstart >= 2 && self.idx[self.nidx - 1] == self.idx[fstart] {
            self.nidx -= 1;
        }
        if self.nidx - fstart < 2 {
            self.nidx = fstart;
            return None;
        }
        let list = &self.idx[fstart..self.nidx];
        Some(FaceRef {
            mask: list.iter().fold(0, |m, &v| m | bit(v)),
            normal,
            start: fstart as u16,
            len: list.len() as u16,
        })
    }

    /// The vertex at the cut point of the edge from kept vertex `a` to cut-off vertex `b`,
    /// created once per edge. A kept vertex on or just beyond the plane is its own cut point.
    #[inline]
    fn cut(&mut self, a: u8, b: u8) -> u8 {
        let key = (a, b);
        if let Some(c) = self.cut_key[..self.ncut].iter().position(|&k| k == key) {
            return self.cut_val[c];
        }
        let (sa, sb) = (self.dist[a as usize], self.dist[b as usize]);
        let t = sa / (sa - sb);
        let v = if t > 0.0 {
            let (pa, pb) = (self.pts[a as usize], self.pts[b as usize]);
            self.pts[self.npts] = lerp(pa, pb, t.min(1.0));
            self.npts += 1;
            (self.npts - 1) as u8
        } else {
            a
        };
        if self.ncut < MAX_CUTS {
            self.cut_key[self.ncut] = key;
            self.cut_val[self.ncut] = v;
            self.ncut += 1;
        }
        v
    }

    /// Renumbers the live vertices `0..` (in order, distances along) and packs the lists;
    /// returns the vertex set `out` renumbered.
    fn compact(&mut self, out: u64) -> u64 {
        let mut remap = [NONE; MAX_VERTS];
        let mut nv = 0;
        let mut new_out = 0;
        for v in bits(self.live) {
            remap[v] = nv as u8;
            new_out |= (out >> v & 1) << nv;
            self.pts[nv] = self.pts[v];
            self.dist[nv] = self.dist[v];
            nv += 1;
        }
        let mut idx = [0u8; MAX_IDX];
        let mut ni = 0;
        for f in &mut self.faces[..self.nf] {
            let (start, len) = (f.start as usize, f.len as usize);
            f.mask = 0;
            for j in 0..len {
                let v = remap[self.idx[start + j] as usize];
                idx[ni + j] = v;
                f.mask |= bit(v);
            }
            f.start = ni as u16;
            ni += len;
        }
        self.idx[..ni].copy_from_slice(&idx[..ni]);
        (self.npts, self.nidx) = (nv, ni);
        self.live = if nv == 64 { u64::MAX } else { (1 << nv) - 1 };
        new_out
    }

    fn face(&self, f: usize) -> &[u8] {
        let FaceRef { start, len, .. } = self.faces[f];
        &self.idx[start as usize..(start + len) as usize]
    }

    /// The distinct vertices, replacing the contents of `out`.
    fn vertices_into(&self, out: &mut Vec<[f64; 3]>) {
        out.clear();
        out.extend(bits(self.live).map(|v| self.pts[v]));
        if self.near {
            dedup_in_place(out, self.tol);
        }
    }

    fn to_polytope(&self) -> Polytope {
        let corners: usize = self.faces[..self.nf].iter().map(|f| f.len as usize).sum();
        let mut pts = Vec::with_capacity(self.live.count_ones() as usize + corners);
        self.vertices_into(&mut pts);
        let nverts = pts.len();
        let mut faces = Vec::with_capacity(self.nf);
        for f in 0..self.nf {
            faces.push(FaceSpan {
                normal: self.faces[f].normal,
                start: pts.len() as u32,
                len: self.faces[f].len as u32,
            });
            pts.extend(self.face(f).iter().map(|&v| self.pts[v as usize]));
        }
        Polytope { pts, nverts, faces }
    }
}

/// The original clipper (heap `Vec`s, atan2-ordered cap faces, O(n²) merging), kept as
/// the reference the fixed-capacity clipper is checked against.
#[cfg(test)]
mod reference {
    use crate::bv::axes::axes;
    use crate::bv::kdop::Kdop;

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

    /// Every point of `a` has one of `b` within `tol` (per coordinate).
    fn covered(a: &[[f64; 3]], b: &[[f64; 3]], tol: f64) -> bool {
        a.iter()
            .all(|p| b.iter().any(|q| (0..3).all(|k| (p[k] - q[k]).abs() <= tol)))
    }

    /// The fixed-capacity clipper against the reference: same vertex set (both ways) up to
    /// 1e-9 of the scale, same volume, and a closed surface (every directed edge of a face
    /// is matched by the reverse edge of another).
    fn compare(ax: &[[i8; 3]], lo: &[f64], hi: &[f64], what: &str) {
        let old = reference::OldPolytope::from_slabs(ax, lo, hi);
        let new = Polytope::from_slabs(ax, lo, hi);
        let scale = lo
            .iter()
            .chain(hi)
            .fold(0.0f64, |m, v| m.max(v.abs()))
            .max(1e-300);
        let tol = 1e-9 * scale;
        let (vo, vn) = (old.vertices(), new.vertices());
        let ctx = || format!("{what}: lo={lo:?} hi={hi:?}\nold={vo:?}\nnew={vn:?}");
        assert_eq!(vo.is_empty(), vn.is_empty(), "emptiness, {}", ctx());
        assert!(covered(&vo, &vn, tol), "old vertex missing, {}", ctx());
        assert!(covered(&vn, &vo, tol), "new vertex not in old, {}", ctx());
        let (wo, wn) = (old.volume(), new.volume());
        assert!(
            (wo - wn).abs() <= 1e-9 * scale.powi(3),
            "volume {wo} vs {wn}, {}",
            ctx()
        );
        let mut c = Box::new(Clipper::new());
        if c.run(ax, lo, hi) {
            assert_eq!(bits(c.live).count(), c.live.count_ones() as usize);
            let mut edges = std::collections::HashMap::<(u8, u8), i32>::new();
            for f in 0..c.nf {
                let face = c.face(f);
                assert!(face.len() >= 2);
                for j in 0..face.len() {
                    let (a, b) = (face[j], face[(j + 1) % face.len()]);
                    *edges.entry((a.min(b), a.max(b))).or_default() += if a < b { 1 } else { -1 };
                }
            }
            assert!(edges.values().all(|&e| e == 0), "open surface, {}", ctx());
            assert!(c.faces[..c.nf].iter().all(|f| f.len >= 2));
        }
    }

    fn compare_points<const H: usize>(pts: &[[f64; 3]], what: &str) {
        let (lo, hi) = Kdop::<H>::extents_f64(pts.iter().copied());
        compare(axes(H), &lo, &hi, &format!("{what} exact H={H}"));
        let k = Kdop::<H>::from_points(pts.iter().copied());
        let (lo, hi) = (k.min.map(f64::from), k.max.map(f64::from));
        compare(axes(H), &lo, &hi, &format!("{what} f32 H={H}"));
        let mut fast = vec![[9.0; 3]];
        kdop_vertices(&k, &mut fast);
        assert_eq!(fast, Polytope::of_kdop(&k).vertices());
    }

    fn compare_all(pts: &[[f64; 3]], what: &str) {
        compare_points::<3>(pts, what);
        compare_points::<7>(pts, what);
        compare_points::<9>(pts, what);
        compare_points::<13>(pts, what);
    }

    #[test]
    fn matches_reference_on_random_kdops() {
        let mut rng = Rng::new(11);
        for round in 0..600 {
            let n = [1, 2, 3, 4, 5, 8, 20, 60][round % 8];
            let off = [0.0, 0.0, 1e3, -7.5][round % 4];
            let shift = |p: [f64; 3]| p.map(|c| c + off);
            // General position.
            let pts: Vec<_> = random_points(&mut rng, n).into_iter().map(shift).collect();
            compare_all(&pts, "random");
            // Small integer grid: many exact coincidences (planes through vertices).
            let grid: Vec<_> = (0..n)
                .map(|_| [0; 3].map(|_| rng.below(4) as f64))
                .map(shift)
                .collect();
            compare_all(&grid, "grid");
            // Planar: an axis plane, a corner-diagonal plane, an edge-diagonal plane.
            let flat: Vec<_> = (0..n)
                .map(|_| {
                    let (x, y) = (rng.below(5) as f64, rng.below(5) as f64);
                    match round % 3 {
                        0 => [x, y, 2.0],
                        1 => [x, y, 3.0 - x - y],
                        _ => [x, 1.0 - x, y],
                    }
                })
                .map(shift)
                .collect();
            compare_all(&flat, "planar");
            let flat: Vec<_> = random_points(&mut rng, n)
                .into_iter()
                .map(|[x, y, _]| [x, y, 0.5 - x - y])
                .collect();
            compare_all(&flat, "planar-diag");
            // Collinear: along an axis, an edge diagonal, a corner diagonal.
            let line: Vec<_> = (0..n)
                .map(|_| {
                    let t = rng.range(-1.0, 1.0);
                    match round % 3 {
                        0 => [t, 0.25, -0.5],
                        1 => [t, t, 0.5],
                        _ => [t, -t, t],
                    }
                })
                .map(shift)
                .collect();
            compare_all(&line, "collinear");
        }
        // Independent random slabs: loose, tight, contradictory (empty), flat.
        for h in [3usize, 7, 9, 13] {
            let ax = axes(h);
            for round in 0..2000 {
                let mut lo = vec![0.0; h];
                let mut hi = vec![0.0; h];
                for i in 0..h {
                    let w = if i < 3 { 1.0 } else { 2.0 };
                    let (a, b) = (rng.range(-w, w), rng.range(-w, w));
                    (lo[i], hi[i]) = (a.min(b), a.max(b));
                    if round % 5 == 0 && rng.below(3) == 0 {
                        lo[i] = hi[i];
                    }
                    if round % 7 == 0 {
                        (lo[i], hi[i]) = (lo[i].round(), hi[i].round());
                    }
                }
                compare(ax, &lo, &hi, "slabs");
            }
        }
    }

    #[test]
    fn degenerate_kdops_match_reference() {
        compare_all(&[[0.3, -0.2, 0.7]], "point");
        compare_all(&[[0.0, 0.0, 0.0]], "origin");
        compare_all(&[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], "double point");
        compare_all(&[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]], "diagonal segment");
        compare_all(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]], "axis segment");
        compare_all(
            &[[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]],
            "triangle",
        );
        let cube: Vec<_> = (0..8)
            .map(|v| [v & 1, v >> 1 & 1, v >> 2 & 1].map(f64::from))
            .collect();
        compare_all(&cube, "cube");
        let octa = [
            [1.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, -1.0, 0.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, -1.0],
        ];
        compare_all(&octa, "octahedron");
        assert!(Polytope::of_kdop(&Kdop::<9>::EMPTY).vertices().is_empty());
        let mut out = vec![[1.0; 3]];
        kdop_vertices(&Kdop::<13>::EMPTY, &mut out);
        assert!(out.is_empty());
    }

    /// Old vs new per polytope: `cargo test --release --lib polytope::tests::timing --
    /// --ignored --nocapture`. With `POLYTOPE_TIMING_DRAGON=1` (and the dragon present),
    /// also over all nodes of its 18-DOP hierarchy (`=all`: and of its 26-DOP one).
    #[test]
    #[ignore = "timing only"]
    fn timing() {
        use std::hint::black_box;
        use std::time::Instant;
        fn run<const H: usize>(kdops: &[Kdop<H>], what: &str) {
            let t = Instant::now();
            let mut n_old = 0;
            for k in kdops {
                n_old += black_box(reference::OldPolytope::of_kdop(k))
                    .vertices()
                    .len();
            }
            let old = t.elapsed().as_secs_f64() * 1e6 / kdops.len() as f64;
            let t = Instant::now();
            let mut n_new = 0;
            for k in kdops {
                n_new += black_box(Polytope::of_kdop(k)).vertices().len();
            }
            let new = t.elapsed().as_secs_f64() * 1e6 / kdops.len() as f64;
            let t = Instant::now();
            let mut out = Vec::new();
            let mut n_fast = 0;
            for k in kdops {
                kdop_vertices(black_box(k), &mut out);
                n_fast += out.len();
            }
            let fast = t.elapsed().as_secs_f64() * 1e6 / kdops.len() as f64;
            println!(
                "{what:>14} k={:>2} ({} polytopes): old {old:.2} µs, of_kdop+vertices \
                 {new:.2} µs ({:.1}x), kdop_vertices {fast:.2} µs ({:.1}x); \
                 vertices {n_old} / {n_new} / {n_fast}",
                2 * H,
                kdops.len(),
                old / new,
                old / fast
            );
        }
        fn random<const H: usize>(rng: &mut Rng) -> Vec<Kdop<H>> {
            (0..20000)
                .map(|i| Kdop::<H>::from_points(random_points(rng, [3, 6, 30, 200][i % 4])))
                .collect()
        }
        let mut rng = Rng::new(5);
        run(&random::<3>(&mut rng), "random");
        run(&random::<7>(&mut rng), "random");
        run(&random::<9>(&mut rng), "random");
        run(&random::<13>(&mut rng), "random");
        let path = std::path::Path::new("/work/shared/meshes/dragon-vrip.ply.gz");
        // The dragon's hierarchies take a while to build: opt in.
        if std::env::var_os("POLYTOPE_TIMING_DRAGON").is_none() {
            return;
        }
        if let Ok(mesh) = crate::mesh::load(path) {
            let bvh = crate::bvh::Bvh::<9>::build(&mesh, &crate::BuildOptions::default());
            let kdops: Vec<_> = bvh.nodes.iter().map(|n| n.bv).collect();
            run(&kdops, "dragon nodes");
            if std::env::var("POLYTOPE_TIMING_DRAGON").as_deref() == Ok("all") {
                let bvh = crate::bvh::Bvh::<13>::build(&mesh, &crate::BuildOptions::default());
                let kdops: Vec<_> = bvh.nodes.iter().map(|n| n.bv).collect();
                run(&kdops, "dragon nodes");
            }
        }
    }
}
