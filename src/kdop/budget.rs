//! The k-DOP scene's budgeted pose ([`crate::budget`]): the pretest, then the budgeted
//! search on the shared skeleton with the scene's slab test and descent rule.

use super::{KdopScene, KdopWorkspace};
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
        let start = match self.pretest() {
            Some(t) => match t.depth_bound(pose) {
                None => {
                    let c = Counters {
                        bv_tests: 1,
                        ..Default::default()
                    };
                    return (c, PoseStatus::complete(false, 1));
                }
                Some(d) => Start::Pretested(d),
            },
            None => Start::Roots,
        };
        let (env, fly) = (&self.env, &self.fly);
        ws.tumble
            .begin(fly, &fly.local_pose(env.frame(), pose), opts.tumble);
        let mut test = self.slab_test();
        search(
            env,
            fly,
            pose,
            opts.mode,
            budget,
            start,
            &mut ws.tumble,
            &mut test,
            &mut ws.frontier,
            out,
        )
    }
}
