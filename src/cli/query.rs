//! `meshcollide query`.

use super::inputs::{self, PoseRange};
use super::output::{AtomicFile, Out, Outputs, PairsOut};
use super::query_args::choose_backend;
use super::query_args::{QueryArgs, ms};
use super::query_budget::budget_of;
use super::{BackendArg, CoherenceArg, Failure};
use crate::formats::{Stats, Totals};
use crate::pose::{COHERENT_PROBE, PoseReader};
use crate::{
    bvh::BuildOptions, collider::Collider, collider::Contacts, kind::BvKind, scene::QueryOptions,
};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::Cell;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Poses read from `poses.csv` at a time while the query runs.
const READ_BLOCK: usize = 256;
/// Poses between updates of the progress bar (each reads the clock).
const PROGRESS_EVERY: usize = 64;

/// Claims `--out` (0) and `--stats` (1) before any work: neither may be an input (the
/// meshes, the poses, the frame lists) nor each other (`output::Outputs`).
pub(super) fn claim_outputs(a: &QueryArgs) -> Result<Outputs, Failure> {
    let mut inputs: Vec<(&str, &std::path::Path)> = vec![("mesh A", &a.a), ("mesh B", &a.b)];
    if let Some(p) = a.poses.as_deref().filter(|p| p.as_os_str() != "-") {
        inputs.push(("--poses input", p));
    }
    if let Some(p) = a.frames_a.as_deref() {
        inputs.push(("--frames-a list", p));
    }
    if let Some(p) = a.frames_b.as_deref() {
        inputs.push(("--frames-b list", p));
    }
    let mut outs = vec![Out::pairs("--out", &a.out)];
    if let Some(s) = a.stats.as_deref() {
        outs.push(Out::whole("--stats", s));
    }
    let inside = a.inside_path();
    if let Some(p) = inside.as_deref() {
        outs.push(Out::whole("--inside", p));
    }
    let segments = a.segments_path();
    if let Some(p) = segments.as_deref() {
        outs.push(Out::whole("--segments", p));
    }
    if let Some(p) = a.status.as_deref() {
        outs.push(Out::pairs("--status", p));
    }
    Outputs::claim(&outs, &inputs, a.force)
}

/// Where `claim_outputs` put `--segments` among the claimed outputs (after `--out`, and
/// `--stats` and `--inside` when given).
fn segments_index(a: &QueryArgs) -> usize {
    1 + usize::from(a.stats.is_some()) + usize::from(a.solid)
}

/// Where `claim_outputs` put `--status`: the last of the claimed outputs.
fn status_index(a: &QueryArgs) -> usize {
    segments_index(a) + usize::from(a.contact_geometry)
}

pub fn run(a: &QueryArgs) -> Result<(), Failure> {
    let claim = claim_outputs(a)?;
    let budget = budget_of(a)?;
    if a.status.is_some() && (a.frames_a.is_some() || a.frames_b.is_some()) {
        return Err(Failure::Input(
            "--status with --frames-a or --frames-b (deforming meshes) is not supported yet".into(),
        ));
    }
    if a.contact_geometry {
        // Frames: the deforming path has no hook for it yet. A tolerance: pairs within it
        // need not meet, so they have no intersection set to write.
        if a.frames_a.is_some() || a.frames_b.is_some() {
            return Err(Failure::Input(
                "--contact-geometry with --frames-a or --frames-b (deforming meshes) is not supported yet"
                    .into(),
            ));
        }
        if a.tolerance.is_some_and(|e| e != 0.0) {
            return Err(Failure::Input(
                "--contact-geometry with --tolerance above 0 is not supported: pairs within the tolerance need not meet, so they have no intersection to write"
                    .into(),
            ));
        }
    }
    if a.frames_a.is_some() || a.frames_b.is_some() {
        if a.solid {
            return Err(Failure::Input(
                "--solid with --frames-a or --frames-b (deforming meshes) is not supported yet"
                    .into(),
            ));
        }
        return super::query_frames::run(a, &claim);
    }
    let Some(poses_path) = a.poses.as_ref() else {
        return Err(Failure::Input(
            "--poses is required without --frames-a or --frames-b".into(),
        ));
    };
    if let Some(n) = a.threads {
        // One thread is this one: a pool worker would build the hierarchies and then spin
        // (yielding) for a while, on the same core when the process is pinned to one,
        // taking turns with the query's first poses (a call of 300 separated poses, taskset
        // to one core: 0.24 µs per pose before,
        // `docs/notebook/cpu-speed-1-pretest-auto-cold-caches.md`, "Cold caches").
        let pool = rayon::ThreadPoolBuilder::new().num_threads(n);
        let pool = if n == 1 {
            pool.use_current_thread()
        } else {
            pool
        };
        pool.build_global()
            .map_err(|e| Failure::Internal(format!("thread pool: {e}")))?;
    }
    let bv = a.bv;
    let backend = match a.backend {
        // A budget runs on the CPU unless `--backend gpu` asks (breadth first there).
        BackendArg::Auto if !bv.on_gpu() || budget.is_some() => BackendArg::Cpu,
        BackendArg::Gpu if !bv.on_gpu() => {
            return Err(
                crate::error::Error::from(crate::gpu::GpuError::Unsupported { bv: bv.name() })
                    .into(),
            );
        }
        b => b,
    };
    let tolerance = crate::proximity::Tolerance::new(a.tolerance.unwrap_or(0.0), "--tolerance")?;
    let backend = if tolerance.is_zero() {
        backend
    } else {
        if matches!(bv, BvKind::Boxtree | BvKind::Rtree) {
            return Err(Failure::Input(format!(
                "--tolerance needs a hierarchy that grows its volumes by it (auto, kdop6, kdop14, kdop18, kdop26, dual6, dual14, dual18, dual26, obb, sphere); --bv {} does not",
                bv.name()
            )));
        }
        let grown = matches!(
            bv,
            BvKind::Auto
                | BvKind::Kdop6
                | BvKind::Kdop14
                | BvKind::Kdop18
                | BvKind::Kdop26
                | BvKind::Obb
                | BvKind::Sphere
                | BvKind::Dual6
                | BvKind::Dual14
                | BvKind::Dual18
                | BvKind::Dual26
        );
        match backend {
            // The GPU runs tolerance queries on every binary tree (`proximity`); asked for
            // by name only: `--backend auto` answers them on the CPU.
            BackendArg::Gpu if grown => BackendArg::Gpu,
            BackendArg::Gpu => {
                return Err(
                    crate::error::Error::from(crate::gpu::GpuError::Unsupported { bv: bv.name() })
                        .into(),
                );
            }
            _ => BackendArg::Cpu,
        }
    };
    let rtree_options = crate::rtree::RtreeOptions {
        min_children: a.rtree_min,
        max_children: a.rtree_max,
        collide: a.rtree_collide,
    };
    rtree_options.validate()?;
    // Inputs first: a bad file is reported before the GPU probe (and any driver's noise).
    let t0 = Instant::now();
    let (ia, ib) = rayon::join(|| inputs::load(&a.a), || inputs::load(&a.b));
    let (ia, ib) = (ia?, ib?);
    // One pass that checks every row and keeps none: bad input is reported before any
    // work, then the poses are streamed.
    let poses_file = inputs::PosesFile::open(poses_path, claim.path(0))?;
    let n_file = crate::pose::count_poses_as(&poses_file.read, &poses_file.name)
        .map_err(crate::error::Error::from)?;
    let range = a.pose_range.unwrap_or(PoseRange {
        start: 0,
        end: n_file,
    });
    inputs::check_pose_range(range, n_file, &poses_file.name)?;
    let n_poses = range.end - range.start;
    // A `.mch` load counts as the build (below), not as the load.
    let load_ms =
        (ms(t0) - (ia.saved_load_time() + ib.saved_load_time()).as_secs_f64() * 1e3).max(0.0);
    let (gpu, gpu_probe_ms) = choose_backend(backend)?;
    let gpu = gpu.map(|ctx| match a.gpu_memory {
        Some(mib) => ctx.with_batch_memory(mib << 20),
        None => ctx,
    });
    // `auto` holds two trees; what only the k-DOPs do (a saved hierarchy, coherence on the
    // GPU) gets kdop18, the tree `auto` would otherwise share.
    let saved_input = [&ia, &ib]
        .iter()
        .any(|i| matches!(i, inputs::Input::Saved(..)));
    // A saved hierarchy's load replaces its build: it is timed as the build.
    let saved_load = ia.saved_load_time() + ib.saved_load_time();
    let asked = a.coherence == CoherenceArg::On && a.mode == crate::scene::Mode::All;
    if asked && budget.is_some() {
        eprintln!(
            "note: --coherence does not apply under --budget: every pose starts at the roots"
        );
    }
    let bv = if (asked && gpu.is_some()) || saved_input {
        bv.concrete()
    } else {
        bv
    };
    // Check the outputs can be created before spending time on the query.
    let mut out = PairsOut::create(claim.path(0))?.first_pose(range.start);
    let mut status_out = match a.status {
        Some(_) => Some(
            PairsOut::with_header(
                claim.path(status_index(a)),
                crate::formats::STATUS_HEADER,
                "poses",
            )?
            .first_pose(range.start),
        ),
        None => None,
    };
    let stats_file = match a.stats {
        Some(_) => Some(AtomicFile::create(claim.path(1))?),
        None => None,
    };

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
    // A saved hierarchy's load replaces its build: it is timed as the build.
    let (ra, rb) = rayon::join(
        || inputs::resolve(ia, &a.a, bv, &opt_a, "--leaf-size"),
        || inputs::resolve(ib, &a.b, bv, &opt_b, "--leaf-size-b"),
    );
    let ((ma, ha), (mb, hb)) = (ra?, rb?);
    // `--solid`: both meshes must be closed, checked before the query.
    let solids = match a.solid {
        true => Some((
            crate::solid::Solid::named(&ma, &a.a).map_err(crate::error::Error::from)?,
            crate::solid::Solid::named(&mb, &a.b).map_err(crate::error::Error::from)?,
        )),
        false => None,
    };
    let mut empty = vec![0u64; if a.solid { n_poses.div_ceil(64) } else { 0 }];
    // `--contact-geometry`: its file is created before the query, like the others.
    let segments_path = a.segments_path().map(|_| claim.path(segments_index(a)));
    let mut contact = match segments_path {
        Some(p) => Some(super::contact_out::ContactOut::create(p, &ma, &mb)?),
        None => None,
    };
    let mut contact_failure: Option<Failure> = None;
    let coherence = {
        let first = first_poses(&poses_file, range.start, COHERENT_PROBE.min(n_poses))?;
        a.coherence
            .resolve(&first, mb.bounds(), gpu.is_some(), a.mode)
    };
    let saved = [ha.is_some(), hb.is_some()];
    let dual = crate::dual::DualOptions {
        symmetric: a.dual_symmetric,
        order: a.dual_order,
    };
    // Both backends run both rules; `larger` (the default) tests fewer node pairs.
    let descent = a.descent.unwrap_or_default();
    let opts = QueryOptions {
        mode: a.mode,
        tumble: a.tumble.resolve(),
        tolerance,
    };
    // One build, one batch: the generated warm-up scene would cost this process more
    // (1–3 ms) than it saves the first pose (about 10 µs); the own part costs microseconds.
    let mut builder = Collider::builder(&ma, &mb).warm_up(crate::collider::WarmUp::Own);
    if let Some(n) = a.chunk_poses {
        builder = builder.stream_chunk(n as usize);
    }
    if let Some(h) = ha {
        builder = builder.hierarchy_a(h);
    }
    if let Some(h) = hb {
        builder = builder.hierarchy_b(h);
    }
    let collider = builder
        .bv(bv)
        .build_options_a(opt_a)
        .build_options_b(opt_b)
        .kdop(crate::kdop::KdopOptions {
            coherence,
            ..crate::kdop::KdopOptions::with_descent(descent)
        })
        .boxtree(crate::boxtree::BoxtreeOptions { test: a.box_test })
        .rtree(rtree_options)
        .dual(dual)
        .query(opts)
        .build()?;
    let build_ms = ms(t1) + saved_load.as_secs_f64() * 1e3;

    if a.descent.is_some() && !BvKind::ALL.contains(&bv.concrete()) {
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
    // The bar draws on a terminal only (its first draw alone cost 20 µs, half of a 300-pose
    // run of separated grids); its updates are timed as I/O below.
    let target = if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(n_poses as u64), target);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} poses ({per_sec}, eta {eta})",
        )
        .map_err(|e| Failure::Internal(e.to_string()))?
        .progress_chars("=> "),
    );

    // Poses are read and pairs written while the query runs: that time is measured apart,
    // so `query_ms` still excludes file I/O. Poses are read a block at a time and only the
    // writes of `pairs.csv` are timed (formatting its rows counts as query time): a clock
    // read per pose would cost more than a separated pose's whole query.
    let io = Cell::new(Duration::ZERO);
    let timed = |t: Instant| io.set(io.get() + t.elapsed());
    let mut reader = PoseReader::open_as(&poses_file.read, &poses_file.name)
        .map_err(crate::error::Error::from)?;
    let mut read_error = None;
    // Rows before the range are read and dropped, one at a time.
    let mut skip = range.start;
    let mut left = n_poses;
    let mut block: std::collections::VecDeque<crate::pose::Pose> = Default::default();
    let poses = std::iter::from_fn(|| {
        if block.is_empty() && left > 0 && read_error.is_none() {
            let t = Instant::now();
            while block.len() < READ_BLOCK && left > 0 {
                let mut r = reader.next();
                while skip > 0 && matches!(r, Some(Ok(_))) {
                    skip -= 1;
                    r = reader.next();
                }
                match r {
                    Some(Ok(p)) => block.push_back(p),
                    Some(Err(e)) => {
                        read_error = Some(e);
                        break;
                    }
                    None => break,
                }
                left -= 1;
            }
            timed(t);
        }
        block.pop_front()
    });
    // With `--contact-geometry` the sink needs each pose again: the poses read but not yet
    // handed to the sink are kept (at most a chunk or batch of them).
    let pose_log = std::cell::RefCell::new(std::collections::VecDeque::new());
    let mut next_pose = range.start;
    let keep_poses = contact.is_some();
    let poses = poses.inspect(|p| {
        if keep_poses {
            pose_log.borrow_mut().push_back((next_pose, *p));
            next_pose += 1;
        }
    });
    let mut totals = Totals::default();
    let mut budget_totals = crate::formats::BudgetStatsJson::default();
    let write_error = |source| crate::error::Error::Write {
        path: a.out.clone(),
        source,
    };
    let status_error = |source| crate::error::Error::Write {
        path: a.status.clone().unwrap_or_default(),
        source,
    };
    let mut status_row = Vec::new();
    let mut sink = |i: usize, r: Contacts, st: Option<crate::budget::PoseStatus>| {
        let i = i + range.start;
        if super::interrupt::requested() {
            return Err(write_error(std::io::ErrorKind::Interrupted.into()));
        }
        if a.fail_at_pose == Some(i) {
            return Err(write_error(std::io::Error::other(
                "stopped by --fail-at-pose",
            )));
        }
        totals.add(&r);
        if r.pairs.is_empty() && !empty.is_empty() {
            let k = i - range.start;
            empty[k / 64] |= 1 << (k % 64);
        }
        out.push(i, &r.pairs).map_err(write_error)?;
        let st = st.unwrap_or_else(|| {
            crate::budget::PoseStatus::complete(!r.pairs.is_empty(), r.counters.bv_tests)
        });
        budget_totals.maybe += usize::from(st.answer == crate::budget::Answer::Maybe);
        budget_totals.incomplete += usize::from(!st.complete);
        budget_totals.max_depth_bound = budget_totals.max_depth_bound.max(st.depth_bound);
        if let Some(so) = status_out.as_mut() {
            status_row.clear();
            crate::formats::write_status_row(&mut status_row, i, &st);
            so.push_rows(&status_row).map_err(status_error)?;
        }
        if let Some(c) = contact.as_mut() {
            let mut log = pose_log.borrow_mut();
            while log.front().is_some_and(|&(k, _)| k < i) {
                log.pop_front();
            }
            let pushed = match log.front() {
                Some((k, p)) if *k == i => c.push(i, Some(p), &r.pairs),
                _ => Err(Failure::Internal(format!(
                    "pose {i}: its pose was not kept for --contact-geometry"
                ))),
            };
            if let Err(f) = pushed {
                contact_failure = Some(f);
                return Err(write_error(std::io::Error::other(
                    "--contact-geometry failed",
                )));
            }
        }
        if totals.poses % PROGRESS_EVERY == 0 {
            // Drawing the bar (at most 20 times a second) is terminal output: not query time.
            let t = Instant::now();
            bar.set_position(totals.poses as u64);
            timed(t);
        }
        Ok(())
    };
    let t2 = Instant::now();
    let run = super::interrupt::streaming(|| match (&gpu, budget) {
        (Some(ctx), Some(b)) => collider
            .collide_budgeted_stream_gpu(ctx, poses, &opts, b, |i, r, s| sink(i, r, Some(s)))
            .map(Some),
        (Some(ctx), None) => collider
            .collide_stream_gpu(ctx, poses, &opts, |i, r| sink(i, r, None))
            .map(Some),
        (None, Some(b)) => collider
            .collide_budgeted_stream(poses, &opts, b, |i, r, s| sink(i, r, Some(s)))
            .map(|()| None),
        (None, None) => collider
            .collide_stream(poses, &opts, |i, r| sink(i, r, None))
            .map(|()| None),
    });
    let contact_time = contact.as_ref().map_or(Duration::ZERO, |c| c.time());
    let query_ms = ms(t2) - (io.get() + out.write_time() + contact_time).as_secs_f64() * 1e3;
    bar.finish_and_clear();
    let gpu_stats = match (run, read_error) {
        (Ok(s), None) if totals.poses == n_poses => s,
        (run, read_error) => {
            let failure = match (run, read_error) {
                (Err(_), _) if contact_failure.is_some() => {
                    contact_failure.unwrap_or(Failure::Internal("--contact-geometry".into()))
                }
                (Err(_), _) if super::interrupt::requested() => {
                    Failure::Interrupted(format!("stopped after {} poses", totals.poses))
                }
                (Err(e), _) => Failure::from(e),
                (Ok(_), Some(e)) => Failure::from(crate::error::Error::from(e)),
                (Ok(_), None) => Failure::Input(format!(
                    "{}: the file changed while it was read ({} poses, then {})",
                    poses_file.name.display(),
                    n_poses,
                    totals.poses
                )),
            };
            let mut note = out.keep_partial(n_poses);
            if let Some(so) = status_out {
                note = format!("{note}; {}", so.keep_partial(n_poses));
            }
            return Err(failure.note(&note));
        }
    };
    let c = totals.counters;
    let run = crate::formats::RunFacts {
        backend: match &gpu {
            Some(ctx) => format!("gpu: {}", ctx.adapter_name()),
            None => "cpu".into(),
        },
        build: [opt_a, opt_b],
        box_test: a.box_test,
        dual,
        descent,
        coherence: coherence && bv.coherent(gpu.is_some()),
        mode: a.mode,
        tumble: opts.tumble,
        triangles: [ma.triangle_count(), mb.triangle_count()],
        load_ms,
        gpu_probe_ms,
        build_ms,
        query_ms,
        pose_range: a.pose_range.map(|r| [r.start, r.end]),
        saved: [
            saved[0].then(|| a.a.display().to_string()),
            saved[1].then(|| a.b.display().to_string()),
        ],
        gpu: gpu_stats.map(Into::into),
    };
    let mut stats = Stats::new(&collider, run, &totals);
    stats.tolerance = (!tolerance.is_zero()).then(|| tolerance.get());
    stats.budget = budget.map(|b| crate::formats::BudgetStatsJson {
        nodes: b.nodes.get(),
        order: b.order.name().into(),
        micros: a.budget_us,
        ..budget_totals
    });
    if let (Some((sa, sb)), Some(shown)) = (&solids, a.inside_path()) {
        let solid = super::solid_out::Solids {
            a: (sa, &ma),
            b: (sb, &mb),
        };
        // The claimed path (after `--out` and `--stats`): where `--inside` resolved when it
        // was checked, as every output is written.
        let path = claim.path(1 + usize::from(a.stats.is_some()));
        let n = solid.write(path, &poses_file, range.start, n_poses, &empty)?;
        eprintln!(
            "{n} poses with one mesh inside the other (--solid): {}",
            shown.display()
        );
    }
    if let (Some(c), Some(path)) = (contact, segments_path) {
        let n = c.commit()?;
        eprintln!("{n} contact rows (--contact-geometry): {}", path.display());
    }
    if let Some(so) = status_out {
        so.commit()?;
        let _ = std::fs::remove_file(super::output::partial_path(claim.path(status_index(a))));
    }
    super::output::finish_outputs(out, stats_file, &stats, claim.path(0))?;
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

/// The first `n` poses of the run (from row `start`), for `--coherence auto`; the file was
/// checked already.
fn first_poses(
    poses: &inputs::PosesFile,
    start: usize,
    n: usize,
) -> crate::error::Result<Vec<crate::pose::Pose>> {
    let reader =
        PoseReader::open_as(&poses.read, &poses.name).map_err(crate::error::Error::from)?;
    reader
        .skip(start)
        .take(n)
        .map(|p| p.map_err(crate::error::Error::from))
        .collect()
}
