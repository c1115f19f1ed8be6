//! (Part of `cli_scene`.) `meshcollide generate scene` end to end: the files it writes are read back here by a
//! parser of this file's own (not the library's scene reader, which they are meant to
//! test) and checked against docs/FORMATS.md, "Scenes of many bodies"; the same seed gives
//! the same bytes; options of the other kind are refused with exit 2.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Output;

fn generate(dir: &Path, extra: &[&str]) -> Output {
    super::common::bin()
        .args(["generate", "scene", "--out"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

/// Every file under `dir` (relative path, bytes), sorted by path.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// What the checks found in a scene.
struct Summary {
    bodies: usize,
    statics: Vec<usize>,
    last_frame: u64,
    late: usize,
    removed: usize,
    returned: usize,
    /// Triangles per mesh path that a body names.
    mesh_tris: HashMap<String, usize>,
}

/// Checks `dir`'s bodies.csv and motion.csv against the contract, field by field.
fn check_scene(dir: &Path) -> Summary {
    let bodies = std::fs::read_to_string(dir.join("bodies.csv")).unwrap();
    let mut lines = bodies.lines();
    assert_eq!(lines.next(), Some("body,mesh,kind"));
    let mut moving = Vec::new();
    let mut loaded: HashMap<String, usize> = HashMap::new();
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 3, "bodies.csv row {i}: {line}");
        assert_eq!(
            f[0],
            i.to_string(),
            "bodies are numbered 0, 1, 2, … in order"
        );
        let kind = f[2];
        assert!(kind == "static" || kind == "moving", "{line}");
        moving.push(kind == "moving");
        if !loaded.contains_key(f[1]) {
            let m = meshcollide::mesh::load(&dir.join(f[1]))
                .unwrap_or_else(|e| panic!("{}: {e}", f[1]));
            loaded.insert(f[1].to_string(), m.triangle_count());
        }
    }
    let n = moving.len();

    let motion = std::fs::read_to_string(dir.join("motion.csv")).unwrap();
    let mut lines = motion.lines();
    assert_eq!(lines.next(), Some("frame,body,qw,qx,qy,qz,tx,ty,tz"));
    // Per body: present now, seen before, frames with a row.
    let mut present = vec![false; n];
    let mut seen = vec![false; n];
    let mut row_frames: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut gone = vec![false; n];
    let (mut late, mut removed, mut returned) = (0, 0, 0);
    let mut frame = 0u64;
    let mut in_frame: HashSet<usize> = HashSet::new();
    let mut first = true;
    let check_frame_end = |frame: u64, in_frame: &HashSet<usize>, present: &[bool]| {
        // Every present moving body has a row in every frame (they all move).
        for b in 0..n {
            if moving[b] && present[b] {
                assert!(
                    in_frame.contains(&b),
                    "frame {frame}: moving body {b} has no row"
                );
            }
        }
    };
    for (r, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 9, "motion.csv row {r}: {line}");
        let fr: u64 = f[0].parse().unwrap();
        if first {
            assert_eq!(fr, 0, "the first row is at frame 0");
            first = false;
        }
        assert!(fr >= frame, "row {r}: frames never decrease");
        if fr != frame {
            assert_eq!(fr, frame + 1, "row {r}: every frame has rows");
            check_frame_end(frame, &in_frame, &present);
            in_frame.clear();
            frame = fr;
        }
        let b: usize = f[1].parse().unwrap();
        assert!(b < n, "row {r}: body {b} of {n}");
        assert!(in_frame.insert(b), "row {r}: body {b} twice in frame {fr}");
        if f[2] == "remove" {
            assert!(f[3..].iter().all(|x| x.is_empty()), "row {r}: {line}");
            assert!(present[b], "row {r}: remove of absent body {b}");
            assert!(
                moving[b],
                "row {r}: the generator removes moving bodies only"
            );
            present[b] = false;
            gone[b] = true;
            removed += 1;
            continue;
        }
        let v: Vec<f64> = f[2..].iter().map(|x| x.parse().unwrap()).collect();
        assert!(v.iter().all(|x| x.is_finite()), "row {r}: {line}");
        let norm = v[..4].iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-12, "row {r}: |q| = {norm}");
        // Written with full precision: the text is the shortest round trip of the value.
        for (x, text) in v.iter().zip(&f[2..]) {
            assert_eq!(format!("{x:?}"), *text, "row {r}");
        }
        if !moving[b] {
            assert!(row_frames[b].is_empty(), "row {r}: static body {b} moved");
            assert_eq!(fr, 0, "statics are inserted at frame 0");
        }
        if !seen[b] && fr > 0 {
            late += 1;
        }
        if gone[b] && !present[b] {
            returned += 1;
        }
        seen[b] = true;
        present[b] = true;
        row_frames[b].push(fr);
    }
    check_frame_end(frame, &in_frame, &present);
    assert!(seen.iter().all(|&s| s), "every body has a row");
    Summary {
        bodies: n,
        statics: (0..n).filter(|&b| !moving[b]).collect(),
        last_frame: frame,
        late,
        removed,
        returned,
        mesh_tris: loaded,
    }
}

/// A small scene follows the contract, has each kind of event, and is the same bytes for
/// the same seed (another seed: another motion).
#[test]
fn generated_scene_follows_the_contract_and_is_reproducible() {
    let root = super::common::fresh_tmp_dir("scene-generate", "contract");
    let args = [
        "--bodies", "60", "--frames", "40", "--seed", "7", "--tris", "80",
    ];
    let (a, b, c) = (root.join("a"), root.join("b"), root.join("c"));
    for d in [&a, &b] {
        let o = generate(d, &args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let s = check_scene(&a);
    assert_eq!(s.bodies, 60 + 1 + 2, "60 moving, the floor, 2 blocks");
    assert_eq!(s.last_frame, 39);
    assert_eq!(s.statics[0], 0, "the floor is body 0");
    assert!(
        *s.statics.last().unwrap() > 60,
        "blocks follow the moving bodies"
    );
    assert!(s.late >= 3, "late entries: {}", s.late);
    assert!(s.removed >= 3, "removals: {}", s.removed);
    assert!(s.returned >= 1, "returns: {}", s.returned);
    // The four moving meshes differ in size (the floor and the block are named too).
    let sizes: HashSet<usize> = s.mesh_tris.values().copied().collect();
    assert!(sizes.len() >= 6, "mesh sizes {:?}", s.mesh_tris);
    let ta = tree(&a);
    assert_eq!(
        ta.len(),
        2 + 6,
        "bodies.csv, motion.csv and 6 meshes: {:?}",
        ta.keys()
    );
    assert!(ta == tree(&b), "same seed, same bytes");

    let o = generate(
        &c,
        &[
            "--bodies", "60", "--frames", "40", "--seed", "8", "--tris", "80",
        ],
    );
    assert!(o.status.success());
    let tc = tree(&c);
    assert_ne!(ta[Path::new("motion.csv")], tc[Path::new("motion.csv")]);
}

/// One body, one frame: the smallest scene is valid (no insertion or removal fits).
#[test]
fn smallest_scene_is_valid() {
    let d = super::common::fresh_tmp_dir("scene-generate", "smallest");
    let o = generate(&d, &["--bodies", "1", "--frames", "1", "--tris", "16"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = check_scene(&d);
    assert_eq!((s.bodies, s.last_frame, s.removed), (4, 0, 0));
}

/// Options of the other kind, or a scene without its counts, exit 2 naming the option;
/// nothing is written.
#[test]
fn options_that_do_not_apply_are_refused() {
    let d = super::common::fresh_tmp_dir("scene-generate", "refused");
    let cases: [(&[&str], &str); 5] = [
        (
            &["generate", "torus", "--bodies", "3", "--out", "t.obj"],
            "--bodies",
        ),
        (
            &["generate", "grid", "--tris", "100", "--out", "t.obj"],
            "--tris",
        ),
        (
            &[
                "generate", "scene", "--n", "10", "--bodies", "3", "--frames", "2", "--out", "s",
            ],
            "--n",
        ),
        (
            &["generate", "scene", "--frames", "2", "--out", "s"],
            "--bodies",
        ),
        (
            &["generate", "scene", "--bodies", "2", "--out", "s"],
            "--frames",
        ),
    ];
    for (args, flag) in cases {
        let o = super::common::bin()
            .args(args)
            .current_dir(&d)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(flag), "{args:?}: {err}");
    }
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written");
}
