//! The tolerance query on the GPU ([`meshcollide::proximity`]): the expansion's slabs grown
//! by the f32 margins of `kdops_within` (the CPU's own test), on the OBB and sphere trees
//! A's volumes grown as the CPU grows them, on the dual hierarchy both; every triangle pair
//! of the leaf pairs decided by the host's exact `tri_tri_within`. Against the CPU's
//! `within_into` and the all-pairs oracle `brute_force_within`: the same pairs at every
//! pose, and the same counters (Nv, Np, Nu, the dual's sphere and slab counts), on
//! kdop6/14/18/26, `auto`, obb, sphere, dual18 and dual6, at several ε,
//! on touching and coplanar grid soups, soups in general position, tumbling tori and
//! soups 10⁷ from the origin; tiny capacities (overflow and resume) give the same; ε = 0
//! is the ordinary GPU query; the command line's `--backend gpu --tolerance` writes the
//! CPU's bytes.

mod common;

use meshcollide::gpu::GpuError;
use meshcollide::gpu::collide::GpuScene;
use meshcollide::proximity::{Tolerance, brute_force_within};
use meshcollide::*;

type Case = common::ProximityCase;

fn cases() -> Vec<Case> {
    common::proximity_cases(
        0x9d_70_1e_55,
        &common::CaseSizes {
            grid: (10, 12),
            float: (30, 12),
            tori_poses: 10,
            far: (24, 10),
            grid_eps_max: 2.0,
        },
    )
}

fn within(eps: f64) -> QueryOptions {
    QueryOptions {
        tolerance: Tolerance::new(eps, "eps").unwrap(),
        ..Default::default()
    }
}

const KINDS: [BvKind; 9] = [
    BvKind::Kdop6,
    BvKind::Kdop14,
    BvKind::Kdop18,
    BvKind::Kdop26,
    BvKind::Auto,
    BvKind::Obb,
    BvKind::Sphere,
    BvKind::Dual18,
    BvKind::Dual6,
];

/// GPU pairs = CPU pairs = brute force, GPU counters = CPU counters, every case, k and ε.
#[test]
fn gpu_tolerance_equals_the_cpu_and_brute_force() {
    let Some(ctx) = common::gpu() else { return };
    let (mut nonempty, mut host_decided) = (0, 0);
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
        for bv in KINDS {
            let c = Collider::builder(&case.a, &case.b).bv(bv).build().unwrap();
            for (k, &e) in case.eps.iter().enumerate() {
                let label = format!("{}, {}, ε {e}", case.name, bv.name());
                let cpu = c.collide_batch_with(&case.poses, &within(e), None);
                let (gpu, stats) = c
                    .collide_batch_gpu(&ctx, &case.poses, &within(e), None)
                    .unwrap();
                host_decided += stats.unsure;
                for (i, (g, r)) in gpu.iter().zip(&cpu).enumerate() {
                    assert_eq!(r.pairs, oracle[k][i], "{label}, pose {i}: CPU");
                    assert_eq!(g.pairs, r.pairs, "{label}, pose {i}: pairs");
                    assert_eq!(g.counters, r.counters, "{label}, pose {i}: counters");
                    nonempty += !g.pairs.is_empty() as usize;
                }
                // First-contact mode: one of the oracle's pairs exactly when there is one.
                let first = QueryOptions {
                    mode: Mode::First,
                    ..within(e)
                };
                let (gpu, _) = c
                    .collide_batch_gpu(&ctx, &case.poses, &first, None)
                    .unwrap();
                for (i, g) in gpu.iter().enumerate() {
                    assert_eq!(g.pairs.is_empty(), oracle[k][i].is_empty(), "{label}, {i}");
                    assert!(g.pairs.len() <= 1, "{label}, pose {i}");
                    assert!(g.pairs.iter().all(|q| oracle[k][i].contains(q)));
                }
            }
            // The same scene on the device answers the intersection query again after its
            // tolerance runs (the OBB and sphere trees' grown volumes written back).
            let plain = QueryOptions::default();
            let cpu = c.collide_batch_with(&case.poses, &plain, None);
            let (gpu, _) = c
                .collide_batch_gpu(&ctx, &case.poses, &plain, None)
                .unwrap();
            assert_eq!(
                gpu,
                cpu,
                "{}, {}: after the tolerance",
                case.name,
                bv.name()
            );
        }
    }
    assert!(nonempty > 100, "{nonempty}");
    // Every triangle pair of the leaf pairs came back to the host.
    assert!(host_decided > 1000, "{host_decided}");
}

/// ε = 0 is the ordinary GPU query: the same pairs, counters and work (no pair sent to
/// the host that the f32 filter decides).
#[test]
fn gpu_tolerance_zero_is_the_ordinary_query() {
    let Some(ctx) = common::gpu() else { return };
    for case in cases() {
        for bv in KINDS {
            let c = Collider::builder(&case.a, &case.b).bv(bv).build().unwrap();
            let plain = QueryOptions::default();
            let (p, ps) = c
                .collide_batch_gpu(&ctx, &case.poses, &plain, None)
                .unwrap();
            let (z, zs) = c
                .collide_batch_gpu(&ctx, &case.poses, &within(0.0), None)
                .unwrap();
            assert_eq!(p, z, "{}, {}", case.name, bv.name());
            assert_eq!(ps.unsure, zs.unsure, "{}, {}", case.name, bv.name());
        }
    }
}

/// Capacities far too small: every level overflows and resumes; the pairs and counters
/// stay the CPU's (the margins and the tolerance flag survive the resume).
#[test]
fn gpu_tolerance_survives_overflow_and_resume() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(10);
    let poses = pose::tumbling_poses(12, [0.0; 3], [2.6, 0.0, 0.0]);
    let c = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .build()
        .unwrap();
    let AnyScene::Kdop18(s) = c.scene() else {
        panic!("kdop18 asked")
    };
    for e in [0.05, 0.4] {
        let opts = within(e);
        let cpu = c.collide_batch_with(&poses, &opts, None);
        let mut g = GpuScene::new(&ctx, s).unwrap();
        g.capacities = common::TINY_CAPACITIES;
        g.tolerance = opts.tolerance;
        let (gpu, _) = g
            .collide_batch(&ctx, s, &poses, opts.mode, opts.tumble, None)
            .unwrap();
        let mut nonempty = 0;
        for (i, (x, r)) in gpu.iter().zip(&cpu).enumerate() {
            assert_eq!(x.pairs, r.pairs, "ε {e}, pose {i}");
            assert_eq!(
                x.counters.bv_tests, r.counters.bv_tests,
                "ε {e}, pose {i}: Nv"
            );
            assert_eq!(
                x.counters.tri_tests, r.counters.tri_tests,
                "ε {e}, pose {i}: Np"
            );
            assert_eq!(x.pairs, brute_force_within(&a, &b, &poses[i], e));
            nonempty += !x.pairs.is_empty() as usize;
        }
        assert!(nonempty > 0, "ε {e}");
    }
}

/// A tolerance per pose (the distance query's device half) grows B's k-DOPs in the frames,
/// which the dual hierarchy's test does not read: refused, naming it; the boxtree and the
/// R-tree have no GPU pipeline at all.
#[test]
fn gpu_tolerance_refuses_what_it_cannot_grow() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(6);
    let poses = pose::tumbling_poses(2, [0.0; 3], [1.0, 0.0, 0.0]);
    let c = Collider::builder(&a, &b)
        .bv(BvKind::Dual18)
        .build()
        .unwrap();
    let AnyScene::Dual18(s) = c.scene() else {
        panic!("dual18 asked")
    };
    let mut g = GpuScene::new(&ctx, s).unwrap();
    let e = g
        .within_each(&ctx, s, poses.iter().map(|&p| (p, 0.1)), |_, _| {
            Ok::<(), meshcollide::error::Error>(())
        })
        .unwrap_err();
    assert!(
        matches!(
            e,
            meshcollide::error::Error::Gpu(GpuError::ToleranceUnsupported { bv: "dual" })
        ),
        "{e}"
    );
    for bv in [BvKind::Boxtree, BvKind::Rtree] {
        let c = Collider::builder(&a, &b).bv(bv).build().unwrap();
        let e = c
            .collide_batch_gpu(&ctx, &poses, &within(0.1), None)
            .unwrap_err();
        assert!(e.to_string().contains(bv.name()), "{e}");
    }
}

/// `query --backend gpu --tolerance ε` writes the bytes of `--backend cpu`, and the pairs
/// are the oracle's.
#[test]
fn cli_gpu_tolerance_writes_the_cpu_bytes() {
    let Some(_ctx) = common::gpu() else { return };
    let d = common::fresh_tmp_dir("gpu_tolerance", "cli");
    let (a, b) = common::tori(8);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let mut poses = pose::tumbling_poses(8, [0.0; 3], [2.8, 0.0, 0.0]);
    poses.extend(pose::tumbling_poses(5, [0.0; 3], [1.0, 0.1, 0.0]));
    std::fs::write(d.join("poses.csv"), pose::format_poses(&poses)).unwrap();
    let poses = pose::read_poses(&d.join("poses.csv")).unwrap();
    let run = |backend: &str, bv: &str, eps: &str, out: &str| {
        let o = common::bin()
            .current_dir(&d)
            .args([
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--out",
                out,
                "--tolerance",
                eps,
                "--backend",
                backend,
                "--bv",
                bv,
                "--force",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(d.join(out)).unwrap()
    };
    for bv in ["kdop6", "kdop26", "auto", "dual18", "obb", "sphere"] {
        for eps in ["0", "0.05", "0.3"] {
            let cpu = run("cpu", bv, eps, "cpu.csv");
            let gpu = run("gpu", bv, eps, "gpu.csv");
            assert_eq!(gpu, cpu, "{bv}, ε {eps}");
            let got = meshcollide::formats::parse_pairs(&String::from_utf8(gpu).unwrap()).unwrap();
            let e: f64 = eps.parse().unwrap();
            let mut want = Vec::new();
            for (i, p) in poses.iter().enumerate() {
                for (x, y) in brute_force_within(&a, &b, p, e) {
                    want.push((i as u32, x, y));
                }
            }
            assert_eq!(got, want, "{bv}, ε {eps}");
            assert!(!want.is_empty());
        }
    }
}

/// `query --solid --backend gpu` writes the CPU's `inside.csv` and `pairs.csv` bytes, and
/// its rows are the containment oracle's: a box of half-size 1 translated along x inside
/// a box of half-size 10 is inside exactly when `|tx| + 1 < 10` (touching at 9, apart
/// beyond 11), whichever mesh is A.
#[test]
fn cli_gpu_solid_writes_the_cpu_rows() {
    let Some(_ctx) = common::gpu() else { return };
    let d = common::fresh_tmp_dir("gpu_tolerance", "solid");
    let big = meshcollide::mesh::generate::box_mesh([-10.0; 3], [10.0; 3]);
    let small = meshcollide::mesh::generate::box_mesh([-1.0; 3], [1.0; 3]);
    common::write_obj(&d.join("big.obj"), &big);
    common::write_obj(&d.join("small.obj"), &small);
    let xs = [0.0, 5.0, -8.5, 8.999, 9.0, 10.0, 12.0, 30.0];
    let poses: Vec<Pose> = xs
        .iter()
        .map(|&x| Pose::new([1.0, 0.0, 0.0, 0.0], [x, 0.25, -0.5]))
        .collect();
    std::fs::write(d.join("poses.csv"), pose::format_poses(&poses)).unwrap();
    for (a, b, inner) in [("big.obj", "small.obj", "b"), ("small.obj", "big.obj", "a")] {
        let run = |backend: &str| {
            let (out, inside) = (format!("p_{backend}.csv"), format!("i_{backend}.csv"));
            let o = common::bin()
                .current_dir(&d)
                .args([
                    "query",
                    a,
                    b,
                    "--poses",
                    "poses.csv",
                    "--out",
                    &out,
                    "--solid",
                    "--inside",
                    &inside,
                    "--backend",
                    backend,
                    "--force",
                ])
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            (
                std::fs::read(d.join(out)).unwrap(),
                std::fs::read_to_string(d.join(inside)).unwrap(),
            )
        };
        let (cpu, gpu) = (run("cpu"), run("gpu"));
        assert_eq!(gpu, cpu, "{a} {b}");
        let mut want = String::from("pose,inner\n");
        for (i, x) in xs.iter().enumerate() {
            if x.abs() + 1.0 < 10.0 {
                want.push_str(&format!("{i},{inner}\n"));
            }
        }
        assert_eq!(gpu.1, want, "{a} {b}");
    }
}
