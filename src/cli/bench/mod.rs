//! `meshcollide bench <experiment>`: the papers' experiments, each writing
//! `DIR/<experiment>.md` (a table, one row per configuration) and `DIR/<experiment>.svg`.
//! Scenes come from `crate::experiments`; every figure is measured in the run. Queries are
//! timed one at a time on the calling thread (`Collider::collide`), so times are
//! single-threaded per-query times. Queries run `QueryOptions::PAPER` (Algorithm 1's
//! descent), so Nv compares with the papers' tables; the CPU default (`Descent::Larger`)
//! tests fewer node pairs (see `vs_parry` in `docs/notebook/vs-parry3d.md`).

mod budget;
mod budget_gpu;
mod deform;
mod flight;
mod gpu;
mod grid;
mod hierarchies;
mod rules;
mod spheres;
mod tumble;

use super::Failure;
use crate::experiments as ex;
use crate::{
    collider::Collider, kind::BvKind, mesh::Mesh, pose::Pose, scene::Counters, scene::QueryOptions,
};
use clap::Subcommand;
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
    /// Zachmann's protocol: two copies tumbling at centre distances d (Zachmann 2002,
    /// 'Minimal Hierarchical Collision Detection', section 5).
    Tumble(tumble::TumbleArgs),
    /// Klosowski's nested spheres: Nv per k and alpha (Klosowski et al. 1998, 'Efficient
    /// Collision Detection Using BVHs of k-DOPs', Tables 6 and 7).
    Spheres(spheres::SpheresArgs),
    /// Build and query time of every splitting rule, mean vs median (Klosowski et al. 1998,
    /// 'Efficient Collision Detection Using BVHs of k-DOPs', Tables 3–5).
    Rules(rules::RulesArgs),
    /// A billiard flight among random disjoint tetrahedra, per-step times (Klosowski et al.
    /// 1998, 'Efficient Collision Detection Using BVHs of k-DOPs', 5.2.2, Fig. 3).
    Flight(flight::FlightArgs),
    /// Figueiredo's 46,080-triangle grid at distances 0.0, 0.1, 0.2 (Figueiredo 2009, 'An
    /// R-Tree Collision Detection Algorithm for Polygonal Models', Table 2).
    Grid(grid::GridArgs),
    /// Every hierarchy behind `--bv` side by side on one model: bytes per node and per
    /// triangle, build time, query time and Nv at several distances, pairs checked equal
    /// to kdop18's at every pose.
    Hierarchies(hierarchies::HierarchiesArgs),
    /// Deforming meshes: a cloth-like sheet over a wobbling ball, per-frame update and query
    /// time of the full refit, the hybrid update (Larsson and Akenine-Möller 2001,
    /// 'Collision Detection for Continuously Deforming Objects') and rebuilds; with
    /// --write-frames DIR, the scene's frame files for `query --frames-a/--frames-b`.
    Deform(deform::DeformArgs),
    /// Time-critical queries: a billiard flight among tetrahedra answered unbudgeted and
    /// with budgets of 1 %, 10 % and 50 % of the worst step's node tests, in each frontier
    /// order: maybe answers, missed contacts, times, depth bounds (Klosowski et al. 1998,
    /// 'Efficient Collision Detection Using BVHs of k-DOPs', 5.2.3 and 6.1).
    Budget(budget::BudgetArgs),
    /// Whether the GPU pays on this machine: a fixed suite (tori, nested spheres, and with
    /// --models the bunny and the dragon) on the CPU and the GPU with every default, pairs
    /// and counters checked equal; wall time per pose, kernel times, dispatches, readbacks.
    Gpu(gpu::GpuArgs),
}

#[derive(clap::Args)]
pub struct Common {
    /// Directory for `<experiment>.md` and `<experiment>.svg`.
    #[arg(long, default_value = "bench-results")]
    pub out: PathBuf,
    /// Bounding volumes to compare, comma or space separated (default depends on the
    /// experiment).
    #[arg(long, num_args = 1.., value_delimiter = ',', value_parser = str::parse::<BvKind>)]
    pub bv: Vec<BvKind>,
}

impl Common {
    /// Says where the experiment's two files are, each by its whole path (as `--out`
    /// spells the folder), so that either can be opened from the message.
    fn wrote(&self, name: &str) {
        let md = self.out.join(format!("{name}.md"));
        let svg = self.out.join(format!("{name}.svg"));
        eprintln!("wrote {} and {}", md.display(), svg.display());
    }

    fn kinds(&self, default: &[BvKind]) -> Vec<BvKind> {
        if self.bv.is_empty() {
            default.to_vec()
        } else {
            self.bv.clone()
        }
    }
}

pub fn run(a: &BenchArgs) -> Result<(), Failure> {
    match &a.experiment {
        Experiment::Tumble(t) => tumble::run(t),
        Experiment::Spheres(s) => spheres::run(s),
        Experiment::Rules(r) => rules::run(r),
        Experiment::Flight(f) => flight::run(f),
        Experiment::Grid(g) => grid::run(g),
        Experiment::Hierarchies(h) => hierarchies::run(h),
        Experiment::Deform(d) => deform::run(d),
        Experiment::Gpu(g) => gpu::run(g),
        Experiment::Budget(b) => budget::run(b),
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
            ex::fit_cube(&crate::mesh::load(p).map_err(crate::error::Error::from)?),
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
    fn add(&mut self, ms: f64, r: &crate::collider::Contacts) {
        self.n += 1;
        self.total_ms += ms;
        self.max_ms = self.max_ms.max(ms);
        self.sum += r.counters.cost();
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
    let _ = col.collide_with(p, &QueryOptions::PAPER);
}

/// Times one query.
fn timed(col: &Collider, p: &Pose, o: &QueryOptions) -> (f64, crate::collider::Contacts) {
    let t = Instant::now();
    let r = col.collide_with(p, o);
    (t.elapsed().as_secs_f64() * 1e3, r)
}

fn f(x: f64, digits: usize) -> String {
    format!("{x:.digits$}")
}
