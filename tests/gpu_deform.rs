//! Deforming meshes on the GPU (`meshcollide::gpu::deform`) against the CPU backend
//! (`DeformingCollider`, itself tested against brute force in tests/deform.rs): per frame
//! the same pairs, Nv, Np and rebuilds, Nu too except with the hybrid update of a deforming
//! B (the device tumbles every node); A's node array refitted on the device equals the
//! CPU's full refit byte for byte; and no readback happens between the refit and the
//! expansion: every readback of a frame is one of its batch's (one per submission of the
//! batch, one more for the pairs), and the refit adds one submission and nothing else.
//! On the generated deforming scenes of tests/deform.rs (A only, B only, both; with and
//! without poses), far from the origin, with rebuilds (every frame, and by the trigger) and
//! with tiny capacities (the overflow and resume path). With coherence across frames
//! (`KdopOptions::coherence`): the GPU runs the CPU's rule frame for frame (runs of 16
//! frames, restarts at rebuilds, forgetting at separated frames), so the same pairs, Nv,
//! Np, Nu and rebuilds, and seeded frames test fewer node pairs than from the roots.

use meshcollide::deform::{DeformOptions, DeformingCollider, UpdateMethod};
use meshcollide::gpu::GpuContext;
use meshcollide::gpu::collide::Capacities;
use meshcollide::gpu::deform::GpuDeformingCollider;
use meshcollide::mesh::generate;
use meshcollide::{BuildOptions, BvKind, KdopOptions, Mesh, Pose, QueryOptions};

mod common;

use common::{Scene, deforming_scenes as scenes};

const FRAMES: usize = 6;

/// How `compare` runs: the frames of the sequence, and coherence across them.
#[derive(Clone, Copy)]
struct Run {
    frames: usize,
    coherence: bool,
    /// A tolerance query's `ε` (0: intersection).
    tolerance: f64,
}

const PLAIN: Run = Run {
    frames: FRAMES,
    coherence: false,
    tolerance: 0.0,
};

/// What `compare` saw: the frames in contact (CPU), and per method and choice of
/// deforming meshes (in `compare`'s order) the GPU's Nv summed over the frames and its
/// seeded frames.
struct Outcome {
    contact: usize,
    nv: Vec<u64>,
    seeded: Vec<u64>,
}

fn methods() -> [DeformOptions; 5] {
    let o = |method, rebuild_ratio| DeformOptions {
        method,
        rebuild_ratio,
    };
    [
        o(UpdateMethod::Refit, None),
        o(UpdateMethod::Hybrid, None),
        o(UpdateMethod::Rebuild, None),
        // The trigger on a hair: rebuilds at many frames, decided on the host alike.
        o(UpdateMethod::Hybrid, Some(1.0)),
        o(UpdateMethod::Refit, Some(1.0)),
    ]
}

/// A's node array of the CPU collider after its full refit (the oracle of the device's).
fn cpu_env_bytes(c: &mut DeformingCollider) -> Vec<u8> {
    use meshcollide::deform::AnyDeforming as A;
    c.validate().unwrap();
    match c.scene() {
        A::Kdop6(s) => bytemuck::cast_slice(&s.env().nodes).to_vec(),
        A::Kdop14(s) => bytemuck::cast_slice(&s.env().nodes).to_vec(),
        A::Kdop18(s) => bytemuck::cast_slice(&s.env().nodes).to_vec(),
        A::Kdop26(s) => bytemuck::cast_slice(&s.env().nodes).to_vec(),
    }
}

/// Runs the CPU and the GPU backends side by side over the frames of `scene` for every
/// method and every choice of deforming meshes (with coherence across frames as `run`
/// says, on both).
fn compare(
    ctx: &GpuContext,
    name: &str,
    scene: &Scene,
    poses: Option<&[Pose]>,
    bv: BvKind,
    caps: Option<Capacities>,
    run: Run,
) -> Outcome {
    let (a0, b0) = scene(0.0);
    let n = run.frames;
    let frames: Vec<(Mesh, Mesh)> = (0..n).map(|i| scene(i as f64 / (n - 1) as f64)).collect();
    let pose_of = |i: usize| poses.map_or(Pose::IDENTITY, |p| p[i]);
    let q = QueryOptions {
        tolerance: meshcollide::proximity::Tolerance::new(run.tolerance, "eps").unwrap(),
        ..Default::default()
    };
    let kdop = KdopOptions {
        coherence: run.coherence,
        ..Default::default()
    };
    let mut seen = Outcome {
        contact: 0,
        nv: Vec::new(),
        seeded: Vec::new(),
    };
    let mut resumed = 0;
    for opts in methods() {
        for which in 0..3 {
            // 0: both deform; 1: only A; 2: only B.
            let coh = if run.coherence { ", coherent" } else { "" };
            let what = format!("{name}, {bv:?}, {opts:?}, deforming {which}{coh}");
            let new = || {
                let build = [BuildOptions::default(); 2];
                DeformingCollider::new(&a0, &b0, bv, build, kdop, opts).unwrap()
            };
            let mut nv = 0;
            let mut cpu = new();
            let mut gpu = GpuDeformingCollider::new(ctx, new()).unwrap();
            for (i, (a, b)) in frames.iter().enumerate() {
                let fa = (which != 2).then_some(a.positions.as_slice());
                let fb = (which != 1).then_some(b.positions.as_slice());
                if let Some(c) = caps {
                    gpu.set_capacities(c);
                }
                let at = format!("{what}, frame {i}");
                let rc = cpu.query_frame(fa, fb, &pose_of(i), &q).unwrap();
                let (rg, st) = gpu
                    .query_frame(ctx, fa, fb, &pose_of(i), &q)
                    .unwrap_or_else(|e| panic!("{at}: {e}"));
                assert_eq!(rg.pairs, rc.pairs, "{at}: pairs");
                assert_eq!(rg.counters.bv_tests, rc.counters.bv_tests, "{at}: Nv");
                assert_eq!(rg.counters.tri_tests, rc.counters.tri_tests, "{at}: Np");
                let b_hybrid = which != 1 && opts.method == UpdateMethod::Hybrid;
                if !b_hybrid {
                    assert_eq!(rg.counters.bv_updates, rc.counters.bv_updates, "{at}: Nu");
                }
                assert_eq!(rg.update.rebuilds, rc.update.rebuilds, "{at}: rebuilds");
                seen.contact += !rc.pairs.is_empty() as usize;
                nv += rg.counters.bv_tests;
                // Every readback is the batch's: none between the refit and the expansion.
                let batch_readbacks: u64 = st.batches.iter().map(|b| b.readbacks).sum();
                let batch_submissions: u64 = st.batches.iter().map(|b| b.submissions).sum();
                assert_eq!(st.readbacks, batch_readbacks, "{at}: readbacks");
                let Some(b) = st.batches.first() else {
                    // The host's pretest separated the frame: the device did nothing.
                    assert_eq!(rg.counters.bv_tests, 1, "{at}");
                    assert_eq!((st.submissions, st.readbacks), (0, 0), "{at}");
                    continue;
                };
                assert_eq!(st.batches.len(), 1, "{at}: one pose, one batch");
                // At most one submission besides the batch's: A's refit.
                let extra = st.submissions - batch_submissions;
                assert!(extra <= 1, "{at}: {extra} submissions outside the batch");
                let refit_each_frame =
                    which != 2 && opts.method != UpdateMethod::Rebuild && rg.update.rebuilds == 0;
                if refit_each_frame && opts.rebuild_ratio.is_none() {
                    assert_eq!(extra, 1, "{at}: A is refitted on the device");
                }
                resumed += b.resumes + b.reruns;
                let pairs = !rg.pairs.is_empty() || st.unsure > 0;
                let clean = b.resumes == 0 && b.reruns == 0;
                if clean && run.coherence {
                    // Besides the summary and the pairs: the record's count and the lane's
                    // count (the front stays on the device), or the record read back.
                    assert!(b.readbacks <= 3 + pairs as u64, "{at}: {b:?}");
                } else if clean {
                    // One submission, its summary, and the pairs when there are any.
                    assert_eq!(b.submissions, 1, "{at}");
                    assert_eq!(b.readbacks, 1 + pairs as u64, "{at}");
                }
            }
            seen.nv.push(nv);
            seen.seeded.push(gpu.stats().seeded_poses);
            if !run.coherence {
                assert_eq!(gpu.stats().seeded_poses, 0, "{what}");
            }
            gpu.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
            if which != 2 {
                let want = cpu_env_bytes(&mut cpu);
                let got = gpu.read_env_nodes(ctx).unwrap();
                assert!(
                    got == want,
                    "{what}: A's nodes on the device differ from the refit"
                );
            }
        }
    }
    if caps.is_some() {
        assert!(resumed > 0, "{name}: tiny capacities must overflow");
    }
    seen
}

#[test]
fn generated_scenes_equal_the_cpu_per_frame() {
    let Some(ctx) = common::gpu() else { return };
    for (name, scene) in scenes() {
        let contact = compare(&ctx, name, &scene, None, BvKind::Kdop18, None, PLAIN).contact;
        assert!(contact >= 2, "{name}: only {contact} frames in contact");
        let poses = common::small_poses(7, FRAMES);
        compare(
            &ctx,
            name,
            &scene,
            Some(&poses),
            BvKind::Kdop18,
            None,
            PLAIN,
        );
    }
}

/// A tolerance query on frames (`query --frames-a/-b --tolerance`): per frame the CPU's
/// pairs and Nv, Np on the device (the slabs grown by the same margins, every triangle pair
/// of the leaf pairs decided by the host), every update method and choice of deforming
/// meshes, with coherence asked for (a tolerance runs from the roots on both); the pairs
/// are the all-pairs oracle's on the deforming scene.
#[test]
fn tolerance_frames_equal_the_cpu() {
    let Some(ctx) = common::gpu() else { return };
    let (name, scene) = scenes().remove(0);
    let run = Run {
        frames: 4,
        coherence: true,
        tolerance: 0.05,
    };
    let seen = compare(&ctx, name, &scene, None, BvKind::Kdop18, None, run);
    assert!(seen.contact > 0, "{name}: no frame within ε");
    for i in 0..4 {
        let (a, b) = scene(i as f64 / 3.0);
        let want = meshcollide::proximity::brute_force_within(&a, &b, &Pose::IDENTITY, 0.05);
        let new = || {
            DeformingCollider::new(
                &a,
                &b,
                BvKind::Kdop18,
                [BuildOptions::default(); 2],
                KdopOptions::default(),
                DeformOptions::default(),
            )
            .unwrap()
        };
        let mut c = new();
        let mut gpu = GpuDeformingCollider::new(&ctx, new()).unwrap();
        let q = QueryOptions {
            tolerance: meshcollide::proximity::Tolerance::new(0.05, "eps").unwrap(),
            ..Default::default()
        };
        let (r, _) = gpu
            .query_frame(&ctx, None, None, &Pose::IDENTITY, &q)
            .unwrap();
        assert_eq!(r.pairs, want, "{name}, frame {i}");
        assert_eq!(
            r.pairs,
            c.query_frame(None, None, &Pose::IDENTITY, &q)
                .unwrap()
                .pairs
        );
    }
}

#[test]
fn every_kdop_follows_frames_on_the_gpu() {
    let Some(ctx) = common::gpu() else { return };
    let (name, scene) = scenes().remove(3);
    for bv in [BvKind::Kdop6, BvKind::Kdop14, BvKind::Kdop26] {
        compare(&ctx, name, &scene, None, bv, None, PLAIN);
    }
}

#[test]
fn far_from_the_origin_on_the_gpu() {
    let Some(ctx) = common::gpu() else { return };
    let off = [1e6, -1e6, 5e5];
    let scene: Scene = Box::new(move |t| {
        (
            generate::breathing_torus(off, 1.0, 0.25, 24, 10, t),
            generate::folding_sheet([off[0] + 1.0, off[1], off[2] + 0.01], 10, 1.5, t),
        )
    });
    let contact = compare(&ctx, "far", &scene, None, BvKind::Kdop18, None, PLAIN).contact;
    assert!(contact >= 2);
    let poses = common::small_poses(3, FRAMES);
    compare(
        &ctx,
        "far, posed",
        &scene,
        Some(&poses),
        BvKind::Kdop18,
        None,
        PLAIN,
    );
}

#[test]
fn tiny_capacities_resume_with_the_same_results() {
    let Some(ctx) = common::gpu() else { return };
    let tiny = Capacities {
        front: 4,
        leaf: 2,
        contact: 1,
        unsure: 1,
        tumbled: 4,
    };
    let (name, scene) = scenes().remove(0);
    compare(&ctx, name, &scene, None, BvKind::Kdop18, Some(tiny), PLAIN);
    // Coherent: the resumed frames hand their fronts over through the host.
    let run = Run {
        frames: 20,
        coherence: true,
        tolerance: 0.0,
    };
    compare(&ctx, name, &scene, None, BvKind::Kdop18, Some(tiny), run);
}

/// Coherence across frames on the GPU equals the CPU's coherent run frame for frame (pairs,
/// Nv, Np, Nu, rebuilds; `compare`) for every update method, A only, B only and both
/// deforming, with and without poses, over 40 and 20 frames (runs of 16 and the start of
/// the next); and the seeded frames happened: with the update that keeps the trees (no
/// rebuild), frames start from fronts and test fewer node pairs than from the roots.
#[test]
fn coherent_frames_equal_the_cpu() {
    let Some(ctx) = common::gpu() else { return };
    // 40 small steps, as tests/deform.rs checks the CPU (20 larger ones of the breathing
    // tori test more node pairs from the fronts than from the roots, on the CPU alike).
    let n = 40;
    let coherent = Run {
        frames: n,
        coherence: true,
        tolerance: 0.0,
    };
    let plain = Run {
        coherence: false,
        ..coherent
    };
    for (name, scene) in scenes() {
        let off = compare(&ctx, name, &scene, None, BvKind::Kdop18, None, plain);
        let on = compare(&ctx, name, &scene, None, BvKind::Kdop18, None, coherent);
        assert_eq!(on.contact, off.contact, "{name}");
        for (k, opts) in methods().iter().enumerate() {
            if opts.method == UpdateMethod::Rebuild || opts.rebuild_ratio.is_some() {
                continue;
            }
            // Both deforming, as tests/deform.rs checks the CPU (with one mesh deforming
            // some scenes are apart, every frame separated by the pretest).
            let i = 3 * k;
            let what = format!("{name}, {opts:?}");
            assert!(on.seeded[i] > 0, "{what}: no frame started from a front");
            assert!(
                on.nv[i] < off.nv[i],
                "{what}: Nv {} >= {}",
                on.nv[i],
                off.nv[i]
            );
        }
        let posed = Run {
            frames: 10,
            ..coherent
        };
        let poses = common::small_poses(11, posed.frames);
        compare(
            &ctx,
            name,
            &scene,
            Some(&poses),
            BvKind::Kdop18,
            None,
            posed,
        );
    }
}

#[test]
fn wrong_frames_are_typed_errors_on_the_gpu_too() {
    let Some(ctx) = common::gpu() else { return };
    let a = generate::torus([0.0; 3], 1.0, 0.3, 12, 6);
    let b = generate::torus([1.0, 0.0, 0.0], 1.0, 0.3, 12, 6);
    let cpu = DeformingCollider::new(
        &a,
        &b,
        BvKind::Kdop18,
        Default::default(),
        Default::default(),
        Default::default(),
    )
    .unwrap();
    let mut c = GpuDeformingCollider::new(&ctx, cpu).unwrap();
    let q = QueryOptions::default();
    let e = c
        .query_frame(&ctx, Some(&a.positions[1..]), None, &Pose::IDENTITY, &q)
        .unwrap_err();
    assert!(e.to_string().contains("71"), "{e}");
    let mut nan = b.positions.clone();
    nan[3][1] = f64::NAN;
    let e = c
        .query_frame(&ctx, None, Some(&nan), &Pose::IDENTITY, &q)
        .unwrap_err();
    assert!(e.to_string().contains("vertex 3"), "{e}");
    let (r, _) = c
        .query_frame(&ctx, None, None, &Pose::IDENTITY, &q)
        .unwrap();
    assert_eq!(r.pairs, meshcollide::brute_force(&a, &b, &Pose::IDENTITY));
}
