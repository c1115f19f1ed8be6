//! Mesh loading against the contract of `docs/FORMATS.md`: small files in every format and
//! variant with known geometry and fan order, every kind of bad input, and the shared
//! real-world models against the counts and bounding boxes of their MANIFEST.md.

mod common;

use meshcollide::mesh::in_supported_range;
use meshcollide::mesh::load::{MAX_LINE, input_limit, load, load_bytes, load_reader};
use meshcollide::rng::Rng;
use meshcollide::{Location, Mesh, MeshError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

// ---------------------------------------------------------------------------------------------
// Fixtures

/// A scratch directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "meshcollide-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// Six vertices, all exact in f32 (binary STL, PLY `float`) and in decimal: every format
/// loads them as these f64 values.
const P: [[f64; 3]; 6] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.5, 2.0, 0.0],
    [-1.0, 0.5, 0.25],
];

/// Faces used by the OBJ and PLY fixtures: a triangle, a quad and a pentagon.
const FACES: [&[u32]; 3] = [&[0, 1, 2], &[0, 1, 3, 4], &[5, 4, 3, 2, 1]];

/// The fan split of `FACES`, in file order (`docs/FORMATS.md`).
const FAN: [[u32; 3]; 6] = [
    [0, 1, 2],
    [0, 1, 3],
    [0, 3, 4],
    [5, 4, 3],
    [5, 3, 2],
    [5, 2, 1],
];

const OBJ: &str = "# a comment
mtllib x.mtl
o thing
v 0 0 0
v 1 0 0 1.0
v 1 1 0 0.5 0.5 0.5
vt 0 0
vn 0 0 1
g first
usemtl m
s off
f 1 2 3
v 0 1 0
v 0.5 2 0
v -1 0.5 0.25

f 1/1 2/1 4/1 5/1
g second
f -1//1 -2//1 -3//1 -4//1 -5//1
l 1 2
f 1/1/1 3/1/1 \\
  6/1/1
";

fn obj_expected() -> Mesh {
    let mut triangles = FAN.to_vec();
    triangles.push([0, 2, 5]);
    Mesh {
        positions: P.to_vec(),
        triangles,
    }
}

fn load_as(dir: &TempDir, name: &str, bytes: &[u8]) -> Result<Mesh, MeshError> {
    load(&dir.write(name, bytes))
}

/// The triangles of the two STL fixtures: each facet has its own three positions.
fn stl_expected() -> Mesh {
    Mesh {
        positions: vec![P[0], P[1], P[2], P[5], P[4], P[3]],
        triangles: vec![[0, 1, 2], [3, 4, 5]],
    }
}

fn stl_ascii() -> String {
    let mut s = String::from("solid test\n");
    for f in stl_expected().positions.chunks(3) {
        s += "  facet normal 0 0 1\n    outer loop\n";
        for p in f {
            s += &format!("      vertex {} {} {}\n", p[0], p[1], p[2]);
        }
        s += "    endloop\n  endfacet\n";
    }
    s + "endsolid test\n"
}

/// A binary STL of the facets `positions` (three per facet); every coordinate must be an f32
/// value (or NaN), which the file stores as f32.
fn stl_binary(header: &[u8], positions: &[[f64; 3]]) -> Vec<u8> {
    let mut b = vec![b' '; 80];
    b[..header.len()].copy_from_slice(header);
    b.extend_from_slice(&(positions.len() as u32 / 3).to_le_bytes());
    for f in positions.chunks(3) {
        b.extend_from_slice(&[0u8; 12]);
        for &c in f.iter().flatten() {
            let x = c as f32;
            assert!(f64::from(x) == c || c.is_nan(), "{c} is not an f32");
            b.extend_from_slice(&x.to_le_bytes());
        }
        b.extend_from_slice(&[0u8; 2]);
    }
    b
}

#[derive(Clone, Copy, Debug)]
enum Enc {
    Ascii,
    Le,
    Be,
}

/// A PLY with `P` and `FACES`: vertex x y z of type `vt`, plus a `uchar red`, faces as
/// `list <count type> <index type> <list_name>`, and a trailing `edge` element.
fn ply(enc: Enc, vt: &str, list: (&str, &str), list_name: &str) -> Vec<u8> {
    let format = match enc {
        Enc::Ascii => "ascii",
        Enc::Le => "binary_little_endian",
        Enc::Be => "binary_big_endian",
    };
    let mut b = format!(
        "ply\nformat {format} 1.0\ncomment test\nelement vertex 6\nproperty {vt} x\n\
         property {vt} y\nproperty {vt} z\nproperty uchar red\nelement face 3\n\
         property list {} {} {list_name}\nelement edge 1\nproperty int v1\nproperty int v2\n\
         end_header\n",
        list.0, list.1
    )
    .into_bytes();
    let num = |b: &mut Vec<u8>, ty: &str, v: f64| match enc {
        Enc::Ascii => b.extend_from_slice(format!("{v} ").as_bytes()),
        Enc::Le | Enc::Be => {
            let mut bytes = match ty {
                "uchar" | "uint8" => vec![v as u8],
                "char" => vec![v as i8 as u8],
                "short" => (v as i16).to_le_bytes().to_vec(),
                "ushort" => (v as u16).to_le_bytes().to_vec(),
                "int" => (v as i32).to_le_bytes().to_vec(),
                "uint" => (v as u32).to_le_bytes().to_vec(),
                "float" => (v as f32).to_le_bytes().to_vec(),
                "double" => v.to_le_bytes().to_vec(),
                _ => panic!("type {ty}"),
            };
            if let Enc::Be = enc {
                bytes.reverse();
            }
            b.extend_from_slice(&bytes);
        }
    };
    let end = |b: &mut Vec<u8>| {
        if let Enc::Ascii = enc {
            b.push(b'\n');
        }
    };
    for p in P {
        for c in p {
            num(&mut b, vt, c);
        }
        num(&mut b, "uchar", 255.0);
        end(&mut b);
    }
    for f in FACES {
        num(&mut b, list.0, f.len() as f64);
        for &v in f {
            num(&mut b, list.1, f64::from(v));
        }
        end(&mut b);
    }
    num(&mut b, "int", 0.0);
    num(&mut b, "int", 1.0);
    end(&mut b);
    b
}

fn ply_expected() -> Mesh {
    Mesh {
        positions: P.to_vec(),
        triangles: FAN.to_vec(),
    }
}

/// Checks the error's variant by `check`, and that its message names the file and `location`.
#[track_caller]
fn assert_err(
    result: Result<Mesh, MeshError>,
    path: &Path,
    location: Option<Location>,
    check: impl Fn(&MeshError) -> bool,
) {
    let e = match result {
        Ok(m) => panic!("expected an error, loaded {} triangles", m.triangle_count()),
        Err(e) => e,
    };
    let msg = e.to_string();
    assert!(check(&e), "wrong error: {e:?}");
    assert!(
        msg.contains(&path.display().to_string()),
        "no file in: {msg}"
    );
    if let Some(loc) = location {
        let got = match &e {
            MeshError::Parse { location, .. }
            | MeshError::MissingVertex { location, .. }
            | MeshError::NonFinite { location, .. }
            | MeshError::LineTooLong { location, .. }
            | MeshError::DeclaredTooLarge { location, .. }
            | MeshError::MeshTooLarge { location, .. } => *location,
            _ => panic!("no location in {e:?}"),
        };
        assert_eq!(got, loc, "{msg}");
        assert!(msg.contains(&loc.to_string()), "no location in: {msg}");
    }
}

/// Which error variant a case expects.
type Check = fn(&MeshError) -> bool;

fn is_parse(e: &MeshError) -> bool {
    matches!(e, MeshError::Parse { .. })
}
fn is_missing(e: &MeshError) -> bool {
    matches!(e, MeshError::MissingVertex { .. })
}
fn is_nonfinite(e: &MeshError) -> bool {
    matches!(e, MeshError::NonFinite { .. })
}
fn is_empty(e: &MeshError) -> bool {
    matches!(e, MeshError::Empty { .. })
}
fn is_declared(e: &MeshError) -> bool {
    matches!(e, MeshError::DeclaredTooLarge { .. })
}
fn is_line_too_long(e: &MeshError) -> bool {
    matches!(e, MeshError::LineTooLong { .. })
}

// ---------------------------------------------------------------------------------------------
// Every format and variant loads the intended geometry in fan order

#[test]
fn obj_all_face_forms_negative_indices_continuation() {
    let d = TempDir::new("obj");
    assert_eq!(
        load_as(&d, "a.obj", OBJ.as_bytes()).unwrap(),
        obj_expected()
    );
    let crlf = OBJ.replace('\n', "\r\n");
    assert_eq!(
        load_as(&d, "b.OBJ", crlf.as_bytes()).unwrap(),
        obj_expected()
    );
    assert_eq!(
        load_as(&d, "c.obj.gz", &gzip(OBJ.as_bytes())).unwrap(),
        obj_expected()
    );
    // Forward references are fine when a later `v` defines the vertex.
    let fwd = "f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n";
    assert_eq!(
        load_as(&d, "d.obj", fwd.as_bytes()).unwrap().triangles,
        [[0, 1, 2]]
    );
}

#[test]
fn stl_ascii_binary_and_binary_with_solid_header() {
    let d = TempDir::new("stl");
    let want = stl_expected();
    let ascii = stl_ascii();
    assert_eq!(load_as(&d, "a.stl", ascii.as_bytes()).unwrap(), want);
    assert_eq!(
        load_as(&d, "a.stl.gz", &gzip(ascii.as_bytes())).unwrap(),
        want
    );
    let crlf = ascii.replace('\n', "\r\n").to_uppercase();
    assert_eq!(load_as(&d, "upper.STL", crlf.as_bytes()).unwrap(), want);

    let bin = stl_binary(b"binary", &want.positions);
    assert_eq!(load_as(&d, "b.stl", &bin).unwrap(), want);
    assert_eq!(load_as(&d, "b.stl.gz", &gzip(&bin)).unwrap(), want);
    let solid = stl_binary(b"solid pretending to be ascii", &want.positions);
    assert_eq!(load_as(&d, "c.stl", &solid).unwrap(), want);
    assert_eq!(load_as(&d, "c.Stl.Gz", &gzip(&solid)).unwrap(), want);

    // Two solids in one ASCII file are read one after the other.
    let two = ascii.clone() + &ascii;
    let m = load_as(&d, "two.stl", two.as_bytes()).unwrap();
    assert_eq!(m.triangle_count(), 4);
    assert_eq!(m.triangle(3), want.triangle(1));
}

#[test]
fn ply_ascii_and_binary_both_endians_all_types() {
    let d = TempDir::new("ply");
    let want = ply_expected();
    for enc in [Enc::Ascii, Enc::Le, Enc::Be] {
        for vt in ["float", "double", "int", "short"] {
            for list in [
                ("uchar", "int"),
                ("uchar", "uint"),
                ("int", "ushort"),
                ("ushort", "char"),
            ] {
                for name in ["vertex_indices", "vertex_index"] {
                    // `int`/`short` coordinates cannot hold 0.5: compare against truncation.
                    let mut want = want.clone();
                    if vt == "int" || vt == "short" {
                        for p in &mut want.positions {
                            *p = p.map(|c| c.trunc());
                        }
                    }
                    let bytes = ply(enc, vt, list, name);
                    let what = format!("{enc:?} {vt} {list:?} {name}");
                    if matches!(enc, Enc::Ascii) && (vt == "int" || vt == "short") {
                        // ASCII "0.5" is not an int: a parse error on the first such row.
                        let p = d.write("i.ply", &bytes);
                        assert_err(load(&p), &p, Some(Location::Line(19)), is_parse);
                        continue;
                    }
                    assert_eq!(load_as(&d, "a.ply", &bytes).unwrap(), want, "{what}");
                    assert_eq!(
                        load_as(&d, "a.PLY.GZ", &gzip(&bytes)).unwrap(),
                        want,
                        "{what}"
                    );
                }
            }
        }
    }
}

#[test]
fn load_bytes_uses_the_path_only_for_format_and_messages() {
    let m = load_bytes(Path::new("no/such/dir/x.obj"), OBJ.as_bytes()).unwrap();
    assert_eq!(m, obj_expected());
    let gz = gzip(&ply(Enc::Le, "float", ("uchar", "int"), "vertex_indices"));
    assert_eq!(
        load_bytes(Path::new("x.ply.gz"), &gz).unwrap(),
        ply_expected()
    );
}

/// Every decimal coordinate loads as the f64 its text denotes (rounded once, as
/// `str::parse::<f64>` does) in every text format, also where it is no f32 or lies outside
/// f32's range; binary STL's f32 and binary PLY's `float` and `double` values load exactly.
#[test]
fn coordinates_load_as_the_f64_the_file_denotes() {
    let d = TempDir::new("f64");
    // Beyond f32's range and below its subnormals, within the supported one.
    let text = [
        ["0.1", "-0.2", "0.30000000000000004"],
        [
            "1.0000000000000002e29",
            "-7.000000000000001",
            "3.14159265358979323846",
        ],
        ["123456789.123456789", "1e-60", "-2.5e-8"],
    ];
    let want: Vec<[f64; 3]> = text
        .iter()
        .map(|r| r.map(|t| t.parse::<f64>().unwrap()))
        .collect();
    assert!(want.iter().flatten().all(|&c| f64::from(c as f32) != c));
    assert!(want.iter().flatten().all(|&c| in_supported_range(c)));
    let rows = |prefix: &str| -> String {
        text.iter()
            .map(|r| format!("{prefix}{} {} {}\n", r[0], r[1], r[2]))
            .collect()
    };
    let obj = rows("v ") + "f 1 2 3\n";
    assert_eq!(
        load_as(&d, "a.obj", obj.as_bytes()).unwrap().positions,
        want
    );
    let stl = format!(
        "solid t\nfacet normal 0 0 1\nouter loop\n{}endloop\nendfacet\nendsolid t\n",
        rows("vertex ")
    );
    assert_eq!(
        load_as(&d, "a.stl", stl.as_bytes()).unwrap().positions,
        want
    );
    let header = |format: &str, ty: &str| {
        format!(
            "ply\nformat {format} 1.0\nelement vertex 3\nproperty {ty} x\nproperty {ty} y\n\
             property {ty} z\nelement face 1\nproperty list uchar int vertex_indices\n\
             end_header\n"
        )
    };
    let ply = header("ascii", "double") + &rows("") + "3 0 1 2\n";
    assert_eq!(
        load_as(&d, "a.ply", ply.as_bytes()).unwrap().positions,
        want
    );
    // ASCII `float` is decimal text too: rounded once, to the nearest f64.
    let ply = header("ascii", "float") + &rows("") + "3 0 1 2\n";
    assert_eq!(
        load_as(&d, "af.ply", ply.as_bytes()).unwrap().positions,
        want
    );

    // Binary: the stored values, widened exactly.
    let binary_ply = |ty: &str, coords: &[u8]| {
        let mut b = header("binary_little_endian", ty).into_bytes();
        b.extend_from_slice(coords);
        b.push(3);
        for v in 0..3i32 {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b
    };
    let doubles: Vec<u8> = want
        .iter()
        .flatten()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let m = load_as(&d, "d.ply", &binary_ply("double", &doubles)).unwrap();
    assert_eq!(m.positions, want);
    let singles: Vec<[f32; 3]> = vec![
        [0.1, -0.2, 1e30],
        [f32::from_bits(1), -f32::MIN_POSITIVE, 3.3333333],
        [12345.678, 1e-40, -2.5e-8],
    ];
    let widened: Vec<[f64; 3]> = singles.iter().map(|p| p.map(f64::from)).collect();
    let floats: Vec<u8> = singles
        .iter()
        .flatten()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let m = load_as(&d, "f.ply", &binary_ply("float", &floats)).unwrap();
    assert_eq!(m.positions, widened);
    let m = load_as(&d, "b.stl", &stl_binary(b"bin", &widened)).unwrap();
    assert_eq!(m.positions, widened);
}

// ---------------------------------------------------------------------------------------------
// Bad input: the right variant, naming the file and the line / face / vertex

#[test]
fn obj_errors_name_the_line() {
    let d = TempDir::new("obj-err");
    let cases: Vec<(&str, Location, Check)> = vec![
        (
            "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 4\n",
            Location::Line(5),
            is_missing,
        ),
        (
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n",
            Location::Line(4),
            is_missing,
        ),
        (
            "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\nf 1 2 9\n",
            Location::Line(5),
            is_missing,
        ),
        (
            "v 0 0 0\nv 1 0 0\nv nan 1 0\nf 1 2 3\n",
            Location::Line(3),
            is_nonfinite,
        ),
        (
            "v 0 0 0\n# c\nv 1 0 inf\nv 0 1 0\nf 1 2 3\n",
            Location::Line(3),
            is_nonfinite,
        ),
        (
            "v 0 0 0\nv 1e309 0 0\nv 0 1 0\nf 1 2 3\n",
            Location::Line(2),
            is_nonfinite,
        ),
        (
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n",
            Location::Line(4),
            is_parse,
        ),
        (
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n",
            Location::Line(4),
            is_parse,
        ),
        (
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 x\n",
            Location::Line(4),
            is_parse,
        ),
        ("v 0 0 0\nv 1 0\n", Location::Line(2), is_parse),
        ("v 0 0 0\nv 1 0 zz\n", Location::Line(2), is_parse),
        ("v 0 0 0\n\u{1}\u{2}garbage\n", Location::Line(2), is_parse),
    ];
    for (i, (text, loc, check)) in cases.into_iter().enumerate() {
        let p = d.write(&format!("case{i}.obj"), text.as_bytes());
        assert_err(load(&p), &p, Some(loc), check);
    }
    let p = d.write("only-vertices.obj", b"v 0 0 0\nv 1 1 1\n");
    assert_err(load(&p), &p, None, is_empty);
    let p = d.write("zero-bytes.obj", b"");
    assert_err(load(&p), &p, None, is_empty);
}

#[test]
fn stl_errors_name_the_line_or_facet() {
    let d = TempDir::new("stl-err");
    let ascii = stl_ascii();
    let nan = ascii.replacen("vertex 1 1 0", "vertex 1 NaN 0", 1);
    let p = d.write("nan.stl", nan.as_bytes());
    assert_err(load(&p), &p, Some(Location::Line(6)), is_nonfinite);
    let inf = ascii.replacen("vertex 0.5 2 0", "vertex 0.5 -inf 0", 1);
    let p = d.write("inf.stl", inf.as_bytes());
    assert_err(load(&p), &p, Some(Location::Line(12)), is_nonfinite);
    let four = ascii.replacen("endloop", "vertex 1 1 1\n endloop", 1);
    let p = d.write("four.stl", four.as_bytes());
    assert_err(load(&p), &p, Some(Location::Line(8)), is_parse);
    let two = ascii.replacen("vertex 1 1 0\n", "", 1);
    let p = d.write("two.stl", two.as_bytes());
    assert_err(load(&p), &p, Some(Location::Line(6)), is_parse);
    let cut = &ascii[..ascii.find("endfacet").unwrap()];
    let p = d.write("cut.stl", cut.as_bytes());
    assert_err(load(&p), &p, Some(Location::Line(8)), is_parse);
    let p = d.write("empty.stl", b"solid x\nendsolid x\n");
    assert_err(load(&p), &p, None, is_empty);

    let mut positions = stl_expected().positions;
    positions[4][2] = f64::NAN;
    let p = d.write("nan-bin.stl", &stl_binary(b"", &positions));
    assert_err(load(&p), &p, Some(Location::Face(1)), is_nonfinite);
    let p = d.write("no-facets.stl", &stl_binary(b"", &[]));
    assert_err(load(&p), &p, None, is_empty);

    // Truncated binary STL, also with a "solid" header: the facet cut short is named.
    for header in [&b"bin"[..], b"solid x"] {
        let bin = stl_binary(header, &stl_expected().positions);
        let p = d.write("cut-bin.stl", &bin[..bin.len() - 10]);
        assert_err(load(&p), &p, Some(Location::Face(1)), is_parse);
        let p = d.write("header-only.stl", &bin[..84]);
        assert_err(load(&p), &p, Some(Location::Face(0)), is_parse);
        let mut longer = bin.clone();
        longer.extend_from_slice(b"\0\0\0");
        let p = d.write("longer.stl", &longer);
        assert_err(load(&p), &p, Some(Location::Face(2)), is_parse);
    }
    // A header that claims 4 billion facets: refused from the header, as from a pipe (where
    // the length is unknown), before anything is allocated.
    let mut huge = stl_binary(b"", &stl_expected().positions);
    huge[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    let p = d.write("huge.stl", &huge);
    assert_err(load(&p), &p, Some(Location::Face(0)), is_declared);
    let p = d.write("tiny.stl", b"hello");
    assert_err(load(&p), &p, None, is_parse);
}

/// A text file named `.stl` that is no ASCII STL is said to be text, not read as a binary
/// STL of the wrong size, from a file and from a pipe alike: an ASCII STL without its
/// `solid` line (named so), an OBJ, a note. A file that is one of these with its `solid`
/// line loads, and a binary STL whose header is text still does.
#[test]
fn text_that_is_no_ascii_stl_is_named_as_such() {
    let d = TempDir::new("stl-text");
    let ascii = stl_ascii();
    let headless = &ascii[ascii.find('\n').unwrap() + 1..];
    let obj = "# an OBJ\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    for (name, text, line, words) in [
        (
            "headless.stl",
            headless,
            1,
            "ASCII STL without its `solid` line",
        ),
        ("obj.stl", obj, 1, "a text file but no STL"),
        (
            "note.stl",
            "\n\nthis is not a mesh\n",
            3,
            "a text file but no STL",
        ),
        ("hello.stl", "hello", 1, "a text file but no STL"),
    ] {
        let p = d.write(name, text.as_bytes());
        let check = |e: &MeshError| {
            e.to_string().contains(words) && !e.to_string().contains("binary STL has")
        };
        assert_err(load(&p), &p, Some(Location::Line(line)), check);
        let piped = load_reader(&p, text.as_bytes());
        assert_err(piped, &p, Some(Location::Line(line)), check);
    }
    assert_eq!(
        load_as(&d, "whole.stl", ascii.as_bytes()).unwrap(),
        stl_expected()
    );
    let text_header = stl_binary(
        b"a header of text, as exporters write",
        &stl_expected().positions,
    );
    assert_eq!(
        load_as(&d, "texthead.stl", &text_header).unwrap(),
        stl_expected()
    );
}

#[test]
fn ply_errors_name_the_line_or_record() {
    let d = TempDir::new("ply-err");
    // ASCII header is 14 lines: vertices on lines 15..=20, faces on 21..=23, the edge on 24.
    let ascii =
        String::from_utf8(ply(Enc::Ascii, "float", ("uchar", "int"), "vertex_indices")).unwrap();
    let edit = |from: &str, to: &str| ascii.replacen(from, to, 1);
    let cases: Vec<(String, Location, Check)> = vec![
        (
            edit("5 5 4 3 2 1", "5 5 4 3 2 6"),
            Location::Line(23),
            is_missing,
        ),
        (
            edit("5 5 4 3 2 1", "5 5 4 3 2 -1"),
            Location::Line(23),
            is_missing,
        ),
        (
            edit("1 1 0 255", "1 nan 0 255"),
            Location::Line(17),
            is_nonfinite,
        ),
        (
            edit("1 1 0 255", "1 1 inf 255"),
            Location::Line(17),
            is_nonfinite,
        ),
        (edit("3 0 1 2", "2 0 1"), Location::Line(21), is_parse),
        (edit("1 1 0 255", "1 x 0 255"), Location::Line(17), is_parse),
        (
            ascii[..ascii.len() - 10].to_string(),
            Location::Line(23),
            is_parse,
        ),
        (
            edit("property float z", "property float w"),
            Location::Line(4),
            is_parse,
        ),
        (
            edit("format ascii", "format nonsense"),
            Location::Line(2),
            is_parse,
        ),
        (
            edit("property list uchar int", "property list uchar float"),
            Location::Line(9),
            is_parse,
        ),
    ];
    for (i, (text, loc, check)) in cases.into_iter().enumerate() {
        let p = d.write(&format!("case{i}.ply"), text.as_bytes());
        assert_err(load(&p), &p, Some(loc), check);
    }
    // 4e9 vertices take 96 GB: refused from the header where the memory limit is below
    // that, else when the rows run out.
    let p = d.write(
        "4e9.ply",
        edit("element vertex 6", "element vertex 4000000000").as_bytes(),
    );
    if input_limit() < 96_000_000_000 {
        assert_err(load(&p), &p, Some(Location::Line(4)), is_declared);
    } else {
        assert_err(load(&p), &p, Some(Location::Line(24)), is_parse);
    }
    let p = d.write(
        "no-faces.ply",
        edit("element face 3", "element face 0").as_bytes(),
    );
    // The face rows are now read as edge rows (extra values are ignored): no triangles.
    assert_err(load(&p), &p, None, is_empty);
    let no_faces = "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n\
                    property float z\nend_header\n0 0 0\n";
    let p = d.write("points.ply", no_faces.as_bytes());
    assert_err(load(&p), &p, None, is_empty);

    for enc in [Enc::Le, Enc::Be] {
        let bin = ply(enc, "float", ("uchar", "int"), "vertex_indices");
        let body = bin.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
        let vertex = 3 * 4 + 1;
        let face0 = body + 6 * vertex;
        // Cut inside vertex 2, inside face 1, and inside the edge.
        let p = d.write("cut-v.ply", &bin[..body + 2 * vertex + 5]);
        assert_err(load(&p), &p, Some(Location::Vertex(2)), is_parse);
        let p = d.write("cut-f.ply", &bin[..face0 + 13 + 3]);
        assert_err(load(&p), &p, Some(Location::Face(1)), is_parse);
        let p = d.write("cut-e.ply", &bin[..bin.len() - 2]);
        assert_err(load(&p), &p, Some(Location::Line(24)), is_parse);
        // Vertex 3's y as NaN; face 2's last index out of range; face 0 with two corners.
        let mut b = bin.clone();
        let y3 = body + 3 * vertex + 4;
        b[y3..y3 + 4].copy_from_slice(&[0x7f, 0xc0, 0xc0, 0x7f]); // NaN in either byte order
        let p = d.write("nan.ply", &b);
        assert_err(load(&p), &p, Some(Location::Vertex(3)), is_nonfinite);
        let mut b = bin.clone();
        let last = face0 + 13 + 17 + 1 + 4 * 4;
        b[last..last + 4].fill(0x40);
        let p = d.write("missing.ply", &b);
        assert_err(load(&p), &p, Some(Location::Face(2)), is_missing);
        let mut b = bin[..face0].to_vec();
        let int = |v: i32| match enc {
            Enc::Be => v.to_be_bytes(),
            _ => v.to_le_bytes(),
        };
        b.push(2);
        b.extend(int(0).into_iter().chain(int(1)));
        let p = d.write("two.ply", &b);
        assert_err(load(&p), &p, Some(Location::Face(0)), is_parse);
        // A header that claims a billion vertices over a tiny body.
        let huge = String::from_utf8_lossy(&bin[..body])
            .replace("element vertex 6", "element vertex 1000000000")
            .into_bytes();
        let b = [huge, bin[body..].to_vec()].concat();
        let p = d.write("huge.ply", &b);
        assert!(matches!(
            load(&p),
            Err(MeshError::Parse { .. } | MeshError::DeclaredTooLarge { .. })
        ));
        // A face list claiming 4 billion entries.
        let bin = ply(enc, "float", ("uint", "int"), "vertex_indices");
        let mut b = bin[..face0].to_vec();
        b.extend_from_slice(&[0xff; 7]);
        let p = d.write("long-list.ply", &b);
        assert_err(load(&p), &p, Some(Location::Face(0)), is_parse);
    }
}

#[test]
fn general_errors() {
    let d = TempDir::new("general");
    for name in ["x.off", "x.gz", "obj", "x.obj.zip", "x.stl.gz.bak"] {
        let p = d.write(name, OBJ.as_bytes());
        assert_err(load(&p), &p, None, |e| {
            matches!(e, MeshError::UnknownExtension { .. })
        });
    }
    let p = d.0.join("does-not-exist.obj");
    assert_err(load(&p), &p, None, |e| matches!(e, MeshError::Io { .. }));
    // A corrupt gzip stream cannot be read: Io.
    let p = d.write("bad.obj.gz", b"\x1f\x8b not really gzip");
    assert_err(load(&p), &p, None, |e| matches!(e, MeshError::Io { .. }));
    let good = gzip(OBJ.as_bytes());
    let p = d.write("cut.obj.gz", &good[..good.len() / 2]);
    assert_err(load(&p), &p, None, |e| matches!(e, MeshError::Io { .. }));

    // Garbage bytes in every format: a Parse error (never Ok, never a panic).
    let mut rng = Rng::new(1);
    let mut garbage: Vec<u8> = (0..5000).map(|_| rng.next_u64() as u8).collect();
    garbage[0] = 0xff;
    for name in ["g.obj", "g.stl", "g.ply"] {
        let p = d.write(name, &garbage);
        // A binary STL's garbage facet count may declare more than memory holds.
        assert_err(load(&p), &p, None, |e| is_parse(e) || is_declared(e));
    }
}

/// Every prefix and many random corruptions of every fixture: errors are fine, panics not.
#[test]
fn no_panic_on_truncated_or_corrupted_input() {
    let mut rng = Rng::new(42);
    let fixtures: Vec<(&str, Vec<u8>)> = vec![
        ("x.obj", OBJ.as_bytes().to_vec()),
        ("x.stl", stl_ascii().into_bytes()),
        ("x.stl", stl_binary(b"solid", &stl_expected().positions)),
        (
            "x.ply",
            ply(Enc::Ascii, "float", ("uchar", "int"), "vertex_indices"),
        ),
        (
            "x.ply",
            ply(Enc::Le, "double", ("int", "uint"), "vertex_indices"),
        ),
        (
            "x.ply",
            ply(Enc::Be, "float", ("uchar", "int"), "vertex_index"),
        ),
    ];
    for (name, bytes) in &fixtures {
        let path = Path::new(name);
        for n in 0..bytes.len() {
            let _ = load_bytes(path, &bytes[..n]);
        }
        for _ in 0..2000 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] = rng.next_u64() as u8;
            }
            let _ = load_bytes(path, &b);
        }
        let gz = gzip(bytes);
        for n in (0..gz.len()).step_by(7) {
            let _ = load_bytes(Path::new(&format!("{name}.gz")), &gz[..n]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The shared real-world models

/// `(file, triangles, vertices, bbox min, bbox max)` from `../shared/meshes/MANIFEST.md`.
/// For STL the manifest counts welded positions; we keep 3 per facet instead.
type ManifestRow = (&'static str, usize, usize, [f64; 3], [f64; 3]);
const MANIFEST: &[ManifestRow] = &[
    (
        "armadillo.obj",
        29170,
        14587,
        [-0.434446, -0.571575, -0.374793],
        [0.403139, 0.426281, 0.377968],
    ),
    (
        "beetle.obj",
        2053,
        1148,
        [-0.216734, 0.306086, -0.253812],
        [0.143533, 0.60904, 0.637839],
    ),
    (
        "cycloidal.ply",
        43368,
        21384,
        [0.239546, -0.33863, 0.810647],
        [2.11455, 1.53596, 1.91756],
    ),
    (
        "dragon-vrip.ply.gz",
        871414,
        437645,
        [-0.108324, 0.0527295, -0.0504143],
        [0.0965662, 0.197173, 0.0412075],
    ),
    (
        "fandisk.obj",
        12946,
        6475,
        [0.0, 12.6055, -2.68026],
        [4.8279, 17.85, 0.0],
    ),
    (
        "featuretype.stl",
        3476,
        2010,
        [-2.5, -1.25, -2.73185e-16],
        [2.5, 1.25, 1.375],
    ),
    (
        "gearwheel.stl",
        2444,
        1222,
        [-20.8601, -20.8601, -5.07771e-17],
        [20.8601, 20.8601, 8.0],
    ),
    (
        "horse.ply",
        96966,
        48485,
        [-0.042003, -0.0916705, -0.076418],
        [0.042003, 0.0916705, 0.076418],
    ),
    (
        "rocker-arm.obj",
        20088,
        10044,
        [-0.151733, -0.257456, -0.5],
        [0.151733, 0.257456, 0.5],
    ),
    (
        "soup.stl",
        100,
        300,
        [0.00235891, 0.00253052, 0.00609817],
        [0.999805, 0.999055, 0.999005],
    ),
    (
        "spot.obj",
        5856,
        2930,
        [-0.471552, -0.736784, -0.668909],
        [0.471552, 0.953646, 1.049],
    ),
    (
        "stanford-bunny.obj",
        69451,
        35947,
        [-0.09469, 0.032987, -0.061874],
        [0.061009, 0.187321, 0.0588],
    ),
];

#[test]
fn shared_models_match_the_manifest() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for &(name, tris, verts, lo, hi) in MANIFEST {
        let path = dir.join(name);
        let start = std::time::Instant::now();
        let m = load(&path).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "{name}: {} triangles in {:.1?}",
            m.triangle_count(),
            start.elapsed()
        );
        assert_eq!(m.triangle_count(), tris, "{name}");
        let stl = name.ends_with(".stl");
        assert_eq!(
            m.positions.len(),
            if stl { 3 * tris } else { verts },
            "{name}"
        );
        m.validate(&path).unwrap();
        // Bounding box of all stored vertices (the bunny's unreferenced ones included), to
        // 1e-4 of the largest extent (the manifest prints 6 significant digits).
        let mut bounds = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for p in &m.positions {
            for (k, &c) in p.iter().enumerate() {
                bounds.0[k] = bounds.0[k].min(c);
                bounds.1[k] = bounds.1[k].max(c);
            }
        }
        let tol = 1e-4 * (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        for k in 0..3 {
            assert!((bounds.0[k] - lo[k]).abs() <= tol, "{name} min: {bounds:?}");
            assert!((bounds.1[k] - hi[k]).abs() <= tol, "{name} max: {bounds:?}");
        }
    }
}

/// Coordinates outside the range the exact predicates support are a located error in every
/// format, never a panic or a silent wrong answer.
#[test]
fn coordinates_out_of_the_supported_range_are_located_errors() {
    let d = TempDir::new("range");
    for (i, bad) in ["1e31", "-2e30", "1e-61", "-5e-300"].iter().enumerate() {
        let obj = format!("v 0 0 0\nv 1 0 0\nv 0 {bad} 1\nf 1 2 3\n");
        let e = load_as(&d, &format!("r{i}.obj"), obj.as_bytes()).unwrap_err();
        let s = e.to_string();
        assert!(
            s.contains("line 3") && s.contains("exact predicates support"),
            "{s}"
        );
        let stl = format!(
            "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex {bad} 0 0\n\
             vertex 0 1 0\nendloop\nendfacet\nendsolid t\n"
        );
        let e = load_as(&d, &format!("r{i}.stl"), stl.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("exact predicates support"), "{e}");
    }
    // Binary STL: an f32 of 3e38 is finite but beyond 2^100.
    let big = vec![
        [0.0, 0.0, 0.0],
        [f64::from(3e38f32), 0.0, 0.0],
        [0.0, 1.0, 0.0],
    ];
    let e = load_as(&d, "big.stl", &stl_binary(b"bin", &big)).unwrap_err();
    assert!(e.to_string().contains("face 0"), "{e}");
    // Zero is always fine, and so are the range's ends.
    let ok = format!(
        "v 0 0 0\nv {} 0 0\nv 0 {:e} 1\nf 1 2 3\n",
        meshcollide::mesh::MAX_COORDINATE,
        meshcollide::mesh::MIN_COORDINATE
    );
    assert!(load_as(&d, "ok.obj", ok.as_bytes()).is_ok());
}

// ---------------------------------------------------------------------------------------------
// Streaming: pipes, readers and devices read like files, within bounds

/// Every fixture (also gzipped), whole files: the bytes and the mesh they load as.
fn fixtures() -> Vec<(&'static str, Vec<u8>, Mesh)> {
    let mut v: Vec<(&'static str, Vec<u8>, Mesh)> = vec![
        ("x.obj", OBJ.as_bytes().to_vec(), obj_expected()),
        ("x.stl", stl_ascii().into_bytes(), stl_expected()),
        (
            "x.stl",
            stl_binary(b"binary", &stl_expected().positions),
            stl_expected(),
        ),
        (
            "x.stl",
            stl_binary(b"solid pretending to be ascii", &stl_expected().positions),
            stl_expected(),
        ),
    ];
    for enc in [Enc::Ascii, Enc::Le, Enc::Be] {
        v.push((
            "x.ply",
            ply(enc, "float", ("uchar", "int"), "vertex_indices"),
            ply_expected(),
        ));
    }
    let gz: Vec<_> = v
        .iter()
        .map(|(name, bytes, mesh)| {
            let name: &'static str = match *name {
                "x.obj" => "x.obj.gz",
                "x.stl" => "x.stl.gz",
                _ => "x.ply.gz",
            };
            (name, gzip(bytes), mesh.clone())
        })
        .collect();
    v.extend(gz);
    v
}

/// A reader that gives at most 3 bytes per call, as a slow pipe may: records and lines
/// cross every read.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.0.len()).min(3);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// Makes a FIFO at `path` (with `mkfifo`), or `None` where there is none.
fn fifo(path: &Path) -> Option<()> {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("SKIP: no mkfifo");
    }
    ok.then_some(())
}

/// `load` of a FIFO at `path` that a thread fills with `bytes`: opened once and streamed.
fn load_fifo(path: &Path, bytes: Vec<u8>) -> Result<Mesh, MeshError> {
    let p = path.to_path_buf();
    let writer = std::thread::spawn(move || {
        // The reader may stop early (an error): a broken pipe is fine.
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&p) {
            let _ = f.write_all(&bytes);
        }
    });
    let r = load(path);
    writer.join().unwrap();
    r
}

#[test]
fn fifos_readers_and_files_load_alike() {
    let d = TempDir::new("stream");
    for (i, (name, bytes, want)) in fixtures().into_iter().enumerate() {
        let what = format!("fixture {i} ({name})");
        let file = d.write(&format!("f{i}-{name}"), &bytes);
        assert_eq!(load(&file).unwrap(), want, "{what}: file");
        assert_eq!(
            load_bytes(Path::new(name), &bytes).unwrap(),
            want,
            "{what}: bytes"
        );
        assert_eq!(
            load_reader(Path::new(name), Trickle(&bytes)).unwrap(),
            want,
            "{what}: reader"
        );
        let pipe = d.0.join(format!("p{i}-{name}"));
        if fifo(&pipe).is_some() {
            assert_eq!(load_fifo(&pipe, bytes).unwrap(), want, "{what}: FIFO");
        }
    }
    // A truncated binary STL from a pipe: the stream's end names the facet and the length.
    let bin = stl_binary(b"bin", &stl_expected().positions);
    let cut = &bin[..bin.len() - 10];
    let e = load_reader(Path::new("cut.stl"), cut).unwrap_err();
    assert!(
        e.to_string()
            .contains("face 1: truncated binary STL: header declares 2 facets, the file ends inside facet 1 (174 bytes)"),
        "{e}"
    );
    let mut longer = bin.clone();
    longer.extend_from_slice(b"\0\0\0");
    let e = load_reader(Path::new("longer.stl"), &longer[..]).unwrap_err();
    assert!(
        e.to_string()
            .contains("face 2: binary STL has 3 bytes after its 2 declared facets"),
        "{e}"
    );
}

/// A binary header that declares more than the memory limit holds is refused from the
/// header (`DeclaredTooLarge`, naming its line), before anything is allocated for it.
#[test]
fn headers_declaring_too_much_are_refused_from_the_header() {
    let d = TempDir::new("declared");
    let big = 1u64 << 40;
    for enc in [Enc::Ascii, Enc::Le, Enc::Be] {
        let bytes = ply(enc, "float", ("uchar", "int"), "vertex_indices");
        let text = String::from_utf8_lossy(&bytes).into_owned();
        for (from, line) in [("element vertex 6", 4), ("element face 3", 9)] {
            let to = format!("{} {big}", &from[..from.len() - 2]);
            let b = bytes_replaced(&bytes, &text, from, &to);
            let p = d.write("big.ply", &b);
            assert_err(load(&p), &p, Some(Location::Line(line)), is_declared);
            let e = load_reader(Path::new("big.ply.gz"), &gzip(&b)[..]).unwrap_err();
            assert!(is_declared(&e), "{e:?}");
        }
    }
    // Binary STL from a pipe: 2^32 - 1 facets need 360 GB. (From a file, its length shows
    // the header false first: see `stl_errors_name_the_line_or_facet`.)
    let mut huge = stl_binary(b"", &stl_expected().positions);
    huge[80..84].copy_from_slice(&u32::MAX.to_le_bytes());
    for name in ["huge.stl", "huge.stl.gz"] {
        let bytes = if name.ends_with(".gz") {
            gzip(&huge)
        } else {
            huge.clone()
        };
        let e = load_reader(Path::new(name), &bytes[..]).unwrap_err();
        assert!(is_declared(&e), "{e:?}");
        assert!(
            e.to_string()
                .contains("face 0: the header declares 4294967295 facets"),
            "{e}"
        );
    }
}

/// What PLY and OBJ hold besides the mesh is bounded too: a header's definitions, a binary
/// face list read from a stream (whose length nothing confirms).
#[test]
fn side_tables_are_bounded() {
    let d = TempDir::new("side");
    let mut text = String::from("ply\nformat ascii 1.0\nelement vertex 0\n");
    for i in 0..70_000 {
        text += &format!("property float p{i}\n");
    }
    text += "end_header\n";
    let p = d.write("props.ply", text.as_bytes());
    assert_err(load(&p), &p, Some(Location::Line(65_539)), is_parse);
    // A face list of 2^32 - 1 indices (48 GB of triangles) from a pipe: refused before it
    // is read. (From a file, the file's length shows it cut short: see
    // `ply_errors_name_the_line_or_record`.)
    let bin = ply(Enc::Le, "float", ("uint", "int"), "vertex_indices");
    let body = bin.windows(11).position(|w| w == b"end_header\n").unwrap() + 11;
    let mut b = bin[..body + 6 * 13].to_vec();
    b.extend_from_slice(&[0xff; 7]);
    let e = load_reader(Path::new("long-list.ply"), &b[..]).unwrap_err();
    let refused = matches!(
        e,
        MeshError::MeshTooLarge {
            location: Location::Face(0),
            ..
        }
    );
    if input_limit() < 12 * u64::from(u32::MAX - 2) {
        assert!(refused, "{e:?}");
    } else {
        assert!(matches!(e, MeshError::Parse { .. }), "{e:?}");
    }
}

/// `bytes` with the header text `from` replaced by `to` (the header is text; the records
/// after it are kept as they are).
fn bytes_replaced(bytes: &[u8], text: &str, from: &str, to: &str) -> Vec<u8> {
    let at = text.find(from).unwrap();
    [&bytes[..at], to.as_bytes(), &bytes[at + from.len()..]].concat()
}

/// A line longer than `MAX_LINE` is refused, naming the file and the line, with a message
/// that shows only the line's start, its control bytes escaped; a line of exactly
/// `MAX_LINE` bytes reads.
#[test]
fn long_lines_are_refused_with_a_short_message() {
    let d = TempDir::new("long");
    let mut long = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\x1b]0;pwned\x07".to_vec();
    long.resize(long.len() + 2 * MAX_LINE, b'7');
    for name in ["long.obj", "long.obj.gz"] {
        let bytes = if name.ends_with(".gz") {
            gzip(&long)
        } else {
            long.clone()
        };
        let p = d.write(name, &bytes);
        let e = load(&p);
        assert_err(e, &p, Some(Location::Line(5)), is_line_too_long);
        let msg = load(&p).unwrap_err().to_string();
        assert!(msg.len() < 400, "{msg}");
        assert!(msg.contains("\\u{1b}]0;pwned\\u{7}777"), "{msg}");
        assert!(!msg.chars().any(char::is_control), "{msg}");
    }
    // A statement continued with `\` counts whole, and is named by its first line.
    let part = format!("{}\\\n", "1 ".repeat(MAX_LINE / 6));
    let joined = format!("v 0 0 0\nf {part}{part}{part}3\n");
    let p = d.write("joined.obj", joined.as_bytes());
    assert_err(load(&p), &p, Some(Location::Line(2)), is_line_too_long);
    // The other text formats: in a header, in a row, in a facet.
    let mut ply_text = ply(Enc::Ascii, "float", ("uchar", "int"), "vertex_indices");
    ply_text.splice(
        4..4,
        format!("comment {}\n", "c".repeat(MAX_LINE)).into_bytes(),
    );
    let p = d.write("long.ply", &ply_text);
    assert_err(load(&p), &p, Some(Location::Line(2)), is_line_too_long);
    let stl = stl_ascii().replacen(
        "vertex 1 1 0",
        &format!("vertex 1 1 0{}", " ".repeat(MAX_LINE)),
        1,
    );
    let p = d.write("long.stl", stl.as_bytes());
    assert_err(load(&p), &p, Some(Location::Line(6)), is_line_too_long);
    // Exactly MAX_LINE bytes, then `\r\n`-free: fine.
    let mut ok = OBJ.as_bytes().to_vec();
    ok.push(b'#');
    ok.resize(ok.len() + MAX_LINE - 1, b'#');
    ok.push(b'\n');
    let p = d.write("ok.obj", &ok);
    assert_eq!(load(&p).unwrap(), obj_expected());
}

/// Tokens quoted in messages are cut to 60 characters and their control bytes escaped, in
/// every text format: an input file cannot write to the terminal.
#[test]
fn messages_escape_control_bytes_and_cut_long_tokens() {
    let d = TempDir::new("shown");
    let stl = |bad: &str| stl_ascii().replacen("vertex 1 1 0", &format!("vertex 1 {bad} 0"), 1);
    let ply_row = |bad: &str| {
        String::from_utf8(ply(Enc::Ascii, "float", ("uchar", "int"), "vertex_indices"))
            .unwrap()
            .replacen("1 1 0 255", &format!("1 {bad} 0 255"), 1)
    };
    let escape = "\x1b]0;pwned\x07";
    let long = "9".repeat(10_000) + "x";
    let cases: Vec<(&str, String)> = vec![
        ("a.obj", format!("v 0 0 0\n{escape}\n")),
        ("b.obj", format!("v 0 0 {escape}\n")),
        ("c.obj", format!("v 0 0 0\nf 1 1 {escape}\n")),
        ("d.obj", format!("v 0 0 {long}\n")),
        ("a.stl", stl(escape)),
        ("b.stl", stl(&long)),
        ("a.ply", ply_row(escape)),
        ("b.ply", ply_row(&long)),
        (
            "c.ply",
            format!("ply\nformat ascii 1.0\nelement {escape} 1\nend_header\n"),
        ),
    ];
    for (name, text) in cases {
        let p = d.write(name, text.as_bytes());
        let msg = load(&p).unwrap_err().to_string();
        assert!(!msg.chars().any(char::is_control), "{name}: {msg}");
        assert!(msg.len() < 400, "{name}: {msg}");
        if text.contains(escape) {
            assert!(msg.contains("\\u{1b}]0;pwned\\u{7}"), "{name}: {msg}");
        } else {
            assert!(
                msg.contains(&format!("{}…", "9".repeat(60))),
                "{name}: {msg}"
            );
        }
    }
}

/// Devices stream like files: `/dev/zero` is refused after at most a line's worth of
/// bytes, or from its first bytes; `/dev/urandom` with a parse error. (The command line's
/// memory on them: `tests/bounded_memory.rs`.)
#[test]
fn devices_are_refused_quickly() {
    if !Path::new("/dev/zero").exists() || !Path::new("/dev/urandom").exists() {
        eprintln!("SKIP: no /dev/zero or /dev/urandom");
        return;
    }
    let d = TempDir::new("devices");
    let link = |name: &str, target: &str| {
        let p = d.0.join(name);
        std::os::unix::fs::symlink(target, &p).unwrap();
        p
    };
    let start = std::time::Instant::now();
    let p = link("zero.obj", "/dev/zero");
    assert_err(load(&p), &p, Some(Location::Line(1)), is_line_too_long);
    let p = link("zero.stl", "/dev/zero");
    assert_err(load(&p), &p, Some(Location::Face(0)), is_parse);
    assert!(
        load(&p)
            .unwrap_err()
            .to_string()
            .contains("0 declared facets")
    );
    let p = link("zero.ply", "/dev/zero");
    assert_err(load(&p), &p, Some(Location::Line(1)), is_parse);
    let p = link("zero.obj.gz", "/dev/zero");
    assert_err(load(&p), &p, None, |e| matches!(e, MeshError::Io { .. }));
    let p = link("random.obj", "/dev/urandom");
    assert_err(load(&p), &p, None, is_parse);
    let p = link("random.ply", "/dev/urandom");
    assert_err(load(&p), &p, Some(Location::Line(1)), is_parse);
    let p = link("random.stl", "/dev/urandom");
    assert!(load(&p).is_err());
    assert!(start.elapsed().as_secs() < 10, "{:?}", start.elapsed());
}
