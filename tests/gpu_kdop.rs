//! GPU against the CPU reference: the same pairs at every pose, and the same Nv (the same
//! node pairs tested) in all-contacts mode, for every k, on generated cases (interlocked
//! tori, nested spheres, touching grid soups) and on shared models; tiny capacities give the
//! same pairs as large ones.

mod common;

use meshcollide::gpu::collide::{Capacities, GpuScene};
use meshcollide::gpu::{GpuContext, GpuError};
use meshcollide::kdop::{Descent, KdopScene};
use meshcollide::mesh::generate;
use meshcollide::pose::tumbling_poses;
use meshcollide::rng::Rng;
use meshcollide::*;

/// A buffer budget far below what the batch needs: batches split down to single poses and
/// the pairs and Nv stay those of the reference.
#[test]
fn small_buffer_budget_splits_batches() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let poses = tumbling_poses(16, [0.0; 3], [1.0, 0.0, 0.0]);
    let o = BuildOptions::default();
    let scene = KdopScene::<9>::build(&a, &b, &o, &o, KdopOptions::PAPER);
    let mut gpu = GpuScene::new(&ctx, &scene).unwrap();
    gpu.capacities = common::TINY_CAPACITIES;
    // Room for one pose's buffers, not for sixteen.
    gpu.max_buffer_bytes = 256 << 10;
    let cpu = meshcollide::scene::collide_batch(
        &scene,
        &poses,
        &QueryOptions {
            ..Default::default()
        },
        None,
    );
    let (got, stats) = gpu
        .collide_batch(
            &ctx,
            &scene,
            &poses,
            Mode::All,
            TumbleMethod::Approximate,
            None,
        )
        .unwrap();
    assert!(stats.splits > 0, "the budget must force splits");
    let mut pairs = 0;
    for (i, (g, c)) in got.iter().zip(&cpu).enumerate() {
        assert_eq!(g.pairs, c.pairs, "pose {i}");
        assert_eq!(g.counters.bv_tests, c.counters.bv_tests, "pose {i}: Nv");
        pairs += c.pairs.len();
    }
    assert!(pairs > 0);
}

/// Static arrays beyond the binding limit are split over several bindings: with a limit
/// half the largest array, every array above it is paged and the pairs, Nv, Np and Nu
/// stay the reference's (k-DOP scenes of two node sizes, and a dual scene with its spheres).
#[test]
fn arrays_beyond_the_binding_limit_are_paged() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(14);
    // Grazing poses: one pose's front fits the small binding, the arrays do not.
    let poses = tumbling_poses(6, [0.0; 3], [2.2, 0.0, 0.0]);
    let o = BuildOptions::default();
    fn limited<const H: usize>(ctx: GpuContext, scene: &KdopScene<H>) -> GpuContext {
        let full = GpuScene::new(&ctx, scene).unwrap().pages();
        let largest = full.iter().map(|&(_, _, bytes)| bytes).max().unwrap();
        // Half: a third pages the k26 node arrays into 8 pages each, and with B's bounding
        // points (which the expansions read to tumble lazily) the expansion would bind 35
        // storage buffers, over lavapipe's 32 per stage.
        let ctx = ctx.with_binding_limit(largest / 2);
        let paged = GpuScene::new(&ctx, scene).unwrap();
        assert!(paged.paged);
        for (name, pages, bytes) in paged.pages() {
            if bytes > ctx.binding_limit {
                assert!(pages > 1, "{name}: {bytes} bytes in one page");
            }
            if name.ends_with("_nodes") {
                assert!(pages >= 2, "{name}: {pages} page(s)");
            }
        }
        ctx
    }
    // Exact tumbling keeps every node of B per pose in one binding: beyond it, a typed
    // error that names the way out.
    let approx = [
        (Mode::All, TumbleMethod::Approximate),
        (Mode::First, TumbleMethod::Approximate),
    ];
    let s9 = KdopScene::<9>::build(&a, &b, &o, &o, KdopOptions::default());
    let c9 = limited(ctx, &s9);
    let n = compare_runs(&c9, &a, &b, &poses, &s9, None, &approx, "paged k18");
    let s13 = KdopScene::<13>::build(&a, &b, &o, &o, KdopOptions::default());
    let c13 = limited(c9, &s13);
    let n = n + compare_runs(&c13, &a, &b, &poses, &s13, None, &approx, "paged k26");
    assert!(n > 0, "the scene must have contacts");
    let exact = GpuScene::new(&c13, &s13).unwrap().collide_batch(
        &c13,
        &s13,
        &poses,
        Mode::All,
        TumbleMethod::Exact,
        None,
    );
    assert!(
        matches!(exact, Err(GpuError::ExactTumbleTooLarge { .. })),
        "{exact:?}"
    );

    let collider = Collider::builder(&a, &b)
        .bv(BvKind::Dual18)
        .build()
        .unwrap();
    let opts = QueryOptions::default();
    let cpu = collider.collide_batch_with(&poses, &opts, None);
    let (got, _) = collider
        .collide_batch_gpu(&c13, &poses, &opts, None)
        .unwrap();
    for (i, (g, c)) in got.iter().zip(&cpu).enumerate() {
        assert_eq!(g.pairs, c.pairs, "dual18 pose {i}");
        assert_eq!(
            g.counters.bv_tests, c.counters.bv_tests,
            "dual18 pose {i}: Nv"
        );
    }
}

fn compare<const H: usize>(
    ctx: &GpuContext,
    a: &Mesh,
    b: &Mesh,
    poses: &[Pose],
    leaf: u32,
    caps: Option<Capacities>,
    label: &str,
) -> usize {
    let o = BuildOptions {
        leaf_size: leaf,
        ..Default::default()
    };
    let mut total = 0;
    for descent in [Descent::Environment, Descent::Larger] {
        let scene = KdopScene::<H>::build(a, b, &o, &o, KdopOptions::with_descent(descent));
        let label = &format!("{label} {descent:?}");
        total += compare_scene(ctx, a, b, poses, &scene, caps, label);
    }
    total
}

fn compare_scene<const H: usize>(
    ctx: &GpuContext,
    a: &Mesh,
    b: &Mesh,
    poses: &[Pose],
    scene: &KdopScene<H>,
    caps: Option<Capacities>,
    label: &str,
) -> usize {
    let runs = [
        (Mode::All, TumbleMethod::Approximate),
        (Mode::First, TumbleMethod::Approximate),
        (Mode::All, TumbleMethod::Exact),
    ];
    compare_runs(ctx, a, b, poses, scene, caps, &runs, label)
}

#[allow(clippy::too_many_arguments)]
fn compare_runs<const H: usize>(
    ctx: &GpuContext,
    a: &Mesh,
    b: &Mesh,
    poses: &[Pose],
    scene: &KdopScene<H>,
    caps: Option<Capacities>,
    runs: &[(Mode, TumbleMethod)],
    label: &str,
) -> usize {
    let mut gpu = GpuScene::new(ctx, scene).unwrap();
    if let Some(c) = caps {
        gpu.capacities = c;
    }
    let mut total = 0;
    for &(mode, tumble) in runs {
        let label = &format!("{label} {tumble:?}");
        let cpu = meshcollide::scene::collide_batch(
            scene,
            poses,
            &QueryOptions {
                mode,
                tumble,
                ..Default::default()
            },
            None,
        );
        let (got, stats) = gpu
            .collide_batch(ctx, scene, poses, mode, tumble, None)
            .unwrap();
        assert_eq!(got.len(), cpu.len());
        if mode == Mode::All && tumble == TumbleMethod::Approximate {
            // The breadth-first CPU mirror of the kernels: the same fronts level by level.
            let (mirror, mstats) =
                meshcollide::gpu::mirror::collide_batch_mirror(scene, poses, mode);
            assert_eq!(
                mstats.level_sizes, stats.level_sizes,
                "{label} H={H}: front sizes per level"
            );
            for (i, (m, c)) in mirror.iter().zip(&cpu).enumerate() {
                assert_eq!(m.pairs, c.pairs, "{label} H={H} pose {i}: mirror pairs");
                assert_eq!(
                    m.counters.bv_tests, c.counters.bv_tests,
                    "{label} H={H} pose {i}: mirror Nv"
                );
            }
        }
        for (i, (g, c)) in got.iter().zip(&cpu).enumerate() {
            match mode {
                Mode::All => {
                    if g.pairs != c.pairs {
                        let missed: Vec<_> = c
                            .pairs
                            .iter()
                            .filter(|x| !g.pairs.contains(x))
                            .take(8)
                            .collect();
                        let extra: Vec<_> = g
                            .pairs
                            .iter()
                            .filter(|x| !c.pairs.contains(x))
                            .take(8)
                            .collect();
                        panic!("{label} H={H} pose {i}: GPU missed {missed:?}, extra {extra:?}");
                    }
                    assert_eq!(
                        g.counters.bv_tests, c.counters.bv_tests,
                        "{label} H={H} pose {i}: Nv"
                    );
                    assert_eq!(
                        g.counters.tri_tests, c.counters.tri_tests,
                        "{label} H={H} pose {i}: Np"
                    );
                    // Lazy tumbling moves the nodes the traversal reaches, as the CPU does;
                    // the exact method refits every node on both.
                    assert_eq!(
                        g.counters.bv_updates, c.counters.bv_updates,
                        "{label} H={H} pose {i}: Nu"
                    );
                    total += c.pairs.len();
                }
                Mode::First => {
                    assert_eq!(
                        g.pairs.is_empty(),
                        c.pairs.is_empty(),
                        "{label} H={H} pose {i}: first mode"
                    );
                    assert!(g.pairs.len() <= 1);
                    for &(ta, tb) in &g.pairs {
                        let t = brute_force(a, b, &poses[i]);
                        assert!(
                            t.contains(&(ta, tb)),
                            "{label} first-mode pair is no contact"
                        );
                    }
                }
            }
        }
        if caps.is_some() && (mode, tumble) == runs[0] {
            // Capacities grow and stay grown: only the first run starts from the tiny ones.
            // Every overflow (front, leaf pairs, contacts, unsure pairs, the lazy table) is
            // resumed where the batch stopped, never run again from the start.
            assert!(
                stats.resumes > 0,
                "{label}: tiny capacities must overflow and resume"
            );
            assert_eq!(stats.reruns, 0, "{label}: no whole-batch re-run");
        }
    }
    total
}

fn all_k(ctx: &GpuContext, a: &Mesh, b: &Mesh, poses: &[Pose], leaf: u32, label: &str) {
    let n = compare::<3>(ctx, a, b, poses, leaf, None, label)
        + compare::<7>(ctx, a, b, poses, leaf, None, label)
        + compare::<9>(ctx, a, b, poses, leaf, None, label)
        + compare::<13>(ctx, a, b, poses, leaf, None, label);
    assert!(n > 0, "{label}: the scene must have contacts");
}

#[test]
fn interlocked_tori_match_the_reference() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(16);
    let poses = tumbling_poses(24, [0.0; 3], [1.0, 0.0, 0.0]);
    all_k(&ctx, &a, &b, &poses, 1, "tori");
    all_k(&ctx, &a, &b, &poses, 4, "tori leaf 4");
}

#[test]
fn nested_spheres_and_touching_soups_match_the_reference() {
    let Some(ctx) = common::gpu() else { return };
    let outer = generate::uv_sphere([0.0; 3], 1.0, 12, 24);
    let inner = generate::uv_sphere([0.0; 3], 0.95, 12, 24);
    let poses = tumbling_poses(12, [0.0; 3], [0.04, 0.0, 0.0]);
    all_k(&ctx, &outer, &inner, &poses, 1, "nested spheres");
    // Grid soups under integer shifts and half-turns: touching and coplanar contacts.
    let mut rng = Rng::new(9);
    let grid = |rng: &mut Rng| common::grid_soup(rng, 60);
    let (a, b) = (grid(&mut rng), grid(&mut rng));
    let poses: Vec<Pose> = (0..12)
        .map(|i| {
            let q = [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
                [0.0, 1.0, 0.0, 0.0],
            ][i % 3];
            Pose::new(q, [0; 3].map(|_| (rng.below(5) as f64 - 2.0) * 0.5))
        })
        .collect();
    all_k(&ctx, &a, &b, &poses, 1, "grid soup");
}

#[test]
fn tiny_capacities_give_the_same_pairs() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let poses = tumbling_poses(16, [0.0; 3], [1.0, 0.0, 0.0]);
    let tiny = common::TINY_CAPACITIES;
    let n = compare::<9>(&ctx, &a, &b, &poses, 1, Some(tiny), "tiny capacities");
    assert!(n > 0);
}

#[test]
fn shared_models_match_the_reference() {
    let Some(ctx) = common::gpu() else { return };
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in ["beetle.obj", "gearwheel.stl", "spot.obj"] {
        let m = mesh::load(&dir.join(name)).unwrap();
        let (lo, hi) = m.bounds();
        let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
        let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        let mut poses = tumbling_poses(4, c, [0.3 * size, 0.0, 0.0]);
        poses.extend(tumbling_poses(4, c, [0.7 * size, 0.02 * size, 0.0]));
        compare::<9>(&ctx, &m, &m, &poses, 1, None, name);
        compare::<3>(&ctx, &m, &m, &poses, 4, None, name);
    }
}

/// A command the device rejects becomes a typed error from `GpuContext::check` (and from
/// the next readback), not a panic; the context stays usable for the next batch.
#[test]
fn device_errors_are_typed_not_panics() {
    let Some(ctx) = common::gpu() else { return };
    // MAP_READ with STORAGE is invalid for a buffer.
    let _bad = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("invalid on purpose"),
        size: 16,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    match ctx.check() {
        Err(GpuError::Validation(msg)) => assert!(!msg.is_empty()),
        other => panic!("expected a validation error, got {other:?}"),
    }
    assert!(ctx.check().is_ok(), "the error is reported once");
    let (a, b) = common::tori(8);
    let o = BuildOptions::default();
    let scene = KdopScene::<9>::build(&a, &b, &o, &o, KdopOptions::default());
    let poses = tumbling_poses(4, [0.0; 3], [1.0, 0.0, 0.0]);
    let mut gpu = GpuScene::new(&ctx, &scene).unwrap();
    let (got, _) = gpu
        .collide_batch(
            &ctx,
            &scene,
            &poses,
            Mode::All,
            TumbleMethod::Approximate,
            None,
        )
        .unwrap();
    for (g, p) in got.iter().zip(&poses) {
        assert_eq!(g.pairs, brute_force(&a, &b, p));
    }
}

/// The collider keeps its uploaded scene ([`Collider::collide_batch_gpu`]): a second call
/// on the same device gives the same pairs and counters and uploads only its batches (the
/// static arrays, whose bytes a fresh `GpuScene::new` states, go up on the first call
/// only); `set_coherence` empties the cache, so the next call uploads them again.
#[test]
fn collider_keeps_its_gpu_scene_between_calls() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let poses = tumbling_poses(40, [0.0; 3], [1.0, 0.0, 0.0]);
    let mut c = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .build()
        .unwrap();
    let opts = QueryOptions::default();
    let static_bytes = match c.scene() {
        AnyScene::Kdop18(s) => GpuScene::new(&ctx, s).unwrap().static_bytes,
        other => panic!("kdop18 asked, {:?} built", other.kind()),
    };
    assert!(static_bytes > 0);
    let batch_bytes = |s: &meshcollide::gpu::collide::GpuStats| -> u64 {
        s.batches.iter().map(|b| b.bytes_uploaded).sum()
    };
    let cpu = c.collide_batch(&poses);
    let (first, s1) = c.collide_batch_gpu(&ctx, &poses, &opts, None).unwrap();
    let (second, s2) = c.collide_batch_gpu(&ctx, &poses, &opts, None).unwrap();
    for (i, ((f, s), r)) in first.iter().zip(&second).zip(&cpu).enumerate() {
        assert_eq!(f.pairs, r.pairs, "pose {i}: first call");
        assert_eq!(s.pairs, r.pairs, "pose {i}: second call");
        assert_eq!(f.counters.bv_tests, s.counters.bv_tests, "pose {i}: Nv");
        assert_eq!(f.counters.tri_tests, s.counters.tri_tests, "pose {i}: Np");
    }
    assert!(
        cpu.iter().any(|r| !r.pairs.is_empty()),
        "no contact at all: a weak case"
    );
    assert_eq!(
        s1.bytes_uploaded,
        static_bytes + batch_bytes(&s1),
        "first call"
    );
    assert_eq!(
        s2.bytes_uploaded,
        batch_bytes(&s2),
        "second call: the static arrays again"
    );
    assert!(s2.submissions <= s1.submissions, "learned capacities lost");
    c.set_coherence(false);
    let (third, s3) = c.collide_batch_gpu(&ctx, &poses, &opts, None).unwrap();
    assert_eq!(
        s3.bytes_uploaded,
        static_bytes + batch_bytes(&s3),
        "after set_coherence"
    );
    for (i, (t, r)) in third.iter().zip(&cpu).enumerate() {
        assert_eq!(t.pairs, r.pairs, "pose {i}: third call");
    }
}

/// `GpuContext::shared` opens one device per process: every call after the first gets the
/// same device (the same id, no probe), so a collider keeps its uploaded scene across them.
#[test]
fn the_shared_context_is_one_device() {
    if common::gpu().is_none() {
        return;
    }
    let (first, _) = GpuContext::shared_probe();
    let (again, took) = GpuContext::shared_probe();
    let (first, again) = (first.unwrap(), again.unwrap());
    assert_eq!(first.id(), again.id());
    assert!(took.is_none(), "the second call probed again");
    let (a, b) = common::tori(8);
    let poses = tumbling_poses(8, [0.0; 3], [1.0, 0.0, 0.0]);
    let c = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .build()
        .unwrap();
    let opts = QueryOptions::default();
    let (r1, _) = c.collide_batch_gpu(&first, &poses, &opts, None).unwrap();
    let (r2, s2) = c
        .collide_batch_gpu(&GpuContext::shared().unwrap(), &poses, &opts, None)
        .unwrap();
    let batches: u64 = s2.batches.iter().map(|b| b.bytes_uploaded).sum();
    assert_eq!(s2.bytes_uploaded, batches, "the scene was uploaded again");
    for (x, y) in r1.iter().zip(&r2) {
        assert_eq!(x.pairs, y.pairs);
    }
}

/// Poses given as matrices, reflections among them, run on the GPU as on the CPU: the
/// brute force's pairs on every GPU hierarchy.
#[test]
fn matrix_poses_equal_brute_force_on_the_gpu() {
    let Some(ctx) = common::gpu() else { return };
    let mut rng = Rng::new(43);
    let mut contacts = 0;
    for case in 0..8 {
        let (a, b) = (
            common::float_soup(&mut rng, 30),
            common::float_soup(&mut rng, 30),
        );
        let poses: Vec<Pose> = (0..8)
            .map(|i| common::matrix_pose(&mut rng, i % 2 == 1, 0.3))
            .collect();
        let want: Vec<_> = poses.iter().map(|p| brute_force(&a, &b, p)).collect();
        contacts += want.iter().filter(|w| !w.is_empty()).count();
        for bv in [
            BvKind::Kdop6,
            BvKind::Kdop18,
            BvKind::Dual18,
            BvKind::Obb,
            BvKind::Sphere,
        ] {
            let c = Collider::builder(&a, &b).bv(bv).build().unwrap();
            let (got, _) = c
                .collide_batch_gpu(&ctx, &poses, &QueryOptions::default(), None)
                .unwrap();
            for (i, (r, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(&r.pairs, w, "case {case}, {bv}, pose {i}");
            }
        }
    }
    assert!(contacts >= 8, "too few contacts: {contacts}");
}

/// Each batch reports its dispatches, the indirect ones and its levels (issue 39): a batch
/// that ran through without a resume records exactly the stages of `gpu::collide::stages`:
/// lazily the first level's three tumbling dispatches (`tumble_front` sized on the host),
/// one expansion per level (each hands over to the next and tumbles what it pushes) and
/// one triangle-test dispatch; after the exact method's slices, the expansions and the
/// triangle tests. Its levels are the front sizes' levels. Before issue 39 a lazy batch
/// recorded 7 dispatches per level (`tumble_front`, `prepare_tumble`, `tumble_fresh`,
/// `expand`, `prepare_tri`, `tri_test`, `prepare_next`): now at most a quarter of that.
#[test]
fn batches_report_their_dispatches_indirect_ones_and_levels() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let poses = tumbling_poses(24, [0.0; 3], [1.0, 0.0, 0.0]);
    let o = BuildOptions::default();
    let scene = KdopScene::<9>::build(&a, &b, &o, &o, KdopOptions::default());
    for tumble in [TumbleMethod::Approximate, TumbleMethod::Exact] {
        let mut gpu = GpuScene::new(&ctx, &scene).unwrap();
        let (_, stats) = gpu
            .collide_batch(&ctx, &scene, &poses, Mode::All, tumble, None)
            .unwrap();
        let mut clean = 0;
        for w in &stats.batches {
            assert_eq!(w.levels as usize, stats.level_sizes.len(), "{tumble:?}");
            if w.resumes > 0 || w.submissions > 1 {
                continue;
            }
            clean += 1;
            let l = w.levels;
            if tumble == TumbleMethod::Approximate {
                assert_eq!((w.dispatches, w.indirect_dispatches), (l + 4, l + 2));
                assert!(4 * w.dispatches <= 7 * l, "{w:?}: a quarter of 7 per level");
            } else {
                assert_eq!(w.indirect_dispatches, l + 1, "{w:?}");
                let slices = w.dispatches - (l + 1);
                assert!(
                    slices >= 1 && slices <= l,
                    "exact tumbling's slices: {slices}"
                );
            }
        }
        assert!(clean > 0, "{tumble:?}: a batch without a resume");
    }
}
