//! `meshcollide scene`: the contacts of a scene of many bodies, frame by frame
//! (`docs/FORMATS.md`, "Scenes of many bodies"; the library's [`crate::bodies`]).

use super::output::{AtomicFile, Out, Outputs, PairsOut};
use super::query_args::ms;
use super::{BackendArg, Failure};
use crate::bodies::files::{CONTACTS_HEADER, MotionReader, read_bodies};
use crate::bodies::{Scene, SceneContact, SceneOptions, StepReport};
use crate::bvh::{BuildOptions, SplitPoint, SplitRule};
use crate::kind::BvKind;
use crate::scene::Mode;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct SceneArgs {
    /// The bodies file (`body,mesh,kind`; mesh paths relative to it).
    pub bodies: PathBuf,
    /// The motion file (`frame,body,qw,qx,qy,qz,tx,ty,tz`, or `remove` in qw).
    #[arg(long)]
    pub motion: PathBuf,
    /// Output contacts.csv (`frame,body_a,tri_a,body_b,tri_b`), written whole or not at all;
    /// a failed or interrupted run keeps its whole frames in `<out>.partial`.
    #[arg(long)]
    pub out: PathBuf,
    /// Also the pairs inside each moving body (the self-collision rule), with
    /// `body_a = body_b`.
    #[arg(long = "self")]
    pub self_pairs: bool,
    /// `all` contacts, or `first`: at most one row per frame and pair of bodies.
    #[arg(long, value_enum, default_value = "all")]
    pub mode: Mode,
    /// Hierarchy of every mesh (the k-DOPs; auto is kdop18).
    #[arg(long, value_enum, default_value = "auto")]
    pub bv: BvKind,
    /// Splitting rule for the split axis.
    #[arg(long, value_enum, default_value = "splatter")]
    pub split: SplitRule,
    /// Split point along the chosen axis.
    #[arg(long = "split-point", value_enum, default_value = "mean")]
    pub split_point: SplitPoint,
    /// Most triangles in a leaf.
    #[arg(long = "leaf-size", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub leaf_size: u32,
    /// Where the narrow phase's node pairs are tested: `gpu` (one batch per mesh pair and
    /// frame; the broad phase and the exact decisions stay on the CPU), `cpu`, or `auto`
    /// (a hardware GPU if there is one).
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendArg,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Also write stats.json: `frames`, `bodies`, `meshes` (hierarchies built),
    /// `build_ms`, `scene_ms` (the stepping only: no load, build or file I/O), `broad_ms`,
    /// `narrow_ms`, `broad_pairs` and `swaps` (summed over frames), `contacts`, the narrow
    /// phase's counters.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Replace an existing output file even if it is read-only.
    #[arg(long)]
    pub force: bool,
}

/// stats.json of `meshcollide scene --stats`.
#[derive(serde::Serialize, Default)]
struct SceneStats {
    backend: String,
    bv: &'static str,
    bodies: usize,
    meshes: usize,
    frames: u64,
    build_ms: f64,
    scene_ms: f64,
    ms_per_frame: f64,
    broad_ms: f64,
    narrow_ms: f64,
    broad_pairs: u64,
    max_broad_pairs: usize,
    swaps: u64,
    relative_pairs: u64,
    contacts: u64,
    bv_tests: u64,
    tri_tests: u64,
    bv_updates: u64,
}

impl SceneStats {
    fn add(&mut self, r: &StepReport) {
        self.frames += 1;
        self.broad_ms += r.broad.as_secs_f64() * 1e3;
        self.narrow_ms += r.narrow.as_secs_f64() * 1e3;
        self.broad_pairs += r.broad_pairs as u64;
        self.max_broad_pairs = self.max_broad_pairs.max(r.broad_pairs);
        self.swaps += r.swaps;
        self.relative_pairs += r.relative_pairs as u64;
        self.contacts += r.contacts.len() as u64;
        self.bv_tests += r.counters.bv_tests;
        self.tri_tests += r.counters.tri_tests;
        self.bv_updates += r.counters.bv_updates;
    }
}

/// The rows of one frame (digits by `itoa`, as pairs.csv's: `core::fmt` was a visible
/// share of a frame of many contacts).
fn rows(frame: u64, contacts: &[SceneContact]) -> Vec<u8> {
    let mut out = Vec::with_capacity(contacts.len() * 24);
    let mut d = itoa::Buffer::new();
    let mut f = itoa::Buffer::new();
    let frame = f.format(frame).as_bytes();
    for c in contacts {
        out.extend_from_slice(frame);
        for x in [c.body_a, c.tri_a, c.body_b, c.tri_b] {
            out.push(b',');
            out.extend_from_slice(d.format(x).as_bytes());
        }
        out.push(b'\n');
    }
    out
}

pub fn run(a: &SceneArgs) -> Result<(), Failure> {
    let inputs = [
        ("the bodies file", a.bodies.as_path()),
        ("--motion input", a.motion.as_path()),
    ];
    let mut outs = vec![Out::pairs("--out", &a.out)];
    if let Some(s) = a.stats.as_deref() {
        outs.push(Out::whole("--stats", s));
    }
    let claim = Outputs::claim(&outs, &inputs, a.force)?;
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Failure::Internal(format!("thread pool: {e}")))?;
    }
    let bv = match a.bv {
        BvKind::Auto => BvKind::Kdop18,
        k if BvKind::ALL.contains(&k) => k,
        k => {
            return Err(Failure::Input(format!(
                "--bv: a scene runs on the k-DOP hierarchies (auto, kdop6, kdop14, kdop18, kdop26), not {}",
                k.name()
            )));
        }
    };
    let file = read_bodies(&a.bodies).map_err(crate::error::Error::from)?;
    let mesh_inputs: Vec<(&str, &std::path::Path)> = file
        .mesh_paths
        .iter()
        .map(|p| ("a mesh of the bodies file", p.as_path()))
        .collect();
    claim.check_inputs(&mesh_inputs)?;
    let kinds = file.bodies.iter().map(|b| b.kind).collect();
    let mut reader = MotionReader::open(&a.motion, kinds).map_err(crate::error::Error::from)?;
    let gpu = super::query_args::choose_backend(a.backend)?.0;
    let options = SceneOptions {
        bv,
        build: BuildOptions {
            rule: a.split,
            point: a.split_point,
            leaf_size: a.leaf_size,
        },
        mode: a.mode,
        self_pairs: a.self_pairs,
    };
    let t = Instant::now();
    let mut scene = Scene::new(file.bodies, options)?;
    let mut stats = SceneStats {
        backend: match &gpu {
            Some(ctx) => format!("gpu: {}", ctx.adapter_name()),
            None => "cpu".into(),
        },
        bv: bv.name(),
        bodies: scene.body_count(),
        meshes: scene.mesh_count(),
        build_ms: ms(t),
        ..Default::default()
    };
    let mut out = PairsOut::with_header(claim.path(0), CONTACTS_HEADER, "frames")?;
    let stats_file = match a.stats {
        Some(_) => Some(AtomicFile::create(claim.path(1))?),
        None => None,
    };
    let mut stepping = Duration::ZERO;
    // The last frame's contacts: a frame without rows changes nothing, so they hold.
    let mut last: Vec<SceneContact> = vec![];
    let mut next_frame = 0u64;
    let failed = |out: PairsOut, e: Failure, frames: u64| -> Failure {
        let kept = out.keep_partial(frames as usize);
        e.note(&kept)
    };
    // A first Ctrl-C stops after the frame in flight, keeping the whole frames done.
    let out = super::interrupt::streaming(|| {
        loop {
            if super::interrupt::requested() {
                let kept = out.keep_partial(next_frame as usize);
                return Err(Failure::Interrupted(kept));
            }
            let frame = match reader.next_frame() {
                Ok(f) => f,
                Err(e) => return Err(failed(out, crate::error::Error::from(e).into(), next_frame)),
            };
            let Some(frame) = frame else { break };
            // Frames between the last one with rows and this one repeat its contacts.
            while next_frame < frame.frame {
                let w = out.push_rows(&rows(next_frame, &last));
                if let Err(e) = w {
                    return Err(failed(
                        out,
                        super::output::cannot_write(&a.out, e),
                        next_frame,
                    ));
                }
                stats.frames += 1;
                stats.contacts += last.len() as u64;
                next_frame += 1;
            }
            let t = Instant::now();
            let step = match &gpu {
                Some(ctx) => scene.step_gpu(ctx, &frame.motions).map(|(r, _)| r),
                None => scene.step(&frame.motions),
            };
            let report = match step {
                Ok(r) => r,
                Err(e) => return Err(failed(out, e.into(), next_frame)),
            };
            stepping += t.elapsed();
            stats.add(&report);
            if let Err(e) = out.push_rows(&rows(frame.frame, &report.contacts)) {
                return Err(failed(
                    out,
                    super::output::cannot_write(&a.out, e),
                    next_frame,
                ));
            }
            last = report.contacts;
            next_frame = frame.frame + 1;
        }
        Ok(out)
    })?;
    stats.scene_ms = stepping.as_secs_f64() * 1e3;
    stats.ms_per_frame = stats.scene_ms / (stats.frames.max(1) as f64);
    eprintln!(
        "{} frames, {} bodies ({} meshes, built in {:.1} ms): {} contacts; {:.2} ms per frame (broad phase {:.3} ms, {:.1} box pairs per frame)",
        stats.frames,
        stats.bodies,
        stats.meshes,
        stats.build_ms,
        stats.contacts,
        stats.ms_per_frame,
        stats.broad_ms / (stats.frames.max(1) as f64),
        stats.broad_pairs as f64 / (stats.frames.max(1) as f64),
    );
    super::output::finish_outputs(out, stats_file, &stats, claim.path(0))
}
