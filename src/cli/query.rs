//! `meshcollide query`.

use super::{BackendArg, Failure, TumbleArg};
use crate::dual::SlabOrder;
use crate::formats::{Stats, total_counters, write_pairs};
use crate::rtree::RtreeCollide;
use crate::{
    BoxTest, BuildOptions, BvKind, Collider, Descent, Mode, QueryOptions, SplitPoint, SplitRule,
};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct QueryArgs {
    /// Mesh A, the environment (OBJ, STL, PLY; optionally .gz).
    pub a: PathBuf,
    /// Mesh B, the flying object moved by the poses.
    pub b: PathBuf,
    /// poses.csv: one rigid transform of B per row.
    #[arg(long)]
    pub poses: PathBuf,
    /// Bounding volume.
    #[arg(long, value_enum, default_value = "kdop18")]
    pub bv: BvKind,
    /// Node-pair test of `--bv boxtree` (default: SAT lite, the fastest).
    #[arg(long = "box-test", value_enum, default_value = "satlite")]
    pub box_test: BoxTest,
    /// Dual hierarchies: centrally symmetric k-DOPs (Fang, Jiang, Xu, III.A).
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
    /// How B's hierarchy follows a pose: the paper's approximation method (hill climbing at
    /// the root, then only the nodes the traversal reaches, on both backends), an exact refit
    /// of every node, or auto (approx).
    #[arg(long, value_enum, default_value = "auto")]
    pub tumble: TumbleArg,
    /// k-DOP traversal: `larger` (the default) or `env` (Algorithm 1), on both backends.
    #[arg(long, value_enum)]
    pub descent: Option<Descent>,
    /// Execution backend.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendArg,
    /// GPU: memory for one batch's buffers, in MiB (beyond the uploaded hierarchies);
    /// batches hold as many poses as fit, so memory does not grow with the pose count.
    #[arg(long = "gpu-memory", value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
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
    /// Output pairs.csv.
    #[arg(long)]
    pub out: PathBuf,
    /// Output statistics JSON.
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
}

pub fn run(a: &QueryArgs) -> Result<(), Failure> {
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Failure::Internal(format!("thread pool: {e}")))?;
    }
    let bv = a.bv;
    let backend = match a.backend {
        BackendArg::Auto if !bv.on_gpu() => BackendArg::Cpu,
        BackendArg::Gpu if !bv.on_gpu() => {
            return Err(
                crate::Error::from(crate::gpu::GpuError::Unsupported { bv: bv.name() }).into(),
            );
        }
        b => b,
    };
    let rtree_options = crate::rtree::RtreeOptions {
        min_children: a.rtree_min,
        max_children: a.rtree_max,
        collide: a.rtree_collide,
    };
    rtree_options.validate()?;
    // Inputs first: a bad file is reported before the GPU probe (and any driver's noise).
    let t0 = Instant::now();
    let (ma, mb) = rayon::join(|| crate::mesh::load(&a.a), || crate::mesh::load(&a.b));
    let (ma, mb) = (
        ma.map_err(crate::Error::from)?,
        mb.map_err(crate::Error::from)?,
    );
    let poses = crate::pose::read_poses(&a.poses).map_err(crate::Error::from)?;
    let load_ms = ms(t0);
    let gpu = choose_backend(backend)?.map(|ctx| match a.gpu_memory {
        Some(mib) => ctx.with_batch_memory(mib << 20),
        None => ctx,
    });
    // Check the outputs can be created before spending time on the query.
    let out = std::fs::File::create(&a.out)
        .map_err(|e| Failure::Input(format!("{}: cannot write: {e}", a.out.display())))?;

    let opt_a = BuildOptions {
        rule: a.split,
        point: a.split_point,
        leaf_size: a.leaf_size,
    };
    let opt_b = BuildOptions {
        leaf_size: a.leaf_size_b.unwrap_or(a.leaf_size),
        ..opt_a
    };
    let t1 = Instant::now();
    let dual = crate::dual::DualOptions {
        symmetric: a.dual_symmetric,
        order: a.dual_order,
    };
    // Both backends run both rules; `larger` (the default) tests fewer node pairs.
    let descent = a.descent.unwrap_or_default();
    let opts = QueryOptions {
        mode: a.mode,
        tumble: a.tumble.resolve(),
    };
    let collider = Collider::builder(&ma, &mb)
        .bv(bv)
        .build_options_a(opt_a)
        .build_options_b(opt_b)
        .kdop(crate::KdopOptions { descent })
        .boxtree(crate::BoxtreeOptions { test: a.box_test })
        .rtree(rtree_options)
        .dual(dual)
        .query(opts)
        .build()?;
    let build_ms = ms(t1);

    if a.descent.is_some() && !BvKind::ALL.contains(&bv) {
        eprintln!(
            "note: --descent applies to the k-DOP hierarchies only; {} uses {}",
            bv.name(),
            if bv.is_dual() {
                "Algorithm 1 (env)"
            } else {
                "its own traversal"
            }
        );
    }
    let bar = ProgressBar::new(poses.len() as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} poses ({per_sec}, eta {eta})",
        )
        .map_err(|e| Failure::Internal(e.to_string()))?
        .progress_chars("=> "),
    );
    let t2 = Instant::now();
    let progress = |done: usize| bar.set_position(done as u64);
    let (results, gpu_stats) = match &gpu {
        Some(ctx) => {
            let (r, s) = collider.collide_batch_gpu(ctx, &poses, &opts, Some(&progress))?;
            (r, Some(s))
        }
        None => (
            collider.collide_batch_with(&poses, &opts, Some(&progress)),
            None,
        ),
    };
    let query_ms = ms(t2);
    bar.finish_and_clear();

    let mut w = std::io::BufWriter::new(out);
    write_pairs(&mut w, &results)
        .and_then(|_| w.flush())
        .map_err(|e| Failure::Input(format!("{}: cannot write: {e}", a.out.display())))?;

    let c = total_counters(&results);
    let pairs: usize = results.iter().map(|r| r.pairs.len()).sum();
    let [(nodes_a, bytes_a), (nodes_b, bytes_b)] = collider.hierarchy_sizes();
    let [depth_a, depth_b] = collider.depths();
    let stats = Stats {
        backend: match &gpu {
            Some(ctx) => format!("gpu: {}", ctx.adapter_name()),
            None => "cpu".into(),
        },
        bv: bv.name().into(),
        box_test: (bv == BvKind::Boxtree).then(|| a.box_test.name().into()),
        poses: poses.len(),
        build_ms,
        query_ms,
        pairs,
        bv_tests: c.bv_tests,
        tri_tests: c.tri_tests,
        bv_updates: c.bv_updates,
        mode: a.mode.name().into(),
        split: a.split.name().into(),
        split_point: a.split_point.name().into(),
        leaf_size_a: opt_a.leaf_size,
        leaf_size_b: opt_b.leaf_size,
        tumble: opts.tumble.name().into(),
        descent: descent_used(bv, descent).into(),
        threads: rayon::current_num_threads(),
        triangles_a: ma.triangle_count(),
        triangles_b: mb.triangle_count(),
        nodes_a,
        nodes_b,
        node_bytes: bytes_a / nodes_a.max(1),
        hierarchy_bytes_a: bytes_a,
        hierarchy_bytes_b: bytes_b,
        depth_a,
        depth_b,
        poses_in_contact: results.iter().filter(|r| !r.pairs.is_empty()).count(),
        load_ms,
        dual: bv.is_dual().then(|| crate::formats::DualStatsJson {
            symmetric: dual.symmetric,
            slab_order: dual.order.name().into(),
            sphere_rejects: c.dual().sphere_rejects,
            slab_rejects: c.dual().slab_rejects,
            accepted: c.bv_tests - c.dual().sphere_rejects - c.dual().slab_rejects,
            slab_tests: c.dual().slab_tests,
        }),
        gpu: gpu_stats.map(|g| crate::formats::GpuStatsJson {
            dispatches: g.dispatches,
            bytes_uploaded: g.bytes_uploaded,
            submissions: g.submissions,
            reruns: g.reruns,
            resumes: g.resumes,
            splits: g.splits,
            unsure_pairs: g.unsure,
            readbacks: g.readbacks,
            bytes_read_back: g.bytes_read_back,
            peak_buffer_bytes: g.peak_buffer_bytes,
            front_sizes_per_level: g.level_sizes,
            batches: g.batches,
        }),
    };
    if let Some(p) = &a.stats {
        let json =
            serde_json::to_string_pretty(&stats).map_err(|e| Failure::Internal(e.to_string()))?;
        super::write_text(Some(p), &(json + "\n"))?;
    }
    eprintln!(
        "{} poses, {} in contact, {} pairs; build {:.1} ms, query {:.1} ms ({:.0} poses/s); Nv {}, Np {}, Nu {}",
        stats.poses,
        stats.poses_in_contact,
        stats.pairs,
        build_ms,
        query_ms,
        stats.poses as f64 / (query_ms / 1e3).max(1e-9),
        c.bv_tests,
        c.tri_tests,
        c.bv_updates
    );
    Ok(())
}

/// The GPU context for `--backend`, or `None` for the CPU path (said on stderr for auto).
fn choose_backend(backend: BackendArg) -> Result<Option<crate::gpu::GpuContext>, Failure> {
    if backend == BackendArg::Cpu {
        return Ok(None);
    }
    match crate::gpu::GpuContext::new() {
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

pub fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The descent rule the query really used, for `stats.json`: the k-DOPs follow `--descent`,
/// the dual hierarchy always descends by Algorithm 1 (`env`), the boxtree and the R-tree
/// have traversals of their own (`own`).
fn descent_used(bv: BvKind, descent: Descent) -> &'static str {
    if BvKind::ALL.contains(&bv) {
        descent.name()
    } else if bv.is_dual() {
        Descent::Environment.name()
    } else {
        "own"
    }
}
