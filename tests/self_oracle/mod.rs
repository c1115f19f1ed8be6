//! The exact rational oracle of self-collision, shared by `tests/self_collision.rs` and
//! `tests/cli_self_collision.rs` (method in the former's module docs).

use meshcollide::Mesh;
use meshcollide::tri::oracle::origin_in_hull_exact;
use num_bigint::BigInt;

pub type P3 = [f64; 3];
type V = [BigInt; 3];

fn z() -> BigInt {
    BigInt::from(0)
}
fn sub(a: &V, b: &V) -> V {
    [0, 1, 2].map(|k| &a[k] - &b[k])
}
fn add(a: &V, b: &V) -> V {
    [0, 1, 2].map(|k| &a[k] + &b[k])
}
fn scale(a: &V, s: &BigInt) -> V {
    [0, 1, 2].map(|k| &a[k] * s)
}
fn dot(a: &V, b: &V) -> BigInt {
    &a[0] * &b[0] + &a[1] * &b[1] + &a[2] * &b[2]
}
fn cross(a: &V, b: &V) -> V {
    [
        &a[1] * &b[2] - &a[2] * &b[1],
        &a[2] * &b[0] - &a[0] * &b[2],
        &a[0] * &b[1] - &a[1] * &b[0],
    ]
}
fn is_zero(a: &V) -> bool {
    a.iter().all(|c| *c == z())
}

/// A rational point `num / den`, `den > 0`.
#[derive(Clone)]
struct Q {
    num: V,
    den: BigInt,
}

/// Whether the rational point `x` lies in the convex hull of the integer points `pts`:
/// `0 ∈ conv{den·p − num}`.
fn in_hull(x: &Q, pts: &[V]) -> bool {
    let shifted: Vec<V> = pts.iter().map(|p| sub(&scale(p, &x.den), &x.num)).collect();
    origin_in_hull_exact(&shifted)
}

/// `p + u·(s_num / s_den)` as a rational point.
fn along(p: &V, u: &V, s_num: BigInt, s_den: BigInt) -> Q {
    let (s_num, s_den) = if s_den < z() {
        (-s_num, -s_den)
    } else {
        (s_num, s_den)
    };
    Q {
        num: add(&scale(p, &s_den), &scale(u, &s_num)),
        den: s_den,
    }
}

/// Every candidate extreme point of `A ∩ B` (module docs); those in both triangles are
/// the points whose hull is `A ∩ B`.
fn candidate_points(a: &[V; 3], b: &[V; 3]) -> Vec<Q> {
    let mut cands = Vec::new();
    for p in a.iter().chain(b) {
        cands.push(Q {
            num: p.clone(),
            den: BigInt::from(1),
        });
    }
    let edges = |t: &[V; 3]| -> Vec<(V, V)> {
        [(0, 1), (1, 2), (2, 0)]
            .iter()
            .filter(|(i, j)| t[*i] != t[*j])
            .map(|&(i, j)| (t[i].clone(), sub(&t[j], &t[i])))
            .collect()
    };
    let (ea, eb) = (edges(a), edges(b));
    for (p, u) in &ea {
        for (r, w) in &eb {
            let n = cross(u, w);
            if is_zero(&n) || dot(&sub(r, p), &n) != z() {
                continue;
            }
            let s = dot(&cross(&sub(r, p), w), &n);
            cands.push(along(p, u, s, dot(&n, &n)));
        }
    }
    for (edges, t) in [(&ea, b), (&eb, a)] {
        let n = cross(&sub(&t[1], &t[0]), &sub(&t[2], &t[0]));
        if is_zero(&n) {
            continue;
        }
        for (p, u) in edges {
            let nu = dot(&n, u);
            if nu != z() {
                cands.push(along(p, u, dot(&n, &sub(&t[0], p)), nu));
            }
        }
    }
    cands
}

/// The self-collision rule decided by the oracle: shared indices, then "a point of `A ∩ B`
/// outside the hull of the shared vertices".
pub fn oracle_pair(ia: [u32; 3], a: &[P3; 3], ib: [u32; 3], b: &[P3; 3]) -> bool {
    let [ba, bb] = crate::common::scaled_to_integers(a, b);
    let shared: Vec<V> = (0..3)
        .filter(|&k| ib.contains(&ia[k]))
        .map(|k| ba[k].clone())
        .collect();
    // The hull of the shared corners is the cheap test: first.
    candidate_points(&ba, &bb)
        .iter()
        .any(|x| (shared.is_empty() || !in_hull(x, &shared)) && in_hull(x, &ba) && in_hull(x, &bb))
}

/// The exact brute force: every pair `i < j` whose closed f64 boxes meet (exact
/// comparisons, so no contact is dropped), decided by the oracle.
pub fn oracle_brute(m: &Mesh) -> Vec<(u32, u32)> {
    sweep_brute(m, false)
}

/// [`oracle_brute`], with pairs that share no vertex decided by `tri::tri_tri_intersect`
/// (the crate's exact two-mesh test, itself checked against the integer oracle elsewhere)
/// when `plain_by_tri_tri`: the rational oracle is then spent on neighbours only, where the
/// rule is new (large models).
pub fn sweep_brute(m: &Mesh, plain_by_tri_tri: bool) -> Vec<(u32, u32)> {
    let n = m.triangle_count();
    let boxes: Vec<(P3, P3)> = (0..n)
        .map(|i| {
            let t = m.triangle(i);
            (
                [0, 1, 2].map(|k| t.iter().map(|p| p[k]).fold(f64::INFINITY, f64::min)),
                [0, 1, 2].map(|k| t.iter().map(|p| p[k]).fold(f64::NEG_INFINITY, f64::max)),
            )
        })
        .collect();
    // Sweep along x: boxes sorted by their low x end.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&i, &j| boxes[i].0[0].total_cmp(&boxes[j].0[0]));
    let mut pairs = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].0[0] > boxes[i].1[0] {
                break;
            }
            let (bi, bj) = (&boxes[i], &boxes[j]);
            if (1..3).any(|c| bj.0[c] > bi.1[c] || bi.0[c] > bj.1[c]) {
                continue;
            }
            let (ti, tj) = (m.triangles[i], m.triangles[j]);
            let hit = if plain_by_tri_tri && !ti.iter().any(|v| tj.contains(v)) {
                meshcollide::tri::tri_tri_intersect(&m.triangle(i), &m.triangle(j))
            } else {
                oracle_pair(ti, &m.triangle(i), tj, &m.triangle(j))
            };
            if hit {
                pairs.push((i.min(j) as u32, i.max(j) as u32));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}
