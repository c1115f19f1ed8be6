//! Both R-trees of a scene behind [`crate::query::PairScene`].

use super::collide::{RtreeCounters, Scratch, collide_pose};
use super::{Rtree, RtreeOptions};
use crate::Pose;
use crate::mesh::Mesh;
use crate::query::{PairScene, PoseResult, QueryOptions};
use crate::traverse::Counters;

/// A's (environment) and B's (flying) R-trees, each in its own frame.
#[derive(Debug)]
pub struct RtreeScene {
    pub a: Rtree,
    pub b: Rtree,
}

/// Per-thread scratch arrays of [`RtreeScene`].
pub type RtreeWorkspace = Scratch;

impl RtreeScene {
    /// Builds both R-trees (in parallel) with the same fan-out.
    pub fn build(a: &Mesh, b: &Mesh, options: &RtreeOptions) -> crate::Result<RtreeScene> {
        let (ta, tb) = rayon::join(|| Rtree::build(a, options), || Rtree::build(b, options));
        Ok(RtreeScene { a: ta?, b: tb? })
    }

    /// One pose with all of the R-tree's counters, and `visits[i]` = how often node `i` of
    /// A was visited (tests check version 2 visits each at most once).
    pub fn collide_traced(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
    ) -> (PoseResult, RtreeCounters, Vec<u32>) {
        let mut visits = vec![0u32; self.a.nodes.len()];
        let mut pairs = Vec::new();
        let c = collide_pose(
            &self.a,
            &self.b,
            pose,
            opts.mode,
            opts.rtree_collide,
            &mut Scratch::default(),
            &mut pairs,
            &mut |i| visits[i] += 1,
        );
        pairs.sort_unstable();
        pairs.dedup();
        let r = PoseResult {
            pairs,
            counters: c.counters(),
        };
        (r, c, visits)
    }
}

impl PairScene for RtreeScene {
    type Workspace = Scratch;

    fn workspace(&self) -> Scratch {
        Scratch::default()
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut Scratch,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        collide_pose(
            &self.a,
            &self.b,
            pose,
            opts.mode,
            opts.rtree_collide,
            ws,
            out,
            &mut |_| {},
        )
        .counters()
    }

    /// Nodes include the triangle entries (each a box record of a leaf); bytes are
    /// [`Rtree::bytes`].
    fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        [&self.a, &self.b].map(|t| (t.nodes.len() + t.tri_index.len(), t.bytes()))
    }

    fn depths(&self) -> [u32; 2] {
        [self.a.depth, self.b.depth]
    }
}
