//! `bench spheres`: Klosowski et al.'s nested spheres, Nv per k and gap alpha.

use super::{Common, bar, f, timed, warm};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report};
use crate::experiments as ex;
use crate::{bvh::BuildOptions, collider::Collider, kind::BvKind, pose::Pose, scene::QueryOptions};

#[derive(clap::Args)]
pub struct SpheresArgs {
    #[command(flatten)]
    pub common: Common,
    /// Triangles per sphere.
    #[arg(long, num_args = 1.., value_delimiter = ',', default_values_t = [2000, 20000])]
    pub sizes: Vec<usize>,
    /// Gaps alpha (the inner sphere has radius 1 − alpha).
    #[arg(long, num_args = 1.., value_delimiter = ',', default_values_t = [0.55, 0.1, 0.055, 0.01, 0.0055, 0.001, 0.00055, 0.0001])]
    pub alphas: Vec<f64>,
    /// Timed repetitions of each query (Nv is the same every time).
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
}

pub fn run(a: &SpheresArgs) -> Result<(), Failure> {
    let kinds = a.common.kinds(&BvKind::ALL);
    let o = BuildOptions::default();
    let mut table = Table::new(&[
        "triangles",
        "alpha",
        "bv",
        "Nv",
        "Np",
        "Nu",
        "pairs",
        "query ms",
    ]);
    let b = bar(a.sizes.len() * a.alphas.len() * kinds.len(), "scenes")?;
    let mut panels = Vec::new();
    for &n in &a.sizes {
        let mut series = Vec::new();
        for &bv in &kinds {
            let mut pts = Vec::new();
            for &alpha in &a.alphas {
                let (outer, inner) = ex::nested_spheres(n, alpha);
                let col = Collider::builder(&outer, &inner)
                    .warm_up(crate::collider::WarmUp::Own)
                    .bv(bv)
                    .build_options(o)
                    .paper()
                    .build()?;
                warm(&col, &Pose::translation([1e3, 0.0, 0.0]));
                let q = QueryOptions::PAPER;
                let (mut best, mut r) = timed(&col, &Pose::IDENTITY, &q);
                for _ in 1..a.repeat.max(1) {
                    let (ms, r2) = timed(&col, &Pose::IDENTITY, &q);
                    best = best.min(ms);
                    r = r2;
                }
                let c = r.counters;
                table.push(vec![
                    outer.triangle_count().to_string(),
                    alpha.to_string(),
                    bv.name().into(),
                    c.bv_tests.to_string(),
                    c.tri_tests.to_string(),
                    c.bv_updates.to_string(),
                    r.pairs.len().to_string(),
                    f(best, 3),
                ]);
                pts.push((alpha.log10(), (c.bv_tests as f64).log10()));
                b.inc(1);
            }
            series.push(Series {
                name: bv.name().into(),
                points: pts,
            });
        }
        panels.push(Panel {
            title: format!("nested spheres, {n} triangles"),
            x: "log10 alpha".into(),
            y: "log10 Nv".into(),
            series,
        });
    }
    b.finish_and_clear();
    let notes = vec![
        "outer sphere (radius 1) is A, inner (radius 1 − alpha, a scaled copy) is B at the identity; splatter at the mean, leaf size 1 on both; one all-contacts query per row".into(),
        format!("query ms: the fastest of {} runs", a.repeat.max(1)),
    ];
    write_report(
        &a.common.out,
        "spheres",
        "Nested spheres (Klosowski et al., Tables 6 and 7)",
        &notes,
        &table,
    )?;
    write_plot(&a.common.out, "spheres", &panels)?;
    a.common.wrote("spheres");
    Ok(())
}
