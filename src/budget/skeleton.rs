//! The budgeted search's walks over the binary trees ([`super::Walk`]): their one descent
//! rule ([`split_binary`]) and the k-DOP scenes' walk on the shared skeleton ([`Skeleton`]).

use super::Walk;
use crate::bvh::Bvh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode};
use crate::traverse::{NodeTest, leaf_pair};
use crate::tumble::{FlyingHierarchy, TumbleWorkspace};

/// The descent rule of the binary trees ([`Walk::split`]): the pair `(e, f)` of nodes `a`
/// and `b`, each `(is a leaf, first child)`, splits A's node while it is internal and B's
/// is a leaf or `prefer_a` says so, else B's, appending the two child pairs to `kids`;
/// false for two leaves.
pub(crate) fn split_binary(
    (e, f): (u32, u32),
    (a_leaf, a_first): (bool, u32),
    (b_leaf, b_first): (bool, u32),
    kids: &mut Vec<(u32, u32)>,
    prefer_a: impl FnOnce() -> bool,
) -> bool {
    if !a_leaf && (b_leaf || prefer_a()) {
        kids.extend([(a_first, f), (a_first + 1, f)]);
    } else if !b_leaf {
        kids.extend([(e, b_first), (e, b_first + 1)]);
    } else {
        return false;
    }
    true
}

/// A scene on the shared skeleton ([`crate::traverse`]) as a [`Walk`]: A's `env` against
/// B's `fly`, the tumbling workspace begun for `pose`, nodes tested by `test`, bounds by
/// [`crate::bv::Kdop::depth_bound`] of A's node and B's tumbled node (which contains B's node as
/// posed, whatever the test compared).
pub(crate) struct Skeleton<'a, const H: usize, T> {
    pub env: &'a Bvh<H>,
    pub fly: &'a FlyingHierarchy<H>,
    pub pose: &'a Pose,
    pub mode: Mode,
    pub tumble: &'a mut TumbleWorkspace<H>,
    pub test: &'a mut T,
}

impl<const H: usize, T: NodeTest<H>> Walk for Skeleton<'_, H, T> {
    type Sub = T::Sub;

    #[inline]
    fn test(&mut self, e: u32, f: u32, sub: &mut T::Sub) -> Option<f64> {
        let (e, f) = (e as usize, f as usize);
        self.test.overlaps(self.tumble, e, f, sub).then(|| {
            self.env.nodes[e]
                .bv
                .depth_bound(self.tumble.node_bv(self.fly, f))
        })
    }

    #[inline]
    fn split(&mut self, e: u32, f: u32, kids: &mut Vec<(u32, u32)>) -> bool {
        let (ne, nf) = (&self.env.nodes[e as usize], &self.fly.bvh.nodes[f as usize]);
        let (a, b) = ((ne.is_leaf(), ne.first), (nf.is_leaf(), nf.first));
        split_binary((e, f), a, b, kids, || {
            self.test.prefer_a(self.tumble, e as usize, f as usize)
        })
    }

    #[inline]
    fn leaves(
        &mut self,
        e: u32,
        f: u32,
        out: &mut Vec<(u32, u32)>,
        c: &mut Counters<T::Sub>,
    ) -> bool {
        let (env, fly, pose, mode) = (self.env, self.fly, self.pose, self.mode);
        leaf_pair(
            env,
            fly,
            pose,
            mode,
            self.tumble,
            &*self.test,
            e as usize,
            f as usize,
            out,
            c,
        )
    }
}
