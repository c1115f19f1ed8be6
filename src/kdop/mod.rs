//! The k-DOP hierarchies of Klosowski et al. ("Efficient Collision Detection Using Bounding
//! Volume Hierarchies of k-DOPs", 1998) as a scene: A's hierarchy ([`Bvh`]) against B's
//! tumbled flying hierarchy ([`FlyingHierarchy`]), traversed by the shared skeleton
//! ([`crate::traverse`]) with the k-DOP slab test and a choice of [`Descent`] rule.

use crate::bvh::{BuildOptions, Bvh};
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub, PairScene, QueryOptions, WorkspacePool};
use crate::traverse::{FrontTrack, NodeTest, descend, descend_from, leaf_pair};
use crate::tumble::{FlyingHierarchy, TumbleMethod, TumbleWorkspace};
use pretest::BoxPretest;

pub(crate) mod budget;
pub mod candidates;
pub mod pretest;

/// Which hierarchy a node pair descends when both k-DOPs overlap.
///
/// [`Descent::Environment`] is Algorithm 1 of Klosowski et al. (section 4.2), made for a
/// small flying object in a large environment: A is descended to its leaves before B is
/// touched, so B's root is tested against every node of A it overlaps. With two objects of
/// similar size (two tumbling copies of a model) that visits, for every leaf of A in B's
/// root k-DOP, a whole descent of B. [`Descent::Larger`] is the usual rule for such pairs
/// (Gottschalk's OBBTree traversal; Zachmann's DOP-trees descend both): descend the node
/// whose k-DOP is larger (sum of its slab widths, B's tumbled k-DOP), A on ties, the other
/// one when a node is a leaf. Both rules test only overlapping pairs and reach every leaf
/// pair whose k-DOPs overlap along the way, so the contacts are the same; Nv and Np differ.
/// Both rules run on the CPU and the GPU (`expand` in `shaders/front_expand.wgsl` compares
/// the same f32 sizes, [`crate::bv::Kdop::size`]; the parity tests check Nv for both).
/// `Larger` is the default: on the vs_parry scenes it tests 3–15× fewer node pairs
/// (`docs/notebook/vs-parry3d.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Descent {
    /// Algorithm 1: descend A to its leaves, then B.
    Environment,
    /// Descend the node with the larger k-DOP (the default).
    #[default]
    Larger,
}

option_names! {
    Descent, kind "descent", all ALL {
        Environment => "env": "Algorithm 1 of Klosowski et al.: descend A to its leaves, then B",
        Larger => "larger": "Descend the node with the larger k-DOP (the default, CPU and GPU)",
    }
}

/// Options of the k-DOP scene's traversal (both backends).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KdopOptions {
    /// The descent rule (same contacts, different Nv), on both backends.
    pub descent: Descent,
    /// B's posed box against A's box before anything is tumbled
    /// ([`pretest::BoxPretest`]); counted as one test (Nv) per pose. On by default.
    pub pretest: bool,
    /// Temporal coherence (all-contacts mode, both backends): each pose of a chunk of
    /// consecutive poses starts from the node pairs where the previous pose's descent
    /// stopped, not from the roots (`traverse::descend_from`: the same pairs, fewer node
    /// tests on coherent sequences). The GPU runs the same rule, chunk by chunk, so both
    /// backends count the same Nv, Np and Nu (`gpu::collide`, steps of one pose per chunk).
    /// The collider applies it to the OBB and sphere trees and `auto` too, on the CPU
    /// ([`crate::BvKind::coherent`]). Off by default.
    pub coherence: bool,
}

impl Default for KdopOptions {
    fn default() -> Self {
        KdopOptions {
            descent: Descent::default(),
            pretest: true,
            coherence: false,
        }
    }
}

impl KdopOptions {
    /// Algorithm 1's descent from the roots (Klosowski et al. 1998, 4.2), no pretest.
    pub const PAPER: KdopOptions = KdopOptions {
        descent: Descent::Environment,
        pretest: false,
        coherence: false,
    };

    /// The default options with another descent rule.
    pub fn with_descent(descent: Descent) -> Self {
        KdopOptions {
            descent,
            ..Default::default()
        }
    }
}

/// Per-thread scratch state of the traversal.
#[derive(Debug)]
pub struct KdopWorkspace<const H: usize> {
    /// B's k-DOPs tumbled for the current pose.
    pub tumble: TumbleWorkspace<H>,
    pub(crate) stack: Vec<(u32, u32)>,
    /// Temporal coherence's fronts and off-switch.
    pub(crate) track: FrontTrack,
    /// A budgeted pose's frontier ([`crate::budget`]).
    pub(crate) frontier: crate::budget::Frontier,
}

impl<const H: usize> KdopWorkspace<H> {
    /// A workspace for B's hierarchy.
    pub fn new(fly: &FlyingHierarchy<H>) -> Self {
        KdopWorkspace {
            tumble: TumbleWorkspace::new(fly),
            stack: Vec::with_capacity(256),
            track: FrontTrack::default(),
            frontier: Default::default(),
        }
    }
}

/// The k-DOP slab test of A's node against B's tumbled node.
struct SlabTest<'s, const H: usize> {
    env: &'s Bvh<H>,
    fly: &'s FlyingHierarchy<H>,
    descent: Descent,
}

impl<const H: usize> NodeTest<H> for SlabTest<'_, H> {
    type Sub = NoSub;

    #[inline(always)]
    fn overlaps(&mut self, t: &mut TumbleWorkspace<H>, e: usize, f: usize, _: &mut NoSub) -> bool {
        self.env.nodes[e].bv.overlaps(t.node_bv(self.fly, f))
    }

    #[inline(always)]
    fn prefer_a(&mut self, t: &mut TumbleWorkspace<H>, e: usize, f: usize) -> bool {
        self.descent == Descent::Environment
            || self.env.nodes[e].bv.size() >= t.node_bv(self.fly, f).size()
    }
}

/// [`SlabTest`] for a tolerance query ([`crate::proximity`]): the slabs grown by the
/// margins of [`crate::proximity::kdops_within`], the leaves tested by
/// [`crate::proximity::tri_tri_within`], or, without `decide`, every leaf pair reached
/// taken as a candidate ([`candidates`]). The descent rule compares the k-DOPs as they are.
struct WithinSlabTest<'s, const H: usize> {
    slab: SlabTest<'s, H>,
    margins: [f32; H],
    eps: f64,
    decide: bool,
}

impl<const H: usize> NodeTest<H> for WithinSlabTest<'_, H> {
    type Sub = NoSub;

    #[inline(always)]
    fn overlaps(&mut self, t: &mut TumbleWorkspace<H>, e: usize, f: usize, _: &mut NoSub) -> bool {
        let s = &self.slab;
        crate::proximity::kdops_within(&s.env.nodes[e].bv, t.node_bv(s.fly, f), &self.margins)
    }

    #[inline(always)]
    fn prefer_a(&mut self, t: &mut TumbleWorkspace<H>, e: usize, f: usize) -> bool {
        self.slab.prefer_a(t, e, f)
    }

    #[inline(always)]
    fn tri_hit(&self, a: &[crate::tri::P3; 3], b: &[crate::tri::P3; 3]) -> bool {
        !self.decide || crate::proximity::tri_tri_within(a, b, self.eps)
    }
}

/// Runs the traversal for one pose with a [`Descent`] rule, appending `(tri_a, tri_b)` in
/// the meshes' own triangle numbering (unsorted) to `out`.
#[allow(clippy::too_many_arguments)]
pub fn collide_pose<const H: usize>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    pose: &Pose,
    mode: Mode,
    method: TumbleMethod,
    descent: Descent,
    ws: &mut KdopWorkspace<H>,
    out: &mut Vec<(u32, u32)>,
) -> Counters {
    ws.tumble
        .begin(fly, &fly.local_pose(env.frame(), pose), method);
    let mut test = SlabTest { env, fly, descent };
    let mut c = descend(
        env,
        fly,
        pose,
        mode,
        &mut ws.tumble,
        &mut ws.stack,
        &mut test,
        out,
    );
    c.bv_updates = ws.tumble.updates;
    c
}

/// Both k-DOP hierarchies of a scene, for one k (`H = k/2` slabs).
#[derive(Debug)]
pub struct KdopScene<const H: usize> {
    /// A's hierarchy.
    pub env: Bvh<H>,
    /// B's hierarchy, with what tumbling needs.
    pub fly: FlyingHierarchy<H>,
    /// The traversal's options.
    pub options: KdopOptions,
    /// B's and A's boxes ([`KdopOptions::pretest`]); `None` for an empty mesh.
    pub boxes: Option<BoxPretest>,
    pool: WorkspacePool<KdopWorkspace<H>>,
}

impl<const H: usize> KdopScene<H> {
    /// Builds A's and B's hierarchies (in parallel).
    pub fn build(
        a: &Mesh,
        b: &Mesh,
        opt_a: &BuildOptions,
        opt_b: &BuildOptions,
        options: KdopOptions,
    ) -> Self {
        let (env, fly) = rayon::join(|| Bvh::build(a, opt_a), || Bvh::build(b, opt_b));
        KdopScene::from_hierarchies(env, FlyingHierarchy::new(fly), options)
    }

    /// The scene of two hierarchies already built (or loaded from `.mch` files, B's with
    /// its bounding points: [`FlyingHierarchy::with_points`]); neither is rebuilt.
    pub fn from_hierarchies(env: Bvh<H>, fly: FlyingHierarchy<H>, options: KdopOptions) -> Self {
        KdopScene {
            boxes: BoxPretest::new(&env, &fly.bvh),
            env,
            fly,
            options,
            pool: Default::default(),
        }
    }

    /// The slab test with this scene's descent rule.
    fn slab_test(&self) -> SlabTest<'_, H> {
        SlabTest {
            env: &self.env,
            fly: &self.fly,
            descent: self.options.descent,
        }
    }

    /// The pretest, if on and possible.
    pub fn pretest(&self) -> Option<&BoxPretest> {
        self.boxes.as_ref().filter(|_| self.options.pretest)
    }

    /// One pose of a tolerance query (`opts.tolerance` not zero): the pretest's box and
    /// every slab grown by `ε`, the leaves tested by distance; from the roots (temporal
    /// coherence's fronts are the intersection query's).
    fn within_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut KdopWorkspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        self.grown_into(pose, opts, opts.tolerance.get(), true, ws, out)
    }

    /// [`KdopScene::within_into`] at tolerance `eps`, the leaf pairs decided by distance
    /// (`decide`) or all taken ([`candidates`]).
    fn grown_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        eps: f64,
        decide: bool,
        ws: &mut KdopWorkspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        ws.track.forget();
        let pretest = self.pretest().map(|t| t.widened(eps));
        if pretest.is_some_and(|t| t.separated(pose)) {
            return Counters {
                bv_tests: 1,
                ..Default::default()
            };
        }
        let (env, fly) = (&self.env, &self.fly);
        ws.tumble
            .begin(fly, &fly.local_pose(env.frame(), pose), opts.tumble);
        let mut test = WithinSlabTest {
            slab: self.slab_test(),
            margins: crate::proximity::slab_margins_f32::<H>(eps),
            eps,
            decide,
        };
        let mut c = descend(
            env,
            fly,
            pose,
            if decide { opts.mode } else { Mode::All },
            &mut ws.tumble,
            &mut ws.stack,
            &mut test,
            out,
        );
        c.bv_updates = ws.tumble.updates;
        c.bv_tests += pretest.is_some() as u64;
        c
    }

    /// One pose from the previous pose's front (the roots at a chunk's start), recording
    /// this pose's front for the next ([`KdopOptions::coherence`], the rule of
    /// [`FrontTrack`]).
    fn collide_coherent(
        &self,
        pose: &Pose,
        method: TumbleMethod,
        ws: &mut KdopWorkspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        let (env, fly) = (&self.env, &self.fly);
        ws.tumble
            .begin(fly, &fly.local_pose(env.frame(), pose), method);
        let from_roots = ws.track.seed(&mut ws.stack);
        let mut test = self.slab_test();
        let mut c = descend_from(
            env,
            fly,
            pose,
            Mode::All,
            &mut ws.tumble,
            &mut ws.stack,
            &mut test,
            out,
            Some(&mut ws.track.next),
        );
        ws.track.finish(from_roots, c.bv_tests);
        c.bv_updates = ws.tumble.updates;
        c
    }
}

impl<const H: usize> PairScene for KdopScene<H> {
    type Workspace = KdopWorkspace<H>;
    type Sub = NoSub;

    fn workspace(&self) -> KdopWorkspace<H> {
        KdopWorkspace::new(&self.fly)
    }

    fn prefault(&self, ws: &mut KdopWorkspace<H>) {
        ws.tumble.prefault();
    }

    fn begin_chunk(&self, ws: &mut KdopWorkspace<H>) {
        // Hill climbing starts where a fresh workspace would, the descent at the roots.
        ws.tumble.restart();
        ws.track.restart();
        ws.frontier.forget_hot();
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut KdopWorkspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        if !opts.tolerance.is_zero() {
            return self.within_into(pose, opts, ws, out);
        }
        let pretest = self.pretest();
        if pretest.is_some_and(|t| t.separated(pose)) {
            ws.track.forget();
            return Counters {
                bv_tests: 1,
                ..Default::default()
            };
        }
        if self.options.coherence && opts.mode == Mode::All && ws.track.on() {
            let mut c = self.collide_coherent(pose, opts.tumble, ws, out);
            c.bv_tests += pretest.is_some() as u64;
            return c;
        }
        let mut c = collide_pose(
            &self.env,
            &self.fly,
            pose,
            opts.mode,
            opts.tumble,
            self.options.descent,
            ws,
            out,
        );
        c.bv_tests += pretest.is_some() as u64;
        c
    }

    fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        [
            (self.env.nodes.len(), self.env.node_bytes()),
            (self.fly.bvh.nodes.len(), self.fly.bvh.node_bytes()),
        ]
    }

    fn depths(&self) -> [u32; 2] {
        [self.env.depth, self.fly.bvh.depth]
    }

    fn pool(&self) -> Option<&WorkspacePool<Self::Workspace>> {
        Some(&self.pool)
    }
}

impl<const H: usize> crate::traverse::LevelScene for KdopScene<H> {
    fn level_begin(&self, pose: &Pose, opts: &QueryOptions, ws: &mut KdopWorkspace<H>) -> bool {
        if self.pretest().is_some_and(|t| t.separated(pose)) {
            return false;
        }
        let (env, fly) = (&self.env, &self.fly);
        ws.tumble
            .begin(fly, &fly.local_pose(env.frame(), pose), opts.tumble);
        true
    }

    fn level_expand(
        &self,
        _pose: &Pose,
        ws: &mut KdopWorkspace<H>,
        front: &[(u32, u32)],
        next: &mut Vec<(u32, u32)>,
        leaves: &mut Vec<(u32, u32)>,
    ) -> Counters {
        let mut test = self.slab_test();
        let before = ws.tumble.updates;
        let mut c = crate::traverse::expand_level(
            &self.env,
            &self.fly,
            &mut ws.tumble,
            &mut test,
            front,
            next,
            leaves,
        );
        c.bv_updates = ws.tumble.updates - before;
        c
    }

    fn level_leaves(
        &self,
        pose: &Pose,
        mode: Mode,
        ws: &mut KdopWorkspace<H>,
        leaves: &[(u32, u32)],
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        let mut c = Counters::default();
        let before = ws.tumble.updates;
        let test = self.slab_test();
        for &(e, f) in leaves {
            let (e, f) = (e as usize, f as usize);
            if leaf_pair(
                &self.env,
                &self.fly,
                pose,
                mode,
                &mut ws.tumble,
                &test,
                e,
                f,
                out,
                &mut c,
            ) {
                break;
            }
        }
        c.bv_updates = ws.tumble.updates - before;
        c
    }

    fn level_finish(
        &self,
        pose: &Pose,
        mode: Mode,
        ws: &mut KdopWorkspace<H>,
        start: &[(u32, u32)],
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        let mut test = self.slab_test();
        ws.stack.clear();
        ws.stack.extend(start.iter().rev());
        let before = ws.tumble.updates;
        let mut c = descend_from(
            &self.env,
            &self.fly,
            pose,
            mode,
            &mut ws.tumble,
            &mut ws.stack,
            &mut test,
            out,
            None,
        );
        c.bv_updates = ws.tumble.updates - before;
        c
    }
}
