//! `meshcollide.Scene`: a scene of many bodies (the library's [`meshcollide::bodies`],
//! `meshcollide scene`'s machinery), stepped frame by frame from NumPy arrays: each step's
//! contacts returned as an int64 `(K, 5)` array of `contacts.csv` rows
//! (`frame, body_a, tri_a, body_b, tri_b`, `docs/FORMATS.md`, "Scenes of many bodies").

use crate::args::IntArg;
use crate::collider::{Backend, choose_backend};
use crate::{arrays, errors};
use meshcollide::bodies::files::read_bodies;
use meshcollide::option_names::UnknownName;
use meshcollide::{Body, BodyKind, BuildOptions, Mesh, Motion, Pose, SceneOptions};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// What a step changes: the library's scene, the frame counter, the last statistics.
struct State {
    scene: meshcollide::Scene,
    /// The number the next `step` gives its rows (the steps taken so far).
    frame: u64,
    /// The last `step`'s or `contacts`'s statistics, serialized.
    last_stats: Option<String>,
}

/// Many bodies (meshes placed in the world) whose intersecting triangle pairs are found
/// frame by frame: `meshcollide scene` with arrays. No body is present until placed
/// (`step`, `insert`). `meshes`: a sequence of `(vertices, triangles)` pairs, each checked
/// as `Collider`'s arrays (float64 or float32 `(n, 3)`, any integer dtype `(m, 3)`; errors
/// name `meshes[k]`). `bodies`: an integer array `(B,)`, body `i`'s mesh number; bodies
/// naming the same mesh share one hierarchy, built once (a mesh no body names is not
/// built). `static`: a bool array `(B,)`, `True` for a body of the environment (placed
/// once, never moved; two static bodies are never paired); default every body moving.
/// `bv`: a k-DOP (`kdop6`, `kdop14`, `kdop18`, `kdop26`; `auto` is kdop18); `split`,
/// `split_point`, `leaf_size` as `Collider`'s. `mode="first"`: at most one contact per
/// pair of bodies and frame. `self_pairs`: also the pairs inside each moving body
/// (`body_a = body_b`, `tri_a < tri_b`, the self-collision rule). `threads`: the scene's
/// own pool of that many threads (1 to 4096), for its build and every step; default
/// rayon's global pool.
#[pyclass(module = "meshcollide", frozen)]
pub struct Scene {
    /// Locked only with the GIL released, so that a step in one thread never blocks
    /// another thread's Python code.
    state: Mutex<State>,
    /// `threads=N`: the pool the build and every step run on; `None`: rayon's global pool.
    pool: Option<rayon::ThreadPool>,
    build_ms: f64,
}

/// An option enum from its command-line name (`InputError` listing the valid ones).
fn parse<T: FromStr<Err = UnknownName>>(s: &str) -> PyResult<T> {
    s.parse()
        .map_err(|e: UnknownName| errors::input(e.to_string()))
}

/// `obj` as a NumPy array; what NumPy makes none of (a ragged list) is an `InputError`.
fn asarray<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    py.import("numpy")?
        .call_method1("asarray", (obj,))
        .map_err(|e| match e.is_instance_of::<PyValueError>(py) {
            true => errors::input(format!("{what}: not an array: {}", e.value(py))),
            false => e,
        })
}

/// A 1-D array's length, dtype kind and dtype name; any other shape is an `InputError`.
fn vector(arr: &Bound<'_, PyAny>, what: &str) -> PyResult<(usize, String, String)> {
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let [n] = shape[..] else {
        return Err(errors::input(format!(
            "{what}: expected shape (n,), found {shape:?}"
        )));
    };
    let d = arr.getattr("dtype")?;
    Ok((n, d.getattr("kind")?.extract()?, d.str()?.to_string()))
}

/// `arr` as a contiguous 1-D array of `dtype`, read (no copy when it is one).
fn values<T: numpy::Element + Copy>(arr: &Bound<'_, PyAny>, dtype: &str) -> PyResult<Vec<T>> {
    let np = arr.py().import("numpy")?;
    let a: PyReadonlyArray1<T> = np
        .call_method1("ascontiguousarray", (arr, dtype))?
        .extract()?;
    Ok(a.as_array().iter().copied().collect())
}

/// Numbers from an integer array `(n,)` (any integer dtype, read exactly; an empty list
/// too, which NumPy makes float64), each in `0..end`, else an `InputError` naming the
/// argument, the entry and (`why`) what the number must be. Floats are refused, whole or
/// not, as triangles' indices are.
fn indices(
    obj: &Bound<'_, PyAny>,
    what: &str,
    end: usize,
    why: impl Fn(i128) -> String,
) -> PyResult<Vec<u32>> {
    let arr = asarray(obj, what)?;
    let (n, kind, name) = vector(&arr, what)?;
    if n == 0 {
        return Ok(vec![]);
    }
    let wide: Vec<i128> = match kind.as_str() {
        "u" => values::<u64>(&arr, "uint64")?
            .into_iter()
            .map(i128::from)
            .collect(),
        "i" => values::<i64>(&arr, "int64")?
            .into_iter()
            .map(i128::from)
            .collect(),
        _ => {
            return Err(errors::input(format!(
                "{what}: expected an integer array, found dtype {name}"
            )));
        }
    };
    wide.into_iter()
        .enumerate()
        .map(|(k, v)| {
            u32::try_from(v)
                .ok()
                .filter(|&u| (u as usize) < end)
                .ok_or_else(|| errors::input(format!("{what}[{k}]: {}", why(v))))
        })
        .collect()
}

/// `ids=` / `remove=`: body numbers of a scene of `count` bodies.
fn body_ids(obj: &Bound<'_, PyAny>, what: &str, count: usize) -> PyResult<Vec<u32>> {
    indices(obj, what, count, |v| {
        format!("body {v} is not in the scene (it has {count} bodies)")
    })
}

/// `static=`: one bool per body (`None`: every body moving).
fn kinds(obj: Option<&Bound<'_, PyAny>>, count: usize) -> PyResult<Vec<BodyKind>> {
    let Some(obj) = obj else {
        return Ok(vec![BodyKind::Moving; count]);
    };
    let arr = asarray(obj, "static")?;
    let (n, kind, name) = vector(&arr, "static")?;
    if n != count {
        return Err(errors::input(format!(
            "static: {n} values for {count} bodies (one per body)"
        )));
    }
    if n > 0 && kind != "b" {
        return Err(errors::input(format!(
            "static: expected a bool array, found dtype {name}"
        )));
    }
    let flags: Vec<bool> = if n > 0 { values(&arr, "bool")? } else { vec![] };
    Ok(flags
        .into_iter()
        .map(|s| match s {
            true => BodyKind::Static,
            false => BodyKind::Moving,
        })
        .collect())
}

/// `poses=` for the bodies `ids`, one each, in any form `Collider.query` takes; a bad row's
/// error names its body.
fn poses_for(obj: Option<&Bound<'_, PyAny>>, ids: &[u32], quat: &str) -> PyResult<Vec<Pose>> {
    let Some(obj) = obj else {
        return match ids.len() {
            0 => Ok(vec![]),
            n => Err(errors::input(format!("poses: missing ({n} ids given)"))),
        };
    };
    let py = obj.py();
    if ids.is_empty() && py.import("numpy")?.call_method1("size", (obj,))?.eq(0)? {
        return Ok(vec![]);
    }
    let (poses, _) = arrays::poses_from_array(obj, &IntArg::Int(0), quat).map_err(|e| {
        // "poses: row i (pose i): why" becomes "poses: row i (body b): why".
        let msg = e.value(py).to_string();
        let named = msg.strip_prefix("poses: row ").and_then(|rest| {
            let (row, why) = rest.split_once(" (pose ")?;
            let body = ids.get(row.parse::<usize>().ok()?)?;
            let (_, why) = why.split_once("): ")?;
            Some(format!("poses: row {row} (body {body}): {why}"))
        });
        match named {
            Some(m) if e.is_instance_of::<errors::InputError>(py) => errors::InputError::new_err(m),
            _ => e,
        }
    })?;
    if poses.len() != ids.len() {
        return Err(errors::input(format!(
            "poses: {} poses for {} ids (one per body)",
            poses.len(),
            ids.len()
        )));
    }
    Ok(poses)
}

/// The keyword arguments both constructors take, checked.
fn scene_options(
    bv: &str,
    mode: &str,
    self_pairs: bool,
    split: &str,
    split_point: &str,
    leaf_size: &IntArg,
) -> PyResult<SceneOptions> {
    Ok(SceneOptions {
        bv: parse(bv)?,
        build: BuildOptions {
            rule: parse(split)?,
            point: parse(split_point)?,
            leaf_size: leaf_size.u32_in("leaf_size", 1, u32::MAX)?,
        },
        mode: parse(mode)?,
        self_pairs,
    })
}

/// A contact array's rows, flat, as an int64 `(K, 5)` array.
fn table(py: Python<'_>, rows: Vec<i64>) -> PyResult<Bound<'_, PyArray2<i64>>> {
    let k = rows.len() / 5;
    Ok(Array2::from_shape_vec((k, 5), rows)
        .map_err(|e| errors::internal(e.to_string()))?
        .into_pyarray(py))
}

impl Scene {
    /// The state (a poisoned lock still holds a whole scene: a motion is applied whole or
    /// not at all). Called with the GIL released only.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Builds the scene on the pool, with the GIL released.
    fn build(
        py: Python<'_>,
        bodies: Vec<Body>,
        options: SceneOptions,
        threads: Option<IntArg>,
    ) -> PyResult<Self> {
        let pool = crate::pool::build(crate::pool::threads(threads.as_ref())?)?;
        let t = Instant::now();
        let scene = py
            .detach(|| crate::pool::on(pool.as_ref(), || meshcollide::Scene::new(bodies, options)))
            .map_err(errors::to_py)?;
        Ok(Scene {
            state: Mutex::new(State {
                scene,
                frame: 0,
                last_stats: None,
            }),
            pool,
            build_ms: t.elapsed().as_secs_f64() * 1e3,
        })
    }

    /// Number of bodies (present or not).
    fn count(&self, py: Python<'_>) -> usize {
        py.detach(|| self.lock().scene.body_count())
    }

    /// Applies `motions` (all or none) and finds the contacts on `backend`, with the GIL
    /// released: the rows, numbered with the frame counter, which `advance` moves on.
    fn run<'py>(
        &self,
        py: Python<'py>,
        motions: Vec<(u32, Motion)>,
        backend: Backend,
        advance: bool,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let rows = py
            .detach(|| {
                let (gpu, note, probe_ms) = choose_backend(backend)?;
                let mut guard = self.lock();
                let st = &mut *guard;
                crate::pool::on(self.pool.as_ref(), || {
                    let t = Instant::now();
                    let (r, g) = match &gpu {
                        Some(ctx) => {
                            let (r, g) = st.scene.step_gpu(ctx, &motions)?;
                            (r, Some(g))
                        }
                        None => (st.scene.step(&motions)?, None),
                    };
                    let step_ms = t.elapsed().as_secs_f64() * 1e3;
                    let frame = st.frame;
                    st.frame += u64::from(advance);
                    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                    let mut stats = serde_json::json!({
                        "frame": frame,
                        "backend": match &gpu {
                            Some(ctx) => format!("gpu: {}", ctx.adapter_name()),
                            None => "cpu".into(),
                        },
                        "bv": st.scene.options().bv.name(),
                        "bodies": st.scene.body_count(),
                        "meshes": st.scene.mesh_count(),
                        "contacts": r.contacts.len(),
                        "broad_pairs": r.broad_pairs,
                        "relative_pairs": r.relative_pairs,
                        "swaps": r.swaps,
                        "broad_ms": ms(r.broad),
                        "narrow_ms": ms(r.narrow),
                        "step_ms": step_ms,
                        "bv_tests": r.counters.bv_tests,
                        "tri_tests": r.counters.tri_tests,
                        "bv_updates": r.counters.bv_updates,
                    });
                    if let Some(m) = stats.as_object_mut() {
                        if let Some(g) = g {
                            m.insert(
                                "gpu".into(),
                                serde_json::json!({
                                    "submissions": g.submissions,
                                    "dispatches": g.dispatches,
                                    "readbacks": g.readbacks,
                                    "bytes_uploaded": g.bytes_uploaded,
                                    "bytes_read_back": g.bytes_read_back,
                                }),
                            );
                        }
                        if let Some(note) = note {
                            m.insert("note".into(), note.into());
                        }
                        if let Some(ms) = probe_ms {
                            m.insert("gpu_probe_ms".into(), ms.into());
                        }
                    }
                    st.last_stats = Some(stats.to_string());
                    let mut rows = Vec::with_capacity(r.contacts.len() * 5);
                    for c in &r.contacts {
                        rows.extend([frame as i64, c.body_a.into(), c.tri_a.into()]);
                        rows.extend([i64::from(c.body_b), c.tri_b.into()]);
                    }
                    Ok::<_, meshcollide::Error>(rows)
                })
            })
            .map_err(errors::to_py)?;
        table(py, rows)
    }

    /// The `Place` motions of `ids` and `poses` (both or neither), checked.
    fn places(
        &self,
        py: Python<'_>,
        ids: Option<&Bound<'_, PyAny>>,
        poses: Option<&Bound<'_, PyAny>>,
        quat: &str,
    ) -> PyResult<Vec<(u32, Motion)>> {
        let ids = match ids {
            Some(ids) => body_ids(ids, "ids", self.count(py))?,
            None if poses.is_some() => {
                return Err(errors::input("ids: missing (poses given without ids)"));
            }
            None => vec![],
        };
        let poses = poses_for(poses, &ids, quat)?;
        Ok(ids
            .into_iter()
            .zip(poses)
            .map(|(i, p)| (i, Motion::Place(p)))
            .collect())
    }

    /// Applies `motions` (all or none), finding no contacts.
    fn apply(&self, py: Python<'_>, motions: Vec<(u32, Motion)>) -> PyResult<()> {
        py.detach(|| self.lock().scene.apply(&motions))
            .map_err(errors::to_py)
    }
}

#[pymethods]
impl Scene {
    /// Builds the scene (the class's docs).
    #[new]
    #[pyo3(
        signature = (meshes, bodies, r#static = None, *, bv = "auto", mode = "all", self_pairs = false, split = "splatter", split_point = "mean", leaf_size = IntArg::Int(1), threads = None),
        text_signature = "(meshes, bodies, static=None, *, bv='auto', mode='all', self_pairs=False, split='splatter', split_point='mean', leaf_size=1, threads=None)"
    )]
    #[allow(clippy::too_many_arguments)] // the Python signature
    fn new(
        py: Python<'_>,
        meshes: &Bound<'_, PyAny>,
        bodies: &Bound<'_, PyAny>,
        r#static: Option<&Bound<'_, PyAny>>,
        bv: &str,
        mode: &str,
        self_pairs: bool,
        split: &str,
        split_point: &str,
        leaf_size: IntArg,
        threads: Option<IntArg>,
    ) -> PyResult<Self> {
        let options = scene_options(bv, mode, self_pairs, split, split_point, &leaf_size)?;
        crate::pool::threads(threads.as_ref())?;
        let mut arcs: Vec<Arc<Mesh>> = vec![];
        for (k, pair) in meshes.try_iter()?.enumerate() {
            let (pair, what) = (pair?, format!("meshes[{k}]"));
            let len = pair.len().ok();
            let (Some(2), Ok(v), Ok(t)) = (len, pair.get_item(0), pair.get_item(1)) else {
                return Err(errors::input(format!(
                    "{what}: expected a (vertices, triangles) pair"
                )));
            };
            arcs.push(Arc::new(arrays::mesh_from_arrays(&v, &t, &what)?));
        }
        let n = arcs.len();
        let index = indices(bodies, "bodies", n, |v| {
            format!("mesh {v} is out of range: expected 0 to {n} − 1 ({n} meshes given)")
        })?;
        let kinds = kinds(r#static, index.len())?;
        let bodies = index
            .iter()
            .zip(kinds)
            .map(|(&m, kind)| Body {
                mesh: arcs[m as usize].clone(),
                kind,
            })
            .collect();
        Scene::build(py, bodies, options, threads)
    }

    /// Reads a bodies file (`body,mesh,kind` rows, mesh paths relative to it, bodies naming
    /// the same file sharing one mesh; errors name the file and line) and builds the
    /// scene; the keywords as the constructor's.
    #[staticmethod]
    #[pyo3(
        signature = (bodies_csv, *, bv = "auto", mode = "all", self_pairs = false, split = "splatter", split_point = "mean", leaf_size = IntArg::Int(1), threads = None),
        text_signature = "(bodies_csv, *, bv='auto', mode='all', self_pairs=False, split='splatter', split_point='mean', leaf_size=1, threads=None)"
    )]
    #[allow(clippy::too_many_arguments)] // the Python signature
    fn from_files(
        py: Python<'_>,
        bodies_csv: PathBuf,
        bv: &str,
        mode: &str,
        self_pairs: bool,
        split: &str,
        split_point: &str,
        leaf_size: IntArg,
        threads: Option<IntArg>,
    ) -> PyResult<Self> {
        let options = scene_options(bv, mode, self_pairs, split, split_point, &leaf_size)?;
        crate::pool::threads(threads.as_ref())?;
        let file = py
            .detach(|| read_bodies(&bodies_csv))
            .map_err(|e| errors::to_py(e.into()))?;
        Scene::build(py, file.bodies, options, threads)
    }

    /// One frame: places the bodies `ids` (an integer array `(M,)`) at `poses` (`M` poses,
    /// any form `Collider.query` takes: `(M, 7)` quaternions in `quat` order, `(M, 3, 4)` or
    /// `(M, 4, 4)` matrices `[R | t]`; a body's point `p` is at `R·p + t`), a body entering
    /// the scene if it was absent; takes out the bodies `remove`; then returns the frame's
    /// contacts: an int64 `(K, 5)` array of `contacts.csv` rows `frame, body_a, tri_a,
    /// body_b, tri_b` (every pair of intersecting triangles of two present bodies, at least
    /// one moving, `body_a < body_b`, exact on the world coordinates), sorted by `frame,
    /// body_a, body_b, tri_a, tri_b`. `frame` is the frame counter, from 0, one more per
    /// step. The motions apply all or none: a body out of range, named twice, a static
    /// body placed again or a body removed that is absent raises `InputError` naming the
    /// body, and changes nothing. `backend`: `auto` (a hardware GPU, else the CPU), `cpu`
    /// or `gpu` (the narrow phase's node pairs on the GPU; the same contacts), probed as
    /// `Collider.query` does (a `GpuError` in mid-step leaves the motions applied and the
    /// counter as it was). The GIL is released while the step runs.
    #[pyo3(
        signature = (ids = None, poses = None, remove = None, backend = "auto", quat = "wxyz"),
        text_signature = "(self, ids=None, poses=None, remove=None, backend='auto', quat='wxyz')"
    )]
    fn step<'py>(
        &self,
        py: Python<'py>,
        ids: Option<&Bound<'py, PyAny>>,
        poses: Option<&Bound<'py, PyAny>>,
        remove: Option<&Bound<'py, PyAny>>,
        backend: &str,
        quat: &str,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let backend = crate::collider::backend(backend)?;
        let mut motions = self.places(py, ids, poses, quat)?;
        if let Some(r) = remove {
            let count = self.count(py);
            let gone = body_ids(r, "remove", count)?;
            motions.extend(gone.into_iter().map(|i| (i, Motion::Remove)));
        }
        self.run(py, motions, backend, true)
    }

    /// Places the bodies `ids` at `poses` as `step` does, finding no contacts and leaving
    /// the frame counter as it is (the motions belong to the next step's frame).
    #[pyo3(
        signature = (ids, poses, quat = "wxyz"),
        text_signature = "(self, ids, poses, quat='wxyz')"
    )]
    fn insert(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        poses: &Bound<'_, PyAny>,
        quat: &str,
    ) -> PyResult<()> {
        let motions = self.places(py, Some(ids), Some(poses), quat)?;
        self.apply(py, motions)
    }

    /// Takes the bodies `ids` out of the scene (all or none, as `step`), finding no
    /// contacts; a moving body may be placed again later, a static body not.
    #[pyo3(signature = (ids), text_signature = "(self, ids)")]
    fn remove(&self, py: Python<'_>, ids: &Bound<'_, PyAny>) -> PyResult<()> {
        let count = self.count(py);
        let gone = body_ids(ids, "ids", count)?;
        self.apply(py, gone.into_iter().map(|i| (i, Motion::Remove)).collect())
    }

    /// The contacts of the scene as it stands, rows as `step`'s numbered `frame` (the
    /// frame the motions since the last step belong to); the counter is not advanced.
    #[pyo3(signature = (backend = "auto"), text_signature = "(self, backend='auto')")]
    fn contacts<'py>(&self, py: Python<'py>, backend: &str) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let backend = crate::collider::backend(backend)?;
        self.run(py, vec![], backend, false)
    }

    /// Body `i`'s world pose as a float64 `(3, 4)` matrix `[R | t]` (the rotation the
    /// library applies, a quaternion's included), or `None` while it is absent.
    #[pyo3(text_signature = "(self, i)")]
    fn pose<'py>(&self, py: Python<'py>, i: IntArg) -> PyResult<Option<Bound<'py, PyAny>>> {
        let count = self.count(py);
        let i = i.u32_in("i", 0, u32::MAX)?;
        if i as usize >= count {
            return Err(errors::input(format!(
                "i: body {i} is not in the scene (it has {count} bodies)"
            )));
        }
        let Some(p) = py.detach(|| self.lock().scene.pose(i)) else {
            return Ok(None);
        };
        let flat: Vec<f64> = (0..3)
            .flat_map(|k| [p.r[k][0], p.r[k][1], p.r[k][2], p.t[k]])
            .collect();
        let m =
            Array2::from_shape_vec((3, 4), flat).map_err(|e| errors::internal(e.to_string()))?;
        Ok(Some(m.into_pyarray(py).into_any()))
    }

    /// The last `step`'s (or `contacts`'s) statistics: `frame`, `backend`, `bv`, `bodies`,
    /// `meshes`, `contacts`, `broad_pairs` (body pairs whose world boxes overlap),
    /// `relative_pairs`, `swaps` (sweep-and-prune endpoint swaps), `broad_ms`, `narrow_ms`,
    /// `step_ms`, the narrow phase's `bv_tests`, `tri_tests`, `bv_updates`; `gpu` on the
    /// GPU, `note` and `gpu_probe_ms` as `Collider.last_stats`'s. `None` before the first.
    #[getter]
    fn last_stats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let json = py.detach(|| self.lock().last_stats.clone());
        json.map(|j| py.import("json")?.call_method1("loads", (j,)))
            .transpose()
    }

    /// Number of bodies, present or not.
    #[getter]
    fn body_count(&self, py: Python<'_>) -> usize {
        self.count(py)
    }

    /// Number of hierarchies built (the distinct meshes the bodies name).
    #[getter]
    fn mesh_count(&self, py: Python<'_>) -> usize {
        py.detach(|| self.lock().scene.mesh_count())
    }

    /// The frame counter: the number the next `step` gives its rows (the steps so far).
    #[getter]
    fn frame(&self, py: Python<'_>) -> u64 {
        py.detach(|| self.lock().frame)
    }

    /// The bounding volume (`"kdop18"`, …).
    #[getter]
    fn bv(&self, py: Python<'_>) -> &'static str {
        py.detach(|| self.lock().scene.options().bv.name())
    }

    /// Milliseconds spent building the hierarchies.
    #[getter]
    fn build_ms(&self) -> f64 {
        self.build_ms
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let (b, m, f) = py.detach(|| {
            let st = self.lock();
            (st.scene.body_count(), st.scene.mesh_count(), st.frame)
        });
        format!("Scene(bodies={b}, meshes={m}, frame={f})")
    }
}
