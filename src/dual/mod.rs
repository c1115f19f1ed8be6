//! The dual k-DOP–sphere hierarchy of Fang, Jiang and Xu (`001_86778863c2621338.txt`):
//! the k-DOP hierarchy of `build` (same tree, same tumbling of B) with a bounding sphere per
//! node, the smallest enclosing sphere of the node's triangle corners ([`sphere`]). The node
//! test (one Nv, ARCHITECTURE.md "Counters") is the sphere test first — disjoint spheres
//! reject the pair (III.B, Fig. 3a) — then the k-DOP slabs in order of smallest
//! Minkowski-sum extent ([`slabs`]). Optionally the k-DOPs are centrally symmetric (III.A).
//!
//! B's spheres follow a pose by moving the centre ([`sphere::Sphere::posed_f32`], f32 with a
//! proven error bound, the GPU's formula); its k-DOPs are tumbled exactly as for
//! `--bv kdop*` (`tumble`), and symmetrized in f32 ([`slabs::symmetrize_f32`]) when asked.
//! Both are brought into A's frame lazily, the first time the traversal needs them in a
//! pose, so Nu counts the B nodes whose dual volume (sphere, and k-DOP when the sphere test
//! passed) was moved for the pose; with exact tumbling every node is refit, so Nu is the
//! node count. The sphere test is [`sphere::disjoint_f32`]. These f32 twins are what the
//! GPU pipeline computes (`shaders/dual.wgsl`), so the CPU and GPU test the same node pairs
//! and count the same sub-tests.
//!
//! The descent rule and the leaf test are those of `traverse` (Algorithm 1 of
//! `002_2561ef21643dcace.txt`, exact `tri::tri_tri_intersect` on `Pose::apply` of B's
//! corners), and both volumes are conservative, so the pairs equal brute force.
//!
//! Sub-test counters (in [`Counters`], zero for the other hierarchies): `sphere_rejects`
//! node pairs rejected by the sphere test, `slab_rejects` by a k-DOP slab after the spheres
//! overlapped, `slab_tests` the slab interval tests made; the accepted pairs are
//! `bv_tests − sphere_rejects − slab_rejects`.

pub mod slabs;
pub mod sphere;

use crate::Pose;
use crate::bv::Kdop;
use crate::bvh::{BuildOptions, Bvh};
use crate::frame::LocalPose;
use crate::mesh::Mesh;
use crate::query::{PairScene, QueryOptions};
use crate::traverse::{Counters, Mode};
use crate::tri::tri_tri_intersect;
use crate::tumble::{FlyingHierarchy, TumbleMethod, TumbleWorkspace};
use rayon::prelude::*;
pub use slabs::SlabOrder;
pub use sphere::Sphere;

/// Options of the dual hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DualOptions {
    /// Centrally symmetric k-DOPs (III.A): A's at build time, B's after tumbling.
    pub symmetric: bool,
    /// Slab order of the k-DOP test.
    pub order: SlabOrder,
}

/// The smallest enclosing sphere (made conservative) of every node's triangle corners.
/// A node's triangles are a contiguous range of the reordered array: a leaf's own, an
/// internal node's the union of its children's (children follow parents in the array, so a
/// reverse sweep sees children first).
pub fn node_spheres<const H: usize>(bvh: &Bvh<H>) -> Vec<Sphere> {
    let n = bvh.nodes.len();
    let mut range = vec![(0u32, 0u32); n];
    for i in (0..n).rev() {
        let node = &bvh.nodes[i];
        range[i] = if node.is_leaf() {
            (node.first, node.first + node.count)
        } else {
            let (l, r) = (range[node.first as usize], range[node.first as usize + 1]);
            (l.0.min(r.0), l.1.max(r.1))
        };
    }
    range
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
    pub env_spheres: Vec<Sphere>,
    /// B's hierarchy as tumbled for `--bv kdop*` (its stored k-DOPs stay tight: B's tumbled
    /// k-DOPs are symmetrized per pose instead).
    pub fly: FlyingHierarchy<H>,
    pub fly_spheres: Vec<Sphere>,
    pub options: DualOptions,
    inv_norm: [f32; H],
    pool: std::sync::Mutex<Vec<DualWorkspace<H>>>,
}

impl<const H: usize> DualScene<H> {
    pub fn build(
        a: &Mesh,
        b: &Mesh,
        opt_a: &BuildOptions,
        opt_b: &BuildOptions,
        options: &DualOptions,
    ) -> Self {
        let (mut env, fly) = rayon::join(|| Bvh::build(a, opt_a), || Bvh::build(b, opt_b));
        let (env_spheres, fly_spheres) = rayon::join(|| node_spheres(&env), || node_spheres(&fly));
        if options.symmetric {
            for n in &mut env.nodes {
                n.bv = slabs::symmetrize(&n.bv);
            }
        }
        DualScene {
            env,
            env_spheres,
            fly: FlyingHierarchy::new(fly),
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

/// Per-thread scratch state: B's tumbled k-DOPs (via `tumble`), B's posed spheres and
/// symmetrized k-DOPs, each valid while its stamp equals the pose's.
#[derive(Debug)]
pub struct DualWorkspace<const H: usize> {
    pub tumble: TumbleWorkspace<H>,
    stack: Vec<(u32, u32)>,
    stamp: u32,
    sphere_stamp: Vec<u32>,
    sphere: Vec<Sphere>,
    /// The pose's rotation and translation in f32 (as the GPU has them).
    r32: [f32; 9],
    t32: [f32; 3],
    t_err: f32,
    sym_stamp: Vec<u32>,
    sym: Vec<Kdop<H>>,
    moved: u64,
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
            sym: vec![Kdop::EMPTY; n_sym],
            moved: 0,
        }
    }

    fn begin(&mut self, lp: &LocalPose) {
        (self.r32, self.t32, self.t_err) = crate::tumble::pose_f32(lp);
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.sphere_stamp.fill(0);
            self.sym_stamp.fill(0);
            self.stamp = 1;
        }
        self.moved = 0;
    }

    #[inline]
    fn sphere(&mut self, spheres: &[Sphere], f: usize) -> Sphere {
        if self.sphere_stamp[f] != self.stamp {
            self.sphere[f] = spheres[f].posed_f32(&self.r32, &self.t32, self.t_err);
            self.sphere_stamp[f] = self.stamp;
            self.moved += 1;
        }
        self.sphere[f]
    }

    #[inline]
    fn kdop(&mut self, fly: &FlyingHierarchy<H>, f: usize, symmetric: bool) -> Kdop<H> {
        let k = *self.tumble.node_bv(fly, f);
        if !symmetric {
            return k;
        }
        if self.sym_stamp[f] != self.stamp {
            self.sym[f] = slabs::symmetrize_f32(&k);
            self.sym_stamp[f] = self.stamp;
        }
        self.sym[f]
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
) -> Counters {
    let (env, fly) = (&s.env, &s.fly);
    let mut c = Counters::default();
    let lp = fly.local_pose(env.frame(), pose);
    ws.tumble.begin(fly, &lp, method);
    ws.begin(&lp);
    ws.stack.clear();
    ws.stack.push((0, 0));
    let fixed = slabs::table_order::<H>();
    'outer: while let Some((e, f)) = ws.stack.pop() {
        let (e, f) = (e as usize, f as usize);
        let ne = &env.nodes[e];
        c.bv_tests += 1;
        let sb = ws.sphere(&s.fly_spheres, f);
        if sphere::disjoint_f32(&s.env_spheres[e], &sb) {
            c.sphere_rejects += 1;
            continue;
        }
        let kb = ws.kdop(fly, f, s.options.symmetric);
        let order = match s.options.order {
            SlabOrder::PerPair => slabs::minkowski_order(&ne.bv, &kb, &s.inv_norm),
            SlabOrder::Fixed => fixed,
        };
        let (overlap, tested) = slabs::overlaps_in_order(&ne.bv, &kb, &order);
        c.slab_tests += tested as u64;
        if !overlap {
            c.slab_rejects += 1;
            continue;
        }
        if !ne.is_leaf() {
            ws.stack.push((ne.first + 1, f as u32));
            ws.stack.push((ne.first, f as u32));
            continue;
        }
        let nf = &fly.bvh.nodes[f];
        if !nf.is_leaf() {
            ws.stack.push((e as u32, nf.first + 1));
            ws.stack.push((e as u32, nf.first));
            continue;
        }
        let tris_b = ws.tumble.leaf_triangles(fly, pose, f);
        for pa in ne.first..ne.first + ne.count {
            let ta = env.tris.corners_f64(pa as usize);
            for (j, tb) in tris_b.iter().enumerate() {
                c.tri_tests += 1;
                if tri_tri_intersect(&ta, tb) {
                    out.push((
                        env.tri_index[pa as usize],
                        fly.bvh.tri_index[nf.first as usize + j],
                    ));
                    if mode == Mode::First {
                        break 'outer;
                    }
                }
            }
        }
    }
    // Distinct B nodes moved: every tumbled node had its sphere moved first (the root is
    // the first pair's), except under exact tumbling, which refits all nodes.
    c.bv_updates = ws.tumble.updates.max(ws.moved);
    c
}

impl<const H: usize> PairScene for DualScene<H> {
    type Workspace = DualWorkspace<H>;

    fn workspace(&self) -> DualWorkspace<H> {
        DualWorkspace::new(&self.fly, self.options.symmetric)
    }

    fn begin_chunk(&self, ws: &mut DualWorkspace<H>) {
        ws.tumble.restart();
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut DualWorkspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        collide_pose(self, pose, opts.mode, opts.tumble, ws, out)
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

    /// One pose, sequentially, with a pooled workspace (as `query::Scene`).
    fn collide(&self, pose: &Pose, opts: &QueryOptions) -> crate::query::PoseResult {
        let take = || self.pool.lock().ok().and_then(|mut p| p.pop());
        let mut ws = take().unwrap_or_else(|| self.workspace());
        let mut pairs = Vec::new();
        self.begin_chunk(&mut ws);
        let counters = self.collide_into(pose, opts, &mut ws, &mut pairs);
        pairs.sort_unstable();
        pairs.dedup();
        if let Ok(mut p) = self.pool.lock() {
            p.push(ws);
        }
        crate::query::PoseResult { pairs, counters }
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
