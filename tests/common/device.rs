//! The GPU side (feature `gpu`): the context, or a loud skip, and the capacities that
//! force the overflow-and-resume path.

use meshcollide::gpu::GpuContext;
use meshcollide::gpu::collide::Capacities;

/// The GPU context, or `None` with a loud "SKIP" when no adapter exists. With
/// `MESHCOLLIDE_REQUIRE_GPU=1` (CI, on lavapipe) a missing adapter is a failure instead.
pub fn gpu() -> Option<GpuContext> {
    match GpuContext::new() {
        Ok(ctx) => Some(ctx),
        Err(e) if std::env::var("MESHCOLLIDE_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("no GPU but MESHCOLLIDE_REQUIRE_GPU=1: {e}")
        }
        Err(e) => {
            super::skip(
                "without a GPU adapter (MESHCOLLIDE_REQUIRE_GPU=1 fails instead)",
                &format!("no GPU adapter ({e}); set MESHCOLLIDE_REQUIRE_GPU=1 to fail instead"),
            );
            None
        }
    }
}

/// Capacities far below what any scene needs: every level overflows, and the batch must
/// resume (and grow its buffers) to give the pairs of ample ones.
pub const TINY_CAPACITIES: Capacities = Capacities {
    front: 8,
    leaf: 4,
    contact: 2,
    unsure: 2,
    tumbled: 4,
};
