//! A budget of node tests per pose on the device ([`crate::budget`], breadth first by whole
//! levels: `src/budget/levels.rs`).
//!
//! The expansion counts, per pose, the node tests of the next level as it pushes them; the
//! hand-over spends them if the budget has room for the whole level, else marks the pose
//! stopped, and the next level hands that pose's pairs, untested, to the leaf list as
//! UNRESOLVED entries, which the triangle tests pass on to the host with the UNSURE pairs
//! (`shaders/front_expand.wgsl`, `budget_skips`, `budget_level`): the first child of each
//! pair of the pose's frontier and which node the pair split, so the host knows the pair
//! ([`GpuScene::collide_budgeted_each`] maps them back) and bounds it
//! ([`crate::Collider::collide_budgeted_gpu`]). The node
//! tests spent, the contacts found and the frontier are the CPU's breadth-first search's,
//! pose by pose (`tests/gpu_budget.rs`); the B nodes tumbled (Nu) may exceed the CPU's by
//! the children of the last level (lazy tumbling places them as they are pushed).

use super::GpuScene;
use super::pair_scene::GpuPairScene;
use super::stats::GpuStats;
use crate::bv::KdopNode;
use crate::gpu::context::{GpuContext, GpuError};
use crate::pose::Pose;
use crate::scene::{Mode, PoseResult};
use crate::tumble::TumbleMethod;

/// The most node tests below the root a budget on the device counts (the top bit of a
/// pose's state is its STOPPED flag).
const MAX_DEVICE_BUDGET: u64 = (1 << 31) - 1;

impl<const H: usize> GpuScene<H> {
    /// The fewest node tests per pose [`GpuScene::collide_budgeted_each`] runs: the
    /// pretest's (when the scene has one), the roots' and level 1's two. A smaller budget
    /// spends at most that many tests a pose, on the host.
    pub fn min_device_budget<S: GpuPairScene<H>>(scene: &S) -> u64 {
        scene.pretest().is_some() as u64 + 3
    }

    /// Every pose under a budget of `nodes` node tests (the pretest's included), breadth
    /// first by whole levels, in pose order to `sink` with its frontier: the node pairs
    /// `(A's node, B's node)` it tested and found overlapping but could not afford to
    /// expand (empty when its search finished; then the result is the unbudgeted query's). The intersection query ([`GpuScene::tolerance`] 0), without
    /// temporal coherence. [`GpuError::InvalidInput`] below
    /// [`GpuScene::min_device_budget`] or with a tolerance.
    #[allow(clippy::too_many_arguments)]
    pub fn collide_budgeted_each<S: GpuPairScene<H>, E: From<GpuError>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        poses: impl IntoIterator<Item = Pose>,
        mode: Mode,
        tumble: TumbleMethod,
        nodes: u64,
        mut sink: impl FnMut(usize, PoseResult<S::Sub>, Vec<(u32, u32)>) -> Result<(), E>,
    ) -> Result<GpuStats, E> {
        let least = Self::min_device_budget(scene);
        if nodes < least {
            return Err(GpuError::InvalidInput(format!(
                "a budget of {nodes} node tests is below the device's least, {least} (the pretest, the roots and level 1): the host answers it"
            ))
            .into());
        }
        if !self.tolerance.is_zero() {
            return Err(GpuError::InvalidInput(
                "a budget applies to the intersection query (tolerance 0)".into(),
            )
            .into());
        }
        // Below the root pair: the pretest and the root test are spent.
        let below = (nodes - scene.pretest().is_some() as u64 - 1).min(MAX_DEVICE_BUDGET);
        self.budget = Some(below as u32);
        let poses = poses.into_iter().map(|p| (p, None));
        let up = [parents(&scene.env().nodes), parents(&scene.fly_bvh().nodes)];
        let r = self.run_each(ctx, scene, poses, mode, tumble, &mut |i, r, children| {
            let frontier = children
                .iter()
                .map(|c| match c.split_a {
                    true => (up[0][c.a as usize], c.b),
                    false => (c.a, up[1][c.b as usize]),
                })
                .collect();
            sink(i, r, frontier)
        });
        self.budget = None;
        r
    }
}

/// Each node's parent (the root's: itself; children are `first` and `first + 1`).
fn parents<const H: usize>(nodes: &[KdopNode<H>]) -> Vec<u32> {
    let mut up = vec![0; nodes.len()];
    for (n, node) in nodes.iter().enumerate() {
        if !node.is_leaf() {
            up[node.first as usize] = n as u32;
            up[node.first as usize + 1] = n as u32;
        }
    }
    up
}
