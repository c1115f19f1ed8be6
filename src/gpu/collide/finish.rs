//! The host's end of a batch: the f32 filter's undecided pairs decided by the exact test
//! (a tolerance query's: every triangle pair of its leaf pairs, by the exact distance test),
//! triangle positions mapped back to the files' numbering, pairs sorted ([`finish`]), from
//! what the batch read back ([`BatchOutput`]).

use super::*;
use crate::gpu::layout::{UNRESOLVED_A, UNRESOLVED_B};

/// Decides the UNSURE pairs exactly ([`tri_tri_intersect`], or with a tolerance `eps > 0`,
/// the pose's, [`crate::proximity::tri_tri_within`]), maps triangle positions to file
/// numbering, sorts. Each pose comes with the node pairs a budget left untested
/// ([`UNRESOLVED_A`] and [`UNRESOLVED_B`] entries of the UNSURE list; none without a
/// budget).
#[allow(clippy::too_many_arguments)]
pub(crate) fn finish<const H: usize, S: GpuPairScene<H>>(
    scene: &S,
    poses: &[Pose],
    out: BatchOutput,
    mode: Mode,
    dense: bool,
    eps: &[f64],
    stats: &mut GpuStats,
) -> Vec<(PoseResult<S::Sub>, Unresolved)> {
    let env = scene.env();
    let fly = scene.fly_bvh();
    let dual = |i: usize, k: usize| out.dual.get(3 * i + k).map_or(0, |&c| c as u64);
    let mut results: Vec<PoseResult<S::Sub>> = (0..poses.len())
        .map(|i| PoseResult {
            pairs: Vec::new(),
            counters: Counters {
                bv_tests: out.nv[i] as u64,
                tri_tests: out.np[i] as u64,
                // Dense tumbling moves every node; lazy tumbling and the volume trees' posing
                // counted their own.
                bv_updates: if dense {
                    fly.nodes.len() as u64
                } else {
                    out.nu[i] as u64
                },
                sub: S::sub([dual(i, 0), dual(i, 1), dual(i, 2)]),
            },
        })
        .collect();
    for c in &out.contacts {
        results[c.pose as usize].pairs.push((c.a, c.b));
    }
    let mut unresolved: Vec<Unresolved> = vec![Vec::new(); poses.len()];
    for u in &out.unsure {
        if u.slot == UNRESOLVED_A || u.slot == UNRESOLVED_B {
            unresolved[u.pose as usize].push(FirstChild {
                a: u.a,
                b: u.b,
                split_a: u.slot == UNRESOLVED_A,
            });
            continue;
        }
        stats.unsure += 1;
        let ta = env.tris.corners_f64(u.a as usize);
        let tb = fly
            .tris
            .corners_f64(u.b as usize)
            .map(|p| poses[u.pose as usize].apply(p));
        let hit = match eps[u.pose as usize] {
            0.0 => tri_tri_intersect(&ta, &tb),
            e => crate::proximity::tri_tri_within(&ta, &tb, e),
        };
        if hit {
            results[u.pose as usize]
                .pairs
                .push((env.tri_index[u.a as usize], fly.tri_index[u.b as usize]));
        }
    }
    for r in &mut results {
        r.pairs.sort_unstable();
        r.pairs.dedup();
        if mode == Mode::First {
            r.pairs.truncate(1);
        }
    }
    results.into_iter().zip(unresolved).collect()
}

/// What one batch produced: contacts in the meshes' own triangle numbering, undecided
/// pairs as positions in the reordered triangle arrays.
pub(crate) struct BatchOutput {
    /// Node pairs entering each level (all poses of the batch).
    pub level_sizes: Vec<u32>,
    pub nv: Vec<u32>,
    /// Nodes tumbled (lazy tumbling) or posed (the volume trees) per pose; zeros when dense.
    pub nu: Vec<u32>,
    pub np: Vec<u32>,
    pub contacts: Vec<FrontPair>,
    pub unsure: Vec<FrontPair>,
    /// Dual hierarchy: (sphere rejects, slab rejects, slab tests) per pose; else empty.
    pub dual: Vec<u32>,
}

/// A pair of a budgeted pose's frontier as the device reports it: the first of the two
/// child pairs the pose could not afford to test, and which node the pair split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FirstChild {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) split_a: bool,
}

/// A budgeted pose's frontier ([`FirstChild`] of each pair); empty for every pose of an
/// unbudgeted run (`GpuScene::budget`).
pub(crate) type Unresolved = Vec<FirstChild>;
