//! `bench budget`: Klosowski et al.'s time-critical experiment (1998, 5.2.3 and 6.1),
//! reproduced. A model flies the billiard path of `bench flight`'s 747 set-up among
//! disjoint tetrahedra; each step is answered unbudgeted (time and Nv), then with budgets of
//! 1 %, 10 % and 50 % of the worst step's Nv in each frontier order ([`crate::budget`]):
//! how many steps come back `maybe`, how many steps in contact are missed, the worst and
//! mean time, and the bound on the penetration depth left undecided, relative to the
//! model's size.

use super::{Common, bar, f, load_or};
use crate::budget::{Answer, Budget, Order};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report};
use crate::experiments as ex;
use crate::{collider::Collider, kind::BvKind, pose::Pose, scene::QueryOptions};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct BudgetArgs {
    #[command(flatten)]
    pub common: Common,
    /// Flying model (default: generated linked tori).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Triangles of the generated flying model.
    #[arg(long, default_value_t = 14_646)]
    pub tris: usize,
    /// Obstacles: disjoint tetrahedra, one per lattice cell.
    #[arg(long, default_value_t = 25_000)]
    pub tetrahedra: usize,
    /// Steps of the flight.
    #[arg(long, default_value_t = 2_000)]
    pub steps: usize,
    /// Lattice cell of the obstacles (B fits a cube of side 2).
    #[arg(long, default_value_t = 3.0)]
    pub cell: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The flight's step: how far the model moves per step (its turn per step is fixed,
    /// 1/2000 of a turn).
    #[arg(long, default_value_t = 0.05)]
    pub step: f64,
    /// Start each budgeted step from the roots, not from the previous step's front
    /// ([`Budget::front`]; the previous step's contact is still tested first).
    #[arg(long)]
    pub no_front: bool,
    /// Also run the steps as one batch on the GPU at each budget, breadth first
    /// (`budget_gpu.md`): the device's work, and every step checked against the CPU.
    #[arg(long)]
    pub gpu: bool,
}

/// The budgets, as fractions of the worst unbudgeted step's Nv (the three).
const FRACTIONS: [f64; 3] = [0.01, 0.1, 0.5];

pub fn run(a: &BudgetArgs) -> Result<(), Failure> {
    if !(a.step.is_finite() && a.step > 0.0) {
        return Err(Failure::Input(format!(
            "--step must be a positive number, got {}",
            a.step
        )));
    }
    let bv = a.common.kinds(&[BvKind::Kdop18])[0];
    let (fly, model) = load_or(&a.model, || ex::default_model(a.tris))?;
    let env = ex::tetrahedra_field(a.seed, a.tetrahedra, a.cell);
    let (lo, hi) = fly.bounds();
    let size = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt();
    let bound = ((a.tetrahedra as f64).cbrt().ceil() * a.cell / 2.0 - 1.0).max(0.5);
    let col = Collider::builder(&env, &fly)
        .warm_up(crate::collider::WarmUp::Own)
        .bv(bv)
        .build()?;
    let opts = QueryOptions::default();
    let runs = 1 + FRACTIONS.len() * Order::ALL.len();
    let b = bar(runs * a.steps, "steps")?;
    // The flight, unbudgeted: its path, and per step the time, Nv and contact.
    let mut plain = Vec::with_capacity(a.steps);
    let path = ex::billiard(
        a.seed,
        a.steps,
        [0.0; 3],
        a.step,
        std::f64::consts::TAU / 2000.0,
        bound,
        |_, p: &Pose| {
            let t = Instant::now();
            let r = col.collide_with(p, &opts);
            plain.push((ms(t), r.counters.bv_tests, !r.pairs.is_empty()));
            b.inc(1);
            !r.pairs.is_empty()
        },
    );
    let worst = plain.iter().map(|s| s.1).max().unwrap_or(1);
    let in_contact = plain.iter().filter(|s| s.2).count();
    let mut table = Table::new(&[
        "budget (Nv)",
        "order",
        "maybe",
        "contact steps missed",
        "incomplete",
        "avg ms",
        "max ms",
        "median bound / size",
        "max bound / size",
    ]);
    let avg = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let times: Vec<f64> = plain.iter().map(|s| s.0).collect();
    table.push(vec![
        "none".into(),
        "-".into(),
        "0".into(),
        "0".into(),
        "0".into(),
        f(avg(&times), 4),
        f(times.iter().copied().fold(0.0, f64::max), 3),
        "0".into(),
        "0".into(),
    ]);
    let mut time_series = vec![Series {
        name: "unbudgeted".into(),
        points: times
            .iter()
            .enumerate()
            .map(|(i, &t)| (i as f64, t))
            .collect(),
    }];
    let mut bound_series = Vec::new();
    let mut budgets = Vec::new();
    for frac in FRACTIONS {
        let n = ((worst as f64 * frac).round() as u64).max(1);
        budgets.push(n);
        for order in Order::ALL {
            b.set_message(format!("{n} {}", order.name()));
            let budget = Budget {
                front: !a.no_front,
                ..Budget::new(n, "budget")?.with_order(order)
            };
            let (mut ms_v, mut bounds) = (Vec::new(), Vec::new());
            let (mut maybe, mut missed, mut incomplete) = (0, 0, 0);
            // The flight is one path: each step starts where the last found contact.
            let mut hint = crate::budget::Hint::NONE;
            for (i, p) in path.iter().enumerate() {
                let t = Instant::now();
                let (r, s) = col.collide_budgeted_pose(p, &opts, budget, &mut hint)?;
                ms_v.push(ms(t));
                maybe += usize::from(s.answer == Answer::Maybe);
                missed += usize::from(plain[i].2 && r.pairs.is_empty());
                incomplete += usize::from(!s.complete);
                bounds.push(s.depth_bound / size);
                b.inc(1);
            }
            let mut undecided: Vec<f64> = bounds.iter().copied().filter(|&x| x > 0.0).collect();
            undecided.sort_by(f64::total_cmp);
            let median = undecided.get(undecided.len() / 2).copied().unwrap_or(0.0);
            table.push(vec![
                format!("{n} ({} %)", frac * 100.0),
                order.name().into(),
                format!("{maybe} ({:.1} %)", 100.0 * maybe as f64 / a.steps as f64),
                format!("{missed} of {in_contact}"),
                incomplete.to_string(),
                f(avg(&ms_v), 4),
                f(ms_v.iter().copied().fold(0.0, f64::max), 3),
                format!("{median:.2e}"),
                format!("{:.2e}", bounds.iter().copied().fold(0.0, f64::max)),
            ]);
            if order == Order::Best {
                time_series.push(Series {
                    name: format!("N = {n}"),
                    points: ms_v
                        .iter()
                        .enumerate()
                        .map(|(i, &t)| (i as f64, t))
                        .collect(),
                });
                bound_series.push(Series {
                    name: format!("N = {n}"),
                    points: bounds
                        .iter()
                        .enumerate()
                        .map(|(i, &x)| (i as f64, x))
                        .collect(),
                });
            }
        }
    }
    b.finish_and_clear();
    let notes = vec![
        format!(
            "B = {model} ({} triangles, fitted into a cube of side 2, size = its box diagonal {size:.3}); A = {} disjoint tetrahedra, one per cell of side {} ({} triangles); --bv {} with its defaults (descent larger, pretest), one thread",
            fly.triangle_count(),
            a.tetrahedra,
            a.cell,
            env.triangle_count(),
            bv.name()
        ),
        format!(
            "billiard path of `bench flight`'s 747 set-up: {} steps of {}, {in_contact} in contact; worst step Nv {worst}; budgets 1 %, 10 %, 50 % of it; hot start: the previous step's contact{}",
            a.steps,
            a.step,
            if a.no_front { " (--no-front)" } else { ", and its front" }
        ),
        "maybe: the budget ran out before any pair was found; contact steps missed: steps in contact answered without a pair; bound: depth_bound (a proven bound on the penetration depth of any contact left undecided) over the model's size, median over the steps left incomplete".into(),
    ];
    write_report(
        &a.common.out,
        "budget",
        "Time-critical queries: budgets per step of a flight (Klosowski et al., 5.2.3)",
        &notes,
        &table,
    )?;
    if a.gpu {
        super::budget_gpu::run(&a.common.out, &col, &path, &budgets, notes.clone())?;
        eprintln!("wrote {}", a.common.out.join("budget_gpu.md").display());
    }
    let nv = Series {
        name: "unbudgeted Nv".into(),
        points: plain
            .iter()
            .enumerate()
            .map(|(i, s)| (i as f64, s.1 as f64))
            .collect(),
    };
    write_plot(
        &a.common.out,
        "budget",
        &[
            Panel {
                title: "time per step (best-first)".into(),
                x: "step".into(),
                y: "ms".into(),
                series: time_series,
            },
            Panel {
                title: "node tests per step, unbudgeted".into(),
                x: "step".into(),
                y: "Nv".into(),
                series: vec![nv],
            },
            Panel {
                title: "depth bound / size (best-first)".into(),
                x: "step".into(),
                y: "bound / size".into(),
                series: bound_series,
            },
        ],
    )?;
    a.common.wrote("budget");
    Ok(())
}

/// Milliseconds since `t`.
fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
