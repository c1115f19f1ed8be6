//! The k-DOP scene's budgeted pose ([`crate::budget`]): the pretest, then the budgeted
//! search on the shared skeleton with the scene's slab test and descent rule.

use super::{KdopScene, KdopWorkspace};
use crate::budget::skeleton::Skeleton;
use crate::budget::{Budget, PoseStatus, Start, search};
use crate::pose::Pose;
use crate::scene::{Counters, QueryOptions};

impl<const H: usize> KdopScene<H> {
    /// One pose under `budget` ([`crate::budget`]), appending `(tri_a, tri_b)` in the
    /// meshes' numbering (unsorted) to `out`. The intersection query only (`opts`'
    /// tolerance is not read); temporal coherence is not used (every pose starts at the
    /// roots).
    pub fn collide_budgeted(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        budget: Budget,
        ws: &mut KdopWorkspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> (Counters, PoseStatus) {
        ws.track.forget();
        let Some(start) = pretest_start(self.pretest(), pose) else {
            return separated();
        };
        let (env, fly) = (&self.env, &self.fly);
        ws.tumble
            .begin(fly, &fly.local_pose(env.frame(), pose), opts.tumble);
        let mut test = self.slab_test();
        let mut walk = Skeleton {
            env,
            fly,
            pose,
            mode: opts.mode,
            tumble: &mut ws.tumble,
            test: &mut test,
        };
        let (mut c, status) = search(&mut walk, budget, start, &mut ws.frontier, out);
        c.bv_updates = ws.tumble.updates;
        (c, status)
    }
}

impl<const H: usize> crate::budget::HasFrontier for KdopWorkspace<H> {
    fn frontier(&mut self) -> &mut crate::budget::Frontier {
        &mut self.frontier
    }
}

/// How a budgeted pose starts after the posed-box pretest (when on): `None` when the
/// pretest separates the pose ([`separated`]), else the bound its boxes give the roots.
pub(crate) fn pretest_start(
    pretest: Option<&super::pretest::BoxPretest>,
    pose: &Pose,
) -> Option<Start> {
    match pretest {
        Some(t) => t.depth_bound(pose).map(Start::Pretested),
        None => Some(Start::Roots),
    }
}

/// The answer of a pose the pretest separated: free, complete, one node test.
pub(crate) fn separated() -> (Counters, PoseStatus) {
    let c = Counters {
        bv_tests: 1,
        ..Default::default()
    };
    (c, PoseStatus::complete(false, 1))
}
