//! `meshcollide bench <experiment>`: the papers' experiments, each writing
//! `DIR/<experiment>.md` (a table, one row per configuration) and `DIR/<experiment>.svg`.
//! Scenes come from `crate::experiments`; every figure is measured in the run. Queries
//! are timed one at a time on the calling thread (`Collider::collide`), so times are
//! single-threaded per-query times. Queries run `QueryOptions::PAPER` (Algorithm 1's descent),
//! so Nv compares with the papers' tables; the CPU default (`Descent::Larger`) tests fewer
//! node pairs (see `vs_parry` in BENCHMARKS.md).

use super::Failure;
use super::report::{Panel, Series, Table, write_plot, write_report};
use crate::experiments as ex;
use crate::{
    BuildOptions, BvKind, Collider, Counters, Mesh, Mode, Pose, QueryOptions, SplitPoint,
    SplitRule, brute_force,
};
use clap::{Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub experiment: Experiment,
}

#[derive(Subcommand)]
pub enum Experiment {
    /// Zachmann's protocol: two copies tumbling at centre distances d (000_…, section 5).
    Tumble(TumbleArgs),
    /// Klosowski's nested spheres: Nv per k and alpha (002_…, Tables 6 and 7).
    Spheres(SpheresArgs),
    /// Build and query time of every splitting rule, mean vs median (002_…, Tables 3–5).
    Rules(RulesArgs),
    /// A billiard flight among random disjoint tetrahedra, per-step times (002_…, 5.2.2, Fig. 3).
    Flight(FlightArgs),
    /// Figueiredo's 46,080-triangle grid at distances 0.0, 0.1, 0.2 (003_…, Table 2).
    Grid(GridArgs),
    /// Every hierarchy behind `--bv` side by side on one model: bytes per node and per
    /// triangle, build time, query time and Nv at several distances, pairs checked equal
    /// to kdop18's at every pose.
    Hierarchies(HierarchiesArgs),
}

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
    #[arg(long, value_delimiter = ',', default_values_t = [0.4, 0.8, 1.2, 1.6])]
    pub distances: Vec<f64>,
}

#[derive(clap::Args)]
pub struct Common {
    /// Directory for `<experiment>.md` and `<experiment>.svg`.
    #[arg(long, default_value = "bench-results")]
    pub out: PathBuf,
    /// Bounding volumes to compare, comma separated (default depends on the experiment).
    #[arg(long, value_delimiter = ',', value_parser = parse_bv)]
    pub bv: Vec<BvKind>,
}

fn parse_bv(s: &str) -> Result<BvKind, String> {
    BvKind::parse(s).ok_or_else(|| {
        let known: Vec<&str> = BvKind::ALL.iter().map(|k| k.name()).collect();
        format!(
            "unknown bounding volume `{s}` (known: {})",
            known.join(", ")
        )
    })
}

impl Common {
    fn kinds(&self, default: &[BvKind]) -> Vec<BvKind> {
        if self.bv.is_empty() {
            default.to_vec()
        } else {
            self.bv.clone()
        }
    }
}

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
    #[arg(long, value_delimiter = ',', default_values_t = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4])]
    pub distances: Vec<f64>,
    /// Check a sample of poses per d against brute force (small models) or against an
    /// independent k-DOP hierarchy (kdop18, or kdop6 when kdop18 is measured).
    #[arg(long)]
    pub check: bool,
    /// Poses checked per d and bv with --check.
    #[arg(long, default_value_t = 4)]
    pub check_poses: usize,
}

#[derive(clap::Args)]
pub struct SpheresArgs {
    #[command(flatten)]
    pub common: Common,
    /// Triangles per sphere.
    #[arg(long, value_delimiter = ',', default_values_t = [2000, 20000])]
    pub sizes: Vec<usize>,
    /// Gaps alpha (the inner sphere has radius 1 − alpha).
    #[arg(long, value_delimiter = ',', default_values_t = [0.55, 0.1, 0.055, 0.01, 0.0055, 0.001, 0.00055, 0.0001])]
    pub alphas: Vec<f64>,
    /// Timed repetitions of each query (Nv is the same every time).
    #[arg(long, default_value_t = 5)]
    pub repeat: usize,
}

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

/// The set-ups of `002_…` 5.2.2.
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

#[derive(clap::Args)]
pub struct GridArgs {
    #[command(flatten)]
    pub common: Common,
    /// Positions (orientation and direction) per distance.
    #[arg(long, default_value_t = 100)]
    pub positions: usize,
    /// Relative distances (fractions of the object size).
    #[arg(long, value_delimiter = ',', default_values_t = [0.0, 0.1, 0.2])]
    pub distances: Vec<f64>,
    /// Shrinks the grid's cells per side (1.0: 160 × 144 cells, 46,080 triangles).
    #[arg(long, default_value_t = 1.0)]
    pub scale: f64,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub fn run(a: &BenchArgs) -> Result<(), Failure> {
    match &a.experiment {
        Experiment::Tumble(t) => tumble(t),
        Experiment::Spheres(s) => spheres(s),
        Experiment::Rules(r) => rules(r),
        Experiment::Flight(f) => flight(f),
        Experiment::Grid(g) => grid(g),
        Experiment::Hierarchies(h) => hierarchies(h),
    }
}

fn bar(len: usize, what: &str) -> Result<ProgressBar, Failure> {
    let b = ProgressBar::new(len as u64);
    b.set_style(
        ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {what} (eta {{eta}}) {{msg}}"
        ))
        .map_err(|e| Failure::Internal(e.to_string()))?
        .progress_chars("=> "),
    );
    Ok(b)
}

fn load_or(
    model: &Option<PathBuf>,
    default: impl FnOnce() -> Mesh,
) -> Result<(Mesh, String), Failure> {
    Ok(match model {
        Some(p) => (
            ex::fit_cube(&crate::mesh::load(p).map_err(crate::Error::from)?),
            p.display().to_string(),
        ),
        None => {
            let m = default();
            let n = "generated linked tori".to_string();
            (m, n)
        }
    })
}

/// Per-query statistics over a set of poses.
#[derive(Default)]
struct Run {
    n: usize,
    total_ms: f64,
    max_ms: f64,
    sum: Counters,
    max_nv: u64,
    in_contact: usize,
    pairs: usize,
}

impl Run {
    fn add(&mut self, ms: f64, r: &crate::PoseResult) {
        self.n += 1;
        self.total_ms += ms;
        self.max_ms = self.max_ms.max(ms);
        self.sum += r.counters;
        self.max_nv = self.max_nv.max(r.counters.bv_tests);
        self.in_contact += usize::from(!r.pairs.is_empty());
        self.pairs += r.pairs.len();
    }
    fn avg_ms(&self) -> f64 {
        self.total_ms / self.n.max(1) as f64
    }
    fn avg(&self, v: u64) -> f64 {
        v as f64 / self.n.max(1) as f64
    }
}

/// One untimed query, so the first timed one does not pay for allocating the workspace.
fn warm(col: &Collider, p: &Pose) {
    let _ = col.collide(p, &QueryOptions::PAPER);
}

/// Times one query.
fn timed(col: &Collider, p: &Pose, o: &QueryOptions) -> (f64, crate::PoseResult) {
    let t = Instant::now();
    let r = col.collide(p, o);
    (t.elapsed().as_secs_f64() * 1e3, r)
}

fn f(x: f64, digits: usize) -> String {
    format!("{x:.digits$}")
}

const MODES: [Mode; 2] = [Mode::First, Mode::All];

fn tumble(a: &TumbleArgs) -> Result<(), Failure> {
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
        let col = Collider::build(&m, &m, bv, &o, &o);
        warm(&col, &Pose::translation([1e3, 0.0, 0.0]));
        let reference = (a.check && !small).then(|| {
            let rk = if bv == BvKind::Kdop18 {
                BvKind::Kdop6
            } else {
                BvKind::Kdop18
            };
            Collider::build(&m, &m, rk, &o, &o)
        });
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
                            Some(rc) => rc.collide(p, &QueryOptions::PAPER).pairs,
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
    eprintln!("wrote {}/tumble.md and tumble.svg", a.common.out.display());
    Ok(())
}

fn spheres(a: &SpheresArgs) -> Result<(), Failure> {
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
                let col = Collider::build(&outer, &inner, bv, &o, &o);
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
    eprintln!(
        "wrote {}/spheres.md and spheres.svg",
        a.common.out.display()
    );
    Ok(())
}

fn rules(a: &RulesArgs) -> Result<(), Failure> {
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
                    let c = Collider::build(&m, &tiny, bv, &o, &o);
                    build_ms = build_ms.min(t.elapsed().as_secs_f64() * 1e3);
                    drop(c);
                    b.inc(1);
                }
                let col = Collider::build(&m, &m, bv, &o, &o);
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
    eprintln!("wrote {}/rules.md and rules.svg", a.common.out.display());
    Ok(())
}

fn flight(a: &FlightArgs) -> Result<(), Failure> {
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
        let (env, poses) = ex::swept_scene(a.seed, &fly, n_tet, steps);
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
        let col = Collider::build(&env, &fly, bv, &o, &o);
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
    eprintln!("wrote {0}/{file}.md and {file}.svg", a.common.out.display());
    Ok(())
}

fn grid(a: &GridArgs) -> Result<(), Failure> {
    let kinds = a.common.kinds(&BvKind::ALL);
    let g = ex::grid_model(a.scale);
    let size = 2.0;
    let b = bar(
        a.positions + kinds.len() * a.distances.len() * a.positions,
        "placements + queries",
    )?;
    b.set_message("placing");
    let places = ex::grid_positions(&g, &g, a.positions, a.seed, BvKind::Kdop18);
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
        let col = Collider::build(&g, &g, bv, &o, &o);
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
    eprintln!("wrote {}/grid.md and grid.svg", a.common.out.display());
    Ok(())
}

/// The default set of `bench hierarchies`: every family and k the papers compare.
const HIERARCHIES: [BvKind; 9] = [
    BvKind::Kdop6,
    BvKind::Kdop14,
    BvKind::Kdop18,
    BvKind::Kdop26,
    BvKind::Dual6,
    BvKind::Dual18,
    BvKind::Dual26,
    BvKind::Boxtree,
    BvKind::Rtree,
];

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn hierarchies(a: &HierarchiesArgs) -> Result<(), Failure> {
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
    let reference = Collider::build(&m, &m, BvKind::Kdop18, &o, &o);
    let truth: Vec<Vec<Vec<(u32, u32)>>> = poses
        .iter()
        .map(|ps| {
            reference
                .collide_batch(ps, &QueryOptions::default(), &|_| {})
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
        let col = one.install(|| Collider::build(&m, &m, bv, &o, &o));
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
        "build: both hierarchies and B's preparation on one thread, default options (splatter at the mean, leaf size 1; boxtree: its volume criterion; rtree: STR, m 4, M 8; dual: smallest enclosing spheres)".into(),
        "bytes: A's node array (nodes × bytes per node; triangle arrays, the same for all, not counted); B/triangle = A bytes / triangles".into(),
        "queries: one at a time on one thread, Algorithm 1's descent (QueryOptions::PAPER), approximation-method tumbling, all contacts; boxtree: SAT lite; rtree: Collide v2".into(),
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
    eprintln!(
        "wrote {}/hierarchies.md and hierarchies.svg",
        a.common.out.display()
    );
    Ok(())
}
