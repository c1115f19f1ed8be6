//! `meshcollide query --frames-a/--frames-b` (`docs/FORMATS.md`, "Deforming meshes:
//! frame lists"): frames written as OBJ files in a temporary folder; `pairs.csv` equals the
//! f64 brute force on each frame (and so the library's), with and without poses, for every
//! update method; every bad frame list exits 2 naming the file and what differs.

use meshcollide::formats::parse_pairs;
use meshcollide::mesh::generate;
use meshcollide::{Mesh, Pose, brute_force};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

fn tmp_dir(name: &str) -> PathBuf {
    let d = common::fresh_tmp_dir("frames", name);
    std::fs::create_dir_all(d.join("frames")).unwrap();
    d
}

const FRAMES: usize = 4;

fn scene(t: f64) -> (Mesh, Mesh) {
    (
        generate::breathing_torus([0.0; 3], 1.0, 0.45, 20, 8, t),
        generate::folding_sheet([0.6, 0.0, 0.02], 8, 1.4, t),
    )
}

/// Writes the base meshes, the frames and both lists; returns (A, B, list A, list B).
fn write_scene(d: &Path) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let (a0, b0) = scene(0.0);
    let (pa, pb) = (d.join("a.obj"), d.join("b.obj"));
    common::write_obj(&pa, &a0);
    common::write_obj(&pb, &b0);
    let mut la = String::from("# frames of A\n\n");
    let mut lb = String::new();
    for i in 0..FRAMES {
        let (a, b) = scene(i as f64 / (FRAMES - 1) as f64);
        common::write_obj(&d.join(format!("frames/a-{i}.obj")), &a);
        common::write_obj(&d.join(format!("frames/b-{i}.obj")), &b);
        la += &format!("frames/a-{i}.obj\n");
        lb += &format!("frames/b-{i}.obj\n");
    }
    let (lfa, lfb) = (d.join("a.frames"), d.join("b.frames"));
    std::fs::write(&lfa, la).unwrap();
    std::fs::write(&lfb, lb).unwrap();
    (pa, pb, lfa, lfb)
}

fn run(args: &[&Path], extra: &[&str]) -> Output {
    let mut c = common::bin();
    c.arg("query");
    for a in args {
        c.arg(a);
    }
    c.args(extra).output().unwrap()
}

fn q(files: &(PathBuf, PathBuf, PathBuf, PathBuf), out: &Path, extra: &[&str]) -> Output {
    q_on(files, out, "cpu", extra)
}

/// [`q`] on `backend`.
fn q_on(
    (pa, pb, lfa, lfb): &(PathBuf, PathBuf, PathBuf, PathBuf),
    out: &Path,
    backend: &str,
    extra: &[&str],
) -> Output {
    let mut c = common::bin();
    c.arg("query")
        .arg(pa)
        .arg(pb)
        .arg("--frames-a")
        .arg(lfa)
        .arg("--frames-b")
        .arg(lfb)
        .arg("--out")
        .arg(out)
        .args(["--backend", backend])
        .args(extra);
    c.output().unwrap()
}

fn expected(poses: Option<&[Pose]>) -> Vec<(u32, u32, u32)> {
    let mut v = Vec::new();
    for i in 0..FRAMES {
        let (a, b) = scene(i as f64 / (FRAMES - 1) as f64);
        let p = poses.map_or(Pose::IDENTITY, |p| p[i]);
        v.extend(
            brute_force(&a, &b, &p)
                .into_iter()
                .map(|(x, y)| (i as u32, x, y)),
        );
    }
    v
}

#[test]
fn pairs_equal_brute_force_per_frame_for_every_update() {
    let d = tmp_dir("pairs");
    let files = write_scene(&d);
    let want = expected(None);
    assert!(want.iter().any(|p| p.0 == 0) && want.iter().any(|p| p.0 == 3));
    for update in ["refit", "hybrid", "rebuild"] {
        let out = d.join(format!("pairs-{update}.csv"));
        let stats = d.join(format!("stats-{update}.json"));
        let o = q(
            &files,
            &out,
            &["--update", update, "--stats", stats.to_str().unwrap()],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got = parse_pairs(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(got, want, "--update {update}");
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
        assert_eq!(s["frames"], FRAMES);
        assert_eq!(s["poses"], FRAMES);
        assert_eq!(s["update"], update);
        assert!(s["update_ms"].as_f64().unwrap() >= 0.0);
        assert!(s["refit_nodes"].is_u64() && s["rebuilds"].is_u64());
        assert!(s["bv_tests"].as_u64().unwrap() > 0);
        assert_eq!(s["coherence"], true, "frames on the CPU: on by default");
        if update == "rebuild" {
            assert_eq!(s["rebuilds"], 2 * FRAMES as u64);
        }
        // Without coherence across frames: the same pairs, and stats.json says so.
        let plain = d.join(format!("pairs-{update}-plain.csv"));
        let cs = d.join(format!("stats-{update}-plain.json"));
        let o = q(
            &files,
            &plain,
            &[
                "--update",
                update,
                "--coherence",
                "off",
                "--stats",
                cs.to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::read(&plain).unwrap(), std::fs::read(&out).unwrap());
        let c: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&cs).unwrap()).unwrap();
        assert_eq!(c["coherence"], false);
    }
    // With poses: one row per frame.
    let poses: Vec<Pose> = (0..FRAMES)
        .map(|i| Pose::new([1.0, 0.02 * i as f64, 0.0, 0.01], [0.01, -0.02, 0.0]))
        .collect();
    let pp = d.join("poses.csv");
    std::fs::write(&pp, meshcollide::pose::format_poses(&poses)).unwrap();
    let out = d.join("pairs-posed.csv");
    let o = q(&files, &out, &["--poses", pp.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = parse_pairs(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(got, expected(Some(&poses)));
    // Only A deforming (B at its base mesh): the rigid B's pairs.
    let out = d.join("pairs-a.csv");
    let (pa, pb, lfa, _) = &files;
    let o = run(
        &[pa, pb],
        &[
            "--frames-a",
            lfa.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let got = parse_pairs(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let (_, b0) = scene(0.0);
    let mut want = Vec::new();
    for i in 0..FRAMES {
        let (a, _) = scene(i as f64 / (FRAMES - 1) as f64);
        want.extend(
            brute_force(&a, &b0, &Pose::IDENTITY)
                .into_iter()
                .map(|(x, y)| (i as u32, x, y)),
        );
    }
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&d);
}

/// `--backend gpu` writes the very bytes of `--backend cpu` into pairs.csv, and stats.json
/// has the same Nv, Np, rebuilds (and Nu, but with the hybrid update of a deforming B: the
/// device tumbles every node of B) and the GPU's counters: for every update, with poses,
/// A only and B only, and with the rebuild trigger on a hair; with `--coherence` as
/// without (the GPU runs the CPU's rule across frames, and stats.json says so).
#[test]
fn gpu_backend_writes_the_cpu_bytes() {
    if common::gpu().is_none() {
        return;
    }
    let d = tmp_dir("gpu");
    let (pa, pb, lfa, lfb) = write_scene(&d);
    let poses: Vec<Pose> = (0..FRAMES)
        .map(|i| Pose::new([1.0, 0.02 * i as f64, 0.0, 0.01], [0.01, -0.02, 0.0]))
        .collect();
    let pp = d.join("poses.csv");
    std::fs::write(&pp, meshcollide::pose::format_poses(&poses)).unwrap();
    let (lfa, lfb, pp) = (
        lfa.to_str().unwrap(),
        lfb.to_str().unwrap(),
        pp.to_str().unwrap(),
    );
    let cases: Vec<(&str, Vec<&str>)> = vec![
        ("refit", vec!["--frames-a", lfa, "--frames-b", lfb]),
        ("hybrid", vec!["--frames-a", lfa, "--frames-b", lfb]),
        ("rebuild", vec!["--frames-a", lfa, "--frames-b", lfb]),
        (
            "refit",
            vec!["--frames-a", lfa, "--frames-b", lfb, "--poses", pp],
        ),
        ("hybrid", vec!["--frames-a", lfa, "--poses", pp]),
        ("refit", vec!["--frames-b", lfb]),
        (
            "hybrid",
            vec!["--frames-a", lfa, "--frames-b", lfb, "--rebuild-ratio", "1"],
        ),
    ];
    let runs = cases.iter().flat_map(|c| [(c, false), (c, true)]);
    for (k, ((update, frames), coherent)) in runs.enumerate() {
        let mut res = Vec::new();
        for backend in ["cpu", "gpu"] {
            let out = d.join(format!("pairs-{k}-{backend}.csv"));
            let stats = d.join(format!("stats-{k}-{backend}.json"));
            let mut args: Vec<&str> = frames.clone();
            args.extend(["--coherence", if coherent { "on" } else { "off" }]);
            args.extend([
                "--update",
                update,
                "--backend",
                backend,
                "--stats",
                stats.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ]);
            let o = run(&[&pa, &pb], &args);
            let what = format!(
                "case {k} {frames:?} --update {update} --backend {backend} (coherence {coherent})"
            );
            assert!(
                o.status.success(),
                "{what}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            let s: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
            res.push((std::fs::read(&out).unwrap(), s, what));
        }
        let ((cpu, sc, _), (gpu, sg, what)) = (&res[0], &res[1]);
        assert!(!cpu.is_empty());
        assert!(cpu == gpu, "{what}: pairs.csv differs from --backend cpu");
        for key in [
            "bv_tests",
            "tri_tests",
            "rebuilds",
            "poses_in_contact",
            "pairs",
        ] {
            assert_eq!(sg[key], sc[key], "{what}: {key}");
        }
        let b_deforms = frames.contains(&"--frames-b");
        if !(b_deforms && *update == "hybrid") {
            assert_eq!(sg["bv_updates"], sc["bv_updates"], "{what}: bv_updates");
        }
        assert!(sg["backend"].as_str().unwrap().starts_with("gpu"), "{what}");
        assert_eq!(sg["coherence"], coherent, "{what}");
        assert_eq!(sc["coherence"], coherent, "{what}");
        let g = &sg["gpu"];
        assert!(g["dispatches"].as_u64().unwrap() > 0, "{what}");
        assert!(g["bytes_uploaded"].as_u64().unwrap() > 0, "{what}");
        // Every readback is one of the frames' batches: none between refit and expansion.
        let batches = g["batches"].as_array().unwrap();
        let sum = |k: &str| batches.iter().map(|b| b[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(g["readbacks"].as_u64().unwrap(), sum("readbacks"), "{what}");
        assert!(sc["gpu"].is_null(), "{what}");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Exit code 2, the message naming every `names`, and no output.
fn refused(o: &Output, out: &Path, names: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for n in names {
        assert!(err.contains(n), "`{n}` not in: {err}");
    }
    assert!(!out.exists());
}

#[test]
fn bad_frame_lists_exit_2_naming_the_file() {
    let d = tmp_dir("bad");
    let files = write_scene(&d);
    let (pa, pb, _, lfb) = files.clone();
    let out = d.join("pairs.csv");
    // A missing frame file: the list, its line, the path.
    let bad = d.join("missing.frames");
    std::fs::write(&bad, "frames/a-0.obj\n# gone:\nframes/nope.obj\n").unwrap();
    let o = q(
        &(pa.clone(), pb.clone(), bad.clone(), lfb.clone()),
        &out,
        &[],
    );
    refused(&o, &out, &["missing.frames", "line 3", "nope.obj"]);
    // Another vertex count: the frame file and both numbers.
    let (a0, _) = scene(0.0);
    let mut more = a0.clone();
    more.positions.push([9.0, 9.0, 9.0]);
    common::write_obj(&d.join("frames/more.obj"), &more);
    std::fs::write(
        &bad,
        "frames/a-0.obj\nframes/more.obj\nframes/a-2.obj\nframes/a-3.obj\n",
    )
    .unwrap();
    let o = q(
        &(pa.clone(), pb.clone(), bad.clone(), lfb.clone()),
        &out,
        &[],
    );
    let (n, m) = (a0.positions.len(), a0.positions.len() + 1);
    refused(&o, &out, &["more.obj", &n.to_string(), &m.to_string()]);
    // Another face: the frame file, the face index and both faces.
    let mut other = a0.clone();
    other.triangles[7].swap(0, 1);
    common::write_obj(&d.join("frames/other.obj"), &other);
    std::fs::write(
        &bad,
        "frames/other.obj\nframes/a-1.obj\nframes/a-2.obj\nframes/a-3.obj\n",
    )
    .unwrap();
    let o = q(
        &(pa.clone(), pb.clone(), bad.clone(), lfb.clone()),
        &out,
        &[],
    );
    let t = a0.triangles[7];
    refused(
        &o,
        &out,
        &[
            "other.obj",
            "face 7",
            &format!("({}, {}, {})", t[0], t[1], t[2]),
            &format!("({}, {}, {})", t[1], t[0], t[2]),
        ],
    );
    // A and B with different frame counts: both lists and both numbers.
    std::fs::write(&bad, "frames/a-0.obj\nframes/a-1.obj\n").unwrap();
    let o = q(
        &(pa.clone(), pb.clone(), bad.clone(), lfb.clone()),
        &out,
        &[],
    );
    refused(
        &o,
        &out,
        &["missing.frames", "b.frames", "2 frames", "lists 4"],
    );
    // Frames and poses that differ in number.
    let pp = d.join("poses.csv");
    std::fs::write(&pp, meshcollide::pose::format_poses(&[Pose::IDENTITY; 3])).unwrap();
    let o = q(&files, &out, &["--poses", pp.to_str().unwrap()]);
    refused(&o, &out, &["poses.csv", "3 poses", "4 frames", "a.frames"]);
    // The hierarchies that do not follow frames are refused by name.
    let o = q(&files, &out, &["--bv", "obb"]);
    refused(&o, &out, &["obb", "kdop18"]);
    // Without poses and frames, --poses is required.
    let o = run(&[&pa, &pb], &["--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_failure_keeps_whole_frames_in_partial() {
    let d = tmp_dir("partial");
    let files = write_scene(&d);
    let out = d.join("pairs.csv");
    let o = q(&files, &out, &["--fail-at-pose", "2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("poses 0..2"), "{err}");
    assert!(!out.exists());
    let kept = parse_pairs(&std::fs::read_to_string(d.join("pairs.csv.partial")).unwrap()).unwrap();
    let want: Vec<_> = expected(None).into_iter().filter(|p| p.0 < 2).collect();
    assert_eq!(kept, want);
    let _ = std::fs::remove_dir_all(&d);
}

/// Ctrl-C while frames stream: exit 130, no `pairs.csv`, the whole frames done kept in
/// `pairs.csv.partial`, equal to brute force on those frames.
#[cfg(unix)]
#[test]
fn interrupted_frames_keep_whole_frames() {
    let d = tmp_dir("interrupt");
    let shape = |t: f64| {
        (
            generate::breathing_torus([0.0; 3], 1.0, 0.4, 40, 16, t),
            generate::breathing_torus([1.0, 0.0, 0.0], 1.0, 0.4, 40, 16, t + 0.25)
                .map_positions(|p| [p[0], p[2], p[1]]),
        )
    };
    let ts = [0.0, 0.3];
    for (k, &t) in ts.iter().enumerate() {
        let (a, b) = shape(t);
        common::write_obj(&d.join(format!("frames/a-{k}.obj")), &a);
        common::write_obj(&d.join(format!("frames/b-{k}.obj")), &b);
    }
    common::write_obj(&d.join("a.obj"), &shape(0.0).0);
    common::write_obj(&d.join("b.obj"), &shape(0.0).1);
    // A long list of the two frames, alternating: the run lasts long enough to be stopped.
    let n = 40_000;
    let list = |m: &str| {
        (0..n)
            .map(|i| format!("frames/{m}-{}.obj\n", i % 2))
            .collect::<String>()
    };
    std::fs::write(d.join("a.frames"), list("a")).unwrap();
    std::fs::write(d.join("b.frames"), list("b")).unwrap();
    let mut child = common::bin()
        .args([
            "query",
            "a.obj",
            "b.obj",
            "--frames-a",
            "a.frames",
            "--frames-b",
            "b.frames",
        ])
        .args(["--out", "pairs.csv", "--backend", "cpu", "--threads", "1"])
        .current_dir(&d)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let tmp = d.join(format!(".pairs.csv.{}.tmp", child.id()));
    while std::fs::metadata(&tmp).map_or(true, |m| m.len() == 0) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the query ended before Ctrl-C"
        );
        assert!(
            started.elapsed().as_secs() < 120,
            "no pairs after 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("interrupted"), "{err}");
    assert!(!d.join("pairs.csv").exists());
    assert!(!tmp.exists());
    let kept: usize = err
        .split("the pairs of poses 0..")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no frame count in `{err}`"));
    assert!(kept > 0 && kept < n, "{err}");
    let got = parse_pairs(&std::fs::read_to_string(d.join("pairs.csv.partial")).unwrap()).unwrap();
    let per: Vec<Vec<(u32, u32)>> = ts
        .iter()
        .map(|&t| {
            let (a, b) = shape(t);
            brute_force(&a, &b, &Pose::IDENTITY)
        })
        .collect();
    let want: Vec<(u32, u32, u32)> = (0..kept)
        .flat_map(|i| per[i % 2].iter().map(move |&(x, y)| (i as u32, x, y)))
        .collect();
    assert_eq!(got, want);
    let _ = std::fs::remove_dir_all(&d);
}

/// `meshcollide info` names the backends that run frames, and each of them does: a frames
/// query on it succeeds and its `stats.json` names that backend (the GPU's only where an
/// adapter exists; without one, the line is still checked).
#[test]
fn info_names_the_backends_that_run_frames() {
    let o = common::bin().arg("info").output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let line = text
        .lines()
        .find(|l| l.starts_with("deforming meshes"))
        .unwrap_or_else(|| panic!("no line on deforming meshes in\n{text}"));
    let (_, claim) = line.split_once("):").expect("`(flags): backends`");
    let gpu = common::gpu().is_some();
    let d = tmp_dir("info");
    let (pa, pb, lfa, lfb) = write_scene(&d);
    for backend in ["cpu", "gpu"] {
        assert!(claim.contains(backend), "`info` omits {backend}: {line}");
        if backend == "gpu" && !gpu {
            continue;
        }
        let stats = d.join(format!("{backend}.json"));
        let o = common::bin()
            .arg("query")
            .args([&pa, &pb])
            .arg("--frames-a")
            .arg(&lfa)
            .arg("--frames-b")
            .arg(&lfb)
            .arg("--out")
            .arg(d.join(format!("{backend}.csv")))
            .arg("--stats")
            .arg(&stats)
            .args(["--backend", backend])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
        assert!(
            s["backend"].as_str().unwrap().starts_with(backend),
            "{backend}: {s}"
        );
    }
}

/// `--tolerance` on frames: per frame the pairs within ε of the frames' meshes, as the
/// oracle tests every pair exactly, for every update method; 0 is the ordinary query's file
/// byte for byte; with `--backend gpu` the CPU's file byte for byte (where a GPU is found).
#[test]
fn tolerance_on_frames_equals_brute_force_per_frame() {
    let d = tmp_dir("tolerance");
    let files = write_scene(&d);
    let eps = 0.04;
    let mut want = Vec::new();
    for i in 0..FRAMES {
        let (a, b) = scene(i as f64 / (FRAMES - 1) as f64);
        let within = meshcollide::proximity::brute_force_within(&a, &b, &Pose::IDENTITY, eps);
        want.extend(within.into_iter().map(|(x, y)| (i as u32, x, y)));
    }
    assert!(
        want.len() > expected(None).len(),
        "ε finds more than contact"
    );
    for update in ["refit", "hybrid", "rebuild"] {
        let out = d.join(format!("tol-{update}.csv"));
        let o = q(&files, &out, &["--update", update, "--tolerance", "0.04"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let got = parse_pairs(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(got, want, "--update {update}");
    }
    let (zero, plain) = (d.join("tol-zero.csv"), d.join("tol-plain.csv"));
    assert!(q(&files, &zero, &["--tolerance", "0"]).status.success());
    assert!(q(&files, &plain, &[]).status.success());
    assert_eq!(
        std::fs::read(&zero).unwrap(),
        std::fs::read(&plain).unwrap()
    );
    #[cfg(feature = "gpu")]
    if common::gpu().is_some() {
        for update in ["refit", "hybrid", "rebuild"] {
            let run = |backend: &str| {
                let out = d.join(format!("tol-{update}-{backend}.csv"));
                let o = q_on(
                    &files,
                    &out,
                    backend,
                    &["--update", update, "--tolerance", "0.04"],
                );
                assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
                std::fs::read(&out).unwrap()
            };
            assert_eq!(run("gpu"), run("cpu"), "--update {update}: GPU");
        }
    }
}
