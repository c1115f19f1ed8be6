//! The dual k-DOP–sphere hierarchy (`--bv dual*`, `src/dual/`) against the f64 brute-force
//! oracle on random cases (soups, integer grids with touching and coplanar contacts,
//! spheres, tori), for every k, symmetric k-DOPs on and off, both slab orders, both tumbling
//! methods and both modes; against the kdop reference on its node tests (the dual test
//! rejects a superset, so it visits a subset of the pairs); and the same pairs as kdop18 on
//! small shared models.

mod common;

use meshcollide::dual::{DualOptions, SlabOrder};
use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::*;

/// Random cases by default (`MESHCOLLIDE_CASES` sets another number).
const DEFAULT_CASES: usize = 400;

fn dual_options() -> [DualOptions; 4] {
    [
        (false, SlabOrder::PerPair),
        (true, SlabOrder::PerPair),
        (false, SlabOrder::Fixed),
        (true, SlabOrder::Fixed),
    ]
    .map(|(symmetric, order)| DualOptions { symmetric, order })
}

/// Every pose of `poses` in both modes and both tumbling methods against brute force, plus
/// the counter identities of the dual test. Returns the number of contacts.
fn check(
    a: &Mesh,
    b: &Mesh,
    poses: &[Pose],
    bv: BvKind,
    opt: &DualOptions,
    leaf_b: u32,
    label: &str,
) -> usize {
    let oa = BuildOptions::default();
    let ob = BuildOptions {
        leaf_size: leaf_b,
        ..oa
    };
    let c = Collider::builder(a, b)
        .bv(bv)
        .build_options_a(oa)
        .build_options_b(ob)
        .dual(*opt)
        .build()
        .unwrap();
    assert_eq!(c.kind(), bv);
    let mut contacts = 0;
    for (i, p) in poses.iter().enumerate() {
        let truth = brute_force(a, b, p);
        contacts += truth.len();
        for tumble in [TumbleMethod::Approximate, TumbleMethod::Exact] {
            let all = c.collide_with(
                p,
                &QueryOptions {
                    mode: Mode::All,
                    tumble,
                    ..Default::default()
                },
            );
            if all.pairs != truth {
                let missed: Vec<_> = truth.iter().filter(|x| !all.pairs.contains(x)).collect();
                let extra: Vec<_> = all.pairs.iter().filter(|x| !truth.contains(x)).collect();
                panic!(
                    "{label} {bv:?} {opt:?} {tumble:?} pose {i} {p:?}: missed {missed:?} extra {extra:?}"
                );
            }
            let k = all.counters;
            assert!(
                k.dual().sphere_rejects + k.dual().slab_rejects <= k.bv_tests,
                "{label}"
            );
            assert!(k.dual().slab_tests >= k.dual().slab_rejects, "{label}");
            let first = c.collide_with(
                p,
                &QueryOptions {
                    mode: Mode::First,
                    tumble,
                    ..Default::default()
                },
            );
            assert!(first.pairs.len() <= 1, "{label}");
            assert_eq!(
                first.pairs.is_empty(),
                truth.is_empty(),
                "{label} first pose {i}"
            );
            if let Some(x) = first.pairs.first() {
                assert!(
                    truth.contains(x),
                    "{label} first-mode pair {x:?} is no contact"
                );
            }
            assert!(first.counters.bv_tests <= k.bv_tests, "{label}");
        }
    }
    contacts
}

#[test]
fn dual_equals_brute_force_on_random_soups() {
    let mut rng = Rng::new(0xD0A1);
    let opts = dual_options();
    let mut contacts = 0;
    let n = common::cases(DEFAULT_CASES);
    for case in 0..n {
        let exact = case % 2 == 0;
        let (a, b) = if exact {
            let (na, nb) = (1 + rng.below(14) as usize, 1 + rng.below(14) as usize);
            (
                generate::grid_soup(&mut rng, na, 4),
                generate::grid_soup(&mut rng, nb, 4),
            )
        } else {
            let (na, nb) = (1 + rng.below(20) as usize, 1 + rng.below(20) as usize);
            (
                common::float_soup(&mut rng, na),
                common::float_soup(&mut rng, nb),
            )
        };
        let poses: Vec<Pose> = (0..3)
            .map(|_| common::random_pose(&mut rng, exact, 0.5))
            .collect();
        let bv = BvKind::DUAL[case % 4];
        let opt = opts[(case / 4) % 4];
        let leaf_b = 1 + rng.below(3) as u32;
        contacts += check(&a, &b, &poses, bv, &opt, leaf_b, &format!("case {case}"));
    }
    assert!(contacts > n, "only {contacts} contacts in {n} cases");
}

#[test]
fn dual_equals_brute_force_on_generated_solids() {
    // Spheres and tori: close, tangent-ish and interpenetrating; a grid against its own
    // shifted copy (coplanar and edge-sharing contacts, exact in f32).
    let mut rng = Rng::new(12);
    let scenes = [
        (
            generate::uv_sphere([0.0; 3], 1.0, 8, 12),
            generate::uv_sphere([0.0; 3], 0.7, 6, 10),
        ),
        (
            generate::torus([0.0; 3], 1.0, 0.3, 16, 8),
            generate::torus([0.0; 3], 1.0, 0.3, 16, 8).map_positions(|[x, y, z]| [x, z, y]),
        ),
        (
            generate::grid(6, 6, 0.5, 0.0),
            generate::grid(5, 5, 0.5, 0.0),
        ),
    ];
    let mut contacts = 0;
    for (s, (a, b)) in scenes.iter().enumerate() {
        let mut poses: Vec<Pose> = (0..3)
            .map(|_| Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-1.0, 1.0))))
            .collect();
        // Exact: half-cell shifts and half-turns keep grid coordinates representable.
        poses.push(Pose::translation([0.5, 0.5, 0.0]));
        poses.push(Pose::new([0.0, 0.0, 0.0, 1.0], [1.5, 1.0, 0.0]));
        poses.push(Pose::translation([1.0, 0.0, 0.0]));
        for (j, bv) in BvKind::DUAL.into_iter().enumerate() {
            for opt in dual_options() {
                contacts += check(
                    a,
                    b,
                    &poses,
                    bv,
                    &opt,
                    1 + (j as u32 % 2),
                    &format!("scene {s}"),
                );
            }
        }
    }
    assert!(contacts > 0);
}

/// The dual node test rejects every pair the k-DOP test rejects (same tree, same tumbled
/// k-DOPs) and more, with the same descent: it visits a subset of the kdop reference's node
/// pairs. With symmetric k-DOPs off, Nv, Np and the accepted pairs can only shrink; the
/// decision counts add up; and the slab order changes only the number of slab tests.
#[test]
fn dual_visits_a_subset_of_the_kdop_pairs() {
    let a = generate::torus([0.0; 3], 1.0, 0.35, 40, 16);
    let b = generate::uv_sphere([0.0; 3], 0.5, 12, 20);
    let poses = pose::tumbling_poses(24, [0.0; 3], [1.0, 0.1, 0.0]);
    let o = BuildOptions::default();
    let opts = QueryOptions::default();
    let mut sphere_decided = 0;
    for (kd, du) in BvKind::ALL.into_iter().zip(BvKind::DUAL) {
        assert_eq!(kd.half_k(), du.half_k());
        let rk = Collider::builder(&a, &b)
            .bv(kd)
            .build_options(o)
            .kdop(KdopOptions::PAPER)
            .build()
            .unwrap()
            .collide_batch_with(&poses, &opts, None);
        let per_order = [SlabOrder::PerPair, SlabOrder::Fixed].map(|order| {
            let d = Collider::builder(&a, &b)
                .bv(du)
                .build_options(o)
                .dual(DualOptions {
                    symmetric: false,
                    order,
                })
                .build()
                .unwrap();
            d.collide_batch_with(&poses, &opts, None)
        });
        let rd = &per_order[0];
        for (i, (k, d)) in rk.iter().zip(rd).enumerate() {
            assert_eq!(k.pairs, d.pairs, "{du:?} pose {i}");
            let (k, d) = (k.counters, d.counters);
            assert!(
                d.bv_tests <= k.bv_tests && d.tri_tests <= k.tri_tests,
                "{du:?} pose {i}"
            );
            assert_eq!(
                (
                    k.dual().sphere_rejects,
                    k.dual().slab_rejects,
                    k.dual().slab_tests
                ),
                (0, 0, 0)
            );
            // Pairs the dual test passes, the k-DOP test passes too.
            assert!(
                d.bv_tests - d.dual().sphere_rejects - d.dual().slab_rejects <= k.bv_tests,
                "{du:?}"
            );
            sphere_decided += d.dual().sphere_rejects;
            let f = per_order[1][i].counters;
            assert_eq!(
                (
                    f.bv_tests,
                    f.tri_tests,
                    f.dual().sphere_rejects,
                    f.dual().slab_rejects
                ),
                (
                    d.bv_tests,
                    d.tri_tests,
                    d.dual().sphere_rejects,
                    d.dual().slab_rejects
                ),
                "{du:?} pose {i}: the order must not change decisions"
            );
            assert_eq!(per_order[1][i].pairs, rd[i].pairs);
        }
    }
    assert!(
        sphere_decided > 0,
        "the sphere pretest never decided anything"
    );
}

/// Symmetric k-DOPs are never tighter: with them the dual hierarchy cannot reject more by
/// slabs than without (same spheres, so the same sphere rejects on the pairs both visit),
/// and the pairs stay exact.
#[test]
fn symmetric_kdops_contain_the_tight_ones() {
    let a = generate::torus([0.0; 3], 1.0, 0.35, 30, 12);
    let b = generate::torus([0.0; 3], 0.6, 0.2, 20, 10).map_positions(|[x, y, z]| [x, z, y]);
    let poses = pose::tumbling_poses(16, [0.0; 3], [0.9, 0.0, 0.0]);
    let o = BuildOptions::default();
    for bv in BvKind::DUAL {
        let run = |symmetric| {
            let c = Collider::builder(&a, &b)
                .bv(bv)
                .build_options(o)
                .dual(DualOptions {
                    symmetric,
                    ..Default::default()
                })
                .build()
                .unwrap();
            if let AnyScene::Dual18(s) = c.scene()
                && symmetric
            {
                // A's stored k-DOPs: one centre per node (the x, y, z box's).
                for n in &s.env.nodes {
                    let ax = bv::axes::axes(9);
                    let ctr = [0, 1, 2].map(|i| 0.5 * (n.bv.min[i] as f64 + n.bv.max[i] as f64));
                    for (i, &d) in ax.iter().enumerate() {
                        let ac = bv::axes::project(d, ctr);
                        let (lo, hi) = (ac - n.bv.min[i] as f64, n.bv.max[i] as f64 - ac);
                        assert!((lo - hi).abs() <= 1e-5 * (1.0 + lo.abs()));
                    }
                }
            }
            c.collide_batch_with(&poses, &QueryOptions::default(), None)
        };
        let (tight, sym) = (run(false), run(true));
        for (i, (t, s)) in tight.iter().zip(&sym).enumerate() {
            assert_eq!(t.pairs, s.pairs, "{bv:?} pose {i}");
            assert_eq!(t.pairs, brute_force(&a, &b, &poses[i]), "{bv:?} pose {i}");
            assert!(
                s.counters.bv_tests >= t.counters.bv_tests,
                "{bv:?} pose {i}"
            );
        }
    }
}

#[test]
fn dual_equals_kdop18_on_small_shared_models() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in ["soup.stl", "beetle.obj", "gearwheel.stl", "spot.obj"] {
        let m = mesh::load(&dir.join(name)).unwrap();
        let poses = common::shifted_tumbling(&m, 3, &[0.3, 0.7, 1.0]);
        let o = BuildOptions::default();
        let ob = BuildOptions { leaf_size: 2, ..o };
        let opts = QueryOptions::default();
        let want = Collider::builder(&m, &m)
            .bv(BvKind::Kdop18)
            .build_options_a(o)
            .build_options_b(ob)
            .kdop(KdopOptions::PAPER)
            .build()
            .unwrap()
            .collide_batch_with(&poses, &opts, None);
        assert!(
            want.iter().any(|r| !r.pairs.is_empty()),
            "{name}: no contacts"
        );
        for (bv, symmetric) in [
            (BvKind::Dual18, false),
            (BvKind::Dual18, true),
            (BvKind::Dual6, false),
            (BvKind::Dual26, true),
        ] {
            let d = Collider::builder(&m, &m)
                .bv(bv)
                .build_options_a(o)
                .build_options_b(ob)
                .dual(DualOptions {
                    symmetric,
                    ..Default::default()
                })
                .build()
                .unwrap();
            let got = d.collide_batch_with(&poses, &opts, None);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(
                    g.pairs, w.pairs,
                    "{name} {bv:?} symmetric {symmetric} pose {i}"
                );
            }
        }
    }
}

/// The command line: `--bv dual18 --dual-symmetric --dual-order fixed` writes the
/// brute-force pairs, and `stats.json` keeps the `docs/FORMATS.md` keys and adds the
/// decision counts, which add up to Nv.
#[test]
#[cfg(feature = "cli")]
fn cli_query_with_dual_bv() {
    let d = std::env::temp_dir().join(format!("meshcollide-dual-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let mut rng = Rng::new(8);
    let (a, b) = (
        common::float_soup(&mut rng, 60),
        common::float_soup(&mut rng, 50),
    );
    for (name, m) in [("a.obj", &a), ("b.obj", &b)] {
        let mut s = String::new();
        for p in &m.positions {
            s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
        }
        for t in &m.triangles {
            s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
        }
        std::fs::write(d.join(name), s).unwrap();
    }
    let poses: Vec<Pose> = (0..12).map(|_| common::float_pose(&mut rng, 0.5)).collect();
    std::fs::write(d.join("poses.csv"), pose::format_poses(&poses)).unwrap();
    let read = pose::read_poses(&d.join("poses.csv")).unwrap();
    // Both backends when a GPU adapter exists (CI: lavapipe, required), with the same
    // tumbling method so that their counters compare too.
    let backends: &[&str] = if common::gpu().is_some() {
        &["cpu", "gpu"]
    } else {
        &["cpu"]
    };
    for extra in [&[][..], &["--dual-symmetric", "--dual-order", "fixed"][..]] {
        let mut per_backend = Vec::new();
        for &backend in backends {
            let out = common::bin()
                .args([
                    "query",
                    "a.obj",
                    "b.obj",
                    "--poses",
                    "poses.csv",
                    "--out",
                    "pairs.csv",
                ])
                .args([
                    "--bv",
                    "dual18",
                    "--backend",
                    backend,
                    "--tumble",
                    "approx",
                    "--stats",
                    "stats.json",
                ])
                .args(extra)
                .current_dir(&d)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let got = formats::parse_pairs(&std::fs::read_to_string(d.join("pairs.csv")).unwrap())
                .unwrap();
            let mut want = Vec::new();
            for (i, p) in read.iter().enumerate() {
                want.extend(
                    brute_force(&a, &b, p)
                        .into_iter()
                        .map(|(x, y)| (i as u32, x, y)),
                );
            }
            assert!(!want.is_empty());
            assert_eq!(got, want);
            let s: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(d.join("stats.json")).unwrap())
                    .unwrap();
            for key in [
                "backend",
                "bv",
                "poses",
                "build_ms",
                "query_ms",
                "pairs",
                "bv_tests",
                "tri_tests",
                "bv_updates",
            ] {
                assert!(s.get(key).is_some(), "stats.json lacks {key}");
            }
            assert_eq!(s["bv"], "dual18");
            // The dual hierarchy always descends by Algorithm 1 (Klosowski et al.), whatever
            // the CPU default.
            assert_eq!(s["descent"], "env");
            // k-DOP node (18 slabs + first + count) plus a 16-byte sphere.
            assert_eq!(s["node_bytes"], 4 * (18 + 2) + 16);
            let du = &s["dual"];
            let sum = ["sphere_rejects", "slab_rejects", "accepted"]
                .map(|k| du[k].as_u64().unwrap())
                .iter()
                .sum::<u64>();
            assert_eq!(sum, s["bv_tests"].as_u64().unwrap());
            assert_eq!(du["symmetric"], !extra.is_empty());
            assert!(s["backend"].as_str().unwrap().starts_with(backend));
            per_backend.push((s["bv_tests"].clone(), s["tri_tests"].clone(), du.clone()));
        }
        if let [cpu, gpu] = &per_backend[..] {
            assert_eq!(cpu, gpu, "{extra:?}: CPU and GPU counters");
        }
    }
}
