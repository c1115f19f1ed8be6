//! Fuzz-style robustness of every reader: valid generated files (OBJ, ASCII and binary STL,
//! ASCII and binary PLY, a gzipped one, poses.csv, a saved hierarchy) are damaged by
//! deterministic mutations (truncation, flipped and inserted bytes, huge header counts,
//! NaN and infinite coordinates, absurd and negative indices, duplicated header lines), and
//! each reader must return `Ok` (then a query on the result must not panic) or a typed
//! error: never a panic, never a hang, never an allocation out of proportion to the input
//! (a counting allocator records the largest request while a reader runs).
//!
//! Crafted saved hierarchies (`.mch` edited where it matters, both checksums recomputed) must
//! be refused or answer exactly: equal to brute force, as A and as B.
//!
//! `MESHCOLLIDE_FUZZ_CASES` (default 5,000, under a second in release) sets the number of cases, `MESHCOLLIDE_FUZZ_SEED`
//! the seed (printed with every failure: the same seed replays the same cases).

mod common;

use meshcollide::mesh::generate;
use meshcollide::mesh::load::load_bytes;
use meshcollide::pose::PoseReader;
use meshcollide::rng::Rng;
use meshcollide::saved::SavedHierarchy;
use meshcollide::{BuildOptions, BvKind, Collider, Mesh, Pose};
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

/// Records the largest single allocation while `TRACK` is set, and refuses (aborting with
/// a message) any request above `HARD_LIMIT`: an absurd allocation must not swap the machine.
struct Counting;

static TRACK: AtomicBool = AtomicBool::new(false);
static LARGEST: AtomicUsize = AtomicUsize::new(0);
static CASE: AtomicU64 = AtomicU64::new(u64::MAX);
static SEED: AtomicU64 = AtomicU64::new(0);
/// The tests of this file run one at a time: the allocation record is global.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
const HARD_LIMIT: usize = 1 << 31;

fn note(size: usize) -> bool {
    if TRACK.load(Relaxed) {
        LARGEST.fetch_max(size, Relaxed);
        if size > HARD_LIMIT {
            let _ = writeln!(
                std::io::stderr(),
                "fuzz: refused an allocation of {size} bytes in case {} (MESHCOLLIDE_FUZZ_SEED={})",
                CASE.load(Relaxed),
                SEED.load(Relaxed)
            );
            return false;
        }
    }
    true
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if !note(l.size()) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        if !note(l.size()) {
            return std::ptr::null_mut();
        }
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if !note(new) {
            return std::ptr::null_mut();
        }
        unsafe { System.realloc(p, l, new) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// The files the mutations start from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Obj,
    StlAscii,
    StlBinary,
    PlyAscii,
    PlyBinary,
    ObjGz,
    Poses,
    Mch,
}

const KINDS: [Kind; 8] = [
    Kind::Obj,
    Kind::StlAscii,
    Kind::StlBinary,
    Kind::PlyAscii,
    Kind::PlyBinary,
    Kind::ObjGz,
    Kind::Poses,
    Kind::Mch,
];

impl Kind {
    fn file_name(self) -> &'static str {
        match self {
            Kind::Obj => "m.obj",
            Kind::StlAscii => "a.stl",
            Kind::StlBinary => "b.stl",
            Kind::PlyAscii => "a.ply",
            Kind::PlyBinary => "b.ply",
            Kind::ObjGz => "m.obj.gz",
            Kind::Poses => "poses.csv",
            Kind::Mch => "m.mch",
        }
    }
}

fn mesh() -> Mesh {
    generate::torus([1.25, -0.5, 3.0], 1.0, 0.35, 9, 6)
}

fn obj(m: &Mesh) -> Vec<u8> {
    let mut s = String::from("# fuzz\no torus\n");
    for p in &m.positions {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    // One quad (two triangles) exercises the fan; the rest with slashes and negatives.
    let t = &m.triangles;
    s += &format!(
        "f {}/1 {}//2 {}/3/4\n",
        t[0][0] + 1,
        t[0][1] + 1,
        t[0][2] + 1
    );
    for t in &t[1..] {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s += "f -1 -2 -3 -4\n";
    s.into_bytes()
}

fn stl_ascii(m: &Mesh) -> Vec<u8> {
    let mut s = String::from("solid fuzz\n");
    for i in 0..m.triangle_count() {
        s += "facet normal 0 0 1\n outer loop\n";
        for p in m.triangle(i) {
            s += &format!("  vertex {:e} {:e} {:e}\n", p[0], p[1], p[2]);
        }
        s += " endloop\nendfacet\n";
    }
    s += "endsolid fuzz\n";
    s.into_bytes()
}

fn stl_binary(m: &Mesh) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b.extend_from_slice(&(m.triangle_count() as u32).to_le_bytes());
    for i in 0..m.triangle_count() {
        b.extend_from_slice(&[0; 12]);
        for p in m.triangle(i) {
            for c in p {
                b.extend_from_slice(&(c as f32).to_le_bytes());
            }
        }
        b.extend_from_slice(&[0; 2]);
    }
    b
}

fn ply_header(m: &Mesh, format: &str) -> String {
    format!(
        "ply\nformat {format} 1.0\ncomment fuzz\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nelement face {}\nproperty list uchar int vertex_indices\nend_header\n",
        m.positions.len(),
        m.triangle_count()
    )
}

fn ply_ascii(m: &Mesh) -> Vec<u8> {
    let mut s = ply_header(m, "ascii");
    for p in &m.positions {
        s += &format!("{} {} {}\n", p[0], p[1], p[2]);
    }
    for t in &m.triangles {
        s += &format!("3 {} {} {}\n", t[0], t[1], t[2]);
    }
    s.into_bytes()
}

fn ply_binary(m: &Mesh) -> Vec<u8> {
    let mut b = ply_header(m, "binary_little_endian").into_bytes();
    for p in &m.positions {
        for c in p {
            b.extend_from_slice(&(*c as f32).to_le_bytes());
        }
    }
    for t in &m.triangles {
        b.push(3);
        for v in t {
            b.extend_from_slice(&(*v as i32).to_le_bytes());
        }
    }
    b
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn gunzip(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(bytes)
        .take(1 << 28)
        .read_to_end(&mut out)
        .ok()?;
    Some(out)
}

fn poses_csv() -> Vec<u8> {
    let mut rng = Rng::new(7);
    let mut s = String::from("qw,qx,qy,qz,tx,ty,tz\n");
    for _ in 0..12 {
        let p = Pose::new(
            rng.unit_quaternion(),
            [0, 1, 2].map(|_| rng.range(-1.0, 1.0)),
        );
        s += &p.to_csv_row();
        s += "\n";
    }
    s.into_bytes()
}

fn base(kind: Kind) -> Vec<u8> {
    let m = mesh();
    match kind {
        Kind::Obj => obj(&m),
        Kind::StlAscii => stl_ascii(&m),
        Kind::StlBinary => stl_binary(&m),
        Kind::PlyAscii => ply_ascii(&m),
        Kind::PlyBinary => ply_binary(&m),
        Kind::ObjGz => obj(&m),
        Kind::Poses => poses_csv(),
        Kind::Mch => SavedHierarchy::build(m, BvKind::Kdop14, &BuildOptions::default())
            .unwrap()
            .to_bytes(),
    }
}

/// Replaces the `n`-th (mod count) occurrence of a token matched by `pick` with `with`.
fn replace_token(b: &[u8], rng: &mut Rng, pick: impl Fn(&[u8]) -> bool, with: &[u8]) -> Vec<u8> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let j = (i..b.len())
            .find(|&j| b[j].is_ascii_whitespace())
            .unwrap_or(b.len());
        if pick(&b[i..j]) {
            spans.push((i, j));
        }
        i = j;
    }
    if spans.is_empty() {
        return b.to_vec();
    }
    let (s, e) = spans[rng.below(spans.len() as u64) as usize];
    [&b[..s], with, &b[e..]].concat()
}

/// The PLY header line `element <element> N` with `N` replaced.
fn set_count(text: &str, element: &str, n: &[u8]) -> String {
    let key = format!("element {element} ");
    let Some(s) = text.find(&key) else {
        return text.to_string();
    };
    let from = s + key.len();
    let to = text[from..].find('\n').map_or(text.len(), |e| from + e);
    format!(
        "{}{}{}",
        &text[..from],
        String::from_utf8_lossy(n),
        &text[to..]
    )
}

fn is_number(t: &[u8]) -> bool {
    std::str::from_utf8(t).is_ok_and(|s| s.parse::<f64>().is_ok())
}

const HUGE: [&str; 6] = [
    "4000000000",
    "4294967295",
    "18446744073709551615",
    "-1",
    "-99999",
    "2147483648",
];
const BAD_FLOATS: [&str; 6] = ["nan", "inf", "-inf", "1e400", "1e-400", "0x1p3"];

/// One deterministic mutation of `b`.
fn mutate(kind: Kind, b: &[u8], rng: &mut Rng) -> Vec<u8> {
    let at = |rng: &mut Rng, len: usize| rng.below(len as u64 + 1) as usize;
    let is_text = !matches!(kind, Kind::StlBinary | Kind::PlyBinary | Kind::Mch);
    // Short inputs (earlier mutations cut them) get the generic mutations only.
    let choice = if b.len() < 100 {
        rng.below(3)
    } else {
        rng.below(9)
    };
    match choice {
        0 => b[..at(rng, b.len())].to_vec(),
        1 => {
            let mut v = b.to_vec();
            for _ in 0..1 + rng.below(4) {
                if !v.is_empty() {
                    let i = rng.below(v.len() as u64) as usize;
                    v[i] ^= 1 + rng.below(255) as u8;
                }
            }
            v
        }
        2 => {
            let i = at(rng, b.len());
            let junk: Vec<u8> = (0..1 + rng.below(16))
                .map(|_| rng.next_u64() as u8)
                .collect();
            [&b[..i], &junk, &b[i..]].concat()
        }
        3 => {
            // Huge or negative counts and indices.
            let h = HUGE[rng.below(HUGE.len() as u64) as usize].as_bytes();
            match kind {
                Kind::StlBinary => {
                    let mut v = b.to_vec();
                    let c = [u32::MAX, 0x4000_0000, 0, 1, 2][rng.below(5) as usize];
                    v[80..84].copy_from_slice(&c.to_le_bytes());
                    v
                }
                Kind::PlyBinary => {
                    let mut v = b.to_vec();
                    let Some(start) = v.windows(11).position(|w| w == b"end_header\n") else {
                        return [b, &b"\x00\x01"[..]].concat();
                    };
                    let start = (start + 11).min(v.len() - 4);
                    let i = start + rng.below((v.len() - start) as u64 / 4) as usize * 4;
                    let w = [u32::MAX, 0x8000_0000, 4_000_000_000][rng.below(3) as usize];
                    v[i..i + 4].copy_from_slice(&w.to_le_bytes());
                    if rng.below(2) == 0 {
                        let element = ["vertex", "face"][rng.below(2) as usize];
                        let text = set_count(&String::from_utf8_lossy(&v[..start]), element, h);
                        return [text.as_bytes(), &v[start..]].concat();
                    }
                    v
                }
                Kind::Mch => {
                    let mut v = b.to_vec();
                    let i = [32, 40, 48, 56, 12, 24, 28][rng.below(7) as usize];
                    v[i..i + 4].copy_from_slice(&u32::MAX.to_le_bytes());
                    v
                }
                Kind::PlyAscii if rng.below(2) == 0 => {
                    let text = String::from_utf8_lossy(b);
                    let element = ["vertex", "face"][rng.below(2) as usize];
                    set_count(&text, element, h).into_bytes()
                }
                _ => replace_token(b, rng, |t| t.iter().all(u8::is_ascii_digit), h),
            }
        }
        4 => {
            // NaN and infinite coordinates.
            match kind {
                Kind::StlBinary | Kind::PlyBinary | Kind::Mch => {
                    let mut v = b.to_vec();
                    let i = rng.below(v.len() as u64 - 8) as usize;
                    let bits: [u8; 4] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 3.4e38]
                        [rng.below(4) as usize]
                        .to_le_bytes();
                    v[i..i + 4].copy_from_slice(&bits);
                    v
                }
                _ => {
                    let f = BAD_FLOATS[rng.below(BAD_FLOATS.len() as u64) as usize];
                    replace_token(b, rng, is_number, f.as_bytes())
                }
            }
        }
        5 if is_text || kind == Kind::PlyBinary => {
            // Duplicate a line (headers included).
            let lines: Vec<usize> = std::iter::once(0)
                .chain(
                    b.iter()
                        .enumerate()
                        .filter(|(_, c)| **c == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .filter(|&i| i < b.len())
                .take(40)
                .collect();
            let s = lines[rng.below(lines.len() as u64) as usize];
            let e = (s..b.len())
                .find(|&j| b[j] == b'\n')
                .map_or(b.len(), |j| j + 1);
            [&b[..e], &b[s..e], &b[e..]].concat()
        }
        6 => {
            // Copy a slice over another place.
            let mut v = b.to_vec();
            let n = 1 + rng.below(64) as usize;
            if v.len() > 2 * n {
                let (s, d) = (
                    rng.below((v.len() - n) as u64) as usize,
                    rng.below((v.len() - n) as u64) as usize,
                );
                let piece = v[s..s + n].to_vec();
                v[d..d + n].copy_from_slice(&piece);
            }
            v
        }
        7 if is_text => replace_token(b, rng, |t| !t.is_empty(), b""),
        _ => {
            // Set a random u32 to an extreme value.
            let mut v = b.to_vec();
            if v.len() >= 4 {
                let i = rng.below(v.len() as u64 - 3) as usize;
                let w = [u32::MAX, 0, 1 << 31, 255][rng.below(4) as usize];
                v[i..i + 4].copy_from_slice(&w.to_le_bytes());
            }
            v
        }
    }
}

/// What a case did: read (a mesh, with a saved hierarchy's), or refused with a typed error.
enum Outcome {
    Read(Option<Mesh>, Option<Box<meshcollide::KdopHierarchy>>),
    Rejected,
}

fn read(kind: Kind, bytes: &[u8]) -> Outcome {
    let path = Path::new(kind.file_name());
    match kind {
        Kind::Poses => {
            match PoseReader::new(path, bytes).and_then(|r| r.collect::<Result<Vec<_>, _>>()) {
                Ok(_) => Outcome::Read(None, None),
                Err(_) => Outcome::Rejected,
            }
        }
        Kind::Mch => match SavedHierarchy::from_bytes(path, bytes) {
            Ok(s) => {
                let (m, h) = s.into_parts();
                Outcome::Read(Some(m), Some(Box::new(h)))
            }
            Err(_) => Outcome::Rejected,
        },
        _ => match load_bytes(path, bytes) {
            Ok(m) => Outcome::Read(Some(m), None),
            Err(_) => Outcome::Rejected,
        },
    }
}

/// A query on what was read (a hierarchy of the file, or a fresh one).
fn query(m: &Mesh, h: Option<Box<meshcollide::KdopHierarchy>>) {
    let b = generate::tetrahedron([1.0, -0.5, 3.0], 0.8);
    let mut builder = Collider::builder(m, &b);
    if let Some(h) = h {
        builder = builder.bv(h.kind()).hierarchy_a(*h);
    }
    if let Ok(c) = builder.build() {
        let poses = [
            Pose::IDENTITY,
            Pose::from_axis_angle([0.0, 0.0, 1.0], 0.7, [0.2, 0.0, 0.0]),
        ];
        let _ = c.collide_batch(&poses);
    }
}

#[test]
fn damaged_files_are_read_or_refused_without_panic() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cases: u64 = common::env_number("MESHCOLLIDE_FUZZ_CASES").unwrap_or(5000);
    let seed: u64 = common::env_number("MESHCOLLIDE_FUZZ_SEED").unwrap_or(20261125);
    SEED.store(seed, Relaxed);
    let bases: Vec<Vec<u8>> = KINDS.iter().map(|&k| base(k)).collect();
    // Every base file reads (the mutations start from valid input).
    for (k, b) in KINDS.iter().zip(&bases) {
        let bytes = if matches!(k, Kind::ObjGz) {
            gzip(b)
        } else {
            b.clone()
        };
        assert!(
            matches!(read(*k, &bytes), Outcome::Read(..)),
            "{k:?} base file"
        );
    }
    // A watchdog: a case running for 30 s is a hang (`u64::MAX`: the cases are over).
    let started = Instant::now();
    let case_start = std::sync::Arc::new(AtomicU64::new(0));
    {
        let case_start = case_start.clone();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(500));
                let now = started.elapsed().as_millis() as u64;
                let since = case_start.load(Relaxed);
                if since == u64::MAX {
                    return;
                }
                if now.saturating_sub(since) > 30_000 {
                    eprintln!(
                        "fuzz: case {} hangs (MESHCOLLIDE_FUZZ_SEED={seed})",
                        CASE.load(Relaxed)
                    );
                    std::process::exit(3);
                }
            }
        });
    }
    let (mut failures, mut read_ok) = (Vec::new(), [0usize; 8]);
    for case in 0..cases {
        CASE.store(case, Relaxed);
        case_start.store(started.elapsed().as_millis() as u64, Relaxed);
        let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9).wrapping_add(case));
        let ki = (case % KINDS.len() as u64) as usize;
        let kind = KINDS[ki];
        let mut bytes = bases[ki].clone();
        let inner_first = rng.below(2) == 0;
        for _ in 0..1 + rng.below(3) {
            if !matches!(kind, Kind::ObjGz) || inner_first {
                bytes = mutate(kind, &bytes, &mut rng);
            }
        }
        if matches!(kind, Kind::ObjGz) {
            bytes = gzip(&bytes);
            if !inner_first {
                bytes = mutate(Kind::StlBinary, &bytes, &mut rng);
            }
        }
        let size = gunzip(&bytes)
            .filter(|_| matches!(kind, Kind::ObjGz))
            .map_or(0, |v| v.len())
            .max(bytes.len());
        let limit = 64 * size + (4 << 20);
        LARGEST.store(0, Relaxed);
        TRACK.store(true, Relaxed);
        let r = std::panic::catch_unwind(|| read(kind, &bytes));
        TRACK.store(false, Relaxed);
        let largest = LARGEST.load(Relaxed);
        let fail = |what: String| {
            let dump = std::env::temp_dir().join(format!(
                "meshcollide-fuzz-{seed}-{case}-{}",
                kind.file_name()
            ));
            let _ = std::fs::write(&dump, &bytes);
            format!(
                "case {case} ({kind:?}, MESHCOLLIDE_FUZZ_SEED={seed}, input {}): {what}",
                dump.display()
            )
        };
        match r {
            Err(_) => failures.push(fail("the reader panicked".into())),
            Ok(_) if largest > limit => failures.push(fail(format!(
                "an allocation of {largest} bytes for {size} bytes of input"
            ))),
            Ok(Outcome::Rejected) => {}
            Ok(Outcome::Read(m, h)) => {
                read_ok[ki] += 1;
                if let Some(m) = m
                    && std::panic::catch_unwind(|| query(&m, h)).is_err()
                {
                    failures.push(fail("the query on what was read panicked".into()));
                }
            }
        }
    }
    case_start.store(u64::MAX, Relaxed);
    eprintln!(
        "fuzz: {cases} cases, seed {seed}, {:.1} s; read fine per kind: {:?}",
        started.elapsed().as_secs_f64(),
        KINDS.iter().zip(read_ok).collect::<Vec<_>>()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The named damage of the issue, one case each, must be refused with a typed error (not
/// read) and within the allocation bound.
#[test]
fn targeted_damage_is_refused() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let m = mesh();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    let nv = m.positions.len().to_string();
    let ply = text(ply_ascii(&m));
    let plyb = ply_binary(&m);
    let split = plyb.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    let plyb_header = String::from_utf8_lossy(&plyb[..split]).into_owned();
    let mut stl = stl_binary(&m);
    stl[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    let mut mch = base(Kind::Mch);
    mch[32..40].copy_from_slice(&4_000_000_000u64.to_le_bytes());
    let obj_text = text(obj(&m));
    let poses = text(poses_csv());
    let cases: Vec<(&str, Kind, Vec<u8>)> = vec![
        (
            "PLY vertex count 4e9",
            Kind::PlyAscii,
            set_count(&ply, "vertex", b"4000000000").into_bytes(),
        ),
        (
            "PLY face count 4e9",
            Kind::PlyAscii,
            set_count(&ply, "face", b"4000000000").into_bytes(),
        ),
        (
            "binary PLY vertex count 4e9",
            Kind::PlyBinary,
            [
                set_count(&plyb_header, "vertex", b"4000000000").as_bytes(),
                &plyb[split..],
            ]
            .concat(),
        ),
        ("binary STL count 2^32-1", Kind::StlBinary, stl),
        (".mch vertex count 4e9", Kind::Mch, mch),
        (
            "OBJ index 4e9",
            Kind::Obj,
            format!("{obj_text}f 1 2 4000000000\n").into_bytes(),
        ),
        (
            "OBJ index -4e9",
            Kind::Obj,
            format!("{obj_text}f 1 2 -4000000000\n").into_bytes(),
        ),
        (
            "OBJ NaN",
            Kind::Obj,
            format!("v nan 0 0\n{obj_text}").into_bytes(),
        ),
        (
            "OBJ inf",
            Kind::Obj,
            format!("v 0 inf 0\n{obj_text}").into_bytes(),
        ),
        (
            "PLY index -1",
            Kind::PlyAscii,
            ply.replacen("\n3 0 ", "\n3 -1 ", 1).into_bytes(),
        ),
        (
            "PLY index beyond",
            Kind::PlyAscii,
            ply.replacen("\n3 0 ", &format!("\n3 {nv} "), 1)
                .into_bytes(),
        ),
        (
            "PLY duplicate format",
            Kind::PlyAscii,
            ply.replacen(
                "format ascii 1.0\n",
                "format ascii 1.0\nformat binary_big_endian 1.0\n",
                1,
            )
            .into_bytes(),
        ),
        (
            "PLY duplicate element",
            Kind::PlyAscii,
            ply.replacen(
                "element face",
                "element vertex 3\nproperty float x\nelement face",
                1,
            )
            .into_bytes(),
        ),
        (
            "STL ASCII NaN",
            Kind::StlAscii,
            text(stl_ascii(&m))
                .replacen("vertex ", "vertex nan ", 1)
                .into_bytes(),
        ),
        (
            "poses duplicate header",
            Kind::Poses,
            poses
                .replacen('\n', "\nqw,qx,qy,qz,tx,ty,tz\n", 1)
                .into_bytes(),
        ),
        (
            "poses NaN",
            Kind::Poses,
            format!("{poses}nan,0,0,0,0,0,0\n").into_bytes(),
        ),
    ];
    for (what, kind, bytes) in cases {
        LARGEST.store(0, Relaxed);
        TRACK.store(true, Relaxed);
        let r = std::panic::catch_unwind(|| read(kind, &bytes));
        TRACK.store(false, Relaxed);
        assert!(matches!(r, Ok(Outcome::Rejected)), "{what}: not refused");
        let largest = LARGEST.load(Relaxed);
        assert!(
            largest <= 64 * bytes.len() + (4 << 20),
            "{what}: allocated {largest} bytes"
        );
    }
}

/// Frame lists (`docs/FORMATS.md`, "Deforming meshes") damaged the same way: list lines
/// deleted, duplicated, turned into junk, absolute or parent paths, blank and comment
/// lines; frame files mutated like OBJ files, or with another vertex count or face. Reading
/// the list and loading every frame against the base mesh must give the frames or a typed
/// `FrameError`, never a panic; a frame that loads has the base's vertex count.
#[test]
fn damaged_frame_lists_are_read_or_refused_without_panic() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    use meshcollide::mesh::frames::FrameList;
    let cases: u64 =
        common::env_number("MESHCOLLIDE_FUZZ_CASES").map_or(300, |n: u64| (n / 10).max(30));
    let seed: u64 = common::env_number("MESHCOLLIDE_FUZZ_SEED").unwrap_or(20261125);
    let dir = std::env::temp_dir().join(format!("meshcollide-fuzz-frames-{}", std::process::id()));
    // The base as read from its OBJ (the writer adds polygons that the fan split turns
    // into more triangles than `mesh()` has).
    let base_obj = obj(&mesh());
    let base_mesh = load_bytes(Path::new("base.obj"), &base_obj).unwrap();
    let (mut loaded, mut refused) = (0, 0);
    for case in 0..cases {
        let d = dir.join(case.to_string());
        std::fs::create_dir_all(d.join("f")).unwrap();
        let mut rng = Rng::new(seed.wrapping_mul(0x51_7CC1).wrapping_add(case));
        std::fs::write(d.join("base.obj"), &base_obj).unwrap();
        let mut lines: Vec<String> = vec!["# frames".into()];
        for i in 0..4 {
            let name = format!("f/frame-{i}.obj");
            let moved = mesh().map_positions(|p| [p[0] + 0.01 * i as f64, p[1], p[2]]);
            let mut bytes = obj(&moved);
            if rng.below(3) == 0 {
                bytes = mutate(Kind::Obj, &bytes, &mut rng);
            }
            std::fs::write(d.join(&name), bytes).unwrap();
            lines.push(name);
        }
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(lines.len() as u64) as usize;
            match rng.below(7) {
                0 => {
                    lines.remove(i);
                }
                1 => lines.insert(i, lines[i].clone()),
                2 => lines[i] = "f/nope.obj".into(),
                3 => lines[i] = "/".into(),
                4 => lines[i] = format!("../{}/f/frame-0.obj", case),
                5 => lines.insert(i, "   ".into()),
                _ => {
                    lines[i] =
                        String::from_utf8_lossy(&mutate(Kind::Obj, lines[i].as_bytes(), &mut rng))
                            .into_owned()
                }
            }
        }
        std::fs::write(d.join("frames.txt"), lines.join("\n")).unwrap();
        let r = std::panic::catch_unwind(|| match FrameList::read(&d.join("frames.txt")) {
            Err(_) => Err(()),
            Ok(list) => {
                let mut ok = Ok(());
                for i in 0..list.len() {
                    match list.load(i, &base_mesh, &d.join("base.obj")) {
                        Ok(p) => assert_eq!(p.len(), base_mesh.positions.len()),
                        Err(e) => {
                            assert!(!e.to_string().is_empty());
                            ok = Err(());
                        }
                    }
                }
                ok
            }
        });
        match r {
            Ok(Ok(())) => loaded += 1,
            Ok(Err(())) => refused += 1,
            Err(_) => panic!("frame-list case {case} panicked (MESHCOLLIDE_FUZZ_SEED={seed})"),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        loaded > 0 && refused > 0,
        "{loaded} loaded, {refused} refused"
    );
}

/// Where the parts of a `.mch` file lie (`src/saved/format.rs`), from its header; `None`
/// when the counts do not describe a file of this length (a mutation changed them).
struct MchLayout {
    h: usize,
    mesh_end: usize,
    nodes_at: usize,
    offsets_at: usize,
    points_at: usize,
    n_nodes: usize,
    n_pos: usize,
}

impl MchLayout {
    fn of(b: &[u8]) -> Option<MchLayout> {
        if b.len() < 72 {
            return None;
        }
        let count = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        let k = u32::from_le_bytes(b[12..16].try_into().unwrap()) as u64;
        let (n_pos, n_tri, n_nodes) = (count(32), count(40), count(48));
        let at = |parts: &[(u64, u64)]| {
            parts.iter().try_fold(72u64, |acc, &(n, size)| {
                acc.checked_add(n.checked_mul(size)?)
            })
        };
        let mesh_end = at(&[(n_pos, 24), (n_tri, 12)])?;
        let nodes_at = mesh_end.checked_add(n_tri.checked_mul(4)?)?;
        let offsets_at = nodes_at.checked_add(n_nodes.checked_mul(4 * (k + 2))?)?;
        let points_at = offsets_at.checked_add(n_nodes.checked_add(1)?.checked_mul(4)?)?;
        let end = points_at.checked_add(count(56).checked_mul(12)?)?;
        (end == b.len() as u64 && matches!(k, 6 | 14 | 18 | 26) && n_nodes > 0).then_some(
            MchLayout {
                h: k as usize / 2,
                mesh_end: mesh_end as usize,
                nodes_at: nodes_at as usize,
                offsets_at: offsets_at as usize,
                points_at: points_at as usize,
                n_nodes: n_nodes as usize,
                n_pos: n_pos as usize,
            },
        )
    }
}

/// Both checksums of a `.mch` recomputed (the mesh's over the mesh bytes the header
/// describes, clamped to the file, then the whole file's), as whoever crafts one does.
fn fix_mch_crcs(b: &mut [u8]) {
    if b.len() < 72 {
        return;
    }
    let crc = |parts: &[&[u8]]| {
        let mut c = flate2::Crc::new();
        for p in parts {
            c.update(p);
        }
        c.sum()
    };
    let count = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let mesh_end = (72u64)
        .saturating_add(count(32).saturating_mul(24))
        .saturating_add(count(40).saturating_mul(12))
        .min(b.len() as u64) as usize;
    let mesh = crc(&[&b[72..mesh_end]]);
    b[64..68].copy_from_slice(&mesh.to_le_bytes());
    let all = crc(&[&b[..68], &b[72..]]);
    b[68..72].copy_from_slice(&all.to_le_bytes());
}

/// One edit a crafter could make to a `.mch` (before the checksums are recomputed): small
/// shifts of indices, counts and offsets (the tester's offset − 3 among them), f32 bounds
/// and points moved by a few ulps or scaled, points and nodes copied over others, words
/// swapped, extreme values, header fields, a vertex moved.
fn craft(b: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = b.to_vec();
    let Some(l) = MchLayout::of(b) else {
        return mutate(Kind::Mch, b, rng);
    };
    let pick = |rng: &mut Rng, from: usize, to: usize| -> usize {
        // A word-aligned position in [from, to) (4 bytes from `from`).
        from + 4 * rng.below(((to - from) / 4).max(1) as u64) as usize
    };
    let get = |v: &[u8], at: usize| u32::from_le_bytes(v[at..at + 4].try_into().unwrap());
    let set = |v: &mut [u8], at: usize, w: u32| v[at..at + 4].copy_from_slice(&w.to_le_bytes());
    let node_bytes = 8 * l.h + 8;
    match rng.below(10) {
        0 => {
            // An index, a count, an offset, the leaf order: shifted a little.
            let at = pick(rng, l.mesh_end, l.points_at);
            let d = [-3i64, -2, -1, 1, 2, 3][rng.below(6) as usize];
            let w = (get(&v, at) as i64 + d) as u32;
            set(&mut v, at, w);
        }
        1 => {
            // The tester's edit: one node's bounding-point offset moved down (or up) by 3.
            let i = rng.below(l.n_nodes as u64 + 1) as usize;
            let at = l.offsets_at + 4 * i;
            let d: i64 = if rng.below(4) == 0 { 3 } else { -3 };
            let w = (get(&v, at) as i64 + d) as u32;
            set(&mut v, at, w);
        }
        2 => {
            // A slab bound or a point coordinate moved by a few ulps, either way.
            let at = pick(rng, l.nodes_at, v.len());
            let in_node = at < l.offsets_at && (at - l.nodes_at) % node_bytes < 8 * l.h;
            if in_node || at >= l.points_at {
                let f = f32::from_bits(get(&v, at));
                let mut g = f;
                for _ in 0..1 + rng.below(3) {
                    g = if rng.below(2) == 0 {
                        g.next_up()
                    } else {
                        g.next_down()
                    };
                }
                set(&mut v, at, g.to_bits());
            }
        }
        3 => {
            // A float scaled, zeroed, negated, made huge or non-finite.
            let at = pick(rng, l.nodes_at, v.len());
            let f = f32::from_bits(get(&v, at));
            let g = [
                f * 0.999,
                f * 1.001,
                0.0,
                -f,
                f32::NAN,
                f32::INFINITY,
                -0.0,
                f32::MAX,
                -f32::MAX,
                f * 1e30,
            ][rng.below(10) as usize];
            set(&mut v, at, g.to_bits());
        }
        4 => {
            // A point copied over another (of the same node or not).
            let n = (v.len() - l.points_at) / 12;
            if n >= 2 {
                let (s, d) = (rng.below(n as u64) as usize, rng.below(n as u64) as usize);
                let piece = v[l.points_at + 12 * s..l.points_at + 12 * s + 12].to_vec();
                v[l.points_at + 12 * d..l.points_at + 12 * d + 12].copy_from_slice(&piece);
            }
        }
        5 => {
            // A node copied over another.
            let (s, d) = (
                rng.below(l.n_nodes as u64) as usize,
                rng.below(l.n_nodes as u64) as usize,
            );
            let piece = v[l.nodes_at + node_bytes * s..][..node_bytes].to_vec();
            v[l.nodes_at + node_bytes * d..][..node_bytes].copy_from_slice(&piece);
        }
        6 => {
            // Two words of the same part swapped.
            let parts = [
                (l.mesh_end, l.nodes_at),
                (l.nodes_at, l.offsets_at),
                (l.offsets_at, l.points_at),
                (l.points_at, v.len()),
            ];
            let (from, to) = parts[rng.below(4) as usize];
            if to > from + 8 {
                let (a, c) = (pick(rng, from, to), pick(rng, from, to));
                let (x, y) = (get(&v, a), get(&v, c));
                set(&mut v, a, y);
                set(&mut v, c, x);
            }
        }
        7 => {
            // A header field: split rule, split point, leaf size, depth, k.
            let at = [16, 20, 24, 28, 28, 12][rng.below(6) as usize];
            let w = get(&v, at) as i64 + [-1i64, 1, 2][rng.below(3) as usize];
            set(&mut v, at, w as u32);
        }
        8 => {
            // A vertex coordinate moved a little or far.
            let at = 72 + 8 * rng.below(3 * l.n_pos as u64) as usize;
            let x = f64::from_le_bytes(v[at..at + 8].try_into().unwrap());
            let y = [x + 1e-9, x - 1e-9, x * 0.99, x + 0.5, 1e300][rng.below(5) as usize];
            v[at..at + 8].copy_from_slice(&y.to_le_bytes());
        }
        _ => return mutate(Kind::Mch, b, rng),
    }
    v
}

/// Whatever was read from a crafted `.mch`: its pairs, with the hierarchy as A and as B
/// (B's tumbled by its bounding points), must equal brute force on the mesh read. `Err`
/// says what differs.
fn exact_on(
    m: &Mesh,
    h: &meshcollide::KdopHierarchy,
    other: &Mesh,
    poses: &[Pose],
) -> Result<(), String> {
    let as_a = Collider::builder(m, other)
        .bv(h.kind())
        .hierarchy_a(h.clone())
        .build()
        .map_err(|e| format!("the collider refused it as A: {e}"))?;
    let as_b = Collider::builder(other, m)
        .bv(h.kind())
        .hierarchy_b(h.clone())
        .build()
        .map_err(|e| format!("the collider refused it as B: {e}"))?;
    for (i, p) in poses.iter().enumerate() {
        if as_a.collide(p).pairs != meshcollide::brute_force(m, other, p) {
            return Err(format!("wrong pairs as A at pose {i}"));
        }
        if as_b.collide(p).pairs != meshcollide::brute_force(other, m, p) {
            return Err(format!("wrong pairs as B at pose {i}"));
        }
    }
    Ok(())
}

/// Crafted saved hierarchies (issue 36): valid `.mch` files of each k edited as a crafter
/// would (`craft`, one to three edits) and both checksums recomputed. Each must be refused
/// with a typed error, or read into a hierarchy whose pairs equal brute force as A and as
/// B: never wrong pairs, never a panic, never an allocation out of proportion.
/// `MESHCOLLIDE_FUZZ_CASES` cases (default 5,000, about 2 s in release).
#[test]
fn crafted_saved_hierarchies_are_refused_or_exact() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cases: u64 = common::env_number("MESHCOLLIDE_FUZZ_CASES").unwrap_or(5000);
    let seed: u64 = common::env_number("MESHCOLLIDE_FUZZ_SEED").unwrap_or(20261125);
    let m = mesh();
    let other = generate::uv_sphere([1.25, 0.5, 3.0], 0.6, 6, 12);
    // Small moves about the origin (the meshes lie 3 away from it), so both sides touch.
    let poses = [
        Pose::IDENTITY,
        Pose::from_axis_angle([0.0, 0.0, 1.0], 0.06, [0.1, -0.05, 0.0]),
        Pose::from_axis_angle([1.0, 0.0, 0.0], -0.04, [0.0, 0.0, 0.1]),
    ];
    assert!(
        poses
            .iter()
            .all(|p| !meshcollide::brute_force(&m, &other, p).is_empty()),
        "every pose has contacts"
    );
    let bases: Vec<Vec<u8>> = BvKind::ALL
        .iter()
        .map(|&bv| {
            SavedHierarchy::build(m.clone(), bv, &BuildOptions::default())
                .unwrap()
                .to_bytes()
        })
        .collect();
    let started = Instant::now();
    let (mut refused, mut read_same, mut read_changed, mut failures) = (0, 0, 0, Vec::new());
    for case in 0..cases {
        let mut rng = Rng::new(seed.wrapping_mul(0x2545_F491).wrapping_add(case));
        let base = &bases[(case % bases.len() as u64) as usize];
        let mut bytes = base.clone();
        for _ in 0..1 + rng.below(3) {
            bytes = craft(&bytes, &mut rng);
        }
        fix_mch_crcs(&mut bytes);
        let fail = |what: String| {
            let dump =
                std::env::temp_dir().join(format!("meshcollide-fuzz-crafted-{seed}-{case}.mch"));
            let _ = std::fs::write(&dump, &bytes);
            format!(
                "case {case} (MESHCOLLIDE_FUZZ_SEED={seed}, input {}): {what}",
                dump.display()
            )
        };
        LARGEST.store(0, Relaxed);
        TRACK.store(true, Relaxed);
        let r = std::panic::catch_unwind(|| SavedHierarchy::from_bytes(Path::new("c.mch"), &bytes));
        TRACK.store(false, Relaxed);
        let largest = LARGEST.load(Relaxed);
        match r {
            Err(_) => failures.push(fail("the reader panicked".into())),
            Ok(_) if largest > 64 * bytes.len() + (4 << 20) => {
                failures.push(fail(format!("an allocation of {largest} bytes")))
            }
            Ok(Err(e)) => {
                assert!(!e.to_string().is_empty());
                refused += 1;
            }
            Ok(Ok(s)) => {
                if s.to_bytes() == *base {
                    read_same += 1;
                } else {
                    read_changed += 1;
                }
                let (lm, h) = s.into_parts();
                match std::panic::catch_unwind(|| exact_on(&lm, &h, &other, &poses)) {
                    Err(_) => failures.push(fail("the query panicked".into())),
                    Ok(Err(what)) => failures.push(fail(what)),
                    Ok(Ok(())) => {}
                }
            }
        }
    }
    eprintln!(
        "fuzz (crafted .mch): {cases} cases, seed {seed}, {:.1} s; refused {refused}, read unchanged {read_same}, read changed {read_changed}",
        started.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        refused > 0 && read_changed > 0,
        "the edits both break and survive"
    );
}

/// `SavedHierarchy::read_from` on a pipe whose header claims far more than it sends: a
/// typed error (a length error, or `TooLarge` above the input limit) with no allocation
/// beyond a small multiple of what arrived, whatever the header claims.
#[test]
fn saved_streams_are_read_within_what_arrives() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let good = base(Kind::Mch);
    let with_points = |n: u64| {
        let mut b = good.clone();
        b[56..64].copy_from_slice(&n.to_le_bytes());
        fix_mch_crcs(&mut b);
        b
    };
    let sent = 4096;
    for (label, bytes) in [
        ("1 GiB of points", with_points((1 << 30) / 12)),
        ("2^60 bytes of points", with_points((1 << 60) / 12)),
        ("u64::MAX points", with_points(u64::MAX)),
    ] {
        let (mut rx, mut tx) = std::io::pipe().unwrap();
        let head = bytes[..sent].to_vec();
        let writer = std::thread::spawn(move || tx.write_all(&head));
        LARGEST.store(0, Relaxed);
        TRACK.store(true, Relaxed);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            SavedHierarchy::read_from(Path::new("p.mch"), &mut rx)
        }));
        TRACK.store(false, Relaxed);
        writer.join().unwrap().unwrap();
        let largest = LARGEST.load(Relaxed);
        match r {
            Ok(Err(meshcollide::SavedError::Length { len, what, .. })) => {
                assert_eq!((len, what), (sent as u64, "truncated"), "{label}")
            }
            Ok(Err(meshcollide::SavedError::TooLarge { .. })) => {}
            other => panic!("{label}: {:?}", other.map(|r| r.map(|_| ()))),
        }
        assert!(
            largest <= 4 * sent,
            "{label}: allocated {largest} bytes for {sent} sent"
        );
    }
}

/// Mesh inputs streamed from a reader of unknown length (a pipe) or a device allocate no more
/// than the loader's line buffer (1 MiB) and twice the mesh they hold, whatever their headers
/// declare: the memory bound of `mesh::load`, here by the largest single allocation
/// (`tests/bounded_memory.rs` measures the command line's peak memory).
#[test]
fn streamed_mesh_inputs_allocate_within_the_line_buffer() {
    use meshcollide::mesh::load::{load, load_reader};
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let m = mesh();
    let mut stl = stl_binary(&m);
    stl[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    let plyb = ply_binary(&m);
    let split = plyb.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    let header = String::from_utf8_lossy(&plyb[..split]).into_owned();
    let faces = header.replace(
        &format!("element face {}", m.triangle_count()),
        "element face 1099511627776",
    );
    let mut long_list = plyb[..split + 12 * m.positions.len()].to_vec();
    long_list.extend_from_slice(&[0xff; 4]); // a uchar count of 255, then 3 bytes
    let long_list = String::from_utf8_lossy(&long_list)
        .replace("list uchar int", "list uint int")
        .into_bytes();
    let points: Vec<u8> = b"v 0 0 0\n".repeat(100_000);
    let one_mib = 1usize << 20;
    let cases: Vec<(&str, &str, Vec<u8>, usize)> = vec![
        ("binary STL count 2^32-1", "b.stl", stl.clone(), 0),
        ("gzipped binary STL count 2^32-1", "b.stl.gz", gzip(&stl), 0),
        (
            "binary PLY face count 2^40",
            "b.ply",
            [faces.as_bytes(), &plyb[split..]].concat(),
            0,
        ),
        ("binary PLY face list of 2^32-1", "b.ply", long_list, 0),
        (
            "100,000 OBJ vertices",
            "m.obj",
            points.clone(),
            24 * 100_000,
        ),
        (
            "gzipped OBJ vertices",
            "m.obj.gz",
            gzip(&points),
            24 * 100_000,
        ),
    ];
    for (what, name, bytes, mesh_bytes) in cases {
        LARGEST.store(0, Relaxed);
        TRACK.store(true, Relaxed);
        let r = std::panic::catch_unwind(|| load_reader(Path::new(name), &bytes[..]));
        TRACK.store(false, Relaxed);
        assert!(matches!(r, Ok(Err(_))), "{what}: not refused");
        let largest = LARGEST.load(Relaxed);
        assert!(
            largest <= one_mib + 64 + 2 * mesh_bytes,
            "{what}: allocated {largest} bytes"
        );
    }
    for (name, device) in [
        ("zero.obj", "/dev/zero"),
        ("zero.stl", "/dev/zero"),
        ("zero.ply", "/dev/zero"),
        ("random.obj", "/dev/urandom"),
    ] {
        let Ok(file) = std::fs::File::open(device) else {
            eprintln!("SKIP: no {device}");
            continue;
        };
        LARGEST.store(0, Relaxed);
        TRACK.store(true, Relaxed);
        let r = std::panic::catch_unwind(|| load_reader(Path::new(name), file));
        TRACK.store(false, Relaxed);
        assert!(matches!(r, Ok(Err(_))), "{name}: not refused");
        let largest = LARGEST.load(Relaxed);
        assert!(largest <= one_mib + 64, "{name}: allocated {largest} bytes");
    }
    // And through `load`, which opens the file itself.
    let dir = std::env::temp_dir().join(format!("meshcollide-fuzz-dev-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("zero.obj");
    if std::os::unix::fs::symlink("/dev/zero", &link).is_ok() {
        LARGEST.store(0, Relaxed);
        TRACK.store(true, Relaxed);
        let r = load(&link);
        TRACK.store(false, Relaxed);
        assert!(r.is_err());
        assert!(LARGEST.load(Relaxed) <= one_mib + 64);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
