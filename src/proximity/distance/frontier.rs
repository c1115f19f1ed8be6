//! How node pairs wait in the distance search: the best-first heap's entries, the size at
//! which the search goes on depth first, and the memo of expanded pairs along a path (the
//! rules and their measurements; the search is [`super::distance_pose`]).

/// The most node pairs the best-first heap holds before the search goes on depth first.
///
/// Why: where the two surfaces are at nearly the same distance everywhere (nested spheres,
/// `benches/peers`), best first is breadth first: the heap holds a whole level of the
/// trees, hundreds of thousands of pairs, and its pushes and pops, each a walk through a
/// heap far larger than the caches, took over half the query's time. Depth first keeps a
/// stack as deep as the trees and finds leaves (upper bounds) at once, but where the first
/// bound is loose (the wavy grids, poses not coherent) it tests up to 38 % more pairs.
/// Measured (2026-11-29, one core, `distance --threads 1`, ms for the scene's poses):
/// 8,192 (128 KiB of heap) keeps the bunny and the grids as best first had them and runs
/// the spheres at α = 0.1 / 0.001 in 1,622 / 1,086 ms against 3,776 / 2,063 best first;
/// 2,048 made the grids 17 % slower. The witness is the exact minimum in any order.
pub(super) const HEAP_LIMIT: usize = 8192;

/// Along a run of poses, after a step that moves B's points by at most [`MEMO_STEP`] times
/// the previous pose's distance ([`crate::pose::step_reach`]), a node pair the previous pose expanded is
/// expanded again without its test, under its parent's bound, except at every
/// `MEMO_REFRESH`-th pose since the run's start or its last step that was not coherent,
/// which tests every pair and so forgets the pairs that a pose since would have pruned.
///
/// Why it is safe: a test only ever prunes, on a certified bound; an untested pair's
/// children are tested in turn (or expanded the same way) and every leaf pair reached is
/// measured exactly, so the same pairs as before reach the leaves or more, and the witness
/// is the exact minimum either way. The parent's bound is a bound of the child too (the
/// parent's triangles contain the child's). Why: on a coherent path the pairs expanded at
/// one pose are nearly those of the next (about half of the node tests of a pose).
/// Measured (2026-11-29, `distance --threads 1`, the bunny's 500-pose paths at 1.5 / 3 / 5
/// extents, one core): refreshing every 2 / 4 / 8 poses, Nv −20 / −29 / −28 %, time −11 /
/// −16 / −16 %; 4 kept. Without a test of the step, the nested spheres' random turns ran
/// 1.8–2.9 times slower (their expanded pairs are not the next pose's); with the test
/// relative to B's size (`crate::pose::coherent_step`), the wavy grids' jitter (steps of
/// half their gap) 10 % slower. The pairs it expands untested skip the heap (the
/// workspace's `ready` list): bunny at 3 extents 174 → 152–160 ms for the 500 poses, the
/// spheres and grids within 2 % (one A/B run).
pub(super) const MEMO_REFRESH: u32 = 4;

/// The longest step, relative to the previous pose's distance, after which the memo of
/// expanded pairs is used ([`MEMO_REFRESH`]): the bunny's tumbling paths step 0.6–5 % of
/// their distance, the wavy grids' jitter about 50 %.
pub(super) const MEMO_STEP: f64 = 0.1;

/// The key of the node pair `(e, f)` in the memo of expanded pairs.
#[inline]
pub(super) fn pair_key(e: usize, f: usize) -> u64 {
    (e as u64) << 32 | f as u64
}

/// A node pair waiting in the heap, packed into one integer so that the heap compares
/// one `u128`: the bound's bits above (a non-negative f64's bits order as the number
/// does), then the pair, so the smallest bound pops first and equal bounds in pair order
/// (the order does not depend on the heap's history). `Reverse` makes the max-heap a
/// min-heap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Pending(std::cmp::Reverse<u128>);

impl Pending {
    /// `lb ≥ 0` (a `-0.0` is made `+0.0`: its sign bit would sort it last).
    #[inline]
    pub(super) fn new(lb: f64, e: u32, f: u32) -> Pending {
        let bits = (lb + 0.0).to_bits() as u128;
        Pending(std::cmp::Reverse(
            bits << 64 | (e as u128) << 32 | f as u128,
        ))
    }

    #[inline]
    pub(super) fn lb(&self) -> f64 {
        f64::from_bits((self.0.0 >> 64) as u64)
    }

    #[inline]
    pub(super) fn pair(&self) -> (usize, usize) {
        ((self.0.0 >> 32) as u32 as usize, self.0.0 as u32 as usize)
    }
}
