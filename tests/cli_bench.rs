//! `meshcollide bench <experiment>` end to end with tiny sizes: each writes a Markdown table
//! with one row per configuration and an SVG plot, and the table's counts equal a direct
//! library query on the same scene (rebuilt here from `meshcollide::experiments`), and its
//! contact counts equal brute force.

mod common;

use meshcollide::experiments as ex;
use meshcollide::{BuildOptions, BvKind, Collider, Pose, QueryOptions, brute_force};
use std::path::{Path, PathBuf};

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("meshcollide-bench-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs the experiment and returns its table rows (cells by column name).
fn run(dir: &Path, file: &str, args: &[&str]) -> Vec<std::collections::HashMap<String, String>> {
    let o = common::bin()
        .arg("bench")
        .args(args)
        .arg("--out")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let svg = std::fs::read_to_string(dir.join(format!("{file}.svg"))).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.contains("<text") && svg.contains("<polyline"),
        "{file}.svg has no text or lines"
    );
    assert_eq!(svg.matches("<svg").count(), svg.matches("</svg>").count());
    let md = std::fs::read_to_string(dir.join(format!("{file}.md"))).unwrap();
    assert!(md.contains("- command: `meshcollide bench") && md.contains("- date: "));
    let mut lines = md.lines().filter(|l| l.starts_with('|'));
    let cells = |l: &str| -> Vec<String> {
        l.trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_string())
            .collect()
    };
    let header = cells(lines.next().expect("table header"));
    assert!(lines.next().unwrap().contains("---"));
    lines
        .map(|l| {
            let c = cells(l);
            assert_eq!(c.len(), header.len(), "{l}");
            header.iter().cloned().zip(c).collect()
        })
        .collect()
}

fn num(row: &std::collections::HashMap<String, String>, col: &str) -> f64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("{col}: {}", row[col]))
}

fn kind(row: &std::collections::HashMap<String, String>) -> BvKind {
    row["bv"].parse::<BvKind>().unwrap()
}

#[test]
fn spheres_rows_equal_direct_queries() {
    let d = out_dir("spheres");
    let rows = run(
        &d,
        "spheres",
        &[
            "spheres",
            "--sizes",
            "300",
            "--alphas",
            "0.1,0.01",
            "--bv",
            "kdop6,kdop18",
            "--repeat",
            "1",
        ],
    );
    assert_eq!(rows.len(), 4);
    let o = BuildOptions::default();
    for r in &rows {
        let (a, b) = ex::nested_spheres(300, num(r, "alpha"));
        assert_eq!(num(r, "triangles") as usize, a.triangle_count());
        let direct = Collider::builder(&a, &b)
            .bv(kind(r))
            .build_options(o)
            .paper()
            .build()
            .unwrap()
            .collide_with(&Pose::IDENTITY, &QueryOptions::PAPER);
        assert_eq!(num(r, "Nv") as u64, direct.counters.bv_tests);
        assert_eq!(num(r, "Np") as u64, direct.counters.tri_tests);
        assert_eq!(
            num(r, "pairs") as usize,
            brute_force(&a, &b, &Pose::IDENTITY).len()
        );
    }
}

#[test]
fn tumble_rows_equal_direct_queries_and_brute_force() {
    let d = out_dir("tumble");
    let rows = run(
        &d,
        "tumble",
        &[
            "tumble",
            "--tris",
            "400",
            "--steps",
            "12",
            "--distances",
            "0,1.2,3",
            "--bv",
            "kdop14",
            "--check",
        ],
    );
    assert_eq!(rows.len(), 6, "one row per distance and mode");
    let m = ex::default_model(400);
    let o = BuildOptions::default();
    let col = Collider::builder(&m, &m)
        .bv(BvKind::Kdop14)
        .build_options(o)
        .paper()
        .build()
        .unwrap();
    for r in &rows {
        let poses = ex::tumble_poses(12, num(r, "d"));
        let mode = r["mode"].parse::<meshcollide::Mode>().unwrap();
        let q = QueryOptions {
            mode,
            ..QueryOptions::PAPER
        };
        let nv: u64 = poses
            .iter()
            .map(|p| col.collide_with(p, &q).counters.bv_tests)
            .sum();
        assert!(
            (num(r, "avg Nv") - nv as f64 / 12.0).abs() < 0.051,
            "{r:?}: {nv}"
        );
        let truth: Vec<usize> = poses.iter().map(|p| brute_force(&m, &m, p).len()).collect();
        let contact = truth.iter().filter(|&&n| n > 0).count();
        assert_eq!(num(r, "poses in contact") as usize, contact, "{r:?}");
        if mode == meshcollide::Mode::All {
            assert_eq!(num(r, "pairs") as usize, truth.iter().sum::<usize>());
        }
    }
    // Deep overlap is in contact, far apart is not: the sweep spans both.
    assert!(rows.iter().any(|r| num(r, "poses in contact") > 0.0));
    assert!(rows.iter().any(|r| num(r, "poses in contact") == 0.0));
}

#[test]
fn rules_rows_cover_every_rule_and_point() {
    let d = out_dir("rules");
    let rows = run(
        &d,
        "rules",
        &[
            "rules",
            "--tris",
            "600",
            "--steps",
            "6",
            "--build-repeat",
            "1",
        ],
    );
    assert_eq!(rows.len(), 8, "4 rules × mean, median");
    let m = ex::default_model(600);
    let poses = ex::tumble_poses(6, 1.0);
    let truth: usize = poses.iter().map(|p| brute_force(&m, &m, p).len()).sum();
    for r in &rows {
        let o = BuildOptions {
            rule: r["rule"].parse::<meshcollide::SplitRule>().unwrap(),
            point: r["point"].parse::<meshcollide::SplitPoint>().unwrap(),
            leaf_size: 1,
        };
        let col = Collider::builder(&m, &m)
            .bv(kind(r))
            .build_options(o)
            .paper()
            .build()
            .unwrap();
        let nv: u64 = poses
            .iter()
            .map(|p| col.collide_with(p, &QueryOptions::PAPER).counters.bv_tests)
            .sum();
        assert!(
            (num(r, "avg Nv") - nv as f64 / 6.0).abs() < 0.051,
            "{r:?}: {nv}"
        );
        assert_eq!(num(r, "pairs") as usize, truth);
        assert!(num(r, "build ms") > 0.0);
    }
}

#[test]
fn flight_747_follows_the_brute_force_billiard() {
    let d = out_dir("flight");
    let rows = run(
        &d,
        "flight-747",
        &[
            "flight",
            "--tetrahedra",
            "64",
            "--steps",
            "40",
            "--tris",
            "300",
            "--cell",
            "1.2",
            "--bv",
            "kdop6,kdop18",
        ],
    );
    assert_eq!(rows.len(), 2);
    let env = ex::tetrahedra_field(1, 64, 1.2);
    let fly = ex::default_model(300);
    let bound = (64f64.cbrt().ceil() * 1.2 / 2.0 - 1.0).max(0.5);
    let (mut steps_in_contact, mut pairs) = (0, 0);
    ex::billiard(
        1,
        40,
        [0.0; 3],
        0.05,
        std::f64::consts::TAU / 2000.0,
        bound,
        |_, p| {
            let n = brute_force(&env, &fly, p).len();
            steps_in_contact += usize::from(n > 0);
            pairs += n;
            n > 0
        },
    );
    for r in &rows {
        assert_eq!(num(r, "steps") as usize, 40);
        assert_eq!(
            num(r, "steps in contact") as usize,
            steps_in_contact,
            "{r:?}"
        );
        assert_eq!(num(r, "pairs") as usize, pairs, "{r:?}");
    }
}

#[test]
fn flight_swept_is_never_in_contact() {
    let d = out_dir("swept");
    let rows = run(
        &d,
        "flight-swept",
        &[
            "flight",
            "--setup",
            "swept",
            "--tetrahedra",
            "40",
            "--steps",
            "30",
            "--bv",
            "kdop18",
        ],
    );
    assert_eq!(rows.len(), 1);
    let fly = ex::axe();
    let (env, path) = ex::swept_scene(1, &fly, 40, 30).unwrap();
    assert!(path.iter().all(|p| brute_force(&env, &fly, p).is_empty()));
    assert_eq!(num(&rows[0], "steps in contact"), 0.0);
    let col = Collider::builder(&env, &fly)
        .bv(BvKind::Kdop18)
        .build_options(BuildOptions::default())
        .paper()
        .build()
        .unwrap();
    let nv: u64 = path
        .iter()
        .map(|p| col.collide_with(p, &QueryOptions::PAPER).counters.bv_tests)
        .sum();
    assert!((num(&rows[0], "avg Nv") - nv as f64 / 30.0).abs() < 0.051);
}

#[test]
fn grid_rows_equal_direct_queries() {
    let d = out_dir("grid");
    let rows = run(
        &d,
        "grid",
        &[
            "grid",
            "--scale",
            "0.06",
            "--positions",
            "3",
            "--bv",
            "kdop18",
        ],
    );
    assert_eq!(rows.len(), 3, "one row per distance");
    let g = ex::grid_model(0.06);
    let places = ex::grid_positions(&g, &g, 3, 1, BvKind::Kdop18).unwrap();
    let col = Collider::builder(&g, &g)
        .bv(BvKind::Kdop18)
        .build_options(BuildOptions::default())
        .paper()
        .build()
        .unwrap();
    for r in &rows {
        let dist = num(r, "distance");
        let poses: Vec<Pose> = places.iter().map(|p| p.placed(dist, 2.0)).collect();
        let nv: u64 = poses
            .iter()
            .map(|p| col.collide_with(p, &QueryOptions::PAPER).counters.bv_tests)
            .sum();
        assert!((num(r, "avg Nv") - nv as f64 / 3.0).abs() < 0.051, "{r:?}");
        let contact = poses
            .iter()
            .filter(|p| !brute_force(&g, &g, p).is_empty())
            .count();
        assert_eq!(num(r, "positions in contact") as usize, contact);
        assert_eq!(contact, 0, "distance ≥ 0 is free by construction");
    }
}

#[test]
fn unknown_bv_is_an_input_error() {
    let d = out_dir("bad");
    let o = common::bin()
        .args(["bench", "spheres", "--bv", "kdop7", "--out"])
        .arg(&d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("kdop7"));
}

/// `bench hierarchies`: one row per hierarchy and distance; each row's pairs equal f64 brute
/// force summed over the same poses, and the bytes per node are each layout's own size.
#[test]
fn hierarchies_rows_equal_brute_force_and_report_node_bytes() {
    let d = out_dir("hierarchies");
    let bvs = "kdop6,kdop18,dual18,boxtree,rtree";
    let rows = run(
        &d,
        "hierarchies",
        &[
            "hierarchies",
            "--tris",
            "400",
            "--steps",
            "6",
            "--distances",
            "0.4,1.2",
            "--bv",
            bvs,
        ],
    );
    assert_eq!(rows.len(), 5 * 2);
    let m = ex::default_model(400);
    for dist in [0.4, 1.2] {
        let want: usize = ex::tumble_poses(6, dist)
            .iter()
            .map(|p| brute_force(&m, &m, p).len())
            .sum();
        assert!(want > 0, "d = {dist} must have contacts");
        let at: Vec<_> = rows.iter().filter(|r| num(r, "d") == dist).collect();
        assert_eq!(at.len(), 5);
        for r in at {
            assert_eq!(num(r, "pairs") as usize, want, "{} d = {dist}", r["bv"]);
        }
    }
    for r in &rows {
        let node_bytes = match kind(r) {
            BvKind::Kdop6 => 4 * (6 + 2),
            BvKind::Kdop18 => 4 * (18 + 2),
            BvKind::Dual18 => 4 * (18 + 2) + 16,
            BvKind::Boxtree => 9,
            BvKind::Rtree => continue, // nodes and triangle entries of two sizes
            k => panic!("unexpected {k:?}"),
        };
        assert_eq!(num(r, "B/node"), node_bytes as f64, "{}", r["bv"]);
        assert!(num(r, "avg Nv") >= 1.0 && num(r, "build ms") >= 0.0);
    }
}

/// `bench deform --model`: every update method's row counts the pairs of brute force on the
/// deformed copies, summed over the frames (the scene rebuilt here from the option's
/// documented field: the model fitted to a cube of side 2, A under `smooth_field` at phase
/// 4t, B under it a quarter turn later and 0.6 along x).
#[test]
fn deform_model_rows_equal_brute_force() {
    use meshcollide::mesh::generate;
    let d = out_dir("deform-model");
    std::fs::create_dir_all(&d).unwrap();
    let model = d.join("torus.obj");
    let t = generate::torus([0.0; 3], 1.0, 0.35, 24, 12);
    let mut obj = String::new();
    for p in &t.positions {
        obj += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for f in &t.triangles {
        obj += &format!("f {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1);
    }
    std::fs::write(&model, obj).unwrap();
    let frames = 3;
    let rows = run(
        &d,
        "deform",
        &[
            "deform",
            "--model",
            model.to_str().unwrap(),
            "--frames",
            "3",
            "--updates",
            "refit,hybrid,rebuild",
        ],
    );
    let m = ex::fit_cube(&meshcollide::mesh::load(&model).unwrap());
    let want: usize = (0..frames)
        .map(|i| {
            let phase = 4.0 * i as f64 / (frames - 1) as f64;
            let fa = m.map_positions(|p| generate::smooth_field(p, 2.0, 0.03, phase));
            let fb = m.map_positions(|p| {
                let q = generate::smooth_field(p, 2.0, 0.03, phase + std::f64::consts::FRAC_PI_2);
                [q[0] + 0.6, q[1], q[2]]
            });
            brute_force(&fa, &fb, &Pose::IDENTITY).len()
        })
        .sum();
    assert!(want > 0, "the copies must touch");
    assert_eq!(rows.len(), 3);
    for r in &rows {
        assert_eq!(
            num(r, "pairs (all frames)") as usize,
            want,
            "{}",
            r["update"]
        );
    }
    // A model that cannot be read is an error naming it, not a panic.
    let o = common::bin()
        .args(["bench", "deform", "--model"])
        .arg(d.join("missing.obj"))
        .arg("--out")
        .arg(&d)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.obj"));
}

/// `bench gpu --quick` on the generated scenes: every row's pairs are the CPU's (the bench
/// checks by hash and pose by pose, and its pair count equals a direct library query of the
/// same scene), with kdop18 the GPU's Nv, Np and Nu too; the adapter is named; without an
/// adapter it says so and exits 2.
#[test]
fn bench_gpu_rows_equal_the_cpu_and_name_the_adapter() {
    let Some(_ctx) = common::gpu() else { return };
    let dir = out_dir("gpu");
    let json = dir.join("gpu.json");
    let rows = run(
        &dir,
        "gpu",
        &[
            "gpu",
            "--quick",
            "--bv",
            "kdop18",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert_eq!(rows.len(), 2, "tori and nested spheres");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(!doc["adapter"]["name"].as_str().unwrap().is_empty());
    let jrows = doc["rows"].as_array().unwrap();
    assert_eq!(jrows.len(), 2);
    for (r, md) in jrows.iter().zip(&rows) {
        assert_eq!(r["pairs_same"], true, "{r}");
        assert_eq!(md["pairs"], "same");
        assert_eq!(
            r["cpu_work"], r["gpu_work"],
            "kdop18: the CPU's work on the GPU"
        );
        assert!(r["dispatches"].as_u64().unwrap() > 0 && r["gpu_s"].as_f64().unwrap() > 0.0);
    }
    // The tori row against the library on the same scene.
    let m = ex::default_model(4_000);
    let poses = ex::tumble_poses(300, 1.0);
    let c = Collider::builder(&m, &m)
        .bv(BvKind::Kdop18)
        .build()
        .unwrap();
    let pairs: usize = c.collide_batch(&poses).iter().map(|r| r.pairs.len()).sum();
    assert!(pairs > 0, "the tumbling tori touch");
    assert_eq!(jrows[0]["pairs"].as_u64().unwrap() as usize, pairs);
    assert_eq!(jrows[0]["poses"].as_u64().unwrap(), 300);

    let o = common::bin()
        .args(["bench", "gpu", "--quick", "--out"])
        .arg(&dir)
        .env("WGPU_BACKEND", "none")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bench gpu") && err.contains("adapter"),
        "{err}"
    );
}

/// List flags take the values space separated, as `--help` shows their defaults, or comma
/// separated, with the same rows; the closing message names both files by whole paths
/// that exist.
#[test]
fn lists_take_spaces_or_commas_and_the_message_names_both_paths() {
    let tumble = |d: &Path, lists: [&[&str]; 2]| {
        let mut args = vec!["tumble", "--tris", "200", "--steps", "2", "--distances"];
        args.extend(lists[0]);
        args.push("--bv");
        args.extend(lists[1]);
        let mut rows: Vec<(String, BvKind)> = run(d, "tumble", &args)
            .iter()
            .map(|r| (r["d"].clone(), kind(r)))
            .collect();
        rows.sort_by(|x, y| x.0.cmp(&y.0).then(x.1.name().cmp(y.1.name())));
        rows.dedup();
        rows
    };
    let spaced = tumble(
        &out_dir("spaced"),
        [&["0", "1.2", "3"], &["kdop6", "kdop14"]],
    );
    let commas = tumble(&out_dir("commas"), [&["0,1.2,3"], &["kdop6,kdop14"]]);
    assert_eq!(spaced, commas);
    let mut want = Vec::new();
    for d in ["0", "1.2", "3"] {
        for k in [BvKind::Kdop14, BvKind::Kdop6] {
            want.push((d.to_string(), k));
        }
    }
    let parsed = |r: &[(String, BvKind)]| -> Vec<(f64, BvKind)> {
        r.iter().map(|(d, k)| (d.parse().unwrap(), *k)).collect()
    };
    assert_eq!(parsed(&spaced), parsed(&want));

    let d = out_dir("message");
    let o = common::bin()
        .args(["bench", "tumble", "--tris", "200", "--steps", "2"])
        .args(["--distances", "0", "--bv", "kdop6", "--out"])
        .arg(&d)
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let (md, svg) = (d.join("tumble.md"), d.join("tumble.svg"));
    let line = format!("wrote {} and {}", md.display(), svg.display());
    assert!(err.lines().any(|l| l == line), "no `{line}` in\n{err}");
    assert!(md.is_file() && svg.is_file());
}
