//! `meshcollide.Collider`: both hierarchies built once, then queried with poses arrays on
//! the CPU or the GPU, pairs returned as an int64 `(K, 3)` array in `pairs.csv` order.

use crate::args::IntArg;
use crate::arrays;
use crate::errors;
use crate::options::Options;
use crate::stats::Run;
use meshcollide::formats::Totals;
use meshcollide::gpu::{GpuContext, GpuError};
use meshcollide::proximity::Tolerance;
use meshcollide::saved::KdopHierarchy;
use meshcollide::solid;
use meshcollide::solid::Solid;
use meshcollide::{Contacts, Mesh, Mode, Pose, QueryOptions};
use numpy::IntoPyArray;
use numpy::PyArray2;
use numpy::ndarray::Array2;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::{Mutex, RwLock};
use std::time::Instant;

/// Both hierarchies of a scene: A the environment, B the flying mesh the poses move.
#[pyclass(module = "meshcollide", frozen)]
pub struct Collider {
    /// The scene; written only to turn coherence on or off between queries.
    inner: RwLock<meshcollide::Collider>,
    /// B's bounds, for `coherence="auto"` ([`meshcollide::pose::coherent_path`]).
    bounds_b: ([f64; 3], [f64; 3]),
    pub(crate) options: Options,
    triangles: [usize; 2],
    load_ms: f64,
    build_ms: f64,
    /// The `.mch` files A's and B's hierarchies were loaded from, if they were.
    saved_from: [Option<String>; 2],
    /// The last query's `stats.json` object, serialized.
    last_stats: Mutex<Option<String>>,
    /// `threads=N`: the pool the build and every query run on; `None`: rayon's global pool.
    pool: Option<rayon::ThreadPool>,
    /// A's and B's meshes with the names errors give them (the file, or "mesh A"), for
    /// `inside`, whose ray parity reads the surfaces as written.
    meshes: [(Mesh, String); 2],
}

/// `--backend`: auto (a hardware GPU, else the CPU), cpu or gpu.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    Auto,
    Cpu,
    Gpu,
}

pub(crate) fn backend(s: &str) -> PyResult<Backend> {
    match s {
        "auto" => Ok(Backend::Auto),
        "cpu" => Ok(Backend::Cpu),
        "gpu" => Ok(Backend::Gpu),
        _ => Err(errors::input(format!(
            "unknown backend `{s}` (expected one of: auto, cpu, gpu)"
        ))),
    }
}

/// The GPU context for `backend`, or `None` for the CPU, as `meshcollide query` chooses:
/// `auto` takes a hardware adapter only (a software one such as lavapipe is slower than
/// the CPU path) and falls back to the CPU without one; `gpu` takes any adapter or fails.
/// The second value says why `auto` chose the CPU; the third, the milliseconds this call
/// spent probing the adapter: the process probes once (`GpuContext::shared_probe`), so
/// later calls report `None` and cost nothing, and a `Collider` finds its uploaded scene.
#[allow(clippy::type_complexity)]
pub(crate) fn choose_backend(
    b: Backend,
) -> Result<(Option<GpuContext>, Option<String>, Option<f64>), GpuError> {
    if b == Backend::Cpu {
        return Ok((None, None, None));
    }
    let (found, took) = GpuContext::shared_probe();
    let probe_ms = took.map(|d| d.as_secs_f64() * 1e3);
    match found {
        Ok(ctx) if b == Backend::Gpu => Ok((Some(ctx), None, probe_ms)),
        Ok(ctx) if ctx.info.device_type != wgpu::DeviceType::Cpu => Ok((Some(ctx), None, probe_ms)),
        Ok(ctx) => Ok((
            None,
            Some(format!(
                "only a software GPU adapter ({}) found; using the faster CPU path (backend=\"gpu\" forces it)",
                ctx.info.name
            )),
            probe_ms,
        )),
        Err(e) if b == Backend::Gpu => Err(e),
        Err(e) => Ok((
            None,
            Some(format!("{e}; falling back to the CPU")),
            probe_ms,
        )),
    }
}

impl Collider {
    /// The scene, read (a poisoned lock still holds a whole scene: writers only flip a flag).
    pub(crate) fn inner(&self) -> std::sync::RwLockReadGuard<'_, meshcollide::Collider> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Builds both hierarchies with the GIL released.
    fn build(
        py: Python<'_>,
        (a, b): (Mesh, Mesh),
        names: [String; 2],
        saved: [Option<(KdopHierarchy, String)>; 2],
        options: Options,
        load_ms: f64,
    ) -> PyResult<Self> {
        let [sa, sb] = saved;
        let saved_from = [
            sa.as_ref().map(|s| s.1.clone()),
            sb.as_ref().map(|s| s.1.clone()),
        ];
        let saved = [sa.map(|s| s.0), sb.map(|s| s.0)];
        let pool = crate::pool::build(options.threads)?;
        let t = Instant::now();
        let inner = py
            .detach(|| crate::pool::on(pool.as_ref(), || options.build(&a, &b, saved)))
            .map_err(errors::to_py)?;
        Ok(Collider {
            inner: RwLock::new(inner),
            bounds_b: b.bounds(),
            triangles: [a.triangle_count(), b.triangle_count()],
            options,
            load_ms,
            build_ms: t.elapsed().as_secs_f64() * 1e3,
            saved_from,
            last_stats: Mutex::new(None),
            pool,
            meshes: {
                let [na, nb] = names;
                [(a, na), (b, nb)]
            },
        })
    }

    /// Runs the poses on this collider's pool with the GIL released, keeps the statistics
    /// for `last_stats` (made on the pool: its `threads` is the pool's) and returns the
    /// pairs as `query` does. `query` and each chunk of `iter_query` are one call of this.
    pub(crate) fn pairs<'py>(
        &self,
        py: Python<'py>,
        poses: Vec<Pose>,
        mode: Mode,
        tolerance: Tolerance,
        b: Backend,
        first_pose: usize,
    ) -> PyResult<Bound<'py, PyArray2<i64>>> {
        let (rows, json) = py
            .detach(|| {
                crate::pool::on(self.pool.as_ref(), || {
                    let (rows, run) = self.run(poses, mode, tolerance, b, first_pose)?;
                    Ok::<_, meshcollide::Error>((
                        rows,
                        run.stats_json(&self.inner(), &self.options),
                    ))
                })
            })
            .map_err(errors::to_py)?;
        if let Ok(mut s) = self.last_stats.lock() {
            *s = Some(json);
        }
        let k = rows.len() / 3;
        Ok(Array2::from_shape_vec((k, 3), rows)
            .map_err(|e| errors::internal(e.to_string()))?
            .into_pyarray(py))
    }

    /// Runs the poses (no GIL): `(pose, tri_a, tri_b)` rows, flat, and the statistics.
    fn run(
        &self,
        poses: Vec<Pose>,
        mode: Mode,
        tolerance: Tolerance,
        b: Backend,
        first_pose: usize,
    ) -> Result<(Vec<i64>, Run), meshcollide::Error> {
        let bv = self.inner().kind();
        let b = match b {
            // A tolerance query runs on the CPU with `auto`; `gpu` runs it on the k-DOP trees
            // (or gets the library's error).
            Backend::Auto if !tolerance.is_zero() => Backend::Cpu,
            Backend::Auto if !bv.on_gpu() => Backend::Cpu,
            Backend::Gpu if !bv.on_gpu() => {
                return Err(GpuError::Unsupported { bv: bv.name() }.into());
            }
            b => b,
        };
        let (gpu, note, probe_ms) = choose_backend(b)?;
        let gpu = gpu.map(|ctx| match self.options.gpu_memory {
            Some(mib) => ctx.with_batch_memory(mib << 20),
            None => ctx,
        });
        let coherence = self
            .options
            .coherence
            .resolve(&poses, self.bounds_b, gpu.is_some(), mode);
        if self.inner().coherence() != coherence {
            let mut w = self.inner.write().unwrap_or_else(|e| e.into_inner());
            w.set_coherence(coherence);
        }
        let inner = self.inner();
        let opts = QueryOptions {
            mode,
            tolerance,
            ..inner.query_options()
        };
        let mut rows = Vec::new();
        let mut totals = Totals::default();
        let sink = |i: usize, r: Contacts| {
            totals.add(&r);
            for &(a, b) in &r.pairs {
                rows.extend([(first_pose + i) as i64, a as i64, b as i64]);
            }
            Ok(())
        };
        let t = Instant::now();
        let gpu_stats = match &gpu {
            Some(ctx) => Some(inner.collide_stream_gpu(ctx, poses, &opts, sink)?),
            None => {
                inner.collide_stream(poses, &opts, sink)?;
                None
            }
        };
        let run = Run {
            backend: match &gpu {
                Some(ctx) => format!("gpu: {}", ctx.adapter_name()),
                None => "cpu".into(),
            },
            note,
            probe_ms,
            mode,
            tumble: opts.tumble,
            query_ms: t.elapsed().as_secs_f64() * 1e3,
            load_ms: self.load_ms,
            build_ms: self.build_ms,
            triangles: self.triangles,
            saved: self.saved_from.clone(),
            totals,
            gpu: gpu_stats,
            coherence,
            tolerance: tolerance.get(),
            budget: None,
        };
        Ok((rows, run))
    }

    /// The statistics of a CPU call without coherence (`run_budgeted`).
    pub(crate) fn cpu_run(
        &self,
        mode: Mode,
        tumble: meshcollide::TumbleMethod,
        query_ms: f64,
        totals: Totals,
    ) -> Run {
        Run {
            backend: "cpu".into(),
            note: None,
            probe_ms: None,
            mode,
            tumble,
            query_ms,
            load_ms: self.load_ms,
            build_ms: self.build_ms,
            triangles: self.triangles,
            saved: self.saved_from.clone(),
            totals,
            gpu: None,
            coherence: false,
            tolerance: 0.0,
            budget: None,
        }
    }

    /// The budgeted query's pairs array and status array; `last_stats` is its.
    fn budgeted<'py>(
        &self,
        py: Python<'py>,
        poses: Vec<Pose>,
        mode: Mode,
        budget: meshcollide::budget::Budget,
        gpu: bool,
        first_pose: usize,
    ) -> PyResult<(Bound<'py, PyArray2<i64>>, Bound<'py, PyAny>)> {
        let (rows, status, json) = py
            .detach(|| {
                crate::pool::on(self.pool.as_ref(), || {
                    let (rows, status, run) =
                        self.run_budgeted(poses, mode, budget, gpu, first_pose)?;
                    Ok::<_, meshcollide::Error>((
                        rows,
                        status,
                        run.stats_json(&self.inner(), &self.options),
                    ))
                })
            })
            .map_err(errors::to_py)?;
        if let Ok(mut s) = self.last_stats.lock() {
            *s = Some(json);
        }
        let k = rows.len() / 3;
        let pairs = Array2::from_shape_vec((k, 3), rows)
            .map_err(|e| errors::internal(e.to_string()))?
            .into_pyarray(py);
        Ok((pairs, crate::budget::status_array(py, &status, first_pose)?))
    }
}

#[pymethods]
impl Collider {
    /// Builds the hierarchies of A (`vertices_a`, `triangles_a`) and B from arrays; the
    /// keyword arguments are `meshcollide query`'s build options, and `threads` (1 to 4096)
    /// the collider's own pool for its build and queries (default: rayon's global pool, all
    /// cores or `RAYON_NUM_THREADS`).
    #[new]
    // The keywords are read by `Options::from_kwargs` (one list for both constructors);
    // the text signature names each with its default for `help` and `inspect.signature`.
    #[pyo3(
        signature = (vertices_a, triangles_a, vertices_b, triangles_b, **options),
        text_signature = "(vertices_a, triangles_a, vertices_b, triangles_b, *, bv='auto', box_test='satlite', dual_symmetric=False, dual_order='pair', split='splatter', split_point='mean', leaf_size=1, leaf_size_b=None, tumble='auto', descent=None, coherence='auto', gpu_memory=None, rtree_collide='v2', rtree_min=4, rtree_max=8, chunk_poses=None, threads=None)"
    )]
    fn new(
        py: Python<'_>,
        vertices_a: &Bound<'_, PyAny>,
        triangles_a: &Bound<'_, PyAny>,
        vertices_b: &Bound<'_, PyAny>,
        triangles_b: &Bound<'_, PyAny>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let options = Options::from_kwargs(options)?;
        let a = arrays::mesh_from_arrays(vertices_a, triangles_a, "mesh A")?;
        let b = arrays::mesh_from_arrays(vertices_b, triangles_b, "mesh B")?;
        let names = ["mesh A".to_string(), "mesh B".to_string()];
        Collider::build(py, (a, b), names, [None, None], options, 0.0)
    }

    /// Loads A and B from mesh files (errors name the file and line) and builds; a saved
    /// hierarchy (`.mch` of `meshcollide build`) stands for its mesh and is used as saved.
    #[staticmethod]
    #[pyo3(
        signature = (path_a, path_b, **options),
        text_signature = "(path_a, path_b, *, bv='auto', box_test='satlite', dual_symmetric=False, dual_order='pair', split='splatter', split_point='mean', leaf_size=1, leaf_size_b=None, tumble='auto', descent=None, coherence='auto', gpu_memory=None, rtree_collide='v2', rtree_min=4, rtree_max=8, chunk_poses=None, threads=None)"
    )]
    fn from_files(
        py: Python<'_>,
        path_a: PathBuf,
        path_b: PathBuf,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let options = Options::from_kwargs(options)?;
        let t = Instant::now();
        // As on the command line, loading a saved hierarchy replaces its build and is timed
        // as build time; reading meshes is load time.
        let mut saved_ms = 0.0;
        let mut timed_load = |path: &PathBuf, side: usize| {
            let t = Instant::now();
            let input = options.load_input(path, side)?;
            if input.1.is_some() {
                saved_ms += t.elapsed().as_secs_f64() * 1e3;
            }
            Ok::<_, meshcollide::Error>(input)
        };
        let ((a, ha), (b, hb)) = py
            .detach(|| {
                Ok::<_, meshcollide::Error>((timed_load(&path_a, 0)?, timed_load(&path_b, 1)?))
            })
            .map_err(errors::to_py)?;
        let load_ms = t.elapsed().as_secs_f64() * 1e3 - saved_ms;
        let named = |h: Option<KdopHierarchy>, p: &PathBuf| h.map(|h| (h, p.display().to_string()));
        let saved = [named(ha, &path_a), named(hb, &path_b)];
        let names = [path_a.display().to_string(), path_b.display().to_string()];
        let mut c = Collider::build(py, (a, b), names, saved, options, load_ms)?;
        c.build_ms += saved_ms;
        Ok(c)
    }

    /// Every intersecting pair at each pose: an int64 `(K, 3)` array of `pose, tri_a, tri_b`
    /// rows sorted as `pairs.csv`, pose numbers offset by `first_pose` (an integer from 0 to
    /// 2^63 − P for P poses, so that every pose number is an int64; checked, never wrapped).
    /// `poses` is a float64 or float32 array: `(P, 7)` quaternion rows in the order `quat`
    /// names (`"wxyz"`, or SciPy's `"xyzw"`), or `(P, 3, 4)` / `(P, 4, 4)` rigid transforms
    /// `[R | t]` applied as written (rows orthonormal within 1e-6); other dtypes are refused.
    /// `tolerance`: report every pair of triangles within this distance instead (decided
    /// exactly; a float at least 0, 0 the ordinary query; `backend="auto"` runs it on the
    /// CPU, `"gpu"` on every binary tree and raises for the boxtree and the R-tree).
    /// `budget`: at most this many node tests per pose (an integer at least 1; `query
    /// --budget`), expanded in `budget_order` (`"best"`, `"depth"`, `"breadth"`; default
    /// `"best"`, with `backend="gpu"` `"breadth"`, the only order the GPU runs); the call
    /// then returns `(pairs, status)`, `status` a structured array with `status.csv`'s
    /// columns (`pose`, `answer`, `complete`, `depth_bound`, `bv_tests`). Every hierarchy
    /// (`auto` answers on its kdop18 tree) on the CPU (`backend="auto"` too), and with
    /// `backend="gpu"` the k-DOP, dual, OBB and sphere trees, breadth first, with the CPU's
    /// answers; a tolerance raises.
    #[pyo3(
        signature = (poses, mode = "all", backend = "auto", first_pose = IntArg::Int(0), quat = "wxyz", tolerance = 0.0, budget = None, budget_order = None),
        text_signature = "(self, poses, mode='all', backend='auto', first_pose=0, quat='wxyz', tolerance=0.0, budget=None, budget_order=None)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn query<'py>(
        &self,
        py: Python<'py>,
        poses: &Bound<'py, PyAny>,
        mode: &str,
        backend: &str,
        first_pose: IntArg,
        quat: &str,
        tolerance: f64,
        budget: Option<u64>,
        budget_order: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let tolerance = Tolerance::new(tolerance, "tolerance").map_err(errors::to_py)?;
        let b = self::backend(backend)?;
        let order = budget_order.unwrap_or(if b == Backend::Gpu { "breadth" } else { "best" });
        let budget = budget
            .map(|n| crate::budget::budget_of(n, order))
            .transpose()?;
        let (poses, first_pose) = arrays::poses_from_array(poses, &first_pose, quat)?;
        let mode: Mode = mode
            .parse()
            .map_err(|e: meshcollide::option_names::UnknownName| errors::input(e.to_string()))?;
        match budget {
            Some(_) if !tolerance.is_zero() => Err(errors::input(
                "budget with a tolerance above 0 is not supported",
            )),
            Some(budget) => Ok(self
                .budgeted(py, poses, mode, budget, b == Backend::Gpu, first_pose)?
                .into_pyobject(py)?
                .into_any()),
            None => Ok(self
                .pairs(py, poses, mode, tolerance, b, first_pose)?
                .into_any()),
        }
    }

    /// The minimum distance between the meshes at each pose (`meshcollide distance`):
    /// `(distance, tri, points)`, float64 `(P,)` (the witness pair's exact distance rounded
    /// once; `inf` without a witness), int64 `(P, 2)` (`tri_a, tri_b`; `-1` without a
    /// witness) and float64 `(P, 2, 3)` (the closest points on A's triangle and on B's as
    /// posed, each coordinate rounded once; NaN without a witness). `upto`: a pose farther
    /// apart than it has no witness, and its search stops early. On any hierarchy's binary
    /// tree (`auto` uses kdop18; boxtree and rtree raise `InputError`). Poses as `query`
    /// takes them. `backend="gpu"` prunes node pairs on the GPU (the k-DOP trees and
    /// `auto`'s kdop18; the others raise `InputError`), the same answers; `"auto"` and
    /// `"cpu"` answer on the CPU.
    #[pyo3(
        signature = (poses, upto = None, quat = "wxyz", backend = "auto"),
        text_signature = "(self, poses, upto=None, quat='wxyz', backend='auto')"
    )]
    #[allow(clippy::type_complexity)]
    fn distance<'py>(
        &self,
        py: Python<'py>,
        poses: &Bound<'py, PyAny>,
        upto: Option<f64>,
        quat: &str,
        backend: &str,
    ) -> PyResult<(
        Bound<'py, numpy::PyArray1<f64>>,
        Bound<'py, PyArray2<i64>>,
        Bound<'py, numpy::PyArray3<f64>>,
    )> {
        let b = self::backend(backend)?;
        let (poses, _) = arrays::poses_from_array(poses, &IntArg::Int(0), quat)?;
        let n = poses.len();
        // As `meshcollide distance`: the GPU when asked for by name.
        let gpu = match b {
            Backend::Gpu => {
                choose_backend(b)
                    .map_err(|e| errors::to_py(meshcollide::Error::from(e)))?
                    .0
            }
            Backend::Auto | Backend::Cpu => None,
        };
        let answers = py
            .detach(|| {
                crate::pool::on(self.pool.as_ref(), || match &gpu {
                    Some(ctx) => self
                        .inner()
                        .distance_batch_gpu(ctx, &poses, upto)
                        .map(|(d, _)| d),
                    None => self.inner().distance_batch(&poses, upto),
                })
            })
            .map_err(errors::to_py)?;
        let mut dist = Vec::with_capacity(n);
        let mut tri = Vec::with_capacity(2 * n);
        let mut pts = Vec::with_capacity(6 * n);
        for d in &answers {
            dist.push(d.distance);
            match &d.witness {
                Some(w) => {
                    tri.extend([w.tri_a as i64, w.tri_b as i64]);
                    pts.extend(w.a.iter().chain(&w.b));
                }
                None => {
                    tri.extend([-1, -1]);
                    pts.extend([f64::NAN; 6]);
                }
            }
        }
        let tri =
            Array2::from_shape_vec((n, 2), tri).map_err(|e| errors::internal(e.to_string()))?;
        let pts = numpy::ndarray::Array3::from_shape_vec((n, 2, 3), pts)
            .map_err(|e| errors::internal(e.to_string()))?;
        Ok((
            numpy::PyArray1::from_vec(py, dist),
            tri.into_pyarray(py),
            pts.into_pyarray(py),
        ))
    }

    /// `meshcollide query --solid`'s `inside.csv`: the poses at which the surfaces do not
    /// meet (no intersecting pair) and one closed mesh lies inside the other, as
    /// `(pose, inner)`: int64 `(K,)` pose numbers (offset by `first_pose`, as `query`'s)
    /// and a `<U1` array of `"a"` or `"b"`, the mesh inside. Both meshes must be closed
    /// (every edge shared by exactly two triangles; `InputError` naming the mesh and an
    /// open edge otherwise). Contact is decided by the ordinary query on `backend`
    /// (`last_stats` is its), containment on the CPU by exact ray parity
    /// (`meshcollide::solid`).
    #[pyo3(
        signature = (poses, backend = "auto", first_pose = IntArg::Int(0), quat = "wxyz"),
        text_signature = "(self, poses, backend='auto', first_pose=0, quat='wxyz')"
    )]
    fn inside<'py>(
        &self,
        py: Python<'py>,
        poses: &Bound<'py, PyAny>,
        backend: &str,
        first_pose: IntArg,
        quat: &str,
    ) -> PyResult<(Bound<'py, numpy::PyArray1<i64>>, Bound<'py, PyAny>)> {
        let b = self::backend(backend)?;
        let (poses, first_pose) = arrays::poses_from_array(poses, &first_pose, quat)?;
        let [(ma, na), (mb, nb)] = &self.meshes;
        let (found, json) = py
            .detach(|| {
                let sa = Solid::named(ma, std::path::Path::new(na))?;
                let sb = Solid::named(mb, std::path::Path::new(nb))?;
                crate::pool::on(self.pool.as_ref(), || {
                    let (rows, run) =
                        self.run(poses.clone(), Mode::First, Tolerance::ZERO, b, 0)?;
                    let mut touching = vec![false; poses.len()];
                    for r in rows.chunks_exact(3) {
                        touching[r[0] as usize] = true;
                    }
                    use rayon::prelude::*;
                    let found: Vec<(i64, &'static str)> = poses
                        .par_iter()
                        .enumerate()
                        .filter(|(i, _)| !touching[*i])
                        .filter_map(|(i, p)| {
                            solid::inside(&sa, ma, &sb, mb, p)
                                .map(|w| ((first_pose + i) as i64, w.as_str()))
                        })
                        .collect();
                    Ok::<_, meshcollide::Error>((
                        found,
                        run.stats_json(&self.inner(), &self.options),
                    ))
                })
            })
            .map_err(errors::to_py)?;
        if let Ok(mut s) = self.last_stats.lock() {
            *s = Some(json);
        }
        let pose: Vec<i64> = found.iter().map(|f| f.0).collect();
        let inner: Vec<&str> = found.iter().map(|f| f.1).collect();
        let inner = py.import("numpy")?.call_method1("array", (inner, "<U1"))?;
        Ok((numpy::PyArray1::from_vec(py, pose), inner))
    }

    /// `meshcollide query --contact-geometry`'s `segments.csv`: for every intersecting pair
    /// the edges of its intersection set (a touching point as one edge from it to itself,
    /// a segment, or a coplanar overlap polygon's edges), as `(rows, points)`: int64
    /// `(K, 3)` `pose, tri_a, tri_b` (pose numbers offset by `first_pose`) and float64
    /// `(K, 2, 3)` the edge's two points (B's triangle as posed), each coordinate its exact
    /// value rounded once. The pairs come from the ordinary query on `backend`.
    #[pyo3(
        signature = (poses, backend = "auto", first_pose = IntArg::Int(0), quat = "wxyz"),
        text_signature = "(self, poses, backend='auto', first_pose=0, quat='wxyz')"
    )]
    #[allow(clippy::type_complexity)]
    fn contact_geometry<'py>(
        &self,
        py: Python<'py>,
        poses: &Bound<'py, PyAny>,
        backend: &str,
        first_pose: IntArg,
        quat: &str,
    ) -> PyResult<(Bound<'py, PyArray2<i64>>, Bound<'py, numpy::PyArray3<f64>>)> {
        let b = self::backend(backend)?;
        let (poses, first_pose) = arrays::poses_from_array(poses, &first_pose, quat)?;
        let [(ma, _), (mb, _)] = &self.meshes;
        let (pairs, json) = py
            .detach(|| {
                crate::pool::on(self.pool.as_ref(), || {
                    let (pairs, run) = self.run(poses.clone(), Mode::All, Tolerance::ZERO, b, 0)?;
                    Ok::<_, meshcollide::Error>((
                        pairs,
                        run.stats_json(&self.inner(), &self.options),
                    ))
                })
            })
            .map_err(errors::to_py)?;
        let (rows, points) = py
            .detach(|| crate::contact::segments(ma, mb, &poses, &pairs, first_pose))
            .map_err(errors::internal)?;
        if let Ok(mut s) = self.last_stats.lock() {
            *s = Some(json);
        }
        let k = rows.len() / 3;
        let rows =
            Array2::from_shape_vec((k, 3), rows).map_err(|e| errors::internal(e.to_string()))?;
        let points = numpy::ndarray::Array3::from_shape_vec((k, 2, 3), points)
            .map_err(|e| errors::internal(e.to_string()))?;
        Ok((rows.into_pyarray(py), points.into_pyarray(py)))
    }

    /// `query` in chunks of `chunk` poses, for runs whose pairs would not fit in memory at
    /// once: an iterator of `(first, pairs)`, `first` the pose number of the chunk's first
    /// pose and `pairs` what `query` returns for the chunk's poses (pose numbers absolute,
    /// offset by `first_pose` as `query`'s), so that the chunks concatenated are `query`'s
    /// array (with `mode="first"`, the same poses in contact, but the one pair kept for a
    /// pose is the traversal's first and may differ from `query`'s). Every argument and every pose row is checked before the first chunk runs;
    /// `chunk` is an integer from 1 to 2^63 − 1 (more than the poses: one chunk). No poses:
    /// no chunk. `last_stats` is the last chunk's.
    #[pyo3(
        signature = (poses, chunk = IntArg::Int(4096), mode = "all", backend = "auto", first_pose = IntArg::Int(0), quat = "wxyz", tolerance = 0.0),
        text_signature = "(self, poses, chunk=4096, mode='all', backend='auto', first_pose=0, quat='wxyz', tolerance=0.0)"
    )]
    #[allow(clippy::too_many_arguments)]
    fn iter_query(
        slf: &Bound<'_, Self>,
        poses: &Bound<'_, PyAny>,
        chunk: IntArg,
        mode: &str,
        backend: &str,
        first_pose: IntArg,
        quat: &str,
        tolerance: f64,
    ) -> PyResult<crate::chunks::QueryChunks> {
        let tolerance = Tolerance::new(tolerance, "tolerance").map_err(errors::to_py)?;
        let (poses, first_pose) = arrays::poses_from_array(poses, &first_pose, quat)?;
        let chunk = chunk.check("chunk", 1, i64::MAX.into(), "")? as usize;
        let mode: Mode = mode
            .parse()
            .map_err(|e: meshcollide::option_names::UnknownName| errors::input(e.to_string()))?;
        let b = self::backend(backend)?;
        Ok(crate::chunks::QueryChunks::new(
            slf.clone().unbind(),
            poses,
            chunk,
            mode,
            tolerance,
            b,
            first_pose,
        ))
    }

    /// Runs the query's code on a small scene of the same volume and reads the top of this
    /// collider's trees (`meshcollide::Collider::warm_up`; the build already did), so that
    /// the next query finds its code in the CPU's caches: before a query whose latency
    /// matters, when other work ran since the build. Pairs and counters stay as they are.
    fn warm_up(&self, py: Python<'_>) {
        py.detach(|| self.inner().warm_up());
    }

    /// The last query's statistics: the fields of `meshcollide query --stats` (`backend`,
    /// `bv`, `poses`, `build_ms`, `query_ms`, `pairs`, `bv_tests`, `tri_tests`,
    /// `bv_updates`, …), or `None` before the first query.
    #[getter]
    fn last_stats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let json = self.last_stats.lock().ok().and_then(|s| s.clone());
        json.map(|j| py.import("json")?.call_method1("loads", (j,)))
            .transpose()
    }

    /// The bounding volume (`"kdop18"`, …).
    #[getter]
    fn bv(&self) -> &'static str {
        self.inner().kind().name()
    }

    /// Milliseconds spent building both hierarchies.
    #[getter]
    fn build_ms(&self) -> f64 {
        self.build_ms
    }

    /// Triangles of A and of B.
    #[getter]
    fn triangles(&self) -> (usize, usize) {
        (self.triangles[0], self.triangles[1])
    }

    fn __repr__(&self) -> String {
        format!(
            "Collider(bv={:?}, triangles_a={}, triangles_b={})",
            self.bv(),
            self.triangles[0],
            self.triangles[1]
        )
    }
}
