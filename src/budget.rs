//! Time-critical queries: a budget of node tests per pose, and when it runs out, the answer
//! "maybe" with a proven upper bound on the penetration depth of every contact the search
//! may still hold.
//!
//! Klosowski et al. ("Efficient Collision Detection Using Bounding Volume Hierarchies of
//! k-DOPs", TVCG 1998, 5.2.3 and 6.1) propose it and leave it for future work: terminate
//! the search early "according to the time budgeted for each CD test", answer "maybe", and
//! use "the information present in the search of the BV-tree, at the time of early
//! termination, to obtain bounds on how much penetration there can be". This module is that
//! search (`docs/FORMATS.md`, "Budgeted queries").
//!
//! **The budget** is `N` node tests (Nv) per pose, so the same answer comes on every
//! machine. The search keeps a *frontier* of node pairs whose volumes were tested and found
//! overlapping but whose children were not yet tested. Expanding a pair tests its two
//! children (the hierarchy's own descent rule picks which node splits, as in the unbudgeted
//! descent), so it is made only when two tests are left; a pair of two leaves costs no node
//! test (its triangle tests are Np). A pose's pretest (B's posed box against A's box,
//! [`crate::kdop::pretest`]) counts as one test, as in the unbudgeted query. The search
//! stops when the frontier is empty (complete), when the mode's first contact is found, or
//! when the next pair to expand needs more tests than are left.
//!
//! **The order** in which the frontier is expanded is [`Order`]: best-first by the volumes'
//! overlap depth (the default, as the paper's "spend it where contact is likeliest" asks),
//! depth-first (the unbudgeted query's order) or breadth-first (the GPU's level order).
//! With an unlimited budget every order tests the same node pairs and finds the same
//! contacts as the unbudgeted query; they differ in what a small budget reaches.
//!
//! **The bound** ([`PoseStatus::depth_bound`]). Every node pair on the frontier carries
//! `d(e, f)`, an upper bound on the length of the shortest translation that separates the
//! two volumes (computed by [`Kdop::depth_bound`] for the k-DOPs, by the pretest's boxes for
//! the unexpanded root). The bound reported is the largest `d` on the frontier when the
//! search stops. Proof that it bounds the penetration depth of every intersecting triangle
//! pair the search may still hold: every triangle pair `(t, u)` not yet decided lies under
//! one frontier pair `(e, f)` (the frontier and the decided leaf pairs partition A's
//! triangles × B's triangles, the argument of `traverse::descend_from`), so `t`
//! lies in A's volume of `e` and `u` (as posed, on the f64 coordinates the exact test
//! reads) in B's volume of `f`. A translation `v` after which the two volumes have disjoint
//! interiors (they are separated by a plane) separates `t` and `u + v` by the same plane,
//! so the penetration depth of `(t, u)` — the length of the shortest translation that
//! separates the pair — is at most `|v|`, hence at most `d(e, f)`, hence at most the
//! reported bound. With the best-first order the frontier's largest `d` is its head, so the
//! order spends the budget exactly on lowering the bound.

use crate::bv::Kdop;
use crate::bvh::Bvh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode};
use crate::traverse::{NodeTest, leaf_pair};
use crate::tumble::{FlyingHierarchy, TumbleWorkspace};
use std::collections::{BinaryHeap, VecDeque};
use std::num::NonZeroU64;

/// The order in which a budgeted search expands its frontier ([`Budget::order`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// The pair whose volumes overlap deepest first (ties: the pair found last).
    #[default]
    Best,
    /// Depth-first, first child first: the unbudgeted query's order.
    Depth,
    /// Breadth-first, level by level: the GPU's order.
    Breadth,
}

option_names! {
    Order, kind "order", all ALL {
        Best => "best": "Expand the node pair whose volumes overlap deepest first (the default)",
        Depth => "depth": "Depth-first, first child first: the unbudgeted query's order",
        Breadth => "breadth": "Breadth-first, level by level: the GPU's order",
    }
}

/// A budget per pose: at most `nodes` node tests (Nv), spent in `order`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The most node tests one pose may spend (the pretest counts as one).
    pub nodes: NonZeroU64,
    /// The frontier's order.
    pub order: Order,
    /// A wall-clock budget per pose besides the node tests (the clock is read every 16
    /// expansions). Not deterministic: the answers then depend on the machine and its load.
    pub time: Option<std::time::Duration>,
}

impl Budget {
    /// A budget of `nodes` node tests in the default order; the error names `what` (the
    /// option that gave it) when `nodes` is 0.
    pub fn new(nodes: u64, what: &str) -> crate::error::Result<Budget> {
        match NonZeroU64::new(nodes) {
            Some(nodes) => Ok(Budget {
                nodes,
                order: Order::default(),
                time: None,
            }),
            None => Err(crate::error::Error::InvalidOption(format!(
                "{what} must be a whole number of node tests at least 1, got 0"
            ))),
        }
    }

    /// A budget that never runs out.
    pub const UNLIMITED: Budget = Budget {
        nodes: NonZeroU64::MAX,
        order: Order::Depth,
        time: None,
    };

    /// The same budget expanded in `order`.
    pub fn with_order(self, order: Order) -> Budget {
        Budget { order, ..self }
    }
}

/// What a pose's search found (`status.csv`'s `answer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// At least one intersecting pair found.
    Contact,
    /// The search finished and found none.
    Free,
    /// The budget ran out before any pair was found.
    Maybe,
}

option_names! {
    Answer, kind "answer", all ALL {
        Contact => "contact",
        Free => "free",
        Maybe => "maybe",
    }
}

/// A pose's row of `status.csv`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoseStatus {
    /// Contact, free or maybe.
    pub answer: Answer,
    /// Whether the search finished within the budget (then the pose's pairs are all its
    /// pairs, or in [`Mode::First`] the one asked for).
    pub complete: bool,
    /// 0 when complete; else a proven upper bound on the penetration depth of any
    /// intersecting triangle pair the search may still hold (module docs).
    pub depth_bound: f64,
    /// Node tests spent (Nv).
    pub bv_tests: u64,
}

impl PoseStatus {
    /// The status of a search that finished, with or without pairs.
    pub fn complete(found: bool, bv_tests: u64) -> PoseStatus {
        PoseStatus {
            answer: if found { Answer::Contact } else { Answer::Free },
            complete: true,
            depth_bound: 0.0,
            bv_tests,
        }
    }
}

/// The start of a budgeted pose, from the scene's pretest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Start {
    /// No pretest: the search begins by testing the roots.
    Roots,
    /// The pretest (one node test) did not separate the pose; its boxes overlap by at most
    /// this translation ([`crate::kdop::pretest::BoxPretest::depth_bound`]).
    Pretested(f64),
}

/// The root pair before its test, on the frontier after the pretest.
const ROOTS_UNTESTED: u32 = u32::MAX;

/// A frontier entry: a node pair whose volumes overlap (or the untested roots), with the
/// bound `d` of its separating translation and its insertion number (ties of the
/// best-first order).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    depth: f64,
    seq: u64,
    e: u32,
    f: u32,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Depths are finite and at least 0 (never NaN): `total_cmp` is the numeric order.
        self.depth.total_cmp(&o.depth).then(self.seq.cmp(&o.seq))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// The frontier of a budgeted search, in one of the three orders; kept in a workspace
/// between poses.
#[derive(Debug, Default)]
pub struct Frontier {
    heap: BinaryHeap<Entry>,
    list: VecDeque<Entry>,
    seq: u64,
}

impl Frontier {
    fn clear(&mut self) {
        self.heap.clear();
        self.list.clear();
        self.seq = 0;
    }

    fn push(&mut self, order: Order, e: u32, f: u32, depth: f64) {
        self.seq += 1;
        let entry = Entry {
            depth,
            seq: self.seq,
            e,
            f,
        };
        match order {
            Order::Best => self.heap.push(entry),
            Order::Depth | Order::Breadth => self.list.push_back(entry),
        }
    }

    fn peek(&self, order: Order) -> Option<&Entry> {
        match order {
            Order::Best => self.heap.peek(),
            Order::Depth => self.list.back(),
            Order::Breadth => self.list.front(),
        }
    }

    fn pop(&mut self, order: Order) -> Option<Entry> {
        match order {
            Order::Best => self.heap.pop(),
            Order::Depth => self.list.pop_back(),
            Order::Breadth => self.list.pop_front(),
        }
    }

    /// The largest bound on the frontier (0 when empty).
    fn max_depth(&self) -> f64 {
        self.heap
            .iter()
            .chain(self.list.iter())
            .fold(0.0, |m, x| m.max(x.depth))
    }
}

/// One budgeted pose of a scene on the shared skeleton ([`crate::traverse`]): A's `env`
/// against B's `fly`, the tumbling workspace already begun for `pose`, nodes tested by
/// `test`, depths bounded by [`Kdop::depth_bound`] of A's node and B's tumbled node.
/// `start` is the pretest's outcome (its test already counted by the caller in `spent`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn search<const H: usize, T: NodeTest<H>>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    pose: &Pose,
    mode: Mode,
    budget: Budget,
    start: Start,
    tumble: &mut TumbleWorkspace<H>,
    test: &mut T,
    frontier: &mut Frontier,
    out: &mut Vec<(u32, u32)>,
) -> (Counters<T::Sub>, PoseStatus) {
    let order = budget.order;
    let limit = budget.nodes.get();
    let mut c = Counters::<T::Sub> {
        bv_tests: matches!(start, Start::Pretested(_)) as u64,
        ..Default::default()
    };
    frontier.clear();
    let found_before = out.len();
    let mut stopped = false;
    let deadline = budget.time.map(|t| std::time::Instant::now() + t);
    let mut expansions = 0u32;
    // The test of one node pair: its bound if the volumes overlap.
    let tested = |tumble: &mut TumbleWorkspace<H>, test: &mut T, c: &mut Counters<T::Sub>, e, f| {
        c.bv_tests += 1;
        test.overlaps(tumble, e as usize, f as usize, &mut c.sub)
            .then(|| {
                env.nodes[e as usize]
                    .bv
                    .depth_bound(tumble.node_bv(fly, f as usize))
            })
    };
    match start {
        Start::Roots => {
            if let Some(d) = tested(tumble, test, &mut c, 0, 0) {
                frontier.push(order, 0, 0, d);
            }
        }
        Start::Pretested(d) => frontier.push(order, ROOTS_UNTESTED, ROOTS_UNTESTED, d),
    }
    while let Some(&top) = frontier.peek(order) {
        expansions = expansions.wrapping_add(1);
        if expansions.is_multiple_of(16) && deadline.is_some_and(|d| std::time::Instant::now() >= d)
        {
            break;
        }
        if top.e == ROOTS_UNTESTED {
            if c.bv_tests + 1 > limit {
                break;
            }
            frontier.pop(order);
            if let Some(d) = tested(tumble, test, &mut c, 0, 0) {
                frontier.push(order, 0, 0, d);
            }
            continue;
        }
        let (e, f) = (top.e as usize, top.f as usize);
        let (ne, nf) = (&env.nodes[e], &fly.bvh.nodes[f]);
        let children = if !ne.is_leaf() && (nf.is_leaf() || test.prefer_a(tumble, e, f)) {
            Some([(ne.first, top.f), (ne.first + 1, top.f)])
        } else if !nf.is_leaf() {
            Some([(top.e, nf.first), (top.e, nf.first + 1)])
        } else {
            None
        };
        match children {
            None => {
                frontier.pop(order);
                if leaf_pair(env, fly, pose, mode, tumble, &*test, e, f, out, &mut c) {
                    stopped = true;
                    break;
                }
            }
            Some(_) if c.bv_tests + 2 > limit => break,
            Some(kids) => {
                frontier.pop(order);
                let d = kids.map(|(ce, cf)| (ce, cf, tested(tumble, test, &mut c, ce, cf)));
                // Depth-first pops from the back: the first child goes in last.
                let kids = match order {
                    Order::Depth => [d[1], d[0]],
                    Order::Best | Order::Breadth => d,
                };
                for (ce, cf, d) in kids {
                    if let Some(d) = d {
                        frontier.push(order, ce, cf, d);
                    }
                }
            }
        }
    }
    c.bv_updates = tumble.updates;
    let found = out.len() > found_before;
    let complete = stopped || frontier.peek(order).is_none();
    let status = PoseStatus {
        answer: match (found, complete) {
            (true, _) => Answer::Contact,
            (false, true) => Answer::Free,
            (false, false) => Answer::Maybe,
        },
        complete,
        depth_bound: if complete { 0.0 } else { frontier.max_depth() },
        bv_tests: c.bv_tests,
    };
    (c, status)
}

/// `1/√2` and `1/√3` rounded up: each literal is the shortest decimal of an f64 a step or
/// two above the real value (tested exactly in `tests.rs`).
pub(crate) const INV_SQRT2_UP: f64 = 0.707_106_781_186_547_7;
/// See [`INV_SQRT2_UP`].
pub(crate) const INV_SQRT3_UP: f64 = 0.577_350_269_189_626;

/// The inverse length of each k-DOP direction, rounded up (the directions have integer
/// components in {−1, 0, 1}, so `|n|² ∈ {1, 2, 3}`).
fn inverse_lengths<const H: usize>() -> [f64; H] {
    let axes = crate::bv::axes(H);
    std::array::from_fn(|i| match axes[i].iter().filter(|&&c| c != 0).count() {
        1 => 1.0,
        2 => INV_SQRT2_UP,
        _ => INV_SQRT3_UP,
    })
}

impl<const H: usize> Kdop<H> {
    /// An upper bound on the length of the shortest translation of `o`'s contents that
    /// separates them from this k-DOP's contents (both k-DOPs in one frame); meaningful when
    /// the two overlap ([`Kdop::overlaps`]).
    ///
    /// Proof. Along direction `n_i` the slabs overlap by `o_i = min(max_i − o.min_i,
    /// o.max_i − min_i)` (in units of `n_i·x`). Moving `o` by `o_i·n_i/|n_i|²` (or its
    /// opposite), a translation of length `o_i/|n_i|`, leaves the two slabs touching at
    /// one plane, which separates the two k-DOPs (each lies in its slab) and so their
    /// contents. So the shortest separating translation is at most `min_i o_i/|n_i|`.
    /// Rounding: the f32 ends are exact in f64 and their difference is rounded once
    /// (relative error at most `u = 2⁻⁵³`, and never below f64's normal range: f32 values
    /// differ by a multiple of 2⁻¹⁴⁹); the inverse lengths are rounded up; the product
    /// rounds once more. So each computed term is at least `(1 − u)²` times its real value
    /// and the final product by `1 + 2⁻⁵⁰` (itself rounded, `(1 + 2⁻⁵⁰)(1 − u) > (1 − u)⁻²`)
    /// is at least the real minimum. A zero overlap stays zero (touching slabs: the
    /// translation 0 separates them).
    pub fn depth_bound(&self, o: &Kdop<H>) -> f64 {
        let inv = inverse_lengths::<H>();
        let mut d = f64::INFINITY;
        for (i, inv) in inv.iter().enumerate() {
            let up = self.max[i] as f64 - o.min[i] as f64;
            let down = o.max[i] as f64 - self.min[i] as f64;
            d = d.min(up.min(down).max(0.0) * inv);
        }
        d * (1.0 + TWO_M50)
    }
}

const TWO_M50: f64 = 1.0 / (1u64 << 50) as f64;

#[cfg(test)]
mod tests;
