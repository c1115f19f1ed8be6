//! The GPU scenes a [`super::Collider`] has uploaded: one per device and hierarchy, kept
//! between calls, so that only the first call on a device uploads the trees and compiles
//! the pipelines (`GpuScene::new`, tens of milliseconds) and later calls start from the
//! batch capacities the earlier ones learned. Python's `query` calls it once per call.
//!
//! A scene is kept under the device's [`GpuContext::id`], its binding limit (the paging the
//! pipelines were compiled for) and the hierarchy's type (`auto` keeps its kdop18 and its
//! OBB tree apart). Whatever changes a hierarchy's options (`Collider::set_coherence`,
//! `Collider::scene_mut`) empties the cache: the pipelines depend on them.

use crate::gpu::collide::{GpuPairScene, GpuScene};
use crate::gpu::context::{GpuContext, GpuError};
use std::any::{Any, TypeId};
use std::sync::Mutex;

/// One kept scene.
struct Kept {
    device: u64,
    binding_limit: u64,
    hierarchy: TypeId,
    scene: Box<dyn Any + Send>,
}

/// The uploaded scenes of one collider.
#[derive(Default)]
pub(super) struct GpuCache {
    kept: Mutex<Vec<Kept>>,
}

impl std::fmt::Debug for GpuCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.kept.lock().map_or(0, |k| k.len());
        write!(f, "GpuCache({n} scenes)")
    }
}

impl GpuCache {
    /// Runs `run` on the scene of hierarchy `s` on device `ctx`, uploading it first if this
    /// cache has none. Calls on one collider take turns (the device runs one batch at a
    /// time anyway). A call that failed or panicked leaves no scene behind: its buffers may
    /// hold half a batch.
    pub(super) fn with<const H: usize, S, R, E>(
        &self,
        ctx: &GpuContext,
        s: &S,
        run: impl FnOnce(&mut GpuScene<H>) -> Result<R, E>,
    ) -> Result<R, E>
    where
        S: GpuPairScene<H> + 'static,
        E: From<GpuError>,
    {
        let mut kept = match self.kept.lock() {
            Ok(k) => k,
            Err(poisoned) => {
                let mut k = poisoned.into_inner();
                k.clear();
                k
            }
        };
        let key = (ctx.id(), ctx.binding_limit, TypeId::of::<S>());
        let found = kept
            .iter()
            .position(|k| (k.device, k.binding_limit, k.hierarchy) == key);
        let mut scene: Box<GpuScene<H>> = match found.map(|i| kept.swap_remove(i).scene) {
            Some(any) => any
                .downcast()
                .map_err(|_| GpuError::InvalidInput("a kept GPU scene of another kind".into()))?,
            None => Box::new(GpuScene::new(ctx, s)?),
        };
        // What the context says now (`GpuContext::with_batch_memory` keeps the device).
        scene.batch_memory = ctx.batch_memory;
        let result = run(&mut scene);
        if result.is_ok() {
            kept.push(Kept {
                device: key.0,
                binding_limit: key.1,
                hierarchy: key.2,
                scene,
            });
        }
        result
    }

    /// Forgets every kept scene (a hierarchy's options changed).
    pub(super) fn clear(&mut self) {
        match self.kept.get_mut() {
            Ok(k) => k.clear(),
            Err(p) => p.into_inner().clear(),
        }
    }
}
