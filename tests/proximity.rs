//! The tolerance and distance queries ([`meshcollide::proximity`]) against their oracles:
//! every triangle pair tested by the exact `tri_tri_within` (tolerance) or measured by the
//! exact `tri_tri_distance` (distance), on every hierarchy, on touching and coplanar grid
//! soups, soups in general position, tumbling tori and scenes 10⁷ from the origin. The
//! exact triangle primitives themselves are tested against a rational oracle in
//! `tests/tri_distance.rs`.

mod common;

use meshcollide::proximity::distance::{PoseDistance, brute_force_distance};
use meshcollide::proximity::{Tolerance, brute_force_within};
use meshcollide::*;

type Case = common::ProximityCase;

fn cases() -> Vec<Case> {
    common::proximity_cases(
        0x70_1e_2a_9c,
        &common::CaseSizes {
            grid: (14, 24),
            float: (40, 24),
            tori_poses: 16,
            far: (30, 16),
            grid_eps_max: 0.75,
        },
    )
}

fn collider(a: &Mesh, b: &Mesh, bv: BvKind) -> Collider {
    Collider::builder(a, b).bv(bv).build().unwrap()
}

fn within(eps: f64) -> QueryOptions {
    QueryOptions {
        tolerance: Tolerance::new(eps, "eps").unwrap(),
        ..Default::default()
    }
}

/// Every hierarchy's tolerance query equals the all-pairs oracle at every pose and ε, in
/// all-contacts mode; first-contact mode finds one of the oracle's pairs exactly when there
/// is one. The pairs grow with ε.
#[test]
fn tolerance_pairs_equal_brute_force_on_every_hierarchy() {
    let mut nonempty = 0;
    for case in cases() {
        let oracle: Vec<Vec<Vec<(u32, u32)>>> = case
            .eps
            .iter()
            .map(|&e| {
                case.poses
                    .iter()
                    .map(|p| brute_force_within(&case.a, &case.b, p, e))
                    .collect()
            })
            .collect();
        for (w, per_eps) in oracle.windows(2).zip(case.eps.windows(2)) {
            for (small, big) in w[0].iter().zip(&w[1]) {
                assert!(
                    small.iter().all(|p| big.contains(p)),
                    "{}: ε {per_eps:?}",
                    case.name
                );
            }
        }
        for bv in BvKind::EVERY {
            let c = collider(&case.a, &case.b, bv);
            for (k, &e) in case.eps.iter().enumerate() {
                let got = c.collide_batch_with(&case.poses, &within(e), None);
                for (i, r) in got.iter().enumerate() {
                    assert_eq!(
                        r.pairs,
                        oracle[k][i],
                        "{}, {}, ε {e}, pose {i}",
                        case.name,
                        bv.name()
                    );
                    nonempty += !r.pairs.is_empty() as usize;
                }
                let first = QueryOptions {
                    mode: Mode::First,
                    ..within(e)
                };
                for (i, p) in case.poses.iter().enumerate() {
                    let r = c.collide_with(p, &first);
                    assert_eq!(r.pairs.is_empty(), oracle[k][i].is_empty());
                    assert!(r.pairs.iter().all(|q| oracle[k][i].contains(q)));
                }
            }
        }
    }
    // The scenes are not trivially empty (a test that cannot fail is no test).
    assert!(nonempty > 100, "{nonempty}");
}

/// `--tolerance 0` is the ordinary query: the same pairs and the same counters on every
/// hierarchy.
#[test]
fn tolerance_zero_is_the_ordinary_query() {
    for case in cases() {
        for bv in BvKind::EVERY {
            let c = collider(&case.a, &case.b, bv);
            let plain = c.collide_batch(&case.poses);
            let zero = c.collide_batch_with(&case.poses, &within(0.0), None);
            assert_eq!(plain, zero, "{}, {}", case.name, bv.name());
        }
    }
}

/// The grown k-DOP test at its edge: two unit cubes exactly ε apart along x and along the
/// diagonal are within ε, and a hair farther they are not, on every k.
#[test]
fn cubes_exactly_eps_apart() {
    let cube = mesh::generate::box_mesh([0.0; 3], [1.0; 3]);
    for bv in BvKind::EVERY {
        let c = collider(&cube, &cube, bv);
        for (t, eps) in [
            ([1.5, 0.0, 0.0], 0.5),
            ([1.25, 1.25, 0.0], 0.25 * 2f64.sqrt()),
        ] {
            let pose = Pose::new([1.0, 0.0, 0.0, 0.0], t);
            // ε as an f64 is not the real √2/4: decide against the oracle, then check that
            // the oracle sees contact at ε rounded up and none at a clearly smaller ε.
            for e in [eps, eps.next_up(), eps * (1.0 - 1e-12), eps * 1.01] {
                let want = brute_force_within(&cube, &cube, &pose, e);
                let got = c.collide_with(&pose, &within(e)).pairs;
                assert_eq!(got, want, "{}, t {t:?}, ε {e}", bv.name());
            }
            assert!(!brute_force_within(&cube, &cube, &pose, eps.next_up()).is_empty());
            assert!(brute_force_within(&cube, &cube, &pose, eps * (1.0 - 1e-12)).is_empty());
        }
    }
}

/// Every hierarchy with a binary tree of triangles (the k-DOPs, `auto`'s kdop18 tree, the
/// dual, OBB and sphere trees) answers the distance query as the all-pairs oracle does,
/// field for field: distance, witness pair and closest points.
#[test]
fn distances_equal_brute_force() {
    let kinds = [
        BvKind::Kdop6,
        BvKind::Kdop14,
        BvKind::Kdop18,
        BvKind::Kdop26,
        BvKind::Dual18,
        BvKind::Obb,
        BvKind::Sphere,
        BvKind::Auto,
    ];
    let mut zero = 0;
    let mut positive = 0;
    for case in cases() {
        let oracle: Vec<PoseDistance> = case
            .poses
            .iter()
            .map(|p| brute_force_distance(&case.a, &case.b, p, None))
            .collect();
        for bv in kinds {
            let c = collider(&case.a, &case.b, bv);
            let got = c.distance_batch(&case.poses, None).unwrap();
            for (i, (g, o)) in got.iter().zip(&oracle).enumerate() {
                assert_eq!(
                    g.distance,
                    o.distance,
                    "{}, {}, pose {i}",
                    case.name,
                    bv.name()
                );
                assert_eq!(
                    g.witness,
                    o.witness,
                    "{}, {}, pose {i}",
                    case.name,
                    bv.name()
                );
            }
            // One pose at a time (no previous witness as the first bound): the same.
            for (i, p) in case.poses.iter().enumerate().step_by(5) {
                let one = c.distance_batch(std::slice::from_ref(p), None).unwrap();
                assert_eq!(
                    one[0].witness, oracle[i].witness,
                    "{} single {i}",
                    case.name
                );
            }
        }
        for o in &oracle {
            let w = o.witness.expect("a witness without upto");
            if o.distance == 0.0 {
                zero += 1;
                // Touching or crossing: one common point.
                assert_eq!(w.a, w.b, "{}", case.name);
            } else {
                positive += 1;
                // The points are rounded once each: within half an ulp of their largest
                // coordinate per coordinate, so their distance within √3 ulps of it.
                let d = ((0..3).map(|k| (w.a[k] - w.b[k]).powi(2)).sum::<f64>()).sqrt();
                let scale = w.a.iter().chain(&w.b).fold(0.0f64, |m, x| m.max(x.abs()));
                let tol = 2.0 * scale * f64::EPSILON + 1e-12 * o.distance;
                assert!((d - o.distance).abs() <= tol, "{d} {o:?}");
            }
        }
    }
    assert!(zero > 10 && positive > 10, "{zero} {positive}");
}

/// `upto`: a pose within it answers as without, one beyond it has no witness; a bad
/// `upto` and a hierarchy without k-DOPs are typed errors.
#[test]
fn distance_upto_and_errors() {
    let (a, b) = common::tori(8);
    let poses = pose::tumbling_poses(12, [0.0; 3], [2.9, 0.0, 0.0]);
    let c = collider(&a, &b, BvKind::Kdop18);
    let all = c.distance_batch(&poses, None).unwrap();
    for (p, d) in poses.iter().zip(&all) {
        assert!(d.distance > 0.0);
        let near = c.distance_batch(std::slice::from_ref(p), Some(d.distance * 1.001));
        assert_eq!(near.unwrap()[0].witness, d.witness);
        let far = c.distance_batch(std::slice::from_ref(p), Some(d.distance * 0.999));
        let far = far.unwrap()[0];
        assert_eq!((far.distance, far.witness), (f64::INFINITY, None));
    }
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let e = c.distance_batch(&poses, Some(bad)).unwrap_err().to_string();
        assert!(e.contains("upto"), "{e}");
    }
    for bv in [BvKind::Boxtree, BvKind::Rtree] {
        let e = collider(&a, &b, bv)
            .distance_batch(&poses, None)
            .unwrap_err();
        assert!(
            e.to_string().contains("k-DOP") && e.to_string().contains(bv.name()),
            "{e}"
        );
    }
}

/// `self` at a tolerance equals its oracle (every pair by the same exact rule) on a folded
/// sheet (neighbours everywhere: the rule keeps them as the intersection query does),
/// random soups near and 10⁷ from the origin, and a sheet of dyadic coordinates whose rows
/// lie exactly 0.25 apart (pairs at exactly ε); 0 is the ordinary query, counters too.
#[test]
fn self_tolerance_equals_brute_force() {
    let sheet = meshcollide::mesh::generate::folded_sheet(12, 3, 0.1);
    let soup = meshcollide::mesh::generate::random_soup(5, 400, 1.0, 0.2);
    let far = common::shifted(&soup, [1e7, -1e7, 3e7]);
    let rows = Mesh::new(
        (0..6)
            .flat_map(|i| {
                let y = 0.25 * i as f64;
                [[0.0, y, 0.0], [1.0, y, 0.0], [0.5, y, 0.5]]
            })
            .collect(),
        (0..6u32).map(|i| [3 * i, 3 * i + 1, 3 * i + 2]).collect(),
    )
    .unwrap();
    let mut found = 0;
    for (name, m) in [
        ("sheet", &sheet),
        ("soup", &soup),
        ("far soup", &far),
        ("rows", &rows),
    ] {
        for bv in BvKind::ALL {
            let c = SelfCollider::builder(m).bv(bv).build().unwrap();
            let zero = c.collide_within(Mode::All, Tolerance::ZERO);
            let plain = c.collide_with(Mode::All);
            assert_eq!(zero.pairs, plain.pairs, "{name}");
            assert_eq!(zero.counters, plain.counters, "{name}");
            for eps in [0.01, 0.05, 0.25] {
                let got = c.collide_within(Mode::All, Tolerance::new(eps, "eps").unwrap());
                let want = brute_force_self_within(m, eps);
                assert_eq!(got.pairs, want, "{name}, {}, eps {eps}", bv.name());
                assert!(want.len() >= plain.pairs.len());
                found += want.len() - plain.pairs.len();
            }
        }
    }
    assert!(found > 0, "the tolerances found nothing more than contact");
    // The rows at exactly 0.25: each row with the next (a pair at distance exactly ε).
    let got = SelfCollider::builder(&rows)
        .build()
        .unwrap()
        .collide_within(Mode::All, Tolerance::new(0.25, "eps").unwrap());
    assert_eq!(got.pairs, (0..5u32).map(|i| (i, i + 1)).collect::<Vec<_>>());
}
