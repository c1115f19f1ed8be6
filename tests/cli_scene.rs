//! `meshcollide scene` end to end: contacts.csv equals brute force over all body pairs per
//! frame (frames without rows repeat the last poses, removed bodies leave, static pairs are
//! never reported), `--backend gpu` writes the same bytes, stats.json holds the broad
//! phase's figures, and every bad input is exit 2 naming the file and line with nothing at
//! `--out` (whole frames kept in `.partial` when the error comes late).

mod common;
#[path = "cli_scene/generator.rs"]
mod generator;

use common::{bin, fresh_tmp_dir, write_obj};
use meshcollide::bodies::{Body, brute_force};
use meshcollide::{Pose, mesh::generate};
use std::path::Path;
use std::sync::Arc;

/// The scene of these tests: a static floor (a grid at z = 0), three tori (two moving, one
/// static, so the static pair floor–torus is never reported) and a moving box.
fn write_scene(dir: &Path) -> Vec<Body> {
    std::fs::create_dir_all(dir.join("meshes")).unwrap();
    let floor = generate::grid(8, 8, 0.5, 0.0);
    let torus = generate::torus([0.0; 3], 0.6, 0.2, 16, 8);
    let cube = generate::box_mesh([-0.3; 3], [0.3; 3]);
    write_obj(&dir.join("meshes/floor.obj"), &floor);
    write_obj(&dir.join("meshes/torus.obj"), &torus);
    write_obj(&dir.join("meshes/cube.obj"), &cube);
    std::fs::write(
        dir.join("bodies.csv"),
        "body,mesh,kind\n0,meshes/floor.obj,static\n1,meshes/torus.obj,moving\n\
         2,meshes/torus.obj,moving\n3,meshes/torus.obj,static\n4,./meshes/cube.obj,moving\n",
    )
    .unwrap();
    // The meshes as the command reads them back (OBJ text written by `write_obj`).
    let load = |n: &str| Arc::new(meshcollide::mesh::load(&dir.join("meshes").join(n)).unwrap());
    let (floor, torus, cube) = (load("floor.obj"), load("torus.obj"), load("cube.obj"));
    vec![
        Body::fixed(floor),
        Body::moving(torus.clone()),
        Body::moving(torus.clone()),
        Body::fixed(torus),
        Body::moving(cube),
    ]
}

/// The motion: frames 0, 1, 3 (frame 2 repeats 1), 4 and 6; a removal and a return.
const MOTION: &str = "frame,body,qw,qx,qy,qz,tx,ty,tz
0,0,1,0,0,0,0,0,0
0,1,1,0,0,0,1,1,0.1
0,3,1,0,0,0,1.5,1,0.05
0,4,0.9238795325112867,0.3826834323650898,0,0,3,3,0.2
1,1,0.9950041652780258,0.09983341664682815,0,0,1.2,1,0.15
1,2,1,0,0,0,2.5,2.5,0.3
3,4,remove,,,,,,
3,2,0.9800665778412416,0,0.19866933079506122,0,2.2,2.2,0.1
4,4,1,0,0,0,2,2,0.25
6,1,1,0,0,0,3,1,1
";

/// Brute force of the motion above, in contacts.csv's bytes.
fn expected(bodies: &[Body]) -> String {
    let q = |w: f64, x: f64, y: f64, t: [f64; 3]| Some(Pose::new([w, x, y, 0.0], t));
    let mut poses: Vec<Option<Pose>> = vec![None; bodies.len()];
    let mut out = String::from("frame,body_a,tri_a,body_b,tri_b\n");
    for frame in 0..=6 {
        match frame {
            0 => {
                poses[0] = q(1.0, 0.0, 0.0, [0.0; 3]);
                poses[1] = q(1.0, 0.0, 0.0, [1.0, 1.0, 0.1]);
                poses[3] = q(1.0, 0.0, 0.0, [1.5, 1.0, 0.05]);
                poses[4] = q(0.9238795325112867, 0.3826834323650898, 0.0, [3.0, 3.0, 0.2]);
            }
            1 => {
                poses[1] = q(
                    0.9950041652780258,
                    0.09983341664682815,
                    0.0,
                    [1.2, 1.0, 0.15],
                );
                poses[2] = q(1.0, 0.0, 0.0, [2.5, 2.5, 0.3]);
            }
            3 => {
                poses[4] = None;
                poses[2] = q(
                    0.9800665778412416,
                    0.0,
                    0.19866933079506122,
                    [2.2, 2.2, 0.1],
                );
            }
            4 => poses[4] = q(1.0, 0.0, 0.0, [2.0, 2.0, 0.25]),
            6 => poses[1] = q(1.0, 0.0, 0.0, [3.0, 1.0, 1.0]),
            _ => {}
        }
        for c in brute_force(bodies, &poses, false) {
            out += &format!(
                "{frame},{},{},{},{}\n",
                c.body_a, c.tri_a, c.body_b, c.tri_b
            );
        }
    }
    out
}

fn run_scene(dir: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .arg("scene")
        .arg(dir.join("bodies.csv"))
        .arg("--motion")
        .arg(dir.join("motion.csv"))
        .arg("--out")
        .arg(dir.join("contacts.csv"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn contacts_equal_brute_force_frame_by_frame() {
    let dir = fresh_tmp_dir("cli-scene", "brute");
    let bodies = write_scene(&dir);
    std::fs::write(dir.join("motion.csv"), MOTION).unwrap();
    let out = run_scene(
        &dir,
        &[
            "--backend",
            "cpu",
            "--stats",
            dir.join("stats.json").to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = std::fs::read_to_string(dir.join("contacts.csv")).unwrap();
    let want = expected(&bodies);
    assert_eq!(got, want);
    // Every kind of row is there: floor–torus, torus–torus, torus–cube, and frame 2.
    for needle in ["\n0,0,", "\n1,1,", "\n2,"] {
        assert!(want.contains(needle), "the scene lacks {needle:?}");
    }
    assert!(
        !want
            .lines()
            .any(|l| l.starts_with("0,0,") && l.split(',').nth(3) == Some("3"))
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["frames"], 7);
    assert_eq!(stats["bodies"], 5);
    assert_eq!(stats["meshes"], 3, "one hierarchy per distinct mesh file");
    assert_eq!(stats["contacts"], want.lines().count() as u64 - 1);
    for key in ["broad_ms", "broad_pairs", "swaps", "scene_ms"] {
        assert!(stats[key].as_f64().unwrap() > 0.0, "{key}");
    }
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_backend_writes_the_same_bytes() {
    if common::gpu().is_none() {
        return;
    }
    let dir = fresh_tmp_dir("cli-scene", "gpu");
    let bodies = write_scene(&dir);
    std::fs::write(dir.join("motion.csv"), MOTION).unwrap();
    let out = run_scene(&dir, &["--backend", "gpu", "--mode", "all"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("contacts.csv")).unwrap(),
        expected(&bodies)
    );
}

#[test]
fn bad_inputs_name_the_file_and_line_and_keep_whole_frames_only() {
    let dir = fresh_tmp_dir("cli-scene", "bad");
    write_scene(&dir);
    let cases: [(&str, &str, &str); 6] = [
        ("0,9,1,0,0,0,0,0,0\n", "line 2", "body `9`"),
        (
            "0,1,1,0,0,0,0,0,0\n1,1,1,0,0,0,0,0,0\n0,2,1,0,0,0,0,0,0\n",
            "line 4",
            "never decrease",
        ),
        ("0,0,1,0,0,0,0,0,0\n2,0,1,0,0,0,0,0,1\n", "line 3", "static"),
        ("0,1,2,0,0,0,0,0,0\n", "line 2", "quaternion"),
        ("0,1,remove,,,,,,\n", "line 2", "not in the scene"),
        (
            "0,1,1,0,0,0,0,0,0\n0,1,1,0,0,0,0,0,1\n",
            "line 3",
            "second row",
        ),
    ];
    for (rows, line, what) in cases {
        std::fs::write(
            dir.join("motion.csv"),
            format!("{}\n{rows}", "frame,body,qw,qx,qy,qz,tx,ty,tz"),
        )
        .unwrap();
        let out = run_scene(&dir, &["--backend", "cpu"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("motion.csv: ") && err.contains(line) && err.contains(what),
            "{err}"
        );
        assert!(!dir.join("contacts.csv").exists());
    }
    // A late error: the frames before it are kept whole in contacts.csv.partial.
    std::fs::write(
        dir.join("motion.csv"),
        "frame,body,qw,qx,qy,qz,tx,ty,tz\n0,0,1,0,0,0,0,0,0\n0,1,1,0,0,0,1,1,0.1\n\
         1,1,1,0,0,0,1,1,0.12\n2,1,1,0,0,0,1,1,x\n",
    )
    .unwrap();
    let out = run_scene(&dir, &["--backend", "cpu"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("line 5") && err.contains("tz"), "{err}");
    assert!(!dir.join("contacts.csv").exists());
    let partial = std::fs::read_to_string(dir.join("contacts.csv.partial")).unwrap();
    assert!(partial.starts_with("frame,body_a,tri_a,body_b,tri_b\n"));
    let frames: std::collections::BTreeSet<&str> = partial
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(
        frames.into_iter().collect::<Vec<_>>(),
        ["0", "1"],
        "{partial}"
    );
    // Bodies file: a missing mesh names the bodies file's line and the mesh.
    std::fs::write(dir.join("motion.csv"), MOTION).unwrap();
    std::fs::write(
        dir.join("bodies.csv"),
        "body,mesh,kind\n0,meshes/floor.obj,static\n1,meshes/gone.obj,moving\n",
    )
    .unwrap();
    let out = run_scene(&dir, &["--backend", "cpu", "--force"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bodies.csv: line 3") && err.contains("gone.obj"),
        "{err}"
    );
    for (body, want) in [
        ("body,mesh,kind\n0,meshes/floor.obj,fixed\n", "kind `fixed`"),
        (
            "body,mesh,kind\n1,meshes/floor.obj,static\n",
            "numbered 0, 1, 2",
        ),
        ("body,mesh\n0,meshes/floor.obj\n", "header"),
    ] {
        std::fs::write(dir.join("bodies.csv"), body).unwrap();
        let out = run_scene(&dir, &["--backend", "cpu", "--force"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("bodies.csv: line") && err.contains(want),
            "{err}"
        );
    }
    // An output onto an input is refused before any work.
    write_scene(&dir);
    let out = bin()
        .arg("scene")
        .arg(dir.join("bodies.csv"))
        .arg("--motion")
        .arg(dir.join("motion.csv"))
        .arg("--out")
        .arg(dir.join("meshes/cube.obj"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(meshcollide::mesh::load(&dir.join("meshes/cube.obj")).is_ok());
}

/// Ctrl-C while frames stream: exit 130, nothing at `--out`, and the frames done kept whole
/// in `contacts.csv.partial`, byte for byte what a run over those frames alone writes.
#[test]
fn ctrl_c_keeps_whole_frames() {
    use std::process::Command;
    let d = fresh_tmp_dir("cli-scene", "ctrl-c");
    let generated = bin()
        .args(["generate", "scene", "--bodies", "100", "--frames", "1500"])
        .args(["--tris", "400", "--out"])
        .arg(&d)
        .output()
        .unwrap();
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let mut child = bin()
        .args([
            "scene",
            "bodies.csv",
            "--motion",
            "motion.csv",
            "--out",
            "contacts.csv",
        ])
        .args(["--backend", "cpu", "--threads", "1"])
        .current_dir(&d)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let tmp = d.join(format!(".contacts.csv.{}.tmp", child.id()));
    while std::fs::metadata(&tmp).map_or(true, |m| m.len() == 0) {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the scene ended before Ctrl-C"
        );
        assert!(
            started.elapsed().as_secs() < 120,
            "no contacts after 2 minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(!d.join("contacts.csv").exists());
    let n: u64 = err
        .split("the pairs of frames 0..")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no frame count in `{err}`"));
    assert!(n > 0 && n < 1500, "{err}");
    let partial = std::fs::read_to_string(d.join("contacts.csv.partial")).unwrap();
    // The same scene over frames 0..n alone.
    let motion = std::fs::read_to_string(d.join("motion.csv")).unwrap();
    let cut: String = motion
        .lines()
        .enumerate()
        .filter(|(i, l)| *i == 0 || l.split(',').next().unwrap().parse::<u64>().unwrap() < n)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    std::fs::write(d.join("cut.csv"), cut).unwrap();
    let whole = bin()
        .args([
            "scene",
            "bodies.csv",
            "--motion",
            "cut.csv",
            "--out",
            "cut-contacts.csv",
        ])
        .args(["--backend", "cpu"])
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(whole.status.success());
    assert_eq!(
        partial,
        std::fs::read_to_string(d.join("cut-contacts.csv")).unwrap()
    );
}
