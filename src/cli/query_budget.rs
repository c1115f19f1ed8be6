//! `query --budget`: the options of a time-critical query ([`crate::budget`]) as the
//! library's budget, refused with what they do not combine with.

use super::query_args::QueryArgs;
use super::{BackendArg, Failure};

/// `--budget` (with `--budget-us` and `--budget-order`) as the library's budget, refused
/// with what it does not combine with.
pub(super) fn budget_of(a: &QueryArgs) -> Result<Option<crate::budget::Budget>, Failure> {
    let Some(n) = a.budget else {
        return Ok(None);
    };
    let with = [
        (
            a.frames_a.is_some() || a.frames_b.is_some(),
            "--frames-a or --frames-b",
        ),
        (a.tolerance.is_some_and(|e| e != 0.0), "--tolerance above 0"),
        (a.solid, "--solid"),
        (a.contact_geometry, "--contact-geometry"),
    ];
    if let Some((_, what)) = with.iter().find(|(on, _)| *on) {
        return Err(Failure::Input(format!(
            "--budget with {what} is not supported yet"
        )));
    }
    let gpu = a.backend == BackendArg::Gpu;
    let order = a.budget_order.unwrap_or(if gpu {
        crate::budget::Order::Breadth
    } else {
        crate::budget::Order::Best
    });
    if gpu && order != crate::budget::Order::Breadth {
        return Err(Failure::Input(format!(
            "--budget-order {} with --backend gpu: the GPU spends a budget breadth first, a whole level at a time (--budget-order breadth)",
            order.name()
        )));
    }
    if gpu && a.budget_us.is_some() {
        return Err(Failure::Input(
            "--budget-us with --backend gpu: a wall-clock budget runs on the CPU only".into(),
        ));
    }
    let budget = crate::budget::Budget::new(n, "--budget")?.with_order(order);
    Ok(Some(crate::budget::Budget {
        time: a.budget_us.map(std::time::Duration::from_micros),
        // The GPU runs its poses side by side: no pose follows another's contact.
        hot_start: budget.hot_start && !gpu,
        front: budget.front && !gpu,
        ..budget
    }))
}
