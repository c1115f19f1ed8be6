//! The hot start's front: where a pose's search stood, for the next pose of a path to start
//! from instead of the roots ([`super::Hint`]).
//!
//! Klosowski et al. ("Efficient Collision Detection Using Bounding Volume Hierarchies of
//! k-DOPs", TVCG 1998, 6.1) tie the time-critical search to temporal coherence; the
//! unbudgeted query already starts each pose of a path from the previous pose's front
//! ([`crate::traverse::descend_from`]). Under a budget the same start saves the tests above
//! the front for the tests below it, where the contact is decided.
//!
//! **Why any front is a start.** At every moment of a search, the pairs it decided (found
//! disjoint, or leaf pairs whose triangles it tested) and the pairs on its frontier
//! *partition* A's triangles × B's triangles: the roots do, and each expansion replaces a
//! pair by child pairs that cover its product. A partition made at one pose is a partition
//! at every pose, so the next pose may test its pairs in place of the roots: every
//! intersecting triangle pair lies under exactly one of them, each is tested at the new
//! pose, and the search below them is the one of the module docs of [`crate::budget`] —
//! the answers and the bound keep their proofs (the bound's argument only needs the
//! frontier and the decided pairs to partition the pairs not yet decided). It needs a walk
//! that can test any node pair at any time ([`super::Walk::carries_front`]).
//!
//! **Which front.** The choice is ours (the paper leaves it open): the search's partition at
//! the first moment it has spent half the budget (or where it ended, if earlier). Testing
//! the front again costs one node test per pair, and a partition made after `n` tests has
//! at most `n` pairs besides the roots, so the next pose keeps at least about half its
//! budget for the search below the front; a front that does not fit what is left after the
//! pretest is not used (the roots are). Measured in `docs/notebook/budget.md` ("The front
//! hot start").

use super::Frontier;

/// A front is used by at most this many poses in a row; the next starts at the roots again
/// (and its front is the new reference of [`crate::traverse::regrown`]). A front only
/// grows (a pair found overlapping is refined, pairs that moved apart are never merged back
/// into their parent), so without a refresh it stays as fine as the deepest contact the path
/// passed, long after the path left it: on the flight of `bench budget` (2,000 steps)
/// a budget that never ran out then tested 2.4 M node pairs against 0.94 M from the roots
/// at every step. Measured refreshes (`docs/notebook/budget.md`, "The front hot start"):
/// every 16 / 8 / 4 poses gave 1.25 M / 0.96 M / 0.81 M there, and equal `maybe` counts
/// at the three budgets within 3; 4 is kept.
pub(super) const REFRESH: u32 = 4;

/// Records the pairs a search decides until it has spent half its budget, then keeps its
/// partition as the next pose's front ([`super::Hint`]).
#[derive(Debug)]
pub(super) struct Recorder {
    pairs: Vec<(u32, u32)>,
    /// The node tests at which the partition is kept; `None` when not recording (done, or
    /// the walk carries no front, or no hot start).
    due: Option<u64>,
}

impl Recorder {
    /// A recorder for a search with `limit` node tests, on when `on`; `pairs` is a buffer
    /// kept for its allocation.
    pub(super) fn start(mut pairs: Vec<(u32, u32)>, on: bool, limit: u64) -> Recorder {
        pairs.clear();
        Recorder {
            pairs,
            due: on.then_some(limit / 2),
        }
    }

    /// A pair decided: found disjoint, or a leaf pair whose triangles are tested.
    #[inline]
    pub(super) fn decided(&mut self, e: u32, f: u32) {
        if self.due.is_some() {
            self.pairs.push((e, f));
        }
    }

    /// At a moment when the decided pairs and `frontier` partition the pairs (between two
    /// expansions, or two levels): keeps the partition once `tests` reach half the budget.
    #[inline]
    pub(super) fn at(&mut self, tests: u64, frontier: &mut Frontier) {
        if self.due.is_some_and(|d| tests >= d) {
            self.keep(frontier);
        }
    }

    /// The search ended: keeps its partition if none was kept yet and `whole` (the decided
    /// pairs and the frontier partition the pairs), else no front at all.
    pub(super) fn end(&mut self, frontier: &mut Frontier, whole: bool) {
        if self.due.is_some() {
            if whole {
                self.keep(frontier);
            } else {
                frontier.hot.front.clear();
                self.due = None;
            }
        }
    }

    /// The buffer, back to the frontier.
    pub(super) fn into_pairs(self) -> Vec<(u32, u32)> {
        self.pairs
    }

    fn keep(&mut self, frontier: &mut Frontier) {
        let front = &mut frontier.hot.front;
        front.clear();
        front.extend_from_slice(&self.pairs);
        front.extend(
            frontier
                .heap
                .iter()
                .chain(frontier.list.iter())
                .map(|x| (x.e, x.f)),
        );
        self.due = None;
    }
}
