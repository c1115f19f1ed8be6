//! Mesh loading by file extension (`.obj`, `.stl`, `.ply`, each optionally `.gz`), following
//! the mesh contract of `../shared/FORMATS.md`: positions as read (f64, no welding), polygons
//! split as a fan in file order, and every error naming the file and the line (text formats)
//! or the face/vertex record (binary formats).
//!
//! Each format parser returns a mesh whose vertices are already checked for NaN/infinity and
//! whose indices are already in range, because only the parser still knows the line or record
//! a problem came from; [`Mesh::validate`] would only know the triangle number.

use super::Mesh;
use crate::MeshError;
use crate::error::Location;
use std::io::Read;
use std::path::Path;

#[path = "obj.rs"]
mod obj;
#[path = "ply.rs"]
mod ply;
#[path = "stl.rs"]
mod stl;

/// The formats FORMATS.md allows, chosen by extension.
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

/// Loads a mesh file, choosing the format by extension (see the module docs).
pub fn load(path: &Path) -> Result<Mesh, MeshError> {
    // Check the extension first so an unsupported file is reported as such without reading it.
    format_of(path).ok_or_else(|| MeshError::UnknownExtension {
        path: path.to_path_buf(),
    })?;
    let io = |source| MeshError::Io {
        path: path.to_path_buf(),
        source,
    };
    let limit = input_limit();
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > limit {
        return Err(MeshError::TooLarge {
            path: path.to_path_buf(),
            limit,
            gz: false,
        });
    }
    let bytes = std::fs::read(path).map_err(io)?;
    load_bytes(path, &bytes)
}

/// The most bytes a mesh file may hold in memory, read or unzipped: half the memory the
/// system reports available (Linux `MemAvailable`; 64 GiB where it cannot be read), or
/// `MESHCOLLIDE_MAX_INPUT_BYTES` when set. Why half: the parsed mesh and its hierarchies need
/// memory of the same order as the text they come from, so a file above it could not be
/// queried anyway, and a gzip stream (up to 1032 bytes out per byte in) is cut off with an
/// error instead of exhausting the memory.
pub fn input_limit() -> u64 {
    if let Some(n) = std::env::var("MESHCOLLIDE_MAX_INPUT_BYTES")
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

/// Unzips `bytes` (one or more gzip members), refusing to produce more than `limit` bytes.
fn gunzip(path: &Path, bytes: &[u8], limit: u64) -> Result<Vec<u8>, MeshError> {
    let mut out = Vec::new();
    // A corrupt or truncated gzip stream has no line to name, so it is an Io error
    // ("cannot read: …") rather than a Parse error.
    flate2::read::MultiGzDecoder::new(bytes)
        .take(limit.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|source| MeshError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if out.len() as u64 > limit {
        return Err(MeshError::TooLarge {
            path: path.to_path_buf(),
            limit,
            gz: true,
        });
    }
    Ok(out)
}

/// Parses the contents of a mesh file already in memory. `path` chooses the format by its
/// extension (as in [`load`]) and names the file in errors; it is never opened.
pub fn load_bytes(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let (format, gz) = format_of(path).ok_or_else(|| MeshError::UnknownExtension {
        path: path.to_path_buf(),
    })?;
    let unzipped;
    let bytes = if gz {
        unzipped = gunzip(path, bytes, input_limit())?;
        &unzipped[..]
    } else {
        bytes
    };
    let mesh = match format {
        Format::Obj => obj::parse(path, bytes)?,
        Format::Stl => stl::parse(path, bytes)?,
        Format::Ply => ply::parse(path, bytes)?,
    };
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

/// A `Parse` error at `location`.
fn parse_error(path: &Path, location: Location, message: impl Into<String>) -> MeshError {
    MeshError::Parse {
        path: path.to_path_buf(),
        location,
        message: message.into(),
    }
}

/// Pushes the fan triangles of polygon `poly` (`(v0,v1,v2), (v0,v2,v3), …`, FORMATS.md).
/// The caller has checked `poly.len() >= 3`.
fn push_fan(triangles: &mut Vec<[u32; 3]>, poly: &[u32]) {
    for w in poly[1..].windows(2) {
        triangles.push([poly[0], w[0], w[1]]);
    }
}

/// A text cursor over lines that keeps the 1-based line number, without allocating.
/// Accepts `\n` and `\r\n` endings.
struct Lines<'a> {
    rest: &'a [u8],
    /// Number of the line last returned (0 before the first).
    line: usize,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Lines {
            rest: bytes,
            line: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = match self.rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, &self.rest[self.rest.len()..]),
        };
        self.rest = rest;
        self.line += 1;
        Some((self.line, line.strip_suffix(b"\r").unwrap_or(line)))
    }
}

/// Splits a line into whitespace-separated tokens.
fn tokens(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
}

/// Parses one token as f64 exactly as `str::parse` does (correctly rounded: a decimal
/// with up to 17 significant digits written from an f64 comes back to the same f64) (so `nan`/`inf` parse, and are then
/// reported as non-finite by the caller).
fn parse_f64(token: &[u8]) -> Option<f64> {
    std::str::from_utf8(token).ok()?.parse().ok()
}

/// Shows a token in an error message, shortened and lossless for garbage bytes.
fn show(token: &[u8]) -> String {
    let shown = String::from_utf8_lossy(&token[..token.len().min(40)]).into_owned();
    if token.len() > 40 {
        shown + "…"
    } else {
        shown
    }
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

    /// A gzip bomb (a megabyte of zeros in about a kilobyte) is cut off at the limit with a
    /// typed error, and a stream that fits the limit exactly still reads whole.
    #[test]
    fn gzip_streams_stop_at_the_limit() {
        use std::io::Write;
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        z.write_all(&vec![0u8; 1 << 20]).unwrap();
        let bomb = z.finish().unwrap();
        assert!(bomb.len() < 4096, "{} bytes", bomb.len());
        let path = Path::new("bomb.obj.gz");
        match gunzip(path, &bomb, (1 << 20) - 1) {
            Err(e @ MeshError::TooLarge { gz: true, .. }) => {
                let text = e.to_string();
                assert!(
                    text.starts_with("bomb.obj.gz: holds more than 1048575 bytes once unzipped"),
                    "{text}"
                );
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
        assert_eq!(gunzip(path, &bomb, 1 << 20).unwrap().len(), 1 << 20);
    }

    #[test]
    fn fan_order() {
        let mut t = Vec::new();
        push_fan(&mut t, &[0, 1, 2, 3, 4]);
        assert_eq!(t, vec![[0, 1, 2], [0, 2, 3], [0, 3, 4]]);
    }

    #[test]
    fn lines_count_and_strip_cr() {
        let v: Vec<_> = Lines::new(b"a\r\n\nb").collect();
        assert_eq!(v, vec![(1, &b"a"[..]), (2, &b""[..]), (3, &b"b"[..])]);
    }
}
