//! The memory bound of mesh loading, measured on the release binary (issue 36, item 5):
//! peak resident memory at most `FACTOR` × the mesh's bytes (24 per vertex, 12 per
//! triangle) plus `CONSTANT`, on every kind of input: large text and binary meshes, from a
//! file and from a FIFO, a gzip bomb, `/dev/zero` and `/dev/urandom` as meshes, a line of
//! 64 MiB, a header declaring 2^40 faces. `mesh::load`'s documentation states the bound.
//!
//! Which command: none only loads a mesh, so each run is `meshcollide query MESH tiny.obj
//! --poses missing.csv`, which loads both meshes before it reads the poses
//! (`src/cli/query.rs`) and then fails on the missing file: the process does nothing but
//! start, load and report. Were that order to change, the runs on good meshes would load
//! less, not more; so the large binary meshes also run with a broken last record, whose
//! error proves that the whole file was read. The binary prints its peak (`VmHWM`) with
//! `MESHCOLLIDE_PEAK_RSS=1`; while it runs, a watchdog reads its resident memory every
//! few milliseconds and kills it past the bound, so that the unbounded loader these tests
//! replace fails them instead of filling the machine.
//!
//! Each case fails on that loader, which held the whole file (or the whole unzipped
//! stream) and then the mesh: a text file is larger than its mesh (the OBJ here 2.2 times),
//! and a device never ends. Only the binary meshes, smaller than their mesh, pass either
//! way: they check the bound, not the change. `MESHCOLLIDE_TEST_BIN=PATH` runs the cases on
//! another build of the binary (an older one, to see them fail).

mod common;

use meshcollide::Mesh;
use meshcollide::mesh::generate;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The stated factor (`mesh::load`'s documentation, README's Errors paragraph).
const FACTOR: u64 = 2;
/// The stated factor where an OBJ's faces name vertices defined after them.
const FORWARD_FACTOR: u64 = 3;
/// The stated constant: the process's own memory (about 8 MiB: the binary's pages, the
/// thread pool) and the loader's buffers (at most 5 MiB).
const CONSTANT: u64 = 16 << 20;
/// A run past this is a hang.
const TIMEOUT: Duration = Duration::from_secs(60);

/// A scratch directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "meshcollide-mem-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The tiny mesh B of every run.
    fn tiny(&self) -> PathBuf {
        let p = self.path("tiny.obj");
        std::fs::write(&p, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n").unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What a run of the binary gave.
struct Run {
    stderr: String,
    /// `peak_rss_bytes` as printed.
    peak: u64,
    code: Option<i32>,
}

/// Resident memory of process `pid` (`VmRSS`), 0 once it is gone.
fn resident(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}

/// Whether this system reports memory the way the tests read it (Linux `/proc`).
fn measurable() -> bool {
    let ok = Path::new("/proc/self/status").exists();
    if !ok {
        eprintln!("SKIP: no /proc/self/status to read peak memory from");
    }
    ok
}

/// Runs `meshcollide query MESH tiny.obj --poses missing.csv` with `env`, killing it if its
/// resident memory passes `bound` or it runs past [`TIMEOUT`] (either fails the test).
fn query(dir: &TempDir, mesh: &Path, env: &[(&str, &str)], bound: u64) -> Run {
    let mut child = common::bin()
        .arg("query")
        .arg(mesh)
        .arg(dir.tiny())
        .arg("--poses")
        .arg(dir.path("missing.csv"))
        .arg("--out")
        .arg(dir.path("pairs.csv"))
        .arg("--backend")
        .arg("cpu")
        .env("MESHCOLLIDE_PEAK_RSS", "1")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        let rss = resident(child.id());
        let killed = if rss > bound {
            Some(format!(
                "resident memory {rss} bytes, over the bound of {bound}"
            ))
        } else if start.elapsed() > TIMEOUT {
            Some(format!("still running after {TIMEOUT:?}"))
        } else {
            None
        };
        if let Some(why) = killed {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{}: killed: {why}", mesh.display());
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stderr = reader.join().unwrap();
    let peak = stderr
        .lines()
        .find_map(|l| l.strip_prefix("peak_rss_bytes "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak_rss_bytes in: {stderr}"));
    eprintln!(
        "{} ({} bytes): peak {:.1} MB (bound {:.1} MB) in {:.2?}",
        mesh.display(),
        std::fs::metadata(mesh).map_or(0, |m| m.len()),
        peak as f64 / 1e6,
        bound as f64 / 1e6,
        start.elapsed()
    );
    Run {
        stderr,
        peak,
        code: status.code(),
    }
}

/// Loads `mesh` (whose vertices and triangles take `mesh_bytes`) and checks the bound
/// `factor × mesh_bytes + CONSTANT` and that the error is `expect`.
#[track_caller]
fn check(
    dir: &TempDir,
    mesh: &Path,
    env: &[(&str, &str)],
    factor: u64,
    mesh_bytes: u64,
    expect: &str,
) -> Run {
    let bound = factor * mesh_bytes + CONSTANT;
    let run = query(dir, mesh, env, bound);
    assert!(
        run.peak <= bound,
        "{}: peak {} bytes, over {factor} × {mesh_bytes} + {CONSTANT}",
        mesh.display(),
        run.peak
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(expect),
        "{}: expected `{expect}` in: {}",
        mesh.display(),
        run.stderr
    );
    run
}

/// The error of a mesh that loaded: the poses, read after it.
const LOADED: &str = "missing.csv: cannot read";

fn mesh_bytes(m: &Mesh) -> u64 {
    24 * m.positions.len() as u64 + 12 * m.triangles.len() as u64
}

/// The test mesh: a torus of 800,000 triangles and 400,000 vertices (19.2 MB as a mesh).
fn torus() -> Mesh {
    generate::torus([0.25, -0.5, 1.0], 1.0, 0.3, 1000, 400)
}

fn create(path: &Path) -> BufWriter<std::fs::File> {
    BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap())
}

/// `m` as OBJ, as `meshcollide generate` writes it (shortest round-trip decimals); faces
/// first (naming vertices defined after them) with `faces_first`.
fn write_obj(w: &mut impl Write, m: &Mesh, faces_first: bool) {
    let faces = |w: &mut dyn Write| {
        for t in &m.triangles {
            writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1).unwrap();
        }
    };
    if faces_first {
        faces(w);
    }
    for p in &m.positions {
        writeln!(w, "v {} {} {}", p[0], p[1], p[2]).unwrap();
    }
    if !faces_first {
        faces(w);
    }
}

/// `m` as binary little-endian PLY (`float` x y z, `uchar int` lists); `face_count` as
/// declared.
fn write_ply(w: &mut impl Write, m: &Mesh, face_count: u64) {
    write!(
        w,
        "ply\nformat binary_little_endian 1.0\nelement vertex {}\nproperty float x\n\
         property float y\nproperty float z\nelement face {face_count}\n\
         property list uchar int vertex_indices\nend_header\n",
        m.positions.len()
    )
    .unwrap();
    for p in &m.positions {
        for c in p {
            w.write_all(&(*c as f32).to_le_bytes()).unwrap();
        }
    }
    for t in &m.triangles {
        w.write_all(&[3]).unwrap();
        for v in t {
            w.write_all(&(*v as i32).to_le_bytes()).unwrap();
        }
    }
}

/// `m` as ASCII PLY.
fn write_ascii_ply(w: &mut impl Write, m: &Mesh) {
    write!(
        w,
        "ply\nformat ascii 1.0\nelement vertex {}\nproperty double x\nproperty double y\n\
         property double z\nelement face {}\nproperty list uchar int vertex_indices\n\
         end_header\n",
        m.positions.len(),
        m.triangles.len()
    )
    .unwrap();
    for p in &m.positions {
        writeln!(w, "{} {} {}", p[0], p[1], p[2]).unwrap();
    }
    for t in &m.triangles {
        writeln!(w, "3 {} {} {}", t[0], t[1], t[2]).unwrap();
    }
}

/// `m` as binary STL.
fn write_stl(w: &mut impl Write, m: &Mesh) {
    w.write_all(&[b' '; 80]).unwrap();
    w.write_all(&(m.triangles.len() as u32).to_le_bytes())
        .unwrap();
    for i in 0..m.triangles.len() {
        w.write_all(&[0; 12]).unwrap();
        for p in m.triangle(i) {
            for c in p {
                w.write_all(&(c as f32).to_le_bytes()).unwrap();
            }
        }
        w.write_all(&[0; 2]).unwrap();
    }
}

/// `m` as ASCII STL.
fn write_ascii_stl(w: &mut impl Write, m: &Mesh) {
    writeln!(w, "solid t").unwrap();
    for i in 0..m.triangles.len() {
        writeln!(w, "facet normal 0 0 1\nouter loop").unwrap();
        for p in m.triangle(i) {
            writeln!(w, "vertex {} {} {}", p[0], p[1], p[2]).unwrap();
        }
        writeln!(w, "endloop\nendfacet").unwrap();
    }
    writeln!(w, "endsolid t").unwrap();
}

fn gz(w: impl Write) -> flate2::write::GzEncoder<impl Write> {
    flate2::write::GzEncoder::new(w, flate2::Compression::fast())
}

// ---------------------------------------------------------------------------------------------
// Meshes that load

/// An OBJ of 800,000 triangles (42 MB of text for a 19.2 MB mesh), from a file, gzipped and
/// from a FIFO: at most twice the mesh (26 MB measured, the process's 7 MB included). The
/// loader it replaces held the text too (68 MB).
#[test]
fn a_large_obj_loads_within_twice_its_mesh() {
    if !measurable() {
        return;
    }
    let d = TempDir::new("obj");
    let m = torus();
    let bytes = mesh_bytes(&m);
    let obj = d.path("torus.obj");
    write_obj(&mut create(&obj), &m, false);
    check(&d, &obj, &[], FACTOR, bytes, LOADED);
    let objgz = d.path("torus.obj.gz");
    let mut w = gz(create(&objgz));
    write_obj(&mut w, &m, false);
    w.finish().unwrap().flush().unwrap();
    check(&d, &objgz, &[], FACTOR, bytes, LOADED);
    // A FIFO: opened once, streamed.
    let pipe = d.path("pipe.obj");
    let made = Command::new("mkfifo")
        .arg(&pipe)
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let (from, to) = (obj.clone(), pipe.clone());
        let writer = std::thread::spawn(move || {
            let mut out = std::fs::OpenOptions::new().write(true).open(to).unwrap();
            let _ = std::io::copy(&mut std::fs::File::open(from).unwrap(), &mut out);
        });
        check(&d, &pipe, &[], FACTOR, bytes, LOADED);
        writer.join().unwrap();
    } else {
        eprintln!("SKIP: no mkfifo");
    }
}

/// An OBJ whose faces all come before their vertices keeps a table of forward references
/// (12 bytes each): at most three times the mesh.
#[test]
fn an_obj_with_faces_before_vertices_loads_within_three_times_its_mesh() {
    if !measurable() {
        return;
    }
    let d = TempDir::new("forward");
    let m = torus();
    let obj = d.path("forward.obj");
    write_obj(&mut create(&obj), &m, true);
    check(&d, &obj, &[], FORWARD_FACTOR, mesh_bytes(&m), LOADED);
}

/// ASCII PLY and ASCII STL (text, larger than their mesh) and binary PLY and STL (smaller
/// than their mesh: these pass with either loader, and check the bound), each also with a
/// broken last record, whose error shows the whole file was read.
#[test]
fn ply_and_stl_load_within_twice_their_mesh() {
    if !measurable() {
        return;
    }
    let d = TempDir::new("ply-stl");
    let m = torus();
    let bytes = mesh_bytes(&m);
    let p = d.path("torus.ply");
    write_ply(&mut create(&p), &m, m.triangles.len() as u64);
    check(&d, &p, &[], FACTOR, bytes, LOADED);
    let p = d.path("ascii.ply");
    write_ascii_ply(&mut create(&p), &m);
    check(&d, &p, &[], FACTOR, bytes, LOADED);
    // The last face names a vertex beyond the last.
    let mut bad = m.clone();
    bad.triangles.last_mut().unwrap()[2] = m.positions.len() as u32;
    let p = d.path("bad.ply");
    write_ply(&mut create(&p), &bad, m.triangles.len() as u64);
    let last_face = format!("face {}: face names vertex", m.triangles.len() - 1);
    check(&d, &p, &[], FACTOR, bytes, &last_face);

    // STL keeps three vertices per facet: 84 bytes a triangle.
    let stl_bytes = 84 * m.triangles.len() as u64;
    let p = d.path("torus.stl");
    write_stl(&mut create(&p), &m);
    check(&d, &p, &[], FACTOR, stl_bytes, LOADED);
    // The last coordinate of the last facet NaN.
    let p = d.path("bad.stl");
    let mut w = create(&p);
    write_stl(&mut w, &m);
    drop(w);
    let mut file = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::End(-6)).unwrap();
    file.write_all(&f32::NAN.to_le_bytes()).unwrap();
    drop(file);
    let last_facet = format!("face {}: vertex coordinate is NaN", m.triangles.len() - 1);
    check(&d, &p, &[], FACTOR, stl_bytes, &last_facet);
    let small = generate::torus([0.0; 3], 1.0, 0.3, 250, 200);
    let p = d.path("ascii.stl");
    write_ascii_stl(&mut create(&p), &small);
    check(
        &d,
        &p,
        &[],
        FACTOR,
        84 * small.triangles.len() as u64,
        LOADED,
    );
}

// ---------------------------------------------------------------------------------------------
// Inputs that must be refused, in bounded memory

/// 60 MiB of `v 0 0 0` lines in a 0.2 MB gzip stream, with a 64 MiB memory limit: the
/// vertices outgrow the limit after 22 MB of text (`MeshTooLarge`), at most twice the
/// limit. The loader it replaces unzipped all 60 MiB (under the limit) and then parsed
/// 190 MB of vertices.
#[test]
fn a_gzip_bomb_of_vertices_stops_at_the_memory_limit() {
    if !measurable() {
        return;
    }
    let d = TempDir::new("bomb");
    let limit: u64 = 64 << 20;
    let p = d.path("bomb.obj.gz");
    let mut w = flate2::write::GzEncoder::new(create(&p), flate2::Compression::best());
    let block = b"v 0 0 0\n".repeat(1 << 13);
    for _ in 0..(60 << 20) / block.len() {
        w.write_all(&block).unwrap();
    }
    w.finish().unwrap().flush().unwrap();
    assert!(std::fs::metadata(&p).unwrap().len() < 1 << 20);
    let limit_env = limit.to_string();
    check(
        &d,
        &p,
        &[("MESHCOLLIDE_MAX_INPUT_BYTES", &limit_env)],
        FACTOR,
        limit,
        "the mesh outgrows the memory limit of 67108864 bytes",
    );
}

/// `/dev/zero` and `/dev/urandom` as meshes fail fast, in the memory of an empty mesh:
/// a line too long (OBJ), a binary STL with bytes after its 0 facets, not a PLY file, a
/// parse error. The loader it replaces read the device until memory ran out.
#[test]
fn devices_as_meshes_fail_fast() {
    if !measurable() || !Path::new("/dev/zero").exists() || !Path::new("/dev/urandom").exists() {
        return;
    }
    let d = TempDir::new("devices");
    for (name, device, expect) in [
        (
            "zero.obj",
            "/dev/zero",
            "zero.obj: line 1: line longer than 1048576 bytes",
        ),
        (
            "zero.stl",
            "/dev/zero",
            "zero.stl: face 0: binary STL has more than 65536 bytes after its 0 declared facets",
        ),
        ("zero.ply", "/dev/zero", "zero.ply: line 1: not a PLY file"),
        ("random.obj", "/dev/urandom", "random.obj: line "),
        (
            "random.ply",
            "/dev/urandom",
            "random.ply: line 1: not a PLY file",
        ),
    ] {
        let p = d.path(name);
        std::os::unix::fs::symlink(device, &p).unwrap();
        let start = Instant::now();
        check(&d, &p, &[], FACTOR, 0, expect);
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{name}: {:?}",
            start.elapsed()
        );
    }
}

/// A 64 MiB line (after a valid triangle) is refused after reading a megabyte of it, with a
/// message that quotes only its start, escaped. The loader it replaces held the file, and
/// echoed the line's control bytes.
#[test]
fn a_long_line_is_refused_after_a_megabyte() {
    if !measurable() {
        return;
    }
    let d = TempDir::new("line");
    let p = d.path("long.obj");
    let mut w = create(&p);
    w.write_all(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\x1b]0;pwned\x07")
        .unwrap();
    let chunk = vec![b'7'; 1 << 20];
    for _ in 0..64 {
        w.write_all(&chunk).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    let run = check(
        &d,
        &p,
        &[],
        FACTOR,
        0,
        "long.obj: line 5: line longer than 1048576 bytes (it starts `\\u{1b}]0;pwned\\u{7}7777",
    );
    assert!(run.stderr.len() < 1024, "{}", run.stderr);
    assert!(!run.stderr.contains('\x1b') && !run.stderr.contains('\x07'));
}

/// A binary PLY header declaring 2^40 faces is refused from the header, before anything is
/// allocated for them.
#[test]
fn a_header_declaring_2_pow_40_faces_is_refused_from_the_header() {
    if !measurable() {
        return;
    }
    let d = TempDir::new("header");
    let m = generate::tetrahedron([0.0; 3], 1.0);
    let p = d.path("huge.ply");
    write_ply(&mut create(&p), &m, 1 << 40);
    check(
        &d,
        &p,
        &[],
        FACTOR,
        0,
        "huge.ply: line 7: the header declares 4 vertices and 1099511627776 faces",
    );
}
