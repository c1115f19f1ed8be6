//! NumPy arrays to and from the library's meshes and poses, with the checks and messages of
//! the file readers (row numbers name the bad input).

use crate::errors;
use meshcollide::{Error, Mesh, Pose};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use std::path::Path;

/// A mesh as float64 vertices `(n, 3)` and int64 triangles `(m, 3)`.
pub fn mesh_to_arrays<'py>(py: Python<'py>, mesh: &Mesh) -> crate::MeshArrays<'py> {
    let v: Vec<f64> = mesh.positions.iter().flatten().copied().collect();
    let t: Vec<i64> = mesh.triangles.iter().flatten().map(|&i| i as i64).collect();
    (table(py, v, 3), table(py, t, 3))
}

/// Rows of `width` numbers as a 2-D array.
fn table<T: numpy::Element>(py: Python<'_>, flat: Vec<T>, width: usize) -> Bound<'_, PyArray2<T>> {
    let rows = flat.len() / width;
    Array2::from_shape_vec((rows, width), flat)
        .expect("flat.len() is rows × width")
        .into_pyarray(py)
}

/// Pose rows as a float64 `(P, 7)` array.
pub fn rows_to_array(py: Python<'_>, rows: Vec<[f64; 7]>) -> Bound<'_, PyArray2<f64>> {
    table(py, rows.into_iter().flatten().collect(), 7)
}

/// The rows of `poses.csv` as written: the file is checked first by the library's reader
/// (errors with file, line and pose), then its numbers are read again without normalizing.
pub fn read_pose_rows(path: &Path) -> Result<Vec<[f64; 7]>, Error> {
    meshcollide::pose::count_poses(path)?;
    let bytes = std::fs::read(path).map_err(|source| meshcollide::PoseError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let mut rows = Vec::new();
    for (k, line) in text.lines().enumerate().skip(1) {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let row = meshcollide::pose::parse_fields(line).map_err(|message| {
            meshcollide::PoseError::Row {
                path: path.to_path_buf(),
                line: k + 1,
                pose: rows.len(),
                message,
            }
        })?;
        rows.push(row);
    }
    Ok(rows)
}

/// `obj` as a C-contiguous `(n, width)` array of `dtype` (`np.ascontiguousarray`); `what`
/// names it in errors.
fn as_table<'py>(
    obj: &Bound<'py, PyAny>,
    dtype: &str,
    width: usize,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let np = obj.py().import("numpy")?;
    let arr = np.call_method1("asarray", (obj,))?;
    if dtype == "int64" {
        let kind: String = arr.getattr("dtype")?.getattr("kind")?.extract()?;
        let empty: bool = arr.getattr("size")?.extract::<usize>()? == 0;
        if !empty && kind != "i" && kind != "u" {
            return Err(errors::input(format!(
                "{what}: expected an integer array, found dtype {}",
                arr.getattr("dtype")?.str()?
            )));
        }
    }
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    if shape.len() != 2 || shape[1] != width {
        return Err(errors::input(format!(
            "{what}: expected shape (n, {width}), found {shape:?}"
        )));
    }
    let kw = pyo3::types::PyDict::new(obj.py());
    kw.set_item("dtype", dtype)?;
    np.call_method("ascontiguousarray", (arr,), Some(&kw))
}

/// A mesh from NumPy-like vertices `(n, 3)` and integer triangles `(m, 3)` (any integer
/// dtype); `name` ("mesh A") names it in errors. Coordinates are checked when the
/// hierarchies are built, as for files.
pub fn mesh_from_arrays(
    vertices: &Bound<'_, PyAny>,
    triangles: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Mesh> {
    let v = as_table(vertices, "float64", 3, &format!("{name}: vertices"))?;
    let v: PyReadonlyArray2<f64> = v.extract()?;
    let t = as_table(triangles, "int64", 3, &format!("{name}: triangles"))?;
    let t: PyReadonlyArray2<i64> = t.extract()?;
    let positions = v
        .as_array()
        .rows()
        .into_iter()
        .map(|r| [r[0], r[1], r[2]])
        .collect();
    let mut tris = Vec::with_capacity(t.shape()[0]);
    for (i, r) in t.as_array().rows().into_iter().enumerate() {
        let mut tri = [0u32; 3];
        for k in 0..3 {
            tri[k] = u32::try_from(r[k]).map_err(|_| {
                errors::input(format!(
                    "{name}: triangle {i}: vertex index {} is negative or too large",
                    r[k]
                ))
            })?;
        }
        tris.push(tri);
    }
    Ok(Mesh {
        positions,
        triangles: tris,
    })
}

/// Vertex positions from a float64-like `(n, 3)` array; `what` names it in errors.
pub fn positions_from_array(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<[f64; 3]>> {
    let v = as_table(obj, "float64", 3, what)?;
    let v: PyReadonlyArray2<f64> = v.extract()?;
    Ok(v.as_array()
        .rows()
        .into_iter()
        .map(|r| [r[0], r[1], r[2]])
        .collect())
}

/// Poses from a float64-like `(P, 7)` array of `qw,qx,qy,qz,tx,ty,tz` rows, each checked as
/// a `poses.csv` row; errors name the row and its global pose number (`first_pose + row`).
pub fn poses_from_array(obj: &Bound<'_, PyAny>, first_pose: usize) -> PyResult<Vec<Pose>> {
    let a = as_table(obj, "float64", 7, "poses")?;
    let a: PyReadonlyArray2<f64> = a.extract()?;
    a.as_array()
        .rows()
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            let v = [r[0], r[1], r[2], r[3], r[4], r[5], r[6]];
            meshcollide::pose::pose_from_row(v).map_err(|m| {
                errors::input(format!("poses: row {i} (pose {}): {m}", first_pose + i))
            })
        })
        .collect()
}
