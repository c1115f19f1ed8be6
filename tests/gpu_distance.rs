//! The distance query on the GPU ([`Collider::distance_batch_gpu`]): the host bounds each
//! pose (a greedy descent, the previous pose's pair), the device runs every pose at 0 and
//! the poses apart again at their bound (B's tumbled k-DOPs grown per pose, the coordinate
//! gaps combined), and the host keeps the exact minimum of the pairs it returns. Against
//! the CPU's search and the all-pairs oracle `brute_force_distance`: the same distance,
//! witness pair and closest points, field for field, on kdop6/14/18/26 and `auto`, on
//! touching and coplanar grid soups, soups in general position, tumbling tori and soups
//! 10⁷ from the origin, with and without `upto`, and under tiny capacities (overflow and
//! resume); the dual, OBB and sphere trees are refused by name; the command line's
//! `distance --backend gpu` writes the CPU's bytes.

mod common;

use meshcollide::gpu::GpuError;
use meshcollide::proximity::distance::{PoseDistance, brute_force_distance};
use meshcollide::*;

fn cases() -> Vec<common::ProximityCase> {
    common::proximity_cases(
        0x0d_15_7a_9c,
        &common::CaseSizes {
            grid: (10, 12),
            float: (30, 12),
            tori_poses: 10,
            far: (24, 10),
            grid_eps_max: 1.0,
        },
    )
}

const KINDS: [BvKind; 5] = [
    BvKind::Kdop6,
    BvKind::Kdop14,
    BvKind::Kdop18,
    BvKind::Kdop26,
    BvKind::Auto,
];

/// Distance, witness and points as one comparable value (the counters differ by design).
fn answer(d: &PoseDistance) -> (u64, Option<distance::Witness>) {
    (d.distance.to_bits(), d.witness)
}

use meshcollide::proximity::distance;

/// GPU = CPU = brute force, field for field, every case and hierarchy, with and without
/// `upto` (at the median distance of the case: some poses within, some not).
#[test]
fn gpu_distance_equals_the_cpu_and_brute_force() {
    let Some(ctx) = common::gpu() else { return };
    let (mut zero, mut positive, mut beyond) = (0, 0, 0);
    for case in cases() {
        let oracle: Vec<PoseDistance> = case
            .poses
            .iter()
            .map(|p| brute_force_distance(&case.a, &case.b, p, None))
            .collect();
        let mut ds: Vec<f64> = oracle.iter().map(|o| o.distance).collect();
        ds.sort_by(f64::total_cmp);
        let median = ds[ds.len() / 2];
        let capped: Vec<PoseDistance> = case
            .poses
            .iter()
            .map(|p| brute_force_distance(&case.a, &case.b, p, Some(median)))
            .collect();
        for bv in KINDS {
            let c = Collider::builder(&case.a, &case.b).bv(bv).build().unwrap();
            let label = format!("{}, {}", case.name, bv.name());
            let (gpu, stats) = c.distance_batch_gpu(&ctx, &case.poses, None).unwrap();
            let cpu = c.distance_batch(&case.poses, None).unwrap();
            for (i, ((g, r), o)) in gpu.iter().zip(&cpu).zip(&oracle).enumerate() {
                assert_eq!(answer(r), answer(o), "{label}, pose {i}: CPU");
                assert_eq!(answer(g), answer(o), "{label}, pose {i}: GPU");
                assert!(g.counters.bv_tests > 0, "{label}, pose {i}: the device ran");
            }
            assert!(stats.submissions > 0, "{label}");
            let (gpu, _) = c
                .distance_batch_gpu(&ctx, &case.poses, Some(median))
                .unwrap();
            for (i, (g, o)) in gpu.iter().zip(&capped).enumerate() {
                assert_eq!(answer(g), answer(o), "{label}, pose {i}, upto {median}");
                beyond += g.witness.is_none() as usize;
            }
        }
        for o in &oracle {
            if o.distance == 0.0 {
                zero += 1;
            } else {
                positive += 1;
            }
        }
    }
    // The cases hold crossing or touching poses, poses apart, and poses beyond `upto`.
    assert!(
        zero > 0 && positive > 0 && beyond > 0,
        "{zero} {positive} {beyond}"
    );
}

/// Capacities far below what any pose needs: every level overflows and resumes, and the
/// answers are the same.
#[test]
fn gpu_distance_survives_tiny_capacities() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(10);
    let poses = pose::tumbling_poses(12, [0.0; 3], [2.2, 0.3, 0.1]);
    let c = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .build()
        .unwrap();
    let ample = c.distance_batch_gpu(&ctx, &poses, None).unwrap().0;
    let cpu = c.distance_batch(&poses, None).unwrap();
    let tight = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .stream_chunk(5)
        .build()
        .unwrap();
    let small = tight.distance_batch_gpu(&ctx, &poses, None).unwrap().0;
    for (i, ((x, y), r)) in ample.iter().zip(&small).zip(&cpu).enumerate() {
        assert_eq!(answer(x), answer(r), "pose {i}");
        assert_eq!(answer(y), answer(r), "pose {i}, chunks of 5");
    }
}

/// The dual, OBB and sphere trees answer distances on the CPU only; the boxtree and the
/// R-tree not at all on the GPU. Each refusal names the hierarchy.
#[test]
fn gpu_distance_refuses_the_other_trees_by_name() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(6);
    let poses = [Pose::new([1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0])];
    for (bv, name) in [
        (BvKind::Dual18, "dual18"),
        (BvKind::Obb, "obb"),
        (BvKind::Sphere, "sphere"),
    ] {
        let c = Collider::builder(&a, &b).bv(bv).build().unwrap();
        match c.distance_batch_gpu(&ctx, &poses, None) {
            Err(Error::Gpu(GpuError::DistanceUnsupported { bv })) => assert_eq!(bv, name),
            other => panic!("{name}: {other:?}"),
        }
        // The CPU answers.
        assert!(c.distance_batch(&poses, None).is_ok());
    }
    let c = Collider::builder(&a, &b)
        .bv(BvKind::Boxtree)
        .build()
        .unwrap();
    assert!(matches!(
        c.distance_batch_gpu(&ctx, &poses, None),
        Err(Error::Gpu(GpuError::Unsupported { bv: "boxtree" }))
    ));
}

/// `meshcollide distance --backend gpu` writes the CPU's bytes (with `--upto` too), and its
/// stats name the adapter; `--bv obb --backend gpu` is exit 2 naming the hierarchy.
#[test]
fn cli_gpu_distance_writes_the_cpu_bytes() {
    let Some(_ctx) = common::gpu() else { return };
    let d = common::fresh_tmp_dir("gpu_distance", "cli");
    let (a, b) = common::tori(8);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let mut poses = pose::tumbling_poses(8, [0.0; 3], [2.8, 0.0, 0.0]);
    poses.extend(pose::tumbling_poses(5, [0.0; 3], [1.0, 0.1, 0.0]));
    std::fs::write(d.join("poses.csv"), pose::format_poses(&poses)).unwrap();
    let run = |backend: &str, bv: &str, extra: &[&str], out: &str| {
        common::bin()
            .current_dir(&d)
            .args(["distance", "a.obj", "b.obj", "--poses", "poses.csv"])
            .args(["--out", out, "--backend", backend, "--bv", bv, "--force"])
            .args(extra)
            .output()
            .unwrap()
    };
    for bv in ["kdop6", "auto"] {
        for extra in [&[][..], &["--upto", "0.4"][..]] {
            let cpu = run("cpu", bv, extra, "cpu.csv");
            assert!(
                cpu.status.success(),
                "{}",
                String::from_utf8_lossy(&cpu.stderr)
            );
            let gpu = run(
                "gpu",
                bv,
                &[extra, &["--stats", "s.json"]].concat(),
                "gpu.csv",
            );
            assert!(
                gpu.status.success(),
                "{}",
                String::from_utf8_lossy(&gpu.stderr)
            );
            let (c, g) = (d.join("cpu.csv"), d.join("gpu.csv"));
            assert_eq!(
                std::fs::read(g).unwrap(),
                std::fs::read(c).unwrap(),
                "{bv} {extra:?}"
            );
            let stats = std::fs::read_to_string(d.join("s.json")).unwrap();
            assert!(stats.contains("\"backend\": \"gpu: "), "{stats}");
            assert!(stats.contains("\"dispatches\""), "{stats}");
        }
    }
    let o = run("gpu", "obb", &[], "x.csv");
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("obb") && err.contains("--backend cpu"),
        "{err}"
    );
    assert!(!d.join("x.csv").exists());
}
