//! `meshcollide self` end to end: pairs.csv equals the exact rational oracle on the f64
//! values of the files, per frame with `--frames-a`; first mode, stats.json, and bad input
//! (exit 2, the file named).

mod common;
#[allow(dead_code)] // this file uses only the brute force of the shared oracle
mod self_oracle;

use meshcollide::formats::parse_pairs;
use meshcollide::mesh::generate;
use meshcollide::{Mesh, mesh};
use self_oracle::oracle_brute;
use std::path::{Path, PathBuf};
use std::process::Output;

fn tmp_dir(name: &str) -> PathBuf {
    common::tmp_dir("self", name)
}

fn run(d: &Path, args: &[&str]) -> Output {
    common::bin().args(args).current_dir(d).output().unwrap()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The rows of pairs.csv as `(pose, tri_a, tri_b)`.
fn pairs(d: &Path, file: &str) -> Vec<(u32, u32, u32)> {
    parse_pairs(&std::fs::read_to_string(d.join(file)).unwrap()).unwrap()
}

/// A folded sheet far from the origin plus a few degenerate and unwelded triangles.
fn scene() -> Mesh {
    let mut m = generate::folded_sheet(24, 3, 0.5).map_positions(|[x, y, z]| {
        [
            x + 1000000.0000000001,
            y - 0.30000000000000004,
            z + 1e6 / 3.0,
        ]
    });
    let n = m.positions.len() as u32;
    let p0 = m.positions[0];
    m.positions.extend([p0, [p0[0] + 0.25, p0[1], p0[2]]]);
    m.triangles
        .extend([[0, n, n + 1], [0, 0, n + 1], [n, n, n]]);
    m
}

#[test]
fn self_writes_the_oracle_pairs_and_stats() {
    let d = tmp_dir("ok");
    common::write_obj(&d.join("a.obj"), &scene());
    // The oracle decides on the values the file reads back to.
    let m = mesh::load(&d.join("a.obj")).unwrap();
    let want: Vec<(u32, u32, u32)> = oracle_brute(&m)
        .into_iter()
        .map(|(a, b)| (0, a, b))
        .collect();
    assert!(!want.is_empty());
    for bv in ["kdop6", "kdop18", "kdop26"] {
        let out = run(
            &d,
            &[
                "self",
                "a.obj",
                "--out",
                "pairs.csv",
                "--stats",
                "stats.json",
                "--bv",
                bv,
            ],
        );
        ok(&out);
        assert_eq!(pairs(&d, "pairs.csv"), want, "{bv}");
        let text = std::fs::read_to_string(d.join("pairs.csv")).unwrap();
        assert!(text.starts_with("pose,tri_a,tri_b\n"));
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("stats.json")).unwrap()).unwrap();
        assert_eq!(s["backend"], "cpu");
        assert_eq!(s["bv"], bv);
        assert_eq!(s["poses"], 1);
        assert_eq!(s["pairs"], want.len());
        assert_eq!(s["bv_updates"], 0);
        assert!(s["bv_tests"].as_u64().unwrap() > 0);
        assert!(s["tri_tests"].as_u64().unwrap() >= want.len() as u64);
        for k in ["build_ms", "query_ms"] {
            assert!(s[k].as_f64().unwrap() >= 0.0, "{k}");
        }
    }
    let out = run(
        &d,
        &["self", "a.obj", "--out", "first.csv", "--mode", "first"],
    );
    ok(&out);
    let first = pairs(&d, "first.csv");
    assert_eq!(first.len(), 1);
    assert!(want.contains(&first[0]));
    // A mesh without self-intersection: the header alone.
    common::write_obj(
        &d.join("torus.obj"),
        &generate::torus([0.0; 3], 1.0, 0.3, 20, 8),
    );
    ok(&run(&d, &["self", "torus.obj", "--out", "none.csv"]));
    assert_eq!(
        std::fs::read_to_string(d.join("none.csv")).unwrap(),
        "pose,tri_a,tri_b\n"
    );
}

#[test]
fn self_frames_equal_the_oracle_per_frame() {
    let d = tmp_dir("frames");
    let end = generate::folded_sheet(18, 3, 0.5);
    let start = generate::grid(18, 3, 0.1, 0.0);
    std::fs::create_dir_all(d.join("f")).unwrap();
    let mut list = String::from("# a sheet folding\n\n");
    let mut want = Vec::new();
    for f in 0..3 {
        let t = f64::from(f) / 2.0;
        let m = Mesh {
            positions: start
                .positions
                .iter()
                .zip(&end.positions)
                .map(|(a, b)| [0, 1, 2].map(|k| a[k] + t * (b[k] - a[k])))
                .collect(),
            triangles: start.triangles.clone(),
        };
        let name = format!("f/frame-{f}.obj");
        common::write_obj(&d.join(&name), &m);
        list += &format!("{name}\n");
        let read = mesh::load(&d.join(&name)).unwrap();
        want.extend(oracle_brute(&read).into_iter().map(|(a, b)| (f, a, b)));
    }
    std::fs::write(d.join("frames.txt"), list).unwrap();
    common::write_obj(&d.join("base.obj"), &start);
    ok(&run(
        &d,
        &[
            "self",
            "base.obj",
            "--frames-a",
            "frames.txt",
            "--out",
            "pairs.csv",
            "--stats",
            "s.json",
        ],
    ));
    assert_eq!(pairs(&d, "pairs.csv"), want);
    assert!(want.iter().any(|p| p.0 == 2));
    let s: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("s.json")).unwrap()).unwrap();
    assert_eq!(s["poses"], 3);
    // A frame with another vertex count: exit 2, the frame file named.
    common::write_obj(&d.join("f/bad.obj"), &generate::grid(5, 3, 0.1, 0.0));
    std::fs::write(d.join("bad.txt"), "f/frame-0.obj\nf/bad.obj\n").unwrap();
    expect_input_error(
        &d,
        &[
            "self",
            "base.obj",
            "--frames-a",
            "bad.txt",
            "--out",
            "x.csv",
        ],
        &["bad.obj", "vertices"],
    );
    std::fs::write(d.join("missing.txt"), "f/nope.obj\n").unwrap();
    expect_input_error(
        &d,
        &[
            "self",
            "base.obj",
            "--frames-a",
            "missing.txt",
            "--out",
            "x.csv",
        ],
        &["nope.obj"],
    );
    assert!(!d.join("x.csv").exists());
    // A failure at frame 2 keeps the whole frames 0 and 1 in pairs.csv.partial.
    let out = run(
        &d,
        &[
            "self",
            "base.obj",
            "--frames-a",
            "frames.txt",
            "--out",
            "p.csv",
            "--fail-at-frame",
            "2",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("p.csv.partial"));
    assert!(!d.join("p.csv").exists());
    let kept: Vec<_> = want.iter().copied().filter(|p| p.0 < 2).collect();
    assert_eq!(pairs(&d, "p.csv.partial"), kept);
    // The next complete run removes the stale partial file.
    ok(&run(
        &d,
        &[
            "self",
            "base.obj",
            "--frames-a",
            "frames.txt",
            "--out",
            "p.csv",
        ],
    ));
    assert!(!d.join("p.csv.partial").exists());
}

/// Frames of a flat sheet folding into the self-intersecting one (`f/frame-*.obj`), the
/// list `frames.txt` and the base mesh `base.obj`.
fn write_folding_frames(d: &Path, n: u32) {
    let end = generate::folded_sheet(18, 3, 0.5);
    let start = generate::grid(18, 3, 0.1, 0.0);
    std::fs::create_dir_all(d.join("f")).unwrap();
    let mut list = String::new();
    for f in 0..n {
        let t = f64::from(f) / f64::from(n - 1);
        let m = Mesh {
            positions: start
                .positions
                .iter()
                .zip(&end.positions)
                .map(|(a, b)| [0, 1, 2].map(|k| a[k] + t * (b[k] - a[k])))
                .collect(),
            triangles: start.triangles.clone(),
        };
        let name = format!("f/frame-{f}.obj");
        common::write_obj(&d.join(&name), &m);
        list += &format!("{name}\n");
    }
    std::fs::write(d.join("frames.txt"), list).unwrap();
    common::write_obj(&d.join("base.obj"), &start);
}

/// `--backend gpu` writes the CPU's pairs.csv byte for byte, with the CPU's Nv and Np in
/// stats.json (all mode; with frames too); in first mode one of the CPU's pairs. Obeys
/// `MESHCOLLIDE_REQUIRE_GPU` (skips loudly without a GPU otherwise).
#[test]
fn self_gpu_writes_the_cpu_bytes() {
    if common::gpu().is_none() {
        return;
    }
    let d = tmp_dir("gpu");
    common::write_obj(&d.join("a.obj"), &scene());
    common::write_obj(
        &d.join("spindle.obj"),
        &generate::torus([0.0; 3], 1.0, 1.3, 16, 10),
    );
    common::write_obj(
        &d.join("soup.obj"),
        &generate::random_soup(2, 200, 1.0, 0.3),
    );
    write_folding_frames(&d, 4);
    let stats = |f: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join(f)).unwrap()).unwrap()
    };
    let cases: &[&[&str]] = &[
        &["a.obj"],
        &["a.obj", "--bv", "kdop6", "--leaf-size", "4"],
        &["spindle.obj", "--bv", "kdop26"],
        &["soup.obj", "--leaf-size", "3"],
        &["base.obj", "--frames-a", "frames.txt"],
        &["base.obj", "--frames-a", "frames.txt", "--leaf-size", "4"],
    ];
    for case in cases {
        let mut want_rows = 0;
        for backend in ["cpu", "gpu"] {
            let mut args = vec!["self"];
            args.extend_from_slice(case);
            let (out, st) = (format!("{backend}.csv"), format!("{backend}.json"));
            args.extend(["--out", &out, "--stats", &st, "--backend", backend]);
            ok(&run(&d, &args));
            want_rows = pairs(&d, "cpu.csv").len();
        }
        assert_eq!(
            std::fs::read(d.join("gpu.csv")).unwrap(),
            std::fs::read(d.join("cpu.csv")).unwrap(),
            "{case:?}: pairs.csv"
        );
        let (c, g) = (stats("cpu.json"), stats("gpu.json"));
        assert!(g["backend"].as_str().unwrap().starts_with("gpu"), "{g}");
        for k in ["bv_tests", "tri_tests", "pairs", "poses", "bv_updates"] {
            assert_eq!(g[k], c[k], "{case:?}: {k}");
        }
        // First mode: one of the pairs per frame with any.
        let mut args = vec!["self"];
        args.extend_from_slice(case);
        args.extend(["--out", "first.csv", "--mode", "first", "--backend", "gpu"]);
        ok(&run(&d, &args));
        let all = pairs(&d, "cpu.csv");
        let first = pairs(&d, "first.csv");
        assert!(first.iter().all(|p| all.contains(p)), "{case:?}: first");
        let frames = |v: &[(u32, u32, u32)]| {
            let mut f: Vec<u32> = v.iter().map(|p| p.0).collect();
            f.dedup();
            f
        };
        assert_eq!(frames(&first), frames(&all), "{case:?}: first");
        assert_eq!(first.len(), frames(&all).len(), "{case:?}: one per frame");
        assert!(want_rows > 0, "{case:?}");
    }
}

fn expect_input_error(d: &Path, args: &[&str], needles: &[&str]) {
    let out = run(d, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "args {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "args {args:?}: `{err}` lacks `{n}`");
    }
}

#[test]
fn self_bad_input_exits_2_naming_the_file() {
    let d = tmp_dir("bad");
    std::fs::write(
        d.join("missing.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 9\n",
    )
    .unwrap();
    std::fs::write(d.join("nan.obj"), "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
    common::write_obj(&d.join("ok.obj"), &generate::grid(2, 2, 1.0, 0.0));
    expect_input_error(
        &d,
        &["self", "missing.obj", "--out", "p.csv"],
        &["missing.obj", "line 5"],
    );
    expect_input_error(
        &d,
        &["self", "nan.obj", "--out", "p.csv"],
        &["nan.obj", "line 2"],
    );
    expect_input_error(&d, &["self", "nope.obj", "--out", "p.csv"], &["nope.obj"]);
    expect_input_error(
        &d,
        &["self", "ok.obj", "--out", "p.csv", "--bv", "obb"],
        &["k-DOP"],
    );
    assert!(!d.join("p.csv").exists());
}

#[test]
fn generate_writes_a_mesh_that_reads_back_exactly() {
    let d = tmp_dir("gen");
    ok(&run(
        &d,
        &["generate", "folded-sheet", "--n", "24", "--out", "s.obj"],
    ));
    let m = mesh::load(&d.join("s.obj")).unwrap();
    assert_eq!(m, generate::folded_sheet(24, 6, 0.5));
}
