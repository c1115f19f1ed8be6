//! The shared-feature rule against exact comparison.

use super::super::{TriDistance, tri_tri_distance};
use super::*;
use crate::rng::Rng;

/// `n` triangles around the apex `p`, their other corners on a ring of radius 1 about `p`,
/// `side` (±1) times a random height in `[0.1, 0.6]` along z from it.
fn fan(r: &mut Rng, p: P3, n: usize, side: f64) -> Vec<[P3; 3]> {
    let ring: Vec<P3> = (0..n)
        .map(|i| {
            let t = std::f64::consts::TAU * (i as f64 + r.range(-0.2, 0.2)) / n as f64;
            [
                p[0] + t.cos(),
                p[1] + t.sin(),
                p[2] + side * r.range(0.1, 0.6),
            ]
        })
        .collect();
    (0..n).map(|i| [p, ring[i], ring[(i + 1) % n]]).collect()
}

/// A height field of `n × n` squares (two triangles each) of side 1 at height `z + h(x, y)`.
fn field(n: usize, z: f64, h: impl Fn(usize, usize) -> f64) -> Vec<[P3; 3]> {
    let p = |i: usize, j: usize| [i as f64, j as f64, z + h(i, j)];
    let mut out = Vec::new();
    for i in 0..n {
        for j in 0..n {
            out.push([p(i, j), p(i + 1, j), p(i + 1, j + 1)]);
            out.push([p(i, j), p(i + 1, j + 1), p(i, j + 1)]);
        }
    }
    out
}

/// Every ordered pair of the `pairs`' distances: `cmp_shared` equals `cmp_exact` (each on
/// fresh values, so that no exact value computed by one reaches the other); returns how
/// many comparisons the bounds left open, how many of those the rule decided, and how
/// many `cmp_shared` decided without any exact value.
fn agree(pairs: &[([P3; 3], [P3; 3])]) -> (usize, usize, usize) {
    let (mut open, mut ruled, mut cheap) = (0, 0, 0);
    for x in pairs {
        for y in pairs {
            let (d1, d2) = (tri_tri_distance(&x.0, &x.1), tri_tri_distance(&y.0, &y.1));
            let want = tri_tri_distance(&x.0, &x.1).cmp_exact(&tri_tri_distance(&y.0, &y.1));
            assert_eq!(d1.cmp_shared(&d2), want, "{x:?} against {y:?}");
            if d1.cmp_bounds(&d2).is_none() && !d1.is_zero() {
                open += 1;
                cheap += (d1.exact.get().is_none() && d2.exact.get().is_none()) as usize;
                let (me, them) = ((&x.0, &x.1), (&y.0, &y.1));
                let rule = cmp_sharing(d2.attaining_feature(), them, me).or_else(|| {
                    cmp_sharing(d1.attaining_feature(), me, them).map(Ordering::reverse)
                });
                if let Some(o) = rule {
                    assert_eq!(o, want, "the rule on {x:?} against {y:?}");
                    ruled += 1;
                }
            }
        }
    }
    (open, ruled, cheap)
}

fn pairs_of(a: &[[P3; 3]], b: &[[P3; 3]]) -> Vec<([P3; 3], [P3; 3])> {
    a.iter()
        .flat_map(|x| b.iter().map(move |y| (*x, *y)))
        .collect()
}

/// Two fans whose apexes are the closest points, anywhere in space: all 36 pairs are at
/// exactly the same distance and every comparison is decided by the rule.
#[test]
fn fans_around_the_closest_vertices_tie_without_exact_arithmetic() {
    let mut r = Rng::new(11);
    for off in [0.0, 1e7, -3.5e4] {
        let p = [off, 0.25, -1.0];
        let q = [off + r.range(-0.1, 0.1), 0.25 + r.range(-0.1, 0.1), 0.5];
        let (a, b) = (fan(&mut r, p, 6, -1.0), fan(&mut r, q, 6, 1.0));
        let (open, ruled, cheap) = agree(&pairs_of(&a, &b));
        assert_eq!(open, 36 * 36, "every pair of pairs ties");
        assert_eq!((ruled, cheap), (open, open), "the rule decided every tie");
    }
}

/// Height fields facing each other: flat regions (exact zeros, the exact fallback of the
/// signs), ties between faces and edges, strict orders; the rule agrees with exact
/// comparison on the pairs nearest the minimum.
#[test]
fn height_fields_agree_with_exact_comparison() {
    let mut r = Rng::new(12);
    for (k, off) in [0.0, 1e7].into_iter().enumerate() {
        let bumps: Vec<f64> = (0..36).map(|_| r.range(0.0, 0.3)).collect();
        let flat = |i: usize, j: usize| {
            if (i + j).is_multiple_of(3) {
                0.0
            } else {
                -bumps[i * 6 + j]
            }
        };
        let a = field(5, off, flat);
        let b = field(
            5,
            off + 1.0,
            |i, j| if k == 0 { 0.0 } else { bumps[j * 6 + i] },
        );
        let mut all = pairs_of(&a, &b);
        let d: Vec<TriDistance> = all.iter().map(|(x, y)| tri_tri_distance(x, y)).collect();
        let mut order: Vec<usize> = (0..all.len()).collect();
        order.sort_by(|&i, &j| d[i].cmp_exact(&d[j]));
        all = order.iter().take(40).map(|&i| all[i]).collect();
        let (open, ruled, _) = agree(&all);
        assert!(ruled * 4 > open, "{open} open, {ruled} ruled");
    }
}

/// A neighbour bent towards the other mesh: the rule says `Less`, and it is.
#[test]
fn a_bent_neighbour_is_strictly_closer() {
    let (p, q) = ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
    let a = [p, [1.0, 0.0, -0.5], [0.0, 1.0, -0.5]];
    let b = [q, [1.0, 0.0, 1.5], [0.0, 1.0, 1.5]];
    let f = Feature::VertexVertex { a: 0, b: 0 };
    assert_eq!(tri_tri_distance(&a, &b).feature_exact(), f);
    for (lift, want) in [
        (0.0, Ordering::Equal),
        (0.5, Ordering::Less),
        (1e-12, Ordering::Less),
    ] {
        let a2 = [p, [-1.0, 0.0, -0.5 + lift], [0.0, -1.0, -0.5]];
        let a2 = if lift > 0.0 {
            [p, [-1.0, 0.0, lift], [0.0, -1.0, -0.5]]
        } else {
            a2
        };
        assert_eq!(
            cmp_sharing(f, (&a, &b), (&a2, &b)),
            Some(want),
            "lift {lift}"
        );
        assert_eq!(
            tri_tri_distance(&a2, &b).cmp_exact(&tri_tri_distance(&a, &b)),
            want
        );
    }
    // A triangle without the shared corner: not for the rule.
    let far = [[5.0, 0.0, 0.0], [6.0, 0.0, 0.0], [5.0, 1.0, 0.0]];
    assert_eq!(cmp_sharing(f, (&a, &b), (&far, &b)), None);
}
