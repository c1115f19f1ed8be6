//! `meshcollide.self_collide`: every pair of intersecting triangles of one mesh, with the
//! adjacency rule of `meshcollide self` (`docs/FORMATS.md`, "Self-collision"), for the mesh
//! as given and for each frame of new vertex positions.

use crate::args::IntArg;
use crate::{arrays, errors};
use meshcollide::gpu::{GpuContext, GpuSelf};
use meshcollide::{BuildOptions, BvKind, FrameError, Mode, SelfCollider};
use numpy::IntoPyArray;
use numpy::PyArray2;
use numpy::ndarray::Array2;
use pyo3::prelude::*;

/// Self-collision of the mesh `(vertices, triangles)`: an int64 `(K, 3)` array of
/// `frame, tri_a, tri_b` rows (`tri_a < tri_b`), sorted as `meshcollide self` writes
/// `pairs.csv`. Without `frames` the one frame is the mesh as given (frame 0); with
/// `frames` (an iterable of `(n, 3)` vertex arrays, the mesh's vertex count each), frame
/// `i` is the mesh with those positions, its hierarchy refitted (built once; an empty
/// `frames` is refused, as the command line refuses an empty frame list). `bv` is a
/// k-DOP (`kdop6`, `kdop14`, `kdop18`, `kdop26`); `mode="first"` keeps at most one pair per
/// frame. `backend`: `auto` (a hardware GPU, else the CPU), `cpu` or `gpu` (the same pairs,
/// `meshcollide self --backend`). `threads`: a pool of that many threads (1 to 4096) for
/// this call, as `meshcollide self --threads`; default rayon's global pool (all cores, or
/// `RAYON_NUM_THREADS`). `tolerance`: every pair of triangles without a common vertex index
/// within this distance instead, decided exactly (neighbours keep the rule above; a float
/// at least 0, 0 the ordinary query; `backend="auto"` answers it on the CPU, `"gpu"` on the
/// GPU, `meshcollide self --tolerance`). Bad input raises `InputError` naming the array, frame,
/// triangle or option; a GPU failure `GpuError`.
#[pyfunction]
#[pyo3(
    signature = (vertices, triangles, *, frames = None, bv = "kdop18", mode = "all", leaf_size = IntArg::Int(1), backend = "auto", threads = None, tolerance = 0.0),
    text_signature = "(vertices, triangles, *, frames=None, bv='kdop18', mode='all', leaf_size=1, backend='auto', threads=None, tolerance=0.0)"
)]
#[allow(clippy::too_many_arguments)] // the Python signature
pub fn self_collide<'py>(
    py: Python<'py>,
    vertices: &Bound<'py, PyAny>,
    triangles: &Bound<'py, PyAny>,
    frames: Option<&Bound<'py, PyAny>>,
    bv: &str,
    mode: &str,
    leaf_size: IntArg,
    backend: &str,
    threads: Option<IntArg>,
    tolerance: f64,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let tolerance =
        meshcollide::proximity::Tolerance::new(tolerance, "tolerance").map_err(errors::to_py)?;
    // A tolerance runs on the GPU when asked for by name (`auto` answers it on the CPU).
    let backend = match crate::collider::backend(backend)? {
        crate::collider::Backend::Auto if !tolerance.is_zero() => crate::collider::Backend::Cpu,
        b => b,
    };
    let threads = crate::pool::threads(threads.as_ref())?;
    let mesh = arrays::mesh_from_arrays(vertices, triangles, "mesh")?;
    let bv: BvKind = bv
        .parse()
        .map_err(|e: meshcollide::option_names::UnknownName| errors::input(e.to_string()))?;
    let mode: Mode = mode
        .parse()
        .map_err(|e: meshcollide::option_names::UnknownName| errors::input(e.to_string()))?;
    let leaf_size = leaf_size.u32_in("leaf_size", 1, u32::MAX)?;
    let build = BuildOptions {
        leaf_size,
        ..Default::default()
    };
    // Every check done: the pool is started only for work.
    let pool = crate::pool::build(threads)?;
    let mut c = py
        .detach(|| {
            crate::pool::on(pool.as_ref(), || {
                SelfCollider::builder(&mesh)
                    .bv(bv)
                    .build_options(build)
                    .mode(mode)
                    .build()
            })
        })
        .map_err(errors::to_py)?;
    // The GPU context and the hierarchy on it, for `backend` (as `meshcollide self`).
    let gpu = py
        .detach(|| {
            let (ctx, _, _) = crate::collider::choose_backend(backend)?;
            ctx.map(|ctx| GpuSelf::new(&ctx, &c).map(|g| (ctx, g)))
                .transpose()
        })
        .map_err(|e| errors::to_py(e.into()))?;
    let mut gpu = gpu;
    let collide = |c: &SelfCollider,
                   gpu: &mut Option<(GpuContext, GpuSelf)>,
                   refitted: bool|
     -> Result<Vec<(u32, u32)>, meshcollide::Error> {
        match gpu {
            Some((ctx, g)) => {
                if refitted {
                    g.refit(ctx, c)?;
                }
                Ok(g.collide_within(ctx, c, mode, tolerance)?.0.pairs)
            }
            None => Ok(c.collide_within(mode, tolerance).pairs),
        }
    };
    let mut rows: Vec<i64> = Vec::new();
    let mut push = |frame: usize, pairs: &[(u32, u32)]| {
        for &(a, b) in pairs {
            rows.extend([frame as i64, a as i64, b as i64]);
        }
    };
    match frames {
        None => push(
            0,
            &py.detach(|| crate::pool::on(pool.as_ref(), || collide(&c, &mut gpu, false)))
                .map_err(errors::to_py)?,
        ),
        Some(frames) => {
            let n = mesh.positions.len();
            let mut count = 0;
            for (i, f) in frames.try_iter()?.enumerate() {
                count = i + 1;
                let what = format!("frames[{i}]");
                let p = arrays::positions_from_array(&f?, &what)?;
                if p.len() != n {
                    return Err(errors::input(format!(
                        "{what}: {} vertices, the mesh has {n}",
                        p.len()
                    )));
                }
                py.detach(|| crate::pool::on(pool.as_ref(), || c.refit(&p)))
                    .map_err(|e| errors::input(format!("{what}: {e}")))?;
                let pairs = py
                    .detach(|| crate::pool::on(pool.as_ref(), || collide(&c, &mut gpu, true)))
                    .map_err(errors::to_py)?;
                push(i, &pairs);
            }
            // As `meshcollide self --frames-a` refuses an empty frame list, in its words: an
            // empty result would claim frames that never ran free of contact.
            if count == 0 {
                let list = std::path::PathBuf::from("frames");
                return Err(errors::to_py(FrameError::Empty { list }.into()));
            }
        }
    }
    let k = rows.len() / 3;
    Ok(Array2::from_shape_vec((k, 3), rows)
        .map_err(|e| errors::internal(e.to_string()))?
        .into_pyarray(py))
}
