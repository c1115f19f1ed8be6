//! `bench budget --gpu`: the flight's steps as one batch on the GPU at each budget (breadth
//! first, whole levels), the work the device did against the unbudgeted batch, and every
//! step's status checked against the CPU's breadth-first order without the hot start.

use super::f;
use crate::budget::{Answer, Budget, Order};
use crate::cli::Failure;
use crate::cli::report::{Table, write_report_timed};
use crate::gpu::GpuContext;
use crate::gpu::collide::GpuStats;
use crate::{collider::Collider, pose::Pose, scene::QueryOptions};
use std::path::Path;
use std::time::Instant;

/// Runs the unbudgeted batch and one per budget of `budgets`; writes `budget_gpu.md`.
pub fn run(
    out: &Path,
    col: &Collider,
    path: &[Pose],
    budgets: &[u64],
    notes: Vec<String>,
) -> Result<(), Failure> {
    let ctx = GpuContext::new().map_err(crate::error::Error::from)?;
    let opts = QueryOptions::default();
    let mut table = Table::new(&[
        "budget (Nv)",
        "maybe",
        "incomplete",
        "Nv (sum)",
        "dispatches",
        "submissions",
        "readbacks",
        "KB read back",
        "ms",
        "rows unlike the CPU's",
    ]);
    // Once for the pipelines and buffers, untimed.
    col.collide_batch_gpu(&ctx, path, &opts, None)?;
    let t = Instant::now();
    let (plain, stats) = col.collide_batch_gpu(&ctx, path, &opts, None)?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let nv: u64 = plain.iter().map(|r| r.counters.bv_tests).sum();
    table.push(row("none", 0, 0, nv, &stats, ms, "-".into()));
    for &n in budgets {
        let mut budget = Budget::new(n, "budget")?.with_order(Order::Breadth);
        budget.hot_start = false;
        budget.front = false;
        let t = Instant::now();
        let (gpu, stats) = col.collide_budgeted_gpu(&ctx, path, &opts, budget)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let cpu = col.collide_budgeted(path, &opts, budget)?;
        let unlike = gpu
            .iter()
            .zip(&cpu)
            .filter(|((g, gs), (c, cs))| g.pairs != c.pairs || gs != cs)
            .count();
        let maybe = gpu
            .iter()
            .filter(|(_, s)| s.answer == Answer::Maybe)
            .count();
        let incomplete = gpu.iter().filter(|(_, s)| !s.complete).count();
        let nv: u64 = gpu.iter().map(|(_, s)| s.bv_tests).sum();
        let label = n.to_string();
        table.push(row(
            &label,
            maybe,
            incomplete,
            nv,
            &stats,
            ms,
            unlike.to_string(),
        ));
    }
    let mut notes = notes;
    notes.push(format!(
        "GPU: {}; every step of the flight in one call (batches as the device's memory allows), after one untimed call; rows unlike the CPU's: steps whose pairs or status row differ from the CPU's breadth-first order without the hot start (0 expected)",
        ctx.adapter_name()
    ));
    write_report_timed(
        out,
        "budget_gpu",
        "Time-critical queries on the GPU: a budget per pose inside a batch",
        &notes,
        &table,
        "each budget one batch call over the whole flight",
    )
}

/// One row of the table.
fn row(
    label: &str,
    maybe: usize,
    incomplete: usize,
    nv: u64,
    s: &GpuStats,
    ms: f64,
    unlike: String,
) -> Vec<String> {
    vec![
        label.into(),
        maybe.to_string(),
        incomplete.to_string(),
        nv.to_string(),
        s.dispatches.to_string(),
        s.submissions.to_string(),
        s.readbacks.to_string(),
        f(s.bytes_read_back as f64 / 1024.0, 1),
        f(ms, 2),
        unlike,
    ]
}
