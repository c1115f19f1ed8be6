//! The collider's distance query ([`crate::proximity::distance`]): every pose in parallel
//! over fixed chunks of poses, streamed to a sink in pose order.

use super::{AnyScene, Collider};
use crate::bvh::Bvh;
use crate::error::{Error, Result};
use crate::pose::Pose;
use crate::proximity::distance::{
    DISTANCE_TREES, DistanceVolumes, DistanceWorkspace, PoseDistance, distance_pose,
};
use crate::scene::{POSE_CHUNK, STREAM_CHUNK, WorkspacePool};
use rayon::prelude::*;

impl Collider {
    /// The minimum distance between the meshes at each pose, with a witness pair of
    /// triangles and its closest points ([`PoseDistance`]; the method and what is exact:
    /// [`crate::proximity::distance`]). With `upto = Some(d)` a pose farther apart than
    /// `d` has an infinite distance and no witness, and its search stops early.
    ///
    /// Runs on the binary trees of triangles, whatever volumes the queries use there (the
    /// bounds are the distance's own certified boxes, [`DistanceVolumes`]): `kdop6`–`kdop26`,
    /// the dual hierarchies, `obb`, `sphere` and `auto`'s kdop18 tree; the boxtree and the
    /// R-tree give [`Error::InvalidOption`], as does an `upto` that is negative, NaN or
    /// infinite.
    pub fn distance_batch(&self, poses: &[Pose], upto: Option<f64>) -> Result<Vec<PoseDistance>> {
        let mut out = Vec::with_capacity(poses.len());
        self.distance_stream(poses.iter().copied(), upto, |_, d| {
            out.push(d);
            Ok(())
        })?;
        Ok(out)
    }

    /// Builds the node volumes the distance query bounds with (certified spheres and
    /// boxes of both hierarchies, [`DistanceVolumes`]) now rather than in the first
    /// distance call; the collider keeps them. Errors as [`Collider::distance_batch`] on a
    /// hierarchy without k-DOPs.
    pub fn prepare_distance(&self) -> Result<()> {
        macro_rules! go {
            ($env:expr, $fly:expr) => {{
                self.volumes($env, $fly);
                Ok(())
            }};
        }
        distance_scene!(self, go)
    }

    /// The distance volumes of the collider's hierarchies, built on first use.
    fn volumes<const H: usize>(&self, env: &Bvh<H>, fly: &Bvh<H>) -> &DistanceVolumes {
        self.distance_volumes
            .get_or_init(|| DistanceVolumes::new(env, fly))
    }

    /// [`Collider::distance_batch`] streamed: each pose's answer goes to `sink` in pose
    /// order with its index, poses read a chunk at a time (memory does not grow with the
    /// number of poses); the first error of `sink` ends the run and is returned.
    pub fn distance_stream(
        &self,
        poses: impl IntoIterator<Item = Pose>,
        upto: Option<f64>,
        sink: impl FnMut(usize, PoseDistance) -> Result<()>,
    ) -> Result<()> {
        let upto = match upto {
            Some(d) => Some(crate::proximity::Tolerance::new(d, "upto")?.get()),
            None => None,
        };
        let chunk = self.chunk.unwrap_or(STREAM_CHUNK);
        macro_rules! go {
            ($env:expr, $fly:expr) => {{
                let vols = self.volumes($env, $fly);
                stream($env, $fly, vols, poses, upto, chunk, sink)
            }};
        }
        distance_scene!(self, go)
    }
}

/// Runs the macro `$go` on A's and B's binary trees of the collider's hierarchy (`auto`:
/// its kdop18 scene's), or refuses the others by name.
macro_rules! distance_scene {
    ($c:expr, $go:ident) => {
        match &$c.scene {
            AnyScene::Kdop6(s) => $go!(&s.env, &s.fly.bvh),
            AnyScene::Kdop14(s) => $go!(&s.env, &s.fly.bvh),
            AnyScene::Kdop18(s) => $go!(&s.env, &s.fly.bvh),
            AnyScene::Kdop26(s) => $go!(&s.env, &s.fly.bvh),
            AnyScene::Dual6(s) => $go!(&s.env, &s.fly.bvh),
            AnyScene::Dual14(s) => $go!(&s.env, &s.fly.bvh),
            AnyScene::Dual18(s) => $go!(&s.env, &s.fly.bvh),
            AnyScene::Dual26(s) => $go!(&s.env, &s.fly.bvh),
            AnyScene::Obb(s) => $go!(&s.env, &s.fly),
            AnyScene::Sphere(s) => $go!(&s.env, &s.fly),
            AnyScene::Auto(s) => $go!(&s.kdop.env, &s.kdop.fly.bvh),
            other => Err(Error::InvalidOption(format!(
                "{} {}",
                DISTANCE_TREES,
                other.kind().name()
            ))),
        }
    };
}
use distance_scene;

/// The poses of `poses` a chunk at a time, each chunk's poses in parallel over fixed runs
/// of [`POSE_CHUNK`] (so the answers do not depend on the thread count: each run starts
/// afresh, [`DistanceWorkspace::restart`]), the answers given to `sink` in order.
#[allow(clippy::too_many_arguments)] // the query's inputs, passed through
fn stream<const H: usize>(
    env: &Bvh<H>,
    fly: &Bvh<H>,
    vols: &DistanceVolumes,
    poses: impl IntoIterator<Item = Pose>,
    upto: Option<f64>,
    chunk: usize,
    mut sink: impl FnMut(usize, PoseDistance) -> Result<()>,
) -> Result<()> {
    let pool = WorkspacePool::<DistanceWorkspace>::default();
    let mut poses = poses.into_iter();
    let mut next = 0usize;
    let mut block = Vec::with_capacity(chunk.max(1));
    loop {
        block.clear();
        block.extend(poses.by_ref().take(chunk.max(1)));
        if block.is_empty() {
            return Ok(());
        }
        let answers: Vec<Vec<PoseDistance>> = block
            .par_chunks(POSE_CHUNK)
            .map(|run| {
                let mut ws = pool
                    .take()
                    .unwrap_or_else(|| Box::new(DistanceWorkspace::new(fly)));
                ws.restart();
                let r = run
                    .iter()
                    .map(|p| distance_pose(env, fly, vols, p, upto, &mut ws))
                    .collect();
                pool.put(ws);
                r
            })
            .collect();
        for d in answers.into_iter().flatten() {
            sink(next, d)?;
            next += 1;
        }
    }
}

/// The distance query on the GPU ([`Collider::distance_stream_gpu`]).
#[cfg(feature = "gpu")]
mod on_gpu {
    use super::*;
    use crate::gpu::GpuContext;
    use crate::gpu::collide::{GpuPairScene, GpuStats};
    use crate::proximity::distance::{distance_of_pairs, distance_upper};
    use crate::scene::{Counters, PoseResult};

    impl Collider {
        /// [`Collider::distance_batch`] on the GPU: the same answers, field for field, plus
        /// what the GPU did. Per pose the host finds a certified upper bound `U` (the
        /// previous pose's greedy pair and one greedy descent, measured exactly,
        /// [`distance_upper`]); the device prunes every node pair farther apart than
        /// `min(U, upto)` with B's tumbled k-DOPs grown by it and returns the triangle pairs
        /// within it ([`crate::gpu::collide::GpuScene::within_each`], decided exactly), and
        /// the host keeps their exact minimum ([`distance_of_pairs`]; why that is the
        /// answer: [`crate::proximity::distance`]).
        ///
        /// Runs on the k-DOP trees (`kdop6`–`kdop26` and `auto`'s kdop18 tree); the others
        /// give [`crate::gpu::GpuError::DistanceUnsupported`] (the dual, OBB and sphere
        /// trees answer on the CPU) or [`crate::gpu::GpuError::Unsupported`].
        pub fn distance_batch_gpu(
            &self,
            ctx: &GpuContext,
            poses: &[Pose],
            upto: Option<f64>,
        ) -> Result<(Vec<PoseDistance>, GpuStats)> {
            let mut out = Vec::with_capacity(poses.len());
            let stats = self.distance_stream_gpu(ctx, poses.iter().copied(), upto, |_, d| {
                out.push(d);
                Ok(())
            })?;
            Ok((out, stats))
        }

        /// [`Collider::distance_batch_gpu`] streamed as [`Collider::distance_stream`].
        pub fn distance_stream_gpu(
            &self,
            ctx: &GpuContext,
            poses: impl IntoIterator<Item = Pose>,
            upto: Option<f64>,
            sink: impl FnMut(usize, PoseDistance) -> Result<()>,
        ) -> Result<GpuStats> {
            let upto = match upto {
                Some(d) => Some(crate::proximity::Tolerance::new(d, "upto")?.get()),
                None => None,
            };
            macro_rules! go {
                ($s:expr) => {
                    self.distance_gpu_run(ctx, $s, poses, upto, sink)
                };
            }
            match &self.scene {
                AnyScene::Kdop6(s) => go!(s),
                AnyScene::Kdop14(s) => go!(s),
                AnyScene::Kdop18(s) => go!(s),
                AnyScene::Kdop26(s) => go!(s),
                AnyScene::Auto(s) => go!(&s.kdop),
                other => {
                    let bv = other.kind().name();
                    Err(match other {
                        AnyScene::Boxtree(_) | AnyScene::Rtree(_) => {
                            crate::gpu::GpuError::Unsupported { bv }
                        }
                        _ => crate::gpu::GpuError::DistanceUnsupported { bv },
                    }
                    .into())
                }
            }
        }

        /// [`Collider::distance_stream_gpu`] on one scene.
        fn distance_gpu_run<const H: usize, S: GpuPairScene<H> + 'static>(
            &self,
            ctx: &GpuContext,
            s: &S,
            poses: impl IntoIterator<Item = Pose>,
            upto: Option<f64>,
            mut sink: impl FnMut(usize, PoseDistance) -> Result<()>,
        ) -> Result<GpuStats> {
            let (env, fly) = (s.env(), s.fly_bvh());
            if env.triangle_count() == 0 || fly.triangle_count() == 0 {
                // No triangle pair: no bound, nothing for the device.
                for (i, _) in poses.into_iter().enumerate() {
                    sink(i, PoseDistance::none(Counters::default()))?;
                }
                return Ok(GpuStats::default());
            }
            let vols = self.volumes(env, fly);
            let limit = upto.unwrap_or(f64::INFINITY);
            let pool = WorkspacePool::<DistanceWorkspace>::default();
            let chunk = self.chunk.unwrap_or(STREAM_CHUNK).max(1);
            let mut stats = GpuStats::default();
            let mut poses = poses.into_iter();
            let mut next = 0usize;
            loop {
                let block: Vec<Pose> = poses.by_ref().take(chunk).collect();
                if block.is_empty() {
                    return Ok(stats);
                }
                // The host's bounds, in parallel over fixed runs (as the CPU's search).
                let bounds: Vec<(f64, Counters)> = block
                    .par_chunks(POSE_CHUNK)
                    .map(|run| {
                        let mut ws = pool
                            .take()
                            .unwrap_or_else(|| Box::new(DistanceWorkspace::new(fly)));
                        ws.restart();
                        let r: Vec<(f64, Counters)> = run
                            .iter()
                            .map(|p| {
                                let mut c = Counters::default();
                                let u = distance_upper(env, fly, vols, p, &mut ws, &mut c);
                                (u.expect("both meshes have triangles").min(limit), c)
                            })
                            .collect();
                        pool.put(ws);
                        r
                    })
                    .flatten()
                    .collect();
                // First every pose at 0 (the intersection query, cheap where the meshes
                // are apart): a pose with crossing pairs is at distance 0, and its pairs are
                // all the pairs at 0. The others at their bound.
                let mut found: Vec<Option<PoseResult<S::Sub>>> =
                    (0..block.len()).map(|_| None).collect();
                let at_zero = block.iter().map(|&p| (p, 0.0));
                stats += self.within_gpu(ctx, s, at_zero, |i, r| {
                    found[i] = Some(r);
                    Ok(())
                })?;
                let apart: Vec<usize> = (0..block.len())
                    .filter(|&i| found[i].as_ref().is_some_and(|r| r.pairs.is_empty()))
                    .collect();
                let mut second: Vec<Option<PoseResult<S::Sub>>> =
                    (0..block.len()).map(|_| None).collect();
                let at_bound = apart.iter().map(|&i| (block[i], bounds[i].0));
                stats += self.within_gpu(ctx, s, at_bound, |k, r| {
                    second[apart[k]] = Some(r);
                    Ok(())
                })?;
                let answers: Vec<PoseDistance> = (0..block.len())
                    .into_par_iter()
                    .map(|i| {
                        let mut c = bounds[i].1;
                        let mut pairs: &[(u32, u32)] = &[];
                        for r in [&found[i], &second[i]].into_iter().flatten() {
                            c.bv_tests += r.counters.bv_tests;
                            c.bv_updates += r.counters.bv_updates;
                            c.tri_tests += r.counters.tri_tests;
                            pairs = &r.pairs;
                        }
                        distance_of_pairs(env, fly, vols, &block[i], pairs, c)
                    })
                    .collect();
                for d in answers {
                    sink(next, d)?;
                    next += 1;
                }
            }
        }

        /// [`crate::gpu::collide::GpuScene::within_each`] on the collider's kept scene.
        fn within_gpu<const H: usize, S: GpuPairScene<H> + 'static>(
            &self,
            ctx: &GpuContext,
            s: &S,
            poses: impl IntoIterator<Item = (Pose, f64)>,
            sink: impl FnMut(usize, PoseResult<S::Sub>) -> Result<()>,
        ) -> Result<GpuStats> {
            self.gpu.with(ctx, s, |g| {
                g.max_batch_poses = self.chunk.unwrap_or(crate::gpu::collide::MAX_BATCH_POSES);
                g.within_each(ctx, s, poses, sink)
            })
        }
    }
}
