//! Budgeted queries on the GPU ([`meshcollide::Collider::collide_budgeted_gpu`]) against the
//! CPU's breadth-first order (whole levels, no hot start), on lavapipe: at every budget from
//! one node test to enough, on every hierarchy the GPU runs, the same pairs and the same
//! `status.csv` row (answer, complete, `depth_bound` to the bit, node tests) pose by pose;
//! in first-contact mode the same answers and bounds and a real contact (the device counts
//! whole levels). Tiny capacities (every level overflows and resumes) give the same
//! frontiers. The orders the device cannot run are refused by name.

mod common;

use meshcollide::budget::{Budget, Order};
use meshcollide::gpu::collide::GpuScene;
use meshcollide::*;

const BVS: [BvKind; 8] = [
    BvKind::Kdop6,
    BvKind::Kdop18,
    BvKind::Kdop26,
    BvKind::Dual18,
    BvKind::Dual6,
    BvKind::Obb,
    BvKind::Sphere,
    BvKind::Auto,
];

fn cases() -> Vec<common::ProximityCase> {
    let mut v = common::proximity_cases(
        0x06b0_d6e7,
        &common::CaseSizes {
            grid: (12, 6),
            float: (30, 6),
            tori_poses: 6,
            far: (24, 5),
            grid_eps_max: 0.75,
        },
    );
    // The far soups: the float soups' bounds 10⁷ out (the CPU's tests cover them).
    v.retain(|c| c.name != "far soups");
    v
}

/// Budgets 1, 2, 3, 5, 8, … up to past what an unlimited search spends.
fn budgets(full: u64) -> Vec<u64> {
    let mut v = vec![1u64, 2, 3];
    while *v.last().unwrap() <= full {
        let n = *v.last().unwrap();
        v.push(n + 2 + n / 2);
    }
    v
}

#[test]
fn the_gpu_answers_every_budget_as_the_cpus_breadth_first_order() {
    let Some(ctx) = common::gpu() else { return };
    let (mut stopped, mut contact_left, mut first_checked) = (0, 0, 0);
    for case in cases() {
        for bv in BVS {
            let c = Collider::builder(&case.a, &case.b).bv(bv).build().unwrap();
            let every = c
                .collide_budgeted(&case.poses, &QueryOptions::default(), Budget::UNLIMITED)
                .unwrap();
            for mode in [Mode::All, Mode::First] {
                let opts = QueryOptions {
                    mode,
                    ..Default::default()
                };
                let unlimited = c
                    .collide_budgeted(&case.poses, &opts, Budget::UNLIMITED)
                    .unwrap();
                let full = unlimited.iter().map(|(_, s)| s.bv_tests).max().unwrap_or(1);
                for limit in budgets(full) {
                    let mut budget = Budget::new(limit, "budget")
                        .unwrap()
                        .with_order(Order::Breadth);
                    budget.hot_start = false;
                    budget.front = false;
                    let cpu = c.collide_budgeted(&case.poses, &opts, budget).unwrap();
                    let (gpu, _) = c
                        .collide_budgeted_gpu(&ctx, &case.poses, &opts, budget)
                        .unwrap();
                    assert_eq!(gpu.len(), cpu.len());
                    for (i, ((g, gs), (r, rs))) in gpu.iter().zip(&cpu).enumerate() {
                        let what = format!(
                            "{} {} {} N={limit} pose {i}",
                            case.name,
                            bv.name(),
                            mode.name()
                        );
                        assert_eq!(gs.answer, rs.answer, "{what}: answer");
                        assert_eq!(gs.complete, rs.complete, "{what}: complete");
                        assert_eq!(
                            gs.depth_bound.to_bits(),
                            rs.depth_bound.to_bits(),
                            "{what}: bound {} against {}",
                            gs.depth_bound,
                            rs.depth_bound
                        );
                        if mode == Mode::All {
                            assert_eq!(g.pairs, r.pairs, "{what}: pairs");
                            assert_eq!(gs.bv_tests, rs.bv_tests, "{what}: node tests");
                            assert_eq!(g.counters.bv_tests, r.counters.bv_tests, "{what}: Nv");
                        } else {
                            // One real contact where the CPU found one (any of them).
                            assert_eq!(g.pairs.len(), r.pairs.len(), "{what}: pairs");
                            let all = &every[i].0.pairs;
                            assert!(g.pairs.iter().all(|p| all.contains(p)), "{what}");
                            first_checked += !g.pairs.is_empty() as usize;
                            if r.pairs.is_empty() {
                                assert_eq!(gs.bv_tests, rs.bv_tests, "{what}: node tests");
                            }
                        }
                        stopped += !gs.complete as usize;
                        contact_left += (!gs.complete && !g.pairs.is_empty()) as usize;
                    }
                }
            }
        }
    }
    // The sweep reached what it is for: poses stopped with and without contacts found.
    assert!(stopped > 100, "{stopped} stopped poses");
    assert!(contact_left > 0, "no incomplete contact");
    assert!(first_checked > 0, "no first contact");
}

/// Capacities far too small: every level overflows and resumes (its pushes counted again
/// from zero); the frontiers and results equal a run with room.
#[test]
fn a_budget_survives_overflow_and_resume() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(10);
    let poses = pose::tumbling_poses(12, [0.0; 3], [1.2, 0.0, 0.0]);
    let c = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .build()
        .unwrap();
    let AnyScene::Kdop18(s) = c.scene() else {
        panic!("kdop18 asked")
    };
    let run = |tiny: bool, nodes: u64| {
        let mut g = GpuScene::new(&ctx, s).unwrap();
        if tiny {
            g.capacities = common::TINY_CAPACITIES;
        }
        let mut out = Vec::new();
        let stats = g
            .collide_budgeted_each(
                &ctx,
                s,
                poses.iter().copied(),
                Mode::All,
                TumbleMethod::Approximate,
                nodes,
                |_, r, frontier| {
                    out.push((r.pairs, r.counters.bv_tests, frontier));
                    Ok::<_, meshcollide::gpu::GpuError>(())
                },
            )
            .unwrap();
        (out, stats)
    };
    let (mut stopped, mut resumed) = (0, 0);
    for nodes in [5, 40, 200] {
        let ((ample, _), (tiny, stats)) = (run(false, nodes), run(true, nodes));
        resumed += stats.resumes + stats.reruns;
        for (i, (x, y)) in ample.iter().zip(&tiny).enumerate() {
            let mut fx = x.2.clone();
            let mut fy = y.2.clone();
            fx.sort_unstable();
            fy.sort_unstable();
            assert_eq!((&x.0, x.1, fx), (&y.0, y.1, fy), "N={nodes} pose {i}");
            stopped += !x.2.is_empty() as usize;
        }
    }
    assert!(
        stopped > 0 && resumed > 0,
        "{stopped} stopped, {resumed} resumed"
    );
}

/// What the device cannot run is refused by name: the best- and depth-first orders, a
/// wall-clock budget, the boxtree and the R-tree.
#[test]
fn the_gpu_refuses_what_it_cannot_run_by_name() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(6);
    let poses = pose::tumbling_poses(2, [0.0; 3], [1.0, 0.0, 0.0]);
    let c = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .build()
        .unwrap();
    let opts = QueryOptions::default();
    for order in [Order::Best, Order::Depth] {
        let budget = Budget::new(10, "budget").unwrap().with_order(order);
        let e = c
            .collide_budgeted_gpu(&ctx, &poses, &opts, budget)
            .unwrap_err();
        assert!(e.to_string().contains(order.name()), "{e}");
        assert!(e.to_string().contains("breadth"), "{e}");
    }
    let mut budget = Budget::new(10, "budget")
        .unwrap()
        .with_order(Order::Breadth);
    budget.time = Some(std::time::Duration::from_millis(1));
    let e = c
        .collide_budgeted_gpu(&ctx, &poses, &opts, budget)
        .unwrap_err();
    assert!(e.to_string().contains("wall-clock"), "{e}");
    let budget = Budget::new(10, "budget")
        .unwrap()
        .with_order(Order::Breadth);
    for bv in [BvKind::Boxtree, BvKind::Rtree] {
        let c = Collider::builder(&a, &b).bv(bv).build().unwrap();
        let e = c
            .collide_budgeted_gpu(&ctx, &poses, &opts, budget)
            .unwrap_err();
        assert!(e.to_string().contains(bv.name()), "{e}");
    }
}

/// `query --backend gpu --budget N --status s.csv` writes the bytes of the library's CPU
/// breadth-first answers (no hot start: the GPU has none), in `pairs.csv` and `status.csv`,
/// and `stats.json` names the order; `--budget-order` defaults to breadth there.
#[test]
fn cli_gpu_budget_writes_the_cpus_breadth_first_bytes() {
    let Some(_ctx) = common::gpu() else { return };
    let d = common::fresh_tmp_dir("gpu_budget", "cli");
    let (a, b) = common::tori(8);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let mut poses = pose::tumbling_poses(8, [0.0; 3], [2.8, 0.0, 0.0]);
    poses.extend(pose::tumbling_poses(6, [0.0; 3], [1.0, 0.1, 0.0]));
    std::fs::write(d.join("poses.csv"), pose::format_poses(&poses)).unwrap();
    let poses = pose::read_poses(&d.join("poses.csv")).unwrap();
    let (a, b) = (
        meshcollide::mesh::load(&d.join("a.obj")).unwrap(),
        meshcollide::mesh::load(&d.join("b.obj")).unwrap(),
    );
    let mut maybe = 0;
    for (kind, n) in [
        (BvKind::Kdop18, 9u64),
        (BvKind::Kdop18, 60),
        (BvKind::Obb, 30),
        (BvKind::Dual18, 3),
    ] {
        let bv = kind.name();
        let o = common::bin()
            .current_dir(&d)
            .args([
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--out",
                "p.csv",
            ])
            .args([
                "--status",
                "s.csv",
                "--stats",
                "stats.json",
                "--backend",
                "gpu",
            ])
            .args(["--bv", bv, "--budget", &n.to_string(), "--force"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let c = Collider::builder(&a, &b).bv(kind).build().unwrap();
        let mut budget = Budget::new(n, "budget").unwrap().with_order(Order::Breadth);
        budget.hot_start = false;
        budget.front = false;
        let want = c
            .collide_budgeted(&poses, &QueryOptions::default(), budget)
            .unwrap();
        let mut pairs = Vec::new();
        let results: Vec<_> = want.iter().map(|(r, _)| r.clone()).collect();
        meshcollide::formats::write_pairs(&mut pairs, &results).unwrap();
        let mut status = format!("{}\n", meshcollide::formats::STATUS_HEADER).into_bytes();
        for (i, (_, s)) in want.iter().enumerate() {
            meshcollide::formats::write_status_row(&mut status, i, s);
            maybe += (s.answer == meshcollide::budget::Answer::Maybe) as usize;
        }
        assert_eq!(
            std::fs::read(d.join("p.csv")).unwrap(),
            pairs,
            "{bv} {n}: pairs"
        );
        assert_eq!(
            String::from_utf8(std::fs::read(d.join("s.csv")).unwrap()).unwrap(),
            String::from_utf8(status).unwrap(),
            "{bv} {n}: status"
        );
        let stats = std::fs::read_to_string(d.join("stats.json")).unwrap();
        assert!(stats.contains("\"order\": \"breadth\""), "{stats}");
    }
    assert!(maybe > 0);
}
