//! The instruction set of the hot loops, chosen when they run: x86-64-v3 (AVX2, FMA, BMI)
//! where the CPU has it, the target's baseline otherwise, from one source.
//!
//! Why the results cannot change: the same Rust operations are compiled for either, and
//! Rust never fuses a multiplication and an addition or reorders floating-point operations
//! (no fast-math), so every IEEE operation is the same operation on the same operands, only
//! encoded differently (VEX, wider registers). `f64::mul_add` is the exact fused operation
//! either way (a library call on the baseline). Tested by running the queries both ways
//! (`tests/isa.rs`).
//!
//! The first [`v3`] reads the CPU's features, a sizeable part of a single query on the
//! virtual machines measured, where each `cpuid` leaves the guest, so a collider's build
//! calls it (measured in `docs/notebook/cpu-speed-2-lanes-isa-node-order-batches.md`,
//! "Every pose posed on lanes, the hot loops in x86-64-v3").

#[cfg(target_arch = "x86_64")]
use std::sync::atomic::{AtomicU8, Ordering};

/// 0: not yet decided, 1: baseline, 2: x86-64-v3.
#[cfg(target_arch = "x86_64")]
static LEVEL: AtomicU8 = AtomicU8::new(0);

/// Whether the hot loops run compiled for x86-64-v3: the CPU has it, and neither
/// `MESHCOLLIDE_BASELINE_ISA` (set it to compare the two) nor [`set_baseline`] asked for
/// the baseline.
#[inline]
pub fn v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match LEVEL.load(Ordering::Relaxed) {
            2 => true,
            1 => false,
            _ => decide(),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// [`v3`]'s first call, out of every variant's dispatch.
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn decide() -> bool {
    let v3 = available() && std::env::var_os("MESHCOLLIDE_BASELINE_ISA").is_none();
    LEVEL.store(if v3 { 2 } else { 1 }, Ordering::Relaxed);
    v3
}

/// Makes the hot loops run compiled for the baseline from now on (`true`), or again for
/// x86-64-v3 if the CPU has it (`false`): for tests that compare the two.
#[doc(hidden)]
pub fn set_baseline(on: bool) {
    #[cfg(target_arch = "x86_64")]
    LEVEL.store(if !on && available() { 2 } else { 1 }, Ordering::Relaxed);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = on;
}

/// Whether the CPU has x86-64-v3's features (those the x86-64-v3 variants enable), whatever was asked.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx")
        && std::is_x86_feature_detected!("avx2")
        && std::is_x86_feature_detected!("fma")
        && std::is_x86_feature_detected!("bmi1")
        && std::is_x86_feature_detected!("bmi2")
        && std::is_x86_feature_detected!("lzcnt")
        && std::is_x86_feature_detected!("movbe")
        && std::is_x86_feature_detected!("popcnt");
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Defines a function whose body is compiled twice, for x86-64-v3 and for the baseline,
/// and runs the one [`v3`] picks (callees that must run in the same instruction set are
/// `#[inline(always)]`; others are the baseline's, or variants themselves):
/// `isa_variants! { /// doc \n pub(crate) fn name[T: Bound](a: A, b: B) -> R { body } }`.
#[macro_export]
#[doc(hidden)]
macro_rules! isa_variants {
    ($(#[$m:meta])* $vis:vis fn $name:ident [$($g:tt)*] ($($a:ident : $t:ty),* $(,)?) -> $r:ty $body:block) => {
        $(#[$m])*
        // The dispatch alone, inlined into callers in any codegen unit: with the baseline's
        // body in it, whether a caller inlined it (one call to the variant) or not (two) moved
        // with how unrelated code fell into units, 5 % of a query of nested spheres whose
        // leaf pairs all take the triangle test
        // (`docs/notebook/cpu-speed-2-lanes-isa-node-order-batches.md`, "Batches of
        // distinct poses").
        #[inline]
        $vis fn $name<$($g)*>($($a: $t),*) -> $r {
            #[inline(always)]
            #[allow(clippy::too_many_arguments)]
            fn here<$($g)*>($($a: $t),*) -> $r $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx,avx2,fma,bmi1,bmi2,lzcnt,movbe,popcnt")]
                #[allow(clippy::too_many_arguments)]
                fn v3<$($g)*>($($a: $t),*) -> $r {
                    here($($a),*)
                }
                if $crate::isa::v3() {
                    // SAFETY: `v3` found the features.
                    return unsafe { v3($($a),*) };
                }
            }
            #[inline(never)]
            #[allow(clippy::too_many_arguments)]
            fn baseline<$($g)*>($($a: $t),*) -> $r {
                here($($a),*)
            }
            baseline($($a),*)
        }
    };
}
