//! `--bv auto` (`src/auto.rs`), the default: whichever tree the probe picks, the contacts
//! are the f64 brute force's and kdop18's, per pose, in batches, streams and single
//! queries, in both modes, near and far from the origin, on the CPU and the GPU; and each
//! tree really answers somewhere (nested spheres: the OBB tree; a torus cutting through
//! itself and tumbling random soups: kdop18).

mod common;

use meshcollide::auto::{AutoCounters, Choice};
use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::*;

fn build(a: &Mesh, b: &Mesh, bv: BvKind) -> Collider {
    Collider::builder(a, b).bv(bv).build().unwrap()
}

fn sub(c: &Counters<AnySub>) -> AutoCounters {
    c.sub.auto().expect("auto's sub-counters")
}

/// Sphere B = A scaled about its centre by `1 − alpha` (nested, no contact), moved by `off`.
fn nested(tris: usize, alpha: f64, off: f64) -> (Mesh, Mesh) {
    let a = generate::sphere_with_triangles([off, -off, 0.5 * off], 1.0, tris);
    let b = generate::sphere_with_triangles([off, -off, 0.5 * off], 1.0 - alpha, tris);
    (a, b)
}

/// Poses about the spheres' centre `(off, −off, off/2)`: near the identity (nested spheres
/// stay nested, some touch when tilted and shifted far enough), and a few far away
/// (separated by the pretest).
fn poses(rng: &mut Rng, n: usize, spread: f64, off: f64) -> Vec<Pose> {
    let c = [off, -off, 0.5 * off];
    (0..n)
        .map(|i| {
            let (q, t) = if i % 7 == 3 {
                (rng.unit_quaternion(), [5.0, 0.0, 0.0])
            } else {
                let q = rng.unit_quaternion();
                let s = spread;
                let q = [1.0, q[1] * s, q[2] * s, q[3] * s];
                let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                (q.map(|x| x / n), [0; 3].map(|_| rng.range(-s, s)))
            };
            // Turned about the centre: t + c − R·c.
            let rc = Pose::new(q, [0.0; 3]).apply(c);
            Pose::new(q, std::array::from_fn(|k| t[k] + c[k] - rc[k]))
        })
        .collect()
}

/// Every pose of the batch, the stream and a single query against kdop18 (itself checked
/// against brute force by the other suites) and, for small meshes, brute force; the
/// first-contact mode finds a true pair exactly when there is one.
fn check(a: &Mesh, b: &Mesh, poses: &[Pose], label: &str, oracle: bool) -> (AutoCounters, usize) {
    let (auto, k18) = (build(a, b, BvKind::Auto), build(a, b, BvKind::Kdop18));
    assert_eq!(auto.kind(), BvKind::Auto);
    let want = k18.collide_batch(poses);
    let batch = auto.collide_batch(poses);
    let mut streamed = Vec::new();
    auto.collide_stream(poses.iter().copied(), &QueryOptions::default(), |i, r| {
        assert_eq!(i, streamed.len(), "{label}: stream order");
        streamed.push(r);
        Ok(())
    })
    .unwrap();
    let mut total = AutoCounters::default();
    let mut contacts = 0;
    for (i, p) in poses.iter().enumerate() {
        let w = &want[i].pairs;
        contacts += w.len();
        if oracle {
            assert_eq!(*w, brute_force(a, b, p), "{label} kdop18 pose {i}");
        }
        assert_eq!(batch[i].pairs, *w, "{label} batch pose {i}");
        assert_eq!(streamed[i].pairs, *w, "{label} stream pose {i}");
        let one = auto.collide(p);
        assert_eq!(one.pairs, *w, "{label} single pose {i}");
        total += sub(&batch[i].counters);
        let first = auto.collide_with(
            p,
            &QueryOptions {
                mode: Mode::First,
                ..Default::default()
            },
        );
        assert_eq!(first.pairs.is_empty(), w.is_empty(), "{label} first {i}");
        assert!(
            first.pairs.iter().all(|x| w.contains(x)),
            "{label} first {i}"
        );
    }
    (total, contacts)
}

#[test]
fn nested_spheres_take_the_obb_tree_with_the_same_pairs() {
    let mut rng = Rng::new(11);
    for (off, label) in [(0.0, "origin"), (1e6, "1e6"), (3.3e9, "3.3e9")] {
        let (a, b) = nested(4000, 0.01, off);
        let ps = poses(&mut rng, 24, 0.02, off);
        let (s, _) = check(&a, &b, &ps, label, false);
        assert!(s.obb_poses > 0 && s.probes >= 1, "{label}: {s:?}");
    }
    // Shifted until they cut: contacts, found by the OBB tree, still the same pairs.
    let (a, b) = nested(4000, 0.01, 0.0);
    let ps: Vec<Pose> = (0..12)
        .map(|i| Pose::new([1.0, 0.0, 0.0, 0.0], [0.004 + 0.002 * i as f64, 0.0, 0.001]))
        .collect();
    let (s, contacts) = check(&a, &b, &ps, "cutting", false);
    assert!(contacts > 0 && s.obb_poses > 0, "{s:?} {contacts}");
}

/// Trees larger than `obb::LEVELS_ABOVE_BYTES`: the probe finishes its poses level by
/// level (`descend_levels`), with the same pairs as kdop18, nested and cutting.
#[test]
fn large_trees_finish_the_probe_level_by_level_with_the_same_pairs() {
    let (a, b) = nested(12_000, 0.01, 0.0);
    let obb = build(&a, &b, BvKind::Obb);
    let bytes: usize = obb.hierarchy_sizes().iter().map(|s| s.1).sum();
    assert!(bytes > meshcollide::obb::LEVELS_ABOVE_BYTES, "{bytes}");
    let mut rng = Rng::new(12);
    let mut ps = poses(&mut rng, 6, 0.02, 0.0);
    ps.extend(
        (0..6).map(|i| Pose::new([1.0, 0.0, 0.0, 0.0], [0.004 + 0.002 * i as f64, 0.0, 0.0])),
    );
    let (s, contacts) = check(&a, &b, &ps, "large", false);
    assert!(contacts > 0 && s.probes >= 1, "{s:?} {contacts}");
    // The OBB tree alone (depth first from the roots) agrees pose by pose.
    let k18 = build(&a, &b, BvKind::Kdop18);
    for (i, p) in ps.iter().enumerate() {
        assert_eq!(obb.collide(p).pairs, k18.collide(p).pairs, "pose {i}");
    }
}

#[test]
fn tumbling_tori_and_small_soups_equal_brute_force() {
    let mut rng = Rng::new(5);
    let (a, b) = common::tori(24);
    let ps: Vec<Pose> = (0..20)
        .map(|_| Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-0.4, 0.4))))
        .collect();
    let (s, _) = check(&a, &b, &ps, "tori", true);
    assert!(s.kdop18_poses + s.obb_poses > 0, "{s:?}");
    for seed in 0..6 {
        let a = generate::random_soup(seed, 600, 1.0, 0.3);
        let b = generate::random_soup(seed + 100, 600, 1.0, 0.3);
        let ps: Vec<Pose> = (0..12)
            .map(|_| Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-0.3, 0.3))))
            .collect();
        check(&a, &b, &ps, &format!("soup {seed}"), true);
    }
}

/// The probe's sampled front: every pair it left to the chosen tree, and every pair it
/// descended with both, is counted, so Nv is at least the chosen tree's from the roots
/// less the shared levels, and the pose answered by the probe says which tree finished it.
#[test]
fn the_probe_is_counted_and_decides_once_per_call() {
    let (a, b) = nested(4000, 0.01, 0.0);
    let auto = build(&a, &b, BvKind::Auto);
    let obb = build(&a, &b, BvKind::Obb);
    let ps = vec![Pose::IDENTITY; 40];
    let r = auto.collide_batch(&ps);
    let first = sub(&r[0].counters);
    assert_eq!(
        (first.probes, first.obb_poses, first.kdop18_poses),
        (1, 1, 0)
    );
    assert!(first.probe_lost_tests > 0);
    let o = obb.collide(&Pose::IDENTITY).counters;
    for x in &r[1..] {
        let s = sub(&x.counters);
        assert_eq!((s.probes, s.obb_poses), (0, 1));
        // The rest of the batch is the OBB tree's own run from the roots.
        assert_eq!(x.counters.cost(), o.cost());
    }
    // The probe pose tests what the OBB tree tests below the sampled front, plus the
    // kdop18 tree's levels above it and its samples.
    assert!(r[0].counters.bv_tests > first.probe_lost_tests);
    // A choice for the GPU is the one the batch made.
    if let AnyScene::Auto(s) = auto.scene() {
        assert_eq!(s.choose(&ps, &QueryOptions::default()), Choice::Obb);
        assert_eq!(
            s.choose(
                &[Pose::new([1.0, 0.0, 0.0, 0.0], [9.0, 0.0, 0.0])],
                &Default::default()
            ),
            meshcollide::auto::UNDECIDED
        );
    } else {
        panic!("not an auto scene");
    }
}

/// Ready-made trees are k-DOP features: `auto` gives them kdop18; coherence is not.
#[test]
fn auto_is_kdop18_where_only_a_kdop_serves() {
    let (a, b) = common::tori(12);
    // Coherence runs on both trees (on the CPU): `auto` stays.
    let c = Collider::builder(&a, &b)
        .kdop(KdopOptions {
            coherence: true,
            ..Default::default()
        })
        .build()
        .unwrap();
    assert_eq!(c.kind(), BvKind::Auto);
    // A ready-made k-DOP tree serves kdop18 only.
    let h = meshcollide::saved::KdopHierarchy::build(&a, BvKind::Kdop18, &Default::default());
    let c = Collider::builder(&a, &b)
        .hierarchy_a(h.unwrap())
        .build()
        .unwrap();
    assert_eq!(c.kind(), BvKind::Kdop18);
    assert_eq!(
        Collider::builder(&a, &b).build().unwrap().kind(),
        BvKind::Auto
    );
    // Over the size limit the OBB tree is not built: kdop18 alone.
    let limit = meshcollide::auto::MAX_TRIANGLES;
    let big = generate::sphere_with_triangles([0.0; 3], 1.0, limit / 2 + 5000);
    let small = generate::sphere_with_triangles([0.0; 3], 0.5, 64);
    assert!(
        2 * big.triangle_count() > limit && big.triangle_count() + small.triangle_count() < limit
    );
    let over = Collider::builder(&big, &big).build().unwrap();
    assert_eq!(over.kind(), BvKind::Kdop18);
    let under = Collider::builder(&big, &small).build().unwrap();
    assert_eq!(under.kind(), BvKind::Auto);
}

#[test]
#[cfg(feature = "gpu")]
fn gpu_auto_equals_the_cpu() {
    let Some(ctx) = common::gpu() else { return };
    let mut rng = Rng::new(3);
    for (a, b, ps, want) in
        [
            {
                let (a, b) = nested(2000, 0.01, 1e6);
                let ps = poses(&mut rng, 12, 0.05, 1e6);
                (a, b, ps, Choice::Obb)
            },
            {
                // A torus against itself turned 45° about x through it: deep overlap, where the
                // probe picks kdop18 (the first pose decides the run).
                let t = generate::torus([0.0; 3], 1.0, 0.3, 120, 60);
                let h = std::f64::consts::FRAC_PI_8;
                let mut ps = vec![Pose::new([h.cos(), h.sin(), 0.0, 0.0], [0.1, 0.0, 0.0])];
                ps.extend((0..7).map(|_| {
                    Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-0.4, 0.4)))
                }));
                (t.clone(), t, ps, Choice::Kdop18)
            },
            {
                // Decided by comparing whole poses (the host runs them on both backends).
                let (a, b) = soups();
                (a, b, soup_poses(), Choice::Kdop18)
            },
            {
                let (a, b) = common::tori(48);
                let n = meshcollide::auto::COMPARE_CALL + 8;
                let ps = meshcollide::pose::tumbling_poses(n, [0.0; 3], [1.0, 0.0, 0.0]);
                (a, b, ps, Choice::Obb)
            },
        ]
    {
        let auto = build(&a, &b, BvKind::Auto);
        let cpu = auto.collide_batch(&ps);
        let (gpu, _) = auto
            .collide_batch_gpu(&ctx, &ps, &QueryOptions::default(), None)
            .unwrap();
        for i in 0..ps.len() {
            assert_eq!(gpu[i].pairs, cpu[i].pairs, "{want:?} pose {i}");
            // The same work: the host answers the probe's poses on both backends.
            let (g, c) = (&gpu[i].counters, &cpu[i].counters);
            assert_eq!(
                (g.bv_tests, g.tri_tests),
                (c.bv_tests, c.tri_tests),
                "{want:?} {i}"
            );
            assert_eq!(g.sub, c.sub, "{want:?} pose {i}");
        }
        let total = gpu.iter().fold(AutoCounters::default(), |mut t, r| {
            t += sub(&r.counters);
            t
        });
        let answered = match want {
            Choice::Obb => total.obb_poses,
            Choice::Kdop18 => total.kdop18_poses,
        };
        assert!(answered > 0 && total.probes == 1, "{want:?}: {total:?}");
    }
}

/// The command line's default is `auto`, reported in stats.json with which tree answered;
/// `--coherence` and frames run kdop18 and say so.
#[test]
#[cfg(feature = "cli")]
fn cli_defaults_to_auto_and_reports_it() {
    let d = std::env::temp_dir().join(format!("meshcollide-auto-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (a, b) = nested(2000, 0.01, 0.0);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    std::fs::write(
        d.join("p.csv"),
        "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n1,0,0,0,0.001,0,0\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let o = common::bin()
            .current_dir(&d)
            .args([
                "query", "a.obj", "b.obj", "--poses", "p.csv", "--out", "o.csv",
            ])
            .args(["--stats", "s.json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
        (s, std::fs::read(d.join("o.csv")).unwrap())
    };
    let (s, pairs) = run(&[]);
    assert_eq!(s["bv"], "auto");
    let n = |k: &str| s["auto"][k].as_u64().unwrap();
    assert_eq!(n("obb_poses") + n("kdop18_poses"), 2, "{s}");
    assert_eq!(n("probes"), 1, "{s}");
    // `bv_ran` says which tree answered, with its poses: the library's choice on the same
    // call. Here (two poses, B 1 % inside A) kdop18; B at the identity inside a finer A,
    // the OBB tree (`the_probe_is_counted_and_decides_once_per_call`).
    let expected_ran = |a: &Mesh, b: &Mesh, poses: &[Pose]| {
        let mut lib = AutoCounters::default();
        for r in build(a, b, BvKind::Auto).collide_batch(poses) {
            lib += sub(&r.counters);
        }
        let mut ran = serde_json::Map::new();
        for (name, n) in [("kdop18", lib.kdop18_poses), ("obb", lib.obb_poses)] {
            if n > 0 {
                ran.insert(name.into(), n.into());
            }
        }
        (serde_json::Value::Object(ran), lib)
    };
    let two = [Pose::IDENTITY, Pose::translation([0.001, 0.0, 0.0])];
    assert_eq!(s["bv_ran"], expected_ran(&a, &b, &two).0, "{s}");
    let (a4, b4) = nested(4000, 0.01, 0.0);
    common::write_obj(&d.join("a4.obj"), &a4);
    common::write_obj(&d.join("b4.obj"), &b4);
    let o = common::bin()
        .current_dir(&d)
        .args([
            "query", "a4.obj", "b4.obj", "--poses", "p.csv", "--out", "o4.csv",
        ])
        .args(["--stats", "s4.json", "--backend", "cpu"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s4: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("s4.json")).unwrap()).unwrap();
    let (want, lib) = expected_ran(&a4, &b4, &two);
    assert!(lib.obb_poses > 0, "{lib:?}");
    assert_eq!((&s4["bv"], &s4["bv_ran"]), (&"auto".into(), &want), "{s4}");
    let (k, kpairs) = run(&["--bv", "kdop18"]);
    assert!(k.get("auto").is_none());
    assert_eq!(k["bv_ran"], serde_json::json!({ "kdop18": 2 }), "{k}");
    assert_eq!(pairs, kpairs);
    // On the CPU `auto` runs coherently on either tree; on the GPU only the k-DOPs do.
    let (c, cpairs) = run(&["--coherence", "--backend", "cpu"]);
    assert_eq!(
        (&c["bv"], &c["coherence"]),
        (&"auto".into(), &true.into()),
        "{c}"
    );
    assert_eq!(cpairs, pairs);
    #[cfg(feature = "gpu")]
    if common::gpu().is_some() {
        let (g, gpairs) = run(&["--backend", "gpu"]);
        assert_eq!(g["bv"], "auto");
        assert_eq!(gpairs, pairs);
        let (g, gpairs) = run(&["--backend", "gpu", "--coherence"]);
        assert_eq!(
            (&g["bv"], &g["coherence"]),
            (&"kdop18".into(), &true.into()),
            "{g}"
        );
        assert_eq!(gpairs, pairs);
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// Two random soups of 3,000 short triangles each, in the unit cube: clusters of scattered
/// triangles, which the OBBs fit worse than the 18-DOPs (40 tumbling poses, one thread:
/// kdop18 64–66 µs a pose, the OBB tree 101 µs).
fn soups() -> (Mesh, Mesh) {
    (
        generate::random_soup(1, 3000, 1.0, 0.05),
        generate::random_soup(2, 3000, 1.0, 0.05),
    )
}

/// [`soups`]' poses: B tumbling about the cube's centre, shifted by 0.9 along x, so that the
/// soups overlap in a slab and each pose is light (no front worth sampling).
fn soup_poses() -> Vec<Pose> {
    let n = meshcollide::auto::COMPARE_CALL + 8;
    meshcollide::pose::tumbling_poses(n, [0.5; 3], [0.9, 0.0, 0.0])
}

/// Random soups overlapping in a slab: the OBB tree's first poses never reach a front worth
/// sampling, so a call of [`meshcollide::auto::COMPARE_CALL`] poses or more compares both
/// trees on whole poses, and kdop18 (cheaper here by the estimate, and in time) takes the
/// rest; a shorter call leaves them to the OBB tree. Contacts are kdop18's either way.
#[test]
fn whole_poses_are_compared_when_no_front_decides() {
    use meshcollide::auto::{COMPARE_CALL, COMPARE_POSES};
    let (a, b) = soups();
    let ps = soup_poses();
    let sum = |rs: &[Contacts]| {
        rs.iter().fold(AutoCounters::default(), |mut t, r| {
            t += sub(&r.counters);
            t
        })
    };
    let (s, contacts) = check(&a, &b, &ps, "soups compared", false);
    assert!(contacts > 0);
    assert_eq!(s.probes, 1, "{s:?}");
    assert!(s.kdop18_poses >= (ps.len() - COMPARE_POSES) as u64, "{s:?}");
    assert!(s.obb_poses >= 1 && s.probe_lost_tests > 0, "{s:?}");
    // The poses compared are the first ones, answered by the OBB tree; each counts the
    // kdop18 tree's run too.
    let auto = build(&a, &b, BvKind::Auto);
    let obb = build(&a, &b, BvKind::Obb);
    let r = auto.collide_batch(&ps);
    let compared = r
        .iter()
        .take_while(|x| sub(&x.counters).obb_poses == 1)
        .count();
    assert!((1..=COMPARE_POSES).contains(&compared), "{compared}");
    for (x, p) in r.iter().zip(&ps).take(compared) {
        let alone = obb.collide(p).counters;
        let lost = sub(&x.counters).probe_lost_tests;
        assert_eq!(x.counters.bv_tests, alone.bv_tests + lost);
        assert!(x.counters.tri_tests >= alone.tri_tests);
    }
    // A stream reads the same number of poses ahead, so it decides alike.
    let mut streamed = Vec::new();
    auto.collide_stream(ps.iter().copied(), &QueryOptions::default(), |_, r| {
        streamed.push(r);
        Ok(())
    })
    .unwrap();
    assert_eq!(sum(&streamed), s);
    // One pose short of a comparison: the OBB tree answers the call, nothing is probed.
    let short = auto.collide_batch(&ps[..COMPARE_CALL - 1]);
    let t = sum(&short);
    assert_eq!(
        (t.probes, t.kdop18_poses, t.probe_lost_tests),
        (0, 0, 0),
        "{t:?}"
    );
}

/// Where the OBB tree is the cheaper on whole poses (nested spheres 10 % apart: its front
/// stays small, kdop18 tests about twice its pairs), the comparison ends as soon as kdop18
/// passes the OBB tree's estimate, and the OBB tree answers.
#[test]
fn the_comparison_keeps_the_obb_tree_where_it_is_cheaper() {
    let (a, b) = nested(8000, 0.1, 0.0);
    let ps = vec![Pose::IDENTITY; meshcollide::auto::COMPARE_CALL];
    let (s, _) = check(&a, &b, &ps, "nested 0.1", false);
    assert_eq!((s.probes, s.kdop18_poses), (1, 0), "{s:?}");
    let k18 = build(&a, &b, BvKind::Kdop18)
        .collide(&Pose::IDENTITY)
        .counters;
    // The kdop18 run stopped early: fewer node tests than its whole pose.
    assert!(
        s.probe_lost_tests > 0 && s.probe_lost_tests < k18.bv_tests,
        "{s:?} {k18:?}"
    );
}

/// Interlocked tori tumbling (the demo's scene, smaller): the first pose is light, and there
/// kdop18 tests fewer node pairs than the OBB tree but tumbles its nodes near the root, each
/// worth [`meshcollide::auto::TUMBLE_COST`] node tests in the comparison. Without them
/// kdop18 would stay within the OBB tree's estimate; with them it does not, and the OBB
/// tree answers the call (it takes 1.5 µs on this pose against kdop18's 3.9, one thread).
#[test]
fn the_comparison_counts_kdop18_tumbling() {
    use meshcollide::auto::{COMPARE_CALL, LEAF_COST, OBB_MARGIN, OBB_TEST_COST, TUMBLE_COST};
    let (a, b) = common::tori(48);
    let ps = meshcollide::pose::tumbling_poses(COMPARE_CALL + 8, [0.0; 3], [1.0, 0.0, 0.0]);
    let (o, k) = (
        build(&a, &b, BvKind::Obb).collide(&ps[0]).counters,
        build(&a, &b, BvKind::Kdop18).collide(&ps[0]).counters,
    );
    // The estimates as the comparison counts them, without the pretests' one test each.
    let obb = (o.bv_tests - 1) as f64 * OBB_TEST_COST + LEAF_COST * o.tri_tests as f64;
    let budget = obb * OBB_MARGIN;
    let tests = (k.bv_tests - 1) as f64 + LEAF_COST * k.tri_tests as f64;
    assert!(obb >= meshcollide::auto::COMPARE_LIGHT, "{o:?}");
    assert!(tests <= budget, "{k:?} {o:?}");
    assert!(
        tests + TUMBLE_COST * k.bv_updates as f64 > budget,
        "{k:?} {o:?}"
    );
    let (s, contacts) = check(&a, &b, &ps, "tori compared", false);
    assert!(contacts > 0);
    assert_eq!((s.probes, s.kdop18_poses), (1, 0), "{s:?}");
    assert!(s.probe_lost_tests > 0, "{s:?}");
}
