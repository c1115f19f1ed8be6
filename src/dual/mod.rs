//! The dual k-DOP–sphere hierarchy of Fang, Jiang and Xu (*Efficient Collision Detection
//! Using a Dual k-DOP-Sphere Bounding Volume Hierarchy*): the k-DOP hierarchy of `build`
//! (same tree, same tumbling of B) with a bounding sphere per node, the smallest enclosing
//! sphere of the node's triangle corners ([`sphere`]). The node test (one Nv,
//! ARCHITECTURE.md "Counters") is the sphere test first — disjoint spheres reject the pair
//! (III.B, Fig. 3a) — then the k-DOP slabs in order of smallest Minkowski-sum extent
//! (`slabs`). Optionally the k-DOPs are centrally symmetric (III.A).
//!
//! B's spheres follow a pose by moving the centre ([`sphere::Sphere::posed_f32`], f32 with a
//! proven error bound, the GPU's formula); its k-DOPs are tumbled exactly as for
//! `--bv kdop*` (`tumble`), and symmetrized in f32 (`slabs::symmetrize_f32`) when asked.
//! Both are brought into A's frame lazily, the first time the traversal needs them in a
//! pose, so Nu counts the B nodes whose dual volume (sphere, and k-DOP when the sphere test
//! passed) was moved for the pose; with exact tumbling every node is refit, so Nu is the
//! node count. The sphere test is [`sphere::disjoint_f32`]. These f32 twins are what the
//! GPU pipeline computes (`shaders/shared/dual.wgsl`), so the CPU and GPU test the same node pairs
//! and count the same sub-tests.
//!
//! The descent rule and the leaf test are those of `traverse` (Algorithm 1 of Klosowski et
//! al., *Efficient Collision Detection Using Bounding Volume Hierarchies of k-DOPs*, 1998,
//! section 4.2; exact `tri::tri_tri_intersect` on `Pose::apply` of B's corners), and both
//! volumes are conservative, so the pairs equal brute force.
//!
//! Sub-test counters ([`DualCounters`], the scene's [`crate::scene::SubCounters`]):
//! `sphere_rejects` node pairs rejected by the sphere test, `slab_rejects` by a k-DOP slab
//! after the spheres overlapped, `slab_tests` the slab interval tests made; the accepted pairs
//! are `bv_tests − sphere_rejects − slab_rejects`.

pub(crate) mod slabs;
// Internal; hidden rather than pub(crate) because `sphere::disjoint` is used by unit tests only.
#[doc(hidden)]
pub mod sphere;

use crate::bv::Kdop;
use crate::bvh::{BuildOptions, Bvh};
use crate::frame::LocalPose;
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::scene::{Counters, Mode, PairScene, QueryOptions, SubCounters, WorkspacePool};
use crate::traverse::{NodeTest, descend};
use crate::tumble::{FlyingHierarchy, TumbleMethod, TumbleWorkspace};
use rayon::prelude::*;
pub use slabs::SlabOrder;
pub use sphere::Sphere;

/// The dual hierarchy's sub-counters: how its Nv node tests were decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DualCounters {
    /// Node pairs rejected by the sphere pretest.
    pub sphere_rejects: u64,
    /// Node pairs whose spheres overlapped, rejected by a k-DOP slab.
    pub slab_rejects: u64,
    /// Slab interval tests made (sub-tests, not part of Nv).
    pub slab_tests: u64,
}

impl std::ops::AddAssign for DualCounters {
    fn add_assign(&mut self, o: DualCounters) {
        self.sphere_rejects += o.sphere_rejects;
        self.slab_rejects += o.slab_rejects;
        self.slab_tests += o.slab_tests;
    }
}

impl SubCounters for DualCounters {}

/// Options of the dual hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DualOptions {
    /// Centrally symmetric k-DOPs (III.A): A's at build time, B's after tumbling.
    pub symmetric: bool,
    /// Slab order of the k-DOP test.
    pub order: SlabOrder,
}

/// The smallest enclosing sphere (made conservative) of every node's triangle corners (a
/// node's triangles: [`Bvh::node_ranges`]).
pub fn node_spheres<const H: usize>(bvh: &Bvh<H>) -> Vec<Sphere> {
    bvh.node_ranges()
        .par_iter()
        .map(|&(s, e)| {
            let pts: Vec<[f64; 3]> = (s as usize..e as usize)
                .flat_map(|p| bvh.tris.corners_local_f64(p))
                .collect();
            Sphere::enclosing(&pts)
        })
        .collect()
}

/// Both dual hierarchies of a scene (A the environment, B the flying object).
#[derive(Debug)]
pub struct DualScene<const H: usize> {
    /// A's k-DOP hierarchy (symmetrized when [`DualOptions::symmetric`]).
    pub env: Bvh<H>,
    /// A's node spheres, indexed like `env.nodes` (A's local frame).
    pub env_spheres: Vec<Sphere>,
    /// B's hierarchy as tumbled for `--bv kdop*` (its stored k-DOPs stay tight: B's tumbled
    /// k-DOPs are symmetrized per pose instead).
    pub fly: FlyingHierarchy<H>,
    /// B's node spheres, indexed like B's nodes (B's local frame).
    pub fly_spheres: Vec<Sphere>,
    /// The scene's options.
    pub options: DualOptions,
    inv_norm: [f32; H],
    pool: WorkspacePool<DualWorkspace<H>>,
}

impl<const H: usize> DualScene<H> {
    /// Builds A's and B's hierarchies and node spheres (in parallel), symmetrizing A's
    /// k-DOPs when [`DualOptions::symmetric`].
    pub fn build(
        a: &Mesh,
        b: &Mesh,
        opt_a: &BuildOptions,
        opt_b: &BuildOptions,
        options: &DualOptions,
    ) -> Self {
        let (env, fly) = rayon::join(|| Bvh::build(a, opt_a), || Bvh::build(b, opt_b));
        DualScene::from_hierarchies(env, FlyingHierarchy::new(fly), options)
    }

    /// The scene of two k-DOP hierarchies already built (or loaded from `.mch` files): the
    /// node spheres are computed, A's k-DOPs symmetrized when [`DualOptions::symmetric`].
    pub fn from_hierarchies(
        mut env: Bvh<H>,
        fly: FlyingHierarchy<H>,
        options: &DualOptions,
    ) -> Self {
        let (env_spheres, fly_spheres) =
            rayon::join(|| node_spheres(&env), || node_spheres(&fly.bvh));
        if options.symmetric {
            for n in &mut env.nodes {
                n.bv = slabs::symmetrize(&n.bv);
            }
        }
        DualScene {
            env,
            env_spheres,
            fly,
            fly_spheres,
            options: *options,
            inv_norm: slabs::inv_norms(),
            pool: Default::default(),
        }
    }

    /// Bytes of one node: the k-DOP node plus its sphere.
    pub const NODE_BYTES: usize =
        std::mem::size_of::<crate::bv::KdopNode<H>>() + std::mem::size_of::<Sphere>();
}

/// Per-thread scratch state: B's tumbled k-DOPs (via `tumble`), the traversal's stack, and
/// B's posed spheres and symmetrized k-DOPs (`Moved`).
#[derive(Debug)]
pub struct DualWorkspace<const H: usize> {
    /// B's k-DOPs tumbled for the current pose.
    pub tumble: TumbleWorkspace<H>,
    stack: Vec<(u32, u32)>,
    moved: Moved<H>,
    /// A budgeted pose's frontier ([`crate::budget`]).
    frontier: crate::budget::Frontier,
}

/// B's posed spheres and symmetrized k-DOPs, each valid while its stamp equals the pose's.
#[derive(Debug)]
struct Moved<const H: usize> {
    stamp: u32,
    sphere_stamp: Vec<u32>,
    sphere: Vec<Sphere>,
    /// The pose's rotation and translation in f32 (as the GPU has them).
    r32: [f32; 9],
    t32: [f32; 3],
    t_err: f32,
    sym_stamp: Vec<u32>,
    sym: Vec<Kdop<H>>,
    /// Spheres moved for the pose.
    count: u64,
}

impl<const H: usize> DualWorkspace<H> {
    /// The symmetrized k-DOPs' arrays only when asked for (72 B per node of B for kdop18:
    /// zeroing them per worker dominated small queries).
    fn new(fly: &FlyingHierarchy<H>, symmetric: bool) -> Self {
        let n = fly.bvh.nodes.len();
        let n_sym = if symmetric { n } else { 0 };
        DualWorkspace {
            tumble: TumbleWorkspace::new(fly),
            stack: Vec::with_capacity(256),
            moved: Moved {
                stamp: 0,
                sphere_stamp: vec![0; n],
                sphere: vec![
                    Sphere {
                        c: [0.0; 3],
                        r: 0.0
                    };
                    n
                ],
                r32: [0.0; 9],
                t32: [0.0; 3],
                t_err: 0.0,
                sym_stamp: vec![0; n_sym],
                sym: bytemuck::zeroed_vec(n_sym),
                count: 0,
            },
            frontier: Default::default(),
        }
    }
}

impl<const H: usize> Moved<H> {
    fn begin(&mut self, lp: &LocalPose) {
        (self.r32, self.t32, self.t_err) = crate::tumble::pose_f32(lp);
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.sphere_stamp.fill(0);
            self.sym_stamp.fill(0);
            self.stamp = 1;
        }
        self.count = 0;
    }

    #[inline]
    fn sphere(&mut self, spheres: &[Sphere], f: usize) -> Sphere {
        if self.sphere_stamp[f] != self.stamp {
            self.sphere[f] = spheres[f].posed_f32(&self.r32, &self.t32, self.t_err);
            self.sphere_stamp[f] = self.stamp;
            self.count += 1;
        }
        self.sphere[f]
    }

    #[inline]
    fn symmetric(&mut self, k: &Kdop<H>, f: usize) -> Kdop<H> {
        if self.sym_stamp[f] != self.stamp {
            self.sym[f] = slabs::symmetrize_f32(k);
            self.sym_stamp[f] = self.stamp;
        }
        self.sym[f]
    }
}

/// The dual node test: the sphere pretest, then the k-DOP slabs in the chosen order.
struct DualTest<'s, const H: usize> {
    s: &'s DualScene<H>,
    moved: &'s mut Moved<H>,
    fixed: [u8; H],
    /// A tolerance query's `ε` (0: the intersection query) and its slab margins
    /// ([`crate::proximity::slab_margins_f32`]).
    eps: f64,
    margins: [f32; H],
}

impl<const H: usize> NodeTest<H> for DualTest<'_, H> {
    type Sub = DualCounters;

    #[inline]
    fn overlaps(
        &mut self,
        tumble: &mut TumbleWorkspace<H>,
        e: usize,
        f: usize,
        c: &mut DualCounters,
    ) -> bool {
        let s = self.s;
        let sb = self.moved.sphere(&s.fly_spheres, f);
        let sa = if self.eps > 0.0 {
            s.env_spheres[e].widened(self.eps)
        } else {
            s.env_spheres[e]
        };
        if sphere::disjoint_f32(&sa, &sb) {
            c.sphere_rejects += 1;
            return false;
        }
        let mut kb = *tumble.node_bv(&s.fly, f);
        if s.options.symmetric {
            kb = self.moved.symmetric(&kb, f);
        }
        let ne = &s.env.nodes[e];
        if self.eps > 0.0 {
            // A tolerance query: every slab grown by its margin, tested in table order.
            c.slab_tests += H as u64;
            let overlap = crate::proximity::kdops_within(&ne.bv, &kb, &self.margins);
            c.slab_rejects += !overlap as u64;
            return overlap;
        }
        let order = match s.options.order {
            SlabOrder::PerPair => slabs::minkowski_order(&ne.bv, &kb, &s.inv_norm),
            SlabOrder::Fixed => self.fixed,
        };
        let (overlap, tested) = slabs::overlaps_in_order(&ne.bv, &kb, &order);
        c.slab_tests += tested as u64;
        if !overlap {
            c.slab_rejects += 1;
        }
        overlap
    }

    #[inline(always)]
    fn tri_hit(&self, a: &[crate::tri::P3; 3], b: &[crate::tri::P3; 3]) -> bool {
        if self.eps > 0.0 {
            crate::proximity::tri_tri_within(a, b, self.eps)
        } else {
            crate::tri::tri_tri_intersect(a, b)
        }
    }
}

/// Algorithm 1 with the dual node test, for one pose; appends `(tri_a, tri_b)` in file
/// numbering (unsorted) to `out`.
pub fn collide_pose<const H: usize>(
    s: &DualScene<H>,
    pose: &Pose,
    mode: Mode,
    method: TumbleMethod,
    ws: &mut DualWorkspace<H>,
    out: &mut Vec<(u32, u32)>,
) -> Counters<DualCounters> {
    collide_within(s, pose, mode, method, 0.0, ws, out)
}

/// [`collide_pose`] of a tolerance query at `eps` (0: the intersection query): both
/// volumes of A grown by `ε` ([`crate::proximity`]), the leaves tested by distance.
pub fn collide_within<const H: usize>(
    s: &DualScene<H>,
    pose: &Pose,
    mode: Mode,
    method: TumbleMethod,
    eps: f64,
    ws: &mut DualWorkspace<H>,
    out: &mut Vec<(u32, u32)>,
) -> Counters<DualCounters> {
    let (mut test, tumble, stack, _) = begin(s, pose, method, eps, ws);
    let mut c = descend(&s.env, &s.fly, pose, mode, tumble, stack, &mut test, out);
    // Distinct B nodes moved: every tumbled node had its sphere moved first (the root is
    // the first pair's), except under exact tumbling, which refits all nodes.
    c.bv_updates = tumble.updates.max(test.moved.count);
    c
}

/// Begins `pose` (B's k-DOPs tumbled, its spheres moved) and returns the node test at `eps`
/// with the workspace's other parts.
#[allow(clippy::type_complexity)]
fn begin<'a, const H: usize>(
    s: &'a DualScene<H>,
    pose: &Pose,
    method: TumbleMethod,
    eps: f64,
    ws: &'a mut DualWorkspace<H>,
) -> (
    DualTest<'a, H>,
    &'a mut TumbleWorkspace<H>,
    &'a mut Vec<(u32, u32)>,
    &'a mut crate::budget::Frontier,
) {
    let (env, fly) = (&s.env, &s.fly);
    let lp = fly.local_pose(env.frame(), pose);
    ws.tumble.begin(fly, &lp, method);
    ws.moved.begin(&lp);
    let test = DualTest {
        s,
        moved: &mut ws.moved,
        fixed: slabs::table_order::<H>(),
        eps,
        margins: crate::proximity::slab_margins_f32::<H>(eps),
    };
    (test, &mut ws.tumble, &mut ws.stack, &mut ws.frontier)
}

impl<const H: usize> crate::budget::HasFrontier for DualWorkspace<H> {
    fn frontier(&mut self) -> &mut crate::budget::Frontier {
        &mut self.frontier
    }
}

/// One pose of the dual hierarchy under `budget` ([`crate::budget`]): the dual node test
/// (spheres, then slabs), each overlapping pair's bound from its k-DOPs (B's tumbled ones,
/// which contain B whatever the symmetrized test used); no pretest, as in the unbudgeted
/// query.
pub fn collide_budgeted<const H: usize>(
    s: &DualScene<H>,
    pose: &Pose,
    mode: Mode,
    method: TumbleMethod,
    budget: crate::budget::Budget,
    ws: &mut DualWorkspace<H>,
    out: &mut Vec<(u32, u32)>,
) -> (Counters<DualCounters>, crate::budget::PoseStatus) {
    let (mut test, tumble, _, frontier) = begin(s, pose, method, 0.0, ws);
    let mut walk = crate::budget::skeleton::Skeleton {
        env: &s.env,
        fly: &s.fly,
        pose,
        mode,
        tumble,
        test: &mut test,
    };
    let (mut c, status) = crate::budget::search(
        &mut walk,
        budget,
        crate::budget::Start::Roots,
        frontier,
        out,
    );
    let tumble = walk.tumble;
    c.bv_updates = tumble.updates.max(test.moved.count);
    (c, status)
}

impl<const H: usize> PairScene for DualScene<H> {
    type Workspace = DualWorkspace<H>;
    type Sub = DualCounters;

    fn workspace(&self) -> DualWorkspace<H> {
        DualWorkspace::new(&self.fly, self.options.symmetric)
    }

    fn prefault(&self, ws: &mut DualWorkspace<H>) {
        use crate::tumble::touch_pages;
        ws.tumble.prefault();
        let m = &mut ws.moved;
        touch_pages(&mut m.sphere_stamp);
        touch_pages(&mut m.sphere);
        touch_pages(&mut m.sym_stamp);
        touch_pages(&mut m.sym);
    }

    fn begin_chunk(&self, ws: &mut DualWorkspace<H>) {
        ws.tumble.restart();
        ws.frontier.forget_hot();
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut DualWorkspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters<DualCounters> {
        let eps = opts.tolerance.get();
        collide_within(self, pose, opts.mode, opts.tumble, eps, ws, out)
    }

    fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        [
            (
                self.env.nodes.len(),
                self.env.nodes.len() * Self::NODE_BYTES,
            ),
            (
                self.fly.bvh.nodes.len(),
                self.fly.bvh.nodes.len() * Self::NODE_BYTES,
            ),
        ]
    }

    fn depths(&self) -> [u32; 2] {
        [self.env.depth, self.fly.bvh.depth]
    }

    fn pool(&self) -> Option<&WorkspacePool<Self::Workspace>> {
        Some(&self.pool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generate;

    #[test]
    fn node_spheres_contain_their_triangles() {
        let m = generate::torus([0.1, 0.2, 0.3], 1.0, 0.3, 24, 10);
        let bvh = Bvh::<9>::build(&m, &BuildOptions::default());
        let sph = node_spheres(&bvh);
        // Walk the tree: every triangle of a subtree lies in each ancestor's sphere.
        let mut stack = vec![(0usize, Vec::<usize>::new())];
        while let Some((i, anc)) = stack.pop() {
            let n = &bvh.nodes[i];
            let mut anc = anc.clone();
            anc.push(i);
            if n.is_leaf() {
                for t in n.first..n.first + n.count {
                    for p in bvh.tris.corners_local_f64(t as usize) {
                        for &a in &anc {
                            assert!(sph[a].contains(p));
                        }
                    }
                }
            } else {
                stack.push((n.first as usize, anc.clone()));
                stack.push((n.first as usize + 1, anc));
            }
        }
        // The smallest ball of a triangle has radius at most diameter/√3 (Jung's theorem in
        // the plane): a loose or misplaced centre would exceed it.
        for (i, n) in bvh.nodes.iter().enumerate().filter(|(_, n)| n.is_leaf()) {
            let t = bvh.tris.corners_local_f64(n.first as usize);
            let d = (0..3)
                .map(|k| {
                    let (a, b) = (t[k], t[(k + 1) % 3]);
                    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
                })
                .fold(0.0, f64::max);
            assert!(sph[i].r as f64 <= d / 3f64.sqrt() * (1.0 + 1e-6) + 1e-7);
        }
    }
}
