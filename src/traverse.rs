//! The traversal skeleton shared by the k-DOP and the dual k-DOP–sphere hierarchies:
//! Algorithm 1 of Klosowski et al. ("Efficient Collision Detection Using Bounding Volume
//! Hierarchies of k-DOPs", 1998, section 4.2), the simultaneous depth-first descent of the
//! environment hierarchy A and the flying hierarchy B, with an explicit stack instead of
//! recursion, generic over the node test (`NodeTest`).
//!
//! Descent rule: on overlap, descend A while its node is internal and the test prefers A
//! (`NodeTest::prefer_a`; Algorithm 1 always does); then B; at two leaves, test every
//! triangle of A's leaf against every triangle of B's leaf. Children are visited first-child
//! first. The GPU pipeline runs the same rule, so both test the same node pairs.
//!
//! Counters (the paper's cost model T = Nv·Cv + Np·Cp + Nu·Cu): Nv = node tests, Np =
//! triangle–triangle tests; Nu is the caller's (what its tumbling moved).

use crate::bvh::Bvh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, SubCounters};
use crate::tri::{P3, tri_tri_intersect};
use crate::tumble::{FlyingHierarchy, TumbleWorkspace};

/// The node-pair test of a hierarchy built on [`Bvh`] and tumbled by [`TumbleWorkspace`].
pub(crate) trait NodeTest<const H: usize> {
    /// The hierarchy's sub-counters.
    type Sub: SubCounters;
    /// Whether node `e` of A and node `f` of B may overlap (conservatively), counting the
    /// test's sub-tests in `sub`.
    fn overlaps(
        &mut self,
        tumble: &mut TumbleWorkspace<H>,
        e: usize,
        f: usize,
        sub: &mut Self::Sub,
    ) -> bool;
    /// With both nodes internal and overlapping, whether to descend A (else B). Called
    /// right after [`NodeTest::overlaps`] returned true for the same pair.
    #[inline]
    fn prefer_a(&mut self, _tumble: &mut TumbleWorkspace<H>, _e: usize, _f: usize) -> bool {
        true
    }
    /// The exact test of two triangles at a leaf pair whose volumes passed
    /// [`NodeTest::overlaps`]: intersection, or for a tolerance query
    /// ([`crate::proximity`]) the distance test its volumes were grown for.
    #[inline(always)]
    fn tri_hit(&self, a: &[P3; 3], b: &[P3; 3]) -> bool {
        tri_tri_intersect(a, b)
    }
}

/// Runs the descent for one pose (the tumbling workspace already begun for it), appending
/// `(tri_a, tri_b)` in the meshes' own triangle numbering (unsorted) to `out`. Nu is left 0.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn descend<const H: usize, T: NodeTest<H>>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    pose: &Pose,
    mode: Mode,
    tumble: &mut TumbleWorkspace<H>,
    stack: &mut Vec<(u32, u32)>,
    test: &mut T,
    out: &mut Vec<(u32, u32)>,
) -> Counters<T::Sub> {
    stack.clear();
    stack.push((0, 0));
    descend_from(env, fly, pose, mode, tumble, stack, test, out, None)
}

/// [`descend`] from the node pairs already on `stack` instead of the roots, recording in
/// `front` (when given) the pairs where it stopped: those found disjoint and the leaf pairs.
///
/// Any start works if its pairs *partition* A's triangles × B's triangles (each triangle
/// pair under exactly one start pair): the descent below each start pair prunes only pairs
/// whose volumes are disjoint at this pose, so every intersecting triangle pair is found,
/// and tested once. The roots are such a partition, and so is every recorded front (each
/// split replaces a pair by two pairs covering its product), whichever pose and descent
/// rule made it: coherent poses start from the previous pose's front and skip the tests
/// above it, with the same pairs.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn descend_from<const H: usize, T: NodeTest<H>>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    pose: &Pose,
    mode: Mode,
    tumble: &mut TumbleWorkspace<H>,
    stack: &mut Vec<(u32, u32)>,
    test: &mut T,
    out: &mut Vec<(u32, u32)>,
    mut front: Option<&mut Vec<(u32, u32)>>,
) -> Counters<T::Sub> {
    let mut c = Counters::<T::Sub>::default();
    'outer: while let Some((e, f)) = stack.pop() {
        let (e, f) = (e as usize, f as usize);
        let ne = &env.nodes[e];
        c.bv_tests += 1;
        if !test.overlaps(tumble, e, f, &mut c.sub) {
            if let Some(fr) = front.as_deref_mut() {
                fr.push((e as u32, f as u32));
            }
            continue;
        }
        let nf = &fly.bvh.nodes[f];
        if !ne.is_leaf() && (nf.is_leaf() || test.prefer_a(tumble, e, f)) {
            stack.push((ne.first + 1, f as u32));
            stack.push((ne.first, f as u32));
            continue;
        }
        if !nf.is_leaf() {
            stack.push((e as u32, nf.first + 1));
            stack.push((e as u32, nf.first));
            continue;
        }
        if let Some(fr) = front.as_deref_mut() {
            fr.push((e as u32, f as u32));
        }
        if leaf_pair(env, fly, pose, mode, tumble, &*test, e, f, out, &mut c) {
            break 'outer;
        }
    }
    c
}

/// The triangle tests of the leaf pair `(e, f)`, whose volumes overlap, by
/// [`NodeTest::tri_hit`]; true when `mode` stops at the contact found.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn leaf_pair<const H: usize, S, T: NodeTest<H>>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    pose: &Pose,
    mode: Mode,
    tumble: &mut TumbleWorkspace<H>,
    test: &T,
    e: usize,
    f: usize,
    out: &mut Vec<(u32, u32)>,
    c: &mut Counters<S>,
) -> bool {
    let (ne, nf) = (&env.nodes[e], &fly.bvh.nodes[f]);
    let tris_b = tumble.leaf_triangles(fly, pose, f);
    for pa in ne.first..ne.first + ne.count {
        let ta = env.tris.corners_f64(pa as usize);
        for (j, tb) in tris_b.iter().enumerate() {
            c.tri_tests += 1;
            if test.tri_hit(&ta, tb) {
                out.push((
                    env.tri_index[pa as usize],
                    fly.bvh.tri_index[nf.first as usize + j],
                ));
                if mode == Mode::First {
                    return true;
                }
            }
        }
    }
    false
}

/// A scene that can answer a pose level by level, for the probe that picks a volume
/// (`crate::auto`): begin the pose, expand a front of node pairs one level at a time
/// (children of overlapping internal pairs to `next`, overlapping leaf pairs to `leaves`),
/// and finish from any front; the same contacts as [`crate::scene::PairScene::collide_into`],
/// by [`descend_from`]'s partition argument.
pub(crate) trait LevelScene: crate::scene::PairScene {
    /// Starts `pose`; false (and one test counted by the caller) when the scene's posed-box
    /// pretest separates it.
    fn level_begin(
        &self,
        pose: &Pose,
        opts: &crate::scene::QueryOptions,
        ws: &mut Self::Workspace,
    ) -> bool;
    /// Tests every pair of `front` at the begun pose (Nv and Nu in the counters).
    fn level_expand(
        &self,
        pose: &Pose,
        ws: &mut Self::Workspace,
        front: &[(u32, u32)],
        next: &mut Vec<(u32, u32)>,
        leaves: &mut Vec<(u32, u32)>,
    ) -> Counters;
    /// The triangle tests of `leaves`, leaf pairs [`LevelScene::level_expand`] found
    /// overlapping at the begun pose (not tested again).
    fn level_leaves(
        &self,
        pose: &Pose,
        mode: Mode,
        ws: &mut Self::Workspace,
        leaves: &[(u32, u32)],
        out: &mut Vec<(u32, u32)>,
    ) -> Counters;
    /// Descends from `start` (a front of the begun pose) to the contacts.
    fn level_finish(
        &self,
        pose: &Pose,
        mode: Mode,
        ws: &mut Self::Workspace,
        start: &[(u32, u32)],
        out: &mut Vec<(u32, u32)>,
    ) -> Counters;
}

/// One level of [`descend`]'s rule, breadth first ([`LevelScene::level_expand`] of the
/// k-DOP scene): the pairs of `front` tested, children of overlapping internal pairs
/// pushed to `next` first child first, overlapping leaf pairs to `leaves`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn expand_level<const H: usize, T: NodeTest<H>>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    tumble: &mut TumbleWorkspace<H>,
    test: &mut T,
    front: &[(u32, u32)],
    next: &mut Vec<(u32, u32)>,
    leaves: &mut Vec<(u32, u32)>,
) -> Counters<T::Sub> {
    let mut c = Counters::<T::Sub>::default();
    for &(e, f) in front {
        let (e, f) = (e as usize, f as usize);
        c.bv_tests += 1;
        if !test.overlaps(tumble, e, f, &mut c.sub) {
            continue;
        }
        let (ne, nf) = (&env.nodes[e], &fly.bvh.nodes[f]);
        if !ne.is_leaf() && (nf.is_leaf() || test.prefer_a(tumble, e, f)) {
            next.push((ne.first, f as u32));
            next.push((ne.first + 1, f as u32));
        } else if !nf.is_leaf() {
            next.push((e as u32, nf.first));
            next.push((e as u32, nf.first + 1));
        } else {
            leaves.push((e as u32, f as u32));
        }
    }
    c
}

/// Temporal coherence's state for one chunk of consecutive poses, shared by the k-DOP and
/// the volume trees ([`crate::kdop::KdopOptions::coherence`]): each pose starts from the
/// front where the chunk's previous pose stopped (a partition, so the same pairs:
/// [`descend_from`]), and records its own. The front only ever gets finer (where pairs
/// came closer), never coarser (where they moved apart), so it pays only while poses are
/// close:
/// - a front grown past [`regrown`] (5/4 of the front the chunk's last descent from the
///   roots recorded) is dropped: the pose starts at the roots again, and its front is the
///   new reference;
/// - a pose from a front that tests more node pairs than the chunk's last descent from the
///   roots turns coherence off for the rest of the chunk (measured: tori 4° apart tested
///   2.3× the pairs from their fronts; with this rule at most one such pose per chunk of
///   16).
#[derive(Debug, Default)]
pub(crate) struct FrontTrack {
    /// Where the previous pose stopped (empty: start at the roots).
    front: Vec<(u32, u32)>,
    /// This pose's front, being recorded.
    pub(crate) next: Vec<(u32, u32)>,
    /// Nv of the chunk's last descent from the roots.
    root_nv: u64,
    /// Whether coherence is off for the rest of the chunk.
    off: bool,
    /// The front's size after the chunk's last descent from the roots.
    root_front: usize,
}

/// Whether a front of `front` pairs has grown too fine to start from, against the
/// `root_front` pairs its chunk's last descent from the roots recorded: more than 5/4 of
/// them. A front grows where pairs came closer and never shrinks where they moved apart,
/// so on a path it accumulates pairs that a descent from the roots would prune above
/// them. Measured on the side-by-side's motion paths (`benches/peers`, node pairs tested
/// per pose, `--bv obb`; never dropping / dropping past 1.15, 1.2, 1.25, 1.3, 1.5 times):
/// interlocked tori 1,053 / 911, 901, 901, 901, 933; deep bunny 21,804 / 20,168, 20,169,
/// 20,169, 20,212, 21,295; near-miss bunny 20.8 / –, 20.1, –, –, 20.9 (kdop18: tori
/// 1,362 → 1,217 at 1.2, deep bunny 22,183 → 20,457). The GPU's coherent steps apply the
/// same rule (`gpu::collide::coherent`), so both count the same work.
pub(crate) fn regrown(front: usize, root_front: usize) -> bool {
    4 * front > 5 * root_front
}

impl FrontTrack {
    /// A new chunk: the roots, coherence on.
    pub(crate) fn restart(&mut self) {
        self.front.clear();
        self.off = false;
    }

    /// A pose that recorded no front (separated by a pretest): the next starts at the roots.
    pub(crate) fn forget(&mut self) {
        self.front.clear();
    }

    /// Whether the next pose runs coherently (not switched off for the chunk).
    pub(crate) fn on(&self) -> bool {
        !self.off
    }

    /// Puts the start of a pose on `stack` (the previous front, popped in its recorded
    /// order, or the root pair when there is none or it has [`regrown`]) and clears the
    /// recording; true when from the roots.
    pub(crate) fn seed(&mut self, stack: &mut Vec<(u32, u32)>) -> bool {
        stack.clear();
        self.next.clear();
        if self.front.is_empty() || regrown(self.front.len(), self.root_front) {
            stack.push((0, 0));
            true
        } else {
            stack.extend(self.front.iter().rev());
            false
        }
    }

    /// After a pose seeded by [`FrontTrack::seed`] and run with `nv` node tests: its
    /// recording becomes the next pose's front, and the off-switch is applied.
    pub(crate) fn finish(&mut self, from_roots: bool, nv: u64) {
        std::mem::swap(&mut self.front, &mut self.next);
        if from_roots {
            self.root_nv = nv;
            self.root_front = self.front.len();
        } else if nv > self.root_nv {
            self.off = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FrontTrack;

    /// Records `n` pairs and finishes the pose.
    fn pose(t: &mut FrontTrack, n: u32, from_roots: bool, nv: u64) {
        t.next.extend((0..n).map(|i| (i, i)));
        t.finish(from_roots, nv);
    }

    #[test]
    fn a_front_grown_past_five_quarters_of_the_roots_front_restarts_at_the_roots() {
        let (mut t, mut stack) = (FrontTrack::default(), Vec::new());
        assert!(t.seed(&mut stack), "a new chunk starts at the roots");
        pose(&mut t, 8, true, 15);
        assert!(!t.seed(&mut stack));
        assert_eq!(stack.len(), 8);
        pose(&mut t, 10, false, 12); // 10 = 5/4 of 8: kept
        assert!(!t.seed(&mut stack));
        assert_eq!(stack.len(), 10);
        pose(&mut t, 11, false, 13); // past 5/4: the roots
        assert!(t.seed(&mut stack));
        assert_eq!(stack, [(0, 0)]);
        pose(&mut t, 4, true, 7); // the new reference
        assert!(!t.seed(&mut stack));
        pose(&mut t, 5, false, 6);
        assert!(!t.seed(&mut stack));
        pose(&mut t, 6, false, 7);
        assert!(t.seed(&mut stack));
        assert!(t.on(), "regrowth does not turn coherence off");
    }
}
