//! `bench grid`: Figueiredo's grid against a copy of itself at small relative distances.

use super::{Common, Run, bar, f, timed, warm};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report};
use crate::experiments as ex;
use crate::{bvh::BuildOptions, collider::Collider, kind::BvKind, pose::Pose, scene::QueryOptions};

#[derive(clap::Args)]
pub struct GridArgs {
    #[command(flatten)]
    pub common: Common,
    /// Positions (orientation and direction) per distance.
    #[arg(long, default_value_t = 100)]
    pub positions: usize,
    /// Relative distances (fractions of the object size).
    #[arg(long, num_args = 1.., value_delimiter = ',', default_values_t = [0.0, 0.1, 0.2])]
    pub distances: Vec<f64>,
    /// Shrinks the grid's cells per side (1.0: 160 × 144 cells, 46,080 triangles).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: &GridArgs) -> Result<(), Failure> {
    let kinds = a.common.kinds(&BvKind::ALL);
    let g = ex::grid_model(a.scale);
    let size = 2.0;
    let b = bar(
        a.positions + kinds.len() * a.distances.len() * a.positions,
        "placements + queries",
    )?;
    b.set_message("placing");
    let places = ex::grid_positions(&g, &g, a.positions, a.seed, BvKind::Kdop18)?;
    b.inc(a.positions as u64);
    let o = BuildOptions::default();
    let mut table = Table::new(&[
        "bv",
        "distance",
        "avg Nv",
        "avg Np",
        "avg ms",
        "max ms",
        "positions in contact",
    ]);
    let mut st = Vec::new();
    let mut sn = Vec::new();
    for &bv in &kinds {
        b.set_message(bv.name());
        let col = Collider::builder(&g, &g)
            .warm_up(crate::collider::WarmUp::Own)
            .bv(bv)
            .build_options(o)
            .paper()
            .build()?;
        warm(&col, &Pose::translation([1e3, 0.0, 0.0]));
        let (mut pt, mut pn) = (Vec::new(), Vec::new());
        for &d in &a.distances {
            let mut run = Run::default();
            for pl in &places {
                let (ms, r) = timed(&col, &pl.placed(d, size), &QueryOptions::PAPER);
                run.add(ms, &r);
                b.inc(1);
            }
            table.push(vec![
                bv.name().into(),
                f(d, 2),
                f(run.avg(run.sum.bv_tests), 1),
                f(run.avg(run.sum.tri_tests), 1),
                f(run.avg_ms(), 4),
                f(run.max_ms, 3),
                run.in_contact.to_string(),
            ]);
            pt.push((d, run.avg_ms()));
            pn.push((d, run.avg(run.sum.bv_tests)));
        }
        st.push(Series {
            name: bv.name().into(),
            points: pt,
        });
        sn.push(Series {
            name: bv.name().into(),
            points: pn,
        });
    }
    b.finish_and_clear();
    let notes = vec![
        format!(
            "grid: flat, {} triangles, fitted into a cube of side 2 (object size 2); B is a copy at {} random positions (orientation and direction, seed {}); distance 0.0 is the closest free placement along the direction (bisection to 1e-4), d moves B a further d × size",
            g.triangle_count(),
            a.positions,
            a.seed
        ),
        "all-contacts queries; splatter at the mean, leaf size 1".into(),
    ];
    write_report(
        &a.common.out,
        "grid",
        "Grid at distances 0.0–0.2 (Figueiredo, Table 2)",
        &notes,
        &table,
    )?;
    write_plot(
        &a.common.out,
        "grid",
        &[
            Panel {
                title: "average query time".into(),
                x: "relative distance".into(),
                y: "ms per query".into(),
                series: st,
            },
            Panel {
                title: "average Nv".into(),
                x: "relative distance".into(),
                y: "bounding-volume tests per query".into(),
                series: sn,
            },
        ],
    )?;
    a.common.wrote("grid");
    Ok(())
}
