//! `Collider.query(poses, budget=N)`: the budgeted query ([`meshcollide::budget`]), its
//! pairs and a structured status array with `status.csv`'s columns.

use crate::collider::Collider;
use crate::errors;
use crate::stats::Run;
use meshcollide::budget::{Budget, Order, PoseStatus};
use meshcollide::formats::Totals;
use meshcollide::{Contacts, Mode, Pose, QueryOptions};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::time::Instant;

/// `budget=` and `budget_order=` as the library's budget; the errors name the keyword.
pub(crate) fn budget_of(nodes: u64, order: &str) -> PyResult<Budget> {
    let order: Order = order
        .parse()
        .map_err(|e: meshcollide::option_names::UnknownName| {
            errors::input(format!("budget_order: {e}"))
        })?;
    Ok(Budget::new(nodes, "budget")
        .map_err(errors::to_py)?
        .with_order(order))
}

impl Collider {
    /// Runs the poses under `budget` on the CPU, or with `gpu` on the GPU (breadth first;
    /// no GIL): the `(pose, tri_a, tri_b)` rows, flat, each pose's status, and the
    /// statistics.
    pub(crate) fn run_budgeted(
        &self,
        poses: Vec<Pose>,
        mode: Mode,
        budget: Budget,
        gpu: bool,
        first_pose: usize,
    ) -> Result<(Vec<i64>, Vec<PoseStatus>, Run), meshcollide::Error> {
        let ctx = match gpu {
            true => crate::collider::choose_backend(crate::collider::Backend::Gpu)?.0,
            false => None,
        };
        let ctx = ctx.map(|c| match self.options.gpu_memory {
            Some(mib) => c.with_batch_memory(mib << 20),
            None => c,
        });
        let inner = self.inner();
        let opts = QueryOptions {
            mode,
            ..inner.query_options()
        };
        let mut rows = Vec::new();
        let mut status = Vec::with_capacity(poses.len());
        let mut totals = Totals::default();
        let t = Instant::now();
        let sink = |i: usize, r: Contacts, s| {
            totals.add(&r);
            for &(a, b) in &r.pairs {
                rows.extend([(first_pose + i) as i64, a as i64, b as i64]);
            }
            status.push(s);
            Ok(())
        };
        let gpu_stats = match &ctx {
            Some(ctx) => Some(inner.collide_budgeted_stream_gpu(ctx, poses, &opts, budget, sink)?),
            None => {
                inner.collide_budgeted_stream(poses, &opts, budget, sink)?;
                None
            }
        };
        let mut run = self.cpu_run(mode, opts.tumble, t.elapsed().as_secs_f64() * 1e3, totals);
        if let Some(ctx) = &ctx {
            run.backend = format!("gpu: {}", ctx.adapter_name());
            run.gpu = gpu_stats;
        }
        run.budget = Some(meshcollide::formats::BudgetStatsJson {
            nodes: budget.nodes.get(),
            order: budget.order.name().into(),
            micros: None,
            maybe: status
                .iter()
                .filter(|s| s.answer == meshcollide::budget::Answer::Maybe)
                .count(),
            incomplete: status.iter().filter(|s| !s.complete).count(),
            max_depth_bound: status.iter().fold(0.0, |m, s| m.max(s.depth_bound)),
        });
        Ok((rows, status, run))
    }
}

/// The structured array of `status.csv`'s columns: `pose` int64 (offset by `first_pose`),
/// `answer` `<U7` (`contact`, `free`, `maybe`), `complete` bool, `depth_bound` float64,
/// `bv_tests` uint64.
pub(crate) fn status_array<'py>(
    py: Python<'py>,
    status: &[PoseStatus],
    first_pose: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let np = py.import("numpy")?;
    let dtype = PyList::new(
        py,
        [
            ("pose", "<i8"),
            ("answer", "<U7"),
            ("complete", "?"),
            ("depth_bound", "<f8"),
            ("bv_tests", "<u8"),
        ],
    )?;
    let arr = np.call_method1("zeros", (status.len(), dtype))?;
    let pose: Vec<i64> = (0..status.len()).map(|i| (first_pose + i) as i64).collect();
    arr.set_item("pose", PyArray1::from_vec(py, pose))?;
    let answers: Vec<&str> = status.iter().map(|s| s.answer.name()).collect();
    arr.set_item("answer", PyList::new(py, answers)?)?;
    let complete: Vec<bool> = status.iter().map(|s| s.complete).collect();
    arr.set_item("complete", PyArray1::from_vec(py, complete))?;
    let bound: Vec<f64> = status.iter().map(|s| s.depth_bound).collect();
    arr.set_item("depth_bound", PyArray1::from_vec(py, bound))?;
    let tests: Vec<u64> = status.iter().map(|s| s.bv_tests).collect();
    arr.set_item("bv_tests", PyArray1::from_vec(py, tests))?;
    Ok(arr)
}
