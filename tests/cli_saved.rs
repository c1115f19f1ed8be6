//! The command line with saved hierarchies (`build`, a `.mch` in place of a mesh) and
//! `--pose-range`: the outputs equal those of the plain run, on both backends; a damaged or
//! mismatched `.mch` and a bad range exit with code 2 and say why.

mod common;

use meshcollide::Pose;
use meshcollide::rng::Rng;
use std::path::{Path, PathBuf};
use std::process::Output;

fn tmp_dir(name: &str) -> PathBuf {
    common::tmp_dir("saved", name)
}

fn run(d: &Path, args: &[&str]) -> Output {
    common::bin().args(args).current_dir(d).output().unwrap()
}

fn ok(d: &Path, args: &[&str]) -> Output {
    let out = run(d, args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn scene(d: &Path, n_poses: usize) {
    let (a, b) = common::tori(14);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let mut rng = Rng::new(11);
    let poses: Vec<Pose> = (0..n_poses)
        .map(|_| Pose::new(rng.unit_quaternion(), [0; 3].map(|_| rng.range(-0.5, 0.5))))
        .collect();
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
}

fn stats(d: &Path, name: &str) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(d.join(name)).unwrap()).unwrap()
}

fn backends() -> Vec<&'static str> {
    let mut v = vec!["cpu"];
    if common::gpu().is_some() {
        v.push("gpu");
    }
    v
}

/// `build` then `query` with the `.mch` files (either side, or both) writes the same
/// pairs.csv, byte for byte, and the same Nv, Np, Nu as the query on the meshes.
#[test]
fn query_on_saved_hierarchies_equals_query_on_meshes() {
    let d = tmp_dir("eq");
    scene(&d, 30);
    for (bv, leaf) in [("kdop18", "1"), ("kdop6", "3")] {
        ok(
            &d,
            &[
                "build",
                "a.obj",
                "--out",
                "a.bin",
                "--bv",
                bv,
                "--leaf-size",
                leaf,
            ],
        );
        ok(
            &d,
            &[
                "build",
                "b.obj",
                "--out",
                "b.mch",
                "--bv",
                bv,
                "--leaf-size",
                leaf,
            ],
        );
        for backend in backends() {
            let common = [
                "--poses",
                "poses.csv",
                "--bv",
                bv,
                "--leaf-size",
                leaf,
                "--backend",
                backend,
            ];
            ok(
                &d,
                &[
                    &["query", "a.obj", "b.obj"][..],
                    &common,
                    &["--out", "p0.csv", "--stats", "s0.json"],
                ]
                .concat(),
            );
            let want = std::fs::read(d.join("p0.csv")).unwrap();
            let s0 = stats(&d, "s0.json");
            assert!(s0.get("saved_a").is_none());
            for (a, b) in [("a.bin", "b.mch"), ("a.bin", "b.obj"), ("a.obj", "b.mch")] {
                ok(
                    &d,
                    &[
                        &["query", a, b][..],
                        &common,
                        &["--out", "p1.csv", "--stats", "s1.json"],
                    ]
                    .concat(),
                );
                let label = format!("{bv} {backend} {a} {b}");
                assert_eq!(std::fs::read(d.join("p1.csv")).unwrap(), want, "{label}");
                let s1 = stats(&d, "s1.json");
                for key in [
                    "bv_tests",
                    "tri_tests",
                    "bv_updates",
                    "pairs",
                    "nodes_a",
                    "nodes_b",
                    "depth_a",
                    "depth_b",
                ] {
                    assert_eq!(s1[key], s0[key], "{label}: {key}");
                }
                assert_eq!(s1.get("saved_a").is_some(), a == "a.bin", "{label}");
                assert_eq!(s1.get("saved_b").is_some(), b == "b.mch", "{label}");
            }
        }
    }
    assert!(want_contacts(&d));
    // The kdop6 files (leaf size 3) also serve --bv dual6.
    let common = [
        "--poses",
        "poses.csv",
        "--bv",
        "dual6",
        "--leaf-size",
        "3",
        "--backend",
        "cpu",
    ];
    ok(
        &d,
        &[
            &["query", "a.obj", "b.obj"][..],
            &common,
            &["--out", "p0.csv", "--stats", "s0.json"],
        ]
        .concat(),
    );
    ok(
        &d,
        &[
            &["query", "a.bin", "b.mch"][..],
            &common,
            &["--out", "p1.csv", "--stats", "s1.json"],
        ]
        .concat(),
    );
    assert_eq!(
        std::fs::read(d.join("p1.csv")).unwrap(),
        std::fs::read(d.join("p0.csv")).unwrap()
    );
    let (s0, s1) = (stats(&d, "s0.json"), stats(&d, "s1.json"));
    for key in ["bv_tests", "tri_tests", "bv_updates", "dual"] {
        assert_eq!(s1[key], s0[key], "dual6: {key}");
    }
}

fn want_contacts(d: &Path) -> bool {
    std::fs::read_to_string(d.join("p0.csv"))
        .unwrap()
        .lines()
        .count()
        > 1
}

fn expect_exit_2(d: &Path, args: &[&str], needles: &[&str]) {
    let out = run(d, args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: `{n}` not in: {err}");
    }
}

/// A truncated or corrupted `.mch`, one built with other options, and bad `--pose-range`
/// values are input errors (exit code 2) naming the file or the option.
#[test]
fn bad_saved_files_and_ranges_exit_2() {
    let d = tmp_dir("bad");
    scene(&d, 10);
    ok(&d, &["build", "a.obj", "--out", "a.mch"]);
    let bytes = std::fs::read(d.join("a.mch")).unwrap();
    std::fs::write(d.join("cut.mch"), &bytes[..bytes.len() * 2 / 3]).unwrap();
    let mut bad = bytes.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 4;
    std::fs::write(d.join("flip.mch"), &bad).unwrap();
    let q = |a: &str| {
        vec![
            "query".to_string(),
            a.into(),
            "b.obj".into(),
            "--poses".into(),
            "poses.csv".into(),
            "--out".into(),
            "p.csv".into(),
        ]
    };
    let go = |v: Vec<String>, needles: &[&str]| {
        let v: Vec<&str> = v.iter().map(String::as_str).collect();
        expect_exit_2(&d, &v, needles)
    };
    go(q("cut.mch"), &["cut.mch", "truncated"]);
    go(q("flip.mch"), &["flip.mch", "checksum"]);
    let mut v = q("a.mch");
    v.extend(["--bv".into(), "kdop26".into()]);
    go(v, &["a.mch", "kdop18", "kdop26"]);
    let mut v = q("a.mch");
    v.extend(["--leaf-size".into(), "4".into()]);
    go(v, &["a.mch", "--leaf-size"]);
    let mut v = q("a.mch");
    v.extend(["--bv".into(), "boxtree".into()]);
    go(v, &["a.mch", "boxtree"]);
    for (range, needle) in [
        ("3:11", "10 poses"),
        ("5:2", "START"),
        ("x:2", "not a pose number"),
        ("7", "START:END"),
    ] {
        let mut v = q("a.obj");
        v.extend(["--pose-range".into(), range.into()]);
        go(v, &[needle]);
    }
    assert!(!d.join("p.csv").exists(), "no output on failure");
    expect_exit_2(
        &d,
        &["build", "a.obj", "--out", "x.mch", "--bv", "rtree"],
        &["rtree"],
    );
}

/// The pairs of ranges [0, k) and [k, n) concatenate to the whole run's (pose numbers
/// stay the file's), on both backends; stats.json says the range.
#[test]
fn pose_ranges_partition_the_run() {
    let d = tmp_dir("range");
    let n = 40;
    scene(&d, n);
    for backend in backends() {
        let q = |out: &str, range: Option<&str>| {
            let mut v = vec![
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                "poses.csv",
                "--backend",
                backend,
                "--out",
                out,
                "--stats",
                "s.json",
                "--chunk-poses",
                "7",
            ];
            if let Some(r) = range {
                v.extend(["--pose-range", r]);
            }
            ok(&d, &v);
            std::fs::read_to_string(d.join(out)).unwrap()
        };
        let whole = q("whole.csv", None);
        assert!(whole.lines().count() > 1, "the scene has contacts");
        for k in [0, 1, 13, 39, 40] {
            let (r1, r2) = (format!("0:{k}"), format!("{k}:{n}"));
            let first = q("first.csv", Some(&r1));
            let s = stats(&d, "s.json");
            assert_eq!(s["pose_range"], serde_json::json!([0, k]), "{backend}");
            assert_eq!(s["poses"], k, "{backend}");
            let second = q("second.csv", Some(&r2));
            let joined: Vec<&str> = first.lines().chain(second.lines().skip(1)).collect();
            assert_eq!(
                joined,
                whole.lines().collect::<Vec<_>>(),
                "{backend} k = {k}"
            );
        }
    }
}

/// Both checksums of a `.mch` recomputed, as whoever edits one does.
fn fix_crcs(b: &mut [u8]) {
    let count = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
    let mesh_end = 72 + 24 * count(32) + 12 * count(40);
    let crc = |parts: &[&[u8]]| {
        let mut c = flate2::Crc::new();
        for p in parts {
            c.update(p);
        }
        c.sum()
    };
    let mesh = crc(&[&b[72..mesh_end]]);
    b[64..68].copy_from_slice(&mesh.to_le_bytes());
    let all = crc(&[&b[..68], &b[72..]]);
    b[68..72].copy_from_slice(&all.to_le_bytes());
}

/// A `.mch` whose checksums were recomputed after an edit (issue 36) is an input error
/// (exit 2) naming the file, the invariant and the node, on every command that reads one;
/// the file as built still runs.
#[test]
fn crafted_saved_files_exit_2_naming_the_invariant() {
    let d = tmp_dir("crafted");
    scene(&d, 4);
    ok(&d, &["build", "b.obj", "--out", "b.mch"]);
    let good = std::fs::read(d.join("b.mch")).unwrap();
    let count = |at: usize| u64::from_le_bytes(good[at..at + 8].try_into().unwrap()) as usize;
    let (k, n_pos, n_tri, n_nodes) = (
        u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize,
        count(32),
        count(40),
        count(48),
    );
    let nodes_at = 72 + 24 * n_pos + 16 * n_tri;
    let offset_at = |i: usize| nodes_at + 4 * (k + 2) * n_nodes + 4 * i;
    // The tester's edit: node 46's first bounding point 3 earlier.
    let mut shifted = good.clone();
    let at = offset_at(46);
    let o = u32::from_le_bytes(shifted[at..at + 4].try_into().unwrap());
    shifted[at..at + 4].copy_from_slice(&(o - 3).to_le_bytes());
    fix_crcs(&mut shifted);
    std::fs::write(d.join("shifted.mch"), &shifted).unwrap();
    // The root's first slab raised by one ulp: it no longer contains its children.
    let mut short = good.clone();
    let min = f32::from_le_bytes(short[nodes_at..nodes_at + 4].try_into().unwrap());
    short[nodes_at..nodes_at + 4].copy_from_slice(&min.next_up().to_le_bytes());
    fix_crcs(&mut short);
    std::fs::write(d.join("short.mch"), &short).unwrap();
    let query = |b: &'static str| {
        vec![
            "query",
            "a.obj",
            b,
            "--poses",
            "poses.csv",
            "--out",
            "p.csv",
            "--backend",
            "cpu",
        ]
    };
    ok(&d, &query("b.mch"));
    std::fs::remove_file(d.join("p.csv")).unwrap();
    expect_exit_2(
        &d,
        &query("shifted.mch"),
        &["shifted.mch", "bounding points bound the node", "node 45:"],
    );
    expect_exit_2(
        &d,
        &query("short.mch"),
        &["short.mch", "volume contains children", "node 0:"],
    );
    assert!(!d.join("p.csv").exists(), "no output on failure");
}
