//! The arguments of `meshcollide query` and what its rigid (`query`) and deforming
//! (`query_frames`) paths share, below both.

use super::Failure;
use super::inputs::{self, PoseRange};
use super::{BackendArg, CoherenceArg, TumbleArg};
use crate::dual::SlabOrder;
use crate::rtree::RtreeCollide;
use crate::{
    boxtree::BoxTest, bvh::SplitPoint, bvh::SplitRule, kdop::Descent, kind::BvKind, scene::Mode,
};
use std::path::PathBuf;
use std::time::Instant;

/// The largest `--gpu-memory`: 2^44 − 1 MiB (16 EiB in bytes, `MIB << 20`, without wrapping).
const MAX_GPU_MEMORY_MIB: u64 = (1 << 44) - 1;
/// The largest `--chunk-poses`: a chunk's results are allocated up front (Python's
/// `chunk_poses` has the same bound).
const MAX_CHUNK_POSES: u64 = 1 << 20;

#[derive(clap::Args)]
pub struct QueryArgs {
    /// Mesh A, the environment (OBJ, STL, PLY; optionally .gz), or a saved hierarchy from
    /// `meshcollide build` (recognized by its magic bytes, whatever the extension), loaded
    /// instead of built. A saved hierarchy's --bv, --split, --split-point and leaf size must
    /// equal the query's (a kdopK file also serves --bv dualK): a difference is an error
    /// (exit 2) naming the file and the option.
    pub a: PathBuf,
    /// Mesh B, the flying object moved by the poses (or a saved hierarchy, as for A; its
    /// leaf size is compared with --leaf-size-b).
    pub b: PathBuf,
    /// poses.csv: one rigid transform of B per row (optional with frames: identity poses).
    #[arg(long, required_unless_present_any = ["frames_a", "frames_b"])]
    pub poses: Option<PathBuf>,
    /// Frame list of a deforming A: one mesh file per line (relative to the list's folder),
    /// each with A's vertex count and faces; frame i goes with pose row i.
    #[arg(long = "frames-a", value_name = "LIST")]
    pub frames_a: Option<PathBuf>,
    /// Frame list of a deforming B (as --frames-a).
    #[arg(long = "frames-b", value_name = "LIST")]
    pub frames_b: Option<PathBuf>,
    /// With frames: how the hierarchies follow them (full refit, Larsson and
    /// Akenine-Möller's hybrid update, or a rebuild per frame).
    #[arg(long, value_enum, default_value = "hybrid")]
    pub update: crate::deform::UpdateMethod,
    /// With frames: rebuild a refitted hierarchy when its node volumes (summed down to half
    /// its depth, over the root's) grew past this many times their value after the last
    /// build; 0 never rebuilds.
    #[arg(long = "rebuild-ratio", default_value_t = crate::deform::DEFAULT_REBUILD_RATIO)]
    pub rebuild_ratio: f64,
    /// Only the data rows START..END of poses.csv (0-based, END exclusive); pairs.csv keeps
    /// the file's pose numbers, so the outputs of consecutive ranges concatenate (after the
    /// header) to the whole run's.
    #[arg(long = "pose-range", value_name = "START:END", value_parser = inputs::parse_pose_range)]
    pub pose_range: Option<PoseRange>,
    /// Bounding volume (`auto`: kdop18 where a k-DOP feature is asked for: frames,
    /// --coherence, saved hierarchies).
    #[arg(long, value_enum, default_value = "auto")]
    pub bv: BvKind,
    /// Node-pair test of `--bv boxtree` (default: SAT lite, the fastest).
    #[arg(long = "box-test", value_enum, default_value = "satlite")]
    pub box_test: BoxTest,
    /// Dual hierarchies: centrally symmetric k-DOPs (Fang, Jiang, Xu, 'Efficient Collision
    /// Detection Using a Dual k-DOP-Sphere Bounding Volume Hierarchy', section III.A).
    #[arg(long = "dual-symmetric")]
    pub dual_symmetric: bool,
    /// Dual hierarchies: order of the k-DOP slab tests after the sphere test.
    #[arg(long = "dual-order", value_enum, default_value = "pair")]
    pub dual_order: SlabOrder,
    /// Splitting rule for the split axis (k-DOPs; the boxtree has its own criterion).
    #[arg(long, value_enum, default_value = "splatter")]
    pub split: SplitRule,
    /// Split point along the chosen axis.
    #[arg(long = "split-point", value_enum, default_value = "mean")]
    pub split_point: SplitPoint,
    /// Most triangles in a leaf of A's hierarchy (and of B's unless --leaf-size-b is given).
    #[arg(long = "leaf-size", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub leaf_size: u32,
    /// Most triangles in a leaf of B's (flying) hierarchy.
    #[arg(long = "leaf-size-b", value_parser = clap::value_parser!(u32).range(1..))]
    pub leaf_size_b: Option<u32>,
    /// All contacts, or stop each pose at its first.
    #[arg(long, value_enum, default_value = "all")]
    pub mode: Mode,
    /// Report every pair of triangles within this distance of each other, decided exactly
    /// (a decimal at least 0, rounded once to f64; 0 is the ordinary query). The k-DOPs,
    /// dual, OBB and sphere trees and auto grow their volumes by it; `--backend gpu` runs it
    /// with the k-DOPs and auto (kdop18), `--backend auto` on the CPU.
    #[arg(long, value_name = "EPS", value_parser = inputs::parse_distance)]
    pub tolerance: Option<f64>,
    /// Closed meshes as solids: a pose without pairs where one mesh lies inside the other
    /// (their surfaces do not meet) is written to `--inside` as `pose,inner` (`a` or `b`),
    /// decided exactly. Both meshes must be closed (every edge, by vertex position, in
    /// exactly two triangles); an open mesh is refused, naming an open edge.
    #[arg(long)]
    pub solid: bool,
    /// Where `--solid` writes its rows (`pose,inner`; written whole or not at all).
    /// Default: `inside.csv` in the folder of `--out`.
    #[arg(long, value_name = "FILE", requires = "solid")]
    pub inside: Option<PathBuf>,
    /// For each intersecting pair, where the triangles meet (exactly, then each coordinate
    /// rounded once to f64), written to `--segments` as `pose,tri_a,tri_b,x0,y0,z0,x1,y1,z1`
    /// in pairs.csv's order: the segment's endpoints; a touching point as one row with
    /// `x1,y1,z1 = x0,y0,z0`; the overlap polygon of coplanar triangles as one row per edge.
    /// Not with frames or a --tolerance above 0.
    #[arg(long = "contact-geometry")]
    pub contact_geometry: bool,
    /// Where `--contact-geometry` writes its rows (written whole or not at all).
    /// Default: `segments.csv` in the folder of `--out`.
    #[arg(long, value_name = "FILE", requires = "contact_geometry")]
    pub segments: Option<PathBuf>,
    /// Time-critical queries: spend at most N node tests (Nv) on each pose, the pretest
    /// included, then stop. The answer per pose goes to --status: `contact`, `free`, or
    /// `maybe` (the budget ran out first), with a proven upper bound on the penetration
    /// depth of any contact left undecided. Deterministic: the same on every machine. Every
    /// binary tree (the k-DOPs, dual, obb, sphere; auto answers on its kdop18 tree), on the
    /// CPU, or with --backend gpu breadth first (the CPU's answers, node tests and bounds);
    /// not the boxtree or the R-tree, nor with frames, --tolerance, --solid or
    /// --contact-geometry.
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: Option<u64>,
    /// With --budget: also stop a pose after T microseconds of wall-clock time. Not
    /// deterministic (the answers depend on the machine and its load). CPU only.
    #[arg(long = "budget-us", value_name = "T", requires = "budget", allow_hyphen_values = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget_us: Option<u64>,
    /// With --budget: the order in which node pairs are expanded. Default: best; with
    /// --backend gpu, breadth (whole levels: the only order the GPU runs).
    #[arg(long = "budget-order", value_enum)]
    pub budget_order: Option<crate::budget::Order>,
    /// status.csv: one row per pose, `pose,answer,complete,depth_bound,bv_tests` (written
    /// like --out, whole or not at all; a failed run keeps its whole poses in
    /// `<FILE>.partial`). Without --budget every row is complete.
    #[arg(long, value_name = "FILE")]
    pub status: Option<PathBuf>,
    /// How B's hierarchy follows a pose: the paper's approximation method (hill climbing at
    /// the root, then only the nodes the traversal reaches, on both backends), an exact refit
    /// of every node, or auto (approx).
    #[arg(long, value_enum, default_value = "auto")]
    pub tumble: TumbleArg,
    /// k-DOP traversal: `larger` (the default) or `env` (Klosowski et al.'s Algorithm 1), on
    /// both backends.
    #[arg(long, value_enum)]
    pub descent: Option<Descent>,
    /// All-contacts mode: start each pose where the previous pose's descent stopped (in
    /// runs of 16 consecutive poses): the same pairs, fewer node tests when consecutive
    /// poses are close (a motion path). The k-DOP trees on both backends (the GPU runs the
    /// CPU's rule: the same Nv, Np, Nu), the OBB and sphere trees and `auto` on the CPU
    /// (on the GPU `auto` is then kdop18); stats.json says whether it was used. `auto`
    /// (the default): on the CPU for a motion path (consecutive poses of the first 64 move
    /// every point of B's bounding box by at most 5 % of its half-diagonal), else off. With frames: across frames, on both backends
    /// (the GPU runs the CPU's rule frame for frame); `auto` is on for the CPU there.
    #[arg(long, value_enum, value_name = "WHEN", num_args = 0..=1, default_value = "auto", default_missing_value = "on")]
    pub coherence: CoherenceArg,
    /// Execution backend.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendArg,
    /// GPU: memory for one batch's buffers, in MiB (beyond the uploaded hierarchies);
    /// batches hold as many poses as fit, so memory does not grow with the pose count.
    /// [default: 512, or four times the device's largest storage binding where that is less]
    #[arg(long = "gpu-memory", value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=MAX_GPU_MEMORY_MIB))]
    pub gpu_memory: Option<u64>,
    /// `--bv rtree`: Figueiredo's Collide version 1 or 2.
    #[arg(long = "rtree-collide", value_enum, default_value = "v2")]
    pub rtree_collide: RtreeCollide,
    /// `--bv rtree`: fewest children of a non-root node (m ≤ M/2).
    #[arg(long = "rtree-min", default_value_t = 4)]
    pub rtree_min: u32,
    /// `--bv rtree`: most children of a node (M).
    #[arg(long = "rtree-max", default_value_t = 8)]
    pub rtree_max: u32,
    /// Output pairs.csv, streamed pose by pose to a temporary file next to it and renamed
    /// into place when complete: the path holds the whole file or is left as it was. If the
    /// run fails midway, the poses finished are kept in `<OUT>.partial` (the error says
    /// which: poses 0..n); a later complete run removes that file.
    #[arg(long)]
    pub out: PathBuf,
    /// Output statistics JSON (written, like --out, whole or not at all; not on failure).
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Replace an existing output file even if it is read-only. Without it such a file is
    /// kept and the run refused (exit 2). An output that is one of the inputs, or another
    /// output, is refused either way.
    #[arg(long)]
    pub force: bool,
    /// Poses whose results are held at once (CPU chunk, most poses per GPU batch); for
    /// tests, to cross chunk boundaries with few poses.
    #[arg(long = "chunk-poses", hide = true, value_parser = clap::value_parser!(u64).range(1..=MAX_CHUNK_POSES))]
    pub chunk_poses: Option<u64>,
    /// For tests: fail at pose N as a write error would (the partial-output path).
    #[arg(long = "fail-at-pose", hide = true)]
    pub fail_at_pose: Option<usize>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// The GPU context for `--backend`, or `None` for the CPU path (said on stderr for auto),
/// and how long probing the adapter took (`None` for `--backend cpu`): reported as
/// `gpu_probe_ms`, apart from `build_ms`.
pub(super) fn choose_backend(
    backend: BackendArg,
) -> Result<(Option<crate::gpu::GpuContext>, Option<f64>), Failure> {
    if backend == BackendArg::Cpu {
        return Ok((None, None));
    }
    let t = Instant::now();
    let ctx = probe_backend(backend, crate::gpu::GpuContext::new())?;
    Ok((ctx, Some(ms(t))))
}

/// What `--backend` makes of the probe's outcome.
fn probe_backend(
    backend: BackendArg,
    probe: Result<crate::gpu::GpuContext, crate::gpu::GpuError>,
) -> Result<Option<crate::gpu::GpuContext>, Failure> {
    match probe {
        Ok(ctx) if backend == BackendArg::Gpu => Ok(Some(ctx)),
        Ok(ctx) if ctx.info.device_type != wgpu::DeviceType::Cpu => Ok(Some(ctx)),
        Ok(ctx) => {
            eprintln!(
                "note: only a software GPU adapter ({}) found; using the faster CPU path (--backend gpu forces it)",
                ctx.info.name
            );
            Ok(None)
        }
        Err(e) if backend == BackendArg::Gpu => Err(Failure::Internal(e.to_string())),
        Err(e) => {
            eprintln!("note: {e}; falling back to the CPU");
            Ok(None)
        }
    }
}

/// Milliseconds since `t`.
pub fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

impl QueryArgs {
    /// `--inside`, or `inside.csv` beside `--out`, when `--solid` is given.
    pub fn inside_path(&self) -> Option<PathBuf> {
        self.solid.then(|| {
            self.inside.clone().unwrap_or_else(|| {
                self.out
                    .parent()
                    .map_or_else(|| PathBuf::from("inside.csv"), |d| d.join("inside.csv"))
            })
        })
    }

    /// `--segments`, or `segments.csv` beside `--out`, when `--contact-geometry` is given.
    pub fn segments_path(&self) -> Option<PathBuf> {
        self.contact_geometry.then(|| {
            self.segments.clone().unwrap_or_else(|| {
                self.out
                    .parent()
                    .map_or_else(|| PathBuf::from("segments.csv"), |d| d.join("segments.csv"))
            })
        })
    }
}
