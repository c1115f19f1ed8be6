//! The library's errors as Python exceptions: input at fault → `InputError` (a
//! `ValueError`), the GPU → `GpuError` (a `RuntimeError`), writing → `OSError`.

use meshcollide::Error;
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

/// The Python exception for a library error, with the library's message.
pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        // A CPU-only hierarchy asked to run on the GPU is an option at fault.
        Error::Gpu(LibGpuError::Unsupported { .. }) => InputError::new_err(msg),
        Error::Gpu(_) => GpuError::new_err(msg),
        Error::Write { .. } => PyOSError::new_err(msg),
        Error::Mesh(_)
        | Error::Pose(_)
        | Error::Saved(_)
        | Error::Frame(_)
        | Error::InvalidOption(_) => InputError::new_err(msg),
    }
}

/// An `InputError` with this message.
pub fn input(msg: impl Into<String>) -> PyErr {
    InputError::new_err(msg.into())
}

/// A bug on our side, reported instead of a panic.
#[allow(dead_code)]
pub fn internal(msg: impl Into<String>) -> PyErr {
    PyRuntimeError::new_err(msg.into())
}
