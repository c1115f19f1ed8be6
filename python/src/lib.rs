//! `meshcollide._meshcollide`: the Python bindings of `meshcollide` (re-exported by the
//! `meshcollide` package). Meshes and poses are NumPy arrays; every library error becomes a
//! typed Python exception ([`errors`]), and the GIL is released while hierarchies are built
//! and poses are queried.

mod args;
mod arrays;
mod budget;
mod chunks;
mod collider;
mod contact;
mod errors;
mod options;
mod pool;
mod scene;
mod self_query;
mod stats;

use numpy::PyArray2;
use pyo3::prelude::*;
use std::path::PathBuf;

/// Vertices `(n, 3)` and triangles `(m, 3)` as NumPy arrays.
type MeshArrays<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<i64>>);

/// Loads a mesh (OBJ, STL, PLY, optionally `.gz`, or the mesh a `.mch` file holds):
/// float64 vertices `(n, 3)` and int64 triangles `(m, 3)`, triangle `i` the file's i-th
/// after the fan split (`docs/FORMATS.md`).
#[pyfunction]
fn load_mesh(py: Python<'_>, path: PathBuf) -> PyResult<MeshArrays<'_>> {
    let mesh = py
        .detach(|| {
            // Opened once: the path may be a pipe.
            Ok::<_, meshcollide::Error>(match meshcollide::saved::load_mesh_or_saved(&path)? {
                meshcollide::saved::LoadedInput::Mesh(m) => m,
                meshcollide::saved::LoadedInput::Saved(s) => s.mesh,
            })
        })
        .map_err(errors::to_py)?;
    Ok(arrays::mesh_to_arrays(py, &mesh))
}

/// Reads `poses.csv` in any of its forms, every row checked as the command line checks it
/// (errors name the file, line and pose): float64 `(P, 7)` rows `qw,qx,qy,qz,tx,ty,tz`
/// for a quaternion file (a scalar-last file's fields moved into that order), `(P, 3, 4)`
/// rows `[R | t]` for a matrix file; the numbers as written.
#[pyfunction]
fn load_poses(py: Python<'_>, path: PathBuf) -> PyResult<Bound<'_, PyAny>> {
    let rows = py
        .detach(|| arrays::read_pose_rows(&path))
        .map_err(errors::to_py)?;
    arrays::rows_to_array(py, rows)
}

#[pymodule]
fn _meshcollide(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The crate's version is the package's: pyproject.toml takes it from Cargo.toml.
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("InputError", py.get_type::<errors::InputError>())?;
    m.add("GpuError", py.get_type::<errors::GpuError>())?;
    m.add_function(wrap_pyfunction!(load_mesh, m)?)?;
    m.add_function(wrap_pyfunction!(load_poses, m)?)?;
    m.add_function(wrap_pyfunction!(self_query::self_collide, m)?)?;
    m.add_class::<collider::Collider>()?;
    m.add_class::<scene::Scene>()?;
    Ok(())
}
