//! The calls of `auto` ([`crate::auto`]): the probe on a call's first poses, then the rest
//! on the tree it chose, as a batch or a stream (the GPU's run takes [`auto_head`]).

use super::{AnySub, Contacts, Progress};
use crate::Pose;
use crate::auto::{AutoScene, Choice};
use crate::scene::{PoseResult, QueryOptions, collide_batch, collide_each};

/// `auto`'s batch: the probe on the first poses until one decides, then the rest on the
/// tree it chose, in parallel (`crate::auto`).
pub(super) fn auto_many(
    s: &AutoScene,
    poses: &[Pose],
    opts: &QueryOptions,
    progress: Option<Progress<'_>>,
) -> Vec<Contacts> {
    let mut out = Vec::with_capacity(poses.len());
    let mut it = poses.iter().copied();
    let choice = s
        .probe_prefix(&mut it, poses.len(), opts, |r| {
            out.push(r.map_sub(AnySub::from));
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
    let tail = match choice.unwrap_or(crate::auto::UNDECIDED) {
        Choice::Kdop18 => auto_tail(
            collide_batch(&s.kdop, rest, opts, Some(&shifted)),
            Choice::Kdop18,
        ),
        Choice::Obb => auto_tail(
            collide_batch(&s.obb, rest, opts, Some(&shifted)),
            Choice::Obb,
        ),
    };
    out.extend(tail);
    out
}

/// The poses `auto` gave to one tree, with `auto`'s sub-counters.
fn auto_tail(rs: Vec<PoseResult>, choice: Choice) -> impl Iterator<Item = Contacts> {
    rs.into_iter().map(move |r| {
        let sub = crate::auto::answered(&r.counters, choice);
        r.map_sub(|_| AnySub::Auto(sub))
    })
}

/// The poses a call has left after `auto`'s probe: those read ahead, then the others.
type Ahead<I> = std::iter::Chain<std::iter::Skip<std::vec::IntoIter<Pose>>, I>;

/// `auto`'s first poses, answered by the probe and given to `sink` from index 0: how many,
/// the tree for the rest, and the rest (the poses read ahead to learn whether the call has
/// [`crate::auto::COMPARE_CALL`], then the others).
pub(super) fn auto_head<I: Iterator<Item = Pose>>(
    s: &AutoScene,
    poses: I,
    opts: &QueryOptions,
    sink: &mut impl FnMut(usize, Contacts) -> crate::Result<()>,
) -> crate::Result<(usize, Choice, Ahead<I>)> {
    let mut poses = poses.into_iter();
    let ahead: Vec<Pose> = poses.by_ref().take(crate::auto::COMPARE_CALL).collect();
    let mut head = 0;
    let mut first = ahead.iter().copied();
    let choice = s.probe_prefix(&mut first, ahead.len(), opts, |r| {
        sink(head, r.map_sub(AnySub::from))?;
        head += 1;
        Ok::<(), crate::Error>(())
    })?;
    let rest = ahead.into_iter().skip(head).chain(poses);
    Ok((head, choice.unwrap_or(crate::auto::UNDECIDED), rest))
}

/// `auto`'s stream: the probe's poses, then the rest streamed on the chosen tree.
pub(super) fn auto_each(
    s: &AutoScene,
    poses: impl IntoIterator<Item = Pose>,
    opts: &QueryOptions,
    chunk: usize,
    mut sink: impl FnMut(usize, Contacts) -> crate::Result<()>,
) -> crate::Result<()> {
    let (head, choice, it) = auto_head(s, poses.into_iter(), opts, &mut sink)?;
    let mut tail = |i: usize, r: PoseResult| {
        let sub = crate::auto::answered(&r.counters, choice);
        sink(head + i, r.map_sub(|_| AnySub::Auto(sub)))
    };
    match choice {
        Choice::Kdop18 => collide_each(&s.kdop, it, opts, chunk, &mut tail),
        Choice::Obb => collide_each(&s.obb, it, opts, chunk, &mut tail),
    }
}
