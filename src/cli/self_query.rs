//! `meshcollide self`: the self-intersecting triangle pairs of one mesh
//! (`docs/FORMATS.md`, "Self-collision"), per frame of a deforming mesh with
//! `--frames-a`.

use super::output::{AtomicFile, Out, Outputs, PairsOut};
use super::query_args::ms;
use super::{BackendArg, Failure};
use crate::formats::SelfStats;
use crate::mesh::frames::FrameList;
use crate::{
    bvh::BuildOptions, bvh::SplitPoint, bvh::SplitRule, kind::BvKind, mesh::Mesh, scene::Counters,
    scene::Mode, self_collide::SelfCollider,
};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct SelfArgs {
    /// Mesh A (OBJ, STL, PLY; optionally .gz). Triangles sharing vertex indices are
    /// reported only where they meet outside their shared vertices; unwelded copies of a
    /// vertex (same position, another index) are other vertices.
    pub a: PathBuf,
    /// Frames of A (a deforming mesh): a text file of mesh paths, one per line, relative to
    /// the list's folder (blank lines and `#` comments skipped). Each frame must have A's
    /// vertex count and faces; `pose` in pairs.csv is the frame number. The hierarchy is
    /// built once from A and refitted to each frame.
    #[arg(long = "frames-a", value_name = "LIST")]
    pub frames_a: Option<PathBuf>,
    /// Output pairs.csv (`pose,tri_a,tri_b`, tri_a < tri_b), written whole or not at all;
    /// if a run with frames fails midway, the frames finished are kept in `<OUT>.partial`.
    #[arg(long)]
    pub out: PathBuf,
    /// All pairs, or at most one per frame.
    #[arg(long, value_enum, default_value = "all")]
    pub mode: Mode,
    /// Output statistics JSON (written whole, not on failure).
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Bounding volume: the k-DOPs of Klosowski et al. (kdop6, kdop14, kdop18, kdop26).
    #[arg(long, value_enum, default_value = "kdop18")]
    pub bv: super::KdopArg,
    /// Splitting rule for the split axis.
    #[arg(long, value_enum, default_value = "splatter")]
    pub split: SplitRule,
    /// Split point along the chosen axis.
    #[arg(long = "split-point", value_enum, default_value = "mean")]
    pub split_point: SplitPoint,
    /// Most triangles in a leaf.
    #[arg(long = "leaf-size", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub leaf_size: u32,
    /// Execution backend: `gpu` runs the traversal and the f32 triangle filter on the GPU
    /// (the same pairs; the same Nv and Np in all mode); `auto` uses a hardware GPU when
    /// present, otherwise the CPU.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendArg,
    /// Report every pair of triangles without a common vertex index whose distance is at
    /// most EPS (decided exactly; neighbours keep the rule above); 0 is the ordinary query.
    /// With --backend gpu on the GPU (the same pairs, Nv and Np); --backend auto answers it
    /// on the CPU.
    #[arg(long, value_name = "EPS", value_parser = super::inputs::parse_distance)]
    pub tolerance: Option<f64>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Replace an existing output file even if it is read-only (without it: exit 2). An
    /// output that is an input (the mesh, the frame list or a frame) or another output is
    /// refused either way.
    #[arg(long)]
    pub force: bool,
    /// For each intersecting pair, where the two triangles meet, written to `--segments` as
    /// for `query --contact-geometry` (the whole intersection of the two closed triangles,
    /// shared vertices and edges included). Not with --frames-a.
    #[arg(long = "contact-geometry")]
    pub contact_geometry: bool,
    /// Where `--contact-geometry` writes its rows (written whole or not at all).
    /// Default: `segments.csv` in the folder of `--out`.
    #[arg(long, value_name = "FILE", requires = "contact_geometry")]
    pub segments: Option<PathBuf>,
    /// For tests: fail at frame N as a write error would (the partial-output path).
    #[arg(long = "fail-at-frame", hide = true)]
    pub fail_at_frame: Option<usize>,
}

pub fn run(a: &SelfArgs) -> Result<(), Failure> {
    if !BvKind::ALL.contains(&a.bv.0) {
        return Err(Failure::Input(format!(
            "--bv {}: self-collision runs on the k-DOP hierarchies (kdop6, kdop14, kdop18, kdop26)",
            a.bv.0.name()
        )));
    }
    let tolerance = crate::proximity::Tolerance::new(a.tolerance.unwrap_or(0.0), "--tolerance")?;
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Failure::Internal(format!("thread pool: {e}")))?;
    }
    let mut inputs: Vec<(&str, &Path)> = vec![("mesh", &a.a)];
    if let Some(l) = a.frames_a.as_deref() {
        inputs.push(("--frames-a list", l));
    }
    let mut outs = vec![Out::pairs("--out", &a.out)];
    if let Some(s) = a.stats.as_deref() {
        outs.push(Out::whole("--stats", s));
    }
    let segments = a.contact_geometry.then(|| {
        a.segments.clone().unwrap_or_else(|| {
            a.out
                .parent()
                .map_or_else(|| PathBuf::from("segments.csv"), |d| d.join("segments.csv"))
        })
    });
    if let Some(p) = segments.as_deref() {
        outs.push(Out::whole("--segments", p));
    }
    let claim = Outputs::claim(&outs, &inputs, a.force)?;
    if a.contact_geometry && a.frames_a.is_some() {
        return Err(Failure::Input(
            "--contact-geometry with --frames-a (a deforming mesh) is not supported yet".into(),
        ));
    }
    // Inputs first: every frame file is read and checked before any work or output.
    let t0 = Instant::now();
    let mesh = crate::mesh::load(&a.a).map_err(crate::error::Error::from)?;
    let frames = match &a.frames_a {
        Some(list) => Some(read_frames(list, &mesh, &a.a, &claim)?),
        None => None,
    };
    let load_ms = ms(t0);
    let n_frames = frames.as_ref().map_or(1, FrameList::len);
    let mut out = PairsOut::create(claim.path(0))?;
    let stats_file = match a.stats {
        Some(_) => Some(AtomicFile::create(claim.path(1))?),
        None => None,
    };
    // `--segments` is the last output claimed.
    let segments_path = segments.map(|_| claim.path(1 + usize::from(a.stats.is_some())));
    let mut contact = match segments_path {
        Some(p) => Some(super::contact_out::ContactOut::create(p, &mesh, &mesh)?),
        None => None,
    };

    // The probe first, apart from the build: `gpu_probe_ms`. A tolerance runs on the GPU
    // when asked for by name (`--backend auto` answers it on the CPU, as `query` does).
    let backend = match a.backend {
        BackendArg::Auto if !tolerance.is_zero() => BackendArg::Cpu,
        b => b,
    };
    let (gpu, gpu_probe_ms) = super::query_args::choose_backend(backend)?;
    let t1 = Instant::now();
    let mut collider = SelfCollider::builder(&mesh)
        .bv(a.bv.0)
        .build_options(BuildOptions {
            rule: a.split,
            point: a.split_point,
            leaf_size: a.leaf_size,
        })
        .mode(a.mode)
        .build()?;
    // The hierarchy on the GPU (uploaded once, refitted per frame), with `--backend gpu`.
    let mut on_gpu = match &gpu {
        Some(ctx) => Some(
            crate::gpu::GpuSelf::new(ctx, &collider)
                .map_err(|e| Failure::Internal(e.to_string()))?,
        ),
        None => None,
    };
    let build_ms = ms(t1);

    let mut counters = Counters::default();
    let (mut pairs, mut in_contact, mut done) = (0, 0, 0);
    let (mut query_ms, mut refit_ms, mut reload_ms) = (0.0, 0.0, 0.0);
    let mut frame = |i: usize, collider: &mut SelfCollider| -> Result<(), Failure> {
        if a.fail_at_frame == Some(i) {
            return Err(super::output::cannot_write(
                &a.out,
                "stopped by --fail-at-frame",
            ));
        }
        // Frames are read again one at a time (and checked again: a file may change under
        // the run), so memory holds one frame whatever their number; reading is not query.
        let tl = Instant::now();
        let positions = match &frames {
            Some(f) => Some(f.load(i, &mesh, &a.a).map_err(crate::error::Error::from)?),
            None => None,
        };
        reload_ms += ms(tl);
        let t = Instant::now();
        if let Some(p) = positions {
            collider.refit(&p)?;
            if let (Some(ctx), Some(g)) = (&gpu, on_gpu.as_mut()) {
                g.refit(ctx, collider)
                    .map_err(|e| Failure::Internal(e.to_string()))?;
            }
            refit_ms += ms(t);
        }
        let r = match (&gpu, on_gpu.as_mut()) {
            (Some(ctx), Some(g)) => {
                g.collide_within(ctx, collider, a.mode, tolerance)
                    .map_err(|e| Failure::Internal(e.to_string()))?
                    .0
            }
            _ => collider.collide_within(a.mode, tolerance),
        };
        query_ms += ms(t);
        counters += r.counters;
        pairs += r.pairs.len();
        in_contact += !r.pairs.is_empty() as usize;
        out.push(i, &r.pairs)
            .map_err(|e| super::output::cannot_write(&a.out, e))?;
        if let Some(c) = contact.as_mut() {
            c.push(i, None, &r.pairs)?;
        }
        done += 1;
        Ok(())
    };
    let run = if frames.is_none() {
        frame(0, &mut collider)
    } else {
        // Ctrl-C between frames keeps the whole frames done (`interrupt.rs`).
        super::interrupt::streaming(|| {
            for i in 0..n_frames {
                if super::interrupt::requested() {
                    return Err(Failure::Interrupted(format!("stopped after {i} frames")));
                }
                frame(i, &mut collider)?;
            }
            Ok(())
        })
    };
    if let Err(e) = run {
        return Err(e.note(&out.keep_partial(n_frames)));
    }
    debug_assert_eq!(done, n_frames);
    let mut stats = SelfStats::new(
        &collider,
        a.mode,
        n_frames,
        in_contact,
        pairs,
        counters,
        [load_ms + reload_ms, build_ms, query_ms, refit_ms],
        mesh.triangle_count(),
    );
    if let Some(ctx) = &gpu {
        stats.backend = format!("gpu: {}", ctx.adapter_name());
    }
    stats.gpu_probe_ms = gpu_probe_ms;
    if let (Some(c), Some(path)) = (contact, segments_path) {
        let n = c.commit()?;
        eprintln!("{n} contact rows (--contact-geometry): {}", path.display());
    }
    super::output::finish_outputs(out, stats_file, &stats, claim.path(0))?;
    eprintln!(
        "{} frame(s), {} with self-intersections, {} pairs; build {:.1} ms, query {:.1} ms; Nv {}, Np {}",
        n_frames, in_contact, pairs, build_ms, query_ms, counters.bv_tests, counters.tri_tests
    );
    Ok(())
}

/// Reads a frame list (`docs/FORMATS.md`, "Deforming meshes"; [`FrameList`], shared with
/// `query --frames-a`) and checks every frame in it against the base mesh, keeping none (a
/// bad frame is reported before any work or output).
fn read_frames(
    list: &Path,
    base: &Mesh,
    base_path: &Path,
    claim: &Outputs,
) -> Result<FrameList, Failure> {
    let frames = FrameList::read(list).map_err(crate::error::Error::from)?;
    let files: Vec<_> = frames
        .frames
        .iter()
        .map(|(_, p)| ("frame", p.as_path()))
        .collect();
    claim.check_inputs(&files)?;
    for i in 0..frames.len() {
        frames
            .load(i, base, base_path)
            .map_err(crate::error::Error::from)?;
    }
    Ok(frames)
}
