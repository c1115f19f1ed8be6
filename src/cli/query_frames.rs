//! `meshcollide query` with deforming meshes (`--frames-a`, `--frames-b`): frame `i` of A
//! and of B goes with pose row `i` (identity poses without `--poses`), as `docs/FORMATS.md`
//! specifies. The hierarchies are built once from the base meshes and updated per frame
//! (`crate::deform`; with `--backend gpu`, `crate::gpu::deform`: A refitted on the device
//! before the expansion, no readback between); `pairs.csv` streams as in a rigid query
//! (whole poses, `.partial` on failure, Ctrl-C), and `stats.json` gains the update's
//! fields.
//!
//! Frames are loaded by a second thread one frame ahead of the query (a channel of one
//! slot), so at most three frames of each mesh are in memory whatever the list's length.

use super::BackendArg;
use super::Failure;
use super::output::{AtomicFile, Outputs, PairsOut};
use super::query_args::{QueryArgs, ms};
use crate::deform::{DeformOptions, DeformingCollider, tumble_name};
use crate::formats::{DeformStatsJson, Stats, Totals};
use crate::gpu::{GpuContext, deform::GpuDeformingCollider};
use crate::mesh::frames::FrameList;
use crate::{bvh::BuildOptions, collider::AnySub, collider::Contacts, scene::QueryOptions};
use std::path::Path;
use std::sync::mpsc::sync_channel;
use std::time::Instant;

type Frame = Option<Vec<[f64; 3]>>;

/// The collider of the chosen backend.
enum Backend<'c> {
    Cpu(Box<DeformingCollider>),
    Gpu(&'c GpuContext, Box<GpuDeformingCollider>),
}

pub fn run(a: &QueryArgs, claim: &Outputs) -> Result<(), Failure> {
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| Failure::Internal(format!("thread pool: {e}")))?;
    }
    // `auto` deforms as kdop18: the OBB tree is not refitted.
    let bv = a.bv.concrete();
    if !DeformingCollider::SUPPORTED.contains(&bv) {
        return Err(crate::deform::unsupported(bv).into());
    }
    if a.pose_range.is_some() {
        return Err(Failure::Input(
            "--pose-range does not apply with --frames-a or --frames-b".into(),
        ));
    }
    if a.rebuild_ratio.is_nan() || a.rebuild_ratio < 0.0 {
        return Err(Failure::Input(format!(
            "--rebuild-ratio {}: expected a number >= 0",
            a.rebuild_ratio
        )));
    }
    let t0 = Instant::now();
    let read_list = |p: &Option<std::path::PathBuf>| {
        p.as_deref()
            .map(FrameList::read)
            .transpose()
            .map_err(crate::error::Error::from)
    };
    let (la, lb) = (read_list(&a.frames_a)?, read_list(&a.frames_b)?);
    for (role, list) in [("frame of --frames-a", &la), ("frame of --frames-b", &lb)] {
        if let Some(l) = list {
            let files: Vec<_> = l.frames.iter().map(|(_, p)| (role, p.as_path())).collect();
            claim.check_inputs(&files)?;
        }
    }
    let n_frames = match (&la, &lb) {
        (Some(x), Some(y)) if x.len() != y.len() => {
            return Err(Failure::Input(format!(
                "{} lists {} frames, {} lists {}: the frame lists of A and B must have as many frames",
                x.list.display(),
                x.len(),
                y.list.display(),
                y.len()
            )));
        }
        (Some(x), _) | (None, Some(x)) => x.len(),
        (None, None) => unreachable!("run is called with a frame list"),
    };
    let poses_file = a
        .poses
        .as_deref()
        .map(|p| super::inputs::PosesFile::open(p, claim.path(0)))
        .transpose()?;
    if let Some(p) = &poses_file {
        let n = crate::pose::count_poses_as(&p.read, &p.name).map_err(crate::error::Error::from)?;
        if n != n_frames {
            let list = la.as_ref().or(lb.as_ref()).map(|l| &l.list);
            return Err(Failure::Input(format!(
                "{} has {n} poses, {} lists {n_frames} frames: with frames, every frame needs one pose row",
                p.name.display(),
                list.map(|l| l.display().to_string()).unwrap_or_default()
            )));
        }
    }
    // A tolerance query on frames: the k-DOPs grown by `ε`, as rigid; on the GPU when asked
    // for by name (`--backend auto` answers it on the CPU, as a rigid one).
    let tolerance = crate::proximity::Tolerance::new(a.tolerance.unwrap_or(0.0), "--tolerance")?;
    let (ma, mb) = rayon::join(|| crate::mesh::load(&a.a), || crate::mesh::load(&a.b));
    let (ma, mb) = (
        ma.map_err(crate::error::Error::from)?,
        mb.map_err(crate::error::Error::from)?,
    );
    let load_ms = ms(t0);
    // The k-DOPs of frames run on the GPU like a rigid query (`auto`: a hardware adapter).
    let backend = match a.backend {
        BackendArg::Auto if !tolerance.is_zero() => BackendArg::Cpu,
        b => b,
    };
    let (gpu, gpu_probe_ms) = super::query_args::choose_backend(backend)?;
    let gpu = gpu.map(|ctx| match a.gpu_memory {
        Some(mib) => ctx.with_batch_memory(mib << 20),
        None => ctx,
    });
    let mut out = PairsOut::create(claim.path(0))?;
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
    let descent = a.descent.unwrap_or_default();
    let opts = QueryOptions {
        mode: a.mode,
        tumble: a.tumble.resolve(),
        tolerance,
    };
    let deform = DeformOptions {
        method: a.update,
        rebuild_ratio: (a.rebuild_ratio > 0.0).then_some(a.rebuild_ratio),
    };
    let t1 = Instant::now();
    // Coherence across frames, on both backends (the GPU runs the CPU's rule frame for
    // frame). `auto`: on for the CPU, where it paid on the generated deforming scenes
    // (`docs/notebook/coherence.md`, "Across frames": the draping sheet's Nv −19 %, its
    // refit query −25 %; a frame list is an animation, and the off-switch bounds the loss
    // on frames far apart), off on the GPU, as for poses.
    let coherence = a.mode == crate::scene::Mode::All
        && match a.coherence {
            super::CoherenceArg::On => true,
            super::CoherenceArg::Off => false,
            super::CoherenceArg::Auto => gpu.is_none(),
        };
    let cpu = DeformingCollider::new(
        &ma,
        &mb,
        bv,
        [opt_a, opt_b],
        crate::kdop::KdopOptions {
            coherence,
            ..crate::kdop::KdopOptions::with_descent(descent)
        },
        deform,
    )?;
    let mut collider = match &gpu {
        None => Backend::Cpu(Box::new(cpu)),
        Some(ctx) => Backend::Gpu(ctx, Box::new(GpuDeformingCollider::new(ctx, cpu)?)),
    };
    let build_ms = ms(t1);

    let mut totals = Totals::default();
    let mut update = crate::deform::UpdateCounters::default();
    let mut query_ms = 0.0;
    let mut frame_load_ms = 0.0;
    let write_error = |source| crate::error::Error::Write {
        path: a.out.clone(),
        source,
    };
    let mut reader = poses_file
        .as_ref()
        .map(|p| crate::pose::PoseReader::open_as(&p.read, &p.name))
        .transpose()
        .map_err(crate::error::Error::from)?;
    let (ma_ref, mb_ref) = (&ma, &mb);
    let (la_ref, lb_ref) = (&la, &lb);
    let run = super::interrupt::streaming(|| {
        std::thread::scope(|scope| -> Result<(), Failure> {
            let (tx, rx) = sync_channel::<Result<(Frame, Frame, f64), crate::error::Error>>(1);
            scope.spawn(move || {
                let load = |l: &Option<FrameList>, base, path: &Path, i| {
                    l.as_ref()
                        .map(|l| l.load(i, base, path))
                        .transpose()
                        .map_err(crate::error::Error::from)
                };
                for i in 0..n_frames {
                    let t = Instant::now();
                    let r = load(la_ref, ma_ref, &a.a, i)
                        .and_then(|fa| load(lb_ref, mb_ref, &a.b, i).map(|fb| (fa, fb, ms(t))));
                    let stop = r.is_err();
                    if tx.send(r).is_err() || stop {
                        return;
                    }
                }
            });
            for i in 0..n_frames {
                let (fa, fb, load) = rx
                    .recv()
                    .map_err(|_| Failure::Internal("the frame loader stopped".into()))??;
                frame_load_ms += load;
                let pose = match reader.as_mut().map(|r| r.next()) {
                    None => crate::pose::Pose::IDENTITY,
                    Some(Some(Ok(p))) => p,
                    Some(Some(Err(e))) => return Err(crate::error::Error::from(e).into()),
                    Some(None) => {
                        return Err(Failure::Input(format!(
                            "{}: the file changed while it was read ({n_frames} poses, then {i})",
                            poses_file
                                .as_ref()
                                .map(|p| p.name.display().to_string())
                                .unwrap_or_default()
                        )));
                    }
                };
                let t = Instant::now();
                let r = match &mut collider {
                    Backend::Cpu(c) => c.query_frame(fa.as_deref(), fb.as_deref(), &pose, &opts)?,
                    Backend::Gpu(ctx, c) => {
                        c.query_frame(ctx, fa.as_deref(), fb.as_deref(), &pose, &opts)?
                            .0
                    }
                };
                query_ms += ms(t) - r.update.update_ms;
                update += r.update;
                if super::interrupt::requested() {
                    return Err(Failure::Interrupted(format!(
                        "stopped after {} frames",
                        totals.poses
                    )));
                }
                if a.fail_at_pose == Some(i) {
                    return Err(
                        write_error(std::io::Error::other("stopped by --fail-at-pose")).into(),
                    );
                }
                out.push(i, &r.pairs).map_err(write_error)?;
                totals.add(&Contacts {
                    pairs: r.pairs,
                    counters: r.counters.map_sub(|_| AnySub::None),
                });
            }
            Ok(())
        })
    });
    if let Err(f) = run {
        return Err(f.note(&out.keep_partial(n_frames)));
    }
    let c = totals.counters;
    let b_deforms = lb.is_some();
    let (host, gpu_stats) = match &collider {
        Backend::Cpu(c) => (&**c, None),
        Backend::Gpu(_, c) => (c.cpu(), Some(c.stats().clone())),
    };
    let run = crate::formats::RunFacts {
        backend: match &gpu {
            Some(ctx) => format!("gpu: {}", ctx.adapter_name()),
            None => "cpu".into(),
        },
        build: [opt_a, opt_b],
        box_test: a.box_test,
        dual: Default::default(),
        coherence,
        descent,
        mode: a.mode,
        tumble: opts.tumble,
        triangles: [ma.triangle_count(), mb.triangle_count()],
        load_ms,
        gpu_probe_ms,
        build_ms,
        query_ms,
        pose_range: None,
        saved: [None, None],
        gpu: gpu_stats.map(Into::into),
    };
    let mut stats = Stats::of_hierarchies(bv, host.hierarchy_sizes(), host.depths(), run, &totals);
    stats.tolerance = (!tolerance.is_zero()).then(|| tolerance.get());
    // The device tumbles a deformed B exactly whatever the update (crate::gpu::deform).
    let update_for_tumble = match (&collider, a.update) {
        (Backend::Gpu(..), crate::deform::UpdateMethod::Hybrid) => {
            crate::deform::UpdateMethod::Refit
        }
        (_, u) => u,
    };
    stats.tumble = tumble_name(b_deforms, update_for_tumble, opts.tumble).into();
    stats.deform = Some(DeformStatsJson {
        frames: n_frames,
        update: a.update.name().into(),
        deforming: match (la.is_some(), b_deforms) {
            (true, true) => "AB",
            (true, false) => "A",
            _ => "B",
        }
        .into(),
        rebuild_ratio: a.rebuild_ratio,
        update_ms: update.update_ms,
        refit_nodes: update.refit_nodes,
        rebuilds: update.rebuilds,
        frame_load_ms,
    });
    super::output::finish_outputs(out, stats_file, &stats, claim.path(0))?;
    eprintln!(
        "{} frames, {} in contact, {} pairs; build {:.1} ms, update {:.1} ms, query {:.1} ms; Nv {}, Np {}, Nu {}; {} nodes refit, {} rebuilds",
        stats.poses,
        stats.poses_in_contact,
        stats.pairs,
        build_ms,
        update.update_ms,
        query_ms,
        c.bv_tests,
        c.tri_tests,
        c.bv_updates,
        update.refit_nodes,
        update.rebuilds
    );
    Ok(())
}
