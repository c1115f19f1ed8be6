//! `meshcollide distance`: per pose, the minimum distance between two meshes, a witness
//! pair of triangles and its closest points (`docs/FORMATS.md`, "Distance").

use super::output::{AtomicFile, Out, Outputs};
use super::query_args::ms;
use super::{BackendArg, Failure, inputs};
use crate::bvh::{BuildOptions, SplitPoint, SplitRule};
use crate::collider::Collider;
use crate::kind::BvKind;
use crate::pose::PoseReader;
use crate::proximity::distance::PoseDistance;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct DistanceArgs {
    /// Mesh A, the fixed one (OBJ, STL, PLY; optionally .gz; or a saved `.mch` hierarchy).
    pub a: PathBuf,
    /// Mesh B, the one the poses move.
    pub b: PathBuf,
    /// Poses of B in A's frame (`poses.csv`; `-` reads standard input).
    #[arg(long)]
    pub poses: PathBuf,
    /// Output distance.csv: `pose,distance,tri_a,tri_b,ax,ay,az,bx,by,bz`, one row per pose,
    /// written whole or not at all. The distance is the witness pair's exact distance
    /// rounded once, the points its exact closest points rounded once.
    #[arg(long)]
    pub out: PathBuf,
    /// Stop a pose's search beyond this distance: a pose farther apart writes `inf` and
    /// empty fields (a decimal at least 0).
    #[arg(long, value_name = "D", value_parser = inputs::parse_distance)]
    pub upto: Option<f64>,
    /// Hierarchy: its binary tree of triangles carries the distance's own certified boxes
    /// (auto: the kdop18 tree; kdop*, dual*, obb, sphere; not boxtree or rtree).
    #[arg(long, value_enum, default_value = "auto")]
    pub bv: BvKind,
    /// Splitting rule for the split axis (as `query`'s; a saved hierarchy's must match).
    #[arg(long, value_enum, default_value = "splatter")]
    pub split: SplitRule,
    /// Split point along the chosen axis.
    #[arg(long = "split-point", value_enum, default_value = "mean")]
    pub split_point: SplitPoint,
    /// Most triangles in a leaf.
    #[arg(long = "leaf-size", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub leaf_size: u32,
    /// Where the search runs: `gpu` prunes node pairs on the GPU (the k-DOP trees: auto,
    /// kdop*), the host bounding each pose first and deciding the pairs left exactly (the
    /// same rows as the CPU); `auto` answers on the CPU, as for `query --tolerance`.
    #[arg(long, value_enum, default_value = "auto")]
    pub backend: BackendArg,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Also write stats.json: `distance_ms` (the distance computation only: no load,
    /// build or file I/O), `poses`, `build_ms` and the counters (`bv_tests`, node pairs
    /// tested; `tri_tests`, triangle pairs measured; `bv_updates`, B's node boxes posed).
    #[arg(long)]
    pub stats: Option<PathBuf>,
    /// Replace an existing output file even if it is read-only.
    #[arg(long)]
    pub force: bool,
}

/// stats.json of `meshcollide distance --stats`.
#[derive(serde::Serialize)]
struct DistanceStats {
    /// `cpu`, or `gpu: ` and the adapter's name.
    backend: String,
    bv: &'static str,
    poses: usize,
    poses_within: usize,
    build_ms: f64,
    distance_ms: f64,
    bv_tests: u64,
    tri_tests: u64,
    bv_updates: u64,
    /// What the GPU did (GPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    gpu: Option<crate::formats::GpuStatsJson>,
}

/// One row of distance.csv. Numbers use Rust's shortest round-trip formatting (`{}` of an
/// f64: `0` for zero, never an exponent), as FORMATS.md's example writes the distance.
fn row(out: &mut String, pose: usize, d: &PoseDistance) {
    use std::fmt::Write;
    match &d.witness {
        Some(w) => {
            let _ = writeln!(
                out,
                "{pose},{},{},{},{},{},{},{},{},{}",
                d.distance, w.tri_a, w.tri_b, w.a[0], w.a[1], w.a[2], w.b[0], w.b[1], w.b[2]
            );
        }
        None => {
            let _ = writeln!(out, "{pose},inf,,,,,,,,");
        }
    }
}

/// A mesh without triangles: every pose is `inf` with no witness (the poses are still read
/// and checked, so a bad row is the same error as with a mesh).
fn no_witness(
    poses_file: &inputs::PosesFile,
    out: &std::path::Path,
    n_poses: usize,
) -> Result<(), Failure> {
    let mut file = AtomicFile::create(out)?;
    let mut text = String::from("pose,distance,tri_a,tri_b,ax,ay,az,bx,by,bz\n");
    let reader = PoseReader::open_as(&poses_file.read, &poses_file.name)
        .map_err(crate::error::Error::from)?;
    for (i, p) in reader.enumerate() {
        p.map_err(crate::error::Error::from)?;
        row(&mut text, i, &PoseDistance::none(Default::default()));
        if text.len() > 1 << 16 {
            file.write_all(text.as_bytes())?;
            text.clear();
        }
    }
    file.write_all(text.as_bytes())?;
    file.commit()?;
    eprintln!("{n_poses} poses: a mesh has no triangle, so no pose has a witness (distance inf)");
    Ok(())
}

pub fn run(a: &DistanceArgs) -> Result<(), Failure> {
    let mut inputs_list: Vec<(&str, &std::path::Path)> = vec![("mesh A", &a.a), ("mesh B", &a.b)];
    if a.poses.as_os_str() != "-" {
        inputs_list.push(("--poses input", &a.poses));
    }
    let mut outs = vec![Out::whole("--out", &a.out)];
    if let Some(s) = a.stats.as_deref() {
        outs.push(Out::whole("--stats", s));
    }
    let claim = Outputs::claim(&outs, &inputs_list, a.force)?;
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Failure::Internal(format!("thread pool: {e}")))?;
    }
    if matches!(a.bv, BvKind::Boxtree | BvKind::Rtree) {
        return Err(Failure::Input(format!(
            "--bv: {} {}",
            crate::proximity::distance::DISTANCE_TREES,
            a.bv.name()
        )));
    }
    let on_gpu = match a.backend {
        BackendArg::Gpu => match a.bv {
            BvKind::Auto | BvKind::Kdop6 | BvKind::Kdop14 | BvKind::Kdop18 | BvKind::Kdop26 => true,
            bv => {
                return Err(
                    crate::error::Error::from(crate::gpu::GpuError::DistanceUnsupported {
                        bv: bv.name(),
                    })
                    .into(),
                );
            }
        },
        BackendArg::Auto | BackendArg::Cpu => false,
    };
    let (ia, ib) = rayon::join(
        || inputs::load_or_empty(&a.a),
        || inputs::load_or_empty(&a.b),
    );
    let (ia, ib) = (ia?, ib?);
    let poses_file = inputs::PosesFile::open(&a.poses, claim.path(0))?;
    let n_poses = crate::pose::count_poses_as(&poses_file.read, &poses_file.name)
        .map_err(crate::error::Error::from)?;
    let (Some(ia), Some(ib)) = (ia, ib) else {
        return no_witness(&poses_file, claim.path(0), n_poses);
    };
    let gpu = match on_gpu {
        true => super::query_args::choose_backend(BackendArg::Gpu)?.0,
        false => None,
    };
    let opt = BuildOptions {
        rule: a.split,
        point: a.split_point,
        leaf_size: a.leaf_size,
    };
    // Distances run on a k-DOP tree: `auto` builds only its kdop18 tree here.
    let bv = if a.bv == BvKind::Auto {
        BvKind::Kdop18
    } else {
        a.bv
    };
    let t1 = Instant::now();
    let (ra, rb) = rayon::join(
        || inputs::resolve(ia, &a.a, bv, &opt, "--leaf-size"),
        || inputs::resolve(ib, &a.b, bv, &opt, "--leaf-size"),
    );
    let ((ma, ha), (mb, hb)) = (ra?, rb?);
    let mut builder = Collider::builder(&ma, &mb)
        .bv(bv)
        .build_options_a(opt)
        .build_options_b(opt);
    if let Some(h) = ha {
        builder = builder.hierarchy_a(h);
    }
    if let Some(h) = hb {
        builder = builder.hierarchy_b(h);
    }
    let collider = builder.build()?;
    // The distance bounds' node volumes belong to the build, as FCL's RSS to its BVH.
    collider.prepare_distance()?;
    let build_ms = ms(t1);

    let mut file = AtomicFile::create(claim.path(0))?;
    let stats_file = match a.stats {
        Some(_) => Some(AtomicFile::create(claim.path(1))?),
        None => None,
    };
    file.write_all(b"pose,distance,tri_a,tri_b,ax,ay,az,bx,by,bz\n")?;
    let reader = PoseReader::open_as(&poses_file.read, &poses_file.name)
        .map_err(crate::error::Error::from)?;
    let mut read_error = None;
    let poses = reader.map_while(|p| match p {
        Ok(p) => Some(p),
        Err(e) => {
            read_error = Some(e);
            None
        }
    });
    let t2 = Instant::now();
    // Time spent writing distance.csv inside the query's loop, taken out of `distance_ms`.
    let mut io = std::time::Duration::ZERO;
    let mut buf = String::new();
    let mut done = 0usize;
    let mut within = 0usize;
    let mut counters = crate::scene::Counters::default();
    let mut min = f64::INFINITY;
    let write_error = |e: Failure| match e {
        Failure::Internal(m) | Failure::Input(m) | Failure::Interrupted(m) => {
            crate::error::Error::Write {
                path: a.out.clone(),
                source: std::io::Error::other(m),
            }
        }
    };
    let sink = |i, d: PoseDistance| {
        if super::interrupt::requested() {
            return Err(crate::error::Error::Write {
                path: a.out.clone(),
                source: std::io::ErrorKind::Interrupted.into(),
            });
        }
        row(&mut buf, i, &d);
        counters += d.counters;
        within += d.witness.is_some() as usize;
        min = min.min(d.distance);
        done += 1;
        if buf.len() > 1 << 16 {
            let t = Instant::now();
            file.write_all(buf.as_bytes()).map_err(write_error)?;
            buf.clear();
            io += t.elapsed();
        }
        Ok(())
    };
    let run = match &gpu {
        Some(ctx) => collider
            .distance_stream_gpu(ctx, poses, a.upto, sink)
            .map(Some),
        None => collider.distance_stream(poses, a.upto, sink).map(|()| None),
    };
    let query_ms = ms(t2) - io.as_secs_f64() * 1e3;
    let gpu_stats = match (run, read_error) {
        (Ok(s), None) if done == n_poses => s,
        (Err(_), _) if super::interrupt::requested() => {
            return Err(Failure::Interrupted(format!(
                "stopped after {done} poses; {} not written",
                a.out.display()
            )));
        }
        (Err(e), _) => return Err(Failure::from(e)),
        (Ok(_), Some(e)) => return Err(Failure::from(crate::error::Error::from(e))),
        (Ok(_), None) => {
            return Err(Failure::Input(format!(
                "{}: the file changed while it was read ({n_poses} poses, then {done})",
                poses_file.name.display()
            )));
        }
    };
    file.write_all(buf.as_bytes())?;
    if let Some(mut f) = stats_file {
        let stats = DistanceStats {
            backend: match &gpu {
                Some(ctx) => format!("gpu: {}", ctx.adapter_name()),
                None => "cpu".into(),
            },
            bv: bv.name(),
            poses: done,
            poses_within: within,
            build_ms,
            distance_ms: query_ms,
            bv_tests: counters.bv_tests,
            tri_tests: counters.tri_tests,
            bv_updates: counters.bv_updates,
            gpu: gpu_stats.map(Into::into),
        };
        let json =
            serde_json::to_string_pretty(&stats).map_err(|e| Failure::Internal(e.to_string()))?;
        f.write_all((json + "\n").as_bytes())?;
        f.commit()?;
    }
    file.commit()?;
    eprintln!(
        "{done} poses, {within} with a witness{}, smallest distance {}; build {build_ms:.1} ms, query {query_ms:.1} ms ({:.0} poses/s); Nv {}, Np {}, Nu {}",
        match a.upto {
            Some(d) => format!(" within {}", d),
            None => String::new(),
        },
        min,
        done as f64 / (query_ms / 1e3).max(1e-9),
        counters.bv_tests,
        counters.tri_tests,
        counters.bv_updates
    );
    Ok(())
}
