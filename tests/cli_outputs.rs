//! Outputs that never destroy inputs (issue 36): every output checked against every input
//! and against each other before any work, read-only targets kept without `--force`, one
//! run per target (a lock), leftovers of killed runs removed at the next run, and signals
//! that never leave a file the last message does not mention. Also the inputs that can be
//! read only once (stdin, FIFOs) and the messages that quote input files.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The binary under test; `MESHCOLLIDE_TEST_BIN` runs these tests against another build
/// (an older one, to see them fail there).
fn tmp_dir(name: &str) -> PathBuf {
    common::fresh_tmp_dir("out", name)
}

fn run(d: &Path, args: &[&str]) -> Output {
    common::bin().args(args).current_dir(d).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The file names in `d`, sorted.
fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Two small interlocked tori as a.obj and b.obj, and `n` tumbling poses as poses.csv.
fn scene(d: &Path, n: usize) -> (meshcollide::Mesh, meshcollide::Mesh, Vec<meshcollide::Pose>) {
    let (a, b) = common::tori(24);
    common::write_obj(&d.join("a.obj"), &a);
    common::write_obj(&d.join("b.obj"), &b);
    let poses = meshcollide::pose::tumbling_poses(n, [0.0; 3], [1.0, 0.0, 0.0]);
    std::fs::write(d.join("poses.csv"), meshcollide::pose::format_poses(&poses)).unwrap();
    (a, b, poses)
}

fn assert_refused(o: &Output, words: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for w in words {
        assert!(err.contains(w), "`{w}` not in: {err}");
    }
}

#[test]
fn out_and_stats_on_one_file_are_refused_and_the_file_kept() {
    let d = tmp_dir("same");
    scene(&d, 4);
    std::fs::write(d.join("x.csv"), "precious").unwrap();
    for cmd in [
        &["query", "a.obj", "b.obj", "--poses", "poses.csv"][..],
        &["self", "a.obj"][..],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--out", "x.csv", "--stats", "x.csv", "--backend", "cpu"]);
        let o = run(&d, &args);
        assert_refused(&o, &["--stats x.csv", "--out x.csv", "same file"]);
        assert_eq!(
            std::fs::read_to_string(d.join("x.csv")).unwrap(),
            "precious"
        );
    }
    // `--stats` on the `.partial` that `--out` may leave is the same conflict.
    let o = run(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "x.csv",
            "--stats",
            "x.csv.partial",
        ],
    );
    assert_refused(&o, &["same file"]);
    assert_eq!(listing(&d), ["a.obj", "b.obj", "poses.csv", "x.csv"]);
}

#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let d = tmp_dir("input");
    scene(&d, 4);
    let before = |f: &str| std::fs::read(d.join(f)).unwrap();
    let (a, p) = (before("a.obj"), before("poses.csv"));
    let o = run(&d, &["build", "a.obj", "--out", "a.obj"]);
    assert_refused(&o, &["--out a.obj is the mesh a.obj"]);
    let o = run(&d, &["self", "a.obj", "--out", "a.obj"]);
    assert_refused(&o, &["--out a.obj is the mesh a.obj"]);
    let q = [
        "query",
        "a.obj",
        "b.obj",
        "--poses",
        "poses.csv",
        "--backend",
        "cpu",
    ];
    let with = |extra: &[&str]| {
        let mut v = q.to_vec();
        v.extend_from_slice(extra);
        run(&d, &v)
    };
    assert_refused(&with(&["--out", "poses.csv"]), &["is the --poses input"]);
    assert_refused(&with(&["--out", "b.obj"]), &["is the mesh B"]);
    assert_refused(
        &with(&["--out", "p.csv", "--stats", "./a.obj"]),
        &["--stats", "is the mesh A"],
    );
    // Through a hard link and a symlink.
    std::fs::hard_link(d.join("poses.csv"), d.join("hard.csv")).unwrap();
    assert_refused(&with(&["--out", "hard.csv"]), &["is the --poses input"]);
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("a.obj", d.join("link.obj")).unwrap();
        assert_refused(&with(&["--out", "link.obj"]), &["is the mesh A"]);
    }
    // A saved hierarchy as input.
    let o = run(&d, &["build", "a.obj", "--out", "a.mch"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let m = before("a.mch");
    let o = run(
        &d,
        &[
            "query",
            "a.mch",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "a.mch",
        ],
    );
    assert_refused(&o, &["is the mesh A"]);
    // A frame of a frame list.
    std::fs::write(d.join("frames.txt"), "a.obj\n").unwrap();
    let o = run(
        &d,
        &[
            "self",
            "a.obj",
            "--frames-a",
            "frames.txt",
            "--out",
            "hard.obj",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o)); // not an input: fine
    std::fs::write(d.join("frames.txt"), "f.obj\n").unwrap();
    std::fs::copy(d.join("a.obj"), d.join("f.obj")).unwrap();
    let o = run(
        &d,
        &[
            "self",
            "a.obj",
            "--frames-a",
            "frames.txt",
            "--out",
            "f.obj",
        ],
    );
    assert_refused(&o, &["--out", "is the frame", "f.obj"]);
    assert_eq!(before("a.obj"), a);
    assert_eq!(before("poses.csv"), p);
    assert_eq!(before("a.mch"), m);
    assert_eq!(before("f.obj"), a);
}

#[test]
fn read_only_targets_are_replaced_only_with_force() {
    let d = tmp_dir("readonly");
    scene(&d, 4);
    let x = d.join("x.csv");
    std::fs::write(&x, "kept").unwrap();
    let mut perm = std::fs::metadata(&x).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&x, perm).unwrap();
    let q = [
        "query",
        "a.obj",
        "b.obj",
        "--poses",
        "poses.csv",
        "--out",
        "x.csv",
    ];
    let o = run(&d, &q);
    assert_refused(&o, &["x.csv", "read-only", "--force"]);
    assert_eq!(std::fs::read_to_string(&x).unwrap(), "kept");
    let mut forced = q.to_vec();
    forced.push("--force");
    let o = run(&d, &forced);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&x)
            .unwrap()
            .starts_with("pose,tri_a,tri_b\n")
    );
    // Not a regular file: never replaced.
    let o = run(&d, &["generate", "torus", "--out", "/dev/null"]);
    assert_refused(&o, &["/dev/null", "not a regular file"]);
}

/// A query that streams for a while: its pid, once its first block of pairs is on disk.
fn start_streaming(d: &Path, extra: &[&str]) -> std::process::Child {
    let mut child = common::bin()
        .args([
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "pairs.csv",
        ])
        .args(["--backend", "cpu", "--threads", "1", "--chunk-poses", "8"])
        .args(extra)
        .current_dir(d)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let tmp = d.join(format!(".pairs.csv.{}.tmp", child.id()));
    let started = Instant::now();
    while std::fs::metadata(&tmp).map_or(true, |m| m.len() == 0) {
        assert!(child.try_wait().unwrap().is_none(), "the query ended early");
        assert!(
            started.elapsed().as_secs() < 120,
            "no pairs after 2 minutes"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    child
}

fn signal(child: &std::process::Child, sig: &str) {
    // The process may have ended already (after the first signal): that is fine.
    let _ = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .stderr(Stdio::null())
        .status();
}

/// Pairs of `pose` rows as (pose, tri_a, tri_b), for comparing files.
fn rows(text: &str) -> Vec<(u32, u32, u32)> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("pose,tri_a,tri_b"));
    lines
        .map(|l| {
            let v: Vec<u32> = l.split(',').map(|f| f.parse().unwrap()).collect();
            (v[0], v[1], v[2])
        })
        .collect()
}

/// Two Ctrl-C 0, 1, …, 50 ms apart while poses stream: exit 130 every time, no temporary
/// or lock file left, no pairs.csv, and the last message says what is on disk — either
/// nothing (`no output written`, and no `.partial`), or the whole poses `0..n` in
/// `pairs.csv.partial`, equal to the library's pairs for them.
#[cfg(unix)]
#[test]
fn two_signals_at_every_gap_leave_what_the_message_says() {
    let d = tmp_dir("signals");
    let (a, b, poses) = scene(&d, 20_000);
    let collider = meshcollide::Collider::builder(&a, &b).build().unwrap();
    let mut want: Vec<Option<Vec<(u32, u32)>>> = vec![None; poses.len()];
    let (mut kept, mut removed) = (0, 0);
    for gap in 0..=50u64 {
        let child = start_streaming(&d, &[]);
        signal(&child, "-INT");
        std::thread::sleep(Duration::from_millis(gap));
        signal(&child, "-INT");
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(130), "gap {gap} ms: {err}");
        let left = listing(&d);
        let partial = d.join("pairs.csv.partial");
        if let Some(rest) = err.split("the pairs of poses 0..").nth(1) {
            let n: usize = rest.split(' ').next().unwrap().parse().unwrap();
            assert!(err.contains("are in pairs.csv.partial"), "gap {gap}: {err}");
            assert_eq!(
                left,
                ["a.obj", "b.obj", "pairs.csv.partial", "poses.csv"],
                "gap {gap}: {err}"
            );
            let got = rows(&std::fs::read_to_string(&partial).unwrap());
            let mut expect = Vec::new();
            for (i, w) in want.iter_mut().enumerate().take(n) {
                let pairs = w.get_or_insert_with(|| collider.collide(&poses[i]).pairs);
                expect.extend(pairs.iter().map(|&(x, y)| (i as u32, x, y)));
            }
            assert_eq!(got, expect, "gap {gap}");
            std::fs::remove_file(&partial).unwrap();
            kept += 1;
        } else {
            assert!(err.contains("no output written"), "gap {gap}: {err}");
            assert_eq!(left, ["a.obj", "b.obj", "poses.csv"], "gap {gap}: {err}");
            removed += 1;
        }
    }
    eprintln!("51 double signals: {kept} kept whole poses, {removed} stopped at once");
}

/// A run killed outright leaves its temporary: the next run on the same output removes it
/// and says so; the lock of the dead run does not block it.
#[cfg(unix)]
#[test]
fn leftovers_of_a_killed_run_are_removed_by_the_next() {
    let d = tmp_dir("killed");
    scene(&d, 20_000);
    let child = start_streaming(&d, &[]);
    let pid = child.id();
    signal(&child, "-KILL");
    let _ = child.wait_with_output().unwrap();
    let tmp = format!(".pairs.csv.{pid}.tmp");
    assert!(listing(&d).contains(&tmp), "{:?}", listing(&d));
    std::fs::write(d.join("few.csv"), "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,1,0,0\n").unwrap();
    let o = run(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "few.csv",
            "--out",
            "pairs.csv",
            "--backend",
            "cpu",
        ],
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(&format!("removed {}", d.join(&tmp).display())) || err.contains(&tmp),
        "{err}"
    );
    assert_eq!(
        listing(&d),
        ["a.obj", "b.obj", "few.csv", "pairs.csv", "poses.csv"]
    );
}

/// Two runs on one output: the second fails at once (exit 2) naming the first's process;
/// the first completes.
#[cfg(unix)]
#[test]
fn a_second_run_on_the_same_output_fails_fast() {
    let d = tmp_dir("lock");
    scene(&d, 3_000);
    let first = start_streaming(&d, &[]);
    let t = Instant::now();
    let o = run(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "pairs.csv",
        ],
    );
    assert_refused(&o, &["pairs.csv", "is writing it", &first.id().to_string()]);
    assert!(t.elapsed() < Duration::from_secs(60));
    let out = first.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(listing(&d), ["a.obj", "b.obj", "pairs.csv", "poses.csv"]);
}

/// `--poses -` (stdin) and a FIFO stream the poses: the same pairs.csv as the file; the
/// copy made of them is gone after the run.
#[cfg(unix)]
#[test]
fn poses_from_stdin_and_a_fifo_equal_the_file() {
    use std::io::Write;
    let d = tmp_dir("stdin");
    scene(&d, 50);
    let o = run(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "poses.csv",
            "--out",
            "file.csv",
            "--backend",
            "cpu",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read(d.join("poses.csv")).unwrap();
    for (poses, out) in [("-", "stdin.csv"), ("/dev/stdin", "devstdin.csv")] {
        let mut child = common::bin()
            .args(["query", "a.obj", "b.obj", "--poses", poses, "--out", out])
            .args(["--backend", "cpu"])
            .current_dir(&d)
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(&text).unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{poses}: {}", stderr(&o));
    }
    let fifo = d.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let writer = {
        let (fifo, text) = (fifo.clone(), text.clone());
        std::thread::spawn(move || std::fs::write(fifo, text).unwrap())
    };
    let o = run(
        &d,
        &[
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "fifo",
            "--out",
            "fifo.csv",
            "--backend",
            "cpu",
        ],
    );
    writer.join().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let file = std::fs::read(d.join("file.csv")).unwrap();
    assert_eq!(std::fs::read(d.join("stdin.csv")).unwrap(), file);
    assert_eq!(std::fs::read(d.join("devstdin.csv")).unwrap(), file);
    assert_eq!(std::fs::read(d.join("fifo.csv")).unwrap(), file);
    // A bad row from stdin names stdin and the line.
    let mut child = common::bin()
        .args([
            "query",
            "a.obj",
            "b.obj",
            "--poses",
            "-",
            "--out",
            "bad.csv",
            "--backend",
            "cpu",
        ])
        .current_dir(&d)
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n1,0,0\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_refused(&o, &["stdin: line 3 (pose 1): expected 7 fields"]);
    assert_eq!(
        listing(&d),
        [
            "a.obj",
            "b.obj",
            "devstdin.csv",
            "fifo",
            "fifo.csv",
            "file.csv",
            "poses.csv",
            "stdin.csv"
        ]
    );
}

/// Inputs without line breaks or text (`/dev/zero`, `/dev/urandom`) are refused after a
/// bounded read, naming the file; frame lists say exactly what is wrong with a frame.
#[cfg(unix)]
#[test]
fn endless_and_device_inputs_are_refused_quickly() {
    let d = tmp_dir("devices");
    scene(&d, 4);
    let q = |poses: &str| {
        run(
            &d,
            &[
                "query",
                "a.obj",
                "b.obj",
                "--poses",
                poses,
                "--out",
                "x.csv",
                "--backend",
                "cpu",
            ],
        )
    };
    assert_refused(
        &q("/dev/zero"),
        &["/dev/zero: line 1 is longer than 1048576 bytes"],
    );
    assert_refused(&q("/dev/urandom"), &["/dev/urandom: line"]);
    let o = run(
        &d,
        &["self", "a.obj", "--frames-a", "/dev/zero", "--out", "x.csv"],
    );
    assert_refused(&o, &["/dev/zero: line 1: longer than 65536 bytes"]);
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.obj")).unwrap();
    std::fs::create_dir(d.join("dir.obj")).unwrap();
    for (entry, problem) in [
        ("zero.obj", "is not a regular file"),
        ("dir.obj", "is a directory"),
        ("none.obj", "does not exist"),
    ] {
        std::fs::write(d.join("frames.txt"), format!("a.obj\n{entry}\n")).unwrap();
        let o = run(
            &d,
            &[
                "self",
                "a.obj",
                "--frames-a",
                "frames.txt",
                "--out",
                "x.csv",
            ],
        );
        assert_refused(&o, &["frames.txt: line 2: frame file ", problem]);
    }
    assert!(!d.join("x.csv").exists());
}

/// Control bytes of an input file reach the terminal escaped, and a huge field is cut.
#[test]
fn messages_escape_control_bytes_and_cut_long_fields() {
    let d = tmp_dir("escape");
    scene(&d, 4);
    // Half a MiB: under the line limit, so the field itself is what the message quotes.
    let long = "7".repeat(1 << 19);
    std::fs::write(
        d.join("bad.csv"),
        format!("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,\x1b]0;pwned\x07,0,0\n1,0,0,0,{long}x,0,0\n"),
    )
    .unwrap();
    let o = run(
        &d,
        &[
            "query", "a.obj", "b.obj", "--poses", "bad.csv", "--out", "x.csv",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(!err.bytes().any(|b| b == 0x1b || b == 0x07), "{err:?}");
    assert!(err.contains("\\u{1b}]0;pwned\\u{7}"), "{err}");
    std::fs::write(
        d.join("bad.csv"),
        format!("qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,{long}x,0,0\n"),
    )
    .unwrap();
    let o = run(
        &d,
        &[
            "query", "a.obj", "b.obj", "--poses", "bad.csv", "--out", "x.csv",
        ],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.len() < 1000 && err.contains("7777…"),
        "{} bytes",
        err.len()
    );
}

/// `--bv boxtree --leaf-size 17` is refused naming the boxtree's limit, not run with 16 and
/// reported as 17.
#[test]
fn boxtree_leaf_size_beyond_its_limit_is_refused() {
    let d = tmp_dir("boxleaf");
    scene(&d, 4);
    let base = [
        "query",
        "a.obj",
        "b.obj",
        "--poses",
        "poses.csv",
        "--bv",
        "boxtree",
    ];
    let with = |leaf: &str, extra: &[&str]| {
        let mut v = base.to_vec();
        v.extend(["--leaf-size", leaf, "--out", "x.csv", "--stats", "s.json"]);
        v.extend_from_slice(extra);
        run(&d, &v)
    };
    assert_refused(&with("17", &[]), &["leaf size 17", "1 to 16"]);
    assert_refused(
        &with("4", &["--leaf-size-b", "40"]),
        &["leaf size 40 of mesh B"],
    );
    let o = with("16", &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stats = std::fs::read_to_string(d.join("s.json")).unwrap();
    assert!(stats.contains("\"leaf_size_a\": 16"), "{stats}");
}
