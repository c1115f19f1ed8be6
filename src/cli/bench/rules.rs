//! `bench rules`: build and query time of every splitting rule, mean vs median split point.

use super::{Common, Run, bar, f, load_or, timed, warm};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report};
use crate::experiments as ex;
use crate::{
    bvh::BuildOptions, bvh::SplitPoint, bvh::SplitRule, collider::Collider, kind::BvKind,
    pose::Pose, scene::QueryOptions,
};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct RulesArgs {
    #[command(flatten)]
    pub common: Common,
    /// The model (environment and flying copy); default: generated linked tori.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Triangles of the generated default model.
    #[arg(long, default_value_t = 100_000)]
    pub tris: usize,
    /// Steps of the tumbling turn used for query times.
    #[arg(long, default_value_t = 1000)]
    pub steps: usize,
    /// Centre distance of the tumbling turn (the models fit a cube of side 2).
    #[arg(long, default_value_t = 1.0)]
    pub distance: f64,
    /// Builds timed per rule (the minimum is reported).
    #[arg(long, default_value_t = 3)]
    pub build_repeat: usize,
}

pub fn run(a: &RulesArgs) -> Result<(), Failure> {
    let kinds = a.common.kinds(&[BvKind::Kdop18]);
    let (m, model) = load_or(&a.model, || ex::default_model(a.tris))?;
    // B for the build timing: a single tetrahedron, so the time is A's hierarchy alone.
    let tiny = crate::mesh::generate::tetrahedron([0.0; 3], 1.0);
    let points = [SplitPoint::Mean, SplitPoint::Median];
    let mut table = Table::new(&[
        "bv",
        "rule",
        "point",
        "build ms",
        "Mtri/s",
        "avg query ms",
        "max query ms",
        "avg Nv",
        "avg Np",
        "avg Nu",
        "pairs",
    ]);
    let total =
        kinds.len() * SplitRule::ALL.len() * points.len() * (a.steps + a.build_repeat.max(1));
    let b = bar(total, "builds + queries")?;
    let poses = ex::tumble_poses(a.steps, a.distance);
    let mut build_series = Vec::new();
    let mut query_series = Vec::new();
    for &bv in &kinds {
        for point in points {
            let mut bs = Vec::new();
            let mut qs = Vec::new();
            for (ri, rule) in SplitRule::ALL.into_iter().enumerate() {
                let o = BuildOptions {
                    rule,
                    point,
                    leaf_size: 1,
                };
                let mut build_ms = f64::INFINITY;
                for _ in 0..a.build_repeat.max(1) {
                    let t = Instant::now();
                    let c = Collider::builder(&m, &tiny)
                        .warm_up(crate::collider::WarmUp::Off)
                        .bv(bv)
                        .build_options(o)
                        .paper()
                        .build()?;
                    build_ms = build_ms.min(t.elapsed().as_secs_f64() * 1e3);
                    drop(c);
                    b.inc(1);
                }
                let col = Collider::builder(&m, &m)
                    .warm_up(crate::collider::WarmUp::Own)
                    .bv(bv)
                    .build_options(o)
                    .paper()
                    .build()?;
                warm(&col, &Pose::translation([1e3, 0.0, 0.0]));
                let mut run = Run::default();
                for p in &poses {
                    let (ms, r) = timed(&col, p, &QueryOptions::PAPER);
                    run.add(ms, &r);
                    b.inc(1);
                }
                table.push(vec![
                    bv.name().into(),
                    rule.name().into(),
                    point.name().into(),
                    f(build_ms, 1),
                    f(m.triangle_count() as f64 / build_ms / 1e3, 2),
                    f(run.avg_ms(), 4),
                    f(run.max_ms, 3),
                    f(run.avg(run.sum.bv_tests), 1),
                    f(run.avg(run.sum.tri_tests), 1),
                    f(run.avg(run.sum.bv_updates), 1),
                    run.pairs.to_string(),
                ]);
                bs.push((ri as f64, build_ms));
                qs.push((ri as f64, run.avg_ms()));
            }
            let name = format!("{} {}", bv.name(), point.name());
            build_series.push(Series {
                name: name.clone(),
                points: bs,
            });
            query_series.push(Series { name, points: qs });
        }
    }
    b.finish_and_clear();
    let order: Vec<&str> = SplitRule::ALL.iter().map(|r| r.name()).collect();
    let notes = vec![
        format!(
            "model: {model} ({} triangles), scaled into a cube of side 2",
            m.triangle_count()
        ),
        format!(
            "build ms: A's hierarchy alone (B a single tetrahedron), leaf size 1, the fastest of {} builds; queries: all contacts, {} tumbling steps at centre distance {}, both hierarchies built with the row's rule",
            a.build_repeat.max(1),
            a.steps,
            a.distance
        ),
        format!("plot x axis: rule index {}", order.join(", ")),
    ];
    write_report(
        &a.common.out,
        "rules",
        "Splitting rules, mean vs median (Klosowski et al., Tables 3–5)",
        &notes,
        &table,
    )?;
    write_plot(
        &a.common.out,
        "rules",
        &[
            Panel {
                title: "build time of A".into(),
                x: format!("rule ({})", order.join(", ")),
                y: "ms".into(),
                series: build_series,
            },
            Panel {
                title: "average query time".into(),
                x: format!("rule ({})", order.join(", ")),
                y: "ms per query".into(),
                series: query_series,
            },
        ],
    )?;
    a.common.wrote("rules");
    Ok(())
}
