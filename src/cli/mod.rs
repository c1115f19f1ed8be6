//! Subcommands and their arguments.

mod bench;
mod build;
mod contact_out;
mod demo;
mod distance;
mod generate;
mod generate_scene;
mod inputs;
mod interrupt;
mod output;
mod query;
mod query_args;
mod query_budget;
mod query_frames;
mod report;
mod scene;
mod self_query;
mod solid_out;

use crate::{kind::BvKind, tumble::TumbleMethod};
use clap::builder::PossibleValue;
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
// Parsed once per process: the size of the largest variant (`query`'s options) costs nothing.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Every intersecting triangle pair of meshes A and B at each pose of B.
    Query(query_args::QueryArgs),
    /// Every pair of intersecting triangles of one mesh (neighbours only where they meet
    /// outside their shared vertices), per frame of a deforming mesh with --frames-a.
    #[command(name = "self")]
    SelfCollide(self_query::SelfArgs),
    /// The minimum distance between two meshes at each pose, with a witness pair of
    /// triangles and its closest points, decided exactly (docs/FORMATS.md, "Distance").
    Distance(distance::DistanceArgs),
    /// The contacts of a scene of many bodies, frame by frame: sweep and prune over the
    /// bodies' world boxes, then every intersecting triangle pair of two bodies, exactly
    /// (docs/FORMATS.md, "Scenes of many bodies").
    Scene(scene::SceneArgs),
    /// Builds a mesh's k-DOP hierarchy once and saves it with the mesh (.mch), for `query`.
    Build(build::BuildArgs),
    /// Runs the main job on generated meshes (no files needed) and prints what it found.
    Demo(demo::DemoArgs),
    /// Writes a generated mesh (folded sheet, tori, grid) as OBJ, or a scene of many bodies
    /// (bodies.csv, motion.csv, meshes), for examples and benchmarks.
    Generate(generate::GenerateArgs),
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
    /// Replace an existing output file even if it is read-only.
    #[arg(long)]
    force: bool,
}

/// clap parses the library's option enums directly: their `name()`s are the values, their
/// `help()` lines the descriptions in `--help`, so the spellings live in one list per enum
/// (`crate::option_names`).
macro_rules! value_enum {
    ($($ty:ty = $all:expr),+ $(,)?) => {$(
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &$all
            }
            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(PossibleValue::new(self.name()).help(self.help()))
            }
        }
    )+};
}

value_enum!(
    BvKind = BvKind::EVERY,
    crate::boxtree::BoxTest = crate::boxtree::BoxTest::ALL,
    crate::dual::SlabOrder = crate::dual::SlabOrder::ALL,
    crate::bvh::SplitRule = crate::bvh::SplitRule::ALL,
    crate::bvh::SplitPoint = crate::bvh::SplitPoint::ALL,
    crate::rtree::RtreeCollide = crate::rtree::RtreeCollide::ALL,
    crate::scene::Mode = crate::scene::Mode::ALL,
    crate::kdop::Descent = crate::kdop::Descent::ALL,
    crate::deform::UpdateMethod = crate::deform::UpdateMethod::ALL,
    crate::budget::Order = crate::budget::Order::ALL,
);

/// `--bv` of `self` and `build`, which run on the k-DOPs only: `--help` lists those four;
/// the other names still parse, hidden, so that the command refuses them saying why (not
/// clap's bare "invalid value").
#[derive(Clone, Copy)]
pub struct KdopArg(pub BvKind);

impl ValueEnum for KdopArg {
    fn value_variants<'a>() -> &'a [Self] {
        static EVERY: std::sync::LazyLock<Vec<KdopArg>> =
            std::sync::LazyLock::new(|| BvKind::EVERY.iter().map(|&k| KdopArg(k)).collect());
        &EVERY
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        let v = self.0.to_possible_value()?;
        Some(v.hide(!BvKind::ALL.contains(&self.0)))
    }
}

/// Tumbling method (`--tumble`): a library method, or `auto`, which depends on the backend.
#[derive(Clone, Copy)]
pub enum TumbleArg {
    Auto,
    Method(TumbleMethod),
}

impl ValueEnum for TumbleArg {
    fn value_variants<'a>() -> &'a [Self] {
        &[
            TumbleArg::Auto,
            TumbleArg::Method(TumbleMethod::Approximate),
            TumbleArg::Method(TumbleMethod::Exact),
        ]
    }
    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(match self {
            TumbleArg::Auto => PossibleValue::new("auto").help(
                "The faster method on both backends: approx (lazy: only the nodes the traversal reaches are tumbled)",
            ),
            TumbleArg::Method(m) => PossibleValue::new(m.name()).help(m.help()),
        })
    }
}

impl TumbleArg {
    /// The method (the same on both backends since the GPU tumbles lazily too).
    pub fn resolve(self) -> TumbleMethod {
        match self {
            TumbleArg::Auto => TumbleMethod::Approximate,
            TumbleArg::Method(m) => m,
        }
    }
}

/// Temporal coherence (`--coherence [WHEN]`): `--coherence` alone is `on`.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum CoherenceArg {
    /// On for a motion path (consecutive poses among the first 64 move every point of B's
    /// bounding box by at most 5 % of its half-diagonal) on the CPU in all-contacts mode; off on the GPU, where handing the search
    /// front from pose to pose does not yet pay.
    Auto,
    /// Always (all-contacts mode; `--coherence` alone means this).
    On,
    /// Never: every pose starts at the roots.
    Off,
}

impl CoherenceArg {
    /// Whether the run uses coherence: `first` are the run's first poses, `b` the bounds of
    /// mesh B, `gpu` the backend.
    pub fn resolve(
        self,
        first: &[crate::pose::Pose],
        b: ([f64; 3], [f64; 3]),
        gpu: bool,
        mode: crate::scene::Mode,
    ) -> bool {
        mode == crate::scene::Mode::All
            && match self {
                CoherenceArg::On => true,
                CoherenceArg::Off => false,
                CoherenceArg::Auto => !gpu && crate::pose::coherent_path(first, b.0, b.1),
            }
    }
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
#[derive(Debug)]
pub enum Failure {
    Input(String),
    Internal(String),
    /// Stopped by Ctrl-C or SIGTERM (`interrupt.rs`): exit 130.
    Interrupted(String),
}

impl Failure {
    /// The same failure with `note` appended to its message.
    pub fn note(self, note: &str) -> Failure {
        match self {
            Failure::Input(m) => Failure::Input(format!("{m}; {note}")),
            Failure::Internal(m) => Failure::Internal(format!("{m}; {note}")),
            Failure::Interrupted(m) => Failure::Interrupted(format!("{m}; {note}")),
        }
    }
}

impl From<crate::error::Error> for Failure {
    /// Library errors say what is wrong; the command line adds which flag avoids it.
    fn from(e: crate::error::Error) -> Failure {
        let hint = match &e {
            crate::error::Error::Gpu(
                crate::gpu::GpuError::NoAdapter { .. } | crate::gpu::GpuError::Unsupported { .. },
            ) => " (use --backend cpu or auto)",
            _ => "",
        };
        Failure::Input(format!("{e}{hint}"))
    }
}

pub fn run() -> ExitCode {
    // First, while single-threaded: the environment variable is set here if at all (the
    // library would set it before its first wgpu instance otherwise, with threads running).
    crate::gpu::runtime_dir::ensure();
    let cli = Cli::parse();
    interrupt::install();
    let result = match cli.command {
        Command::Query(a) => query::run(&a),
        Command::SelfCollide(a) => self_query::run(&a),
        Command::Distance(a) => distance::run(&a),
        Command::Scene(a) => scene::run(&a),
        Command::Build(a) => build::run(&a),
        Command::Generate(a) => generate::run(&a),
        Command::Demo(a) => demo::run(&a),
        Command::Poses(a) => poses(&a),
        Command::Info => info(),
        Command::Bench(a) => bench::run(&a),
    };
    // The last message says what is on disk: no signal may change that after this.
    interrupt::finishing();
    report_peak_memory();
    // Messages quote input files and file names: no control byte of theirs reaches the
    // terminal as such.
    let escaped = crate::error::escape_controls;
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(m)) => {
            eprintln!("error: {}", escaped(&m));
            ExitCode::from(2)
        }
        Err(Failure::Internal(m)) => {
            eprintln!("error: {}", escaped(&m));
            ExitCode::from(1)
        }
        Err(Failure::Interrupted(m)) => {
            eprintln!("interrupted: {}", escaped(&m));
            ExitCode::from(interrupt::EXIT_CODE)
        }
    }
}

/// With `MESHCOLLIDE_PEAK_RSS=1`, prints `peak_rss_bytes N` (the process's peak resident
/// memory, Linux `VmHWM`) on stderr as the run ends, whether it succeeded or not: the
/// memory-bound tests read it (`tests/bounded_memory.rs`).
fn report_peak_memory() {
    if std::env::var_os("MESHCOLLIDE_PEAK_RSS").is_none_or(|v| v != "1") {
        return;
    }
    if let Some(bytes) = peak_rss_bytes() {
        eprintln!("peak_rss_bytes {bytes}");
    }
}

/// The process's peak resident set size in bytes (`VmHWM` of `/proc/self/status`), where
/// the system reports it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
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
        "backends: cpu (reference: kdop6, kdop14, kdop18, kdop26, dual6, dual14, dual18, dual26, boxtree, rtree, obb, sphere; all and first modes; approx and exact tumbling)"
    );
    println!(
        "          gpu (kdop6, kdop14, kdop18, kdop26, the dual k-DOP + sphere hierarchies dual6, dual14, dual18, dual26 with --dual-order and --dual-symmetric, obb (OBB tree: principal axes, 15-axis SAT) and sphere (sphere tree); all and first modes; approx and exact tumbling)"
    );
    println!(
        "hierarchies on the CPU only: boxtree (Zachmann's restricted boxtree, --box-test align|satlite|sat|lut), rtree (--rtree-collide v1|v2)"
    );
    println!(
        "self-collision (meshcollide self): cpu and gpu (kdop6, kdop14, kdop18, kdop26; all and first modes; frames refitted on the CPU and re-uploaded)"
    );
    println!(
        "deforming meshes (query --frames-a/--frames-b, --update refit|hybrid|rebuild): cpu and gpu (A refitted on the device per frame, a deformed B tumbled exactly; kdop6, kdop14, kdop18, kdop26)"
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
    write_output(a.out.as_deref(), &text, a.force)
}

/// A command's one output: claimed (`output::Outputs`), written whole, committed; or
/// stdout when `path` is `None`.
pub fn write_output(
    path: Option<&std::path::Path>,
    text: &str,
    force: bool,
) -> Result<(), Failure> {
    let Some(p) = path else {
        return write_text(None, text);
    };
    let claim = output::Outputs::claim(&[output::Out::whole("--out", p)], &[], force)?;
    let mut f = output::AtomicFile::create(claim.path(0))?;
    f.write_all(text.as_bytes())?;
    interrupt::finishing();
    f.commit()
}

/// Writes to a file, whole or not at all (a temporary file renamed into place), or to
/// stdout when `path` is `None`.
pub fn write_text(path: Option<&std::path::Path>, text: &str) -> Result<(), Failure> {
    use std::io::Write;
    match path {
        Some(p) => {
            let mut f = output::AtomicFile::create(p)?;
            f.write_all(text.as_bytes())?;
            f.commit()
        }
        None => std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|e| Failure::Internal(format!("stdout: {e}"))),
    }
}
