//! `--bv auto`, the default of two-mesh queries: the kdop18 tree and the OBB tree over one
//! topology, and a probe that picks the cheaper for a run of poses.
//!
//! Neither volume wins everywhere (measured in `docs/RESULTS.md`, "Which `--bv` for my
//! scene?", and `docs/notebook/hierarchies-compared.md`): the 18-DOPs are cheaper where
//! copies tumble through each other, the OBBs of Gottschalk, Lin and Manocha ("OBBTree: A
//! Hierarchical Structure for Rapid Interference Detection", 1996) fit curved surfaces that
//! lie close and parallel (nested spheres a gap apart, a touching wavy grid: several times
//! fewer node tests; `docs/notebook/moved-from-module-docs.md`). No property of the meshes
//! alone tells the cases apart — it depends on how the poses place them — and the two
//! trees' fronts stay alike until the OBBs resolve the gap, about halfway through the
//! descent (measured level by level), so racing both trees costs about twice the winner.
//! The probe samples instead:
//!
//! - the OBB tree is expanded breadth first from the root pair until its front (with the
//!   overlapping leaf pairs) holds [`SAMPLE_FRONT`] pairs; a pose answered before that is
//!   answered by the OBB tree and decides nothing (the trees' fronts are alike that high
//!   up; near misses cost the OBB tree no more than kdop18, whose top nodes are tumbled);
//! - both trees descend below [`SAMPLES`] pairs of that front, every `front / SAMPLES`-th
//!   (fewer when, after two, one estimate is [`DECISIVE`] times the other);
//!   the estimates are their node tests (an OBB test weighs [`OBB_TEST_COST`]) plus
//!   [`LEAF_COST`] per triangle test; the OBB tree is chosen when its estimate times
//!   [`OBB_MARGIN`] is below kdop18's;
//! - the chosen tree finishes the rest of the front, and answers the later poses;
//! - in a call of at least [`COMPARE_CALL`] poses, poses the OBB tree answered without a
//!   front to sample are compared whole (up to [`COMPARE_POSES`] of them, those of an
//!   estimate below [`COMPARE_LIGHT`] not compared): kdop18 runs each too, within the OBB
//!   tree's estimate so far times [`OBB_MARGIN`] (kdop18's estimate there also counts its
//!   tumbled nodes, [`TUMBLE_COST`] each); kdop18 is chosen when it stays within it until
//!   the OBB tree's estimates reach [`COMPARE_MIN`], the OBB tree as soon as it does not.
//!
//! The trees share one topology (the OBB tree is fitted on the 6-DOP tree, whose splits
//! read the same centroids as the 18-DOP tree's; [`AutoScene::build`] checks it, and
//! without it the probe is off and kdop18 answers), so a front of one is a front of the
//! other: a partition of the triangle pairs (`crate::traverse::descend_from`), and
//! whichever tree answers, the contacts are the same. Only the counters differ, and they
//! count everything done: Nv and Nu include the probe's node tests of both trees.
//!
//! A [`crate::Collider`] probes at the start of each call (batch, stream or single pose)
//! until a pose decides ([`AutoScene::probe_prefix`], at most [`PROBE_POSES`] poses, or
//! [`COMPARE_POSES`] in a call of [`COMPARE_CALL`] — a stream reads that many ahead to
//! know — then [`UNDECIDED`]), and gives the rest of the call to the chosen tree; on the
//! GPU the host's probe answers those first poses the same way and the device runs the
//! rest on the chosen tree, one pipeline per call, so both backends count the same work.
//! Used as a bare [`PairScene`], the scene probes once per chunk of [`POSE_CHUNK`] poses
//! (without comparing whole poses). `auto` holds both trees: about 1.9× kdop18's node
//! bytes, and both builds.

use crate::bvh::BuildOptions;
use crate::kdop::{KdopOptions, KdopScene};
use crate::mesh::Mesh;
use crate::obb::ObbScene;
use crate::pose::Pose;
use crate::scene::{
    Counters, Mode, PairScene, PoseResult, Progress, QueryOptions, SubCounters, WorkspacePool,
};
use crate::traverse::LevelScene;

pub use crate::scene::POSE_CHUNK;

mod calls;
pub use calls::answered;
use calls::on_kdop18;

pub use calls::Ahead;

/// What one leaf pair left to test costs, in kdop18 node tests (a triangle test costs about
/// 78 ns, a kdop18 node test with its share of tumbling about 27 ns:
/// `docs/notebook/cpu-speed-1-pretest-auto-cold-caches.md`, "The exact triangle test").
pub const LEAF_COST: f64 = 3.0;
/// What one OBB node test costs, in kdop18 node tests (36 ns against 27 ns on the deep
/// bunny, where both trees test about as many pairs).
pub const OBB_TEST_COST: f64 = 1.33;
/// What one kdop18 node tumbled costs in the whole-pose comparison ([`COMPARE_CALL`]), in
/// kdop18 node tests. The poses compared are light, so their tumbled nodes are near the
/// root, where hulls are large; [`LEAF_COST`] and [`OBB_TEST_COST`] were measured deep in
/// the trees, where tumbling is a small share. Measured on the side-by-side's tori
/// (`benches/peers`, the first eight poses repeated 1,000 times, `--coherence off`):
/// kdop18 2.66–2.83 µs a pose (55.5 node tests, 20 tumbled), the OBB tree 1.94–1.97 µs
/// (83.5 node tests, 111 by its estimate), so a tumble there costs about five node tests.
/// Counted as zero, the comparison picked kdop18 there, 12 % slower over the run (44.8
/// against 39.2 µs a pose); the demo's tori now go to the OBB tree too, as fast as kdop18
/// there (247.8 ms against 249–251). The light first poses still decide for the call: on
/// tori of 11,520 triangles tumbling a full turn (`tests/auto.rs`), whose later poses are
/// heavy, kdop18 is 6 % faster over 40 poses (314–330 against 339–349 µs), while the first
/// three take the OBB tree 1.5–6.0 µs against kdop18's 3.0–10.8.
pub const TUMBLE_COST: f64 = 5.0;
/// The front of the OBB tree's first levels that the probe samples, in pairs.
pub const SAMPLE_FRONT: usize = 1024;
/// Pairs of that front descended by both trees.
pub const SAMPLES: usize = 8;
/// After two samples, an estimate this many times the other's ends the sampling.
pub const DECISIVE: f64 = 3.0;
/// The OBB tree is chosen when its estimate times this is below the kdop18 tree's.
pub const OBB_MARGIN: f64 = 1.1;
/// Poses a call probes on the caller's thread before handing the rest to [`UNDECIDED`]:
/// one, so that a batch's other poses run in parallel, and a GPU run gives all but one to
/// the device (more in a long call: [`COMPARE_POSES`]).
pub const PROBE_POSES: usize = 1;
/// The tree for a call whose probed poses decided nothing: the OBB tree, which answered
/// them (poses that small: near misses, separated poses).
pub const UNDECIDED: Choice = Choice::Obb;
/// A call of at least this many poses whose first pose the OBB tree answered without a
/// front to sample, but at an estimate of at least [`COMPARE_MIN`], compares the trees on
/// that whole pose: the kdop18 tree runs it too, breadth first, until its estimate passes
/// the OBB tree's times [`OBB_MARGIN`] (then the OBB tree is chosen) or the pose ends
/// (kdop18). The comparison costs at most about one more pose of the OBB tree's, so it is
/// made only where that is a small part of the call (at most 1/32 of it if the poses cost
/// alike); the demo's interlocked tori are this case
/// (`docs/notebook/cpu-speed-1-pretest-auto-cold-caches.md`, "`--bv auto`"), as are random
/// soups that overlap in a slab (`tests/auto.rs`, where kdop18 wins).
pub const COMPARE_CALL: usize = 32;
/// The OBB tree's estimate over the poses compared that decides for kdop18 (below it, near
/// misses or separated poses, the few node tests say too little: the OBB tree answers).
pub const COMPARE_MIN: f64 = 512.0;
/// A pose the OBB tree answered at an estimate below this is not compared (a near miss:
/// so few node tests say nothing of the call, and the kdop18 tree's run, its root tumbled
/// and its trees read for the first time, cost more than the OBB tree's whole pose):
/// [`COMPARE_MIN`] spread over [`COMPARE_POSES`]. Measured on the side-by-side's near-miss
/// bunny (`benches/peers`, 500 poses, estimate about 36 per pose): comparing them made
/// `auto` 0.1–0.3 µs per pose slower than `--bv obb` (1.27 against 1.06, 1.54 against
/// 1.17 µs), for the same choice.
pub const COMPARE_LIGHT: f64 = COMPARE_MIN / COMPARE_POSES as f64;
/// Poses compared at most: the first poses are often lighter than the call's average (the
/// demo's first estimate is 118).
pub const COMPARE_POSES: usize = 8;

/// The estimates summed over the poses compared (whole poses, [`COMPARE_CALL`]).
#[derive(Debug, Default)]
struct Tally {
    obb: f64,
    kdop: f64,
}

/// Above this many triangles (A's and B's together) `auto` is kdop18 alone: the OBB fit
/// reads every triangle once per level, so on the dragon against itself (1.74M triangles)
/// both trees took 5.1 s and 1.54 GB against kdop18's 1.9 s and 0.96 GB
/// (`docs/notebook/cpu-speed-1-pretest-auto-cold-caches.md`, "`--bv auto`"), more than the
/// probe saves a batch of a few poses.
pub const MAX_TRIANGLES: usize = 1_000_000;

/// Which tree answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// The kdop18 tree.
    Kdop18,
    /// The OBB tree.
    Obb,
}

/// What `auto` did, per pose or summed: poses answered by each tree, and the probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AutoCounters {
    /// Poses the kdop18 tree answered (after the pretest).
    pub kdop18_poses: u64,
    /// Poses the OBB tree answered.
    pub obb_poses: u64,
    /// Probes run: on the pose that decided (one per call of a [`crate::Collider`]; one
    /// per chunk of a bare [`AutoScene`]).
    pub probes: u64,
    /// Node tests of the probes' losing trees, and of kdop18's runs on poses compared whole
    /// (their contacts dropped; included in Nv).
    pub probe_lost_tests: u64,
}

impl std::ops::AddAssign for AutoCounters {
    fn add_assign(&mut self, o: AutoCounters) {
        self.kdop18_poses += o.kdop18_poses;
        self.obb_poses += o.obb_poses;
        self.probes += o.probes;
        self.probe_lost_tests += o.probe_lost_tests;
    }
}

impl SubCounters for AutoCounters {}

/// The kdop18 and OBB trees of one scene.
#[derive(Debug)]
pub struct AutoScene {
    /// The kdop18 scene.
    pub kdop: KdopScene<9>,
    /// The OBB tree scene.
    pub obb: ObbScene,
    /// Whether a node index names the same triangles in both trees (the probe needs it).
    same_topology: bool,
    /// The probe's fronts kept between calls: grown afresh in every call, they took about a
    /// tenth of a near miss's one-pose call (interlocked tori, 1.7 µs), and a first pose
    /// that samples mapped their pages itself.
    fronts: WorkspacePool<Fronts>,
}

/// The probe's fronts: this level, the next, the overlapping leaf pairs, and scratch.
type Fronts = [Vec<(u32, u32)>; 4];

/// Both trees' workspaces, the chunk's choice (bare scene) and the probe's fronts.
#[derive(Debug)]
pub struct AutoWorkspace {
    k: Box<<KdopScene<9> as PairScene>::Workspace>,
    o: Box<<ObbScene as PairScene>::Workspace>,
    choice: Option<Choice>,
    fronts: Box<Fronts>,
}

impl AutoScene {
    /// Builds both scenes (in parallel).
    pub fn build(
        a: &Mesh,
        b: &Mesh,
        opt_a: &BuildOptions,
        opt_b: &BuildOptions,
        options: KdopOptions,
    ) -> Self {
        let (kdop, mut obb) = rayon::join(
            || KdopScene::build(a, b, opt_a, opt_b, options),
            || ObbScene::build(a, b, opt_a, opt_b),
        );
        obb.coherence = options.coherence;
        let same = |x: &crate::bvh::Bvh<9>, y: &crate::bvh::Bvh<3>| {
            x.tri_index == y.tri_index
                && x.nodes.len() == y.nodes.len()
                && x.nodes
                    .iter()
                    .zip(&y.nodes)
                    .all(|(m, n)| (m.first, m.count) == (n.first, n.count))
        };
        AutoScene {
            same_topology: same(&kdop.env, &obb.env) && same(&kdop.fly.bvh, &obb.fly),
            kdop,
            obb,
            fronts: WorkspacePool::default(),
        }
    }

    /// Puts the probe's fronts in their pool, each sized for [`SAMPLE_FRONT`] pairs twice
    /// over and its pages mapped, if the pool holds none: a call's probe then grows no
    /// vector (the allocations belong to the build, as the trees' workspaces do). With the
    /// other set-up costs of a call gone too, the first pose after the build of nested
    /// spheres 20k α = 0.1 went 52 → 44 µs (`examples/first_pose.rs`;
    /// `docs/notebook/cpu-speed-2-lanes-isa-node-order-batches.md`, "`auto`'s single
    /// calls").
    pub fn prepare(&self) {
        let sized = || {
            let mut v = vec![(0u32, 0u32); 2 * SAMPLE_FRONT];
            crate::tumble::touch_pages(&mut v);
            v.clear();
            v
        };
        self.fronts
            .fill_with(|| [sized(), sized(), sized(), sized()]);
    }

    /// The tree the probe picks for a batch (as [`AutoScene::probe_prefix`], its poses'
    /// results dropped; [`UNDECIDED`] when none decides).
    pub fn choose(&self, poses: &[Pose], opts: &QueryOptions) -> Choice {
        let mut probed = poses.iter().copied();
        self.probe_prefix(&mut probed, poses.len(), opts, |_| Ok::<(), ()>(()))
            .ok()
            .flatten()
            .unwrap_or(UNDECIDED)
    }

    /// Probes poses from `poses` in order, each answered by the probe and given to `sink`
    /// with its contacts sorted, until one decides: the choice, or `None` when none of the
    /// first [`PROBE_POSES`] (or of all, if fewer) needed one (separated by the pretest or
    /// answered by the OBB tree's first levels). The rest of `poses` is left unread.
    /// `call_poses`: how many poses the call has (at least), which allows the comparison
    /// of [`COMPARE_CALL`].
    pub fn probe_prefix<E>(
        &self,
        poses: &mut impl Iterator<Item = Pose>,
        call_poses: usize,
        opts: &QueryOptions,
        mut sink: impl FnMut(PoseResult<AutoCounters>) -> Result<(), E>,
    ) -> Result<Option<Choice>, E> {
        // The trees' own pooled workspaces (mapped at build), lent to the probe.
        fn take<S: PairScene>(s: &S) -> Box<S::Workspace> {
            match s.pool() {
                Some(pool) => pool.lend(s),
                None => Box::new(s.workspace()),
            }
        }
        let mut ws = AutoWorkspace {
            k: take(&self.kdop),
            o: take(&self.obb),
            choice: None,
            fronts: self.fronts.take().unwrap_or_default(),
        };
        self.begin_chunk(&mut ws);
        let mut choice = None;
        let mut result = Ok(());
        let compare = call_poses >= COMPARE_CALL;
        let mut tally = Tally::default();
        let most = if compare { COMPARE_POSES } else { PROBE_POSES };
        for pose in poses.by_ref().take(most) {
            let mut pairs = Vec::new();
            let tally = compare.then_some(&mut tally);
            let (counters, c) = self.probe(&pose, tally, opts, &mut ws, &mut pairs);
            pairs.sort_unstable();
            pairs.dedup();
            result = sink(PoseResult { pairs, counters });
            choice = c;
            if result.is_err() || choice.is_some() {
                break;
            }
        }
        if let (Some(pk), Some(po)) = (self.kdop.pool(), self.obb.pool()) {
            pk.put(ws.k);
            po.put(ws.o);
        }
        self.fronts.put(ws.fronts);
        result.map(|_| choice)
    }

    /// The probe on one pose (module doc): its contacts, counters and the choice, or no
    /// choice when the pose did not need one (separated by the pretest, or answered by the
    /// OBB tree's first levels).
    fn probe(
        &self,
        pose: &Pose,
        tally: Option<&mut Tally>,
        opts: &QueryOptions,
        ws: &mut AutoWorkspace,
        out: &mut Vec<(u32, u32)>,
    ) -> (Counters<AutoCounters>, Option<Choice>) {
        let (k, o) = (&self.kdop, &self.obb);
        let mut c = Counters::default();
        c.bv_tests += o.pretest().is_some() as u64;
        if !o.level_begin(pose, opts, &mut ws.o) {
            return (c.map_sub(|_| AutoCounters::default()), None);
        }
        let [front, next, leaves, scratch] = &mut *ws.fronts;
        for v in [&mut *front, &mut *next, &mut *leaves] {
            v.clear();
        }
        front.push((0, 0));
        // The OBB tree's first levels, breadth first, to a front worth sampling (its node
        // test needs nothing tumbled, and it answers near misses at least as fast).
        c += o.level_expand_below(pose, &mut ws.o, front, next, leaves, SAMPLE_FRONT);
        let answered = |c: Counters, sub: AutoCounters| c.map_sub(|_| sub);
        let first_found = |out: &Vec<_>| opts.mode == Mode::First && !out.is_empty();
        // Too few pairs to sample: the OBB tree answers (and if the kdop18 tree's pretest
        // separates the pose, which the OBB tree's did not, it finds nothing).
        if !self.same_topology
            || front.len() + leaves.len() < SAMPLE_FRONT
            || front.len() < SAMPLES
            || !k.level_begin(pose, opts, &mut ws.k)
        {
            c += o.level_leaves(pose, opts.mode, &mut ws.o, leaves, out);
            if !first_found(out) {
                c += o.level_finish(pose, opts.mode, &mut ws.o, front, out);
            }
            let mut sub = AutoCounters {
                obb_poses: 1,
                ..Default::default()
            };
            let Some(tally) = tally.filter(|_| self.same_topology && opts.mode == Mode::All) else {
                return (answered(c, sub), None);
            };
            // The comparison on whole poses ([`COMPARE_CALL`]): the OBB tree's estimate of
            // this pose (less the pretest's test), and the kdop18 tree's within the budget
            // the poses compared so far leave (nothing when its pretest separates).
            let pretest = o.pretest().is_some() as u64;
            let estimate =
                (c.bv_tests - pretest) as f64 * OBB_TEST_COST + LEAF_COST * c.tri_tests as f64;
            if estimate < COMPARE_LIGHT {
                return (answered(c, sub), None);
            }
            tally.obb += estimate;
            let budget = tally.obb * OBB_MARGIN - tally.kdop;
            let (ck, within) = if k.level_begin(pose, opts, &mut ws.k) {
                self.kdop_within(pose, opts, ws, budget)
            } else {
                (Counters::default(), true)
            };
            c += ck;
            tally.kdop += compared_estimate(&ck, 0);
            sub.probe_lost_tests = ck.bv_tests;
            let choice = if !within {
                Choice::Obb
            } else if tally.obb >= COMPARE_MIN {
                Choice::Kdop18
            } else {
                return (answered(c, sub), None);
            };
            sub.probes = 1;
            return (answered(c, sub), Some(choice));
        }
        // Both trees below every `stride`-th pair of the front (one topology: a pair names
        // the same triangles in both).
        let stride = front.len() / SAMPLES;
        let (mut ek, mut eo) = (0.0, 0.0);
        let mut lost = [0u64; 2];
        let mut done = 0;
        while done < SAMPLES {
            // A clear winner after a few samples ends the sampling (the loser's samples are
            // the probe's whole waste).
            if done >= 2 && (ek > DECISIVE * eo || eo > DECISIVE * ek) {
                break;
            }
            let p = &front[done * stride..done * stride + 1];
            done += 1;
            let ck = k.level_finish(pose, opts.mode, &mut ws.k, p, out);
            scratch.clear();
            let co = o.level_finish(pose, opts.mode, &mut ws.o, p, scratch);
            ek += ck.bv_tests as f64 + LEAF_COST * ck.tri_tests as f64;
            eo += co.bv_tests as f64 * OBB_TEST_COST + LEAF_COST * co.tri_tests as f64;
            c += ck;
            c += co;
            lost[0] += ck.bv_tests;
            lost[1] += co.bv_tests;
            if first_found(out) {
                return (answered(c, AutoCounters::default()), None);
            }
        }
        let choice = if eo * OBB_MARGIN < ek {
            Choice::Obb
        } else {
            Choice::Kdop18
        };
        // The rest of the front, on the tree chosen.
        let rest: Vec<(u32, u32)> = (0..front.len())
            .filter(|i| i % stride != 0 || i / stride >= done)
            .map(|i| front[i])
            .collect();
        let mut sub = AutoCounters {
            probes: 1,
            ..Default::default()
        };
        match choice {
            Choice::Kdop18 => {
                c += k.level_leaves(pose, opts.mode, &mut ws.k, leaves, out);
                if !first_found(out) {
                    c += k.level_finish(pose, opts.mode, &mut ws.k, &rest, out);
                }
                sub.kdop18_poses = 1;
                sub.probe_lost_tests = lost[1];
            }
            Choice::Obb => {
                c += o.level_leaves(pose, opts.mode, &mut ws.o, leaves, out);
                if !first_found(out) {
                    c += o.level_finish(pose, opts.mode, &mut ws.o, &rest, out);
                }
                sub.obb_poses = 1;
                sub.probe_lost_tests = lost[0];
            }
        }
        (answered(c, sub), Some(choice))
    }

    /// The kdop18 tree on a whole begun pose, breadth first, its contacts dropped, while
    /// its estimate stays within `budget` ([`COMPARE_CALL`]): its counters, and whether the
    /// pose ended within it.
    fn kdop_within(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut AutoWorkspace,
        budget: f64,
    ) -> (Counters, bool) {
        let k = &self.kdop;
        let [front, next, leaves, scratch] = &mut *ws.fronts;
        for v in [&mut *front, &mut *next, &mut *leaves, &mut *scratch] {
            v.clear();
        }
        front.push((0, 0));
        let mut c = Counters::default();
        while !front.is_empty() {
            next.clear();
            c += k.level_expand(pose, &mut ws.k, front, next, leaves);
            std::mem::swap(front, next);
            // Each leaf pair still to test costs at least one triangle test.
            if compared_estimate(&c, leaves.len()) > budget {
                return (c, false);
            }
        }
        c += k.level_leaves(pose, opts.mode, &mut ws.k, leaves, scratch);
        (c, compared_estimate(&c, 0) <= budget)
    }
}

/// The kdop18 tree's estimate of a pose compared whole ([`COMPARE_CALL`]): its node tests,
/// its tumbled nodes at [`TUMBLE_COST`] and its triangle tests and `leaves` leaf pairs still
/// to test at [`LEAF_COST`].
fn compared_estimate(c: &Counters, leaves: usize) -> f64 {
    c.bv_tests as f64
        + TUMBLE_COST * c.bv_updates as f64
        + LEAF_COST * (c.tri_tests as usize + leaves) as f64
}

impl PairScene for AutoScene {
    type Workspace = AutoWorkspace;
    type Sub = AutoCounters;

    fn workspace(&self) -> AutoWorkspace {
        AutoWorkspace {
            k: Box::new(self.kdop.workspace()),
            o: Box::new(self.obb.workspace()),
            choice: None,
            fronts: Default::default(),
        }
    }

    fn begin_chunk(&self, ws: &mut AutoWorkspace) {
        self.kdop.begin_chunk(&mut ws.k);
        self.obb.begin_chunk(&mut ws.o);
        ws.choice = None;
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut AutoWorkspace,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters<AutoCounters> {
        let answered = |c: Counters, choice| {
            let sub = answered(&c, choice);
            c.map_sub(|_| sub)
        };
        if !opts.tolerance.is_zero() {
            // A tolerance query runs on the kdop18 tree, without the probe.
            let c = self.kdop.collide_into(pose, opts, &mut ws.k, out);
            return answered(c, Choice::Kdop18);
        }
        match ws.choice {
            Some(Choice::Kdop18) => answered(
                self.kdop.collide_into(pose, opts, &mut ws.k, out),
                Choice::Kdop18,
            ),
            Some(Choice::Obb) => answered(
                self.obb.collide_into(pose, opts, &mut ws.o, out),
                Choice::Obb,
            ),
            None => {
                let (c, choice) = self.probe(pose, None, opts, ws, out);
                ws.choice = choice;
                c
            }
        }
    }

    fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        let (k, o) = (self.kdop.hierarchy_sizes(), self.obb.hierarchy_sizes());
        [0, 1].map(|i| (k[i].0, k[i].1 + o[i].1))
    }

    fn depths(&self) -> [u32; 2] {
        self.kdop.depths()
    }

    /// A single pose is a call of one pose: the probe answers it as it answers a call's
    /// first pose (`calls.rs`).
    fn collide(&self, pose: &Pose, opts: &QueryOptions) -> PoseResult<AutoCounters> {
        if !opts.tolerance.is_zero() {
            return on_kdop18(self.kdop.collide(pose, opts));
        }
        let mut r = self.batch(std::slice::from_ref(pose), opts, None);
        r.pop().unwrap_or_default()
    }

    fn collide_batch(
        &self,
        poses: &[Pose],
        opts: &QueryOptions,
        progress: Option<Progress<'_>>,
    ) -> Vec<PoseResult<AutoCounters>> {
        if !opts.tolerance.is_zero() {
            let r = self.kdop.collide_batch(poses, opts, progress);
            return r.into_iter().map(on_kdop18).collect();
        }
        self.batch(poses, opts, progress)
    }

    fn collide_each<E>(
        &self,
        poses: impl IntoIterator<Item = Pose>,
        opts: &QueryOptions,
        chunk: usize,
        sink: impl FnMut(usize, PoseResult<AutoCounters>) -> Result<(), E>,
    ) -> Result<(), E> {
        if !opts.tolerance.is_zero() {
            let mut sink = sink;
            return self
                .kdop
                .collide_each(poses, opts, chunk, |i, r| sink(i, on_kdop18(r)));
        }
        self.each(poses, opts, chunk, sink)
    }
}
