//! CPU twins of `shaders/shared/front.wgsl`, the library piece of the batch pipeline's shared structs
//! (no entry point): the structs are re-exported under their Rust names (layout tests in
//! `gpu::layout`), its functions are here under their WGSL names, with
//! `claim` of the kernels that insert into the lazy tables.

use crate::gpu::layout::OVERFLOW_TABLE;
use crate::gpu::shader::{DISPATCH_X, WORKGROUP_SIZE};

/// `struct FrontPair` and `struct Counters` (here [`GpuCounters`]: atomics as plain u32).
pub use crate::gpu::layout::{FrontPair, GpuCounters, NO_SLOT};
/// `struct PoseFrame` (computed on the host, [`PoseFrame::new`]).
pub use crate::tumble::PoseFrame;

/// `groups` of `shaders/shared/front.wgsl`: the 2-D grid for `n` invocations, at least one
/// workgroup (u32 arithmetic as in WGSL: wrapping; counts stay far below the wrap).
pub fn groups(n: u32) -> [u32; 2] {
    let g = (n.wrapping_add(WORKGROUP_SIZE - 1) / WORKGROUP_SIZE).max(1);
    if g <= DISPATCH_X {
        [g, 1]
    } else {
        [DISPATCH_X, g.wrapping_add(DISPATCH_X - 1) / DISPATCH_X]
    }
}

/// `linear_index` of `shaders/shared/front.wgsl`: the invocation's index in a 2-D grid of at most
/// `DISPATCH_X` workgroups per row. The entry-point twins loop over these indices directly.
#[inline]
pub fn linear_index(gid: [u32; 3]) -> u32 {
    gid[1]
        .wrapping_mul(DISPATCH_X * WORKGROUP_SIZE)
        .wrapping_add(gid[0])
}

/// `MAX_PROBES` of `shaders/shared/front.wgsl`: slots a key tries before the table counts
/// as full.
pub const MAX_PROBES: u32 = 256;

/// `hash_slot` of `shaders/shared/front.wgsl`: MurmurHash3's 32-bit finalizer, masked.
#[inline]
pub fn hash_slot(key: u32, mask: u32) -> u32 {
    let mut x = key;
    x ^= x >> 16;
    x = x.wrapping_mul(0x85eb_ca6b);
    x ^= x >> 13;
    x = x.wrapping_mul(0xc2b2_ae35);
    x ^= x >> 16;
    x & mask
}

/// The probe of `claim` in `shaders/front_expand.wgsl` and of `tumble_front` in
/// `shaders/kdop_tumble.wgsl`: finds or inserts the key `pose · n_fly + node + 1` of a lazy
/// table by [`hash_slot`] and linear probing (at most [`MAX_PROBES`]): `Some((slot, true))`
/// when inserted here (counted in `nu` and `counters.n_tumbled`), `Some((slot, false))`
/// when there before, `None` when the table is full ([`OVERFLOW_TABLE`] raised, counted in
/// `counters.n_tumbled`). Invocations run in index order, so the slots may differ from the
/// GPU's when keys collide; what each key's slot holds is the same.
pub fn claim_key(
    counters: &mut GpuCounters,
    hash_keys: &mut [u32],
    nu: &mut [u32],
    pose: u32,
    node: u32,
) -> Option<(u32, bool)> {
    let mask = counters.hash_mask;
    let key = pose.wrapping_mul(counters.n_fly).wrapping_add(node + 1);
    let mut h = hash_slot(key, mask);
    for _ in 0..MAX_PROBES.min(mask + 1) {
        let k = &mut hash_keys[h as usize];
        if *k == 0 {
            *k = key;
            counters.n_tumbled = counters.n_tumbled.wrapping_add(1);
            nu[pose as usize] = nu[pose as usize].wrapping_add(1);
            return Some((h, true));
        }
        if *k == key {
            return Some((h, false));
        }
        h = (h + 1) & mask;
    }
    counters.n_tumbled = counters.n_tumbled.wrapping_add(1);
    counters.overflow |= OVERFLOW_TABLE;
    None
}
