//! The lecture's remaining volumes (the University of Freiburg's slides *Collision
//! Detection*, "Bounding Volumes"): the OBB tree of Gottschalk, Lin and Manocha
//! (`--bv obb`), and the volume-tree machinery the sphere tree (`--bv sphere`,
//! [`crate::sphere`]) shares with it, on the CPU and the GPU.
//!
//! Both reuse the k-DOP builder's topology: a [`Bvh<3>`] (the kdop6 tree; with the default
//! splatter rule the splits read only the triangles' centroids, so it is the kdop18 tree's
//! topology too) carries the node ranges and the reordered triangles, and a flat `Vec` of
//! volumes beside it holds one volume per node, fitted to the node's triangles in the
//! hierarchy's local frame ([`crate::frame`]). The volumes move with the object: B's volume
//! is posed rigidly on its first test in a pose (no tumbling, no hull), kept for the pose,
//! and tested conservatively, in f32 with every operation flushed, so that the GPU's
//! kernels (`expand_obb`, `expand_sphere` in `shaders/front_expand.wgsl`) make the same
//! decisions bit for bit:
//! - [`Obb32`]: principal axes of the area-weighted covariance ([`fit`]), the 15-axis
//!   separating axis test with proved slack ([`sat::obb_disjoint`]);
//! - the sphere tree's spheres: [`crate::sphere`] (only its [`Volume`] is its own).
//!
//! Each pose first runs the k-DOP scene's posed-box pretest ([`BoxPretest`]: B's f64 box,
//! posed, against A's box; proved there), so a pose that misses by a box costs what it
//! costs the k-DOPs. Counters: Nv = node pairs tested (one OBB or sphere test each) plus
//! the pretest, Np = triangle pairs, Nu = B's volumes posed (on the CPU each node of B once
//! per pose, on its first test; the GPU poses B's volume in every node test, so its Nu is
//! its node tests). Posing once per pose instead of once per pair (the same values, so the
//! same proofs) made both trees' queries faster (measured in
//! `docs/notebook/hierarchies-compared.md`, "OBB and sphere trees").

mod descend;
pub mod fit;
pub mod sat;
mod sat_lanes;
mod sat_ops;

use crate::bvh::{BuildOptions, Bvh};
use crate::frame::LocalPose;
use crate::kdop::pretest::BoxPretest;
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub, PairScene, QueryOptions, WorkspacePool};
pub use descend::VolumeWorkspace;
pub use descend::{LEVEL_FRONT, LEVELS_ABOVE_BYTES, Link};
use descend::{PairTest, Tree, descend};
pub use fit::{Obb, Obb32};
use rayon::prelude::*;
pub use sat::PoseCheck;
use sat::{ScreenedObb, obb_disjoint_cpu, obb_posed_cpu};

/// A bounding volume of a volume tree: fitted per node, B's posed once per pose.
pub trait Volume: Copy + Send + Sync + std::fmt::Debug + 'static {
    /// One volume per node of `bvh`, indexed like its nodes (local frame).
    fn fit_nodes(bvh: &Bvh<3>) -> Vec<Self>;
    /// B's volume at a pose (A's local frame).
    type Posed: Copy + Default + Send + Sync + std::fmt::Debug + 'static;
    /// Poses B's volume `b`.
    fn pose(b: &Self, pose: &PoseCheck) -> Self::Posed;
    /// Whether A's `a` and B's posed `b` are certainly disjoint.
    fn disjoint(a: &Self, b: &Self::Posed, pose: &PoseCheck) -> bool;
    /// Size for the descent rule (larger descends first).
    fn size(&self) -> f64;
}

impl Volume for Obb32 {
    /// Each node's box: the axes from its moments (`fit::node_moments`, one pass over the
    /// triangles for the whole tree), then its centre and proved extents from its own
    /// corners (two passes over each node's triangles, where one fit per node took five,
    /// its moments and the f64 extents that the f32 box does not read among them).
    fn fit_nodes(bvh: &Bvh<3>) -> Vec<Obb32> {
        let corners: Vec<[[f64; 3]; 3]> = (0..bvh.tris.len())
            .into_par_iter()
            .map(|p| bvh.tris.corners_local_f64(p))
            .collect();
        let ranges = bvh.node_ranges();
        let moments = fit::node_moments(bvh, &ranges, &corners);
        ranges
            .par_iter()
            .zip(&moments)
            .map(|(&(s, e), m)| {
                let tris = &corners[s as usize..e as usize];
                let axes = fit::checked(fit::node_axes(m, tris));
                Obb32::from_fit(&axes, Obb::centre(&axes, tris), tris)
            })
            .collect()
    }

    type Posed = ScreenedObb;

    #[inline(always)]
    fn pose(b: &Obb32, pose: &PoseCheck) -> ScreenedObb {
        obb_posed_cpu(b, pose)
    }

    #[inline(always)]
    fn disjoint(a: &Obb32, b: &ScreenedObb, _: &PoseCheck) -> bool {
        obb_disjoint_cpu(a, b)
    }

    #[inline]
    fn size(&self) -> f64 {
        self.size as f64
    }
}

/// Both volume trees of a scene: A's and B's topology and triangles, and their volumes.
#[derive(Debug)]
pub struct VolumeScene<V: Volume> {
    /// A's tree (topology, triangles, frame; its 6-DOPs are not used by the query).
    pub env: Bvh<3>,
    /// A's volumes, indexed like `env.nodes`.
    pub env_bv: Vec<V>,
    /// B's tree.
    pub fly: Bvh<3>,
    /// B's volumes, indexed like `fly.nodes`.
    pub fly_bv: Vec<V>,
    /// A's and B's topology as the descent reads it ([`Link`]), indexed like their nodes.
    links: [Vec<Link>; 2],
    /// The pose-level box test run before the roots.
    boxes: Option<BoxPretest>,
    pool: WorkspacePool<VolumeWorkspace<V::Posed>>,
    /// Temporal coherence in all-contacts mode (`crate::traverse::FrontTrack`, the
    /// k-DOPs' rule; CPU only: the GPU runs these trees from the roots). Off by default.
    pub coherence: bool,
}

/// The OBB tree scene (`--bv obb`).
pub type ObbScene = VolumeScene<Obb32>;

impl<V: Volume> VolumeScene<V> {
    /// Builds both trees and their volumes (in parallel).
    pub fn build(a: &Mesh, b: &Mesh, opt_a: &BuildOptions, opt_b: &BuildOptions) -> Self {
        let side = |m: &Mesh, o: &BuildOptions| {
            let bvh = Bvh::<3>::build(m, o);
            let bv = V::fit_nodes(&bvh);
            (bvh, bv)
        };
        let ((env, env_bv), (fly, fly_bv)) = rayon::join(|| side(a, opt_a), || side(b, opt_b));
        VolumeScene {
            boxes: BoxPretest::new(&env, &fly),
            links: [Link::of(&env), Link::of(&fly)],
            env,
            env_bv,
            fly,
            fly_bv,
            pool: Default::default(),
            coherence: false,
        }
    }

    /// The scene with temporal coherence on or off ([`VolumeScene::coherence`]).
    pub fn with_coherence(mut self, on: bool) -> Self {
        self.coherence = on;
        self
    }

    /// The pose-level box test run before the roots, if the trees are not empty.
    pub fn pretest(&self) -> Option<&BoxPretest> {
        self.boxes.as_ref()
    }

    /// Bytes of one node: the volume and the topology (`first`, `count`).
    pub const NODE_BYTES: usize = std::mem::size_of::<V>() + 8;
}

/// The node test of one pose, its set-up borrowed: a batch's pose holds it in its own
/// frame, the level calls of `crate::auto`'s probe in the workspace across the pose's
/// levels ([`VolumeScene::check_in`]).
struct Test<'s, V: Volume> {
    s: &'s VolumeScene<V>,
    pose: &'s PoseCheck,
}

impl<V: Volume> PairTest for Test<'_, V> {
    type Posed = V::Posed;

    #[inline(always)]
    fn pose(&self, f: usize) -> V::Posed {
        V::pose(&self.s.fly_bv[f], self.pose)
    }

    #[inline(always)]
    fn disjoint(&self, e: usize, b: &V::Posed) -> bool {
        V::disjoint(&self.s.env_bv[e], b, self.pose)
    }

    #[inline]
    fn prefer_a(&self, e: usize, f: usize) -> bool {
        self.s.env_bv[e].size() >= self.s.fly_bv[f].size()
    }

    #[inline]
    fn prefetch(&self, e: usize, f: usize) {
        crate::prefetch::prefetch(&self.s.env_bv[e]);
        crate::prefetch::prefetch(&self.s.fly_bv[f]);
    }
}

impl<V: Volume> PairScene for VolumeScene<V> {
    type Workspace = VolumeWorkspace<V::Posed>;
    type Sub = NoSub;

    fn workspace(&self) -> VolumeWorkspace<V::Posed> {
        VolumeWorkspace::new(&self.fly)
    }

    fn prefault(&self, ws: &mut VolumeWorkspace<V::Posed>) {
        ws.prefault();
    }

    fn begin_chunk(&self, ws: &mut VolumeWorkspace<V::Posed>) {
        ws.track.restart();
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut VolumeWorkspace<V::Posed>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        // By reference: `is_some_and` on the `Option<BoxPretest>` itself copied its 96
        // bytes to the stack for every pose, and the test's loads then waited on those
        // stores (a pose the pretest separates: 23 → 12 ns,
        // `docs/notebook/cpu-speed-2-lanes-isa-node-order-batches.md`, "Separated poses").
        if self.boxes.as_ref().is_some_and(|t| t.separated(pose)) {
            ws.track.forget();
            return Counters {
                bv_tests: 1,
                ..Default::default()
            };
        }
        let check = self.check(pose);
        let test = Test {
            s: self,
            pose: &check,
        };
        let (env, fly) = self.trees();
        let mut c = if self.coherence && opts.mode == Mode::All && ws.track.on() {
            descend::descend_coherent(env, fly, pose, &test, ws, out)
        } else {
            descend(env, fly, pose, opts.mode, &test, ws, out)
        };
        c.bv_tests += self.boxes.is_some() as u64;
        c
    }

    fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        [&self.env, &self.fly].map(|t| (t.nodes.len(), t.nodes.len() * Self::NODE_BYTES))
    }

    fn depths(&self) -> [u32; 2] {
        [self.env.depth, self.fly.depth]
    }

    fn pool(&self) -> Option<&WorkspacePool<VolumeWorkspace<V::Posed>>> {
        Some(&self.pool)
    }
}

impl<V: Volume> VolumeScene<V> {
    /// A's and B's trees as the descent reads them.
    fn trees(&self) -> (Tree<'_>, Tree<'_>) {
        let [la, lb] = &self.links;
        (
            Tree {
                bvh: &self.env,
                links: la,
            },
            Tree {
                bvh: &self.fly,
                links: lb,
            },
        )
    }

    /// The node-test set-up of `pose`.
    fn check(&self, pose: &Pose) -> PoseCheck {
        PoseCheck::new(LocalPose::new(pose, self.env.frame(), self.fly.frame()))
    }

    /// [`Self::check`], kept in `ws` for the same pose's later calls and lent out of it
    /// (a box moved, not the set-up copied): `crate::auto`'s probe makes several level
    /// calls a pose (its first levels, each sample, the finish), and the set-up made anew
    /// for each level was 5 % of a near miss's call (interlocked tori, about 80 node tests
    /// in a dozen levels). The same pose is the same bits, so the set-up is the same. Give
    /// it back with `ws.check = Some(..)`.
    fn check_in(&self, pose: &Pose, ws: &mut VolumeWorkspace<V::Posed>) -> Box<(Pose, PoseCheck)> {
        let bits = |p: &Pose| (p.q.map(f64::to_bits), p.t.map(f64::to_bits));
        match ws.check.take() {
            Some(kept) if bits(&kept.0) == bits(pose) => kept,
            Some(mut kept) => {
                *kept = (*pose, self.check(pose));
                kept
            }
            None => Box::new((*pose, self.check(pose))),
        }
    }

    /// `f` with the node test of `pose`, its set-up lent by `ws` ([`Self::check_in`]) and
    /// given back after.
    fn with_test<R>(
        &self,
        pose: &Pose,
        ws: &mut VolumeWorkspace<V::Posed>,
        f: impl FnOnce(&Test<'_, V>, &mut VolumeWorkspace<V::Posed>) -> R,
    ) -> R {
        let check = self.check_in(pose, ws);
        let test = Test {
            s: self,
            pose: &check.1,
        };
        let r = f(&test, ws);
        ws.check = Some(check);
        r
    }

    /// [`LevelScene::level_expand`](crate::traverse::LevelScene::level_expand) level after
    /// level while `front` is not empty and holds, with `leaves`, fewer than `limit` pairs,
    /// in one call (`descend::expand_levels_below`); `front` ends as the last level's (`next`
    /// is scratch). `crate::auto`'s probe expands its first levels so.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn level_expand_below(
        &self,
        pose: &Pose,
        ws: &mut VolumeWorkspace<V::Posed>,
        front: &mut Vec<(u32, u32)>,
        next: &mut Vec<(u32, u32)>,
        leaves: &mut Vec<(u32, u32)>,
        limit: usize,
    ) -> Counters {
        let (env, fly) = self.trees();
        self.with_test(pose, ws, |test, ws| {
            descend::expand_levels_below(env, fly, test, ws, front, next, leaves, limit)
        })
    }
}

impl<V: Volume> crate::traverse::LevelScene for VolumeScene<V> {
    fn level_begin(&self, pose: &Pose, _: &QueryOptions, ws: &mut Self::Workspace) -> bool {
        if self.boxes.as_ref().is_some_and(|t| t.separated(pose)) {
            return false;
        }
        descend::begin_pose(ws);
        true
    }

    fn level_expand(
        &self,
        pose: &Pose,
        ws: &mut Self::Workspace,
        front: &[(u32, u32)],
        next: &mut Vec<(u32, u32)>,
        leaves: &mut Vec<(u32, u32)>,
    ) -> Counters {
        let (env, fly) = self.trees();
        self.with_test(pose, ws, |test, ws| {
            descend::expand_level(env, fly, test, ws, front, next, leaves)
        })
    }

    fn level_leaves(
        &self,
        pose: &Pose,
        mode: Mode,
        ws: &mut Self::Workspace,
        leaves: &[(u32, u32)],
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        let mut c = Counters::default();
        let (env, fly) = self.trees();
        for &(e, f) in leaves {
            let (e, f) = (e as usize, f as usize);
            if descend::leaf_pair(env, fly, pose, mode, ws, e, f, out, &mut c) {
                break;
            }
        }
        c
    }

    fn level_finish(
        &self,
        pose: &Pose,
        mode: Mode,
        ws: &mut Self::Workspace,
        start: &[(u32, u32)],
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        let bytes: usize = self.hierarchy_sizes().iter().map(|s| s.1).sum();
        let (env, fly) = self.trees();
        self.with_test(pose, ws, |test, ws| {
            if mode == Mode::All && bytes > descend::LEVELS_ABOVE_BYTES {
                let limit = descend::LEVEL_FRONT;
                descend::descend_levels(env, fly, pose, test, ws, start, limit, out)
            } else {
                descend::set_stack(ws, start);
                descend::descend_from(env, fly, pose, mode, test, ws, out, false)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate;

    #[test]
    fn node_boxes_contain_their_subtrees_triangles() {
        let m = generate::torus([0.1, 0.2, 0.3], 1.0, 0.3, 24, 10);
        let bvh = Bvh::<3>::build(&m, &BuildOptions::default());
        let boxes: Vec<Obb> = Obb32::fit_nodes(&bvh).iter().map(Obb32::as_f64).collect();
        for (i, &(s, e)) in bvh.node_ranges().iter().enumerate() {
            for p in s..e {
                for x in bvh.tris.corners_local_f64(p as usize) {
                    assert!(boxes[i].contains_approx(x), "node {i}");
                }
            }
        }
        // Tighter than the node's axis-aligned box, in volume, at the root.
        let vol = |b: &Obb| 8.0 * b.h[0] * b.h[1] * b.h[2];
        let k = &bvh.nodes[0].bv;
        let aabb = (0..3)
            .map(|a| (k.max[a] - k.min[a]) as f64)
            .product::<f64>();
        assert!(vol(&boxes[0]) <= aabb * 1.001, "{} {aabb}", vol(&boxes[0]));
    }

    /// Two small interlocked tori (B turned, moved by the poses) and their OBB scene.
    fn interlocked_tori() -> (Mesh, Mesh, ObbScene) {
        let torus = generate::torus([0.0; 3], 1.0, 0.3, 40, 16);
        let b = torus.map_positions(|[x, y, z]| [x, z, y]);
        let opt = BuildOptions::default();
        let s = ObbScene::build(&torus, &b, &opt, &opt);
        (torus, b, s)
    }

    /// The level calls keep a pose's node-test set-up in the workspace (`check_in`): one
    /// workspace through poses that alternate, the same pose twice in a row, and a pose
    /// that differs from the last only in the last bit of one translation: each pose's
    /// contacts are brute force's and its counters `collide`'s (a stale set-up would test
    /// the wrong pose's boxes: the poses differ in contacts).
    #[test]
    fn level_calls_set_up_each_pose_anew() {
        use crate::traverse::LevelScene;
        let (torus, b, s) = interlocked_tori();
        let near = Pose::new([1.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0]);
        let apart = Pose::new([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
        let tilted = Pose::new([1.0, 0.3, 0.0, 0.0], [0.5, 0.0, 0.0]);
        let next_bit = Pose::new(
            [1.0, 0.0, 0.0, 0.0],
            [f64::from_bits(0.5f64.to_bits() + 1), 0.0, 0.0],
        );
        let opts = QueryOptions::default();
        let mut ws = s.workspace();
        let poses = [near, apart, near, near, tilted, apart, next_bit, near];
        for (k, pose) in poses.iter().enumerate() {
            let mut got = Vec::new();
            let mut c = Counters::default();
            if s.level_begin(pose, &opts, &mut ws) {
                let (mut front, mut leaves) = (vec![(0, 0)], Vec::new());
                for _ in 0..3 {
                    let mut next = Vec::new();
                    c += s.level_expand(pose, &mut ws, &front, &mut next, &mut leaves);
                    front = next;
                }
                c += s.level_leaves(pose, Mode::All, &mut ws, &leaves, &mut got);
                c += s.level_finish(pose, Mode::All, &mut ws, &front, &mut got);
            }
            got.sort_unstable();
            assert_eq!(got, crate::scene::brute_force(&torus, &b, pose), "pose {k}");
            let one = s.collide(pose, &opts);
            assert_eq!(got, one.pairs, "pose {k}");
            let pretest = s.boxes.is_some() as u64;
            assert_eq!(c.bv_tests + pretest, one.counters.bv_tests, "pose {k}");
            assert_eq!(c.tri_tests, one.counters.tri_tests, "pose {k}");
        }
        assert!(!crate::scene::brute_force(&torus, &b, &near).is_empty());
        assert!(crate::scene::brute_force(&torus, &b, &apart).is_empty());
    }

    /// The probe's first levels in one call (`level_expand_below`, the twin
    /// `descend::expand_levels_below`) leave the front, the leaf pairs and the counters
    /// that a call per level leaves (the probe's former loop over `level_expand`), for every
    /// limit up to 400 pairs (leaf pairs count towards it) and none.
    #[test]
    fn levels_in_one_call_are_levels_one_by_one() {
        use crate::traverse::LevelScene;
        let (_, _, s) = interlocked_tori();
        let opts = QueryOptions::default();
        let mut ws = s.workspace();
        let poses = [
            Pose::new([1.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0]),
            Pose::new([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
            Pose::new([1.0, 0.3, 0.0, 0.0], [0.5, 0.0, 0.0]),
        ];
        let mut deepest = 0;
        for (k, pose) in poses.iter().enumerate() {
            for limit in (1..400).chain([usize::MAX]) {
                let run = |one_call: bool, ws: &mut VolumeWorkspace<_>| {
                    assert!(s.level_begin(pose, &opts, ws));
                    let (mut front, mut next, mut leaves) = (vec![(0, 0)], vec![], vec![]);
                    let (mut c, mut levels) = (Counters::default(), 0);
                    if one_call {
                        c = s.level_expand_below(
                            pose,
                            ws,
                            &mut front,
                            &mut next,
                            &mut leaves,
                            limit,
                        );
                    } else {
                        while !front.is_empty() && front.len() + leaves.len() < limit {
                            next.clear();
                            c += s.level_expand(pose, ws, &front, &mut next, &mut leaves);
                            std::mem::swap(&mut front, &mut next);
                            levels += 1;
                        }
                    }
                    (front, leaves, c.bv_tests, c.bv_updates, levels)
                };
                let (f1, l1, nv1, nu1, _) = run(true, &mut ws);
                let (f2, l2, nv2, nu2, levels) = run(false, &mut ws);
                assert_eq!((f1, l1), (f2, l2), "pose {k}, limit {limit}");
                assert_eq!((nv1, nu1), (nv2, nu2), "pose {k}, limit {limit}");
                deepest = deepest.max(levels);
            }
        }
        assert!(deepest > 5, "the near poses go a few levels down");
    }

    /// Level order ([`descend::descend_levels`], under any front limit, from the roots or
    /// from a front part way down) tests exactly the node and triangle pairs the depth-first
    /// descent tests: the same contacts and counters. Contacts are checked against brute
    /// force in f64 as well.
    #[test]
    fn level_order_tests_what_depth_first_tests() {
        let torus = generate::torus([0.0; 3], 1.0, 0.3, 40, 16);
        let sphere = generate::sphere_with_triangles([0.0; 3], 1.0, 2000);
        let scenes = [
            (
                torus.clone(),
                torus.map_positions(|[x, y, z]| [x, z, y]),
                Pose::new([1.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0]),
            ),
            (
                sphere.clone(),
                sphere.map_positions(|p| p.map(|c| c * 0.999)),
                Pose::new([1.0, 0.01, 0.0, 0.0], [0.0; 3]),
            ),
            (
                generate::random_soup(11, 400, 1.0, 0.4),
                generate::random_soup(11, 400, 1.0, 0.4),
                Pose::new([1.0, 0.05, 0.02, 0.0], [0.01, 0.0, -0.01]),
            ),
        ];
        for (k, (a, b, pose)) in scenes.iter().enumerate() {
            let opt = BuildOptions::default();
            let s = ObbScene::build(a, b, &opt, &opt);
            let check = s.check(pose);
            let test = Test {
                s: &s,
                pose: &check,
            };
            let (env, fly) = s.trees();
            let mut ws = s.workspace();
            let mut depth = Vec::new();
            let c_depth = descend(env, fly, pose, Mode::All, &test, &mut ws, &mut depth);
            depth.sort_unstable();
            let brute = crate::scene::brute_force(a, b, pose);
            assert_eq!(depth, brute, "scene {k}: depth first against brute force");
            assert!(k == 1 || !depth.is_empty(), "scene {k} has contacts");
            for limit in [1, 2, 16, 100, usize::MAX] {
                for levels_down in [0, 3] {
                    // A start front part way down: `levels_down` levels expanded, their
                    // overlapping leaf pairs tested here.
                    descend::begin_pose(&mut ws);
                    let (mut front, mut leaves) = (vec![(0, 0)], Vec::new());
                    let mut c = Counters::default();
                    for _ in 0..levels_down {
                        let mut next = Vec::new();
                        c += descend::expand_level(
                            env,
                            fly,
                            &test,
                            &mut ws,
                            &front,
                            &mut next,
                            &mut leaves,
                        );
                        front = next;
                    }
                    let mut got = Vec::new();
                    for &(e, f) in &leaves {
                        let (e, f) = (e as usize, f as usize);
                        let m = Mode::All;
                        descend::leaf_pair(env, fly, pose, m, &mut ws, e, f, &mut got, &mut c);
                    }
                    c += descend::descend_levels(
                        env, fly, pose, &test, &mut ws, &front, limit, &mut got,
                    );
                    got.sort_unstable();
                    assert_eq!(
                        got, depth,
                        "scene {k}, limit {limit}, from level {levels_down}"
                    );
                    assert_eq!(
                        c, c_depth,
                        "scene {k}, limit {limit}, from level {levels_down}"
                    );
                }
            }
        }
    }

    /// `a + b` exactly as `(sum, error)` (Knuth's TwoSum).
    fn two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    }

    /// The sign of the exact sum of `terms` (Shewchuk's grow-expansion: the components
    /// stay non-overlapping in increasing magnitude, the last non-zero one has the sign).
    fn exact_sign(terms: &[f64]) -> f64 {
        let mut e: Vec<f64> = Vec::new();
        for &b in terms {
            let mut q = b;
            let mut out = Vec::with_capacity(e.len() + 1);
            for &x in &e {
                let (s, err) = two_sum(q, x);
                if err != 0.0 {
                    out.push(err);
                }
                q = s;
            }
            out.push(q);
            e = out;
        }
        e.iter()
            .rev()
            .find(|x| **x != 0.0)
            .map_or(0.0, |x| x.signum())
    }

    /// Every *real* local corner `p − o` (global corner minus the frame's origin, both
    /// exact f64) projects on each stored axis within the stored half extent, decided in
    /// exact arithmetic (products split by fused multiply-add, sums by expansions), on
    /// random soups near and far from the origin. The fit's widening is what makes this
    /// hold: without it about half the extremal corners fall outside by an ulp.
    #[test]
    fn node_boxes_contain_the_real_corners_exactly() {
        let mut rng = crate::rng::Rng::new(77);
        for case in 0..40 {
            let off = [0.0, 1e6, 1e15, 3.3e9][case % 4];
            let m = generate::random_soup(rng.next_u64(), 30, 1.0, 0.6)
                .map_positions(|p| [p[0] + off, p[1] - off, p[2] + 0.5 * off]);
            let bvh = Bvh::<3>::build(&m, &BuildOptions::default());
            let boxes: Vec<Obb> = Obb32::fit_nodes(&bvh).iter().map(Obb32::as_f64).collect();
            let o = bvh.frame().origin;
            for (i, &(s, e)) in bvh.node_ranges().iter().enumerate() {
                let b = &boxes[i];
                for p in (s..e).flat_map(|t| bvh.tris.corners_f64(t as usize)) {
                    for j in 0..3 {
                        // a_j·(p − o − c) as exact products, then ± h_j.
                        let mut terms = Vec::new();
                        for k in 0..3 {
                            for x in [p[k], -o[k], -b.c[k]] {
                                let prod = b.axes[j][k] * x;
                                terms.push(prod);
                                terms.push(b.axes[j][k].mul_add(x, -prod));
                            }
                        }
                        let neg: Vec<f64> = terms.iter().map(|x| -x).collect();
                        let above = exact_sign(&[&[b.h[j]][..], &neg].concat());
                        let below = exact_sign(&[&[b.h[j]][..], &terms].concat());
                        assert!(
                            above >= 0.0 && below >= 0.0,
                            "case {case} node {i} axis {j}"
                        );
                    }
                }
            }
        }
    }
}
