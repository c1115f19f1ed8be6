//! CPU twins of the entry points of `shaders/front_expand.wgsl`: one level of the breadth-first
//! front, one function per entry point doing what one dispatch does over its whole grid.
//! Invocations run in index order and the atomics become plain increments, so the appends
//! land in one of the orders the GPU may produce: the same pairs as a set, the same counters.

use super::dual::{kdop_overlaps_dual, kdop_symmetrize, sphere_disjoint, sphere_posed};
use super::front::{claim_key, groups};
use super::kdop::{kdop_gap_prunes, kdop_overlaps, kdop_size, kdop_within};
use super::obb::{Obb32, PosedObb, obb_disjoint, obb_posed};
use crate::bv::{Kdop, KdopNode};
use crate::dual::Sphere;
use crate::gpu::layout::{
    FrontPair, GpuCounters, NO_SLOT, OVERFLOW_CLAIM, RESUMED_EXPAND, UNRESOLVED_A, UNRESOLVED_B,
};
use crate::tumble::PoseFrame;
use crate::tumble::tumble_points;

/// The bindings of `expand` (`gpu::kernels::EXPAND`), which the other expansions share, by
/// their WGSL names (atomics as `u32`). `front_out` and `leaves` hold `counters.cap_front`
/// and `counters.cap_leaf` pairs.
pub struct ExpandBindings<'a, const H: usize> {
    pub env_nodes: &'a [KdopNode<H>],
    pub fly_nodes: &'a [KdopNode<H>],
    /// B's tumbled k-DOPs, read at each pair's `slot` (dense: `pose · n_fly + node`; lazy:
    /// the table, where the expansion tumbles the children of B it inserts).
    pub tumbled: &'a mut [Kdop<H>],
    pub front_in: &'a [FrontPair],
    pub front_out: &'a mut [FrontPair],
    pub leaves: &'a mut [FrontPair],
    pub counters: &'a mut GpuCounters,
    pub nv: &'a mut [u32],
    pub done: &'a [u32],
    /// The next level's dispatch size (the hand-over's, [`next_level`]).
    pub next_args: &'a mut [u32; 3],
    /// The triangle tests' dispatch size.
    pub tri_args: &'a mut [u32; 3],
    /// Node pairs entering each level.
    pub level_sizes: &'a mut [u32],
    pub frames: &'a [PoseFrame<H>],
    /// The keys of the lazy table (`tumbled`, or the volume trees' posed volumes).
    pub hash_keys: &'a mut [u32],
    pub nu: &'a mut [u32],
    /// B's bounding points per node (`fly_points[fly_offsets[n]..fly_offsets[n + 1]]`), for
    /// lazy tumbling.
    pub fly_offsets: &'a [u32],
    pub fly_points: &'a [[f32; 3]],
    /// A budget's per-pose state (`counters.budgeted`): `n_poses` node tests spent (with
    /// [`STOPPED`]), then `n_poses` next-level tests pushed ([`budget_level`]).
    pub budget_state: &'a mut [u32],
}

/// `STOPPED` of `shaders/front_expand.wgsl`: a budgeted pose whose next level did not fit.
pub const STOPPED: u32 = 0x8000_0000;

/// `budget_level` of `shaders/front_expand.wgsl`, the budget's part of the hand-over: the
/// node tests each pose pushed for the next level are spent if they fit in
/// `counters.budget`, else the pose is stopped ([`STOPPED`]). Skipped after an overflow
/// (the level runs again).
pub fn budget_level(counters: &GpuCounters, budget_state: &mut [u32]) {
    if counters.budgeted == 0 || counters.overflow != 0 {
        return;
    }
    let n = counters.n_poses as usize;
    let (spent, next) = budget_state.split_at_mut(n);
    for (spent, next) in spent.iter_mut().zip(&mut next[..n]) {
        if *next == 0 {
            continue;
        }
        let pushed = std::mem::take(next);
        if pushed > counters.budget.wrapping_sub(*spent) {
            *spent |= STOPPED;
        } else {
            *spent = spent.wrapping_add(pushed);
        }
    }
}

/// The bindings `expand_obb` and `expand_sphere` add (`gpu::kernels::EXPAND_OBB`,
/// `EXPAND_SPHERE`): the volumes of the tree's nodes, the pose frames and the lazy table
/// of B's posed volumes `P` (atomics as `u32`).
pub struct VolumeBindings<'a, V, P, const H: usize> {
    /// `env_obbs` or `env_spheres`.
    pub env: &'a [V],
    /// `fly_obbs` or `fly_spheres`.
    pub fly: &'a [V],
    /// `posed_obbs` or `posed_spheres`.
    pub posed: &'a mut [P],
}

/// The bindings `expand_dual` adds (`gpu::kernels::EXPAND_DUAL`).
pub struct DualBindings<'a, const H: usize> {
    pub env_spheres: &'a [Sphere],
    pub fly_spheres: &'a [Sphere],
    /// Per pose: sphere rejects, slab rejects, slab tests.
    pub dual_counts: &'a mut [u32],
}

/// `next_level` of `shaders/front_expand.wgsl`, the hand-over of the last workgroup of every
/// expansion (the twins call it after their loop): the output front becomes the next input
/// (`n_in`, `next_args`), the level's input size goes to `level_sizes`, the leaf pairs so far
/// are marked (`leaf_mark`) and size the triangle tests (`tri_args`). After an overflow
/// nothing changes but `frozen` (one workgroup next, no triangle tests).
pub fn next_level(
    counters: &mut GpuCounters,
    next_args: &mut [u32; 3],
    tri_args: &mut [u32; 3],
    level_sizes: &mut [u32],
) {
    if counters.overflow != 0 {
        counters.frozen = 1;
        *next_args = [1, 1, 1];
        *tri_args = [0, 1, 1];
        return;
    }
    counters.resumed = 0;
    let produced = counters.n_out;
    counters.max_front = counters.max_front.max(produced);
    let level = counters.level;
    if let Some(s) = level_sizes.get_mut(level as usize) {
        *s = counters.n_in;
    }
    counters.level = level.wrapping_add(1);
    let n = produced.min(counters.cap_front);
    counters.n_in = n;
    counters.n_out = 0;
    let leaves = counters.n_leaf;
    counters.max_leaf = counters.max_leaf.max(leaves);
    counters.leaf_mark = leaves;
    counters.contact_mark = counters.n_contact;
    counters.unsure_mark = counters.n_unsure;
    let [x, y] = groups(n);
    *next_args = [x, y, 1];
    let [x, y] = groups(leaves.min(counters.cap_leaf));
    *tri_args = [x, y, 1];
}

impl<const H: usize> ExpandBindings<'_, H> {
    /// The hand-over after the dispatch ([`next_level`]).
    fn hand_over(&mut self) {
        budget_level(self.counters, self.budget_state);
        next_level(
            self.counters,
            self.next_args,
            self.tri_args,
            self.level_sizes,
        );
    }

    /// `push_children`: append both children with one increment of two, or neither
    /// (overflow bit 1) when both do not fit.
    fn push_children(&mut self, c0: FrontPair, c1: FrontPair) {
        if self.counters.budgeted != 0 {
            let next = &mut self.budget_state[(self.counters.n_poses + c0.pose) as usize];
            *next = next.wrapping_add(2);
        }
        let (k, cap) = (self.counters.n_out, self.counters.cap_front);
        self.counters.n_out = k.wrapping_add(2);
        if k < cap && cap - k >= 2 {
            self.front_out[k as usize] = c0;
            self.front_out[k as usize + 1] = c1;
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

    /// `claim` of `shaders/front_expand.wgsl`: [`claim_key`] in the lazy table, a full
    /// table marked as met by an expansion ([`OVERFLOW_CLAIM`]).
    fn claim(&mut self, pose: u32, node: u32) -> Option<(u32, bool)> {
        let c = claim_key(self.counters, self.hash_keys, self.nu, pose, node);
        if c.is_none() {
            self.counters.overflow |= OVERFLOW_CLAIM;
        }
        c
    }

    /// A child of B's slot (inline in `descend_pref`): its dense index, or lazily
    /// `place_kdop`: its key claimed and, when inserted here, its node tumbled into it
    /// ([`tumble_points`]); `None` when the table is full.
    fn child_slot(&mut self, pose: u32, b: u32) -> Option<u32> {
        if self.counters.lazy == 0 {
            return Some(pose.wrapping_mul(self.counters.n_fly).wrapping_add(b));
        }
        let (slot, inserted) = self.claim(pose, b)?;
        if inserted {
            let (o, f) = (self.fly_offsets, &self.frames[pose as usize]);
            let points = &self.fly_points[o[b as usize] as usize..o[b as usize + 1] as usize];
            self.tumbled[slot as usize] = tumble_points(f, points);
        }
        Some(slot)
    }

    /// `descend`: the pair's volumes overlap; descend A while internal and B is a leaf or A
    /// is preferred (Algorithm 1 of Klosowski et al. always; `Descent::Larger` when A's
    /// k-DOP is at least as large as `kb`), else B, else store the leaf pair (the rule of
    /// `traverse`).
    fn descend(&mut self, p: FrontPair, na: &KdopNode<H>, kb: &Kdop<H>) {
        let larger = self.counters.descent_larger != 0;
        self.descend_pref(p, na, !larger || kdop_size(&na.bv) >= kdop_size(kb));
    }

    /// `descend_pref`: [`Self::descend`] with the preference for A (both nodes internal)
    /// given.
    fn descend_pref(&mut self, p: FrontPair, na: &KdopNode<H>, prefer_a: bool) {
        let nb = self.fly_nodes[p.b as usize];
        if na.count == 0 && (nb.count != 0 || prefer_a) {
            let child = |a| FrontPair { a, ..p };
            self.push_children(child(na.first), child(na.first + 1));
        } else if nb.count == 0 {
            let s0 = self.child_slot(p.pose, nb.first);
            let s1 = self.child_slot(p.pose, nb.first + 1);
            // A full table: the host grows it and runs this level again.
            if let (Some(s0), Some(s1)) = (s0, s1) {
                let child = |b, slot| FrontPair { b, slot, ..p };
                self.push_children(child(nb.first, s0), child(nb.first + 1, s1));
            }
        } else {
            self.push_leaf(p);
        }
    }

    /// `budget_skips`: whether invocation `i`'s pose is stopped by its budget; the first of
    /// two siblings then goes to the leaf list as [`UNRESOLVED_A`] or [`UNRESOLVED_B`].
    fn budget_skips(&mut self, i: usize) -> bool {
        let p = self.front_in[i];
        if self.counters.budgeted == 0 || self.budget_state[p.pose as usize] & STOPPED == 0 {
            return false;
        }
        if i.is_multiple_of(2) {
            let split_a = self.front_in[i + 1].a != p.a;
            let slot = if split_a { UNRESOLVED_A } else { UNRESOLVED_B };
            self.push_leaf(FrontPair { slot, ..p });
        }
        true
    }

    /// `enter_skips`, negated, for invocation `i`: false in a frozen batch (`frozen`, set
    /// after an overflow), for a pose already done in first-contact mode or a budgeted pose
    /// stopped ([`Self::budget_skips`]), else the pair is counted in `nv` (one node test,
    /// unless the level was counted before a resume) and true.
    fn enter(&mut self, i: usize) -> bool {
        let p = &self.front_in[i];
        if self.counters.frozen != 0
            || self.counters.mode_first != 0 && self.done[p.pose as usize] != 0
        {
            return false;
        }
        if self.budget_skips(i) {
            return false;
        }
        if self.counters.resumed & RESUMED_EXPAND == 0 {
            let nv = &mut self.nv[p.pose as usize];
            *nv = nv.wrapping_add(1);
        }
        true
    }

    /// Whether this level's node tests are counted (not counted before a resume).
    fn counted(&self) -> bool {
        self.counters.resumed & RESUMED_EXPAND == 0
    }

    fn tumbled_b(&self, p: &FrontPair) -> Kdop<H> {
        self.tumbled[p.slot as usize]
    }
}

/// `expand` of `shaders/front_expand.wgsl`: every input pair whose k-DOPs overlap
/// ([`kdop_overlaps`]; a tolerance query's, `within`, grown by `margins`: [`kdop_within`])
/// is descended: child pairs to `front_out`, leaf pairs to `leaves`.
pub fn expand<const H: usize>(b: &mut ExpandBindings<'_, H>) {
    let front_in = b.front_in;
    let margins: [f32; H] = within_margins(b.counters);
    for (i, p) in front_in[..b.counters.n_in as usize].iter().enumerate() {
        if !b.enter(i) {
            continue;
        }
        let na = b.env_nodes[p.a as usize];
        let kb = b.tumbled_b(p);
        let keep = if b.counters.within != 0 {
            let f = &b.frames[p.pose as usize];
            kdop_within(&na.bv, &kb, &margins) && !kdop_gap_prunes(&na.bv, &kb, f.eps_w, f.eps_t2)
        } else {
            kdop_overlaps(&na.bv, &kb)
        };
        if !keep {
            continue;
        }
        b.descend(*p, &na, &kb);
    }
    b.hand_over();
}

/// The bindings `expand_record` adds (`gpu::kernels::EXPAND_RECORD`): the recorded front
/// (its length is the capacity) and its append count (`record_count[0]`).
pub struct RecordBindings<'a> {
    pub front_record: &'a mut [FrontPair],
    pub record_count: &'a mut [u32],
}

/// `expand_record` of `shaders/front_expand.wgsl`: [`expand`], also appending to
/// `front_record` (slot [`NO_SLOT`]) every pair found disjoint and every leaf pair (both
/// nodes leaves, overlapping): the front of `traverse::descend_from`. Beyond the buffer
/// the count still grows.
pub fn expand_record<const H: usize>(b: &mut ExpandBindings<'_, H>, r: &mut RecordBindings<'_>) {
    let front_in = b.front_in;
    for (i, p) in front_in[..b.counters.n_in as usize].iter().enumerate() {
        if !b.enter(i) {
            continue;
        }
        let na = b.env_nodes[p.a as usize];
        let kb = b.tumbled_b(p);
        let overlap = kdop_overlaps(&na.bv, &kb);
        let leaf_b = b.fly_nodes[p.b as usize].count != 0;
        if !overlap || (na.count != 0 && leaf_b) {
            let k = r.record_count[0];
            r.record_count[0] = k.wrapping_add(1);
            if let Some(slot) = r.front_record.get_mut(k as usize) {
                *slot = FrontPair {
                    slot: NO_SLOT,
                    ..*p
                };
            }
        }
        if overlap {
            b.descend(*p, &na, &kb);
        }
    }
    b.hand_over();
}

/// `expand_dual` of `shaders/front_expand.wgsl` (the dual k-DOP–sphere hierarchy): the
/// sphere test first ([`sphere_posed`], [`sphere_disjoint`]), then the k-DOP slabs
/// ([`kdop_overlaps_dual`]; `dual_flags` bit 0: per-pair order, bit 1: B's k-DOP
/// symmetrized), counting the sub-tests per pose in `dual_counts`; survivors descend.
pub fn expand_dual<const H: usize>(b: &mut ExpandBindings<'_, H>, d: &mut DualBindings<'_, H>) {
    let front_in = b.front_in;
    for (i, p) in front_in[..b.counters.n_in as usize].iter().enumerate() {
        if !b.enter(i) {
            continue;
        }
        let pose = p.pose as usize;
        let f = &b.frames[pose];
        let sb = sphere_posed(&d.fly_spheres[p.b as usize], &f.r, &f.t, f.t_err);
        let counted = b.counted();
        if sphere_disjoint(&d.env_spheres[p.a as usize], &sb) {
            if counted {
                d.dual_counts[3 * pose] = d.dual_counts[3 * pose].wrapping_add(1);
            }
            continue;
        }
        let kt = b.tumbled_b(p);
        let mut kb = kt;
        if b.counters.dual_flags & 2 != 0 {
            kb = kdop_symmetrize(&kt);
        }
        let na = b.env_nodes[p.a as usize];
        let (overlap, tests) = if b.counters.within != 0 {
            let margins: [f32; H] = within_margins(b.counters);
            (kdop_within(&na.bv, &kb, &margins), H as u32)
        } else {
            kdop_overlaps_dual(&na.bv, &kb, b.counters.dual_flags & 1 != 0)
        };
        if counted {
            d.dual_counts[3 * pose + 2] = d.dual_counts[3 * pose + 2].wrapping_add(tests);
        }
        if !overlap {
            if counted {
                d.dual_counts[3 * pose + 1] = d.dual_counts[3 * pose + 1].wrapping_add(1);
            }
            continue;
        }
        b.descend(*p, &na, &kt);
    }
    b.hand_over();
}

/// `within_margins` of `shaders/front_expand.wgsl`: a tolerance query's slab margins.
fn within_margins<const H: usize>(c: &GpuCounters) -> [f32; H] {
    std::array::from_fn(|k| f32::from_bits(c.margins[k]))
}

/// `descent_side` of `shaders/front_expand.wgsl`: 0 A's children, 1 B's, 2 a leaf pair.
fn descent_side<const H: usize>(na: &KdopNode<H>, nb: &KdopNode<H>, prefer_a: bool) -> u32 {
    if na.count == 0 && (nb.count != 0 || prefer_a) {
        0
    } else if nb.count == 0 {
        1
    } else {
        2
    }
}

/// The volume trees' expansion (`expand_obb`, `expand_sphere` of
/// `shaders/front_expand.wgsl`): B's volume at the pair's slot of the lazy table, or posed
/// by `pose` and inserted ([`claim`]) for a root pair (no slot); a pair found disjoint
/// stops; else it descends, claiming and posing B's children into the table when B
/// descends, or goes to the leaf list.
fn expand_posed<const H: usize, V, P: Copy>(
    b: &mut ExpandBindings<'_, H>,
    v: &mut VolumeBindings<'_, V, P, H>,
    pose: impl Fn(&V, &PoseFrame<H>) -> P,
    disjoint: impl Fn(&V, &P) -> bool,
    prefer_a: impl Fn(&V, &V) -> bool,
) {
    let front_in = b.front_in;
    for (i, p) in front_in[..b.counters.n_in as usize].iter().enumerate() {
        if !b.enter(i) {
            continue;
        }
        let mut p = *p;
        let f = &b.frames[p.pose as usize];
        let (ea, fb) = (&v.env[p.a as usize], &v.fly[p.b as usize]);
        let posed = if p.slot == NO_SLOT {
            let posed = pose(fb, f);
            let c = b.claim(p.pose, p.b);
            if let Some((slot, true)) = c {
                v.posed[slot as usize] = posed;
            }
            p.slot = c.map_or(NO_SLOT, |(slot, _)| slot);
            posed
        } else {
            v.posed[p.slot as usize]
        };
        if disjoint(ea, &posed) {
            continue;
        }
        let na = b.env_nodes[p.a as usize];
        let nb = b.fly_nodes[p.b as usize];
        match descent_side(&na, &nb, prefer_a(ea, fb)) {
            0 if p.slot != NO_SLOT => {
                let child = |a| FrontPair { a, ..p };
                b.push_children(child(na.first), child(na.first + 1));
            }
            1 => {
                let mut place = |node: u32| {
                    let c = b.claim(p.pose, node);
                    if let Some((slot, true)) = c {
                        v.posed[slot as usize] = pose(&v.fly[node as usize], f);
                    }
                    c.map(|(slot, _)| FrontPair { b: node, slot, ..p })
                };
                let (c0, c1) = (place(nb.first), place(nb.first + 1));
                if let (Some(c0), Some(c1)) = (c0, c1) {
                    b.push_children(c0, c1);
                }
            }
            2 => b.push_leaf(p),
            _ => {} // a full table: the batch runs again
        }
    }
    b.hand_over();
}

/// `expand_obb` of `shaders/front_expand.wgsl` (the OBB tree): B's box posed by the pose's
/// f32 frame ([`obb_posed`]) once per (pose, node), kept in the lazy table, tested against
/// A's ([`obb_disjoint`]); survivors descend the node with the larger box (A on ties).
pub fn expand_obb<const H: usize>(
    b: &mut ExpandBindings<'_, H>,
    v: &mut VolumeBindings<'_, Obb32, PosedObb, H>,
) {
    expand_posed(
        b,
        v,
        |fb, f| obb_posed(fb, &f.r, &f.t, f.t_err),
        obb_disjoint,
        |ea, fb| ea.size >= fb.size,
    );
}

/// `expand_sphere` of `shaders/front_expand.wgsl` (the sphere tree): B's sphere posed by
/// the pose's f32 frame ([`sphere_posed`]) once per (pose, node), kept in the lazy table,
/// tested against A's ([`sphere_disjoint`]); survivors descend the node with the larger
/// sphere (A on ties).
pub fn expand_sphere<const H: usize>(
    b: &mut ExpandBindings<'_, H>,
    v: &mut VolumeBindings<'_, Sphere, Sphere, H>,
) {
    expand_posed(
        b,
        v,
        |fb, f| sphere_posed(fb, &f.r, &f.t, f.t_err),
        sphere_disjoint,
        |ea, fb| ea.r >= fb.r,
    );
}

/// `expand_self` of `shaders/front_expand.wgsl` (self-collision, one hierarchy against
/// itself, read from `env_nodes`; `fly_nodes` and `tumbled` are not read): `(n, n)` goes to
/// the leaf list (a leaf) or to its three child pairs with one append of three (overflow
/// bit 1); distinct nodes count one node test, and on k-DOP overlap descend the internal
/// node (the larger k-DOP, A on ties, when both are) or go to the leaf list: the rule of
/// [`crate::self_collide::collide_bvh`].
pub fn expand_self<const H: usize>(b: &mut ExpandBindings<'_, H>) {
    let front_in = b.front_in;
    let n = if b.counters.frozen != 0 {
        0
    } else {
        b.counters.n_in as usize
    };
    for p in &front_in[..n] {
        if b.counters.mode_first != 0 && b.done[p.pose as usize] != 0 {
            continue;
        }
        let na = b.env_nodes[p.a as usize];
        if p.a == p.b {
            if na.count != 0 {
                b.push_leaf(*p);
                continue;
            }
            let (c, cap, k) = (na.first, b.counters.cap_front, b.counters.n_out);
            b.counters.n_out = k.wrapping_add(3);
            if k < cap && cap - k >= 3 {
                let k = k as usize;
                b.front_out[k] = FrontPair::new(p.pose, c + 1, c + 1);
                b.front_out[k + 1] = FrontPair::new(p.pose, c, c + 1);
                b.front_out[k + 2] = FrontPair::new(p.pose, c, c);
            } else {
                b.counters.overflow |= 1;
            }
            continue;
        }
        if b.counted() {
            let nv = &mut b.nv[p.pose as usize];
            *nv = nv.wrapping_add(1);
        }
        let nb = b.env_nodes[p.b as usize];
        let near = if b.counters.within != 0 {
            let margins: [f32; H] = within_margins(b.counters);
            kdop_within(&na.bv, &nb.bv, &margins)
        } else {
            kdop_overlaps(&na.bv, &nb.bv)
        };
        if !near {
            continue;
        }
        if na.count == 0 && (nb.count != 0 || kdop_size(&na.bv) >= kdop_size(&nb.bv)) {
            let child = |a| FrontPair { a, ..*p };
            b.push_children(child(na.first + 1), child(na.first));
        } else if nb.count == 0 {
            let child = |x| FrontPair { b: x, ..*p };
            b.push_children(child(nb.first + 1), child(nb.first));
        } else {
            b.push_leaf(*p);
        }
    }
    b.hand_over();
}
