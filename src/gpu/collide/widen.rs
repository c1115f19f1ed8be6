//! A tolerance query on the OBB and sphere trees and the dual hierarchy: A's volumes (the
//! dual's spheres) on the device grown by `ε` exactly as the CPU grows them in each node
//! test ([`crate::obb::Volume::widened`], [`crate::dual::Sphere::widened`], proofs there),
//! so the device's node tests, descents and counters are the CPU's (the dual's slabs are
//! grown in the kernel by the k-DOP trees' margins, as `dual::DualTest` grows them).
//!
//! The grown volumes are written over A's array before a run whose tolerance differs from
//! the one the array holds (and the built volumes written back for the intersection query),
//! so the expansion kernels, their bindings and B's posed volumes stay as they are; the
//! root pair the host tests (`roots`) takes A's root grown the same. The
//! descent rule reads A's stored size: an OBB's `size` is not changed by growing it, a
//! sphere's radius is, and the CPU's tolerance descent compares the grown radius too
//! (`obb::WithinTest::prefer_a`).

use super::GpuScene;
use super::pair_scene::{GpuPairScene, GpuVolumes};
use crate::gpu::context::GpuContext;
use crate::gpu::paged::PagedArray;
use crate::obb::Volume;

impl<const H: usize> GpuScene<H> {
    /// Makes A's volumes on the device those of a tolerance `eps` (0: as built) when they
    /// hold another; nothing for the other scenes.
    pub(super) fn widen_env_volumes<S: GpuPairScene<H>>(
        &mut self,
        ctx: &GpuContext,
        scene: &S,
        eps: f64,
    ) {
        if self.env_widened == eps {
            return;
        }
        if let (Some(d), Some((env, _, _))) = (&self.dual, scene.dual()) {
            let grown: Vec<_> = env
                .iter()
                .map(|s| if eps == 0.0 { *s } else { s.widened(eps) })
                .collect();
            write(ctx, &d.env_spheres, &grown);
        }
        match (&self.volumes, scene.volumes()) {
            (Some(v), Some(GpuVolumes::Obb(env, _))) => write(ctx, &v.env, &grown(env, eps)),
            (Some(v), Some(GpuVolumes::Sphere(env, _))) => write(ctx, &v.env, &grown(env, eps)),
            _ => {}
        }
        // The host tests the root pair (`roots`): A's root grown the same.
        self.roots = super::roots::HostRoots::of(scene).map(|r| r.widened(eps));
        self.env_widened = eps;
    }
}

/// `env` grown by `eps` (as built for 0).
fn grown<V: Volume + bytemuck::Pod>(env: &[V], eps: f64) -> Vec<V> {
    if eps == 0.0 {
        env.to_vec()
    } else {
        env.iter().map(|v| v.widened(eps)).collect()
    }
}

/// Writes `data` over `array`'s pages, page by page (the layout of
/// [`PagedArray::upload`]).
fn write<V: bytemuck::Pod>(ctx: &GpuContext, array: &PagedArray, data: &[V]) {
    let per_page = 1usize << array.shift;
    for (k, page) in array.pages.iter().enumerate() {
        let from = (k * per_page).min(data.len());
        let to = ((k + 1) * per_page).min(data.len());
        if from < to {
            ctx.queue
                .write_buffer(page, 0, bytemuck::cast_slice(&data[from..to]));
        }
    }
}
