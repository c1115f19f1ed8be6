//! The best-first and depth-first orders ([`super::Order`]): the frontier expanded one pair
//! at a time, spending the budget to the last test (the breadth-first order, a level at a
//! time, is [`super::levels`]).

use super::{Frontier, Search, Walk};

/// The best-first and depth-first orders: one frontier pair at a time, until the next pair
/// to expand needs more tests than are left. True when the mode stopped at a contact.
pub(super) fn pairwise<W: Walk>(
    s: &mut Search<'_, W>,
    frontier: &mut Frontier,
    out: &mut Vec<(u32, u32)>,
) -> bool {
    let order = s.order;
    let mut kids = std::mem::take(&mut frontier.kids);
    let mut hits = std::mem::take(&mut frontier.hits);
    let mut stopped = false;
    while let Some(&top) = frontier.peek(order) {
        if s.late() {
            break;
        }
        s.rec.at(s.c.bv_tests, frontier);
        if top.untested {
            if s.c.bv_tests + 1 > s.limit {
                break;
            }
            frontier.pop(order);
            s.test_into(top.e, top.f, frontier);
            continue;
        }
        kids.clear();
        if !s.walk.split(top.e, top.f, &mut kids) {
            frontier.pop(order);
            if s.leaves(top.e, top.f, out) {
                stopped = true;
                break;
            }
            continue;
        }
        if s.c.bv_tests + kids.len() as u64 > s.limit {
            break;
        }
        frontier.pop(order);
        s.expand(&kids, &mut hits, frontier);
    }
    kids.clear();
    frontier.kids = kids;
    frontier.hits = hits;
    stopped
}
