//! Compiling a registered kernel ([`pipeline`]) and binding buffers to it by name
//! ([`Pipeline::bind`]): the one place of each, for the batch pipeline, the refit, the
//! self-collision and the tests that run one entry point alone.

use super::{Access, Kernel};
use crate::gpu::context::GpuContext;
use crate::gpu::paged::{PAGED, PagedArray, Paging, extra_binding};
use crate::gpu::shader::source_paged;

/// What is bound to one named binding.
#[derive(Clone, Copy, Debug)]
pub enum Bound<'a> {
    /// The whole buffer.
    Whole(&'a wgpu::Buffer),
    /// `size` bytes of the buffer from `offset` (a uniform slot, a table's used part).
    Range {
        /// The buffer.
        buffer: &'a wgpu::Buffer,
        /// First byte.
        offset: u64,
        /// Bytes bound (more than 0).
        size: u64,
    },
    /// A static array of [`PAGED`] in pages: page 0 at the binding, the others at their
    /// [`extra_binding`]s. The binding's name must be the array's.
    Paged(&'a PagedArray),
}

/// What can be bound to a named binding: a buffer (whole), a paged array, or a [`Bound`]
/// (a range of a buffer), so that a bind group's list reads `("counters", &counters)`.
pub trait Bindable {
    /// How it is bound.
    fn bound(&self) -> Bound<'_>;
}

impl Bindable for wgpu::Buffer {
    fn bound(&self) -> Bound<'_> {
        Bound::Whole(self)
    }
}

impl Bindable for PagedArray {
    fn bound(&self) -> Bound<'_> {
        Bound::Paged(self)
    }
}

impl Bindable for Bound<'_> {
    fn bound(&self) -> Bound<'_> {
        *self
    }
}

/// A bind group's list: each binding's name with what is bound to it.
pub type Named<'a> = [(&'a str, &'a dyn Bindable)];

/// Buffers that do not fit a kernel's bindings: a broken invariant of the host (or of a
/// test), named by kernel and binding. [`Pipeline::bind`] panics with it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// A name the kernel does not use.
    #[error("{entry} ({file}): `{name}` is not a binding it uses")]
    Unknown {
        /// The kernel's shader file.
        file: &'static str,
        /// The kernel.
        entry: &'static str,
        /// The name given.
        name: String,
    },
    /// A binding given more than once.
    #[error("{entry} ({file}): binding `{name}` given twice")]
    Twice {
        /// The kernel's shader file.
        file: &'static str,
        /// The kernel.
        entry: &'static str,
        /// The binding.
        name: String,
    },
    /// A binding the kernel uses that was not given.
    #[error("{entry} ({file}): binding `{name}` (@binding({index})) not given")]
    Missing {
        /// The kernel's shader file.
        file: &'static str,
        /// The kernel.
        entry: &'static str,
        /// The binding.
        name: &'static str,
        /// Its number.
        index: u32,
    },
    /// A paged array bound to a binding of another name, or with another number of pages
    /// than the pipeline was compiled for.
    #[error(
        "{entry}: binding `{name}` given {array} in {pages} pages, compiled for `{name}` in {want}"
    )]
    Pages {
        /// The kernel.
        entry: &'static str,
        /// The binding.
        name: &'static str,
        /// The array given (its name in [`PAGED`]; a plain buffer: `a buffer`).
        array: &'static str,
        /// Its pages.
        pages: usize,
        /// The pages the pipeline's shader declares.
        want: usize,
    },
}

/// A registered kernel compiled: its compute pipeline (what `set_pipeline` takes, through
/// `Deref`) and its bind group layout, made from the registry.
#[derive(Debug)]
pub struct Pipeline {
    kernel: &'static Kernel,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    /// The paging its shader was assembled for.
    paging: Paging,
}

impl std::ops::Deref for Pipeline {
    type Target = wgpu::ComputePipeline;
    fn deref(&self) -> &wgpu::ComputePipeline {
        &self.pipeline
    }
}

/// The `(binding, access)` entries of `kernel`'s layout for `paging`: its bindings, then the
/// extra pages of its paged arrays (read-only storage, as [`crate::gpu::paged::rewrite`]
/// declares them).
pub fn layout_slots(kernel: &Kernel, paging: &Paging) -> Vec<(u32, Access)> {
    let mut slots: Vec<(u32, Access)> = kernel.bindings().map(|b| (b.index, b.access)).collect();
    for b in kernel.bindings() {
        if let Some(id) = PAGED.iter().position(|(n, _)| *n == b.name) {
            let pages = paging.arrays[id].0;
            slots.extend((1..pages).map(|k| (extra_binding(id, k), Access::Read)));
        }
    }
    slots
}

/// Compiles `kernel` for `H = h` slabs and `paging` (the shader assembled by
/// [`source_paged`]), with the bind group layout its registry entry gives. Errors reach
/// the device's error handler ([`GpuContext::check`]).
pub fn pipeline(ctx: &GpuContext, kernel: &'static Kernel, h: usize, paging: &Paging) -> Pipeline {
    let file = kernel.shader.file;
    let device = &ctx.device;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(file),
        source: wgpu::ShaderSource::Wgsl(source_paged(file, h, paging).into()),
    });
    let entries: Vec<wgpu::BindGroupLayoutEntry> = layout_slots(kernel, paging)
        .into_iter()
        .map(|(binding, access)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match access {
                    Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                    Access::Uniform | Access::DynamicUniform => wgpu::BufferBindingType::Uniform,
                },
                has_dynamic_offset: access == Access::DynamicUniform,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(kernel.entry),
        entries: &entries,
    });
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(kernel.entry),
        bind_group_layouts: &[Some(&layout)],
        immediate_size: 0,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(kernel.entry),
        layout: Some(&pipeline_layout),
        module: &module,
        entry_point: Some(kernel.entry),
        compilation_options: Default::default(),
        cache: None,
    });
    Pipeline {
        kernel,
        pipeline,
        layout,
        paging: paging.clone(),
    }
}

impl Pipeline {
    /// The kernel it runs.
    pub fn kernel(&self) -> &'static Kernel {
        self.kernel
    }

    /// A bind group of this kernel with each named binding bound as given. Panics with a
    /// [`BindError`] unless every binding the kernel uses is given exactly once (and each
    /// paged array is the binding's own, in the pages compiled for): a broken invariant of
    /// the caller, never of the input.
    pub fn bind(&self, ctx: &GpuContext, named: &Named<'_>) -> wgpu::BindGroup {
        self.try_bind(ctx, named).unwrap_or_else(|e| panic!("{e}"))
    }

    /// [`Pipeline::bind`], the mismatch as an error.
    pub fn try_bind(
        &self,
        ctx: &GpuContext,
        named: &Named<'_>,
    ) -> Result<wgpu::BindGroup, BindError> {
        let names: Vec<&str> = named.iter().map(|(n, _)| *n).collect();
        self.kernel.check(&names)?;
        let mut entries = Vec::with_capacity(named.len());
        for (name, bound) in named {
            let b = self.kernel.binding(name).expect("checked above");
            let paged = PAGED.iter().position(|(n, _)| *n == b.name);
            let want = paged.map_or(1, |id| self.paging.arrays[id].0);
            let mismatch = |array: &'static str, pages: usize| BindError::Pages {
                entry: self.kernel.entry,
                name: b.name,
                array,
                pages,
                want,
            };
            match bound.bound() {
                Bound::Paged(a) => {
                    let array = PAGED[a.id()].0;
                    if array != b.name || a.pages.len() != want {
                        return Err(mismatch(array, a.pages.len()));
                    }
                    entries.extend(a.entries(b.index).map(|(binding, buffer)| {
                        wgpu::BindGroupEntry {
                            binding,
                            resource: buffer.as_entire_binding(),
                        }
                    }));
                }
                _ if want > 1 => return Err(mismatch("a buffer", 1)),
                Bound::Whole(buffer) => entries.push(wgpu::BindGroupEntry {
                    binding: b.index,
                    resource: buffer.as_entire_binding(),
                }),
                Bound::Range {
                    buffer,
                    offset,
                    size,
                } => entries.push(wgpu::BindGroupEntry {
                    binding: b.index,
                    resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                        buffer,
                        offset,
                        size: wgpu::BufferSize::new(size),
                    }),
                }),
            }
        }
        Ok(ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(self.kernel.entry),
            layout: &self.layout,
            entries: &entries,
        }))
    }
}
