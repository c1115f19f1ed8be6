//! GPU refit of a k-DOP hierarchy to deformed vertices (bottom-up update: the University of
//! Freiburg's lecture slides *Collision Detection*, "BVHs for Deformable Objects"): one
//! dispatch for all leaves, then one per level from the deepest internal level up to the
//! root, all in one submission (dispatches of one compute pass are ordered, so a level sees
//! its children finished).
//!
//! The result is bit-identical to [`crate::Bvh::refit`] by construction; see
//! `crate::bv::slab::slab_bounds_f32` and `shaders/kdop_refit.wgsl`, whose entry points'
//! per-dispatch CPU twins are in [`super::mirror::kdop_refit`].

use super::context::{GpuContext, GpuError};
use super::kernels::{self, Bound, Named, Pipeline, pipeline};
use super::paged::Paging;
use super::shader::WORKGROUP_SIZE;
use crate::bv::KdopNode;
use crate::bvh::Bvh;
use crate::mesh::Mesh;

pub use super::layout::RefitRange;

/// A refit kernel compiled, and bound to this hierarchy's buffers.
struct BoundKernel {
    pipeline: Pipeline,
    bind_group: wgpu::BindGroup,
}

/// A hierarchy resident on the GPU, ready to be refitted many times. Built once per
/// hierarchy: uploads the nodes, the vertex triples of the reordered triangles and the
/// dispatch order, and builds both pipelines.
pub struct GpuRefit<const H: usize> {
    nodes: wgpu::Buffer,
    positions: wgpu::Buffer,
    leaves: BoundKernel,
    internal: BoundKernel,
    /// Ranges in dispatch order: the leaves, then the levels deepest first.
    dispatches: Vec<RefitRange>,
    range_stride: u32,
    node_count: usize,
    vertex_count: usize,
    /// The hierarchy's local frame: positions are uploaded relative to its origin.
    frame: crate::frame::Frame,
}

impl<const H: usize> std::fmt::Debug for GpuRefit<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuRefit")
            .field("nodes", &self.node_count)
            .field("vertices", &self.vertex_count)
            .field("dispatches", &self.dispatches.len())
            .finish()
    }
}

fn check_size(ctx: &GpuContext, bytes: usize) -> Result<(), GpuError> {
    let limit = ctx.binding_limit;
    if bytes as u64 > limit {
        return Err(GpuError::TooLarge {
            needed: bytes as u64,
            limit,
        });
    }
    Ok(())
}

/// `kernel` bound to `buffers`: compiled, or `old`'s pipeline bound anew (a rebuilt
/// hierarchy's refit keeps the compiled pipelines).
fn bound(
    ctx: &GpuContext,
    kernel: &'static kernels::Kernel,
    h: usize,
    buffers: &Named<'_>,
    old: Option<BoundKernel>,
) -> BoundKernel {
    let pipeline = match old {
        Some(k) => k.pipeline,
        None => pipeline(ctx, kernel, h, &Paging::default()),
    };
    let bind_group = pipeline.bind(ctx, buffers);
    BoundKernel {
        pipeline,
        bind_group,
    }
}

impl<const H: usize> GpuRefit<H> {
    /// Uploads `bvh` (built over `mesh`) and builds the pipelines. An error if `bvh` was
    /// not built over `mesh` (triangle counts differ) or a triangle names a missing vertex.
    pub fn new(ctx: &GpuContext, bvh: &Bvh<H>, mesh: &Mesh) -> Result<GpuRefit<H>, GpuError> {
        if bvh.tri_index.len() != mesh.triangles.len() {
            return Err(GpuError::InvalidInput(format!(
                "GpuRefit::new: the hierarchy has {} triangles, the mesh {}",
                bvh.tri_index.len(),
                mesh.triangles.len()
            )));
        }
        let vertex_count = mesh.positions.len();
        let tri_verts: Vec<u32> = bvh
            .tri_index
            .iter()
            .flat_map(|&t| mesh.triangles[t as usize])
            .collect();
        if let Some(v) = tri_verts.iter().find(|&&v| v as usize >= vertex_count) {
            return Err(GpuError::InvalidInput(format!(
                "GpuRefit::new: a triangle names vertex {v}, the mesh has {vertex_count}"
            )));
        }
        let node_bytes: &[u8] = bytemuck::cast_slice(&bvh.nodes);
        check_size(ctx, node_bytes.len())?;
        check_size(ctx, 12 * vertex_count)?;
        let nodes = ctx.storage("refit nodes", node_bytes, wgpu::BufferUsages::empty());
        let positions = ctx.storage_empty(
            "refit positions",
            12 * vertex_count as u64,
            wgpu::BufferUsages::empty(),
        )?;
        Self::with_buffers(ctx, bvh, &tri_verts, nodes, positions, vertex_count, None)
    }

    /// A refit that writes `nodes` (the hierarchy's node array, same bytes as `bvh.nodes`)
    /// in place from `corners`, the local f32 corners of the reordered triangles
    /// ([`crate::ordered::OrderedTriangles::all_corners_f32`], what the triangle tests
    /// read): each corner is a "vertex" of its own, so one upload per frame serves both,
    /// and the bits are [`crate::Bvh::refit`]'s (the same rounding of the same points). The
    /// caller writes `corners`; [`GpuRefit::submit`] refits. `old`: the refit of the
    /// hierarchy this one replaces, whose compiled pipelines are kept.
    pub(crate) fn over_corners(
        ctx: &GpuContext,
        bvh: &Bvh<H>,
        nodes: wgpu::Buffer,
        corners: wgpu::Buffer,
        old: Option<GpuRefit<H>>,
    ) -> Result<GpuRefit<H>, GpuError> {
        let n = 3 * bvh.tri_index.len();
        let identity: Vec<u32> = (0..n as u32).collect();
        Self::with_buffers(ctx, bvh, &identity, nodes, corners, n, old)
    }

    fn with_buffers(
        ctx: &GpuContext,
        bvh: &Bvh<H>,
        tri_verts: &[u32],
        nodes: wgpu::Buffer,
        positions: wgpu::Buffer,
        vertex_count: usize,
        old: Option<GpuRefit<H>>,
    ) -> Result<GpuRefit<H>, GpuError> {
        // Dispatch order: all leaves, then internal levels deepest first.
        let levels = bvh.levels();
        let is_leaf = |&&i: &&u32| bvh.nodes[i as usize].is_leaf();
        let mut node_list: Vec<u32> = levels.iter().flatten().filter(is_leaf).copied().collect();
        let mut dispatches = vec![RefitRange {
            start: 0,
            count: node_list.len() as u32,
            pad0: 0,
            pad1: 0,
        }];
        for level in levels.iter().rev() {
            let start = node_list.len() as u32;
            node_list.extend(level.iter().filter(|i| !is_leaf(i)));
            let count = node_list.len() as u32 - start;
            if count > 0 {
                dispatches.push(RefitRange {
                    start,
                    count,
                    pad0: 0,
                    pad1: 0,
                });
            }
        }
        let align = ctx.device.limits().min_uniform_buffer_offset_alignment;
        let range_stride = (std::mem::size_of::<RefitRange>() as u32).next_multiple_of(align);
        let mut range_bytes = vec![0u8; range_stride as usize * dispatches.len()];
        for (i, r) in dispatches.iter().enumerate() {
            let at = i * range_stride as usize;
            range_bytes[at..at + 16].copy_from_slice(bytemuck::bytes_of(r));
        }
        check_size(ctx, 4 * tri_verts.len())?;
        let tri_verts = ctx.storage(
            "refit tri_verts",
            bytemuck::cast_slice(tri_verts),
            wgpu::BufferUsages::empty(),
        );
        let node_list = ctx.storage(
            "refit node_list",
            bytemuck::cast_slice(&node_list),
            wgpu::BufferUsages::empty(),
        );
        let ranges = ctx.storage("refit ranges", &range_bytes, wgpu::BufferUsages::UNIFORM);

        let (old_leaves, old_internal) = match old {
            Some(o) => (Some(o.leaves), Some(o.internal)),
            None => (None, None),
        };
        // One slot of `ranges` per dispatch, chosen by its dynamic offset.
        let range = Bound::Range {
            buffer: &ranges,
            offset: 0,
            size: std::mem::size_of::<RefitRange>() as u64,
        };
        let leaves = bound(
            ctx,
            &kernels::REFIT_LEAVES,
            H,
            &[
                ("nodes", &nodes),
                ("positions", &positions),
                ("tri_verts", &tri_verts),
                ("node_list", &node_list),
                ("range", &range),
            ],
            old_leaves,
        );
        let internal = bound(
            ctx,
            &kernels::REFIT_INTERNAL,
            H,
            &[
                ("nodes", &nodes),
                ("node_list", &node_list),
                ("range", &range),
            ],
            old_internal,
        );
        Ok(GpuRefit {
            nodes,
            positions,
            leaves,
            internal,
            dispatches,
            range_stride,
            node_count: bvh.nodes.len(),
            vertex_count,
            frame: *bvh.frame(),
        })
    }

    /// Number of dispatches per refit (1 for the leaves + one per internal level).
    pub fn dispatch_count(&self) -> usize {
        self.dispatches.len()
    }

    /// Uploads new positions (f64 as written, same vertex count as the mesh given to
    /// [`GpuRefit::new`]), as local f32 coordinates in the hierarchy's frame (the rounding
    /// [`crate::Bvh::refit`] makes, so the bits agree), and refits every node, in one
    /// submission. Coordinates must be finite (as
    /// [`crate::Bvh::refit`] checks; here they are not checked, to keep the upload the only
    /// pass over the data).
    /// An error if `positions.len()` differs from the mesh's vertex count.
    pub fn refit(&mut self, ctx: &GpuContext, positions: &[[f64; 3]]) -> Result<(), GpuError> {
        if positions.len() != self.vertex_count {
            return Err(GpuError::InvalidInput(format!(
                "GpuRefit::refit: {} positions, the mesh has {} vertices",
                positions.len(),
                self.vertex_count
            )));
        }
        if !positions.is_empty() {
            let local: Vec<[f32; 3]> = positions.iter().map(|&p| self.frame.local_f32(p)).collect();
            ctx.queue
                .write_buffer(&self.positions, 0, bytemuck::cast_slice(&local));
        }
        self.submit(ctx);
        Ok(())
    }

    /// Refits every node from the positions on the device, in one submission and without
    /// waiting for it (a later submission on the queue sees the refitted nodes).
    pub(crate) fn submit(&self, ctx: &GpuContext) {
        let max_groups = ctx.device.limits().max_compute_workgroups_per_dimension;
        let mut enc = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("refit"),
            });
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("refit"),
                timestamp_writes: None,
            });
            for (i, r) in self.dispatches.iter().enumerate() {
                let k = if i == 0 { &self.leaves } else { &self.internal };
                let groups = r.count.div_ceil(WORKGROUP_SIZE);
                if groups == 0 {
                    continue;
                }
                // 2-D grid past the per-dimension limit; the kernel flattens it back.
                let x = groups.min(max_groups);
                let y = groups.div_ceil(x);
                pass.set_pipeline(&k.pipeline);
                pass.set_bind_group(0, &k.bind_group, &[i as u32 * self.range_stride]);
                pass.dispatch_workgroups(x, y, 1);
            }
        }
        ctx.queue.submit([enc.finish()]);
    }

    /// Reads the node array back (same bytes as `Bvh::nodes` after a CPU refit).
    pub fn read_nodes(&self, ctx: &GpuContext) -> Result<Vec<KdopNode<H>>, GpuError> {
        ctx.read_pod(&self.nodes, self.node_count)
    }
}

#[cfg(test)]
mod tests {
    use crate::bv::slab::{SLAB_ABS_MARGIN, SLAB_REL_MARGIN};

    /// The WGSL constants of the slab formula are the Rust ones, bit for bit.
    #[test]
    fn wgsl_constants_match_rust() {
        let src = include_str!("../../shaders/shared/kdop.wgsl");
        for (name, want) in [
            ("SLAB_REL_MARGIN", SLAB_REL_MARGIN),
            ("SLAB_ABS_MARGIN", SLAB_ABS_MARGIN),
            ("F32_MAX", f32::MAX),
            ("F32_MIN_POSITIVE", f32::MIN_POSITIVE),
        ] {
            let decl = format!("const {name}: f32 = ");
            let at = src.find(&decl).unwrap_or_else(|| panic!("no {name}")) + decl.len();
            let lit = &src[at..at + src[at..].find(';').unwrap()];
            let got = lit.parse::<f64>().unwrap() as f32;
            assert_eq!(got.to_bits(), want.to_bits(), "{name} = {lit}");
        }
    }
}
