//! Deforming meshes: queries on frames of vertex positions ("BVHs for Deformable Objects"
//! in the University of Freiburg's lecture slides *Collision Detection*).
//!
//! Both hierarchies are built once from the base meshes; each frame brings new positions of
//! the same triangles, and the hierarchies are updated by an [`UpdateMethod`] before the
//! pose is queried exactly as a rigid query is (pairs decided on the frame's f64 positions,
//! B's moved by [`Pose::apply`], so the result equals brute force on that frame).
//!
//! * A (the environment) is updated in its own local frame: [`UpdateMethod::Refit`] is
//!   [`Bvh::refit`] (every leaf from its corners, every internal node the union of its
//!   children); [`UpdateMethod::Hybrid`] is Larsson and Akenine-Möller's hybrid update
//!   ("Collision Detection for Continuously Deforming Objects", Eurographics 2001, as the
//!   lecture's "Hybrid Hierarchy Update" slide gives it): the tree has `n` levels; the nodes
//!   at depth `n/2` (root 0, integer division; and leaves above it) are bounded from the
//!   vertices they hold, the nodes above merged bottom-up from them, every frame; a deeper
//!   node is bounded from its vertices only when the traversal first reaches it in that
//!   frame. Our choices: the cut is `depth / 2` of [`Bvh::depth`]; a lazy node is bounded
//!   from the corners of its own triangle range (the paper's "each node knows which vertices
//!   influence its box"), not from its children, so reaching it costs its subtree's corners
//!   but touches no other node; and k-DOPs instead of the paper's AABBs. Since a k-DOP of
//!   corners is a min/max of per-corner slab bounds (`bv::slab::kdop_of_corners`),
//!   which does not round, every node the hybrid update bounds gets exactly the bits the
//!   full refit gives it. [`UpdateMethod::Rebuild`] builds a fresh hierarchy per frame.
//! * B (the flying object) is posed every frame anyway, and its tumbling data (the bounding
//!   points of the approximation method, the convex hull for hill climbing, their scale) is
//!   computed from its positions: after a deformation it no longer bounds the nodes. So a
//!   deformed B is never tumbled from it ([`crate::tumble::FlyingHierarchy::deformed`]):
//!   Refit and Rebuild tumble by [`TumbleMethod::Exact`] (every node bounded from its posed
//!   corners, directly in A's frame, conservative by `tumble::posed_kdop`'s proof), and
//!   Hybrid by the same hybrid update done on the posed corners
//!   ([`TumbleWorkspace::begin_hybrid`](crate::tumble::TumbleWorkspace::begin_hybrid)). A
//!   refit of B in its own frame followed by a tumble would do the same work twice and give
//!   looser volumes. Refreshing the bounding points instead costs a polytope per node
//!   (`docs/notebook/deforming-meshes.md`). B without frames keeps the rigid tumbling asked
//!   for.
//!
//! **On the GPU** (`gpu::deform::GpuDeformingCollider`, `query --backend gpu`): the same
//! host-side update and triggers ([`DeformingScene`]'s preparation of a frame), then A's
//! refit and B's exact tumbling on the device; its module docs say what differs (Nu with
//! the hybrid update of B).
//!
//! **Far from the origin.** Each hierarchy's local frame ([`crate::frame`]) keeps the origin
//! chosen at build time; the frames may move its mesh anywhere. Proof that the f32 stages
//! stay conservative: (1) every f32 bound rounds a local coordinate `fl32(fl64(p − o))` with
//! an error *relative* to that coordinate ([`crate::frame::INPUT_REL`], covered by the slab
//! margins of `slab_bounds_f32` and `posed_kdop` for any `p` in the supported range), so it
//! holds however far `p` is from `o` — only the precision degrades, never the containment;
//! (2) the one absolute bound that depends on the positions, [`crate::frame::Frame::l1_max`]
//! (the largest `‖p‖₁`, in [`crate::frame::LocalPose::abs_err`]), is recomputed from every
//! frame's positions by [`crate::ordered::OrderedTriangles::set_positions`] before anything
//! is bounded (a rebuild computes a new frame); (3) B's approximation data, whose margin
//! scales with B's old extent, is not used after a deformation (above); (4) the pose-level
//! box pretest is recomputed from every frame. To keep the precision, a mesh whose
//! bounding-box centre drifted from its frame's origin by more than its box's diagonal is
//! rebuilt (counted in [`UpdateCounters::rebuilds`]), which picks a new origin.
//!
//! **Rebuild trigger.** Refitting keeps the topology of the base pose; when triangles that
//! were near each other drift apart, node volumes swell and overlap. The measure is the sum
//! of the k-DOP sizes (sum of slab widths, [`Kdop::size`]) of the nodes down to the hybrid
//! cut, divided by the root's size (so a mesh that merely grows or shrinks is not degraded),
//! compared with the same measure right after the last build. Past
//! [`DeformOptions::rebuild_ratio`] times that, the hierarchy is rebuilt from the current
//! frame. See [`DEFAULT_REBUILD_RATIO`] for the measured value.

use crate::bv::Kdop;
use crate::bvh::{BuildOptions, Bvh};
use crate::kdop::pretest::BoxPretest;
use crate::kdop::{Descent, KdopOptions, KdopWorkspace};
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, NoSub, POSE_CHUNK, QueryOptions};
use crate::traverse::{NodeTest, descend, descend_from};
use crate::tumble::{FlyingHierarchy, TumbleMethod, TumbleWorkspace};
use crate::{error::Error, kind::BvKind};
use std::time::Instant;

mod collider;
mod hybrid;
mod options;
pub use collider::{AnyDeforming, DeformingCollider, tumble_name, unsupported};
use hybrid::{DeformTest, LazyEnv, Shape};
pub use options::{
    DEFAULT_REBUILD_RATIO, DEFAULT_UPDATE, DeformOptions, FrameResult, UpdateCounters, UpdateMethod,
};

/// What [`DeformingScene::prepare`] leaves to the traversal.
pub(crate) enum Prepared {
    /// The frame is answered (the pretest separated it).
    Done(FrameResult),
    /// Traverse: the update's counters so far.
    Traverse(UpdateCounters),
}

/// A's box centre drifted from the frame's origin by more than the box's diagonal.
fn drifted(frame: &crate::frame::Frame, positions: &[[f64; 3]]) -> bool {
    let f = crate::frame::Frame::of_points(positions);
    let (lo, hi) = positions.iter().fold(
        ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]),
        |(mut lo, mut hi), p| {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
            (lo, hi)
        },
    );
    let diag: f64 = (0..3).map(|k| hi[k] - lo[k]).sum();
    let shift: f64 = (0..3).map(|k| (f.origin[k] - frame.origin[k]).abs()).sum();
    shift > diag
}

/// Both hierarchies of a deforming scene for one k (`H = k/2` slabs).
#[derive(Debug)]
pub struct DeformingScene<const H: usize> {
    env: Bvh<H>,
    fly: FlyingHierarchy<H>,
    tri_a: Vec<[u32; 3]>,
    tri_b: Vec<[u32; 3]>,
    vertices: [usize; 2],
    build: [BuildOptions; 2],
    kdop: KdopOptions,
    options: DeformOptions,
    shape_a: Shape,
    shape_b: Shape,
    lazy: LazyEnv<H>,
    /// A's volumes are those of the lazy update (hybrid, after a frame of A).
    lazy_a: bool,
    boxes: Option<BoxPretest>,
    ws: KdopWorkspace<H>,
    degradation: [Option<f64>; 2],
    /// Frames queried (coherence starts again at the roots every [`POSE_CHUNK`] frames,
    /// as a batch's chunks of poses do).
    frames: u64,
}

impl<const H: usize> DeformingScene<H> {
    /// Builds both hierarchies from the base meshes.
    pub fn new(
        a: &Mesh,
        b: &Mesh,
        build: [BuildOptions; 2],
        kdop: KdopOptions,
        options: DeformOptions,
    ) -> Self {
        let (env, fly) = rayon::join(
            || Bvh::<H>::build(a, &build[0]),
            || FlyingHierarchy::new(Bvh::<H>::build(b, &build[1])),
        );
        let ws = KdopWorkspace::new(&fly);
        let mut shape_a = Shape::of(&env);
        shape_a.fresh = Some(shape_a.measure(|i| env.nodes[i].bv));
        DeformingScene {
            boxes: BoxPretest::new(&env, &fly.bvh),
            lazy: LazyEnv::new(env.nodes.len()),
            shape_b: Shape::of(&fly.bvh),
            shape_a,
            env,
            fly,
            tri_a: a.triangles.clone(),
            tri_b: b.triangles.clone(),
            vertices: [a.positions.len(), b.positions.len()],
            build,
            kdop,
            options,
            lazy_a: false,
            ws,
            degradation: [None; 2],
            frames: 0,
        }
    }

    /// A's hierarchy (its node volumes are current after a `Refit` or `Rebuild` frame; after
    /// a `Hybrid` frame only [`DeformingScene::complete`] makes them so).
    pub fn env(&self) -> &Bvh<H> {
        &self.env
    }

    /// B's hierarchy (in B's frame; a deformed B's node volumes are posed per query, not
    /// kept here: [`DeformingScene::complete`] refits them).
    pub fn fly(&self) -> &FlyingHierarchy<H> {
        &self.fly
    }

    /// Brings every node volume of both hierarchies (in their own frames) up to the current
    /// positions: for checks such as [`Bvh::validate`] after the hybrid update.
    ///
    /// After a hybrid frame of A, every node volume the update computed in that frame is
    /// checked to equal the full refit's bit for bit (an error names the first that does
    /// not): the hybrid update computes the same volumes, only fewer of them.
    pub fn complete(&mut self) -> Result<(), Error> {
        if self.lazy_a {
            let positions = self.current_positions_a();
            self.env.refit(&positions, &self.tri_a)?;
            self.lazy_a = false;
            let l = &self.lazy;
            if let Some(i) = (0..self.env.nodes.len())
                .find(|&i| l.stamp[i] == l.cur && l.bv[i] != self.env.nodes[i].bv)
            {
                return Err(Error::InvalidOption(format!(
                    "A's node {i}: the hybrid update's k-DOP differs from the full refit's"
                )));
            }
        }
        if self.fly.deformed {
            let positions = current_positions(&self.fly.bvh, self.vertices[1]);
            self.fly.bvh.refit(&positions, &self.tri_b)?;
        }
        Ok(())
    }

    fn current_positions_a(&self) -> Vec<[f64; 3]> {
        current_positions(&self.env, self.vertices[0])
    }

    /// Queries one frame: A's and B's positions (`None`: unchanged since the last frame, the
    /// base mesh at first) and B's pose. Errors ([`crate::FrameError::Positions`],
    /// [`crate::FrameError::Coordinate`]) leave the scene as it was.
    pub fn query_frame(
        &mut self,
        frame_a: Option<&[[f64; 3]]>,
        frame_b: Option<&[[f64; 3]]>,
        pose: &Pose,
        opts: &QueryOptions,
    ) -> Result<FrameResult, Error> {
        let mut up = match self.prepare(frame_a, frame_b, pose, opts, false)? {
            Prepared::Done(r) => return Ok(r),
            Prepared::Traverse(up) => up,
        };
        let mut out = Vec::new();
        let lazy_before = self.lazy.refit;
        if self.frames.is_multiple_of(POSE_CHUNK as u64) {
            self.ws.track.restart();
        }
        self.frames += 1;
        let eps = opts.tolerance.get();
        let mut test = DeformTest {
            env: &self.env,
            fly: &self.fly,
            lazy: self.lazy_a.then_some((&mut self.lazy, &self.shape_a)),
            descent: self.kdop.descent,
            eps,
            margins: crate::proximity::slab_margins_f32::<H>(eps),
        };
        // Coherence across frames: a front names node pairs of the same trees (a rebuild
        // starts again at the roots), so it partitions the triangle pairs whatever moved.
        // A tolerance query runs from the roots (fronts are the intersection query's).
        if eps != 0.0 {
            self.ws.track.forget();
        }
        let mut c =
            if eps == 0.0 && self.kdop.coherence && opts.mode == Mode::All && self.ws.track.on() {
                let ws = &mut self.ws;
                let from_roots = ws.track.seed(&mut ws.stack);
                let c = descend_from(
                    &self.env,
                    &self.fly,
                    pose,
                    Mode::All,
                    &mut ws.tumble,
                    &mut ws.stack,
                    &mut test,
                    &mut out,
                    Some(&mut ws.track.next),
                );
                ws.track.finish(from_roots, c.bv_tests);
                c
            } else {
                descend(
                    &self.env,
                    &self.fly,
                    pose,
                    opts.mode,
                    &mut self.ws.tumble,
                    &mut self.ws.stack,
                    &mut test,
                    &mut out,
                )
            };
        if self.lazy_a {
            up.refit_nodes += self.lazy.refit - lazy_before;
        }
        c.bv_updates = self.ws.tumble.updates;
        c.bv_tests += self.kdop.pretest as u64;
        out.sort_unstable();
        out.dedup();
        Ok(FrameResult {
            pairs: out,
            counters: c,
            update: up,
            degradation: self.degradation,
        })
    }

    /// Everything before the traversal: the updates of A and B, the rebuild triggers, the
    /// pose-level pretest and (on the CPU) B's tumbling. With `gpu`, A's node volumes and a
    /// deformed B's posed volumes are left to the device: A's positions are only set (its
    /// nodes down to the hybrid cut bounded when the rebuild trigger needs them, the same
    /// bits as the full refit's), and B's posed volumes down to the cut computed only for
    /// B's trigger; so both backends rebuild at the same frames.
    pub(crate) fn prepare(
        &mut self,
        frame_a: Option<&[[f64; 3]]>,
        frame_b: Option<&[[f64; 3]]>,
        pose: &Pose,
        opts: &QueryOptions,
        gpu: bool,
    ) -> Result<Prepared, Error> {
        if let Some(p) = frame_a {
            crate::mesh::frames::check_positions("A", self.vertices[0], p)?;
        }
        if let Some(p) = frame_b {
            crate::mesh::frames::check_positions("B", self.vertices[1], p)?;
        }
        let t0 = Instant::now();
        let mut up = UpdateCounters::default();
        self.degradation = [None; 2];
        if let Some(p) = frame_a {
            self.update_a(p, &mut up, gpu)?;
        }
        if let Some(p) = frame_b {
            self.update_b(p, &mut up)?;
        }
        if (frame_a.is_some() || frame_b.is_some()) && self.kdop.pretest {
            self.boxes = BoxPretest::new(&self.env, &self.fly.bvh);
        }
        let eps = opts.tolerance.get();
        let separated = self.boxes.as_ref().is_some_and(|t| {
            if eps == 0.0 {
                t.separated(pose)
            } else {
                t.widened(eps).separated(pose)
            }
        });
        if self.kdop.pretest && separated {
            self.ws.track.forget();
            up.update_ms = t0.elapsed().as_secs_f64() * 1e3;
            return Ok(Prepared::Done(FrameResult {
                pairs: Vec::new(),
                counters: Counters {
                    bv_tests: 1,
                    ..Default::default()
                },
                update: up,
                degradation: self.degradation,
            }));
        }
        if !gpu {
            // B into A's frame: the eager part is update time when B deforms.
            self.begin_b(pose, opts);
            if frame_b.is_some() && self.check_b_quality(&mut up) {
                // B was rebuilt: a new tree, a new workspace, tumbled afresh.
                self.begin_b(pose, opts);
            }
        } else if frame_b.is_some()
            && self.fly.deformed
            && self.options.method != UpdateMethod::Rebuild
            && self.options.rebuild_ratio.is_some()
        {
            // B's trigger reads its posed volumes down to the cut: the hybrid update's top,
            // the same bits as the device's exact tumbling gives those nodes.
            let lp = self.fly.local_pose(self.env.frame(), pose);
            let s = &self.shape_b;
            self.ws
                .tumble
                .begin_hybrid(&self.fly, &lp, s.cut, &s.depth, &s.ranges);
            self.check_b_quality(&mut up);
        }
        up.update_ms = t0.elapsed().as_secs_f64() * 1e3;
        Ok(Prepared::Traverse(up))
    }

    /// Whether A's node volumes in [`DeformingScene::env`] are those of its current
    /// positions (false after a hybrid frame, or a frame whose refit ran on the device).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn env_current(&self) -> bool {
        !self.lazy_a
    }

    /// The scene's k-DOP options (descent rule, pretest).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn kdop_options(&self) -> KdopOptions {
        self.kdop
    }

    /// The last frame's degradation measures ([`FrameResult::degradation`]).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn degradation(&self) -> [Option<f64>; 2] {
        self.degradation
    }

    fn rebuild_a(&mut self, positions: &[[f64; 3]], up: &mut UpdateCounters) {
        let mesh = Mesh {
            positions: positions.to_vec(),
            triangles: self.tri_a.clone(),
        };
        self.env = Bvh::build(&mesh, &self.build[0]);
        self.shape_a = Shape::of(&self.env);
        self.shape_a.fresh = Some(self.shape_a.measure(|i| self.env.nodes[i].bv));
        self.lazy = LazyEnv::new(self.env.nodes.len());
        self.lazy_a = false;
        // The old front names nodes of the old tree.
        self.ws.track.restart();
        up.rebuilds += 1;
    }

    fn update_a(
        &mut self,
        p: &[[f64; 3]],
        up: &mut UpdateCounters,
        gpu: bool,
    ) -> Result<(), Error> {
        let method = self.options.method;
        if method == UpdateMethod::Rebuild || drifted(self.env.frame(), p) {
            self.rebuild_a(p, up);
            return Ok(());
        }
        let measure = if gpu {
            // The device refits every node; the host bounds the top for the trigger only.
            self.env.tris.set_positions(p);
            self.lazy_a = true;
            up.refit_nodes += self.env.nodes.len() as u64;
            if self.options.rebuild_ratio.is_none() {
                // No trigger: nothing to bound here (the stamps of an older frame forgotten,
                // for `complete`).
                self.lazy.next_frame();
                return Ok(());
            }
            self.lazy.update_top(&self.env, &self.shape_a);
            let lazy = &self.lazy;
            self.shape_a.measure(|i| lazy.bv[i])
        } else if method == UpdateMethod::Refit {
            self.env.refit(p, &self.tri_a)?;
            self.lazy_a = false;
            up.refit_nodes += self.env.nodes.len() as u64;
            self.shape_a.measure(|i| self.env.nodes[i].bv)
        } else {
            self.env.tris.set_positions(p);
            self.lazy.update_top(&self.env, &self.shape_a);
            self.lazy_a = true;
            up.refit_nodes += self.lazy.refit;
            let lazy = &self.lazy;
            self.shape_a.measure(|i| lazy.bv[i])
        };
        if let Some(fresh) = self.shape_a.fresh {
            self.degradation[0] = Some(measure / fresh);
            if self
                .options
                .rebuild_ratio
                .is_some_and(|r| measure > r * fresh)
            {
                self.rebuild_a(p, up);
            }
        }
        Ok(())
    }

    fn rebuild_b(&mut self, positions: &[[f64; 3]], up: &mut UpdateCounters) {
        let mesh = Mesh {
            positions: positions.to_vec(),
            triangles: self.tri_b.clone(),
        };
        self.fly = FlyingHierarchy::deforming(Bvh::build(&mesh, &self.build[1]));
        self.ws = KdopWorkspace::new(&self.fly);
        self.shape_b = Shape::of(&self.fly.bvh);
        up.rebuilds += 1;
    }

    fn update_b(&mut self, p: &[[f64; 3]], up: &mut UpdateCounters) -> Result<(), Error> {
        if self.options.method == UpdateMethod::Rebuild || drifted(self.fly.frame(), p) {
            self.rebuild_b(p, up);
            return Ok(());
        }
        self.fly.bvh.tris.set_positions(p);
        self.fly.deformed = true;
        Ok(())
    }

    /// Brings B into A's frame for `pose`: a deformed B by its posed refit or hybrid
    /// update, a rigid one as asked.
    fn begin_b(&mut self, pose: &Pose, opts: &QueryOptions) {
        let lp = self.fly.local_pose(self.env.frame(), pose);
        let tumble = &mut self.ws.tumble;
        if self.fly.deformed && self.options.method == UpdateMethod::Hybrid {
            let s = &self.shape_b;
            tumble.begin_hybrid(&self.fly, &lp, s.cut, &s.depth, &s.ranges);
        } else {
            tumble.restart();
            tumble.begin(&self.fly, &lp, opts.tumble);
        }
    }

    /// B's degradation measure on its posed volumes down to the cut (just computed): the
    /// first frame after a build sets the reference, a later one past the ratio rebuilds B
    /// (true: then B must be tumbled again).
    fn check_b_quality(&mut self, up: &mut UpdateCounters) -> bool {
        if !self.fly.deformed || self.options.method == UpdateMethod::Rebuild {
            return false;
        }
        let ws = &self.ws.tumble;
        let m = self.shape_b.measure(|i| *ws.tumbled(i));
        if let Some(fresh) = self.shape_b.fresh {
            self.degradation[1] = Some(m / fresh);
        }
        match (self.shape_b.fresh, self.options.rebuild_ratio) {
            (None, _) => self.shape_b.fresh = Some(m),
            (Some(fresh), Some(r)) if m > r * fresh => {
                let positions = current_positions(&self.fly.bvh, self.vertices[1]);
                self.rebuild_b(&positions, up);
                return true;
            }
            _ => {}
        }
        false
    }

    /// Node counts and bytes of A's and B's hierarchies.
    pub fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        [
            (self.env.nodes.len(), self.env.node_bytes()),
            (self.fly.bvh.nodes.len(), self.fly.bvh.node_bytes()),
        ]
    }

    /// Depths of A's and B's hierarchies.
    pub fn depths(&self) -> [u32; 2] {
        [self.env.depth, self.fly.bvh.depth]
    }
}

/// The mesh's current positions (mesh numbering) from a hierarchy's ordered vertices;
/// vertices no triangle uses are 0 (no triangle reads them).
fn current_positions<const H: usize>(bvh: &Bvh<H>, vertices: usize) -> Vec<[f64; 3]> {
    let mut p = vec![[0.0; 3]; vertices];
    for (&v, &x) in bvh.tris.vertex_map.iter().zip(&bvh.tris.positions) {
        p[v as usize] = x;
    }
    p
}
