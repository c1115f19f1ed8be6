//! `bench hierarchies`: every hierarchy behind `--bv` side by side on one model.

use super::{Common, Run, bar, f, load_or, timed, warm};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report};
use crate::experiments as ex;
use crate::{bvh::BuildOptions, collider::Collider, kind::BvKind, pose::Pose, scene::QueryOptions};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct HierarchiesArgs {
    #[command(flatten)]
    pub common: Common,
    /// The model (both copies, scaled into a cube of side 2); default: generated linked tori.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Triangles of the generated default model.
    #[arg(long, default_value_t = 20_000)]
    pub tris: usize,
    /// Steps of the tumbling turn per distance.
    #[arg(long, default_value_t = 100)]
    pub steps: usize,
    /// Centre distances d along x (the models fit a cube of side 2).
    #[arg(long, num_args = 1.., value_delimiter = ',', default_values_t = [0.4, 0.8, 1.2, 1.6])]
    pub distances: Vec<f64>,
}

/// The default set of `bench hierarchies`: every family and k the papers compare.
const HIERARCHIES: [BvKind; 11] = [
    BvKind::Kdop6,
    BvKind::Kdop14,
    BvKind::Kdop18,
    BvKind::Kdop26,
    BvKind::Dual6,
    BvKind::Dual18,
    BvKind::Dual26,
    BvKind::Boxtree,
    BvKind::Rtree,
    BvKind::Obb,
    BvKind::Sphere,
];

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

pub fn run(a: &HierarchiesArgs) -> Result<(), Failure> {
    let kinds = a.common.kinds(&HIERARCHIES);
    let (m, model) = load_or(&a.model, || ex::default_model(a.tris))?;
    let o = BuildOptions::default();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Failure::Internal(format!("thread pool: {e}")))?;
    // The reference pairs: kdop18 with the CPU default traversal, per distance and pose.
    let poses: Vec<Vec<Pose>> = a
        .distances
        .iter()
        .map(|&d| ex::tumble_poses(a.steps, d))
        .collect();
    let reference = Collider::builder(&m, &m)
        .warm_up(crate::collider::WarmUp::Off)
        .bv(BvKind::Kdop18)
        .build_options(o)
        .paper()
        .build()?;
    let truth: Vec<Vec<Vec<(u32, u32)>>> = poses
        .iter()
        .map(|ps| {
            reference
                .collide_batch_with(ps, &QueryOptions::default(), None)
                .into_iter()
                .map(|r| r.pairs)
                .collect()
        })
        .collect();
    drop(reference);
    let mut table = Table::new(&[
        "bv",
        "B/node",
        "A bytes",
        "B/triangle",
        "build ms",
        "d",
        "median ms",
        "avg ms",
        "avg Nv",
        "avg Np",
        "avg Nu",
        "pairs",
    ]);
    let b = bar(kinds.len() * a.distances.len() * a.steps, "queries")?;
    let (mut series_t, mut series_nv) = (Vec::new(), Vec::new());
    for &bv in &kinds {
        b.set_message(bv.name());
        // Both hierarchies and B's preparation, on one thread.
        let t = Instant::now();
        let col = one.install(|| {
            Collider::builder(&m, &m)
                .warm_up(crate::collider::WarmUp::Off)
                .bv(bv)
                .build_options(o)
                .paper()
                .build()
        })?;
        let build_ms = t.elapsed().as_secs_f64() * 1e3;
        let [(nodes, bytes), _] = col.hierarchy_sizes();
        warm(&col, &Pose::translation([1e3, 0.0, 0.0]));
        let (mut st, mut sn) = (Vec::new(), Vec::new());
        for (di, &d) in a.distances.iter().enumerate() {
            let mut run = Run::default();
            let mut times = Vec::with_capacity(a.steps);
            for (i, p) in poses[di].iter().enumerate() {
                let (ms, r) = timed(&col, p, &QueryOptions::PAPER);
                if r.pairs != truth[di][i] {
                    return Err(Failure::Internal(format!(
                        "{} d={d} pose {i}: {} pairs, kdop18 {}",
                        bv.name(),
                        r.pairs.len(),
                        truth[di][i].len()
                    )));
                }
                times.push(ms);
                run.add(ms, &r);
                b.inc(1);
            }
            let med = median(&mut times);
            table.push(vec![
                bv.name().into(),
                f(bytes as f64 / nodes.max(1) as f64, 1),
                bytes.to_string(),
                f(bytes as f64 / m.triangle_count() as f64, 1),
                f(build_ms, 0),
                f(d, 2),
                f(med, 3),
                f(run.avg_ms(), 3),
                f(run.avg(run.sum.bv_tests), 0),
                f(run.avg(run.sum.tri_tests), 0),
                f(run.avg(run.sum.bv_updates), 0),
                run.pairs.to_string(),
            ]);
            st.push((d, med));
            sn.push((d, run.avg(run.sum.bv_tests)));
        }
        series_t.push(Series {
            name: bv.name().into(),
            points: st,
        });
        series_nv.push(Series {
            name: bv.name().into(),
            points: sn,
        });
    }
    b.finish_and_clear();
    let notes = vec![
        format!(
            "model: {model} ({} triangles) against itself, scaled into a cube of side 2; B tumbles one turn about z and x in {} steps at each centre distance d along x",
            m.triangle_count(),
            a.steps
        ),
        "build: both hierarchies and B's preparation on one thread, default options (splatter at the mean, leaf size 1; boxtree: its volume criterion; rtree: STR, m 4, M 8; dual and sphere: smallest enclosing spheres; obb: principal axes of the area-weighted covariance on the 6-DOP tree's splits)".into(),
        "bytes: A's node array (nodes × bytes per node; triangle arrays, the same for all, not counted); B/triangle = A bytes / triangles".into(),
        "queries: one at a time on one thread, Algorithm 1's descent (QueryOptions::PAPER), approximation-method tumbling, all contacts; boxtree: SAT lite; rtree: Collide v2; obb, sphere: their own descent (larger volume first), B's volume posed rigidly once per pose on first use (Nu), nothing tumbled".into(),
        format!(
            "every pose's pairs equal kdop18's (CPU default traversal): {} poses per hierarchy checked",
            a.steps * a.distances.len()
        ),
    ];
    write_report(
        &a.common.out,
        "hierarchies",
        "Every hierarchy side by side",
        &notes,
        &table,
    )?;
    write_plot(
        &a.common.out,
        "hierarchies",
        &[
            Panel {
                title: "median query time".into(),
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
    a.common.wrote("hierarchies");
    Ok(())
}
