//! Fuzzing of inputs that are not regular files (issue 36): damaged poses, meshes and saved
//! hierarchies given to the command line through a FIFO or stdin must give exactly what the
//! same bytes give as a regular file — the same exit code (0 or 2: never a panic, an abort
//! or a hang), the same pairs.csv, the same message but for the file's name — and leave no
//! temporary behind. A pipe can be read once: a reader that opens it twice hangs here (the
//! test's watchdog fails it), one that sizes buffers by the file's length reads 0.
//!
//! `MESHCOLLIDE_FUZZ_CASES` (default 100) sets the number of cases, `MESHCOLLIDE_FUZZ_SEED`
//! the seed (printed with every failure).

#![cfg(unix)]

mod common;

use meshcollide::rng::Rng;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The binary under test; `MESHCOLLIDE_TEST_BIN` runs these tests against another build
/// (an older one, to see them fail there).
/// Linux's `O_NONBLOCK`: opening a FIFO's write end without a reader fails at once instead of
/// blocking, and its read end opens without a writer.
const O_NONBLOCK: i32 = 0o4000;

#[derive(Clone, Copy, Debug)]
enum Kind {
    Poses,
    Obj,
    Stl,
    Ply,
    Mch,
}

const KINDS: [Kind; 5] = [Kind::Poses, Kind::Obj, Kind::Stl, Kind::Ply, Kind::Mch];

impl Kind {
    fn ext(self) -> &'static str {
        match self {
            Kind::Poses => "csv",
            Kind::Obj => "obj",
            Kind::Stl => "stl",
            Kind::Ply => "ply",
            Kind::Mch => "mch",
        }
    }
}

/// The valid files every case starts from.
struct Bases {
    dir: PathBuf,
    poses: Vec<u8>,
    obj: Vec<u8>,
    stl: Vec<u8>,
    ply: Vec<u8>,
    mch: Vec<u8>,
}

fn bases() -> Bases {
    let dir = std::env::temp_dir().join(format!("meshcollide-fuzz-streams-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b) = common::tori(10);
    common::write_obj(&dir.join("a.obj"), &a);
    common::write_obj(&dir.join("b.obj"), &b);
    let poses = meshcollide::pose::tumbling_poses(6, [0.0; 3], [1.0, 0.0, 0.0]);
    std::fs::write(
        dir.join("poses.csv"),
        meshcollide::pose::format_poses(&poses),
    )
    .unwrap();
    let obj = std::fs::read(dir.join("b.obj")).unwrap();
    let mut stl = vec![0u8; 80];
    stl.extend((b.triangle_count() as u32).to_le_bytes());
    for t in 0..b.triangle_count() {
        stl.extend([0u8; 12]);
        for p in b.triangle(t) {
            for c in p {
                stl.extend((c as f32).to_le_bytes());
            }
        }
        stl.extend([0u8; 2]);
    }
    let mut ply = format!(
        "ply\nformat ascii 1.0\nelement vertex {}\nproperty double x\nproperty double y\nproperty double z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        b.positions.len(),
        b.triangle_count()
    );
    for p in &b.positions {
        ply.push_str(&format!("{} {} {}\n", p[0], p[1], p[2]));
    }
    for t in &b.triangles {
        ply.push_str(&format!("3 {} {} {}\n", t[0], t[1], t[2]));
    }
    let out = common::bin()
        .args(["build", "b.obj", "--out", "b.mch"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mch = std::fs::read(dir.join("b.mch")).unwrap();
    Bases {
        poses: std::fs::read(dir.join("poses.csv")).unwrap(),
        obj,
        stl,
        ply: ply.into_bytes(),
        mch,
        dir,
    }
}

/// A damaged copy: truncated, bytes flipped or inserted, a line doubled or cut, line
/// breaks removed, or (one case in six) unharmed.
fn mutate(b: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = b.to_vec();
    let at = |rng: &mut Rng, len: usize| (rng.f64() * len as f64) as usize;
    match (rng.f64() * 6.0) as u32 {
        0 => {}
        1 => v.truncate(at(rng, b.len())),
        2 => {
            for _ in 0..1 + (rng.f64() * 4.0) as usize {
                let i = at(rng, v.len());
                v[i] ^= 1 << (rng.f64() * 8.0) as u32;
            }
        }
        3 => {
            let i = at(rng, v.len());
            let junk: Vec<u8> = (0..1 + (rng.f64() * 16.0) as usize)
                .map(|_| (rng.f64() * 256.0) as u8)
                .collect();
            v.splice(i..i, junk);
        }
        4 => {
            let lines: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
            let i = at(rng, lines.len());
            let mut out = Vec::new();
            for (k, l) in lines.iter().enumerate() {
                out.extend_from_slice(l);
                out.push(b'\n');
                if k == i {
                    out.extend_from_slice(&l[..l.len() / 2]);
                    out.push(b'\n');
                }
            }
            v = out;
        }
        _ => v.retain(|&c| c != b'\n' || rng.f64() < 0.5),
    }
    v
}

/// What a run gave: the exit code, pairs.csv, and stderr with the input's name replaced.
#[derive(Debug, PartialEq)]
struct Outcome {
    code: Option<i32>,
    pairs: Option<Vec<u8>>,
    message: String,
}

/// Runs the command line with the damaged input at `input` (`-` for stdin, fed `bytes`);
/// a FIFO is fed by a thread. Fails the test if the run takes over a minute.
fn run(dir: &Path, kind: Kind, input: &str, bytes: &[u8], out: &str) -> Outcome {
    let mut args: Vec<&str> = match kind {
        Kind::Poses => vec!["query", "a.obj", "b.obj", "--poses", input],
        _ => vec!["query", "a.obj", input, "--poses", "poses.csv"],
    };
    if matches!(kind, Kind::Mch) {
        args.extend(["--bv", "kdop18"]);
    }
    args.extend(["--out", out, "--backend", "cpu", "--threads", "1"]);
    let mut child = common::bin()
        .args(&args)
        // A fixed memory limit: the default follows the memory available, which changes
        // between the two runs compared (and with it the messages that quote it).
        .env("MESHCOLLIDE_MAX_INPUT_BYTES", "1073741824")
        .current_dir(dir)
        .stdin(if input == "-" {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let feeder = if input == "-" {
        let mut stdin = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        Some(std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        }))
    } else if input.starts_with("fifo") {
        let (path, bytes) = (dir.join(input), bytes.to_vec());
        Some(std::thread::spawn(move || feed_fifo(&path, &bytes)))
    } else {
        None
    };
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{kind:?} through {input}: no answer after a minute (opened twice?)");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let o = child.wait_with_output().unwrap();
    if input.starts_with("fifo") {
        // A run that never opened the FIFO leaves the feeder waiting for a reader: be one.
        let _ = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(O_NONBLOCK)
            .open(dir.join(input));
    }
    if let Some(f) = feeder {
        f.join().unwrap();
    }
    // The input's name where a message names it (stdin is named `stdin`).
    let name = if input == "-" { "stdin" } else { input };
    let message = String::from_utf8_lossy(&o.stderr).replace(&format!("{name}:"), "INPUT:");
    let pairs = std::fs::read(dir.join(out)).ok();
    let _ = std::fs::remove_file(dir.join(out));
    Outcome {
        code: o.status.code(),
        pairs,
        message: message
            .lines()
            .filter(|l| l.starts_with("error"))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Writes `bytes` into the FIFO once a reader has opened it, giving up when the reader has
/// gone (a broken pipe: it stopped at an error) or never comes (the run ended first).
fn feed_fifo(path: &Path, bytes: &[u8]) {
    let started = Instant::now();
    let mut f = loop {
        match std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(O_NONBLOCK)
            .open(path)
        {
            Ok(f) => break f,
            Err(_) if started.elapsed() < Duration::from_secs(60) => {
                std::thread::sleep(Duration::from_millis(1))
            }
            Err(_) => return,
        }
    };
    let mut rest = bytes;
    while !rest.is_empty() {
        match f.write(rest) {
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(1))
            }
            Err(_) => return,
        }
    }
}

#[test]
fn damaged_inputs_through_pipes_equal_the_same_bytes_as_files() {
    let b = bases();
    let cases: usize = common::env_number("MESHCOLLIDE_FUZZ_CASES").unwrap_or(100);
    let seed: u64 = common::env_number("MESHCOLLIDE_FUZZ_SEED").unwrap_or(7);
    let mut rng = Rng::new(seed);
    let mut codes = [0usize; 2];
    for case in 0..cases {
        let kind = KINDS[case % KINDS.len()];
        let base = match kind {
            Kind::Poses => &b.poses,
            Kind::Obj => &b.obj,
            Kind::Stl => &b.stl,
            Kind::Ply => &b.ply,
            Kind::Mch => &b.mch,
        };
        let bytes = mutate(base, &mut rng);
        let ext = kind.ext();
        let file = format!("case.{ext}");
        std::fs::write(b.dir.join(&file), &bytes).unwrap();
        let want = run(&b.dir, kind, &file, &bytes, "file.csv");
        let why = format!("case {case} ({kind:?}, MESHCOLLIDE_FUZZ_SEED={seed})");
        assert!(
            matches!(want.code, Some(0 | 2)),
            "{why}: exit {:?}: {}",
            want.code,
            want.message
        );
        codes[usize::from(want.code != Some(0))] += 1;
        let fifo = format!("fifo.{ext}");
        let _ = std::fs::remove_file(b.dir.join(&fifo));
        assert!(
            Command::new("mkfifo")
                .arg(b.dir.join(&fifo))
                .status()
                .unwrap()
                .success()
        );
        let mut through = vec![fifo.clone()];
        if matches!(kind, Kind::Poses) {
            through.push("-".into());
        }
        for input in through {
            let got = run(&b.dir, kind, &input, &bytes, "pipe.csv");
            assert_eq!(got, want, "{why} through {input}");
        }
        std::fs::remove_file(b.dir.join(&fifo)).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&b.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        left.sort();
        assert!(left.is_empty(), "{why}: left {left:?}");
    }
    eprintln!(
        "{cases} damaged inputs through FIFOs and stdin: {} read, {} refused, each as from a file",
        codes[0], codes[1]
    );
}
