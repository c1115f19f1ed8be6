//! Typed errors of the library. Every error that comes from user input names where it came
//! from (file and line, face number, or pose row), so the command line can print it as is.

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
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: unknown mesh extension (expected .obj, .stl or .ply, optionally with .gz)")]
    UnknownExtension { path: PathBuf },
    #[error("{path}: {location}: {message}")]
    Parse {
        path: PathBuf,
        location: Location,
        message: String,
    },
    #[error("{path}: {location}: face names vertex {index}, but the file has {count} vertices")]
    MissingVertex {
        path: PathBuf,
        location: Location,
        index: i64,
        count: usize,
    },
    #[error("{path}: {location}: vertex coordinate is NaN or infinite")]
    NonFinite { path: PathBuf, location: Location },
    #[error(
        "{path}: {location}: vertex coordinate {value:e} is outside the range the exact \
         predicates support (0, or a magnitude from 2^-200 ≈ 6.2e-61 to 2^100 ≈ 1.3e30)"
    )]
    OutOfRange {
        path: PathBuf,
        location: Location,
        value: f64,
    },
    #[error("{path}: mesh has no triangles")]
    Empty { path: PathBuf },
}

/// Errors while reading poses.
#[derive(Debug, thiserror::Error)]
pub enum PoseError {
    #[error("{path}: cannot read: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: line 1: expected the header `qw,qx,qy,qz,tx,ty,tz`, found `{found}`")]
    Header { path: PathBuf, found: String },
    #[error("{path}: line {line} (pose {pose}): {message}")]
    Row {
        path: PathBuf,
        line: usize,
        pose: usize,
        message: String,
    },
}

/// The library's error type.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Mesh(#[from] MeshError),
    #[error(transparent)]
    Pose(#[from] PoseError),
    #[cfg(feature = "gpu")]
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("invalid option: {0}")]
    InvalidOption(String),
    #[error("{path}: cannot write: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Errors of the GPU path (`gpu`). Defined here, not in `gpu`, so that this module sits
/// below every other: it names only `wgpu`'s error types.
#[cfg(feature = "gpu")]
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "no GPU adapter found (wgpu backends: {backends}); install a Vulkan driver such as Mesa's lavapipe (`apt-get install mesa-vulkan-drivers`), or run on the CPU"
    )]
    NoAdapter { backends: String },
    #[error("GPU device request failed: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),
    #[error("GPU buffer readback failed: {0}")]
    Map(#[from] wgpu::BufferAsyncError),
    #[error("GPU buffer view failed: {0}")]
    MapRange(String),
    #[error("GPU poll failed: {0}")]
    Poll(#[from] wgpu::PollError),
    #[error("invalid input: {0}")]
    InvalidInput(String),
    #[error("GPU buffer of {needed} bytes exceeds the device limit of {limit} bytes")]
    TooLarge { needed: u64, limit: u64 },
    #[error("the {bv} hierarchy runs on the CPU only")]
    Unsupported { bv: &'static str },
}
