//! The CPU reference traversal: Algorithm 1 of `002_2561ef21643dcace.txt` (4.2), the
//! simultaneous depth-first descent of the environment hierarchy A and the flying
//! hierarchy B, with an explicit stack instead of recursion.
//!
//! Descent rule (the same on the GPU, so both test the same node pairs): on overlap, descend
//! A while its node is internal; at a leaf of A, descend B; at two leaves, test every
//! triangle of A's leaf against every triangle of B's leaf. Children are visited first-child
//! first.
//!
//! Counters (the cost model T = Nv·Cv + Np·Cp + Nu·Cu of the paper): Nv = k-DOP overlap
//! tests, Np = triangle–triangle tests, Nu = flying nodes whose k-DOP was updated (tumbled)
//! for the pose, each counted once per pose.

use crate::Pose;
use crate::bvh::Bvh;
use crate::tri::tri_tri_intersect;
use crate::tumble::{FlyingHierarchy, TumbleMethod, TumbleWorkspace};

/// All contacts, or stop at the first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    All,
    First,
}

option_names! {
    Mode, kind "mode", all ALL {
        All => "all",
        First => "first",
    }
}

/// Which hierarchy a node pair descends when both k-DOPs overlap.
///
/// [`Descent::Environment`] is Algorithm 1 of `002_2561ef21643dcace.txt` (4.2), made for a
/// small flying object in a large environment: A is descended to its leaves before B is
/// touched, so B's root is tested against every node of A it overlaps. With two objects of
/// similar size (two tumbling copies of a model) that visits, for every leaf of A in B's
/// root k-DOP, a whole descent of B. [`Descent::Larger`] is the usual rule for such pairs
/// (Gottschalk's OBBTree traversal; Zachmann's DOP-trees descend both): descend the node
/// whose k-DOP is larger (sum of its slab widths, B's tumbled k-DOP), A on ties, the other
/// one when a node is a leaf. Both rules test only overlapping pairs and reach every leaf pair
/// whose k-DOPs overlap along the way, so the contacts are the same; Nv and Np differ.
/// The GPU pipeline implements `Environment` only (its parity tests compare Nv with the
/// CPU traversal run with `Environment`). `Larger` is the CPU default: on the vs_parry scenes
/// it tests 3–15× fewer node pairs (BENCHMARKS.md, "Against parry3d").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Descent {
    Environment,
    #[default]
    Larger,
}

option_names! {
    Descent, kind "descent", all ALL {
        Environment => "env": "Algorithm 1 of Klosowski et al.: descend A to its leaves, then B (the GPU's rule)",
        Larger => "larger": "Descend the node with the larger k-DOP (the CPU default; CPU only)",
    }
}

/// Sum of the slab widths: the size [`Descent::Larger`] compares.
#[inline]
fn size<const H: usize>(k: &crate::bv::Kdop<H>) -> f32 {
    let mut s = 0.0;
    for i in 0..H {
        s += k.max[i] - k.min[i];
    }
    s
}

/// The cost model's counters for one pose or summed over many.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// Nv: bounding-volume overlap tests.
    pub bv_tests: u64,
    /// Np: triangle–triangle tests.
    pub tri_tests: u64,
    /// Nu: flying-hierarchy nodes updated.
    pub bv_updates: u64,
    /// Sub-tests of the dual k-DOP–sphere hierarchy (`dual`; zero for the others): node
    /// pairs rejected by the sphere pretest, ...
    pub sphere_rejects: u64,
    /// ... rejected by a k-DOP slab after the spheres overlapped, ...
    pub slab_rejects: u64,
    /// ... and the slab interval tests made (not part of Nv).
    pub slab_tests: u64,
}

impl std::ops::AddAssign for Counters {
    fn add_assign(&mut self, o: Counters) {
        self.bv_tests += o.bv_tests;
        self.tri_tests += o.tri_tests;
        self.bv_updates += o.bv_updates;
        self.sphere_rejects += o.sphere_rejects;
        self.slab_rejects += o.slab_rejects;
        self.slab_tests += o.slab_tests;
    }
}

/// Per-thread scratch state of the traversal.
#[derive(Debug)]
pub struct Workspace<const H: usize> {
    pub tumble: TumbleWorkspace<H>,
    stack: Vec<(u32, u32)>,
}

impl<const H: usize> Workspace<H> {
    pub fn new(fly: &FlyingHierarchy<H>) -> Self {
        Workspace {
            tumble: TumbleWorkspace::new(fly),
            stack: Vec::with_capacity(256),
        }
    }
}

/// Runs Algorithm 1 for one pose, appending `(tri_a, tri_b)` in the meshes' own triangle
/// numbering (unsorted) to `out`.
pub fn collide_pose<const H: usize>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    pose: &Pose,
    mode: Mode,
    method: TumbleMethod,
    ws: &mut Workspace<H>,
    out: &mut Vec<(u32, u32)>,
) -> Counters {
    collide_pose_descent(env, fly, pose, mode, method, Descent::Environment, ws, out)
}

/// [`collide_pose`] with a choice of [`Descent`] rule.
#[allow(clippy::too_many_arguments)]
pub fn collide_pose_descent<const H: usize>(
    env: &Bvh<H>,
    fly: &FlyingHierarchy<H>,
    pose: &Pose,
    mode: Mode,
    method: TumbleMethod,
    descent: Descent,
    ws: &mut Workspace<H>,
    out: &mut Vec<(u32, u32)>,
) -> Counters {
    let mut c = Counters::default();
    ws.tumble
        .begin(fly, &fly.local_pose(env.frame(), pose), method);
    let stack = &mut ws.stack;
    stack.clear();
    stack.push((0, 0));
    'outer: while let Some((e, f)) = stack.pop() {
        let (e, f) = (e as usize, f as usize);
        let ne = &env.nodes[e];
        c.bv_tests += 1;
        let bf = ws.tumble.node_bv(fly, f);
        if !ne.bv.overlaps(bf) {
            continue;
        }
        let nf = &fly.bvh.nodes[f];
        let down_a = !ne.is_leaf()
            && (descent == Descent::Environment || nf.is_leaf() || size(&ne.bv) >= size(bf));
        if down_a {
            stack.push((ne.first + 1, f as u32));
            stack.push((ne.first, f as u32));
            continue;
        }
        if !nf.is_leaf() {
            stack.push((e as u32, nf.first + 1));
            stack.push((e as u32, nf.first));
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
    c.bv_updates = ws.tumble.updates;
    c
}
