//! CPU twins of the entry points of `shaders/front_expand.wgsl`: one level of the breadth-first
//! front, one function per entry point doing what one dispatch does over its whole grid.
//! Invocations run in index order and the atomics become plain increments, so the appends
//! land in one of the orders the GPU may produce: the same pairs as a set, the same counters.

use super::dual::{kdop_overlaps_dual, kdop_symmetrize, sphere_disjoint, sphere_posed};
use super::kdop::kdop_overlaps;
use crate::bv::{Kdop, KdopNode};
use crate::dual::Sphere;
use crate::gpu::layout::{FrontPair, GpuCounters};
use crate::tumble::PoseFrame;

/// Bindings 0–8 of `shaders/front_expand.wgsl`, by their WGSL names (atomics as `u32`).
/// `front_out` and `leaves` hold `counters.cap_front` and `counters.cap_leaf` pairs.
pub struct ExpandBindings<'a, const H: usize> {
    pub env_nodes: &'a [KdopNode<H>],
    pub fly_nodes: &'a [KdopNode<H>],
    /// B's k-DOPs per pose, `tumbled[pose · n_fly + node]` (see `super::kdop_tumble`).
    pub tumbled: &'a [Kdop<H>],
    pub front_in: &'a [FrontPair],
    pub front_out: &'a mut [FrontPair],
    pub leaves: &'a mut [FrontPair],
    pub counters: &'a mut GpuCounters,
    pub nv: &'a mut [u32],
    pub done: &'a [u32],
}

/// Bindings 9–12 of `shaders/front_expand.wgsl`, read by `expand_dual` only.
pub struct DualBindings<'a, const H: usize> {
    pub env_spheres: &'a [Sphere],
    pub fly_spheres: &'a [Sphere],
    pub frames: &'a [PoseFrame<H>],
    /// Per pose: sphere rejects, slab rejects, slab tests.
    pub dual_counts: &'a mut [u32],
}

impl<const H: usize> ExpandBindings<'_, H> {
    /// `push_front`: append, or raise overflow bit 1 beyond the capacity.
    fn push_front(&mut self, p: FrontPair) {
        let k = self.counters.n_out;
        self.counters.n_out = k.wrapping_add(1);
        if k < self.counters.cap_front {
            self.front_out[k as usize] = p;
        } else {
            self.counters.overflow |= 1;
        }
    }

    /// `push_leaf`: append, or raise overflow bit 2 beyond the capacity.
    fn push_leaf(&mut self, p: FrontPair) {
        let k = self.counters.n_leaf;
        self.counters.n_leaf = k.wrapping_add(1);
        if k < self.counters.cap_leaf {
            self.leaves[k as usize] = p;
        } else {
            self.counters.overflow |= 2;
        }
    }

    /// `descend`: the pair's volumes overlap; descend A while internal, then B, then store
    /// the leaf pair (the rule of `traverse`, `Descent::Environment`).
    fn descend(&mut self, p: FrontPair, na: &KdopNode<H>) {
        if na.count == 0 {
            self.push_front(FrontPair { a: na.first, ..p });
            self.push_front(FrontPair {
                a: na.first + 1,
                ..p
            });
            return;
        }
        let nb = self.fly_nodes[p.b as usize];
        if nb.count == 0 {
            self.push_front(FrontPair { b: nb.first, ..p });
            self.push_front(FrontPair {
                b: nb.first + 1,
                ..p
            });
            return;
        }
        self.push_leaf(p);
    }

    /// The start of every invocation: false for a pose already done in first-contact mode,
    /// else the pair is counted in `nv` (one node test) and true.
    fn enter(&mut self, p: &FrontPair) -> bool {
        if self.counters.mode_first != 0 && self.done[p.pose as usize] != 0 {
            return false;
        }
        let nv = &mut self.nv[p.pose as usize];
        *nv = nv.wrapping_add(1);
        true
    }

    fn tumbled_b(&self, p: &FrontPair) -> Kdop<H> {
        self.tumbled[p.pose as usize * self.counters.n_fly as usize + p.b as usize]
    }
}

/// `expand` of `shaders/front_expand.wgsl`: every input pair whose k-DOPs overlap
/// ([`kdop_overlaps`]) is descended: child pairs to `front_out`, leaf pairs to `leaves`.
pub fn expand<const H: usize>(b: &mut ExpandBindings<'_, H>) {
    let front_in = b.front_in;
    for p in &front_in[..b.counters.n_in as usize] {
        if !b.enter(p) {
            continue;
        }
        let na = b.env_nodes[p.a as usize];
        if !kdop_overlaps(&na.bv, &b.tumbled_b(p)) {
            continue;
        }
        b.descend(*p, &na);
    }
}

/// `expand_dual` of `shaders/front_expand.wgsl` (the dual k-DOP–sphere hierarchy): the
/// sphere test first ([`sphere_posed`], [`sphere_disjoint`]), then the k-DOP slabs
/// ([`kdop_overlaps_dual`]; `dual_flags` bit 0: per-pair order, bit 1: B's k-DOP
/// symmetrized), counting the sub-tests per pose in `dual_counts`; survivors descend.
pub fn expand_dual<const H: usize>(b: &mut ExpandBindings<'_, H>, d: &mut DualBindings<'_, H>) {
    let front_in = b.front_in;
    for p in &front_in[..b.counters.n_in as usize] {
        if !b.enter(p) {
            continue;
        }
        let pose = p.pose as usize;
        let f = &d.frames[pose];
        let sb = sphere_posed(&d.fly_spheres[p.b as usize], &f.r, &f.t, f.t_err);
        if sphere_disjoint(&d.env_spheres[p.a as usize], &sb) {
            d.dual_counts[3 * pose] = d.dual_counts[3 * pose].wrapping_add(1);
            continue;
        }
        let mut kb = b.tumbled_b(p);
        if b.counters.dual_flags & 2 != 0 {
            kb = kdop_symmetrize(&kb);
        }
        let na = b.env_nodes[p.a as usize];
        let (overlap, tests) = kdop_overlaps_dual(&na.bv, &kb, b.counters.dual_flags & 1 != 0);
        d.dual_counts[3 * pose + 2] = d.dual_counts[3 * pose + 2].wrapping_add(tests);
        if !overlap {
            d.dual_counts[3 * pose + 1] = d.dual_counts[3 * pose + 1].wrapping_add(1);
            continue;
        }
        b.descend(*p, &na);
    }
}
