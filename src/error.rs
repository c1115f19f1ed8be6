//! Typed errors of the library. Every error that comes from user input names where it came
//! from (file and line, face number, or pose row), so the command line can print it as is.
//!
//! Over 600 lines: the catalogue of every error enum the command line and Python match on,
//! each variant its fields and message; split by enum it would scatter one lookup table.

use std::path::PathBuf;

/// Where in an input file a problem sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// 1-based line of a text file.
    Line(usize),
    /// 0-based face (record) number of a binary file.
    Face(usize),
    /// 0-based vertex record of a binary file.
    Vertex(usize),
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Location::Line(l) => write!(f, "line {l}"),
            Location::Face(i) => write!(f, "face {i}"),
            Location::Vertex(i) => write!(f, "vertex {i}"),
        }
    }
}

/// Errors while reading or validating a mesh.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// The file could not be read, or its gzip stream is corrupt or truncated.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The mesh file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file name ends in none of `.obj`, `.stl`, `.ply` (optionally followed by `.gz`).
    #[error("{path}: unknown mesh extension (expected .obj, .stl or .ply, optionally with .gz)")]
    UnknownExtension {
        /// The mesh file.
        path: PathBuf,
    },
    /// Malformed content: a bad token, header, record or count.
    #[error("{path}: {location}: {message}")]
    Parse {
        /// The mesh file.
        path: PathBuf,
        /// Where in the file.
        location: Location,
        /// What is wrong, for the user.
        message: String,
    },
    /// A face refers to a vertex the file does not have.
    #[error("{path}: {location}: face names vertex {index}, but the file has {count} vertices")]
    MissingVertex {
        /// The mesh file ("(generated)" for [`crate::Mesh::new`]).
        path: PathBuf,
        /// The face's line (OBJ) or face record.
        location: Location,
        /// The vertex index as written: 1-based or negative (relative to the last vertex
        /// read) in OBJ, 0-based in PLY and in [`crate::Mesh::new`].
        index: i64,
        /// Number of vertices available (in OBJ, those read before the face).
        count: usize,
    },
    /// A vertex coordinate is NaN or infinite.
    #[error("{path}: {location}: vertex coordinate is NaN or infinite")]
    NonFinite {
        /// The mesh file.
        path: PathBuf,
        /// The vertex's line or record.
        location: Location,
    },
    /// A vertex coordinate is outside the range the exact predicates support (see
    /// [`crate::mesh::in_supported_range`]).
    #[error(
        "{path}: {location}: vertex coordinate {value:e} is outside the range the exact \
         predicates support (0, or a magnitude from 2^-200 ≈ 6.2e-61 to 2^100 ≈ 1.3e30)"
    )]
    OutOfRange {
        /// The mesh file.
        path: PathBuf,
        /// The vertex's line or record.
        location: Location,
        /// The offending coordinate.
        value: f64,
    },
    /// The mesh has no triangles (every later stage needs at least one).
    #[error("{path}: mesh has no triangles")]
    Empty {
        /// The mesh file.
        path: PathBuf,
    },
    /// The file, or its gzip stream once unzipped, is longer than the most bytes a load may
    /// read (see [`crate::mesh::load::input_limit`]): a decompression bomb, or a device that
    /// never ends. The input is streamed, so this bounds the time spent, not the memory.
    #[error(
        "{path}: holds more than {limit} bytes{unzipped}, more than this machine can read safely \
         ({from})",
        unzipped = if *gz { " once unzipped" } else { "" }, from = crate::limits::limit_from(*limit)
    )]
    TooLarge {
        /// The mesh file.
        path: PathBuf,
        /// The limit in bytes that was exceeded.
        limit: u64,
        /// Whether the limit was exceeded while unzipping.
        gz: bool,
    },
    /// A text line longer than [`crate::mesh::load::MAX_LINE`] bytes: a binary or damaged
    /// file given as a text format (`/dev/zero` as `.obj`). Found after reading at most
    /// that many bytes of the line, never by holding the whole line.
    #[error(
        "{path}: {location}: line longer than {max} bytes (it starts `{start}`): not a text mesh file?"
    )]
    LineTooLong {
        /// The mesh file.
        path: PathBuf,
        /// The line (of an OBJ statement continued with `\`, its first line).
        location: Location,
        /// The longest line accepted, in bytes.
        max: usize,
        /// The line's first characters as [`shown`] writes them.
        start: String,
    },
    /// A binary header (STL facet count, PLY element counts) declares more vertices and
    /// triangles than the memory limit holds: refused from the header, before any
    /// allocation.
    #[error(
        "{path}: {location}: the header declares {declared}, at least {bytes} bytes once read, \
         more than the memory limit of {limit} bytes ({from})", from = crate::limits::limit_from(*limit)
    )]
    DeclaredTooLarge {
        /// The mesh file.
        path: PathBuf,
        /// The header line (PLY) or face 0 (binary STL, whose header comes before it).
        location: Location,
        /// What the header declares, for the user (`4294967295 facets`).
        declared: String,
        /// The bytes the declared vertices and triangles take (24 and 12 each), saturated.
        bytes: u64,
        /// The limit ([`crate::mesh::load::input_limit`]).
        limit: u64,
    },
    /// The vertices and triangles read so far outgrow the memory limit (24 bytes per vertex,
    /// 12 per triangle): a text format, which declares no counts, is stopped as it grows.
    #[error(
        "{path}: {location}: the mesh outgrows the memory limit of {limit} bytes ({vertices} \
         vertices and {triangles} triangles read so far, 24 and 12 bytes each; {from})",
        from = crate::limits::limit_from(*limit)
    )]
    MeshTooLarge {
        /// The mesh file.
        path: PathBuf,
        /// The line or record that would have crossed the limit.
        location: Location,
        /// Vertices read so far.
        vertices: u64,
        /// Triangles read so far.
        triangles: u64,
        /// The limit ([`crate::mesh::load::input_limit`]).
        limit: u64,
    },
    /// A mesh given as a solid ([`crate::solid::Solid`]) is not closed: an edge (two vertex
    /// positions, compared exactly) belongs to a number of triangles other than two. The
    /// location is one triangle with that edge; `edge` its two corners there.
    #[error(
        "{path}: {location}: not a closed mesh: the edge from vertex {} ({}, {}, {}) to vertex {} \
         ({}, {}, {}) belongs to {uses} triangle{}, a closed mesh shares every edge between \
         exactly two",
        edge[0], ends[0][0], ends[0][1], ends[0][2], edge[1], ends[1][0], ends[1][1], ends[1][2],
        if *uses == 1 { "" } else { "s" }
    )]
    NotClosed {
        /// The mesh file ("(mesh)" for [`crate::solid::Solid::new`]).
        path: PathBuf,
        /// The face (0-based triangle index after fan triangulation) that has the edge.
        location: Location,
        /// The edge's two corners: 0-based vertex indices, as that triangle names them.
        edge: [u32; 2],
        /// Their positions.
        ends: [[f64; 3]; 2],
        /// How many triangles use the edge (triangles with two corners at one position do
        /// not count, see [`crate::solid`]).
        uses: usize,
    },
}

/// Errors while reading poses.
#[derive(Debug, thiserror::Error)]
pub enum PoseError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The poses file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line is longer than [`crate::pose::MAX_LINE`] bytes (no pose row is; a file
    /// without line breaks is not a poses file).
    #[error("{path}: line {line} is longer than {limit} bytes; not a poses.csv row")]
    LineTooLong {
        /// The poses file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// The first line is none of the headers of [`crate::pose::PoseColumns`].
    #[error(
        "{path}: line 1: expected the header `qw,qx,qy,qz,tx,ty,tz`, `qx,qy,qz,qw,tx,ty,tz` or \
         `r00,r01,r02,r10,r11,r12,r20,r21,r22,tx,ty,tz`, found `{found}`"
    )]
    Header {
        /// The poses file.
        path: PathBuf,
        /// The first line as found (trimmed).
        found: String,
    },
    /// A malformed pose row: wrong field count, a bad number, or an invalid quaternion.
    #[error("{path}: line {line} (pose {pose}): {message}")]
    Row {
        /// The poses file.
        path: PathBuf,
        /// 1-based line of the file (the header is line 1).
        line: usize,
        /// 0-based index of the pose (blank lines do not count).
        pose: usize,
        /// What is wrong, for the user.
        message: String,
    },
}

/// Errors while reading a saved hierarchy (`.mch`, [`crate::saved`]). Each names the file;
/// none comes from a panic or from an allocation larger than the file.
#[derive(Debug, thiserror::Error)]
pub enum SavedError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The `.mch` file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not start with the `.mch` magic bytes.
    #[error("{path}: not a saved hierarchy (wrong magic bytes)")]
    Magic {
        /// The file.
        path: PathBuf,
    },
    /// The file was written by another format version.
    #[error("{path}: saved hierarchy format version {found}, this build reads version {supported}")]
    Version {
        /// The file.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The version this build reads and writes.
        supported: u32,
    },
    /// The file is shorter (truncated) or longer than its header says.
    #[error("{path}: {len} bytes, but its header describes {expected} bytes ({what})")]
    Length {
        /// The file.
        path: PathBuf,
        /// Bytes in the file.
        len: u64,
        /// Bytes the header's counts require (saturated on overflow).
        expected: u64,
        /// `truncated` or `trailing bytes`.
        what: &'static str,
    },
    /// A checksum does not match: the file is corrupt.
    #[error(
        "{path}: {what} checksum mismatch (stored {stored:08x}, computed {computed:08x}): the file is corrupt"
    )]
    Checksum {
        /// The file.
        path: PathBuf,
        /// `mesh` or `payload`.
        what: &'static str,
        /// The stored CRC-32.
        stored: u32,
        /// The CRC-32 of the bytes read.
        computed: u32,
    },
    /// Invalid content the invariants do not name (not produced by this version's loader,
    /// which reports [`SavedError::Invariant`]; kept for callers that match on it).
    #[error("{path}: invalid saved hierarchy: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The hierarchy breaks an invariant the queries rely on for exact pairs. Every load
    /// checks them all: the checksums only catch accidents, and a file whose checksums were
    /// recomputed after an edit (a crafted file) must be refused, not answer wrongly.
    #[error("{path}: invalid saved hierarchy: {invariant} violated: {message}")]
    Invariant {
        /// The file.
        path: PathBuf,
        /// Which invariant, by its name in [`crate::saved::invariants`].
        invariant: &'static str,
        /// The node where it fails (one of them, the same for the same file), when it
        /// concerns one.
        node: Option<u64>,
        /// What is wrong there (names the node when there is one).
        message: String,
    },
    /// The header describes a file larger than may be read into memory (see
    /// [`crate::mesh::load::input_limit`]): refused before those bytes are read or allocated.
    #[error(
        "{path}: its header describes {expected} bytes, more than the {limit} this machine can read safely \
         ({from})", from = crate::limits::limit_from(*limit)
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Bytes the header's counts require (saturated on overflow).
        expected: u64,
        /// The limit.
        limit: u64,
    },
    /// The stored mesh is invalid (an index out of range, a coordinate out of range).
    #[error(transparent)]
    Mesh(#[from] MeshError),
}

/// Errors of deforming meshes: a frame list (`docs/FORMATS.md`, "Deforming meshes:
/// frame lists") or a frame of vertex positions that does not fit its base mesh. Each
/// names the file (or the mesh) and what differs, so the command line prints it as is.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The frame list itself could not be read.
    #[error("{list}: cannot read frame list: {source}")]
    List {
        /// The frame list.
        list: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A listed frame file does not exist or is not a regular file.
    #[error("{list}: line {line}: frame file {path} {problem}")]
    Missing {
        /// The frame list.
        list: PathBuf,
        /// 1-based line of the list naming it.
        line: usize,
        /// The frame file, resolved against the list's folder.
        path: PathBuf,
        /// What is wrong with it: `does not exist`, `is a directory`, `is not a regular
        /// file (…)`, `is a symbolic link to nothing …`.
        problem: &'static str,
    },
    /// A line of a frame list is too long or not text.
    #[error("{list}: line {line}: {what}")]
    BadLine {
        /// The frame list.
        list: PathBuf,
        /// 1-based line.
        line: usize,
        /// What is wrong.
        what: String,
    },
    /// A frame list names no frame.
    #[error("{list}: the frame list names no frame")]
    Empty {
        /// The frame list.
        list: PathBuf,
    },
    /// A frame has another vertex count than its base mesh.
    #[error("{path}: frame has {found} vertices, the base mesh {base} has {expected}")]
    VertexCount {
        /// The frame file.
        path: PathBuf,
        /// The base mesh file.
        base: PathBuf,
        /// The base mesh's vertex count.
        expected: usize,
        /// The frame's vertex count.
        found: usize,
    },
    /// A frame's faces differ from its base mesh's (the first differing one is named; a
    /// missing face is `None`).
    #[error(
        "{path}: face {face} of the frame is {}, in the base mesh {base} it is {} (frames must keep the base mesh's faces in order)",
        show_face(found),
        show_face(expected)
    )]
    Face {
        /// The frame file.
        path: PathBuf,
        /// The base mesh file.
        base: PathBuf,
        /// 0-based triangle index (after fan triangulation).
        face: usize,
        /// The base mesh's triangle there (`None`: the base has fewer triangles).
        expected: Option<[u32; 3]>,
        /// The frame's triangle there (`None`: the frame has fewer triangles).
        found: Option<[u32; 3]>,
    },
    /// A frame of vertex positions given to the library has another vertex count than the
    /// mesh it deforms.
    #[error("frame of mesh {mesh}: {found} vertex positions, the mesh has {expected}")]
    Positions {
        /// `"A"` or `"B"`.
        mesh: &'static str,
        /// The mesh's vertex count.
        expected: usize,
        /// The frame's.
        found: usize,
    },
    /// A vertex of a frame given to the library is not finite or outside the supported
    /// range ([`crate::mesh::in_supported_range`]).
    #[error(
        "frame of mesh {mesh}: vertex {vertex} has a coordinate that is NaN, infinite or outside the supported range (0, or a magnitude from 2^-200 to 2^100)"
    )]
    Coordinate {
        /// `"A"` or `"B"`.
        mesh: &'static str,
        /// 0-based vertex index.
        vertex: usize,
    },
    /// Loading a frame file failed (the error names the file).
    #[error(transparent)]
    Mesh(#[from] MeshError),
}

fn show_face(f: &Option<[u32; 3]>) -> String {
    match f {
        Some([a, b, c]) => format!("({a}, {b}, {c}) (0-based vertex indices)"),
        None => "missing".into(),
    }
}

/// Errors of a scene of many bodies ([`crate::bodies`]): its bodies and motion files, and
/// motions the scene refuses.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    /// A bodies or motion file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A row of a bodies or motion file is bad (line numbers count from 1, the header
    /// included).
    #[error("{path}: line {line}: {message}")]
    Row {
        /// The file.
        path: PathBuf,
        /// Its line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The mesh a row of the bodies file names could not be loaded.
    #[error("{path}: line {line}: {source}")]
    Mesh {
        /// The bodies file.
        path: PathBuf,
        /// Its line.
        line: usize,
        /// The mesh's error (it names the mesh file), boxed: it is the largest variant.
        #[source]
        source: Box<MeshError>,
    },
    /// A motion the scene refuses (an unknown body, a static body moved, a body removed
    /// that is not there), from the library's [`crate::bodies::Scene`] calls.
    #[error("{0}")]
    Motion(String),
}

/// The library's error type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or validating a mesh failed.
    #[error(transparent)]
    Mesh(#[from] MeshError),
    /// Reading poses failed.
    #[error(transparent)]
    Pose(#[from] PoseError),
    /// Reading a saved hierarchy (`.mch`) failed.
    #[error(transparent)]
    Saved(#[from] SavedError),
    /// A frame list or a frame of a deforming mesh is bad.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// A scene's bodies or motion is bad ([`crate::bodies`]).
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The GPU pipeline failed: no adapter, device or readback failure, a buffer over the
    /// device limit, or a CPU-only hierarchy (feature `gpu`).
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// An option value or combination the chosen hierarchy does not accept.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// Writing an output file failed.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The output file.
        path: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// `Result` with the library's [`Error`] by default.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of the GPU path (`gpu`). Defined here, not in `gpu`, so that this module sits
/// below every other: it names only `wgpu`'s error types.
#[cfg(feature = "gpu")]
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// wgpu found no adapter on any backend it tried.
    #[error(
        "no GPU adapter found (wgpu backends: {backends}); install a Vulkan driver such as Mesa's lavapipe (`apt-get install mesa-vulkan-drivers`), or run on the CPU"
    )]
    NoAdapter {
        /// The backends wgpu tried.
        backends: String,
    },
    /// The adapter refused the device (features or limits).
    #[error("GPU device request failed: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),
    /// Mapping a buffer for readback failed.
    #[error("GPU buffer readback failed: {0}")]
    Map(#[from] wgpu::BufferAsyncError),
    /// A mapped buffer could not be viewed.
    #[error("GPU buffer view failed: {0}")]
    MapRange(String),
    /// Waiting for the device failed.
    #[error("GPU poll failed: {0}")]
    Poll(#[from] wgpu::PollError),
    /// Input the GPU path cannot take (for example a mesh that does not match the hierarchy).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// One buffer would exceed the device's size limit even for a single pose.
    #[error("GPU buffer of {needed} bytes exceeds the device limit of {limit} bytes")]
    TooLarge {
        /// Bytes the buffer needs.
        needed: u64,
        /// The device's largest buffer.
        limit: u64,
    },
    /// Exact tumbling keeps every node of B for a pose in one binding, and they do not fit.
    #[error(
        "exact tumbling needs {needed} bytes per pose for B's nodes, beyond the GPU's storage binding limit of {limit} bytes; approximate tumbling (--tumble approx) moves only the nodes the traversal reaches"
    )]
    ExactTumbleTooLarge {
        /// Bytes of one pose's tumbled nodes.
        needed: u64,
        /// The binding limit.
        limit: u64,
    },
    /// The device ran out of memory (reported by wgpu's uncaptured-error handler).
    #[error("the GPU ran out of memory: {0}; try a smaller batch memory budget")]
    OutOfMemory(String),
    /// wgpu rejected a command or a resource (a bug of ours or of the driver).
    #[error("GPU validation error: {0}")]
    Validation(String),
    /// The device was lost (driver reset, device removed) or wgpu failed internally.
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// A tolerance per pose (the distance query's device half,
    /// [`crate::gpu::collide::GpuScene::within_each`]) on a hierarchy whose GPU test does
    /// not read B's grown k-DOPs (the dual, OBB and sphere trees).
    #[error(
        "a tolerance per pose runs on the GPU with the k-DOP hierarchies (auto, kdop6, kdop14, kdop18, kdop26); the {bv} hierarchy runs it on the CPU only (--backend cpu)"
    )]
    ToleranceUnsupported {
        /// Its name (`--bv`).
        bv: &'static str,
    },
    /// A distance query on a hierarchy whose GPU pipeline does not grow its volumes (the
    /// dual hierarchy, the OBB and sphere trees).
    #[error(
        "the distance query runs on the GPU with the k-DOP hierarchies (auto, kdop6, kdop14, kdop18, kdop26); the {bv} hierarchy runs it on the CPU only (--backend cpu)"
    )]
    DistanceUnsupported {
        /// Its name (`--bv`).
        bv: &'static str,
    },
    /// The hierarchy has no GPU pipeline (boxtree, R-tree).
    #[error("the {bv} hierarchy runs on the CPU only")]
    Unsupported {
        /// Its name (`--bv`).
        bv: &'static str,
    },
}

/// The most characters of one field of an input file (a token, a pose field, a header) that
/// an error message shows; longer fields end in `…`. A 1 MB field would otherwise give a
/// 1 MB message.
pub const FIELD_SHOWN: usize = 60;

/// A field of an input file as an error message shows it: at most [`FIELD_SHOWN`]
/// characters (then `…`), with control characters and bytes that are not UTF-8 escaped
/// ([`escape_controls`]), so that a file cannot write escape sequences to the terminal.
pub fn shown(field: &[u8]) -> String {
    let text = String::from_utf8_lossy(field);
    let mut out = String::new();
    let mut chars = text.chars();
    for c in chars.by_ref().take(FIELD_SHOWN) {
        push_escaped(&mut out, c, false);
    }
    if chars.next().is_some() {
        out.push('…');
    }
    out
}

/// `text` with every control character (C0 but line feed, DEL, C1) written as `\u{…}`
/// escapes, `\t` and `\r` as such: what the command line and Python print of any message,
/// so that no byte of an input file (`\x1b]0;…\x07` sets a terminal's title) or of a file
/// name reaches the terminal as a control sequence.
pub fn escape_controls(text: &str) -> String {
    if !text.chars().any(|c| c != '\n' && c.is_control()) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c, true);
    }
    out
}

fn push_escaped(out: &mut String, c: char, keep_newline: bool) {
    use std::fmt::Write;
    match c {
        '\n' if keep_newline => out.push('\n'),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c if c.is_control() => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_long_fields_cut() {
        assert_eq!(
            escape_controls("a\x1b]0;pwned\x07b\n"),
            "a\\u{1b}]0;pwned\\u{7}b\n"
        );
        assert_eq!(escape_controls("plain\ttext"), "plain\\ttext");
        assert_eq!(escape_controls("\u{9b}x"), "\\u{9b}x");
        assert_eq!(shown(b"1.5"), "1.5");
        assert_eq!(shown(b"a\nb\xff"), "a\\nb\u{fffd}");
        let long = vec![b'7'; 1 << 20];
        let s = shown(&long);
        assert_eq!(s.chars().count(), FIELD_SHOWN + 1);
        assert!(s.ends_with('…'));
    }
}
