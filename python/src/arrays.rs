//! NumPy arrays to and from the library's meshes and poses, with the checks and messages of
//! the file readers (row numbers name the bad input). Nothing is converted that could
//! change a value: coordinates and poses are float64 or float32, indices any integer dtype,
//! and every other dtype is refused rather than cast.

use crate::args::IntArg;
use crate::errors;
use meshcollide::mesh::in_supported_range;
use meshcollide::{Error, Location, Mesh, MeshError, Pose};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
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

/// Pose rows as read by [`read_pose_rows`]: a float64 `(P, 7)` array of
/// `qw,qx,qy,qz,tx,ty,tz` rows for a quaternion file (either order), `(P, 3, 4)` rows
/// `[R | t]` for a matrix file; `query` takes either as it is.
pub fn rows_to_array(py: Python<'_>, rows: PoseRows) -> PyResult<Bound<'_, PyAny>> {
    let (columns, rows) = rows;
    let n = rows.len();
    let flat: Vec<f64> = match columns {
        meshcollide::pose::PoseColumns::Wxyz => rows.into_iter().flatten().collect(),
        meshcollide::pose::PoseColumns::Xyzw => rows
            .into_iter()
            .flat_map(|v| [v[3], v[0], v[1], v[2], v[4], v[5], v[6]])
            .collect(),
        meshcollide::pose::PoseColumns::Matrix => rows
            .into_iter()
            .flat_map(|v| {
                [
                    v[0], v[1], v[2], v[9], v[3], v[4], v[5], v[10], v[6], v[7], v[8], v[11],
                ]
            })
            .collect(),
    };
    match columns {
        meshcollide::pose::PoseColumns::Matrix => table(py, flat, 12)
            .into_any()
            .call_method1("reshape", (n, 3, 4)),
        _ => Ok(table(py, flat, 7).into_any()),
    }
}

/// A `poses.csv` file's form and its rows' numbers as written, in the file's column order.
pub type PoseRows = (meshcollide::pose::PoseColumns, Vec<Vec<f64>>);

/// The rows of `poses.csv` as written: the file is checked first by the library's reader
/// (errors with file, line and pose; lines of at most `meshcollide::pose::MAX_LINE` bytes),
/// then its numbers are read again, a line at a time, without normalizing.
pub fn read_pose_rows(path: &Path) -> Result<PoseRows, Error> {
    use std::io::BufRead;
    let mut reader = meshcollide::pose::PoseReader::open(path)?;
    let columns = reader.columns();
    reader.try_for_each(|p| p.map(drop))?;
    let io = |source| meshcollide::PoseError::Io {
        path: path.to_path_buf(),
        source,
    };
    let reader = std::io::BufReader::new(std::fs::File::open(path).map_err(io)?);
    let mut rows = Vec::new();
    for (k, line) in reader.split(b'\n').enumerate().skip(1) {
        let line = line.map_err(io)?;
        let line = String::from_utf8_lossy(&line);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let row = columns
            .parse_fields(line)
            .map_err(|message| meshcollide::PoseError::Row {
                path: path.to_path_buf(),
                line: k + 1,
                pose: rows.len(),
                message,
            })?;
        rows.push(row);
    }
    Ok((columns, rows))
}

/// `obj` as a NumPy array (`np.asarray`, no copy of an array); an array-like NumPy makes
/// none of (a ragged list) is an `InputError` naming `what`.
fn asarray<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    py.import("numpy")?
        .call_method1("asarray", (obj,))
        .map_err(|e| {
            if e.is_instance_of::<PyValueError>(py) {
                errors::input(format!("{what}: not an array of numbers: {}", e.value(py)))
            } else {
                e
            }
        })
}

/// The NumPy dtype of `arr`: its kind (`f` float, `i`/`u` integer, `b` bool, `c` complex,
/// `U`/`S` strings, `O` objects, …), its size in bytes and its name.
fn dtype(arr: &Bound<'_, PyAny>) -> PyResult<(String, usize, String)> {
    let d = arr.getattr("dtype")?;
    Ok((
        d.getattr("kind")?.extract()?,
        d.getattr("itemsize")?.extract()?,
        d.str()?.to_string(),
    ))
}

/// Refuses any shape but `(n, width)`.
fn check_shape(arr: &Bound<'_, PyAny>, width: usize, what: &str) -> PyResult<()> {
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    if shape.len() != 2 || shape[1] != width {
        return Err(errors::input(format!(
            "{what}: expected shape (n, {width}), found {shape:?}"
        )));
    }
    Ok(())
}

/// `arr` as a C-contiguous array of `dtype` (`np.ascontiguousarray`: no copy when it is one).
fn contiguous<'py>(arr: &Bound<'py, PyAny>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    let np = arr.py().import("numpy")?;
    let kw = pyo3::types::PyDict::new(arr.py());
    kw.set_item("dtype", dtype)?;
    np.call_method("ascontiguousarray", (arr,), Some(&kw))
}

/// `obj` as a float64 or float32 NumPy array, any shape; every other dtype is refused (see
/// [`float_rows`]).
fn float_array<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let arr = asarray(obj, what)?;
    let (kind, size, name) = dtype(&arr)?;
    if kind != "f" || !(size == 4 || size == 8) {
        return Err(errors::input(format!(
            "{what}: expected a float64 or float32 array, found dtype {name} (nothing is \
             converted that could change a value)"
        )));
    }
    Ok(arr)
}

/// Rows of `W` real numbers (vertex coordinates, poses) from a float64 or float32 array,
/// read as f64 — exactly, whatever the byte order. Every other dtype is refused, not
/// converted: strings would be parsed (rounded otherwise than a file's numbers are), complex
/// numbers would lose their imaginary part, bool and object arrays hold no coordinates, a
/// long double would be rounded, and integers above 2^53 would be; one rule for every
/// array of numbers the queries take, where `.astype(np.float64)` is the caller's choice.
fn float_rows<const W: usize>(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<[f64; W]>> {
    let arr = float_array(obj, what)?;
    check_shape(&arr, W, what)?;
    let a: PyReadonlyArray2<f64> = contiguous(&arr, "float64")?.extract()?;
    Ok(a.as_array()
        .rows()
        .into_iter()
        .map(|r| std::array::from_fn(|k| r[k]))
        .collect())
}

/// Checks vertex positions as the mesh readers check a file's (finite, in the range the
/// exact predicates support), with their messages ([`MeshError::NonFinite`],
/// [`MeshError::OutOfRange`]): `what` ("mesh A", "frames[2]") stands where they name the
/// file, and the row where they name the line, so Python and the command line refuse the
/// same coordinates in the same words.
fn check_positions(positions: &[[f64; 3]], what: &str) -> PyResult<()> {
    let path = std::path::PathBuf::from(what);
    for (i, p) in positions.iter().enumerate() {
        let location = Location::Vertex(i);
        let e = if !p.iter().all(|c| c.is_finite()) {
            MeshError::NonFinite { path, location }
        } else if let Some(&value) = p.iter().find(|&&c| !in_supported_range(c)) {
            MeshError::OutOfRange {
                path,
                location,
                value,
            }
        } else {
            continue;
        };
        return Err(errors::to_py(e.into()));
    }
    Ok(())
}

/// Vertex positions from a float64 or float32 `(n, 3)` array, every coordinate checked
/// ([`check_positions`]); `what` names the array in errors.
pub fn positions_from_array(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<[f64; 3]>> {
    let positions = float_rows(obj, what)?;
    check_positions(&positions, what)?;
    Ok(positions)
}

/// Triangles from an integer `(m, 3)` array (any signed or unsigned integer dtype, read
/// through int64 or uint64, which hold every value of their kind exactly), each vertex
/// index checked to lie in `0..n` (and so to fit the library's u32): an index is never
/// wrapped or truncated. Float arrays are refused, even when every value is whole: indices
/// that went through floats are a mistake to report, and a whole float above 2^53 may
/// already be another number than was meant. The error names the row (the triangle).
fn triangles_from_array(obj: &Bound<'_, PyAny>, n: usize, what: &str) -> PyResult<Vec<[u32; 3]>> {
    let arr = asarray(obj, what)?;
    let (kind, _, name) = dtype(&arr)?;
    if kind != "i" && kind != "u" {
        let note = if kind == "f" {
            " (float indices are refused, whole or not)"
        } else {
            ""
        };
        return Err(errors::input(format!(
            "{what}: expected an integer array, found dtype {name}{note}"
        )));
    }
    check_shape(&arr, 3, what)?;
    // The indices' exclusive bound: the vertex count, and at most 2^32 (u32 indices).
    let end = (n as u64).min(1 << 32) as i128;
    let index = |i: usize, v: i128| {
        u32::try_from(v)
            .ok()
            .filter(|&u| i128::from(u) < end)
            .ok_or_else(|| {
                let range = if end == 0 {
                    "there are no vertices".to_string()
                } else {
                    format!("expected 0 to {} (the mesh has {n} vertices)", end - 1)
                };
                errors::input(format!(
                    "{what}: row {i}: vertex index {v} is out of range: {range}"
                ))
            })
    };
    fn rows<T: numpy::Element + Copy + Into<i128>>(
        arr: &Bound<'_, PyAny>,
        dtype: &str,
        index: impl Fn(usize, i128) -> PyResult<u32>,
    ) -> PyResult<Vec<[u32; 3]>> {
        let t: PyReadonlyArray2<T> = contiguous(arr, dtype)?.extract()?;
        t.as_array()
            .rows()
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                Ok([
                    index(i, r[0].into())?,
                    index(i, r[1].into())?,
                    index(i, r[2].into())?,
                ])
            })
            .collect()
    }
    if kind == "u" {
        rows::<u64>(&arr, "uint64", index)
    } else {
        rows::<i64>(&arr, "int64", index)
    }
}

/// A mesh from vertices `(n, 3)` (float64 or float32, every coordinate checked as a file's)
/// and triangles `(m, 3)` (any integer dtype, every index checked against `n`, at least
/// one); `name` ("mesh A") names it in errors.
pub fn mesh_from_arrays(
    vertices: &Bound<'_, PyAny>,
    triangles: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<Mesh> {
    let positions = float_rows(vertices, &format!("{name}: vertices"))?;
    check_positions(&positions, name)?;
    let triangles =
        triangles_from_array(triangles, positions.len(), &format!("{name}: triangles"))?;
    // The library refuses an empty mesh too, but under the name its own caller would give
    // (`self_collide`'s one mesh would be "mesh A"): here, the name the Python call gives.
    if triangles.is_empty() {
        let path = std::path::PathBuf::from(name);
        return Err(errors::to_py(MeshError::Empty { path }.into()));
    }
    Ok(Mesh {
        positions,
        triangles,
    })
}

/// A `[R | t]` row of 12 (3×4) or 16 (4×4) numbers by rows: the pose of `poses.csv`'s
/// matrix form, the 4×4's last row `0 0 0 1` exactly.
fn matrix_row(v: &[f64]) -> Result<Pose, String> {
    if v.len() == 16 && v[12..] != [0.0, 0.0, 0.0, 1.0] {
        return Err(format!("the last row is {:?}, not [0, 0, 0, 1]", &v[12..]));
    }
    let r = [[v[0], v[1], v[2]], [v[4], v[5], v[6]], [v[8], v[9], v[10]]];
    if let Some(k) = v.iter().position(|x| !x.is_finite()) {
        return Err(format!("entry {k} is not finite"));
    }
    Pose::from_rows(r, [v[3], v[7], v[11]])
}

/// The largest pose number a query may return: pose numbers (`first_pose + row`) are int64.
const MAX_POSE_NUMBER: i128 = i64::MAX as i128;

/// Poses from a float64 or float32 array, each checked as a `poses.csv` row of its form:
/// `(P, 7)` quaternion rows, `qw,qx,qy,qz,tx,ty,tz` with `quat="wxyz"` or
/// `qx,qy,qz,qw,tx,ty,tz` with `quat="xyzw"` (SciPy's order); or `(P, 3, 4)` / `(P, 4, 4)`
/// rigid transforms `[R | t]`, applied as written (`Pose::from_rows`; a 4×4's last row
/// must be `0 0 0 1`). `first_pose` is the global number of row 0, checked so that every
/// pose number `first_pose + row` is a non-negative int64. Errors name the row and its
/// pose number.
pub fn poses_from_array(
    obj: &Bound<'_, PyAny>,
    first_pose: &IntArg,
    quat: &str,
) -> PyResult<(Vec<Pose>, usize)> {
    use meshcollide::pose::PoseColumns;
    let arr = float_array(obj, "poses")?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let (columns, width) = match shape.as_slice() {
        [_, 7] => match quat {
            "wxyz" => (PoseColumns::Wxyz, 7),
            "xyzw" => (PoseColumns::Xyzw, 7),
            other => {
                return Err(errors::input(format!(
                    "quat: expected \"wxyz\" or \"xyzw\", found {:?}",
                    meshcollide::error::shown(other.as_bytes())
                )));
            }
        },
        [_, 3, 4] => (PoseColumns::Matrix, 12),
        [_, 4, 4] => (PoseColumns::Matrix, 16),
        _ => {
            return Err(errors::input(format!(
                "poses: expected shape (n, 7), (n, 3, 4) or (n, 4, 4), found {shape:?}"
            )));
        }
    };
    let n = shape[0];
    let flat = contiguous(&arr, "float64")?.call_method1("reshape", (n, width))?;
    let a: PyReadonlyArray2<f64> = flat.extract()?;
    let rows: Vec<Vec<f64>> = a
        .as_array()
        .rows()
        .into_iter()
        .map(|r| r.to_vec())
        .collect();
    let last_row = rows.len().saturating_sub(1) as i128;
    let first = first_pose.check(
        "first_pose",
        0,
        MAX_POSE_NUMBER - last_row,
        &format!(
            " (the pose numbers first_pose + row, for the {} rows, are int64)",
            rows.len()
        ),
    )?;
    let first = usize::try_from(first).map_err(|_| {
        errors::input(format!(
            "first_pose = {first} is beyond this platform's usize"
        ))
    })?;
    let poses = rows
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let pose = match width {
                7 => columns.pose(&v),
                _ => matrix_row(&v),
            };
            pose.map_err(|m| errors::input(format!("poses: row {i} (pose {}): {m}", first + i)))
        })
        .collect::<PyResult<_>>()?;
    Ok((poses, first))
}
