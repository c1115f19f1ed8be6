//! `auto`'s calls ([`super::AutoScene`]'s [`PairScene::collide_batch`] and
//! [`PairScene::collide_each`]): the probe on a call's first poses until one decides, then
//! the rest on the tree it chose, as a batch or a stream (the GPU's run takes
//! [`AutoScene::probe_head`] and sends the rest to the device).

use super::{AutoCounters, AutoScene, Choice, UNDECIDED};
use crate::pose::Pose;
use crate::scene::Counters;
use crate::scene::{PairScene, PoseResult, Progress, QueryOptions};

/// The poses a call has left after `auto`'s probe: those read ahead, then the others.
pub type Ahead<I> = std::iter::Chain<std::iter::Skip<std::vec::IntoIter<Pose>>, I>;

/// The poses `auto` gave to one tree, with `auto`'s sub-counters.
fn tail(rs: Vec<PoseResult>, choice: Choice) -> impl Iterator<Item = PoseResult<AutoCounters>> {
    rs.into_iter().map(move |r| {
        let sub = answered(&r.counters, choice);
        r.map_sub(|_| sub)
    })
}

impl AutoScene {
    /// The batch: the probe on the first poses until one decides, then the rest on the tree
    /// it chose, in parallel.
    pub(super) fn batch(
        &self,
        poses: &[Pose],
        opts: &QueryOptions,
        progress: Option<Progress<'_>>,
    ) -> Vec<PoseResult<AutoCounters>> {
        let mut out = Vec::with_capacity(poses.len());
        let mut it = poses.iter().copied();
        let choice = self
            .probe_prefix(&mut it, poses.len(), opts, |r| {
                out.push(r);
                Ok::<(), ()>(())
            })
            .ok()
            .flatten();
        let head = out.len();
        if let Some(p) = progress {
            p(head);
        }
        let shifted = move |k: usize| {
            if let Some(p) = progress {
                p(head + k);
            }
        };
        let rest = &poses[head..];
        if rest.is_empty() {
            // A single pose (or a call the probe answered whole): no pool or workspace to take.
            return out;
        }
        let choice = choice.unwrap_or(UNDECIDED);
        match choice {
            Choice::Kdop18 => out.extend(tail(
                self.kdop.collide_batch(rest, opts, Some(&shifted)),
                choice,
            )),
            Choice::Obb => out.extend(tail(
                self.obb.collide_batch(rest, opts, Some(&shifted)),
                choice,
            )),
        }
        out
    }

    /// The first poses of a stream, answered by the probe and given to `sink` from index 0:
    /// how many, the tree for the rest, and the rest (the poses read ahead to learn whether
    /// the call has [`super::COMPARE_CALL`], then the others).
    pub fn probe_head<I: Iterator<Item = Pose>, E>(
        &self,
        poses: I,
        opts: &QueryOptions,
        sink: &mut impl FnMut(usize, PoseResult<AutoCounters>) -> Result<(), E>,
    ) -> Result<(usize, Choice, Ahead<I>), E> {
        let mut poses = poses.into_iter();
        let ahead: Vec<Pose> = poses.by_ref().take(super::COMPARE_CALL).collect();
        let mut head = 0;
        let mut first = ahead.iter().copied();
        let choice = self.probe_prefix(&mut first, ahead.len(), opts, |r| {
            sink(head, r)?;
            head += 1;
            Ok(())
        })?;
        let rest = ahead.into_iter().skip(head).chain(poses);
        Ok((head, choice.unwrap_or(UNDECIDED), rest))
    }

    /// The stream: the probe's poses, then the rest streamed on the chosen tree.
    pub(super) fn each<E>(
        &self,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        chunk: usize,
        mut sink: impl FnMut(usize, PoseResult<AutoCounters>) -> Result<(), E>,
    ) -> Result<(), E> {
        let (head, choice, it) = self.probe_head(poses.into_iter(), opts, &mut sink)?;
        let mut tail = |i: usize, r: PoseResult| {
            let sub = answered(&r.counters, choice);
            sink(head + i, r.map_sub(|_| sub))
        };
        match choice {
            Choice::Kdop18 => self.kdop.collide_each(it, opts, chunk, &mut tail),
            Choice::Obb => self.obb.collide_each(it, opts, chunk, &mut tail),
        }
    }
}

/// The sub-counters of a pose answered by the tree `choice` without a probe: one pose
/// answered if it got past the pretest (more than the pretest's one test, or a triangle
/// test).
pub fn answered(c: &Counters, choice: Choice) -> AutoCounters {
    let n = (c.bv_tests > 1 || c.tri_tests > 0) as u64;
    AutoCounters {
        kdop18_poses: n * (choice == Choice::Kdop18) as u64,
        obb_poses: n * (choice == Choice::Obb) as u64,
        ..Default::default()
    }
}

/// A result of the kdop18 tree alone (a tolerance query, which skips the probe) in `auto`'s
/// counters. Through the kdop18 scene's own calls, so its pool of workspaces serves them:
/// `auto`'s generic path lent a workspace of both trees per call (milliseconds of page
/// faults on the bunny for a call whose poses the pretest answered).
pub(super) fn on_kdop18(r: PoseResult) -> PoseResult<AutoCounters> {
    let sub = answered(&r.counters, Choice::Kdop18);
    r.map_sub(|_| sub)
}
