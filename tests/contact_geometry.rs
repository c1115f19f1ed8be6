//! Contact geometry (`meshcollide::tri::contact`, `query --contact-geometry`) against
//! independent oracles; no expected value is copied from a run.
//!
//! The library finds the intersection set's extreme points among candidates (vertices
//! inside, edge crossings, edge–plane crossings). The oracle here shares no formula with
//! it: it *clips* one triangle (as a polygon, possibly degenerate) by the five half-spaces
//! whose intersection is the other, proper, triangle (both sides of its plane and the three
//! edge half-spaces `(n × e_j)·(x − t_j) ≥ 0`), Sutherland–Hodgman in exact rational
//! arithmetic, so the clipped vertex list's convex hull is the intersection. Then:
//!
//! * the library's result is `Some` iff the clip is nonempty iff `tri_tri_intersect`;
//! * every vertex the library gives is one of the clipped points (an extreme point of the
//!   hull is one of the points), and every clipped point lies in the library's point,
//!   segment or polygon (so the library's set is the whole intersection), with the
//!   documented order (segment lexicographic, polygon strictly convex, wound like `A`,
//!   from its least vertex);
//! * every rounded point is within rounding of both triangles: its exact distance to each
//!   ([`tri_tri_distance`] of the degenerate triangle `[r, r, r]`) is at most
//!   `√Σ (ulp(r_k)/2)²`, what rounding each coordinate once to nearest can move it.

#![cfg(feature = "cli")]

mod common;

use meshcollide::rng::Rng;
use meshcollide::tri::contact::{Contact, ExactPoint, contact_geometry, contact_geometry_exact};
use meshcollide::tri::distance::tri_tri_distance;
use meshcollide::tri::exact::{Arith, Dyadic, cmp_ratio};
use meshcollide::tri::tri_tri_intersect;
use meshcollide::{Mesh, Pose};
use std::cmp::Ordering;
use std::path::Path;
use std::process::Output;

type P3 = [f64; 3];
type V = [Dyadic; 3];

// ---------------------------------------------------------------------------------------
// Exact rational points of the oracle: `n / d`, `d > 0`.

#[derive(Clone, Debug)]
struct H {
    n: V,
    d: Dyadic,
}

fn z(x: &Dyadic) -> Ordering {
    x.sign().unwrap()
}

fn h(p: &P3) -> H {
    H {
        n: p.map(Dyadic::from_f64),
        d: Dyadic::from_f64(1.0),
    }
}

fn from_lib(p: &ExactPoint) -> H {
    H {
        n: p.num.clone(),
        d: p.den.clone(),
    }
}

fn sub(a: &V, b: &V) -> V {
    [0, 1, 2].map(|k| a[k].sub(&b[k]))
}

fn dot(a: &V, b: &V) -> Dyadic {
    a[0].mul(&b[0]).add(&a[1].mul(&b[1])).add(&a[2].mul(&b[2]))
}

fn cross(a: &V, b: &V) -> V {
    [
        a[1].mul(&b[2]).sub(&a[2].mul(&b[1])),
        a[2].mul(&b[0]).sub(&a[0].mul(&b[2])),
        a[0].mul(&b[1]).sub(&a[1].mul(&b[0])),
    ]
}

fn is_zero(v: &V) -> bool {
    v.iter().all(|x| z(x) == Ordering::Equal)
}

/// A positive multiple of `q − p`.
fn dir(p: &H, q: &H) -> V {
    [0, 1, 2].map(|k| q.n[k].mul(&p.d).sub(&p.n[k].mul(&q.d)))
}

fn same(p: &H, q: &H) -> bool {
    is_zero(&dir(p, q))
}

fn lex(p: &H, q: &H) -> Ordering {
    (0..3)
        .map(|k| cmp_ratio(&p.n[k], &p.d, &q.n[k], &q.d))
        .find(|c| *c != Ordering::Equal)
        .unwrap_or(Ordering::Equal)
}

/// The sign of `m·x − c` for `x = n/d`: the sign of `m·n − c·d`.
fn side(m: &V, c: &Dyadic, x: &H) -> Dyadic {
    dot(m, &x.n).sub(&c.mul(&x.d))
}

/// Sutherland–Hodgman: the points of the cyclic list `poly` with `m·x ≥ c`, and the
/// crossings of its edges with `m·x = c`: for values `S_i`, `S_j` of opposite strict signs,
/// `x = (S_i·n_j − S_j·n_i) / (S_i·d_j − S_j·d_i)` (the point where the value vanishes on
/// the edge, its denominator made positive).
fn clip(poly: &[H], m: &V, c: &Dyadic) -> Vec<H> {
    let mut out = Vec::new();
    let k = poly.len();
    for i in 0..k {
        let (p, q) = (&poly[i], &poly[(i + 1) % k]);
        let (sp, sq) = (side(m, c, p), side(m, c, q));
        if z(&sp) != Ordering::Less {
            out.push(p.clone());
        }
        let strict = |a: &Dyadic, b: &Dyadic| {
            (z(a) == Ordering::Greater && z(b) == Ordering::Less)
                || (z(a) == Ordering::Less && z(b) == Ordering::Greater)
        };
        if k > 1 && strict(&sp, &sq) {
            let n = [0, 1, 2].map(|t| sp.mul(&q.n[t]).sub(&sq.mul(&p.n[t])));
            let d = sp.mul(&q.d).sub(&sq.mul(&p.d));
            out.push(if z(&d) == Ordering::Less {
                H {
                    n: n.map(|x| x.neg()),
                    d: d.neg(),
                }
            } else {
                H { n, d }
            });
        }
    }
    out
}

/// The normal `(t1 − t0) × (t2 − t0)`, zero for a degenerate triangle.
fn normal(t: &[P3; 3]) -> V {
    let [t0, t1, t2] = t.map(|p| h(&p).n);
    cross(&sub(&t1, &t0), &sub(&t2, &t0))
}

/// `poly ∩ t` for a proper triangle `t` by clipping (module documentation).
fn clip_by(poly: &[P3; 3], t: &[P3; 3]) -> Vec<H> {
    let n = normal(t);
    let tv = t.map(|p| h(&p).n);
    let mut pts: Vec<H> = poly.iter().map(h).collect();
    let c = dot(&n, &tv[0]);
    pts = clip(&pts, &n, &c);
    pts = clip(&pts, &n.clone().map(|x| x.neg()), &c.neg());
    for j in 0..3 {
        let e = sub(&tv[(j + 1) % 3], &tv[j]);
        let m = cross(&n, &e);
        let c = dot(&m, &tv[j]);
        pts = clip(&pts, &m, &c);
    }
    pts
}

/// `x` in the library's contact set (exactly), given `A`'s normal for a polygon.
fn in_contact(c: &Contact<H>, x: &H, na: &V) -> bool {
    match c {
        Contact::Point(p) => same(p, x),
        Contact::Segment(p, q) => {
            let (pq, px, qx) = (dir(p, q), dir(p, x), dir(q, x));
            is_zero(&cross(&pq, &px))
                && z(&dot(&pq, &px)) != Ordering::Less
                && z(&dot(&pq, &qx)) != Ordering::Greater
        }
        Contact::Polygon(v) => {
            z(&dot(na, &dir(&v[0], x))) == Ordering::Equal
                && (0..v.len()).all(|i| {
                    let (p, q) = (&v[i], &v[(i + 1) % v.len()]);
                    z(&dot(&cross(&dir(p, q), &dir(p, x)), na)) != Ordering::Less
                })
        }
    }
}

/// Checks one pair against the oracles of the module documentation; what it was.
fn check(a: &[P3; 3], b: &[P3; 3], what: &str) -> &'static str {
    let exact = contact_geometry_exact(a, b);
    let rounded = contact_geometry(a, b);
    let meets = tri_tri_intersect(a, b);
    assert_eq!(exact.is_some(), meets, "{what}: {a:?} {b:?}");
    assert_eq!(rounded.is_some(), meets, "{what}");
    let Some(exact) = exact else {
        return "none";
    };
    let rounded = rounded.unwrap();
    assert_eq!(rounded, exact.map(ExactPoint::rounded), "{what}");
    let c = exact.map(from_lib);
    let na = normal(a);
    // The documented order and shape.
    match &c {
        Contact::Point(_) => {}
        Contact::Segment(p, q) => assert_eq!(lex(p, q), Ordering::Less, "{what}"),
        Contact::Polygon(v) => {
            assert!(v.len() >= 3, "{what}");
            for i in 0..v.len() {
                let (p, q, r) = (&v[i], &v[(i + 1) % v.len()], &v[(i + 2) % v.len()]);
                let turn = dot(&cross(&dir(p, q), &dir(q, r)), &na);
                assert_eq!(
                    z(&turn),
                    Ordering::Greater,
                    "{what}: not convex, wound like A"
                );
                assert_eq!(
                    lex(&v[0], p),
                    if i == 0 {
                        Ordering::Equal
                    } else {
                        Ordering::Less
                    }
                );
            }
        }
    }
    // Maximal and exact, where a triangle is proper (the clipping oracle needs one).
    let clipped = if !is_zero(&normal(b)) {
        Some(clip_by(a, b))
    } else if !is_zero(&na) {
        Some(clip_by(b, a))
    } else {
        None
    };
    if let Some(pts) = clipped {
        assert!(
            !pts.is_empty(),
            "{what}: the clip is empty, the library met"
        );
        let vertices = match &c {
            Contact::Point(p) => vec![p.clone()],
            Contact::Segment(p, q) => vec![p.clone(), q.clone()],
            Contact::Polygon(v) => v.clone(),
        };
        for v in &vertices {
            assert!(
                pts.iter().any(|p| same(p, v)),
                "{what}: {v:?} not a clipped point"
            );
        }
        for p in &pts {
            assert!(
                in_contact(&c, p, &na),
                "{what}: clipped {p:?} outside {c:?}"
            );
        }
    }
    // Within rounding of both triangles.
    for (p, q) in rounded.edges() {
        for r in [p, q] {
            let mut b2 = Dyadic::zero();
            for x in r {
                let u = x.abs().next_up() - x.abs();
                let half = Dyadic::from_f64(u).mul(&Dyadic::from_f64(0.5));
                b2 = b2.add(&half.mul(&half));
            }
            for t in [a, b] {
                let (num, den) = tri_tri_distance(&[r; 3], t).exact_squared();
                let one = Dyadic::from_f64(1.0);
                assert_ne!(
                    cmp_ratio(&num, &den, &b2, &one),
                    Ordering::Greater,
                    "{what}: {r:?} farther than rounding from {t:?}"
                );
            }
        }
    }
    match c {
        Contact::Point(_) => "point",
        Contact::Segment(..) => "segment",
        Contact::Polygon(_) => "polygon",
    }
}

fn grid_tri(r: &mut Rng, n: u64) -> [P3; 3] {
    std::array::from_fn(|_| std::array::from_fn(|_| r.below(n) as f64 * 0.5))
}

fn float_tri(r: &mut Rng, c: P3, s: f64) -> [P3; 3] {
    std::array::from_fn(|_| std::array::from_fn(|k| c[k] + r.range(-s, s)))
}

/// Tallies what the checked pairs were, so that each case is seen to occur.
#[derive(Default, Debug)]
struct Seen(std::collections::BTreeMap<&'static str, usize>);

impl Seen {
    fn add(&mut self, s: &'static str) {
        *self.0.entry(s).or_default() += 1;
    }
    fn has(&self, s: &str) -> bool {
        self.0.get(s).is_some_and(|&n| n > 0)
    }
}

/// Small half-integer grids: touching vertices and edges, coplanar overlaps, collinear and
/// repeated vertices (degenerate triangles) are all common.
#[test]
fn grid_pairs_match_the_clipping_oracle() {
    let mut r = Rng::new(405);
    let mut seen = Seen::default();
    for i in 0..common::cases(4000) {
        let n = if i % 2 == 0 { 3 } else { 5 };
        let (a, b) = (grid_tri(&mut r, n), grid_tri(&mut r, n));
        seen.add(check(&a, &b, "grid"));
    }
    // Coplanar pairs in a tilted plane x + y + z = 3 (exact on the half-integer grid).
    for _ in 0..common::cases(1500) {
        let mut t = || -> [P3; 3] {
            std::array::from_fn(|_| {
                let (x, y) = (r.below(5) as f64 * 0.5, r.below(5) as f64 * 0.5);
                [x, y, 3.0 - x - y]
            })
        };
        let (a, b) = (t(), t());
        seen.add(check(&a, &b, "tilted plane"));
    }
    for s in ["none", "point", "segment", "polygon"] {
        assert!(seen.has(s), "no {s}: {seen:?}");
    }
}

/// Float coordinates near the origin and far from it (`1e7`, where an ulp is `2^-29`), in
/// general position, and coplanar (a shared `z`), with B's vertices on A's edges or at A's
/// vertices (exact midpoints) for touching pairs.
#[test]
fn float_pairs_match_the_clipping_oracle() {
    let mut r = Rng::new(4052);
    let mut seen = Seen::default();
    for i in 0..common::cases(3000) {
        let off = if i % 3 == 0 { 1e7 } else { 0.0 };
        let c = [off, off * 0.5, -off];
        let a = float_tri(&mut r, c, 1.0);
        let mut b = float_tri(&mut r, c, 1.0);
        match i % 5 {
            1 => {
                // Coplanar: the plane z = a0.z.
                let a = a.map(|p| [p[0], p[1], c[2]]);
                b = b.map(|p| [p[0], p[1], c[2]]);
                seen.add(check(&a, &b, "coplanar"));
                continue;
            }
            2 => b[0] = a[(i / 5) % 3],
            3 => {
                let (p, q) = (a[0], a[1]);
                b[0] = std::array::from_fn(|k| p[k] * 0.5 + q[k] * 0.5);
            }
            4 => b[1] = b[0], // a segment
            _ => {}
        }
        seen.add(check(&a, &b, "float"));
    }
    for s in ["none", "point", "segment", "polygon"] {
        assert!(seen.has(s), "no {s}: {seen:?}");
    }
}

// ---------------------------------------------------------------------------------------
// The command line.

fn run(dir: &Path, args: &[&str]) -> Output {
    common::bin().current_dir(dir).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A torus against itself: tumbling poses (crossing surfaces), one far apart, and the
/// identity (every triangle coplanar with its copy: overlap polygons).
fn scene(name: &str) -> (std::path::PathBuf, Mesh, Mesh, Vec<Pose>) {
    let d = common::fresh_tmp_dir("contact", name);
    let (a, _) = common::tori(8);
    let b = a.clone();
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let mut poses = meshcollide::pose::tumbling_poses(5, [0.0; 3], [1.0, 0.1, 0.0]);
    poses.push(Pose::translation([50.0, 0.0, 0.0]));
    poses.push(Pose::translation([0.0; 3]));
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    let poses = meshcollide::pose::read_poses(&d.join("poses.csv")).unwrap();
    // The OBJ's decimals are what the command reads.
    let a = meshcollide::mesh::load(&d.join("a.obj")).unwrap();
    let b = meshcollide::mesh::load(&d.join("b.obj")).unwrap();
    (d, a, b, poses)
}

fn query(extra: &[&str]) -> Vec<String> {
    let mut q: Vec<String> = ["query", "a.obj", "b.obj", "--poses", "poses.csv", "--out"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    q.extend(extra.iter().map(|s| s.to_string()));
    q
}

fn run_q(d: &Path, q: &[String]) -> Output {
    let q: Vec<&str> = q.iter().map(String::as_str).collect();
    run(d, &q)
}

#[test]
fn segments_csv_follows_pairs_csv() {
    let (d, a, b, poses) = scene("rows");
    let o = run_q(&d, &query(&["p.csv", "--contact-geometry"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let pairs =
        meshcollide::formats::parse_pairs(&std::fs::read_to_string(d.join("p.csv")).unwrap())
            .unwrap();
    let text = std::fs::read_to_string(d.join("segments.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("pose,tri_a,tri_b,x0,y0,z0,x1,y1,z1"));
    let rows: Vec<(u32, u32, u32, [f64; 6])> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 9, "{l}");
            let x: Vec<f64> = f[3..].iter().map(|s| s.parse().unwrap()).collect();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                f[2].parse().unwrap(),
                std::array::from_fn(|k| x[k]),
            )
        })
        .collect();
    // One run of rows per pair, in pairs.csv's order, as many as the pair's contact has
    // edges, each the contact's edge as the library rounds it.
    let mut at = 0;
    let mut polygons = 0;
    for &(pose, ta, tb) in &pairs {
        let tri_a = a.triangle(ta as usize);
        let tri_b = b
            .triangle(tb as usize)
            .map(|p| poses[pose as usize].apply(p));
        let c = contact_geometry(&tri_a, &tri_b).expect("a reported pair meets");
        polygons += matches!(c, Contact::Polygon(_)) as usize;
        for (p, q) in c.edges() {
            let (rp, rta, rtb, x) = rows[at];
            assert_eq!((rp, rta, rtb), (pose, ta, tb));
            assert_eq!(
                x,
                [p[0], p[1], p[2], q[0], q[1], q[2]],
                "pair {pose},{ta},{tb}"
            );
            at += 1;
        }
    }
    assert_eq!(at, rows.len(), "rows beyond the pairs");
    assert!(
        pairs.len() > 100 && polygons > 0,
        "{} pairs, {polygons} polygons",
        pairs.len()
    );
    // `--tolerance 0` is the ordinary query; `--segments` names the file.
    let o = run_q(
        &d,
        &query(&[
            "p2.csv",
            "--contact-geometry",
            "--segments",
            "s.csv",
            "--tolerance",
            "0",
        ]),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(d.join("s.csv")).unwrap(), text);
    // A pose range streamed in chunks of two: the same rows, the file's pose numbers.
    let o = run_q(
        &d,
        &query(&[
            "p3.csv",
            "--contact-geometry",
            "--segments",
            "r.csv",
            "--pose-range",
            "2:7",
            "--chunk-poses",
            "2",
        ]),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let ranged: String = text
        .lines()
        .skip(1)
        .filter(|l| (2..7).contains(&l.split(',').next().unwrap().parse::<u32>().unwrap()))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        std::fs::read_to_string(d.join("r.csv")).unwrap(),
        format!("pose,tri_a,tri_b,x0,y0,z0,x1,y1,z1\n{ranged}")
    );
}

#[test]
fn bad_combinations_are_refused_and_outputs_kept() {
    let (d, ..) = scene("refused");
    let refused = |o: &Output, words: &[&str]| {
        assert_eq!(o.status.code(), Some(2), "{}", stderr(o));
        for w in words {
            assert!(stderr(o).contains(w), "`{w}` not in {}", stderr(o));
        }
    };
    let o = run_q(
        &d,
        &query(&["p.csv", "--contact-geometry", "--tolerance", "0.1"]),
    );
    refused(&o, &["--contact-geometry", "--tolerance"]);
    std::fs::write(d.join("frames.txt"), "a.obj\n").unwrap();
    let o = run_q(
        &d,
        &query(&["p.csv", "--contact-geometry", "--frames-a", "frames.txt"]),
    );
    refused(&o, &["--contact-geometry", "--frames-a"]);
    let o = run_q(&d, &query(&["p.csv", "--segments", "s.csv"]));
    refused(&o, &["--contact-geometry"]);
    let o = run_q(
        &d,
        &query(&["p.csv", "--contact-geometry", "--segments", "p.csv"]),
    );
    refused(&o, &["--segments", "--out", "same file"]);
    let o = run_q(
        &d,
        &query(&["p.csv", "--contact-geometry", "--segments", "a.obj"]),
    );
    refused(&o, &["--segments", "a.obj"]);
    assert!(!d.join("p.csv").exists() && !d.join("segments.csv").exists());
    // A read-only segments file is kept without --force, replaced with it.
    let s = d.join("segments.csv");
    std::fs::write(&s, "kept").unwrap();
    let mut perm = std::fs::metadata(&s).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&s, perm).unwrap();
    let o = run_q(&d, &query(&["p.csv", "--contact-geometry"]));
    refused(&o, &["segments.csv", "read-only", "--force"]);
    assert_eq!(std::fs::read_to_string(&s).unwrap(), "kept");
    let o = run_q(&d, &query(&["p.csv", "--contact-geometry", "--force"]));
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&s)
            .unwrap()
            .starts_with("pose,tri_a,tri_b,x0,")
    );
}

/// `meshcollide self --contact-geometry`: one run of rows per pair of pairs.csv, each the
/// library's contact of the two triangles as written (neighbours included whole).
#[test]
fn self_writes_the_contacts_of_its_pairs() {
    let d = common::fresh_tmp_dir("contact", "self");
    let o = run(&d, &["generate", "folded-sheet", "--out", "s.obj"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = meshcollide::mesh::load(&d.join("s.obj")).unwrap();
    let o = run(
        &d,
        &[
            "self",
            "s.obj",
            "--out",
            "p.csv",
            "--contact-geometry",
            "--segments",
            "g.csv",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let pairs =
        meshcollide::formats::parse_pairs(&std::fs::read_to_string(d.join("p.csv")).unwrap())
            .unwrap();
    let mut want = String::from("pose,tri_a,tri_b,x0,y0,z0,x1,y1,z1\n");
    for &(f, ta, tb) in &pairs {
        let c = contact_geometry(&m.triangle(ta as usize), &m.triangle(tb as usize)).unwrap();
        for (p, q) in c.edges() {
            want += &format!(
                "{f},{ta},{tb},{},{},{},{},{},{}\n",
                p[0], p[1], p[2], q[0], q[1], q[2]
            );
        }
    }
    assert!(!pairs.is_empty());
    assert_eq!(std::fs::read_to_string(d.join("g.csv")).unwrap(), want);
    std::fs::write(d.join("f.txt"), "s.obj\n").unwrap();
    let o = run(
        &d,
        &[
            "self",
            "s.obj",
            "--frames-a",
            "f.txt",
            "--out",
            "q.csv",
            "--contact-geometry",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--contact-geometry") && stderr(&o).contains("--frames-a"));
    assert!(!d.join("q.csv").exists() && !d.join("segments.csv").exists());
}
