//! The volume trees' root pairs, tested on the host ([`HostRoots`]): one node test per pose,
//! with the device's own f32 formulas (`obb::sat::obb_posed`/`obb_disjoint`,
//! `Sphere::posed_f32`/`sphere::disjoint_f32`: the CPU functions the WGSL twins, bit for bit), so the device starts
//! at level 1 and a batch of L levels records L dispatches, a quarter of the 4·L of the
//! pipeline before issue 39. The pairs of level 1 carry no slot: the expansion poses B's
//! volume of such a pair and inserts it into the table (two pairs that share B's root, A's
//! two children, pose it both; one inserts it and counts it), so the (pose, node) pairs
//! posed, Nv and Nu stay the CPU's.

use super::finish::BatchOutput;
use super::pair_scene::{GpuPairScene, GpuVolumes};
use crate::dual::Sphere;
use crate::dual::sphere::disjoint_f32;
use crate::gpu::layout::{FrontPair, GpuCounters, NO_SLOT};
use crate::obb::Obb32;
use crate::obb::sat::{obb_disjoint, obb_posed};
use crate::tumble::PoseFrame;

/// The root volumes of A and B.
#[derive(Clone, Copy, Debug)]
enum Roots {
    Obb(Obb32, Obb32),
    Sphere(Sphere, Sphere),
}

/// A volume tree's root pair, for the host's test.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HostRoots {
    roots: Roots,
    /// A's and B's root nodes: `(first, count)` (count 0: internal).
    env: (u32, u32),
    fly: (u32, u32),
}

/// What the roots' tests of a batch give: level 1's pairs (taken for the upload), and per
/// pose B's volumes posed on the host (Nu) to add to the device's counts with the node tests
/// (one each).
pub(crate) struct LevelOne {
    pub(crate) pairs: Vec<FrontPair>,
    pub(crate) nu: Vec<u32>,
}

impl HostRoots {
    /// The roots of `scene`'s volume trees; `None` for the k-DOP scenes, and when both roots
    /// are leaves (one level: the device tests the root pair).
    pub(crate) fn of<const H: usize, S: GpuPairScene<H>>(scene: &S) -> Option<HostRoots> {
        let (env, fly) = (&scene.env().nodes[0], &scene.fly_bvh().nodes[0]);
        if env.count != 0 && fly.count != 0 {
            return None;
        }
        let roots = match scene.volumes()? {
            GpuVolumes::Obb(e, f) => Roots::Obb(e[0], f[0]),
            GpuVolumes::Sphere(e, f) => Roots::Sphere(e[0], f[0]),
        };
        Some(HostRoots {
            roots,
            env: (env.first, env.count),
            fly: (fly.first, fly.count),
        })
    }

    /// A's root grown by a tolerance `eps` as on the device ([`super::widen`]; 0: as built).
    pub(crate) fn widened(self, eps: f64) -> HostRoots {
        use crate::obb::Volume;
        if eps == 0.0 {
            return self;
        }
        let roots = match self.roots {
            Roots::Obb(a, b) => Roots::Obb(a.widened(eps), b),
            Roots::Sphere(a, b) => Roots::Sphere(a.widened(eps), b),
        };
        HostRoots { roots, ..self }
    }

    /// The root pair of every pose of `frames` tested: a pose whose roots overlap gives its
    /// two child pairs (A's while A's root is internal and B's is a leaf or A's volume is at
    /// least as large, else B's: the descent of `expand_obb`/`expand_sphere`), without slots.
    pub(crate) fn level_one<const H: usize>(&self, frames: &[PoseFrame<H>]) -> LevelOne {
        let mut out = LevelOne {
            pairs: Vec::with_capacity(2 * frames.len()),
            nu: vec![0; frames.len()],
        };
        for (pose, f) in frames.iter().enumerate() {
            let (disjoint, prefer_a) = match &self.roots {
                Roots::Obb(a, b) => (
                    obb_disjoint(a, &obb_posed(b, &f.r, &f.t, f.t_err)),
                    a.size >= b.size,
                ),
                Roots::Sphere(a, b) => (
                    disjoint_f32(a, &b.posed_f32(&f.r, &f.t, f.t_err)),
                    a.r >= b.r,
                ),
            };
            let pose = pose as u32;
            let pair = |a, b| FrontPair {
                pose,
                a,
                b,
                slot: NO_SLOT,
            };
            if disjoint {
                out.nu[pose as usize] = 1;
            } else if self.env.1 == 0 && (self.fly.1 != 0 || prefer_a) {
                // B's root is posed again, once, by the device (A's children share it).
                let first = self.env.0;
                out.pairs.extend([pair(first, 0), pair(first + 1, 0)]);
            } else {
                out.nu[pose as usize] = 1;
                let first = self.fly.0;
                out.pairs.extend([pair(0, first), pair(0, first + 1)]);
            }
        }
        out
    }
}

impl LevelOne {
    /// Adds the host's root tests to a batch's output and counters: level 0's size (every
    /// pose), one node test per pose, B's roots it posed (Nu, and `n_tumbled`).
    pub(crate) fn count(&self, out: &mut BatchOutput, c: &mut GpuCounters) {
        if let Some(l0) = out.level_sizes.first_mut() {
            *l0 = self.nu.len() as u32;
        }
        for nv in &mut out.nv {
            *nv += 1;
        }
        for (nu, &nu_host) in out.nu.iter_mut().zip(&self.nu) {
            *nu += nu_host;
        }
        c.n_tumbled += self.nu.iter().sum::<u32>();
    }
}
