//! `bench flight`: a billiard flight among tetrahedra (Klosowski et al.'s 747 and swept
//! set-ups).

use super::{Common, Run, bar, f, load_or, timed, warm};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report};
use crate::experiments as ex;
use crate::{bvh::BuildOptions, collider::Collider, kind::BvKind, pose::Pose, scene::QueryOptions};
use clap::ValueEnum;
use std::path::PathBuf;

/// The set-ups of Klosowski et al. 1998, 5.2.2.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Setup {
    /// A model flying among random disjoint tetrahedra (default 25,000).
    #[value(name = "747")]
    B747,
    /// An axe flying along a path surrounded by tetrahedra close to it but never hit.
    Swept,
}

#[derive(clap::Args)]
pub struct FlightArgs {
    #[command(flatten)]
    pub common: Common,
    #[arg(long, value_enum, default_value = "747")]
    pub setup: Setup,
    /// Flying model (default: generated linked tori for 747, the axe for swept).
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Triangles of the generated flying model (747).
    #[arg(long, default_value_t = 14_646)]
    pub tris: usize,
    /// Obstacles (default 25,000 for 747, 10,000 for swept).
    #[arg(long)]
    pub tetrahedra: Option<usize>,
    /// Steps of the flight (default 10,000 for 747, 1,000 for swept).
    #[arg(long)]
    pub steps: Option<usize>,
    /// Lattice cell of the 747 obstacles (one tetrahedron of circumradius 0.3–0.45 cell per
    /// cell; B fits a cube of side 2).
    #[arg(long, default_value_t = 3.0)]
    pub cell: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: &FlightArgs) -> Result<(), Failure> {
    let kinds = a.common.kinds(&BvKind::ALL);
    let swept = a.setup == Setup::Swept;
    let steps = a.steps.unwrap_or(if swept { 1000 } else { 10_000 });
    let n_tet = a.tetrahedra.unwrap_or(if swept { 10_000 } else { 25_000 });
    let (fly, model) = match (&a.model, swept) {
        (None, true) => (ex::axe(), "the axe (generated)".to_string()),
        _ => load_or(&a.model, || ex::default_model(a.tris))?,
    };
    let o = BuildOptions::default();
    let (env, poses, note) = if swept {
        let (env, poses) = ex::swept_scene(a.seed, &fly, n_tet, steps)?;
        let n = env.triangle_count() / 4;
        (
            env,
            poses,
            format!(
                "{n} tetrahedra (circumradius 0.1–0.2) placed within reach of the path and kept only if disjoint from each other and from B at every step"
            ),
        )
    } else {
        let env = ex::tetrahedra_field(a.seed, n_tet, a.cell);
        (
            env,
            Vec::new(),
            format!(
                "{n_tet} disjoint tetrahedra, one per cell of side {} of a cubic lattice",
                a.cell
            ),
        )
    };
    let bound = if swept {
        ex::SWEPT_BOUND
    } else {
        ((n_tet as f64).cbrt().ceil() * a.cell / 2.0 - 1.0).max(0.5)
    };
    let mut table = Table::new(&[
        "bv",
        "steps",
        "steps in contact",
        "pairs",
        "avg ms",
        "max ms",
        "avg Nv",
        "max Nv",
        "avg Np",
        "avg Nu",
    ]);
    let b = bar(kinds.len() * steps, "steps")?;
    let mut series = Vec::new();
    let mut path: Option<Vec<Pose>> = None;
    for &bv in &kinds {
        b.set_message(bv.name());
        let col = Collider::builder(&env, &fly)
            .warm_up(crate::collider::WarmUp::Own)
            .bv(bv)
            .build_options(o)
            .paper()
            .build()?;
        warm(&col, &Pose::translation([1e6, 0.0, 0.0]));
        let mut run = Run::default();
        let mut pts = Vec::with_capacity(steps);
        let q = QueryOptions::PAPER;
        let mut visit = |i: usize, p: &Pose| {
            let (ms, r) = timed(&col, p, &q);
            run.add(ms, &r);
            pts.push((i as f64, ms));
            b.inc(1);
            !r.pairs.is_empty()
        };
        let visited = if swept {
            for (i, p) in poses.iter().enumerate() {
                visit(i, p);
            }
            poses.clone()
        } else {
            ex::billiard(
                a.seed,
                steps,
                [0.0; 3],
                0.05,
                std::f64::consts::TAU / 2000.0,
                bound,
                visit,
            )
        };
        // Contacts are exact, so every bv must fly the same path.
        match &path {
            None => path = Some(visited),
            Some(p) if *p != visited => {
                return Err(Failure::Internal(format!(
                    "{} flew a different path",
                    bv.name()
                )));
            }
            Some(_) => {}
        }
        table.push(vec![
            bv.name().into(),
            run.n.to_string(),
            run.in_contact.to_string(),
            run.pairs.to_string(),
            f(run.avg_ms(), 4),
            f(run.max_ms, 3),
            f(run.avg(run.sum.bv_tests), 1),
            run.max_nv.to_string(),
            f(run.avg(run.sum.tri_tests), 1),
            f(run.avg(run.sum.bv_updates), 1),
        ]);
        series.push(Series {
            name: bv.name().into(),
            points: pts,
        });
    }
    b.finish_and_clear();
    let name = if swept { "Swept" } else { "747" };
    let notes = vec![
        format!(
            "set-up {name}: B = {model} ({} triangles, fitted into a cube of side 2); A = {note} ({} triangles)",
            fly.triangle_count(),
            env.triangle_count()
        ),
        if swept {
            "B flies a billiard path in an empty box first; the obstacles are placed along it afterwards, so no step is in contact".into()
        } else {
            format!(
                "billiard path: {steps} steps of length 0.05 with a turn of 2π/2000 per step, reversed (and turned by a random angle) after each step in contact, reflected at |x|, |y|, |z| = {bound}; every bv flies the same path (checked)"
            )
        },
        "all-contacts queries; splatter at the mean, leaf size 1".into(),
    ];
    let file = if swept { "flight-swept" } else { "flight-747" };
    write_report(
        &a.common.out,
        file,
        &format!("Billiard flight, {name} set-up (Klosowski et al., 5.2.2, Fig. 3)"),
        &notes,
        &table,
    )?;
    write_plot(
        &a.common.out,
        file,
        &[Panel {
            title: format!("query time per step, {name}"),
            x: "step".into(),
            y: "ms".into(),
            series,
        }],
    )?;
    a.common.wrote(file);
    Ok(())
}
