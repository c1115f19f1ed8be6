//! Mesh loading by file extension (`.obj`, `.stl`, `.ply`, each optionally `.gz`),
//! following the mesh contract of `docs/FORMATS.md`: positions as read (f64, no welding),
//! polygons split as a fan in file order, and every error naming the file and the line
//! (text formats) or the face/vertex record (binary formats).
//!
//! Every input is streamed (`input.rs`: one buffer, gzip unzipped on the fly), opened once (a
//! FIFO or `/dev/stdin` can be read only once) and bounded: lines of at most [`MAX_LINE`]
//! bytes, at most [`input_limit`] bytes read or unzipped, and vertex and triangle arrays of
//! at most [`input_limit`] bytes (`builder.rs`; a binary header's counts are checked before
//! any allocation). See [`load`] for the memory a load takes.
//!
//! Each format parser checks vertices for NaN/infinity and indices for range as it reads
//! them, because only the parser still knows the line or record a problem came from;
//! [`Mesh::validate`] would only know the triangle number.

use super::Mesh;
use crate::error::Location;
use crate::error::MeshError;
use std::io::Read;
use std::path::Path;

#[path = "builder.rs"]
mod builder;
#[path = "input.rs"]
mod input;
#[path = "obj.rs"]
mod obj;
#[path = "ply.rs"]
mod ply;
#[path = "ply_header.rs"]
mod ply_header;
#[path = "stl.rs"]
mod stl;

use builder::MeshBuilder;
use input::Input;

/// The longest line a text mesh may have, in bytes (1 MiB; an OBJ statement continued with
/// `\` counts whole). Real files have lines of tens of bytes; a longer one is a binary or
/// damaged file, refused ([`MeshError::LineTooLong`]) after reading at most this much of it.
pub const MAX_LINE: usize = 1 << 20;

/// The formats `docs/FORMATS.md` allows, chosen by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Obj,
    Stl,
    Ply,
}

/// Splits a file name into (format, gzipped), case-insensitively: `a.PLY.gz` → (Ply, true).
fn format_of(path: &Path) -> Option<(Format, bool)> {
    let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
    let (name, gz) = match name.strip_suffix(".gz") {
        Some(inner) => (inner, true),
        None => (name.as_str(), false),
    };
    let format = match name.rsplit_once('.')?.1 {
        "obj" => Format::Obj,
        "stl" => Format::Stl,
        "ply" => Format::Ply,
        _ => return None,
    };
    Some((format, gz))
}

fn known_format(path: &Path) -> Result<(Format, bool), MeshError> {
    format_of(path).ok_or_else(|| MeshError::UnknownExtension {
        path: path.to_path_buf(),
    })
}

/// Loads a mesh file, choosing the format by extension (see the module docs). The file is
/// opened once and streamed, so a FIFO, `/dev/stdin` or a device reads like a file.
///
/// **Memory.** Let M be the mesh's bytes: 24 per vertex and 12 per triangle (for a load
/// that fails, of what was read before the error). A load takes at most **2 × M + 5 MiB**:
/// the input is never held whole (a buffer of at most [`MAX_LINE`] + 1 bytes, a gzip
/// decoder's ~100 KiB, an OBJ statement continued over lines joined in at most [`MAX_LINE`]
/// bytes, one polygon of a line's corners, at most 2 MiB; a binary PLY face's list is
/// bounded by the triangles it becomes), and the two arrays grow by doubling, so that a
/// reallocation that copies holds an old block and its copy, together at most twice the
/// array's final bytes. (With glibc, whose large blocks grow in place, the peak is close to
/// 1 × M.) One exception: an OBJ whose faces name vertices defined further down keeps those
/// forward references (12 bytes each, at most one per vertex and three per triangle, so at
/// most 3/7 of M), which makes it at most **3 × M + 5 MiB**. M itself is at most
/// [`input_limit`]: a mesh that would outgrow it is refused as it grows
/// ([`MeshError::MeshTooLarge`]), or from its header when a binary or PLY header declares it
/// ([`MeshError::DeclaredTooLarge`]); at most [`input_limit`] bytes are read or unzipped
/// ([`MeshError::TooLarge`]). `tests/bounded_memory.rs` checks the command line's peak
/// against 2 × M + 16 MiB (the process's own ~7 MiB included) on large meshes of every
/// format, a gzip bomb, `/dev/zero`, a 64 MiB line and a header declaring 2^40 faces.
pub fn load(path: &Path) -> Result<Mesh, MeshError> {
    // Check the extension first so an unsupported file is reported as such without opening it.
    let (format, gz) = known_format(path)?;
    let io = |source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    // The length counts only for a regular file: a device or a pipe reports 0.
    let meta = file.metadata().map_err(io)?;
    let len = meta.is_file().then_some(meta.len());
    load_stream(path, format, gz, file, len, input_limit())
}

/// Loads a mesh from `reader` (a file already opened, a pipe), choosing the format by the
/// extension of `path`, which names it in errors and is never opened. Streams like [`load`],
/// with the same memory bound; the length of the input is unknown, so a binary STL is told
/// from an ASCII one by its first bytes alone (see `stl.rs`).
pub fn load_reader(path: &Path, reader: impl Read) -> Result<Mesh, MeshError> {
    load_reader_sized(path, reader, None)
}

/// [`load_reader`] of an input whose length is known (`len`: a regular file's size), which
/// tells a binary STL from an ASCII one as [`load`] does.
pub fn load_reader_sized(
    path: &Path,
    reader: impl Read,
    len: Option<u64>,
) -> Result<Mesh, MeshError> {
    let (format, gz) = known_format(path)?;
    load_stream(path, format, gz, reader, len, input_limit())
}

/// [`MeshError::UnknownExtension`] unless `path` names a mesh format (`.obj`, `.stl`,
/// `.ply`, optionally `.gz`, case-insensitive).
pub fn check_extension(path: &Path) -> Result<(), MeshError> {
    known_format(path).map(|_| ())
}

/// Parses the contents of a mesh file already in memory. `path` chooses the format by its
/// extension (as in [`load`]) and names the file in errors; it is never opened.
pub fn load_bytes(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let (format, gz) = known_format(path)?;
    load_stream(
        path,
        format,
        gz,
        bytes,
        Some(bytes.len() as u64),
        input_limit(),
    )
}

/// Parses `reader` (`len` bytes where known, before unzipping) as `format`, reading or
/// unzipping at most `limit` bytes and building arrays of at most `limit` bytes.
fn load_stream(
    path: &Path,
    format: Format,
    gz: bool,
    reader: impl Read,
    len: Option<u64>,
    limit: u64,
) -> Result<Mesh, MeshError> {
    let mut input = if gz {
        // The unzipped length is unknown; a corrupt or truncated stream is an Io error.
        Input::new(
            path,
            flate2::read::MultiGzDecoder::new(reader),
            None,
            limit,
            true,
        )
    } else {
        // Refuse a file known to be too long at once, rather than after reading it.
        if len.is_some_and(|n| n > limit) {
            return Err(MeshError::TooLarge {
                path: path.to_path_buf(),
                limit,
                gz: false,
            });
        }
        Input::new(path, reader, len, limit, false)
    };
    let mut mesh = MeshBuilder::new(path, limit);
    match format {
        Format::Obj => obj::parse(&mut input, &mut mesh)?,
        Format::Stl => stl::parse(&mut input, &mut mesh)?,
        Format::Ply => ply::parse(&mut input, &mut mesh)?,
    }
    let mesh = mesh.finish();
    if mesh.triangles.is_empty() {
        return Err(MeshError::Empty {
            path: path.to_path_buf(),
        });
    }
    // The parsers have checked everything with precise locations; this is a cheap guard that
    // the invariants really hold before the mesh leaves the loader.
    debug_assert!(mesh.validate(path).is_ok());
    Ok(mesh)
}

/// The most bytes a load may read or unzip, and the most bytes its vertex and triangle
/// arrays may take (24 per vertex, 12 per triangle): half the memory the system reports
/// available (Linux `MemAvailable`; 64 GiB where it cannot be read), or
/// `MESHCOLLIDE_MAX_INPUT_BYTES` when set. Why half: the hierarchies built on a mesh need
/// memory of the same order as the mesh, so a larger one could not be queried anyway; and a
/// gzip stream (up to 1032 bytes out per byte in) or an endless device is cut off with an
/// error instead of running on.
pub fn input_limit() -> u64 {
    if let Some(n) = std::env::var(crate::limits::MAX_INPUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        return n;
    }
    available_memory().map_or(64 << 30, |m| m / 2)
}

/// `MemAvailable` of `/proc/meminfo` in bytes, where the system has it.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A `Parse` error at `location`.
fn parse_error(path: &Path, location: Location, message: impl Into<String>) -> MeshError {
    MeshError::Parse {
        path: path.to_path_buf(),
        location,
        message: message.into(),
    }
}

/// Splits a line into whitespace-separated tokens.
fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
}

/// Parses one token as f64 exactly as `str::parse` does (correctly rounded: a decimal
/// with up to 17 significant digits written from an f64 comes back to the same f64; `nan`
/// and `inf` parse, and are then reported as non-finite by the caller).
fn parse_f64(token: &[u8]) -> Option<f64> {
    std::str::from_utf8(token).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extension_is_case_insensitive_and_gz_aware() {
        let f = |s: &str| format_of(Path::new(s));
        assert_eq!(f("a/b.OBJ"), Some((Format::Obj, false)));
        assert_eq!(f("dragon-vrip.ply.gz"), Some((Format::Ply, true)));
        assert_eq!(f("x.Stl.GZ"), Some((Format::Stl, true)));
        assert_eq!(f("x.gz"), None);
        assert_eq!(f("x.off"), None);
        assert_eq!(f("obj"), None);
    }

    /// A gzip bomb (a megabyte of newlines in about a kilobyte) is cut off at the limit with
    /// a typed error, and a stream that fits the limit exactly still reads whole.
    #[test]
    fn gzip_streams_stop_at_the_limit() {
        use std::io::Write;
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![b'\n'; 1 << 20]).unwrap();
        z.write_all(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3").unwrap();
        let bomb = z.finish().unwrap();
        assert!(bomb.len() < 4096, "{} bytes", bomb.len());
        let path = Path::new("bomb.obj.gz");
        let total = (1 << 20) + 31;
        let load = |limit| load_stream(path, Format::Obj, true, &bomb[..], None, limit);
        match load(total - 1) {
            Err(e @ MeshError::TooLarge { gz: true, .. }) => {
                let text = e.to_string();
                let want = format!(
                    "bomb.obj.gz: holds more than {} bytes once unzipped",
                    total - 1
                );
                assert!(text.starts_with(&want), "{text}");
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
        assert_eq!(load(total).unwrap().triangle_count(), 1);
    }
}
