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
//! overlapping but whose children were not yet tested. Expanding a pair tests its child
//! pairs (the hierarchy's own descent rule, as in the unbudgeted descent: two on the binary
//! trees, where the rule picks which node splits; up to four on the boxtree, every child of
//! A with every child of B; a node's entries on the R-tree, `Walk::split`), so it is made
//! only when that many tests are left; a pair of two leaves costs no node test (its
//! triangle tests are Np). A pose's pretest (B's posed box against A's box,
//! [`crate::kdop::pretest`]; the R-tree's prelude, [`crate::rtree`]) counts as one test,
//! as in the unbudgeted query; after it the root pairs wait on the frontier untested, one
//! test each. The search stops when the frontier is empty (complete), when the mode's first
//! contact is found, or when the next pair to expand needs more tests than are left.
//!
//! **The order** in which the frontier is expanded is [`Order`]: best-first by the volumes'
//! overlap depth (the default, as the paper's "spend it where contact is likeliest" asks),
//! depth-first (the unbudgeted query's order) or breadth-first (the GPU's level order).
//! With an unlimited budget every order tests the same node pairs and finds the same
//! contacts as the unbudgeted query; they differ in what a small budget reaches.
//!
//! **The bound** ([`PoseStatus::depth_bound`]). Every node pair on the frontier carries
//! `d(e, f)`, an upper bound on the length of the shortest translation that separates the
//! two volumes (computed by [`crate::bv::Kdop::depth_bound`] for the k-DOPs, from posed
//! boxes for the OBB and sphere trees, the boxtree and the R-tree, by the pretest's boxes
//! for the untested roots). The bound reported is the largest `d` on the frontier when the
//! search stops. Proof that it bounds the penetration depth of every intersecting triangle
//! pair the search may still hold: every triangle pair `(t, u)` not yet decided lies under
//! one frontier pair `(e, f)` (the frontier and the decided pairs partition A's
//! triangles × B's triangles, the argument of `traverse::descend_from`; on the R-tree the
//! pairs its prelude and filter exclude are decided before the search), so `t`
//! lies in A's volume of `e` and `u` (as posed, on the f64 coordinates the exact test
//! reads) in B's volume of `f`. A translation `v` after which the two volumes have disjoint
//! interiors (they are separated by a plane) separates `t` and `u + v` by the same plane,
//! so the penetration depth of `(t, u)` — the length of the shortest translation that
//! separates the pair — is at most `|v|`, hence at most `d(e, f)`, hence at most the
//! reported bound. With the best-first order the frontier's largest `d` is its head, so the
//! order spends the budget exactly on lowering the bound.

use crate::pose::Pose;
use crate::scene::{Counters, SubCounters};
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
    /// Test the previous pose's contact first ([`Hint`]); on by default. The probe costs
    /// triangle tests (Np), no node test, and may report a pair that the search would have
    /// found later (reported once).
    pub hot_start: bool,
    /// Start each pose of a path from the previous pose's front instead of the roots
    /// (`src/budget/front.rs`), when the step is coherent, the front fits the budget and
    /// has not grown stale; on by default (measured there: fewer `maybe` answers at every
    /// budget and step size of the flight). Not on the boxtree or the R-tree.
    pub front: bool,
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
                hot_start: true,
                front: true,
                time: None,
            }),
            None => Err(crate::error::Error::InvalidOption(format!(
                "{what} must be a whole number of node tests at least 1, got 0"
            ))),
        }
    }

    /// A budget that never runs out, without the hot start: the unbudgeted query's node
    /// tests and triangle tests exactly.
    pub const UNLIMITED: Budget = Budget {
        nodes: NonZeroU64::MAX,
        order: Order::Depth,
        hot_start: false,
        front: false,
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
    /// pairs, or in [`crate::scene::Mode::First`] the one asked for).
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
    /// No pretest: the search begins by testing the roots (a walk with this start has one
    /// root pair, [`Walk::roots`]'s default).
    Roots,
    /// The pretest (one node test) did not separate the pose; its boxes overlap by at most
    /// this translation ([`crate::kdop::pretest::BoxPretest::depth_bound`]). The root
    /// pairs wait on the frontier untested, each with this bound.
    Pretested(f64),
    /// As [`Start::Pretested`], but no node test was spent on the bound (the R-tree's
    /// prelude when the pose's matrix is no rotation, [`crate::rtree`]).
    Untested(f64),
}

/// A frontier entry: a node pair whose volumes overlap (or a root pair not yet tested),
/// with the bound `d` of its separating translation and its insertion number (ties of the
/// best-first order).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    depth: f64,
    seq: u64,
    e: u32,
    f: u32,
    /// A root pair after the pretest, not yet tested: expanding it is its own test (one).
    untested: bool,
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
    /// The hot start: the leaf pair where the previous pose of this run of poses found its
    /// first contact ([`Hint`]).
    pub(crate) hot: Hint,
    /// A frontier left by the GPU's breadth-first search: the next [`search`] only bounds
    /// it ([`levels::replay`]).
    pub(crate) replay: Option<Vec<(u32, u32)>>,
    /// The breadth-first order's level being expanded: each entry with the range of its
    /// child pairs in `kids` (kept for its allocation).
    level: Vec<(Entry, u32, u32)>,
    /// Child pairs of the pairs being expanded ([`Walk::split`]; kept for its allocation).
    kids: Vec<(u32, u32)>,
    /// The pairs the search decided, for the next pose's front ([`front::Recorder`]; kept
    /// for its allocation).
    decided: Vec<(u32, u32)>,
    /// The breadth-first order's level as it came off the list (kept for its allocation).
    entries: Vec<Entry>,
    /// The child pairs of one expansion whose volumes overlap, with their bounds.
    hits: Vec<(u32, u32, f64)>,
    /// The walk's root pairs ([`Walk::roots`]).
    roots: Vec<(u32, u32)>,
}

/// The hot start of a budgeted search ([`Budget::hot_start`]), carried from one pose of a
/// path to the next. Temporal coherence (Klosowski et al. 1998, 6.1): on a motion path a
/// contact usually persists from one pose to the next, and so does the region of the two
/// trees where the search spends its tests. Two parts:
///
/// - the leaf pair (A's node, B's node) where the previous pose found its first contact,
///   whose triangles the next pose tests before anything else, so a pose in contact is
///   answered `contact` before the budget is spent;
/// - with [`Budget::front`], the previous pose's *front* (`src/budget/front.rs`): the node
///   pairs where its search stood when it had spent half its budget (or ended), which the
///   next pose tests first instead of the roots, skipping the tests above it.
///
/// The batch calls keep it within each fixed chunk of poses (so nothing depends on the
/// thread count), and use the front only across a step that [`crate::pose::coherent_step`]
/// calls coherent; a caller of [`crate::Collider::collide_budgeted_pose`] carries it from
/// pose to pose, with the same rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hint {
    /// The leaf pair of the previous first contact.
    pub(crate) contact: Option<(u32, u32)>,
    /// The previous pose's front (empty: start at the roots).
    pub(crate) front: Vec<(u32, u32)>,
    /// The previous pose of the path (searched or separated by the pretest), whose step to
    /// the next decides whether the front carries over ([`Hint::step_to`]).
    pub(crate) pose: Option<Pose>,
    /// The size of the front recorded by the last pose that started at the roots: a front
    /// grown past 5/4 of it starts the next pose at the roots ([`crate::traverse::regrown`]).
    pub(crate) root_front: usize,
    /// Poses started from a front since that pose (`front::REFRESH`).
    pub(crate) age: u32,
}

impl Hint {
    /// No hot start (the first pose of a path).
    pub const NONE: Hint = Hint {
        contact: None,
        front: Vec::new(),
        pose: None,
        root_front: 0,
        age: 0,
    };

    /// Forgets everything (a chunk's first pose), keeping the front's allocation.
    pub(crate) fn forget(&mut self) {
        self.contact = None;
        self.front.clear();
        self.pose = None;
        self.root_front = 0;
        self.age = 0;
    }

    /// Before the search of `pose`: keeps the front only when the step from the previous
    /// pose is coherent for B's box `b` ([`crate::pose::coherent_step`]). A pose the pretest
    /// separates keeps the front it did not search, for the next step.
    pub(crate) fn step_to(&mut self, pose: &Pose, b: ([f64; 3], [f64; 3])) {
        if self
            .pose
            .is_some_and(|p| !crate::pose::coherent_step(&p, pose, b.0, b.1))
        {
            self.front.clear();
        }
        self.pose = Some(*pose);
    }
}

/// A scene's workspace that holds a budgeted search's frontier.
pub(crate) trait HasFrontier {
    /// The frontier (and the hot start it keeps).
    fn frontier(&mut self) -> &mut Frontier;
}

impl Frontier {
    fn clear(&mut self) {
        self.heap.clear();
        self.list.clear();
        self.seq = 0;
    }

    /// Forgets the hot start (a chunk's first pose).
    pub(crate) fn forget_hot(&mut self) {
        self.hot.forget();
    }

    fn push(&mut self, order: Order, e: u32, f: u32, depth: f64) {
        self.push_entry(order, e, f, depth, false);
    }

    fn push_entry(&mut self, order: Order, e: u32, f: u32, depth: f64, untested: bool) {
        self.seq += 1;
        let entry = Entry {
            depth,
            seq: self.seq,
            e,
            f,
            untested,
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

/// A pair of hierarchies as the budgeted search walks them at one begun pose.
pub(crate) trait Walk {
    /// The hierarchy's sub-counters.
    type Sub: SubCounters;
    /// Tests node `e` of A against node `f` of B (the caller counts the test in Nv): `None`
    /// when the volumes are certainly disjoint, else an upper bound on the length of the
    /// shortest translation that separates their contents (module docs).
    fn test(&mut self, e: u32, f: u32, sub: &mut Self::Sub) -> Option<f64>;
    /// The child pairs of a pair whose volumes overlap by the hierarchy's own descent rule,
    /// appended to `kids` in the unbudgeted order (module docs; one test each when the pair
    /// is expanded); false, nothing appended, for a leaf pair ([`Walk::leaves`]).
    fn split(&mut self, e: u32, f: u32, kids: &mut Vec<(u32, u32)>) -> bool;
    /// The triangle tests of a leaf pair whose volumes overlap, appending `(tri_a, tri_b)`
    /// to `out`; true when the mode stops at the contact found.
    fn leaves(
        &mut self,
        e: u32,
        f: u32,
        out: &mut Vec<(u32, u32)>,
        c: &mut Counters<Self::Sub>,
    ) -> bool;
    /// The pairs the search begins with, appended in the unbudgeted order: `(0, 0)` of two
    /// trees; the R-tree's (A's root, each candidate triangle of B), [`crate::rtree`].
    fn roots(&mut self, roots: &mut Vec<(u32, u32)>) {
        roots.push((0, 0));
    }
    /// Whether any node pair can be tested at any time, so a front of the previous pose is
    /// a start ([`front`]): the binary trees. Not the boxtree (a node's test reads its
    /// parent's intervals) nor the R-tree (its roots depend on the pose).
    fn carries_front(&self) -> bool {
        true
    }
}

/// One budgeted pose: the search of the module docs over `walk` (begun for the pose).
/// `start` is the pretest's outcome (its test counted here). Nu is left to the caller.
/// With a replay on the frontier ([`Frontier::replay`]) nothing is searched: the status
/// carries the replayed frontier's bound ([`levels`]).
pub(crate) fn search<W: Walk>(
    walk: &mut W,
    budget: Budget,
    start: Start,
    frontier: &mut Frontier,
    out: &mut Vec<(u32, u32)>,
) -> (Counters<W::Sub>, PoseStatus) {
    if let Some(parents) = frontier.replay.take() {
        return levels::replay(walk, &parents);
    }
    let order = budget.order;
    let limit = budget.nodes.get();
    let carries = budget.front && walk.carries_front();
    let mut s = Search {
        walk,
        c: Counters {
            bv_tests: matches!(start, Start::Pretested(_)) as u64,
            ..Default::default()
        },
        limit,
        order,
        deadline: budget.time.map(|t| std::time::Instant::now() + t),
        expansions: 0,
        first_contact: None,
        rec: front::Recorder::start(std::mem::take(&mut frontier.decided), carries, limit),
    };
    frontier.clear();
    let found_before = out.len();
    let mut stopped = false;
    if let (true, Some((e, f))) = (budget.hot_start, frontier.hot.contact) {
        let before = out.len();
        stopped = s.walk.leaves(e, f, out, &mut s.c);
        if out.len() > before {
            s.first_contact = Some((e, f));
        }
    }
    let hot_front = carries
        && !frontier.hot.front.is_empty()
        && s.c.bv_tests + frontier.hot.front.len() as u64 <= limit
        && !crate::traverse::regrown(frontier.hot.front.len(), frontier.hot.root_front)
        && frontier.hot.age < front::REFRESH;
    if !stopped && hot_front {
        let front = std::mem::take(&mut frontier.hot.front);
        let mut hits = std::mem::take(&mut frontier.hits);
        s.expand(&front, &mut hits, frontier);
        frontier.hits = hits;
        frontier.hot.front = front;
    } else if !stopped {
        let mut roots = std::mem::take(&mut frontier.roots);
        roots.clear();
        s.walk.roots(&mut roots);
        match start {
            Start::Roots => {
                let mut hits = std::mem::take(&mut frontier.hits);
                s.expand(&roots, &mut hits, frontier);
                frontier.hits = hits;
            }
            Start::Pretested(d) | Start::Untested(d) => {
                // Depth-first pops from the back: the first root goes in last.
                let mut push = |&(e, f): &(u32, u32)| frontier.push_entry(order, e, f, d, true);
                match order {
                    Order::Depth => roots.iter().rev().for_each(&mut push),
                    Order::Best | Order::Breadth => roots.iter().for_each(&mut push),
                }
            }
        }
        frontier.roots = roots;
    }
    if !stopped {
        stopped = match order {
            Order::Breadth => levels::levelwise(&mut s, frontier, out),
            Order::Best | Order::Depth => pairwise::pairwise(&mut s, frontier, out),
        };
    }
    // The breadth-first order stops at a contact inside a level, whose pairs left are then
    // on neither side: no front from it.
    s.rec.end(frontier, !(stopped && order == Order::Breadth));
    if carries {
        let hot = &mut frontier.hot;
        if hot_front {
            hot.age += 1;
        } else {
            (hot.root_front, hot.age) = (hot.front.len(), 0);
        }
    }
    frontier.decided = s.rec.into_pairs();
    let found = out.len() > found_before;
    // A pose without a contact keeps the last hot start: the path may touch again there.
    if s.first_contact.is_some() {
        frontier.hot.contact = s.first_contact;
    }
    let complete = stopped || frontier.peek(order).is_none();
    let status = PoseStatus {
        answer: match (found, complete) {
            (true, _) => Answer::Contact,
            (false, true) => Answer::Free,
            (false, false) => Answer::Maybe,
        },
        complete,
        depth_bound: if complete { 0.0 } else { frontier.max_depth() },
        bv_tests: s.c.bv_tests,
    };
    (s.c, status)
}

/// The state of one budgeted pose's search.
struct Search<'w, W: Walk> {
    walk: &'w mut W,
    c: Counters<W::Sub>,
    /// The budget's node tests.
    limit: u64,
    order: Order,
    /// The wall-clock budget's end.
    deadline: Option<std::time::Instant>,
    expansions: u32,
    /// The leaf pair of this pose's first contact, the next pose's hot start.
    first_contact: Option<(u32, u32)>,
    /// The pairs decided, for the next pose's front.
    rec: front::Recorder,
}

impl<W: Walk> Search<'_, W> {
    /// The test of one node pair, counted: its bound if the volumes overlap.
    fn tested(&mut self, e: u32, f: u32) -> Option<f64> {
        self.c.bv_tests += 1;
        self.walk.test(e, f, &mut self.c.sub)
    }

    /// Tests `pairs` in order and puts those that overlap on the frontier (depth-first in
    /// reverse, so that the first is expanded first); `hits` is scratch.
    fn expand(
        &mut self,
        pairs: &[(u32, u32)],
        hits: &mut Vec<(u32, u32, f64)>,
        frontier: &mut Frontier,
    ) {
        hits.clear();
        for &(e, f) in pairs {
            match self.tested(e, f) {
                Some(d) => hits.push((e, f, d)),
                None => self.rec.decided(e, f),
            }
        }
        let order = self.order;
        let mut push = |&(e, f, d): &(u32, u32, f64)| frontier.push(order, e, f, d);
        match order {
            Order::Depth => hits.iter().rev().for_each(&mut push),
            Order::Best | Order::Breadth => hits.iter().for_each(&mut push),
        }
    }

    /// A leaf pair's triangle tests; true when the mode stops at a contact found.
    fn leaves(&mut self, e: u32, f: u32, out: &mut Vec<(u32, u32)>) -> bool {
        self.rec.decided(e, f);
        let before = out.len();
        let stop = self.walk.leaves(e, f, out, &mut self.c);
        if self.first_contact.is_none() && out.len() > before {
            self.first_contact = Some((e, f));
        }
        stop
    }

    /// Tests one pair: on the frontier with its bound if the volumes overlap, else decided.
    fn test_into(&mut self, e: u32, f: u32, frontier: &mut Frontier) {
        match self.tested(e, f) {
            Some(d) => frontier.push(self.order, e, f, d),
            None => self.rec.decided(e, f),
        }
    }

    /// Whether the wall-clock budget ran out (the clock read every 16 expansions).
    fn late(&mut self) -> bool {
        self.expansions = self.expansions.wrapping_add(1);
        self.expansions.is_multiple_of(16)
            && self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
    }
}

mod bound;
mod front;
mod levels;
mod pairwise;
pub(crate) mod skeleton;

#[cfg(test)]
mod tests;
