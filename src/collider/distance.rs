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
