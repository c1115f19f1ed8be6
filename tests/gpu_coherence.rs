//! Temporal coherence on the GPU (`KdopOptions::coherence`, all-contacts mode) against the
//! CPU reference with coherence: the same pairs and the same Nv, Np and Nu at every pose
//! (the GPU runs the CPU's rule chunk by chunk), and the pairs of the CPU without
//! coherence, on coherent turns (tori, nested spheres, far-from-origin soups), incoherent
//! poses (the off-switch must trigger), poses the box pretest separates (fronts cleared),
//! batches not a multiple of 16 poses, tiny capacities (resumes and re-runs), exact
//! tumbling; and `meshcollide query --backend gpu --coherence` against `--backend cpu
//! --coherence`.

#![cfg(feature = "gpu")]

mod common;

use meshcollide::gpu::GpuContext;
use meshcollide::gpu::collide::{Capacities, GpuScene, GpuStats};
use meshcollide::kdop::KdopScene;
use meshcollide::mesh::generate;
use meshcollide::pose::tumbling_poses;
use meshcollide::rng::Rng;
use meshcollide::*;

/// How a GPU run is set up.
#[derive(Clone, Copy, Default)]
struct Setup {
    caps: Option<Capacities>,
    record: Option<u32>,
    tumble: TumbleMethod,
    /// Every n-th batch hands over through the host (the fallback path; 0: none).
    host: u32,
    /// `GpuScene::batch_memory`: small to split each step over several batches.
    memory: Option<u64>,
}

/// GPU with coherence against the CPU with it (pairs, Nv, Np, Nu per pose) and without it
/// (pairs); returns the GPU's stats and the summed Nv of the GPU with and without
/// coherence.
fn compare<const H: usize>(
    ctx: &GpuContext,
    a: &Mesh,
    b: &Mesh,
    poses: &[Pose],
    descent: Descent,
    setup: Setup,
    label: &str,
) -> (GpuStats, u64, u64) {
    let o = BuildOptions::default();
    let options = |coherence| KdopOptions {
        coherence,
        ..KdopOptions::with_descent(descent)
    };
    let coh = KdopScene::<H>::build(a, b, &o, &o, options(true));
    let plain = KdopScene::<H>::build(a, b, &o, &o, options(false));
    let q = QueryOptions {
        mode: Mode::All,
        tumble: setup.tumble,
        ..Default::default()
    };
    let cpu = meshcollide::scene::collide_batch(&coh, poses, &q, None);
    let cpu_plain = meshcollide::scene::collide_batch(&plain, poses, &q, None);
    let mut gpu = GpuScene::new(ctx, &coh).unwrap();
    if let Some(c) = setup.caps {
        gpu.capacities = c;
    }
    if let Some(r) = setup.record {
        gpu.set_record_capacity(r);
    }
    gpu.set_host_handover(setup.host);
    if let Some(m) = setup.memory {
        gpu.batch_memory = m;
    }
    let (got, stats) = gpu
        .collide_batch(ctx, &coh, poses, Mode::All, setup.tumble, None)
        .unwrap();
    let (plain_got, _) = GpuScene::new(ctx, &plain)
        .unwrap()
        .collide_batch(ctx, &plain, poses, Mode::All, setup.tumble, None)
        .unwrap();
    assert_eq!(got.len(), poses.len(), "{label}");
    let (mut nv, mut nv_plain) = (0, 0);
    for (i, ((g, c), p)) in got.iter().zip(&cpu).zip(&cpu_plain).enumerate() {
        let l = format!("{label} H={H} {descent:?} {:?} pose {i}", setup.tumble);
        assert_eq!(g.pairs, c.pairs, "{l}: pairs vs CPU with coherence");
        assert_eq!(g.pairs, p.pairs, "{l}: pairs vs CPU without coherence");
        assert_eq!(g.counters.bv_tests, c.counters.bv_tests, "{l}: Nv");
        assert_eq!(g.counters.tri_tests, c.counters.tri_tests, "{l}: Np");
        assert_eq!(g.counters.bv_updates, c.counters.bv_updates, "{l}: Nu");
        nv += g.counters.bv_tests;
    }
    for (g, p) in plain_got.iter().zip(&cpu_plain) {
        assert_eq!(
            g.counters.bv_tests, p.counters.bv_tests,
            "{label}: plain Nv"
        );
        nv_plain += g.counters.bv_tests;
    }
    (stats, nv, nv_plain)
}

#[test]
fn coherent_turns_match_the_cpu_with_fewer_node_tests() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(16);
    // 1.8° apart; 69 poses: the last chunk has 5.
    let poses = &tumbling_poses(200, [0.0; 3], [1.0, 0.0, 0.0])[..69];
    for descent in [Descent::Larger, Descent::Environment] {
        let (s, nv, plain) = compare::<9>(&ctx, &a, &b, poses, descent, Setup::default(), "tori");
        assert!(nv < plain, "coherence saves node tests: {nv} vs {plain}");
        assert!(s.seeded_poses > 0, "poses started from fronts");
        // Fronts that grew too fine restart at the roots on both sides (Nv per pose above).
        assert!(s.rerooted_poses > 0, "{descent:?}: no front regrew");
    }
    compare::<3>(
        &ctx,
        &a,
        &b,
        poses,
        Descent::Larger,
        Setup::default(),
        "tori k6",
    );
    compare::<13>(
        &ctx,
        &a,
        &b,
        &poses[..40],
        Descent::Larger,
        Setup::default(),
        "tori k26",
    );
    let exact = Setup {
        tumble: TumbleMethod::Exact,
        ..Default::default()
    };
    compare::<9>(
        &ctx,
        &a,
        &b,
        &poses[..37],
        Descent::Larger,
        exact,
        "tori exact",
    );
    // Nested spheres 1% apart turning in place: contacts nowhere, tests everywhere.
    let outer = generate::uv_sphere([0.0; 3], 1.0, 12, 24);
    let inner = generate::uv_sphere([0.0; 3], 0.99, 12, 24);
    let turn = &tumbling_poses(720, [0.0; 3], [0.0; 3])[..40];
    let (_, nv, plain) = compare::<9>(
        &ctx,
        &outer,
        &inner,
        turn,
        Descent::Larger,
        Setup::default(),
        "spheres",
    );
    assert!(nv < plain, "{nv} vs {plain}");
}

#[test]
fn incoherent_poses_turn_coherence_off() {
    let Some(ctx) = common::gpu() else { return };
    let mut rng = Rng::new(3);
    let a = generate::random_soup(rng.next_u64(), 80, 1.0, 0.6);
    let b = generate::random_soup(rng.next_u64(), 60, 1.0, 0.6);
    let poses: Vec<Pose> = (0..50)
        .map(|_| Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-0.8, 0.8))))
        .collect();
    let (s, ..) = compare::<9>(
        &ctx,
        &a,
        &b,
        &poses,
        Descent::Larger,
        Setup::default(),
        "soups",
    );
    assert!(
        s.coherence_off > 0,
        "unrelated poses must turn coherence off"
    );
    let (ga, gb) = (
        common::grid_soup(&mut rng, 50),
        common::grid_soup(&mut rng, 50),
    );
    let turns = common::quarter_turns(&mut rng, 24);
    compare::<9>(
        &ctx,
        &ga,
        &gb,
        &turns,
        Descent::Larger,
        Setup::default(),
        "grid soups",
    );
    // Far from the origin: the soups moved by 10⁶, coherent small turns.
    let shift = |m: &Mesh| m.map_positions(|p| [p[0] + 1e6, p[1] - 2e6, p[2] + 5e5]);
    let (fa, fb) = (shift(&a), shift(&b));
    let poses = &tumbling_poses(360, [1e6, -2e6, 5e5], [0.2, 0.0, 0.0])[..40];
    compare::<9>(
        &ctx,
        &fa,
        &fb,
        poses,
        Descent::Larger,
        Setup::default(),
        "far soups",
    );
}

/// Poses that move B away and back: the box pretest separates some, which clears the
/// chunk's front (the next pose starts at the roots again), on both backends.
#[test]
fn separated_poses_clear_the_front() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let turn = tumbling_poses(400, [0.0; 3], [1.0, 0.0, 0.0]);
    let poses: Vec<Pose> = turn[..45]
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 5 == 3 {
                Pose::new(p.q, [50.0, 0.0, 0.0])
            } else {
                *p
            }
        })
        .collect();
    let (s, ..) = compare::<9>(
        &ctx,
        &a,
        &b,
        &poses,
        Descent::Larger,
        Setup::default(),
        "away",
    );
    assert!(s.seeded_poses > 0);
}

/// Tiny capacities: the batches overflow and resume or run again, the record buffer of one
/// pair runs each step again; the same pairs and counters.
#[test]
fn tiny_capacities_give_the_same_results() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let poses = &tumbling_poses(300, [0.0; 3], [1.0, 0.0, 0.0])[..35];
    let tiny = Setup {
        caps: Some(common::TINY_CAPACITIES),
        record: Some(1),
        ..Default::default()
    };
    let (s, ..) = compare::<9>(&ctx, &a, &b, poses, Descent::Larger, tiny, "tiny");
    assert!(s.reruns > 0, "the record buffer must overflow");
    assert!(s.resumes + s.reruns > 1, "the batch buffers must overflow");
    // A resumed batch recorded some pairs twice: its fronts went through the host.
    assert!(s.resumes > 0 && s.fronts_on_host > 0, "{s:?}");
}

/// Steps split over several batches: a step's seeds come from several batches' records
/// (one gather per record), or some from the host and some from the device (every other
/// batch handed over through the host), or from batches that resumed; the same results.
#[test]
fn split_steps_mix_records_and_paths() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    // 24 chunks: step 0 is the 16-pose probe and 8 more, step 1 runs all 24 at once (at
    // most four times the last batch's poses), seeded from both records of step 0.
    let poses = &tumbling_poses(1200, [0.0; 3], [1.0, 0.0, 0.0])[..384];
    for (host, tumble) in [
        (0, TumbleMethod::Approximate),
        (2, TumbleMethod::Approximate),
        (2, TumbleMethod::Exact),
    ] {
        let setup = Setup {
            host,
            tumble,
            ..Default::default()
        };
        let (s, ..) = compare::<9>(&ctx, &a, &b, poses, Descent::Larger, setup, "split");
        assert!(
            s.batches.len() > 16,
            "step 0 split: {} batches",
            s.batches.len()
        );
        assert!(s.fronts_on_device > 0, "{s:?}");
        assert!(s.fronts_on_host > 0 || host == 0, "{s:?}");
    }
    // Split into one-pose batches, some resumed.
    let tiny = Setup {
        caps: Some(common::TINY_CAPACITIES),
        memory: Some(1),
        ..Default::default()
    };
    let (s, ..) = compare::<9>(&ctx, &a, &b, &poses[..64], Descent::Larger, tiny, "tiny");
    assert!(s.batches.len() > 16 && s.resumes > 0, "{s:?}");
    assert!(s.fronts_on_device > 0 && s.fronts_on_host > 0, "{s:?}");
}

/// The fronts stay on the device from step to step: per step the host reads back a few
/// words per pose (counters, Nv/Np/Nu, each lane's pair count) and the contacts, never the
/// fronts, and uploads the frames and a small table, never the seeds. Against the host
/// path (same pairs and counters through `compare`), which moves every front both ways.
#[test]
fn fronts_stay_on_the_device() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(16);
    // 0.1° apart: fine fronts, few contacts; 64 poses, four chunks, 16 steps of 4.
    let poses = &tumbling_poses(3600, [0.0; 3], [1.0, 0.0, 0.0])[..64];
    for tumble in [TumbleMethod::Approximate, TumbleMethod::Exact] {
        let run = |host| {
            let setup = Setup {
                tumble,
                host,
                ..Default::default()
            };
            compare::<9>(&ctx, &a, &b, poses, Descent::Larger, setup, "hand-over").0
        };
        let (dev, host) = (run(0), run(1));
        let o = BuildOptions::default();
        let scene = KdopScene::<9>::build(&a, &b, &o, &o, KdopOptions::default());
        let q = QueryOptions {
            mode: Mode::All,
            tumble,
            ..Default::default()
        };
        let cpu = meshcollide::scene::collide_batch(&scene, poses, &q, None);
        let contacts: u64 = cpu.iter().map(|r| r.pairs.len() as u64).sum();
        assert_eq!(
            (dev.fronts_on_device, dev.fronts_on_host),
            (15, 0),
            "{dev:?}"
        );
        assert_eq!((host.fronts_on_device, host.fronts_on_host), (0, 15));
        assert!(dev.seeded_poses > 0 && dev.seeded_poses == host.seeded_poses);
        // The host path moves every front both ways.
        assert!(host.bytes_read_back > dev.bytes_read_back);
        assert!(host.bytes_uploaded > dev.bytes_uploaded);
        // Bounded by the poses and the contacts: per readback the counters and level sizes
        // (under 512 bytes), per pose and step Nv, Np, Nu and the lane's count (20 bytes),
        // 16 bytes per contact or unsure pair; the host path's fronts exceed that.
        let bound = |s: &GpuStats| {
            let poses: u64 = s.batches.iter().map(|w| w.poses).sum();
            s.readbacks * 512 + poses * 20 + 16 * (contacts + s.unsure)
        };
        assert!(dev.bytes_read_back <= bound(&dev), "{dev:?}");
        assert!(
            host.bytes_read_back > bound(&host),
            "the bound tells fronts apart"
        );
    }
}

/// Small batches (`max_batch_poses` below a chunk's 16 poses and not a multiple) run the
/// same chunks: the results do not depend on the batch size.
#[test]
fn batch_size_does_not_change_results() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let poses = &tumbling_poses(300, [0.0; 3], [1.0, 0.0, 0.0])[..50];
    let o = BuildOptions::default();
    let scene = KdopScene::<9>::build(
        &a,
        &b,
        &o,
        &o,
        KdopOptions {
            coherence: true,
            ..Default::default()
        },
    );
    let run = |most: usize| {
        let mut g = GpuScene::new(&ctx, &scene).unwrap();
        g.max_batch_poses = most;
        g.collide_batch(
            &ctx,
            &scene,
            poses,
            Mode::All,
            TumbleMethod::Approximate,
            None,
        )
        .unwrap()
        .0
    };
    let cpu = meshcollide::scene::collide_batch(&scene, poses, &QueryOptions::default(), None);
    for most in [5, 16, 40] {
        for (i, (g, c)) in run(most).iter().zip(&cpu).enumerate() {
            assert_eq!(g.pairs, c.pairs, "batch {most} pose {i}");
            assert_eq!(g.counters, c.counters, "batch {most} pose {i}");
        }
    }
}

/// `meshcollide query --backend gpu --coherence` writes the pairs.csv of `--backend cpu
/// --coherence`, byte for byte, with the same Nv, Np and Nu in stats.json (kdop18: the
/// default `auto` is coherent on both of its trees on the CPU, kdop18 alone on the GPU).
#[test]
fn cli_gpu_coherence_equals_cpu() {
    let Some(_ctx) = common::gpu() else { return };
    let d = std::env::temp_dir().join(format!("meshcollide-gpucoh-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let (a, b) = common::tori(12);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let poses = &tumbling_poses(900, [0.0; 3], [1.0, 0.0, 0.0])[..70];
    std::fs::write(d.join("poses.csv"), pose::format_poses(poses)).unwrap();
    let run = |out: &str, backend: &str| {
        let o = common::bin()
            .args(["query", "a.obj", "b.obj", "--poses", "poses.csv"])
            .args(["--backend", backend, "--coherence", "--bv", "kdop18"])
            .args(["--out", out, "--stats", &format!("{out}.json")])
            .current_dir(&d)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join(format!("{out}.json"))).unwrap())
                .unwrap();
        (std::fs::read(d.join(out)).unwrap(), s)
    };
    let (cpu, sc) = run("cpu.csv", "cpu");
    let (gpu, sg) = run("gpu.csv", "gpu");
    assert_eq!(cpu, gpu, "pairs.csv");
    assert!(sg["backend"].as_str().unwrap().starts_with("gpu"));
    assert_eq!(sg["coherence"], true);
    for k in ["pairs", "bv_tests", "tri_tests", "bv_updates"] {
        assert_eq!(sg[k], sc[k], "{k}");
    }
    // 70 poses are 5 runs of at most 16: at most 65 poses can start from a front, and on
    // these small steps some do.
    let seeded = sg["gpu"]["seeded_poses"].as_u64().unwrap();
    assert!(seeded > 0 && seeded <= 65, "{seeded}");
    assert!(sg["gpu"]["coherence_off"].as_u64().unwrap() <= 5);
    let _ = std::fs::remove_dir_all(&d);
}
