//! CPU twin of the entry point of `shaders/tri_tri.wgsl`: the triangle tests of one level's
//! leaf pairs by the certified f32 filter ([`super::tri_filter`]), invocations in index
//! order, atomics as plain increments.

use super::tri_filter::{
    TF_HIT, TF_UNSURE, transform_error_bound, transform_f32, tri_tri_farther, tri_tri_filter,
};
use crate::bv::KdopNode;
use crate::gpu::layout::{FrontPair, GpuCounters, RESUMED_TRI, UNRESOLVED_A, UNRESOLVED_B};
use crate::tumble::PoseFrame;

/// The bindings of `tri_test` (`gpu::kernels::TRI_TEST`), by their WGSL names (atomics as `u32`; triangles
/// as nine f32 per reordered position, [`crate::ordered::OrderedTriangles::all_corners_f32`]).
/// `contacts` and `unsure` hold `counters.cap_contact` and `counters.cap_unsure` pairs.
pub struct TriTestBindings<'a, const H: usize> {
    pub env_nodes: &'a [KdopNode<H>],
    pub fly_nodes: &'a [KdopNode<H>],
    pub env_tris: &'a [[[f32; 3]; 3]],
    pub fly_tris: &'a [[[f32; 3]; 3]],
    pub frames: &'a [PoseFrame<H>],
    pub leaves: &'a [FrontPair],
    pub counters: &'a mut GpuCounters,
    pub np: &'a mut [u32],
    pub done: &'a mut [u32],
    pub contacts: &'a mut [FrontPair],
    pub unsure: &'a mut [FrontPair],
    pub env_tri_index: &'a [u32],
    pub fly_tri_index: &'a [u32],
}

impl<const H: usize> TriTestBindings<'_, H> {
    /// `push_contact`: append, or raise overflow bit 4 beyond the capacity.
    fn push_contact(&mut self, p: FrontPair) {
        let k = self.counters.n_contact;
        self.counters.n_contact = k.wrapping_add(1);
        if k < self.counters.cap_contact {
            self.contacts[k as usize] = p;
        } else {
            self.counters.overflow |= 4;
        }
    }

    /// `push_unsure`: append, or raise overflow bit 8 beyond the capacity.
    fn push_unsure(&mut self, p: FrontPair) {
        let k = self.counters.n_unsure;
        self.counters.n_unsure = k.wrapping_add(1);
        if k < self.counters.cap_unsure {
            self.unsure[k as usize] = p;
        } else {
            self.counters.overflow |= 8;
        }
    }
}

/// `tri_test` of `shaders/tri_tri.wgsl`: for every stored leaf pair (of a pose not yet done
/// in first-contact mode), count its triangle pairs in `np` and filter each: HIT appends the
/// meshes' triangle numbers to `contacts` (and, in first-contact mode, marks the pose done
/// and ends the invocation), UNSURE appends the reordered positions to `unsure`.
pub fn tri_test<const H: usize>(b: &mut TriTestBindings<'_, H>) {
    if b.counters.frozen != 0 {
        return;
    }
    let n = b.counters.n_leaf.min(b.counters.cap_leaf);
    let first = b.counters.mode_first != 0;
    'invocation: for i in 0..n as usize {
        let p = b.leaves[i];
        let pose = p.pose as usize;
        if first && b.done[pose] != 0 {
            continue;
        }
        if p.slot == UNRESOLVED_A || p.slot == UNRESOLVED_B {
            // A node pair a budgeted pose did not test: to the host with the UNSURE pairs.
            b.push_unsure(p);
            continue;
        }
        let na = b.env_nodes[p.a as usize];
        let nb = b.fly_nodes[p.b as usize];
        if b.counters.resumed & RESUMED_TRI == 0 {
            b.np[pose] = b.np[pose].wrapping_add(na.count.wrapping_mul(nb.count));
        }
        let f = &b.frames[pose];
        let (r, t, te) = (f.r, f.t, f.t_err);
        if b.counters.within != 0 {
            // A tolerance query: every triangle pair to the host's exact test, but those a
            // tolerance per pose certifies farther apart than it.
            for ib in nb.first..nb.first + nb.count {
                let [b0, b1, b2] = b.fly_tris[ib as usize];
                let q0 = transform_f32(&r, &t, b0);
                let q1 = transform_f32(&r, &t, b1);
                let q2 = transform_f32(&r, &t, b2);
                let eps = transform_error_bound(b0, &t, te)
                    .max(transform_error_bound(b1, &t, te))
                    .max(transform_error_bound(b2, &t, te));
                for ia in na.first..na.first + na.count {
                    let [a0, a1, a2] = b.env_tris[ia as usize];
                    if !tri_tri_farther(a0, a1, a2, q0, q1, q2, eps, f.eps_t2) {
                        b.push_unsure(FrontPair::new(p.pose, ia, ib));
                    }
                }
            }
            continue;
        }
        for ib in nb.first..nb.first + nb.count {
            let [b0, b1, b2] = b.fly_tris[ib as usize];
            let q0 = transform_f32(&r, &t, b0);
            let q1 = transform_f32(&r, &t, b1);
            let q2 = transform_f32(&r, &t, b2);
            let eps = transform_error_bound(b0, &t, te)
                .max(transform_error_bound(b1, &t, te))
                .max(transform_error_bound(b2, &t, te));
            for ia in na.first..na.first + na.count {
                let [a0, a1, a2] = b.env_tris[ia as usize];
                let verdict = tri_tri_filter(a0, a1, a2, q0, q1, q2, eps);
                if verdict == TF_HIT {
                    b.push_contact(FrontPair::new(
                        p.pose,
                        b.env_tri_index[ia as usize],
                        b.fly_tri_index[ib as usize],
                    ));
                    if first {
                        b.done[pose] |= 1;
                        continue 'invocation;
                    }
                } else if verdict == TF_UNSURE {
                    b.push_unsure(FrontPair::new(p.pose, ia, ib));
                }
            }
        }
    }
}

/// The bindings of `tri_test_self` (`gpu::kernels::TRI_TEST_SELF`, self-collision), by their
/// WGSL names: one hierarchy's nodes, local f32 corners, file numbers and local vertex
/// slots (`env_slots`, three per position, [`crate::ordered::OrderedTriangles::corners`]).
pub struct SelfTriBindings<'a, const H: usize> {
    pub env_nodes: &'a [KdopNode<H>],
    pub env_tris: &'a [[[f32; 3]; 3]],
    pub leaves: &'a [FrontPair],
    pub counters: &'a mut GpuCounters,
    pub np: &'a mut [u32],
    pub done: &'a mut [u32],
    pub contacts: &'a mut [FrontPair],
    pub unsure: &'a mut [FrontPair],
    pub env_tri_index: &'a [u32],
    pub env_slots: &'a [[u32; 3]],
}

/// `shares_vertex` (inline in `tri_test_self`): whether positions `p`, `q` share a slot.
fn shares_vertex(slots: &[[u32; 3]], p: u32, q: u32) -> bool {
    let (a, b) = (slots[p as usize], slots[q as usize]);
    a.iter().any(|s| b.contains(s))
}

/// `tri_test_self` of `shaders/tri_tri.wgsl`: for every stored leaf pair (pose not done in
/// first-contact mode), count its triangle pairs in `np` (`c·(c−1)/2` for a leaf against
/// itself, positions `p < q`) and, for each pair, send it to `unsure` when the two share a
/// vertex slot (the host's adjacency rule decides) or the query has a tolerance (`within`:
/// every pair to the host's exact rule), else filter it with the identity pose
/// (`eps_q` = [`transform_error_bound`] with `t = 0`, `e0 = 0`): HIT appends the
/// `(min, max)` file numbers to `contacts`, UNSURE the positions to `unsure`.
pub fn tri_test_self<const H: usize>(b: &mut SelfTriBindings<'_, H>) {
    if b.counters.frozen != 0 {
        return;
    }
    let n = b.counters.n_leaf.min(b.counters.cap_leaf);
    let first = b.counters.mode_first != 0;
    let zero = [0.0f32; 3];
    'invocation: for i in 0..n as usize {
        let p = b.leaves[i];
        let pose = p.pose as usize;
        if first && b.done[pose] != 0 {
            continue;
        }
        let na = b.env_nodes[p.a as usize];
        let nb = b.env_nodes[p.b as usize];
        let same = p.a == p.b;
        if b.counters.resumed & RESUMED_TRI == 0 {
            let count = if same {
                na.count.wrapping_mul(na.count.wrapping_sub(1)) / 2
            } else {
                na.count.wrapping_mul(nb.count)
            };
            b.np[pose] = b.np[pose].wrapping_add(count);
        }
        for ib in nb.first..nb.first + nb.count {
            let [q0, q1, q2] = b.env_tris[ib as usize];
            let eps = transform_error_bound(q0, &zero, 0.0)
                .max(transform_error_bound(q1, &zero, 0.0))
                .max(transform_error_bound(q2, &zero, 0.0));
            let from_a = if same { ib + 1 } else { na.first };
            for ia in from_a..na.first + na.count {
                // A tolerance query sends every pair to the host's exact rule.
                let verdict = if b.counters.within != 0 || shares_vertex(b.env_slots, ia, ib) {
                    TF_UNSURE
                } else {
                    let [a0, a1, a2] = b.env_tris[ia as usize];
                    tri_tri_filter(a0, a1, a2, q0, q1, q2, eps)
                };
                if verdict == TF_HIT {
                    let (ta, tb) = (b.env_tri_index[ia as usize], b.env_tri_index[ib as usize]);
                    push_contact(
                        b.counters,
                        b.contacts,
                        FrontPair::new(p.pose, ta.min(tb), ta.max(tb)),
                    );
                    if first {
                        b.done[pose] |= 1;
                        continue 'invocation;
                    }
                } else if verdict == TF_UNSURE {
                    push_unsure(b.counters, b.unsure, FrontPair::new(p.pose, ia, ib));
                }
            }
        }
    }
}

/// `push_contact` of `shaders/tri_tri.wgsl` on the self bindings.
fn push_contact(c: &mut GpuCounters, contacts: &mut [FrontPair], p: FrontPair) {
    let k = c.n_contact;
    c.n_contact = k.wrapping_add(1);
    if k < c.cap_contact {
        contacts[k as usize] = p;
    } else {
        c.overflow |= 4;
    }
}

/// `push_unsure` of `shaders/tri_tri.wgsl` on the self bindings.
fn push_unsure(c: &mut GpuCounters, unsure: &mut [FrontPair], p: FrontPair) {
    let k = c.n_unsure;
    c.n_unsure = k.wrapping_add(1);
    if k < c.cap_unsure {
        unsure[k as usize] = p;
    } else {
        c.overflow |= 8;
    }
}
