//! `bench deform`: a cloth-like sheet (A) draping over a ball that wobbles under a smooth
//! field (B), both deforming every frame; per frame, the update and the query time of every
//! `--update` method (Larsson and Akenine-Möller, "Collision Detection for Continuously
//! Deforming Objects", 2001, for the hybrid one), with Nv, Np, Nu. The pairs of every method
//! must be equal at every frame. `--write-frames DIR` writes the scene's meshes, frames and
//! frame lists instead, for `meshcollide query --frames-a/--frames-b`.

use super::{Common, bar, f};
use crate::cli::Failure;
use crate::cli::report::{Panel, Series, Table, write_plot, write_report};
use crate::deform::{DEFAULT_REBUILD_RATIO, DeformOptions, DeformingCollider, UpdateMethod};
use crate::mesh::generate;
use crate::{
    bvh::BuildOptions, kdop::KdopOptions, kind::BvKind, mesh::Mesh, pose::Pose, scene::QueryOptions,
};
use std::path::Path;
use std::time::Instant;

#[derive(clap::Args)]
pub struct DeformArgs {
    #[command(flatten)]
    pub common: Common,
    /// Triangles of the sheet (about: 2n² for an n × n grid).
    #[arg(long, default_value_t = 100_000)]
    pub tris: usize,
    /// Triangles of the ball.
    #[arg(long = "ball-tris", default_value_t = 5_000)]
    pub ball_tris: usize,
    /// Frames.
    #[arg(long, default_value_t = 500)]
    pub frames: usize,
    /// Update methods to compare; `refit!` and `hybrid!` are the same without the rebuild
    /// trigger.
    #[arg(long, num_args = 1.., value_delimiter = ',', default_values_t = ["refit".to_string(), "hybrid".into(), "rebuild".into(), "refit!".into(), "hybrid!".into()])]
    pub updates: Vec<String>,
    /// The scene: `cloth` (a sheet draping over a wobbling ball) or `fold` (a sheet folding
    /// onto itself, its folding half crossing a flat copy of itself: topology far from the
    /// base pose, for the rebuild trigger).
    #[arg(long, default_value = "cloth", value_parser = ["cloth", "fold"])]
    pub scene: String,
    /// Write the scene (a.obj, b.obj, frames/, a.frames, b.frames) into this folder and
    /// stop, for `meshcollide query A B --frames-a a.frames --frames-b b.frames`.
    #[arg(long = "write-frames", value_name = "DIR")]
    pub write_frames: Option<std::path::PathBuf>,
    /// `cpu`, or `gpu`: every update on the GPU (A refitted on the device, B tumbled
    /// exactly), its pairs checked against the CPU's at every frame;
    /// written to `deform-gpu.md` and `.svg`.
    #[arg(long, default_value = "cpu", value_parser = ["cpu", "gpu"])]
    pub backend: String,
    /// Deform this mesh instead of the generated scene (`--scene` and the triangle counts
    /// are then ignored): A is the model, fitted to a cube of side 2, under a smooth field
    /// of amplitude 3 % of its size; B is a copy shifted by 30 % of its size along x, under
    /// the same field a quarter turn of phase later.
    #[arg(long, value_name = "PATH")]
    pub model: Option<std::path::PathBuf>,
}

/// A collider of the chosen backend.
enum Backend<'c> {
    Cpu(Box<DeformingCollider>),
    Gpu(
        &'c crate::gpu::GpuContext,
        Box<crate::gpu::deform::GpuDeformingCollider>,
    ),
}

impl Backend<'_> {
    fn query_frame(
        &mut self,
        fa: &Mesh,
        fb: &Mesh,
        opts: &QueryOptions,
    ) -> Result<crate::deform::FrameResult, crate::error::Error> {
        let (pa, pb) = (Some(&fa.positions[..]), Some(&fb.positions[..]));
        match self {
            Backend::Cpu(c) => c.query_frame(pa, pb, &Pose::IDENTITY, opts),
            Backend::Gpu(ctx, c) => Ok(c.query_frame(ctx, pa, pb, &Pose::IDENTITY, opts)?.0),
        }
    }
}

/// The model of `--model`, fitted to a cube of side 2, with its name; `None` without it.
fn load_model(a: &DeformArgs) -> Result<Option<(Mesh, String)>, Failure> {
    let Some(p) = &a.model else {
        return Ok(None);
    };
    let m = crate::mesh::load(p).map_err(crate::error::Error::from)?;
    Ok(Some((
        crate::experiments::fit_cube(&m),
        p.display().to_string(),
    )))
}

/// The scene at frame `i` of `n` (of `model` when given: see [`DeformArgs::model`]).
fn scene(a: &DeformArgs, model: Option<&Mesh>, i: usize) -> (Mesh, Mesh) {
    let t = i as f64 / (a.frames.max(2) - 1) as f64;
    if let Some(m) = model {
        // fit_cube: side 2; the field's period is the model's size.
        let phase = 4.0 * t;
        return (
            m.map_positions(|p| generate::smooth_field(p, 2.0, 0.03, phase)),
            m.map_positions(|p| {
                let q = generate::smooth_field(p, 2.0, 0.03, phase + std::f64::consts::FRAC_PI_2);
                [q[0] + 0.6, q[1], q[2]]
            }),
        );
    }
    let n = ((a.tris as f64 / 2.0).sqrt().round() as u32).max(1);
    if a.scene == "fold" {
        // The half x > 0 turns by up to 0.95π; B, a flat sheet across the fold, is cut by it.
        let m = ((a.ball_tris as f64 / 2.0).sqrt().round() as u32).max(1);
        return (
            generate::folding_sheet([0.0; 3], n, 4.0, 0.95 * t),
            generate::folding_sheet([0.0; 3], m, 3.0, 0.0)
                .map_positions(|p| [p[0] + 0.5, p[2] + 0.01, p[1] + 0.6]),
        );
    }
    let sheet = generate::draping_sheet([0.0; 3], 1.0, n, 4.0, t);
    let ball = generate::sphere_with_triangles([0.0; 3], 1.0, a.ball_tris)
        .map_positions(|p| generate::smooth_field(p, 2.0, 0.02, 4.0 * t));
    (sheet, ball)
}

fn write_frames(a: &DeformArgs, dir: &Path) -> Result<(), Failure> {
    let io = |e: std::io::Error| crate::cli::output::cannot_write(dir, e);
    std::fs::create_dir_all(dir.join("frames")).map_err(io)?;
    let obj = |m: &Mesh, name: &str| -> Result<(), Failure> {
        use std::fmt::Write;
        let mut s = String::new();
        for p in &m.positions {
            let _ = writeln!(s, "v {} {} {}", p[0], p[1], p[2]);
        }
        for t in &m.triangles {
            let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
        }
        std::fs::write(dir.join(name), s).map_err(io)
    };
    let model = load_model(a)?;
    let model = model.as_ref().map(|m| &m.0);
    let (a0, b0) = scene(a, model, 0);
    obj(&a0, "a.obj")?;
    obj(&b0, "b.obj")?;
    let mut la = String::from("# A, one frame per line (meshcollide bench deform)\n");
    let mut lb = String::from("# B\n");
    for i in 0..a.frames {
        let (fa, fb) = scene(a, model, i);
        obj(&fa, &format!("frames/a-{i:04}.obj"))?;
        obj(&fb, &format!("frames/b-{i:04}.obj"))?;
        la += &format!("frames/a-{i:04}.obj\n");
        lb += &format!("frames/b-{i:04}.obj\n");
    }
    std::fs::write(dir.join("a.frames"), la).map_err(io)?;
    std::fs::write(dir.join("b.frames"), lb).map_err(io)?;
    eprintln!(
        "wrote {} frames of A ({} triangles) and B ({} triangles) into {}",
        a.frames,
        a0.triangle_count(),
        b0.triangle_count(),
        dir.display()
    );
    Ok(())
}

fn parse_update(s: &str) -> Result<DeformOptions, Failure> {
    let (name, trigger) = match s.strip_suffix('!') {
        Some(n) => (n, None),
        None => (s, Some(DEFAULT_REBUILD_RATIO)),
    };
    let method = name
        .parse::<UpdateMethod>()
        .map_err(|e| Failure::Input(e.to_string()))?;
    Ok(DeformOptions {
        method,
        rebuild_ratio: trigger,
    })
}

pub fn run(a: &DeformArgs) -> Result<(), Failure> {
    if let Some(d) = &a.write_frames {
        return write_frames(a, d);
    }
    let bv = a.common.kinds(&[BvKind::Kdop18])[0];
    let methods: Vec<(String, DeformOptions)> = a
        .updates
        .iter()
        .map(|s| parse_update(s).map(|o| (s.clone(), o)))
        .collect::<Result<_, _>>()?;
    let model = load_model(a)?;
    let (a0, b0) = scene(a, model.as_ref().map(|m| &m.0), 0);
    let build = [BuildOptions::default(); 2];
    let what = if let Some((_, name)) = &model {
        format!(
            "A: {name} ({} triangles, fitted to a cube of side 2) under a smooth field of amplitude 0.06, B: a copy 0.6 along x under the field a quarter turn later",
            a0.triangle_count()
        )
    } else if a.scene == "fold" {
        format!(
            "A: a {}-triangle sheet folding onto itself (its half x > 0 turning by up to 0.95π about x = 0), B: a flat {}-triangle sheet across the fold",
            a0.triangle_count(),
            b0.triangle_count()
        )
    } else {
        format!(
            "A: a {}-triangle sheet draping over B, a {}-triangle ball wobbling under a smooth field",
            a0.triangle_count(),
            b0.triangle_count()
        )
    };
    let ctx = match a.backend.as_str() {
        "gpu" => Some(crate::gpu::GpuContext::new().map_err(crate::error::Error::from)?),
        _ => None,
    };
    let mut colliders: Vec<Backend> = Vec::new();
    for (_, o) in &methods {
        let c = DeformingCollider::new(&a0, &b0, bv, build, KdopOptions::default(), *o)?;
        colliders.push(match &ctx {
            None => Backend::Cpu(Box::new(c)),
            Some(ctx) => Backend::Gpu(
                ctx,
                Box::new(crate::gpu::deform::GpuDeformingCollider::new(ctx, c)?),
            ),
        });
    }
    // On the GPU, the CPU's pairs of the first method are the reference at every frame.
    let mut reference = match &ctx {
        None => None,
        Some(_) => {
            let o = methods.first().map_or(DeformOptions::default(), |m| m.1);
            Some(DeformingCollider::new(
                &a0,
                &b0,
                bv,
                build,
                KdopOptions::default(),
                o,
            )?)
        }
    };
    // The cost of refreshing B's tumbling data instead (bounding points, hull): measured
    // once on the sheet, for the notes.
    let t = Instant::now();
    let fly = crate::tumble::FlyingHierarchy::<9>::new(crate::bvh::Bvh::build(&a0, &build[0]));
    let refresh_ms = t.elapsed().as_secs_f64() * 1e3;
    drop(fly);
    #[derive(Default, Clone)]
    struct Acc {
        update: f64,
        query: f64,
        nv: u64,
        np: u64,
        nu: u64,
        refit: u64,
        rebuilds: u64,
        pairs: usize,
        worst: [f64; 2],
        per_frame: Vec<(f64, f64)>,
    }
    let mut acc = vec![Acc::default(); methods.len()];
    let opts = QueryOptions::default();
    let b = bar(a.frames, "frames")?;
    for i in 0..a.frames {
        let (fa, fb) = scene(a, model.as_ref().map(|m| &m.0), i);
        let mut first: Option<Vec<(u32, u32)>> = match &mut reference {
            None => None,
            Some(c) => Some(
                c.query_frame(
                    Some(&fa.positions),
                    Some(&fb.positions),
                    &Pose::IDENTITY,
                    &opts,
                )?
                .pairs,
            ),
        };
        for (m, c) in colliders.iter_mut().enumerate() {
            let t = Instant::now();
            let r = c.query_frame(&fa, &fb, &opts)?;
            let total = t.elapsed().as_secs_f64() * 1e3;
            let s = &mut acc[m];
            let q = total - r.update.update_ms;
            s.update += r.update.update_ms;
            s.query += q;
            s.nv += r.counters.bv_tests;
            s.np += r.counters.tri_tests;
            s.nu += r.counters.bv_updates;
            s.refit += r.update.refit_nodes;
            s.rebuilds += r.update.rebuilds;
            s.pairs += r.pairs.len();
            for k in 0..2 {
                s.worst[k] = s.worst[k].max(r.degradation[k].unwrap_or(1.0));
            }
            s.per_frame.push((r.update.update_ms, q));
            match &first {
                None => first = Some(r.pairs),
                Some(p) if *p != r.pairs => {
                    return Err(Failure::Internal(format!(
                        "frame {i}: --update {} ({}) found {} pairs, {} on the CPU found {}",
                        methods[m].0,
                        a.backend,
                        r.pairs.len(),
                        methods[0].0,
                        p.len()
                    )));
                }
                _ => {}
            }
        }
        b.inc(1);
    }
    b.finish_and_clear();
    let n = a.frames.max(1) as f64;
    let mut table = Table::new(&[
        "update",
        "update ms/frame",
        "query ms/frame",
        "total ms/frame",
        "Nv/frame",
        "Np/frame",
        "Nu/frame",
        "A nodes refit/frame",
        "rebuilds",
        "worst degradation A, B",
        "pairs (all frames)",
    ]);
    let mut upd = Vec::new();
    let mut qry = Vec::new();
    for ((name, _), s) in methods.iter().zip(&acc) {
        table.push(vec![
            name.clone(),
            f(s.update / n, 2),
            f(s.query / n, 2),
            f((s.update + s.query) / n, 2),
            f(s.nv as f64 / n, 0),
            f(s.np as f64 / n, 0),
            f(s.nu as f64 / n, 0),
            f(s.refit as f64 / n, 0),
            s.rebuilds.to_string(),
            format!("{}, {}", f(s.worst[0], 2), f(s.worst[1], 2)),
            s.pairs.to_string(),
        ]);
        let pts = |g: &dyn Fn(&(f64, f64)) -> f64| {
            s.per_frame
                .iter()
                .enumerate()
                .map(|(i, p)| (i as f64, g(p)))
                .collect()
        };
        upd.push(Series {
            name: name.clone(),
            points: pts(&|p| p.0),
        });
        qry.push(Series {
            name: name.clone(),
            points: pts(&|p| p.1),
        });
    }
    let notes = vec![
        format!(
            "{what}; frames of both, identity poses, {} frames, --bv {}, leaf size 1, all contacts",
            a.frames,
            bv.name()
        ),
        format!(
            "`!`: without the rebuild trigger; otherwise a refitted hierarchy is rebuilt past {DEFAULT_REBUILD_RATIO}× its degradation measure after the last build (sum of node k-DOP sizes down to half the depth, over the root's)"
        ),
        "update ms: before the traversal (A's refit or upper half, rebuilds, B's posed refit or upper half, the box pretest); query ms: the traversal, with the hybrid update's lazy nodes; one thread".into(),
        format!(
            "refreshing the approximation method's tumbling data instead (bounding points and hull of A's freshly built hierarchy): {} ms per frame",
            f(refresh_ms, 1)
        ),
        "the pairs of every method are checked equal at every frame".into(),
    ];
    let mut notes = notes;
    let name = match &ctx {
        None => "deform",
        Some(ctx) => {
            notes.push(format!(
                "backend gpu ({}): A refitted on the device before the front expansion (no readback between), B tumbled exactly (Nu: every node of B); update ms: the host's part (positions, rebuild trigger, uploads), query ms: the device's batch and its readbacks; pairs checked against the CPU's",
                ctx.adapter_name()
            ));
            "deform-gpu"
        }
    };
    write_report(
        &a.common.out,
        name,
        "Deforming meshes: refit, hybrid update, rebuild",
        &notes,
        &table,
    )?;
    write_plot(
        &a.common.out,
        name,
        &[
            Panel {
                title: "update per frame".into(),
                x: "frame".into(),
                y: "ms".into(),
                series: upd,
            },
            Panel {
                title: "query per frame".into(),
                x: "frame".into(),
                y: "ms".into(),
                series: qry,
            },
        ],
    )?;
    a.common.wrote(name);
    Ok(())
}
