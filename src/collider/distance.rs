//! The collider's distance query ([`crate::proximity::distance`]): every pose in parallel
//! over fixed chunks of poses, streamed to a sink in pose order.

use super::{AnyScene, Collider};
use crate::bvh::Bvh;
use crate::error::{Error, Result};
use crate::pose::Pose;
use crate::proximity::distance::{DistanceWorkspace, PoseDistance, distance_pose};
use crate::proximity::spheres::NodeSpheres;
use crate::scene::{POSE_CHUNK, STREAM_CHUNK, TumbleMethod, WorkspacePool};
use crate::tumble::FlyingHierarchy;
use rayon::prelude::*;

impl Collider {
    /// The minimum distance between the meshes at each pose, with a witness pair of
    /// triangles and its closest points ([`PoseDistance`]; the method and what is exact:
    /// [`crate::proximity::distance`]). With `upto = Some(d)` a pose farther apart than
    /// `d` has an infinite distance and no witness, and its search stops early.
    ///
    /// Runs on the k-DOP hierarchies: `kdop6`–`kdop26`, the dual hierarchies' k-DOPs and
    /// `auto`'s kdop18 tree; the other hierarchies give [`Error::InvalidOption`], as does
    /// an `upto` that is negative, NaN or infinite.
    pub fn distance_batch(&self, poses: &[Pose], upto: Option<f64>) -> Result<Vec<PoseDistance>> {
        let mut out = Vec::with_capacity(poses.len());
        self.distance_stream(poses.iter().copied(), upto, |_, d| {
            out.push(d);
            Ok(())
        })?;
        Ok(out)
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
        let method = self.query.tumble;
        macro_rules! go {
            ($s:expr) => {
                stream(&$s.env, &$s.fly, method, poses, upto, chunk, sink)
            };
        }
        match &self.scene {
            AnyScene::Kdop6(s) => go!(s),
            AnyScene::Kdop14(s) => go!(s),
            AnyScene::Kdop18(s) => go!(s),
            AnyScene::Kdop26(s) => go!(s),
            AnyScene::Dual6(s) => go!(s),
            AnyScene::Dual14(s) => go!(s),
            AnyScene::Dual18(s) => go!(s),
            AnyScene::Dual26(s) => go!(s),
            AnyScene::Auto(s) => go!(s.kdop),
            other => Err(Error::InvalidOption(format!(
                "the distance query runs on the k-DOP hierarchies (auto, kdop6, kdop14, kdop18, kdop26, dual6, dual14, dual18, dual26); {} has none",
                other.kind().name()
            ))),
        }
    }
}

/// The poses of `poses` a chunk at a time, each chunk's poses in parallel over fixed runs
/// of [`POSE_CHUNK`] (so the answers do not depend on the thread count: each run starts
/// afresh, [`DistanceWorkspace::restart`]), the answers given to `sink` in order.
fn stream<const H: usize>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    method: TumbleMethod,
    poses: impl IntoIterator<Item = Pose>,
    upto: Option<f64>,
    chunk: usize,
    mut sink: impl FnMut(usize, PoseDistance) -> Result<()>,
) -> Result<()> {
    let pool = WorkspacePool::<DistanceWorkspace<H>>::default();
    let spheres = [NodeSpheres::new(env), NodeSpheres::new(&fly.bvh)];
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
                    .map(|p| distance_pose(env, fly, &spheres, p, method, upto, &mut ws))
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
