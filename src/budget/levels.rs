//! The breadth-first order, level by level, and the bound of a frontier the GPU left.
//!
//! **Whole levels.** The GPU expands the front of every pose one level per dispatch, all of
//! a level's pairs at once, in no fixed order within the level (appends by atomics). A
//! budget cut inside a level would then depend on that order; so the breadth-first order
//! spends the budget a whole level at a time, on both backends: the leaf pairs of the level
//! are tested (they cost no node test), then its internal pairs are expanded — a node test
//! per child pair ([`Walk::split`]), a root pair not yet tested after the pretest one — if
//! the budget has room for all of them, and otherwise none is and the search stops with
//! them as its frontier. The
//! same tests, contacts and frontier on every machine, thread count and backend, whatever
//! the order within a level. The price: up to one level's cost of the budget is left
//! unspent (the best-first and depth-first orders spend it to the last two tests).
//! Klosowski et al. ("Efficient Collision Detection Using Bounding Volume Hierarchies of
//! k-DOPs", TVCG 1998, 5.2.3) leave the order of a budgeted search open; this is our choice
//! for the order the GPU can run, tested in `tests/budget.rs` and `tests/gpu_budget.rs`.
//!
//! **Replay.** When a pose stops on the GPU, the device reports the untested child pairs of
//! its last level; the host maps them to their parents (the frontier above, each tested and
//! found overlapping on the device) and [`replay`] bounds those with the CPU's own
//! [`super::Walk::test`], so `depth_bound` is the CPU's number exactly.

use super::{Frontier, PoseStatus, Search, Walk};
use crate::scene::Counters;

/// The breadth-first order (module docs). True when the mode stopped at a contact.
pub(super) fn levelwise<W: Walk>(
    s: &mut Search<'_, W>,
    frontier: &mut Frontier,
    out: &mut Vec<(u32, u32)>,
) -> bool {
    let mut level = std::mem::take(&mut frontier.level);
    let mut kids = std::mem::take(&mut frontier.kids);
    let mut entries = std::mem::take(&mut frontier.entries);
    let stopped = 'levels: loop {
        if frontier.list.is_empty() {
            break false;
        }
        s.rec.at(s.c.bv_tests, frontier);
        level.clear();
        kids.clear();
        let mut cost = 0u64;
        entries.clear();
        entries.extend(frontier.list.drain(..));
        for &x in &entries {
            if x.untested {
                cost += 1;
                level.push((x, 0, 0));
                continue;
            }
            let from = kids.len();
            if s.walk.split(x.e, x.f, &mut kids) {
                cost += (kids.len() - from) as u64;
                level.push((x, from as u32, kids.len() as u32));
            } else if s.leaves(x.e, x.f, out) {
                break 'levels true;
            }
        }
        if s.c.bv_tests + cost > s.limit {
            frontier.list.extend(level.iter().map(|&(x, ..)| x));
            break false;
        }
        for (i, &(x, from, to)) in level.iter().enumerate() {
            if s.late() {
                // Out of time inside the level: what is left of it stays on the frontier
                // beside the children pushed so far (any partition of the pairs still
                // undecided bounds their depth).
                frontier.list.extend(level[i..].iter().map(|&(x, ..)| x));
                break 'levels false;
            }
            // A root pair not yet tested (after the pretest) is tested itself.
            let root = [(x.e, x.f)];
            let tests = if x.untested {
                &root[..]
            } else {
                &kids[from as usize..to as usize]
            };
            for &(ce, cf) in tests {
                s.test_into(ce, cf, frontier);
            }
        }
    };
    level.clear();
    frontier.level = level;
    kids.clear();
    frontier.kids = kids;
    frontier.entries = entries;
    stopped
}

/// The status of a pose the GPU stopped with `parents` on its frontier (node pairs it
/// tested and found overlapping, whose children it could not afford): `maybe`, incomplete,
/// with the largest bound of [`Walk::test`] over them; the counters and test count are the
/// caller's (the device's). A parent the host's test finds disjoint (the device's f32 test
/// of the same volumes is meant to agree; the parity tests check it) adds nothing: its two
/// volumes are separated, so its triangle pairs have no penetration to bound.
pub(super) fn replay<W: Walk>(
    walk: &mut W,
    parents: &[(u32, u32)],
) -> (Counters<W::Sub>, PoseStatus) {
    let mut c = Counters::<W::Sub>::default();
    let bound = parents
        .iter()
        .filter_map(|&(e, f)| walk.test(e, f, &mut c.sub))
        .fold(0.0, f64::max);
    let status = PoseStatus {
        answer: super::Answer::Maybe,
        complete: false,
        depth_bound: bound,
        bv_tests: 0,
    };
    (Counters::default(), status)
}
