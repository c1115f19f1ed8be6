//! Both R-trees of a scene behind [`crate::query::PairScene`].

use super::RtreeOptions;
use super::build::Rtree;
use super::collide::{RtreeCounters, RtreeWorkspace, collide_pose};
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::scene::{Counters, NoSub, PairScene, PoseResult, QueryOptions};

/// A's (environment) and B's (flying) R-trees, each in its own frame.
#[derive(Debug)]
pub struct RtreeScene {
    /// A's R-tree.
    pub a: Rtree,
    /// B's R-tree.
    pub b: Rtree,
    /// The fan-out both were built with and the traversal.
    pub options: RtreeOptions,
}

impl RtreeScene {
    /// Builds both R-trees (in parallel) with the same fan-out.
    pub fn build(a: &Mesh, b: &Mesh, options: &RtreeOptions) -> crate::error::Result<RtreeScene> {
        let (ta, tb) = rayon::join(|| Rtree::build(a, options), || Rtree::build(b, options));
        Ok(RtreeScene {
            a: ta?,
            b: tb?,
            options: *options,
        })
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
            self.options.collide,
            &mut RtreeWorkspace::default(),
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
    type Workspace = RtreeWorkspace;
    type Sub = NoSub;

    fn workspace(&self) -> RtreeWorkspace {
        RtreeWorkspace::default()
    }

    fn begin_chunk(&self, ws: &mut RtreeWorkspace) {
        ws.budget.frontier.forget_hot();
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut RtreeWorkspace,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        if !opts.tolerance.is_zero() {
            let (a, b) = (&self.a, &self.b);
            let eps = opts.tolerance.get();
            return crate::proximity::within_every_pair(
                &a.tris,
                &a.tri_index,
                &b.tris,
                &b.tri_index,
                pose,
                opts.mode,
                eps,
                out,
            );
        }
        collide_pose(
            &self.a,
            &self.b,
            pose,
            opts.mode,
            self.options.collide,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boxtree::far;
    use crate::rtree::{RtreeCollide, validate};
    use crate::scene::Mode;
    use crate::scene::brute_force;

    /// Np of both versions over a scene's poses, checking the pairs against brute force
    /// (the f64 oracle) at every pose; also returns the contacts and the empty poses.
    fn run_case(c: &far::Case) -> ([u64; 2], usize, usize) {
        let mut s = RtreeScene::build(&c.a, &c.b, &RtreeOptions::default()).unwrap();
        validate(&s.a, &c.a).unwrap_or_else(|e| panic!("{} A: {e}", c.label));
        validate(&s.b, &c.b).unwrap_or_else(|e| panic!("{} B: {e}", c.label));
        let (mut np, mut contacts, mut empty) = ([0; 2], 0, 0);
        for (i, p) in c.poses.iter().enumerate() {
            let truth = brute_force(&c.a, &c.b, p);
            contacts += truth.len();
            empty += truth.is_empty() as usize;
            for (k, v) in [RtreeCollide::V1, RtreeCollide::V2].into_iter().enumerate() {
                s.options.collide = v;
                let opts = QueryOptions::default();
                let r = s.collide(p, &opts);
                assert_eq!(r.pairs, truth, "{} {v:?} pose {i}", c.label);
                np[k] += r.counters.tri_tests;
                let first = s.collide(
                    p,
                    &QueryOptions {
                        mode: Mode::First,
                        ..opts
                    },
                );
                assert_eq!(first.pairs.is_empty(), truth.is_empty(), "{}", c.label);
            }
        }
        (np, contacts, empty)
    }

    /// Far from the origin (offsets to 10⁷, millimetre features), both versions give brute
    /// force's pairs at every pose, translating and rotating, grazing within the f64
    /// resolution; and they cull as well as the same scene near the origin (Np within 10 %
    /// of it, and below a tenth of all triangle pairs on the tori).
    #[test]
    fn equals_brute_force_far_from_the_origin() {
        for c in far::cases() {
            let all_pairs = (c.a.triangle_count() * c.b.triangle_count() * c.poses.len()) as u64;
            let (np, contacts, empty) = run_case(&c);
            assert!(contacts > 0 && empty > 0, "{}: {contacts} {empty}", c.label);
            if c.grazing {
                continue;
            }
            let (np0, ..) = run_case(&far::near_origin(&c));
            eprintln!("{}: {np:?} near {np0:?} of {all_pairs}", c.label);
            let share = if c.a.triangle_count() > 100 { 10 } else { 2 };
            for k in 0..2 {
                assert!(
                    np[k] * 10 <= np0[k] * 11 && np[k] * share < all_pairs,
                    "{} v{}: Np {} (near the origin {}) of {all_pairs} pairs",
                    c.label,
                    k + 1,
                    np[k],
                    np0[k]
                );
            }
        }
    }
}
