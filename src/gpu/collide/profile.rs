//! Time per kernel from GPU timestamps, when asked for (`MESHCOLLIDE_GPU_PROFILE=1`) and
//! the adapter can write timestamps between dispatches: which kernel a batch's time goes
//! to, on lavapipe as on a real GPU, for the work model of `docs/notebook/gpu-vs-cpu.md`.
//! Off by default: the features are requested only then, and each dispatch gets a timestamp
//! write.

/// Defined with the device (`gpu::context`, which requests the features when it opens
/// one), kept here under their names.
pub use crate::gpu::context::{FEATURES, PROFILE_ENV, requested};
use crate::gpu::context::{GpuContext, GpuError};
use std::collections::BTreeMap;
use wgpu::BufferUsages as U;

/// Most timestamps of one submission (wgpu's largest query set).
const MAX_MARKS: u32 = 4096;

/// Timestamps of one submission: one after the start of the pass and one after each
/// dispatch, labelled with the dispatch's kernel.
pub(super) struct KernelClock {
    set: wgpu::QuerySet,
    labels: Vec<&'static str>,
}

impl KernelClock {
    /// A clock when the device has the features, else `None` (nothing is recorded).
    pub(super) fn new(ctx: &GpuContext) -> Option<KernelClock> {
        ctx.device
            .features()
            .contains(FEATURES)
            .then(|| KernelClock {
                set: ctx.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("kernel clock"),
                    ty: wgpu::QueryType::Timestamp,
                    count: MAX_MARKS,
                }),
                labels: Vec::new(),
            })
    }

    /// A timestamp after the dispatch just recorded (or at the start: `label` "start").
    pub(super) fn mark(&mut self, pass: &mut wgpu::ComputePass<'_>, label: &'static str) {
        if (self.labels.len() as u32) < MAX_MARKS {
            pass.write_timestamp(&self.set, self.labels.len() as u32);
            self.labels.push(label);
        }
    }

    /// Copies the timestamps to a mappable buffer at the end of `enc`.
    pub(super) fn resolve(
        &self,
        ctx: &GpuContext,
        enc: &mut wgpu::CommandEncoder,
    ) -> Option<wgpu::Buffer> {
        let n = self.labels.len() as u64;
        if n < 2 {
            return None;
        }
        let make = |usage| {
            ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kernel clock"),
                size: n * 8,
                usage,
                mapped_at_creation: false,
            })
        };
        let (resolved, staging) = (
            make(U::QUERY_RESOLVE | U::COPY_SRC),
            make(U::MAP_READ | U::COPY_DST),
        );
        enc.resolve_query_set(&self.set, 0..n as u32, &resolved, 0);
        enc.copy_buffer_to_buffer(&resolved, 0, &staging, 0, n * 8);
        Some(staging)
    }

    /// Adds each dispatch's time (nanoseconds, from the mark before it) to its kernel in
    /// `ns`, after the submission of `staging` (from [`KernelClock::resolve`]).
    pub(super) fn read(
        &self,
        ctx: &GpuContext,
        staging: &wgpu::Buffer,
        ns: &mut BTreeMap<String, u64>,
    ) -> Result<(), GpuError> {
        let stamps: Vec<u64> = bytemuck::pod_collect_to_vec(&ctx.map_read(staging)?);
        let period = ctx.queue.get_timestamp_period() as f64;
        for (k, label) in self.labels.iter().enumerate().skip(1) {
            let dt = stamps[k].saturating_sub(stamps[k - 1]) as f64 * period;
            *ns.entry((*label).to_string()).or_default() += dt.round() as u64;
        }
        Ok(())
    }
}
