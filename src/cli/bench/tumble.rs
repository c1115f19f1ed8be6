//! `bench tumble`: Zachmann's protocol, two copies of a model tumbling at centre distances d.

use super::{Common, Run, bar, f, load_or, timed, warm};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report};
use crate::experiments as ex;
use crate::{
    bvh::BuildOptions, collider::Collider, kind::BvKind, pose::Pose, scene::Mode,
    scene::QueryOptions, scene::brute_force,
};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct TumbleArgs {
    #[command(flatten)]
    pub common: Common,
    /// The model (both copies); default: a generated pair of linked tori.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Triangles of the generated default model.
    #[arg(long, default_value_t = 10_000)]
    pub tris: usize,
    /// Steps of the tumbling turn.
    #[arg(long, default_value_t = 5000)]
    pub steps: usize,
    /// Centre distances d (the models fit a cube of side 2).
    #[arg(long, num_args = 1.., value_delimiter = ',', default_values_t = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4])]
    pub distances: Vec<f64>,
    /// Check a sample of poses per d against brute force (small models) or against an
    /// independent k-DOP hierarchy (kdop18, or kdop6 when kdop18 is measured).
    #[arg(long)]
    pub check: bool,
    /// Poses checked per d and bv with --check.
    #[arg(long, default_value_t = 4)]
    pub check_poses: usize,
}

const MODES: [Mode; 2] = [Mode::First, Mode::All];

pub fn run(a: &TumbleArgs) -> Result<(), Failure> {
    let kinds = a.common.kinds(&[BvKind::Kdop18]);
    let (m, model) = load_or(&a.model, || ex::default_model(a.tris))?;
    let o = BuildOptions::default();
    let mut table = Table::new(&[
        "bv",
        "d",
        "mode",
        "avg ms",
        "max ms",
        "avg Nv",
        "max Nv",
        "avg Np",
        "avg Nu",
        "poses in contact",
        "pairs",
    ]);
    let b = bar(kinds.len() * a.distances.len() * 2 * a.steps, "queries")?;
    let mut series_t = Vec::new();
    let mut series_nv = Vec::new();
    let mut checked = 0usize;
    let small = (m.triangle_count() as f64).powi(2) <= 2e7;
    for &bv in &kinds {
        b.set_message(bv.name());
        let col = Collider::builder(&m, &m)
            .warm_up(crate::collider::WarmUp::Own)
            .bv(bv)
            .build_options(o)
            .paper()
            .build()?;
        warm(&col, &Pose::translation([1e3, 0.0, 0.0]));
        let reference = (a.check && !small)
            .then(|| {
                let rk = if bv == BvKind::Kdop18 {
                    BvKind::Kdop6
                } else {
                    BvKind::Kdop18
                };
                Collider::builder(&m, &m)
                    .warm_up(crate::collider::WarmUp::Own)
                    .bv(rk)
                    .build_options(o)
                    .paper()
                    .build()
            })
            .transpose()?;
        for mode in MODES {
            let opts = QueryOptions {
                mode,
                ..QueryOptions::PAPER
            };
            let mut st = Vec::new();
            let mut sn = Vec::new();
            for &d in &a.distances {
                let poses = ex::tumble_poses(a.steps, d);
                let mut run = Run::default();
                for (i, p) in poses.iter().enumerate() {
                    let (ms, r) = timed(&col, p, &opts);
                    run.add(ms, &r);
                    if a.check && a.check_poses > 0 && i % (a.steps / a.check_poses).max(1) == 0 {
                        let truth = match &reference {
                            None => brute_force(&m, &m, p),
                            Some(rc) => rc.collide_with(p, &QueryOptions::PAPER).pairs,
                        };
                        let ok = match mode {
                            Mode::All => truth == r.pairs,
                            Mode::First => {
                                r.pairs.len() <= 1
                                    && r.pairs.is_empty() == truth.is_empty()
                                    && r.pairs.iter().all(|x| truth.binary_search(x).is_ok())
                            }
                        };
                        if !ok {
                            return Err(Failure::Internal(format!(
                                "check failed: {} d={d} mode {} pose {i}: {} pairs, reference {}",
                                bv.name(),
                                mode.name(),
                                r.pairs.len(),
                                truth.len()
                            )));
                        }
                        checked += 1;
                    }
                    b.inc(1);
                }
                table.push(vec![
                    bv.name().into(),
                    f(d, 2),
                    mode.name().into(),
                    f(run.avg_ms(), 4),
                    f(run.max_ms, 3),
                    f(run.avg(run.sum.bv_tests), 1),
                    run.max_nv.to_string(),
                    f(run.avg(run.sum.tri_tests), 1),
                    f(run.avg(run.sum.bv_updates), 1),
                    run.in_contact.to_string(),
                    run.pairs.to_string(),
                ]);
                st.push((d, run.avg_ms()));
                sn.push((d, run.avg(run.sum.bv_tests)));
            }
            let name = format!("{} {}", bv.name(), mode.name());
            series_t.push(Series {
                name: name.clone(),
                points: st,
            });
            series_nv.push(Series { name, points: sn });
        }
    }
    b.finish_and_clear();
    let mut notes = vec![
        format!(
            "model: {model} ({} triangles), scaled into a cube of side 2; B tumbles one full turn about z and x in {} steps at each centre distance d along x",
            m.triangle_count(),
            a.steps
        ),
        "build: splatter at the mean, leaf size 1; tumbling: approximation method (CPU default)"
            .into(),
    ];
    if a.check {
        notes.push(format!(
            "checked {checked} poses against {}: all equal",
            if small {
                "brute force"
            } else {
                "an independent k-DOP hierarchy (kdop18; kdop6 for kdop18)"
            }
        ));
    }
    write_report(
        &a.common.out,
        "tumble",
        "Tumbling copies (Zachmann's protocol)",
        &notes,
        &table,
    )?;
    write_plot(
        &a.common.out,
        "tumble",
        &[
            Panel {
                title: "average query time".into(),
                x: "centre distance d".into(),
                y: "ms per query".into(),
                series: series_t,
            },
            Panel {
                title: "average Nv".into(),
                x: "centre distance d".into(),
                y: "bounding-volume tests per query".into(),
                series: series_nv,
            },
        ],
    )?;
    a.common.wrote("tumble");
    Ok(())
}
