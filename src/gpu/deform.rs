//! Deforming meshes on the GPU (`crate::deform` on the device): per frame the refit of A
//! runs on the device before the front expansion, with no readback between them.
//!
//! Per frame:
//! 1. The host does what the CPU backend does before its traversal
//!    (`DeformingScene::prepare`): checks the positions, sets them (the f64 triangles the
//!    exact test of UNSURE pairs reads), applies the rebuild triggers and the pose-level
//!    box pretest. The triggers are computed on the host from the same data as on the CPU
//!    (A's nodes down to the hybrid cut, B's posed nodes down to the cut: the same bits the
//!    full refit and the exact tumbling give those nodes, so both backends rebuild at the
//!    same frames). This costs a pass over the corners on the host; with no trigger
//!    (`rebuild_ratio: None`, `--rebuild-ratio 0`) it is skipped.
//! 2. A's local f32 triangle corners are written once into the buffer the triangle test
//!    reads (`env_tris`), and the refit ([`super::GpuRefit`], one dispatch for the leaves
//!    and one per level, `shaders/kdop_refit.wgsl`) reads them, each corner a vertex of its
//!    own, and writes A's node array in place (`env_nodes`): one upload per frame, no copy,
//!    no readback. The refit is its own submission, which the queue finishes before the
//!    batch's submission starts, so the expansion reads the refitted nodes. The volumes are
//!    [`crate::Bvh::refit`]'s bit for bit.
//! 3. A deformed B's corners are written into `fly_tris`; B is tumbled by the exact method
//!    (`tumble_exact_leaves`, `tumble_exact_merge`: every node bounded from its posed
//!    corners, the CPU's `TumbleMethod::Exact` bit for bit). A rigid B is tumbled as asked.
//! 4. The batch pipeline of [`super::collide`] runs the frame's pose: one submission, one
//!    readback of the counters and, when there are contacts or UNSURE pairs, one of the
//!    pairs; UNSURE pairs are decided on the host with the frame's f64 positions.
//!
//! A rebuild (by the trigger, `Rebuild`, or a drift of the frame's origin) uploads the new
//! hierarchies (both, with the current corners) and keeps the compiled pipelines.
//!
//! **Coherence across frames** (`KdopOptions::coherence`, all-contacts mode): the CPU's
//! rule of `DeformingScene::query_frame`, frame for frame. Consecutive frames are the
//! steps of one chunk of one lane (`GpuScene::collide_frame`, the machinery of rigid
//! poses in `super::collide::coherent`): each frame starts from the front the previous
//! frame recorded on the device, which stays there (only the lane's count read back); the
//! chunk (front, root Nv, off-switch, frame counter) is kept here between calls, restarted
//! every 16 traversed frames and at every rebuild (new trees), its front forgotten at a
//! frame the pretest separates. So the pairs, Nv, Np and Nu (with the B-root correction
//! of lazy tumbling) are the CPU's coherent run's.
//!
//! **Equal to the CPU.** The pairs are equal (exact decisions). Nv and Np are equal: the
//! node volumes are the same bits and the descent the same rule. Nu (B's nodes tumbled) is
//! equal except with the hybrid update of a deforming B: the CPU bounds B's deeper nodes
//! lazily, the device tumbles all of them (the hybrid update of A and B on the device is the
//! full refit, which gives every node the very bits the hybrid update gives it). The update
//! counters differ the same way: `refit_nodes` counts every node of A per frame on the
//! device. The degradation measures are not computed without a trigger.
//!
//! Limits: A's node array and each mesh's corners must fit one storage binding (no paging
//! here, [`GpuError::TooLarge`] otherwise).

use super::collide::{Capacities, FrameChunk, GpuPairScene, GpuScene, GpuStats};
use super::context::{GpuContext, GpuError};
use super::refit::GpuRefit;
use crate::bv::Kdop;
use crate::bvh::Bvh;
use crate::deform::{AnyDeforming, DeformingCollider, DeformingScene, FrameResult, Prepared};
use crate::kdop::Descent;
use crate::kind::for_each_k;
use crate::scene::{Mode, NoSub, QueryOptions};
use crate::tumble::{FlyingHierarchy, PoseFrame, TumbleMethod};
use crate::{error::Error, pose::Pose};
use std::time::Instant;

impl<const H: usize> GpuPairScene<H> for DeformingScene<H> {
    type Sub = NoSub;
    fn sub(_: [u64; 3]) -> NoSub {
        NoSub
    }
    fn env(&self) -> &Bvh<H> {
        DeformingScene::env(self)
    }
    fn fly_bvh(&self) -> &Bvh<H> {
        &DeformingScene::fly(self).bvh
    }
    fn fly(&self) -> Option<&FlyingHierarchy<H>> {
        Some(DeformingScene::fly(self))
    }
    /// A deformed B has no bounding points: its frames carry the pose only (the exact
    /// method reads nothing else), as the CPU's exact refit makes them.
    fn pose_frames(&self, poses: &[Pose]) -> Vec<PoseFrame<H>> {
        let fly = DeformingScene::fly(self);
        let env = DeformingScene::env(self).frame();
        if fly.deformed {
            poses
                .iter()
                .map(|p| PoseFrame::new(&fly.local_pose(env, p), fly.scale, Kdop::EMPTY))
                .collect()
        } else {
            fly.pose_frames(env, poses)
        }
    }
    fn descent_larger(&self) -> bool {
        self.kdop_options().descent == Descent::Larger
    }
    /// Coherence across frames (`GpuScene::collide_frame`, the chunk held by `Side`).
    fn coherence(&self) -> bool {
        self.kdop_options().coherence
    }
    // No `pretest`: `DeformingScene::prepare` ran it on the host.
}

/// One scene's device side.
struct Device<const H: usize> {
    scene: GpuScene<H>,
    refit: GpuRefit<H>,
    env_tris: wgpu::Buffer,
    fly_tris: wgpu::Buffer,
}

/// The device side of one k, and what the device lacks of the host's state.
struct Side<const H: usize> {
    device: Option<Device<H>>,
    /// A's corners changed on the host since they were last written to the device.
    stale_a: bool,
    /// B's corners changed on the host since they were last written.
    stale_b: bool,
    /// A hierarchy was rebuilt on the host since the device scene was made.
    rebuilt: bool,
    /// Coherence across frames: the chunk of frames being run (its front on the device).
    frames: FrameChunk,
}

impl<const H: usize> Side<H> {
    /// Uploads the scene (its current positions and node arrays) and refits A when its
    /// node volumes on the host are not current.
    fn upload(
        ctx: &GpuContext,
        s: &DeformingScene<H>,
        old: Option<Device<H>>,
        stats: &mut GpuStats,
    ) -> Result<Device<H>, GpuError> {
        let (scene, old_refit) = match old {
            None => (GpuScene::new(ctx, s)?, None),
            Some(d) => (GpuScene::reupload(ctx, s, d.scene)?, Some(d.refit)),
        };
        let Some([nodes, env_tris, fly_tris]) = scene.deform_buffers() else {
            let largest = scene.pages().iter().map(|p| p.2).max().unwrap_or(0);
            return Err(GpuError::TooLarge {
                needed: largest,
                limit: ctx.binding_limit,
            });
        };
        let (env_tris, fly_tris) = (env_tris.clone(), fly_tris.clone());
        let refit = GpuRefit::over_corners(
            ctx,
            DeformingScene::env(s),
            nodes.clone(),
            env_tris.clone(),
            old_refit,
        )?;
        ctx.check()?;
        let d = Device {
            scene,
            refit,
            env_tris,
            fly_tris,
        };
        if !s.env_current() {
            d.refit.submit(ctx);
            stats.dispatches += d.refit.dispatch_count() as u64;
            stats.submissions += 1;
        }
        Ok(d)
    }

    fn query(
        &mut self,
        ctx: &GpuContext,
        s: &mut DeformingScene<H>,
        frames: [Option<&[[f64; 3]]>; 2],
        pose: &Pose,
        opts: &QueryOptions,
    ) -> Result<(FrameResult, GpuStats), Error> {
        let mut stats = GpuStats::default();
        let prepared = s.prepare(frames[0], frames[1], pose, opts, true)?;
        self.stale_a |= frames[0].is_some();
        self.stale_b |= frames[1].is_some();
        let rebuilds = match &prepared {
            Prepared::Done(r) => r.update.rebuilds,
            Prepared::Traverse(up) => up.rebuilds,
        };
        if rebuilds > 0 {
            // New trees: the front names nodes of the old ones (the CPU's `restart`, or B's
            // new workspace).
            self.rebuilt = true;
            self.frames.restart();
        }
        let mut up = match prepared {
            Prepared::Done(r) => {
                // The pretest separated the frame: no front recorded (`forget`).
                self.frames.forget();
                return Ok((r, stats));
            }
            Prepared::Traverse(up) => up,
        };
        let t = Instant::now();
        self.sync(ctx, s, &mut stats)?;
        let d = self.device.as_mut().expect("synced");
        up.update_ms += t.elapsed().as_secs_f64() * 1e3;
        let tumble = if DeformingScene::fly(s).deformed {
            TumbleMethod::Exact
        } else {
            opts.tumble
        };
        // The CPU's rule of `DeformingScene::query_frame`, frame for frame: a tolerance query
        // runs from the roots (the fronts are the intersection query's), its slabs grown by
        // the margins and every triangle pair of its leaf pairs decided by the host
        // (`GpuScene::tolerance`).
        let within = !opts.tolerance.is_zero();
        let r = if !within && s.kdop_options().coherence && opts.mode == Mode::All {
            let (r, batch) = d
                .scene
                .collide_frame(ctx, &*s, *pose, tumble, &mut self.frames)?;
            stats += batch;
            r
        } else {
            if within {
                self.frames.forget();
            } else {
                self.frames.tick();
            }
            let mut result = None;
            d.scene.tolerance = opts.tolerance;
            let batch = d
                .scene
                .collide_each(ctx, &*s, [*pose], opts.mode, tumble, |_, r| {
                    result = Some(r);
                    Ok::<_, GpuError>(())
                });
            d.scene.tolerance = Default::default();
            stats += batch?;
            result.ok_or_else(|| GpuError::InvalidInput("no result for the frame".into()))?
        };
        let mut counters = r.counters;
        counters.bv_tests += s.kdop_options().pretest as u64;
        Ok((
            FrameResult {
                pairs: r.pairs,
                counters,
                update: up,
                degradation: s.degradation(),
            },
            stats,
        ))
    }

    /// Brings the device up to the host's state: the new hierarchies after a rebuild, else
    /// the corners that changed, and A's refit (submitted, not waited for).
    fn sync(
        &mut self,
        ctx: &GpuContext,
        s: &DeformingScene<H>,
        stats: &mut GpuStats,
    ) -> Result<&mut Device<H>, GpuError> {
        if std::mem::take(&mut self.rebuilt) {
            let old = self.device.take();
            self.device = Some(Self::upload(ctx, s, old, stats)?);
            (self.stale_a, self.stale_b) = (false, false);
        }
        let d = match self.device.take() {
            Some(d) => {
                let q = &ctx.queue;
                if self.stale_a {
                    let corners = DeformingScene::env(s).tris.all_corners_f32();
                    q.write_buffer(&d.env_tris, 0, bytemuck::cast_slice(&corners));
                    stats.bytes_uploaded += std::mem::size_of_val(&corners[..]) as u64;
                    // The refit runs on the device; the host's nodes stay stale.
                    d.refit.submit(ctx);
                    stats.dispatches += d.refit.dispatch_count() as u64;
                    stats.submissions += 1;
                }
                if self.stale_b {
                    let corners = DeformingScene::fly(s).bvh.tris.all_corners_f32();
                    q.write_buffer(&d.fly_tris, 0, bytemuck::cast_slice(&corners));
                    stats.bytes_uploaded += std::mem::size_of_val(&corners[..]) as u64;
                }
                d
            }
            None => Self::upload(ctx, s, None, stats)?,
        };
        (self.stale_a, self.stale_b) = (false, false);
        Ok(self.device.insert(d))
    }

    /// A's node array on the device, brought up to the host's positions first.
    fn read_env_nodes(
        &mut self,
        ctx: &GpuContext,
        s: &DeformingScene<H>,
        stats: &mut GpuStats,
    ) -> Result<Vec<u8>, GpuError> {
        let d = self.sync(ctx, s, stats)?;
        let nodes = d.refit.read_nodes(ctx)?;
        Ok(bytemuck::cast_slice(&nodes).to_vec())
    }
}

/// The device's k differs from the host's (a side built for another collider).
fn mismatch() -> Error {
    GpuError::InvalidInput("the device scene's k differs from the host's".into()).into()
}

enum AnySide {
    Kdop6(Side<3>),
    Kdop14(Side<7>),
    Kdop18(Side<9>),
    Kdop26(Side<13>),
}

/// [`DeformingCollider`] on the GPU: the same frames, the same pairs (module docs for the
/// counters), the refit of A on the device before the expansion with no readback between.
///
/// ```no_run
/// use meshcollide::deform::{DeformOptions, DeformingCollider};
/// use meshcollide::gpu::{GpuContext, deform::GpuDeformingCollider};
/// use meshcollide::{mesh::generate, BvKind, Pose, QueryOptions};
/// let ctx = GpuContext::new()?;
/// let a = generate::torus([0.0; 3], 1.0, 0.3, 24, 12);
/// let b = generate::torus([1.0, 0.0, 0.0], 1.0, 0.3, 24, 12);
/// let cpu = DeformingCollider::new(&a, &b, BvKind::Kdop18, Default::default(),
///     Default::default(), DeformOptions::default())?;
/// let mut c = GpuDeformingCollider::new(&ctx, cpu)?;
/// let thinner = generate::torus([0.0; 3], 1.0, 0.1, 24, 12);
/// let (r, _) = c.query_frame(&ctx, Some(&thinner.positions), None, &Pose::IDENTITY,
///     &QueryOptions::default())?;
/// assert!(!r.pairs.is_empty());
/// # Ok::<(), meshcollide::Error>(())
/// ```
pub struct GpuDeformingCollider {
    cpu: DeformingCollider,
    side: AnySide,
    stats: GpuStats,
}

impl std::fmt::Debug for GpuDeformingCollider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuDeformingCollider")
            .field("cpu", &self.cpu)
            .finish()
    }
}

impl GpuDeformingCollider {
    /// Uploads `cpu`'s hierarchies (its current state) and compiles the pipelines.
    pub fn new(ctx: &GpuContext, cpu: DeformingCollider) -> Result<Self, Error> {
        let mut stats = GpuStats::default();
        fn side<const H: usize>(
            ctx: &GpuContext,
            s: &DeformingScene<H>,
            stats: &mut GpuStats,
        ) -> Result<Side<H>, GpuError> {
            Ok(Side {
                device: Some(Side::upload(ctx, s, None, stats)?),
                stale_a: false,
                stale_b: false,
                rebuilt: false,
                frames: FrameChunk::default(),
            })
        }
        let side =
            for_each_k!(map cpu.scene(), AnyDeforming(s) => AnySide(side(ctx, s, &mut stats)?));
        Ok(GpuDeformingCollider { cpu, side, stats })
    }

    /// Queries one frame, as [`DeformingCollider::query_frame`]; also returns what the
    /// device did for it (refit submissions and dispatches included; added to
    /// [`GpuDeformingCollider::stats`]).
    pub fn query_frame(
        &mut self,
        ctx: &GpuContext,
        frame_a: Option<&[[f64; 3]]>,
        frame_b: Option<&[[f64; 3]]>,
        pose: &Pose,
        opts: &QueryOptions,
    ) -> Result<(FrameResult, GpuStats), Error> {
        let frames = [frame_a, frame_b];
        let (r, s) = for_each_k!((self.cpu.scene_mut(), &mut self.side),
            (AnyDeforming(s), AnySide(d)) => d.query(ctx, s, frames, pose, opts),
            _ => Err(mismatch()),
        )?;
        self.stats += s.clone();
        Ok((r, s))
    }

    /// Capacities of the next frame's batch ([`GpuScene::capacities`]; tests shrink them to
    /// force the overflow and resume path). Afterwards they follow what the frames needed.
    pub fn set_capacities(&mut self, caps: Capacities) {
        fn set<const H: usize>(side: &mut Side<H>, caps: Capacities) {
            if let Some(d) = &mut side.device {
                d.scene.capacities = caps;
            }
        }
        for_each_k!(&mut self.side, AnySide(d) => set(d, caps))
    }

    /// The device's work so far (the first upload and every frame).
    pub fn stats(&self) -> &GpuStats {
        &self.stats
    }

    /// The host side (hierarchies, positions).
    pub fn cpu(&self) -> &DeformingCollider {
        &self.cpu
    }

    /// A's node array as refitted on the device (the bytes of `Bvh::nodes`), read back: a
    /// check for tests against [`crate::Bvh::refit`], costs a readback.
    pub fn read_env_nodes(&mut self, ctx: &GpuContext) -> Result<Vec<u8>, Error> {
        let stats = &mut self.stats;
        for_each_k!((self.cpu.scene_mut(), &mut self.side),
            (AnyDeforming(s), AnySide(d)) => d.read_env_nodes(ctx, s, stats).map_err(Error::from),
            _ => Err(mismatch()),
        )
    }

    /// Brings the host's node volumes up to date and runs the hierarchy validator
    /// ([`DeformingCollider::validate`]).
    pub fn validate(&mut self) -> Result<(), Error> {
        self.cpu.validate()
    }
}
