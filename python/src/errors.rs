//! The library's errors as Python exceptions: input at fault → `InputError` (a
//! `ValueError`), the GPU → `GpuError` (a `RuntimeError`), writing → `OSError`. Every
//! message goes through [`escape_controls`], as the command line's do: messages quote file
//! names, fields of input files and option values, and a control byte of theirs
//! (`\x1b]0;…\x07` sets a terminal's title) must not reach a terminal or log as such.

use meshcollide::Error;
use meshcollide::error::escape_controls;
use meshcollide::gpu::GpuError as LibGpuError;
use pyo3::PyErr;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};

pyo3::create_exception!(
    meshcollide,
    InputError,
    PyValueError,
    "Bad input: a mesh, a poses file or array, or an option; the message names the file and line, face or pose row."
);
pyo3::create_exception!(
    meshcollide,
    GpuError,
    PyRuntimeError,
    "The GPU pipeline failed (no adapter, device lost, out of memory, validation)."
);

/// The Python exception for a library error, with the library's message (escaped).
pub fn to_py(e: Error) -> PyErr {
    let msg = escape_controls(&e.to_string());
    match e {
        // A CPU-only hierarchy (or query) asked to run on the GPU is an option at fault.
        Error::Gpu(
            LibGpuError::Unsupported { .. }
            | LibGpuError::ToleranceUnsupported { .. }
            | LibGpuError::DistanceUnsupported { .. },
        ) => InputError::new_err(msg),
        Error::Gpu(_) => GpuError::new_err(msg),
        Error::Write { .. } => PyOSError::new_err(msg),
        Error::Mesh(_)
        | Error::Pose(_)
        | Error::Saved(_)
        | Error::Frame(_)
        | Error::Scene(_)
        | Error::InvalidOption(_) => InputError::new_err(msg),
    }
}

/// An `InputError` with this message (escaped: it may quote what the caller passed).
pub fn input(msg: impl Into<String>) -> PyErr {
    InputError::new_err(escape_controls(&msg.into()))
}

/// A bug on our side, reported instead of a panic.
pub fn internal(msg: impl Into<String>) -> PyErr {
    PyRuntimeError::new_err(escape_controls(&msg.into()))
}
