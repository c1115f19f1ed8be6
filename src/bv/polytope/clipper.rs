//! The fixed-capacity clipper behind [`Polytope`] and [`kdop_vertices`](super::kdop_vertices):
//! a vertex pool with bit-mask vertex sets and faces as index lists (see the parent
//! module's doc for the algorithm and its tolerance).

use super::{FaceSpan, Polytope};
use crate::geom::{dot, lerp};

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
pub(super) fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let v = m.trailing_zeros() as usize;
            m &= m - 1;
            v
        })
    })
}

#[derive(Debug, Clone, Copy)]
pub(super) struct FaceRef {
    /// The face's vertices as a set.
    mask: u64,
    normal: [f64; 3],
    start: u16,
    pub(super) len: u16,
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
pub(super) struct Clipper {
    pts: [[f64; 3]; MAX_VERTS],
    /// Pool entries in use (live or dead).
    npts: usize,
    /// The vertices of the polytope (a point may be kept by no face of three vertices or
    /// more: a degenerate k-DOP reduced to a point).
    pub(super) live: u64,
    pub(super) faces: [FaceRef; MAX_FACES],
    pub(super) nf: usize,
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
    pub(super) fn new() -> Clipper {
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
    pub(super) fn run(&mut self, axes: &[[i8; 3]], lo: &[f64], hi: &[f64]) -> bool {
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

    pub(super) fn face(&self, f: usize) -> &[u8] {
        let FaceRef { start, len, .. } = self.faces[f];
        &self.idx[start as usize..(start + len) as usize]
    }

    /// The distinct vertices, replacing the contents of `out`.
    pub(super) fn vertices_into(&self, out: &mut Vec<[f64; 3]>) {
        out.clear();
        out.extend(bits(self.live).map(|v| self.pts[v]));
        if self.near {
            dedup_in_place(out, self.tol);
        }
    }

    pub(super) fn to_polytope(&self) -> Polytope {
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
