//! `threads=`: the worker threads of one `Collider` or one `self_collide` call. Without it
//! the work runs on rayon's global pool (every core, or `RAYON_NUM_THREADS`); with it, on a
//! pool of that many threads owned by the caller, so that two colliders in one process can
//! share the machine as their owner decides, which one process-wide variable cannot say.

use crate::args::IntArg;
use crate::errors;
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// The most threads `threads=` takes: rayon starts every thread of a pool when it is built
/// (each with its own stack), so a mistyped huge count would exhaust the process's threads
/// or memory before any work; no machine this runs on has more cores.
pub const MAX_THREADS: u32 = 4096;

/// `threads` as given (`None`: the global pool), checked: 1 to [`MAX_THREADS`], an
/// `InputError` naming the argument otherwise (0, which rayon reads as "every core", is
/// refused: it would silently mean the opposite of a small number), a `TypeError` for what
/// is no integer (`bool`, float).
pub fn threads(v: Option<&IntArg>) -> PyResult<Option<usize>> {
    v.map(|v| v.u32_in("threads", 1, MAX_THREADS).map(|n| n as usize))
        .transpose()
}

/// A pool of `n` threads, or `None` for the global one.
pub fn build(n: Option<usize>) -> PyResult<Option<ThreadPool>> {
    n.map(|n| {
        ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("meshcollide-{i}"))
            .build()
            .map_err(|e| errors::internal(format!("threads={n}: the thread pool: {e}")))
    })
    .transpose()
}

/// Runs `f` on `pool` (its parallel loops on its threads), or here on the global pool.
pub fn on<R: Send>(pool: Option<&ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(p) => p.install(f),
        None => f(),
    }
}
