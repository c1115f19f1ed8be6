//! Temporal coherence of the k-DOP traversal (`KdopOptions::coherence`): each pose of a run
//! of consecutive poses starts from where the previous pose's descent stopped. The pairs
//! must equal the traversal from the roots and f64 brute force on coherent sequences
//! (tumbling turns in small steps), on unrelated poses, for every k and both descent
//! rules; the node tests it saves must show in Nv; counters must not depend on the thread
//! count; the command line's `--coherence` writes the same pairs.csv.

mod common;

use meshcollide::mesh::generate;
use meshcollide::pose::tumbling_poses;
use meshcollide::rng::Rng;
use meshcollide::*;

fn collider(a: &Mesh, b: &Mesh, bv: BvKind, descent: Descent, coherence: bool) -> Collider {
    Collider::builder(a, b)
        .bv(bv)
        .kdop(KdopOptions {
            coherence,
            ..KdopOptions::with_descent(descent)
        })
        .build()
        .unwrap()
}

/// Every hierarchy with coherence on the CPU: the k-DOPs with both descent rules, the OBB
/// and sphere trees, and `auto` (whichever tree its probe picks).
fn coherent_kinds() -> Vec<(BvKind, Descent)> {
    let mut v = Vec::new();
    for bv in [BvKind::Kdop6, BvKind::Kdop18, BvKind::Kdop26] {
        for descent in [Descent::Larger, Descent::Environment] {
            v.push((bv, descent));
        }
    }
    for bv in [BvKind::Obb, BvKind::Sphere, BvKind::Auto] {
        v.push((bv, Descent::Larger));
    }
    v
}

/// Pairs equal with and without coherence (and brute force when `brute`); returns the
/// summed Nv without and with it, per hierarchy of [`coherent_kinds`].
fn compare(
    a: &Mesh,
    b: &Mesh,
    poses: &[Pose],
    brute: bool,
    label: &str,
) -> Vec<(BvKind, u64, u64)> {
    let mut sums = Vec::new();
    for (bv, descent) in coherent_kinds() {
        {
            let (mut plain_nv, mut coh_nv) = (0, 0);
            let plain = collider(a, b, bv, descent, false).collide_batch(poses);
            let coh = collider(a, b, bv, descent, true).collide_batch(poses);
            for (i, (p, c)) in plain.iter().zip(&coh).enumerate() {
                assert_eq!(c.pairs, p.pairs, "{label} {bv:?} {descent:?} pose {i}");
                if brute {
                    assert_eq!(
                        c.pairs,
                        brute_force(a, b, &poses[i]),
                        "{label} {bv:?} {descent:?} pose {i}: brute force"
                    );
                }
                plain_nv += p.counters.bv_tests;
                coh_nv += c.counters.bv_tests;
            }
            // First-contact mode ignores coherence: the same answers.
            let opts = QueryOptions {
                mode: Mode::First,
                ..Default::default()
            };
            let f = collider(a, b, bv, descent, true).collide_batch_with(poses, &opts, None);
            for (i, (x, p)) in f.iter().zip(&plain).enumerate() {
                assert_eq!(x.pairs.is_empty(), p.pairs.is_empty(), "{label} first {i}");
            }
            sums.push((bv, plain_nv, coh_nv));
        }
    }
    sums
}

/// Coherence saved node tests on every hierarchy.
fn assert_fewer(sums: &[(BvKind, u64, u64)], label: &str) {
    for (bv, plain, coh) in sums {
        assert!(
            coh < plain,
            "{label} {bv:?}: coherence {coh} vs {plain} node tests"
        );
    }
}

#[test]
fn coherent_turns_give_the_same_pairs_with_fewer_node_tests() {
    let (a, b) = common::tori(16);
    // 200 steps of a turn: 1.8° apart.
    let poses = tumbling_poses(200, [0.0; 3], [1.0, 0.0, 0.0]);
    assert_fewer(&compare(&a, &b, &poses[..64], true, "tori"), "tori");
    // Over the whole turn (the work per pose varies along it, and the off-switch compares
    // with the chunk's first pose) coherence saves in total, not on every hierarchy: `auto`
    // starts its chunks after the probed poses, and lost 2 % here.
    let sums = compare(&a, &b, &poses, false, "tori, whole turn");
    let total = |k: usize| sums.iter().map(|s| [s.1, s.2][k]).sum::<u64>();
    assert!(total(1) < total(0), "{sums:?}");
    // Nested spheres 1% apart turning in place: contacts nowhere, tests everywhere.
    let outer = generate::uv_sphere([0.0; 3], 1.0, 12, 24);
    let inner = generate::uv_sphere([0.0; 3], 0.99, 12, 24);
    let turn = tumbling_poses(720, [0.0; 3], [0.0; 3]);
    let sums = compare(&outer, &inner, &turn[..40], true, "nested spheres");
    assert_fewer(&sums, "nested spheres");
}

#[test]
fn unrelated_and_touching_poses_give_the_same_pairs() {
    let mut rng = Rng::new(3);
    let a = generate::random_soup(rng.next_u64(), 80, 1.0, 0.6);
    let b = generate::random_soup(rng.next_u64(), 60, 1.0, 0.6);
    let poses: Vec<Pose> = (0..40)
        .map(|_| Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-0.8, 0.8))))
        .collect();
    compare(&a, &b, &poses, true, "random soups");
    let (ga, gb) = (
        common::grid_soup(&mut rng, 50),
        common::grid_soup(&mut rng, 50),
    );
    let poses = common::quarter_turns(&mut rng, 24);
    compare(&ga, &gb, &poses, true, "grid soups");
    // Far from the origin: the soups moved by 10⁶, coherent small turns.
    let shift = |m: &Mesh| m.map_positions(|p| [p[0] + 1e6, p[1] - 2e6, p[2] + 5e5]);
    let (fa, fb) = (shift(&a), shift(&b));
    let poses = tumbling_poses(360, [1e6, -2e6, 5e5], [0.2, 0.0, 0.0]);
    compare(&fa, &fb, &poses[..40], true, "far soups");
}

#[test]
fn counters_do_not_depend_on_the_thread_count() {
    let (a, b) = common::tori(14);
    let poses = tumbling_poses(150, [0.0; 3], [1.0, 0.0, 0.0]);
    let col = collider(&a, &b, BvKind::Kdop18, Descent::Larger, true);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| col.collide_batch(&poses))
    };
    let (one, two) = (run(1), run(2));
    for (i, (x, y)) in one.iter().zip(&two).enumerate() {
        assert_eq!(x.pairs, y.pairs, "pose {i}");
        assert_eq!(x.counters, y.counters, "pose {i}");
    }
}

#[test]
fn shared_models_give_the_same_pairs() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    let m = mesh::load(&dir.join("stanford-bunny.obj")).unwrap();
    // 0.1° steps about the centre, copies half an extent apart.
    let (lo, hi) = m.bounds();
    let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
    let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
    let poses = &tumbling_poses(3600, c, [0.5 * size, 0.02 * size, 0.0])[..48];
    for bv in [BvKind::Kdop18, BvKind::Kdop6] {
        let plain = collider(&m, &m, bv, Descent::Larger, false).collide_batch(poses);
        let coh = collider(&m, &m, bv, Descent::Larger, true).collide_batch(poses);
        let (mut pn, mut cn) = (0, 0);
        for (i, (p, q)) in plain.iter().zip(&coh).enumerate() {
            assert_eq!(q.pairs, p.pairs, "{bv:?} pose {i}");
            pn += p.counters.bv_tests;
            cn += q.counters.bv_tests;
        }
        assert!(cn < pn, "{bv:?}: {cn} vs {pn}");
    }
}

/// `meshcollide query --coherence` writes the same pairs.csv as without, and stats.json
/// says whether coherence ran (the GPU's run: tests/gpu_coherence.rs).
#[test]
#[cfg(feature = "cli")]
fn cli_coherence_writes_the_same_pairs() {
    let d = std::env::temp_dir().join(format!("meshcollide-coh-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (a, b) = common::tori(12);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    // 0.4° steps: coherent.
    let poses = &tumbling_poses(900, [0.0; 3], [1.0, 0.0, 0.0])[..96];
    std::fs::write(d.join("poses.csv"), pose::format_poses(poses)).unwrap();
    let run = |out: &str, extra: &[&str]| {
        let o = common::bin()
            .args([
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--backend",
                "cpu",
            ])
            .args(["--out", out, "--stats", &format!("{out}.json")])
            .args(extra)
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(format!("{out}.json"))).unwrap())
                .unwrap();
        (std::fs::read(d.join(out)).unwrap(), s)
    };
    let (plain, sp) = run("plain.csv", &["--coherence", "off"]);
    let (coh, sc) = run("coh.csv", &["--coherence"]);
    assert_eq!(plain, coh);
    assert_eq!(sp["coherence"], false);
    assert_eq!(sc["coherence"], true);
    assert!(sc["bv_tests"].as_u64() < sp["bv_tests"].as_u64());
    assert_eq!(sc["pairs"], sp["pairs"]);
    let (_, sf) = run("first.csv", &["--coherence", "--mode", "first"]);
    assert_eq!(sf["coherence"], false, "first mode starts at the roots");
    // The default, `auto`: on for this motion path on the CPU, the run of `--coherence`.
    let (auto, sa) = run("auto.csv", &[]);
    assert_eq!(auto, coh);
    assert_eq!(sa["coherence"], true);
    assert_eq!(sa["bv_tests"], sc["bv_tests"]);
    // Off for unrelated poses (every 30th pose of the turn: 12° steps).
    let sparse: Vec<Pose> = tumbling_poses(900, [0.0; 3], [1.0, 0.0, 0.0])
        .into_iter()
        .step_by(30)
        .collect();
    std::fs::write(d.join("poses.csv"), pose::format_poses(&sparse)).unwrap();
    let (_, su) = run("unrelated.csv", &[]);
    assert_eq!(su["coherence"], false);

    let _ = std::fs::remove_dir_all(&d);
}
