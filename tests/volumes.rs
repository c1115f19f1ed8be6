//! The OBB tree (`--bv obb`) and the sphere tree (`--bv sphere`, `src/obb/`) against the
//! f64 brute-force oracle and kdop18: random soups (integer grids with touching and coplanar
//! contacts under exact poses, float soups under random poses), generated solids, the same
//! touching scenes moved far from the origin (10⁶, 10¹⁵), the shared models, and the
//! command line.

mod common;

use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::*;

const VOLUMES: [BvKind; 2] = [BvKind::Obb, BvKind::Sphere];

/// Random cases by default (`MESHCOLLIDE_CASES` sets another number).
const DEFAULT_CASES: usize = 400;

/// Every pose in both modes against brute force and kdop18; Nu (B's volumes posed) is at
/// least 1 and at most B's nodes. Returns the contacts.
fn check(a: &Mesh, b: &Mesh, poses: &[Pose], bv: BvKind, leaf_b: u32, label: &str) -> usize {
    let oa = BuildOptions::default();
    let ob = BuildOptions {
        leaf_size: leaf_b,
        ..oa
    };
    let build = |bv| {
        Collider::builder(a, b)
            .bv(bv)
            .build_options_a(oa)
            .build_options_b(ob)
            .build()
            .unwrap()
    };
    let (c, k18) = (build(bv), build(BvKind::Kdop18));
    assert_eq!(c.kind(), bv);
    let mut contacts = 0;
    for (i, p) in poses.iter().enumerate() {
        let truth = brute_force(a, b, p);
        contacts += truth.len();
        let all = c.collide(p);
        assert_eq!(all.pairs, truth, "{label} {bv:?} pose {i} {p:?}");
        assert_eq!(k18.collide(p).pairs, truth, "{label} kdop18 pose {i}");
        let nodes_b = c.hierarchy_sizes()[1].0 as u64;
        // A pose the box pretest rejects poses nothing and costs one test.
        let (nu, nv) = (all.counters.bv_updates, all.counters.bv_tests);
        assert!(
            nu <= nodes_b && nv >= 1,
            "{label} pose {i}: Nu {nu}, Nv {nv}"
        );
        assert!(nu > 0 || (nv == 1 && truth.is_empty()), "{label} pose {i}");
        let first = c.collide_with(
            p,
            &QueryOptions {
                mode: Mode::First,
                ..Default::default()
            },
        );
        assert_eq!(
            first.pairs.is_empty(),
            truth.is_empty(),
            "{label} first {i}"
        );
        assert!(first.pairs.iter().all(|x| truth.contains(x)));
    }
    contacts
}

#[test]
fn volumes_equal_brute_force_on_random_soups() {
    let mut rng = Rng::new(0x0BB5);
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
                generate::random_soup(rng.next_u64(), na, 1.0, 0.6),
                generate::random_soup(rng.next_u64(), nb, 1.0, 0.6),
            )
        };
        let poses: Vec<Pose> = (0..3)
            .map(|_| {
                if exact {
                    common::exact_pose(&mut rng)
                } else {
                    common::float_pose(&mut rng, 0.5)
                }
            })
            .collect();
        let leaf_b = 1 + rng.below(3) as u32;
        let bv = VOLUMES[(case / 2) % 2];
        contacts += check(&a, &b, &poses, bv, leaf_b, &format!("case {case}"));
    }
    assert!(contacts > n, "only {contacts} contacts in {n} cases");
}

/// Spheres and tori under random poses; grids against shifted copies (coplanar and
/// edge-sharing contacts); unit cubes face to face, edge to edge and corner to corner.
#[test]
fn volumes_equal_brute_force_on_generated_solids_and_touching_cases() {
    let mut rng = Rng::new(13);
    let scenes = [
        (
            generate::uv_sphere([0.0; 3], 1.0, 8, 12),
            generate::uv_sphere([0.0; 3], 0.7, 6, 10),
        ),
        common::tori(8),
        (
            generate::grid(6, 6, 0.5, 0.0),
            generate::grid(5, 5, 0.5, 0.0),
        ),
        (
            generate::box_mesh([0.0; 3], [1.0; 3]),
            generate::box_mesh([0.0; 3], [1.0; 3]),
        ),
    ];
    let mut contacts = 0;
    for (s, (a, b)) in scenes.iter().enumerate() {
        let mut poses: Vec<Pose> = (0..4).map(|_| common::float_pose(&mut rng, 0.5)).collect();
        poses.extend([
            Pose::translation([0.5, 0.5, 0.0]),
            Pose::new([0.0, 0.0, 0.0, 1.0], [1.5, 1.0, 0.0]),
            Pose::translation([1.0, 0.0, 0.0]),
            Pose::translation([1.0, 1.0, 0.0]),
            Pose::translation([1.0, 1.0, 1.0]),
            Pose::translation([2.0, 0.0, 0.0]),
            Pose::new([1.0, 0.0, 0.0, 1.0], [1.0, 0.5, 0.0]),
        ]);
        for bv in VOLUMES {
            for leaf in [1, 2] {
                contacts += check(a, b, &poses, bv, leaf, &format!("scene {s}"));
            }
        }
    }
    assert!(contacts > 0);
}

/// The touching scenes moved to 10⁶ and 10¹⁵ along every axis (exact: half-integer grids
/// there are still representable), B by the pose that undoes its own offset: exact
/// contacts far from the origin, where a margin that ignores the local frames' and the
/// pose's rounding would cull them.
#[test]
fn volumes_equal_brute_force_far_from_the_origin() {
    let mut rng = Rng::new(0xFA2);
    let mut contacts = 0;
    for off in [1e6, 1e15] {
        let o = [off, -off, off];
        for case in 0..60 {
            let (na, nb) = (1 + rng.below(12) as usize, 1 + rng.below(12) as usize);
            let a = generate::grid_soup(&mut rng, na, 4);
            let b = if case % 3 == 0 {
                generate::grid_soup_shared(&mut rng, nb, 4)
            } else {
                generate::grid_soup(&mut rng, nb, 4)
            };
            let shift = |m: &Mesh| m.map_positions(|p| [0, 1, 2].map(|k| p[k] + o[k]));
            let (a, b) = (shift(&a), shift(&b));
            let poses: Vec<Pose> = (0..3)
                .map(|_| {
                    let p = common::exact_pose(&mut rng);
                    // p' = R·(x − o) + o + t: R is a half-turn, exact on the grid.
                    let ro = p.apply(o);
                    let t = [0, 1, 2].map(|k| o[k] - (ro[k] - p.t[k]) + p.t[k]);
                    Pose::new(p.q, t)
                })
                .collect();
            for bv in VOLUMES {
                contacts += check(
                    &a,
                    &b,
                    &poses,
                    bv,
                    1 + (case as u32 % 2),
                    &format!("off {off} case {case}"),
                );
            }
        }
    }
    assert!(contacts > 20, "only {contacts} contacts");
}

#[test]
fn volumes_equal_kdop18_on_small_shared_models() {
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
            .build()
            .unwrap()
            .collide_batch_with(&poses, &opts, None);
        assert!(
            want.iter().any(|r| !r.pairs.is_empty()),
            "{name}: no contacts"
        );
        for bv in VOLUMES {
            let got = Collider::builder(&m, &m)
                .bv(bv)
                .build_options_a(o)
                .build_options_b(ob)
                .build()
                .unwrap()
                .collide_batch_with(&poses, &opts, None);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.pairs, w.pairs, "{name} {bv:?} pose {i}");
            }
        }
    }
}

/// `meshcollide query a b --bv obb|sphere` writes the brute-force pairs; stats.json names
/// the hierarchy, its node bytes, and Nu (B's volumes posed, at least the root's); on the
/// GPU the same bytes of pairs.csv and the same Nv and Np.
#[test]
#[cfg(feature = "cli")]
fn cli_query_with_obb_and_sphere() {
    let d = std::env::temp_dir().join(format!("meshcollide-obb-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let mut rng = Rng::new(9);
    let a = generate::random_soup(rng.next_u64(), 60, 1.0, 0.6);
    let b = generate::random_soup(rng.next_u64(), 50, 1.0, 0.6);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let poses: Vec<Pose> = (0..12).map(|_| common::float_pose(&mut rng, 0.5)).collect();
    std::fs::write(d.join("poses.csv"), pose::format_poses(&poses)).unwrap();
    let read = pose::read_poses(&d.join("poses.csv")).unwrap();
    let mut want = Vec::new();
    for (i, p) in read.iter().enumerate() {
        want.extend(
            brute_force(&a, &b, p)
                .into_iter()
                .map(|(x, y)| (i as u32, x, y)),
        );
    }
    assert!(!want.is_empty());
    let gpu = common::gpu().is_some();
    for (bv, node_bytes) in [("obb", 64 + 8), ("sphere", 16 + 8)] {
        let out = common::bin()
            .args(["query", "a.obj", "b.obj", "--poses", "poses.csv"])
            .args(["--out", "pairs.csv", "--bv", bv, "--stats", "stats.json"])
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{bv}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got =
            formats::parse_pairs(&std::fs::read_to_string(d.join("pairs.csv")).unwrap()).unwrap();
        assert_eq!(got, want, "{bv}");
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("stats.json")).unwrap()).unwrap();
        assert_eq!(s["bv"], bv);
        assert!(s["bv_updates"].as_u64().unwrap() >= 12);
        assert_eq!(s["node_bytes"], node_bytes);
        // The GPU writes the same pairs and counts the same node tests.
        if gpu {
            let out = common::bin()
                .args(["query", "a.obj", "b.obj", "--poses", "poses.csv"])
                .args(["--out", "gpu.csv", "--bv", bv, "--backend", "gpu"])
                .args(["--stats", "gpu.json"])
                .current_dir(&d)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{bv} on the GPU: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let g = std::fs::read(d.join("gpu.csv")).unwrap();
            assert_eq!(g, std::fs::read(d.join("pairs.csv")).unwrap(), "{bv}");
            let sg: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(d.join("gpu.json")).unwrap())
                    .unwrap();
            assert_eq!(sg["bv_tests"], s["bv_tests"], "{bv}");
            assert_eq!(sg["tri_tests"], s["tri_tests"], "{bv}");
        }
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Touching only through the truth's rounding: B (one equilateral triangle near its own
/// origin) is posed by a random rotation and a translation of 10⁶ or 10¹⁵, where
/// `Pose::apply` rounds its vertices by up to half an ulp (0.06 at 10¹⁵); A's triangle has
/// one vertex exactly at B's posed vertex (the truth) and opens away from B. The pair
/// touches in one point of the truth while the *real* posed triangle misses A's by up to
/// the rounding: a volume test that ignores the local pose's error (`abs_err`) culls it.
#[test]
fn volumes_keep_contacts_made_by_the_pose_rounding() {
    let mut rng = Rng::new(0x70C4);
    let h = 3f64.sqrt() / 2.0;
    let b = Mesh::new(
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.5, h, 0.0]],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let mut contacts = 0;
    for case in 0..200 {
        let off = if case % 2 == 0 { 1e6 } else { 1e15 };
        let t = [0; 3].map(|_| off * rng.range(0.5, 1.0));
        let p = Pose::new(rng.unit_quaternion(), t);
        let tb = b.triangle(0).map(|x| p.apply(x));
        let k = case % 3;
        let w = tb[k];
        let g: [f64; 3] = std::array::from_fn(|i| (tb[0][i] + tb[1][i] + tb[2][i]) / 3.0);
        let u: [f64; 3] = std::array::from_fn(|i| w[i] - g[i]);
        let n = {
            let (e1, e2) = (
                [0, 1, 2].map(|i| tb[1][i] - tb[0][i]),
                [0, 1, 2].map(|i| tb[2][i] - tb[0][i]),
            );
            [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ]
        };
        // A's triangle: w, and two points beyond w along u, spread across B's plane.
        let a = Mesh::new(
            vec![
                w,
                std::array::from_fn(|i| w[i] + 3.0 * u[i] + n[i]),
                std::array::from_fn(|i| w[i] + 3.0 * u[i] - n[i]),
            ],
            vec![[0, 1, 2]],
        )
        .unwrap();
        let truth = brute_force(&a, &b, &p);
        assert_eq!(
            truth,
            vec![(0, 0)],
            "case {case}: the shared vertex touches"
        );
        contacts += 1;
        for bv in [BvKind::Obb, BvKind::Sphere, BvKind::Kdop18] {
            let c = Collider::builder(&a, &b).bv(bv).build().unwrap();
            assert_eq!(c.collide(&p).pairs, truth, "case {case} {bv:?}");
        }
    }
    assert_eq!(contacts, 200);
}

/// The posed-box pretest runs before the roots: a pose whose boxes are apart costs one test
/// and poses nothing; a pose whose boxes meet costs one test more than the descent, whose
/// pairs stay the brute force's. Two flat grids, shifted in the plane: lifted by 1e-9 (their
/// boxes are apart), then in one plane (coplanar overlapping triangles: contacts).
#[test]
fn the_box_pretest_runs_before_the_roots() {
    let a = generate::grid(20, 20, 0.05, 0.0);
    for bv in VOLUMES {
        let col = Collider::builder(&a, &a).bv(bv).build().unwrap();
        let apart = col.collide(&Pose::translation([0.3, 0.2, 1e-9]));
        assert!(apart.pairs.is_empty());
        assert_eq!(apart.counters.bv_tests, 1, "{bv:?}: the pretest alone");
        assert_eq!(apart.counters.bv_updates, 0, "{bv:?}: nothing posed");
        let pose = Pose::translation([0.3, 0.2, 0.0]);
        let touching = col.collide(&pose);
        let want = brute_force(&a, &a, &pose);
        assert_eq!(touching.pairs, want, "{bv:?}");
        assert!(!want.is_empty());
        assert!(touching.counters.bv_tests > 1, "{bv:?}");
    }
}
