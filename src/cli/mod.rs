//! Subcommands and their arguments.

mod bench;
mod demo;
mod query;
mod report;

use crate::{BvKind, Mode, SplitPoint, SplitRule, TumbleMethod};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "meshcollide",
    version,
    about = "Exact collision detection between triangle meshes with k-DOP hierarchies"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every intersecting triangle pair of meshes A and B at each pose of B.
    Query(query::QueryArgs),
    /// Runs the main job on generated meshes (no files needed) and prints what it found.
    Demo(demo::DemoArgs),
    /// Writes a poses.csv of Zachmann's tumbling protocol (one turn about z and x).
    Poses(PosesArgs),
    /// Lists the GPU adapters found and what each backend supports.
    Info,
    /// Runs one of the papers' experiments: a Markdown table and an SVG plot in --out.
    Bench(bench::BenchArgs),
}

#[derive(clap::Args)]
struct PosesArgs {
    /// Number of poses in the turn.
    #[arg(long, default_value_t = 1000)]
    steps: usize,
    /// Translation of B (x, y, z).
    #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], allow_negative_numbers = true, default_values_t = [0.0, 0.0, 0.0])]
    translate: Vec<f64>,
    /// Point of B the turn is about (B's own coordinates); it ends up at center + translate.
    #[arg(long, num_args = 3, value_names = ["X", "Y", "Z"], allow_negative_numbers = true, default_values_t = [0.0, 0.0, 0.0])]
    center: Vec<f64>,
    /// Output file (stdout when absent).
    #[arg(long)]
    out: Option<PathBuf>,
}

/// Bounding volume (`--bv`).
#[derive(Clone, Copy, ValueEnum)]
pub enum BvArg {
    Kdop6,
    Kdop14,
    Kdop18,
    Kdop26,
    /// Zachmann's restricted boxtree (9 bytes per node; CPU only).
    Boxtree,
    /// Figueiredo's R-tree of triangle AABBs (CPU only).
    Rtree,
    /// Dual k-DOP–sphere hierarchies (`001_86778863c2621338.txt`).
    Dual6,
    Dual14,
    Dual18,
    Dual26,
}

impl From<BvArg> for BvKind {
    fn from(b: BvArg) -> BvKind {
        match b {
            BvArg::Kdop6 => BvKind::Kdop6,
            BvArg::Kdop14 => BvKind::Kdop14,
            BvArg::Kdop18 => BvKind::Kdop18,
            BvArg::Kdop26 => BvKind::Kdop26,
            BvArg::Boxtree => BvKind::Boxtree,
            BvArg::Rtree => BvKind::Rtree,
            BvArg::Dual6 => BvKind::Dual6,
            BvArg::Dual14 => BvKind::Dual14,
            BvArg::Dual18 => BvKind::Dual18,
            BvArg::Dual26 => BvKind::Dual26,
        }
    }
}

/// Node-pair test of the boxtree (`--box-test`).
#[derive(Clone, Copy, ValueEnum)]
pub enum BoxTestArg {
    /// Axis alignment (3.2.1).
    Align,
    /// SAT lite: the axes of both boxes (3.2.4).
    Satlite,
    /// Full separating axis test, 15 axes (3.2.3).
    Sat,
    /// Axis alignment with lookup tables (3.2.2).
    Lut,
}

impl From<BoxTestArg> for crate::BoxTest {
    fn from(b: BoxTestArg) -> crate::BoxTest {
        use crate::BoxTest;
        match b {
            BoxTestArg::Align => BoxTest::Align,
            BoxTestArg::Satlite => BoxTest::SatLite,
            BoxTestArg::Sat => BoxTest::Sat,
            BoxTestArg::Lut => BoxTest::Lut,
        }
    }
}

/// Slab order of the dual hierarchy (`--dual-order`).
#[derive(Clone, Copy, ValueEnum)]
pub enum DualOrderArg {
    /// Smallest Minkowski-sum extent first, per node pair (the paper's rule).
    Pair,
    /// The k-DOP hierarchy's fixed order.
    Fixed,
}

impl From<DualOrderArg> for crate::dual::SlabOrder {
    fn from(o: DualOrderArg) -> Self {
        match o {
            DualOrderArg::Pair => crate::dual::SlabOrder::PerPair,
            DualOrderArg::Fixed => crate::dual::SlabOrder::Fixed,
        }
    }
}

/// Splitting rule (`--split`).
#[derive(Clone, Copy, ValueEnum)]
pub enum SplitArg {
    Splatter,
    Longest,
    Minsum,
    Minmax,
}

impl From<SplitArg> for SplitRule {
    fn from(s: SplitArg) -> SplitRule {
        match s {
            SplitArg::Splatter => SplitRule::Splatter,
            SplitArg::Longest => SplitRule::LongestSide,
            SplitArg::Minsum => SplitRule::MinSum,
            SplitArg::Minmax => SplitRule::MinMax,
        }
    }
}

/// Split point (`--split-point`).
#[derive(Clone, Copy, ValueEnum)]
pub enum SplitPointArg {
    Mean,
    Median,
}

impl From<SplitPointArg> for SplitPoint {
    fn from(s: SplitPointArg) -> SplitPoint {
        match s {
            SplitPointArg::Mean => SplitPoint::Mean,
            SplitPointArg::Median => SplitPoint::Median,
        }
    }
}

/// The R-tree's traversal (`--rtree-collide`).
#[derive(Clone, Copy, ValueEnum)]
pub enum RtreeCollideArg {
    /// Figure 1: both objects filtered by the overlapping AABB, then all candidate pairs.
    V1,
    /// Figure 4: B's candidates descend A's R-tree, each node of A visited once.
    V2,
}

impl From<RtreeCollideArg> for crate::rtree::RtreeCollide {
    fn from(c: RtreeCollideArg) -> Self {
        match c {
            RtreeCollideArg::V1 => crate::rtree::RtreeCollide::V1,
            RtreeCollideArg::V2 => crate::rtree::RtreeCollide::V2,
        }
    }
}

/// Query mode (`--mode`).
#[derive(Clone, Copy, ValueEnum)]
pub enum ModeArg {
    All,
    First,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::All => Mode::All,
            ModeArg::First => Mode::First,
        }
    }
}

/// Tumbling method (`--tumble`).
#[derive(Clone, Copy, ValueEnum)]
pub enum TumbleArg {
    /// Each backend's faster method: approx on the CPU (lazy), exact on the GPU (dense);
    /// see BENCHMARKS.md, "Rigid tumbling".
    Auto,
    Approx,
    Exact,
}

impl TumbleArg {
    /// The method for a backend (`gpu`: whether the GPU pipeline runs).
    pub fn resolve(self, gpu: bool) -> TumbleMethod {
        match self {
            TumbleArg::Auto if gpu => TumbleMethod::Exact,
            TumbleArg::Auto | TumbleArg::Approx => TumbleMethod::Approximate,
            TumbleArg::Exact => TumbleMethod::Exact,
        }
    }
}

/// Descent rule of the k-DOP traversal (`--descent`).
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum DescentArg {
    /// Algorithm 1 of the paper: descend A to its leaves, then B (the GPU's rule).
    Env,
    /// Descend the node with the larger k-DOP (the CPU default; CPU only).
    Larger,
}

/// Execution backend (`--backend`).
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum BackendArg {
    /// A hardware GPU if there is one, else the CPU (a software adapter such as lavapipe
    /// is slower than the CPU path, so `auto` does not pick it).
    Auto,
    Cpu,
    /// The GPU pipeline on whatever adapter wgpu finds (lavapipe included); an error if none.
    Gpu,
}

/// Exit status 2: the input (files, poses, options) is at fault; 1: anything else.
pub enum Failure {
    Input(String),
    Internal(String),
}

impl From<crate::Error> for Failure {
    fn from(e: crate::Error) -> Failure {
        Failure::Input(e.to_string())
    }
}

pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Query(a) => query::run(&a),
        Command::Demo(a) => demo::run(&a),
        Command::Poses(a) => poses(&a),
        Command::Info => info(),
        Command::Bench(a) => bench::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Internal(m)) => {
            eprintln!("error: {m}");
            ExitCode::from(1)
        }
    }
}

fn info() -> Result<(), Failure> {
    println!("meshcollide {}", env!("CARGO_PKG_VERSION"));
    let list = crate::gpu::adapters();
    if list.is_empty() {
        println!(
            "GPU adapters: none (the GPU backend needs a Vulkan, Metal or DX12 driver; on Linux without a GPU, Mesa's lavapipe: apt-get install mesa-vulkan-drivers)"
        );
    } else {
        println!("GPU adapters:");
        for a in &list {
            println!(
                "  {} ({:?}, {:?}, driver {} {})",
                a.name, a.backend, a.device_type, a.driver, a.driver_info
            );
        }
    }
    println!(
        "backends: cpu (reference: kdop6, kdop14, kdop18, kdop26, dual6, dual14, dual18, dual26, boxtree, rtree; all and first modes; approx and exact tumbling)"
    );
    println!(
        "          gpu (kdop6, kdop14, kdop18, kdop26, and the dual k-DOP + sphere hierarchies dual6, dual14, dual18, dual26 with --dual-order and --dual-symmetric; all and first modes; approx and exact tumbling)"
    );
    println!(
        "hierarchies on the CPU only: boxtree (Zachmann's restricted boxtree, --box-test align|satlite|sat|lut), rtree (--rtree-collide v1|v2)"
    );
    println!(
        "--backend auto uses a hardware GPU when present (and the hierarchy runs there), otherwise the CPU"
    );
    Ok(())
}

fn poses(a: &PosesArgs) -> Result<(), Failure> {
    let t = [a.translate[0], a.translate[1], a.translate[2]];
    let c = [a.center[0], a.center[1], a.center[2]];
    let text = crate::pose::format_poses(&crate::pose::tumbling_poses(a.steps, c, t));
    write_text(a.out.as_deref(), &text)
}

/// Writes to a file, or to stdout when `path` is `None`.
pub fn write_text(path: Option<&std::path::Path>, text: &str) -> Result<(), Failure> {
    use std::io::Write;
    match path {
        Some(p) => std::fs::write(p, text)
            .map_err(|e| Failure::Input(format!("{}: cannot write: {e}", p.display()))),
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| Failure::Internal(format!("stdout: {e}"))),
    }
}
