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

mod budget;
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
    /// A's volume grown to contain every point within `eps` of it (rounded outward), for
    /// a tolerance query ([`crate::proximity`]).
    fn widened(&self, eps: f64) -> Self;
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

    /// The half extents grown by `ε·(1 + 2⁻²⁰)`, each rounded up to f32
    /// ([`crate::proximity::f32_up`] of an upward sum).
    ///
    /// Proof. The box is `{x : |aᵢ·(x − c)| ≤ hᵢ}` for the stored axes, whose Gram matrix is
    /// within [`fit::AXES_TOLERANCE_F32`] (2⁻²⁰) of the identity, so `|aᵢ|² ≤ 1 + 2⁻²⁰` and
    /// `|aᵢ| ≤ 1 + 2⁻²¹`. For `x` in the box and `|y − x| ≤ ε`: `|aᵢ·(y − c)| ≤ hᵢ + |aᵢ|·ε
    /// ≤ hᵢ + ε(1 + 2⁻²⁰)`. A grown extent below 2⁻⁵¹ (but not 0) becomes 2⁻⁵¹, so the box
    /// keeps the fitted boxes' property that [`sat::obb_disjoint_cpu`] relies on (every
    /// stored number 0 or at least 2⁻⁵¹); the axes and centre are unchanged.
    fn widened(&self, eps: f64) -> Obb32 {
        use crate::proximity::{add_up, f32_up, mul_up};
        let grow = mul_up(eps, 1.0 + 1.0 / (1u64 << 20) as f64);
        let coarse = 1.0f32 / (1u64 << 51) as f32;
        let h = self.h.map(|h| {
            let g = f32_up(add_up(h as f64, grow));
            if g > 0.0 && g < coarse { coarse } else { g }
        });
        Obb32 { h, ..*self }
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

/// [`Test`] for a tolerance query ([`crate::proximity`]): A's volume grown by `ε`
/// ([`Volume::widened`]) in every node test, the leaves tested by
/// [`crate::proximity::tri_tri_within`].
struct WithinTest<'s, V: Volume> {
    test: Test<'s, V>,
    eps: f64,
}

impl<V: Volume> PairTest for WithinTest<'_, V> {
    type Posed = V::Posed;

    #[inline(always)]
    fn pose(&self, f: usize) -> V::Posed {
        self.test.pose(f)
    }

    #[inline(always)]
    fn disjoint(&self, e: usize, b: &V::Posed) -> bool {
        let a = self.test.s.env_bv[e].widened(self.eps);
        V::disjoint(&a, b, self.test.pose)
    }

    /// The larger volume descends, A's grown as tested (an OBB's size does not change
    /// when it grows, a sphere's radius does; the GPU's descent reads A's grown volumes,
    /// `gpu::collide::widen`).
    #[inline]
    fn prefer_a(&self, e: usize, f: usize) -> bool {
        self.test.s.env_bv[e].widened(self.eps).size() >= self.test.s.fly_bv[f].size()
    }

    #[inline(always)]
    fn tri_hit(&self, a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> bool {
        crate::proximity::tri_tri_within(a, b, self.eps)
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
        ws.frontier.forget_hot();
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut VolumeWorkspace<V::Posed>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        if !opts.tolerance.is_zero() {
            return self.within_into(pose, opts, ws, out);
        }
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
    /// One pose of a tolerance query (`opts.tolerance` not zero): the pretest's box and A's
    /// volumes grown by `ε`, the leaves tested by distance; from the roots.
    fn within_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut VolumeWorkspace<V::Posed>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        let eps = opts.tolerance.get();
        ws.track.forget();
        let pretest = self.boxes.as_ref().map(|t| t.widened(eps));
        if pretest.is_some_and(|t| t.separated(pose)) {
            return Counters {
                bv_tests: 1,
                ..Default::default()
            };
        }
        let check = self.check(pose);
        let test = WithinTest {
            test: Test {
                s: self,
                pose: &check,
            },
            eps,
        };
        let (env, fly) = self.trees();
        let mut c = descend(env, fly, pose, opts.mode, &test, ws, out);
        c.bv_tests += pretest.is_some() as u64;
        c
    }

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
        // The matrix, not the quaternion: a pose given as a matrix keeps the matrix.
        let bits = |p: &Pose| (p.r.map(|row| row.map(f64::to_bits)), p.t.map(f64::to_bits));
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
        let (env, fly) = self.trees();
        self.with_test(pose, ws, |test, ws| {
            let mut c = Counters::default();
            for &(e, f) in leaves {
                let (e, f) = (e as usize, f as usize);
                if descend::leaf_pair(env, fly, pose, mode, test, ws, e, f, out, &mut c) {
                    break;
                }
            }
            c
        })
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
mod tests;
