//! Headless device setup (no window, no surface) and buffer readback.

use wgpu::util::DeviceExt;

pub use crate::error::GpuError;

/// Default batch memory budget: 512 MiB (or four times the device's largest binding, when
/// that is less). Peak device memory is the static arrays plus this, whatever the number of
/// poses.
pub const DEFAULT_BATCH_MEMORY: u64 = 512 << 20;

/// A device and its queue, created once and passed to everything that runs kernels.
pub struct GpuContext {
    /// The adapter the device was requested from.
    pub adapter: wgpu::Adapter,
    /// The logical device: buffers, pipelines.
    pub device: wgpu::Device,
    /// Its queue: submissions and writes.
    pub queue: wgpu::Queue,
    /// The adapter's name, backend and driver (for `stats.json` and `info`).
    pub info: wgpu::AdapterInfo,
    /// Memory budget of one batch's buffers (bytes; `GpuScene::batch_memory` starts from
    /// it): batches hold as many poses as fit. [`GpuContext::with_batch_memory`] sets it.
    pub batch_memory: u64,
    /// Largest storage binding the pipelines use (bytes): the device's own limit unless
    /// [`GpuContext::with_binding_limit`] lowers it. Larger static arrays are paged
    /// ([`crate::gpu::paged`]), larger batch buffers split the batch.
    pub binding_limit: u64,
    /// The first error the device reported outside a call (uncaptured errors and device
    /// loss), taken by [`GpuContext::check`]. wgpu's default would panic.
    errors: std::sync::Arc<std::sync::Mutex<Option<GpuError>>>,
    /// This device's number in the process (`GpuContext::id`).
    id: u64,
    /// Whether batches time their kernels (a timestamp after every dispatch, read back per
    /// submission into `BatchWork::kernel_ns`): on when the device has the timestamp
    /// features and the clock was asked for ([`PROFILE_ENV`], or
    /// [`GpuContext::with_timestamps`]). A caller may turn it off for a timed run and on
    /// again (`meshcollide bench gpu` does); it never turns on without the features.
    pub kernel_clock: bool,
}

/// The same device and queue (wgpu's handles are shared references), its limits and the
/// same error slot: a clone is the same device, with the same [`GpuContext::id`].
impl Clone for GpuContext {
    fn clone(&self) -> GpuContext {
        GpuContext {
            adapter: self.adapter.clone(),
            device: self.device.clone(),
            queue: self.queue.clone(),
            info: self.info.clone(),
            batch_memory: self.batch_memory,
            binding_limit: self.binding_limit,
            errors: self.errors.clone(),
            id: self.id,
            kernel_clock: self.kernel_clock,
        }
    }
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("info", &self.info)
            .finish()
    }
}

/// wgpu validates every indirect dispatch's arguments against the device's limits by
/// injecting a validation dispatch, with rebinds, before it (`InstanceFlags::
/// VALIDATION_INDIRECT_CALL`, on by default; wgpu issues 6567 and 8332): on a batch of 30
/// levels that is 120 more dispatches than it counts. Every argument the kernels write is
/// bounded by `gpu::shader::MAX_INDIRECT_GROUPS` per dimension, within the 65,535 workgroups per
/// dimension that every WebGPU device allows (`max_compute_workgroups_per_dimension`, also
/// wgpu's downlevel default), so the check is off; `WGPU_VALIDATION_INDIRECT_CALL=1` turns
/// it back on.
/// The instance is made after [`crate::gpu::runtime_dir::ensure`]: every instance of the
/// library is created here, so none of them makes libwayland print its false
/// `XDG_RUNTIME_DIR` error.
fn instance() -> wgpu::Instance {
    crate::gpu::runtime_dir::ensure();
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.flags
        .remove(wgpu::InstanceFlags::VALIDATION_INDIRECT_CALL);
    wgpu::Instance::new(desc.with_env())
}

/// Every adapter wgpu can see (for `meshcollide info`).
pub fn adapters() -> Vec<wgpu::AdapterInfo> {
    pollster::block_on(instance().enumerate_adapters(wgpu::Backends::PRIMARY))
        .iter()
        .map(|a| a.get_info())
        .collect()
}

/// Set by [`GpuContext::forget_shared`].
static FORGET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The next [`GpuContext::id`].
static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl GpuContext {
    /// Picks the best adapter (discrete, then integrated, then others, lavapipe last) and
    /// opens a device with the adapter's own limits (large storage buffers matter here).
    ///
    /// The first call in a process sets `XDG_RUNTIME_DIR` to a private directory (mode 0700,
    /// in the temporary directory) if the variable is unset, empty, relative or not a
    /// directory, and leaves a valid one alone: Mesa's Vulkan device selection otherwise
    /// makes libwayland print a false `error: XDG_RUNTIME_DIR is invalid or not set` twice
    /// per instance. A program that wants another directory sets a valid one before the
    /// first context.
    pub fn new() -> Result<GpuContext, GpuError> {
        GpuContext::open(requested())
    }

    /// [`GpuContext::new`] with the timestamp features requested whatever the environment
    /// says, where the adapter has them, and the kernel clock on ([`GpuContext::kernel_clock`]):
    /// for a caller that reports kernel times (`meshcollide bench gpu`).
    pub fn with_timestamps() -> Result<GpuContext, GpuError> {
        GpuContext::open(true)
    }

    /// Opens the best adapter's device, with the kernel clock's features when `clock`.
    fn open(clock: bool) -> Result<GpuContext, GpuError> {
        let inst = instance();
        let mut list = pollster::block_on(inst.enumerate_adapters(wgpu::Backends::PRIMARY));
        let rank = |t: wgpu::DeviceType| match t {
            wgpu::DeviceType::DiscreteGpu => 0,
            wgpu::DeviceType::IntegratedGpu => 1,
            wgpu::DeviceType::VirtualGpu => 2,
            wgpu::DeviceType::Cpu => 3,
            wgpu::DeviceType::Other => 4,
        };
        list.sort_by_key(|a| rank(a.get_info().device_type));
        let adapter = list.into_iter().next().ok_or_else(|| GpuError::NoAdapter {
            backends: format!("{:?}", wgpu::Backends::PRIMARY),
        })?;
        let info = adapter.get_info();
        let (device, queue) =
            pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("meshcollide"),
                // Timestamps only for the kernel clock (`MESHCOLLIDE_GPU_PROFILE`).
                required_features: if clock {
                    adapter.features() & FEATURES
                } else {
                    wgpu::Features::empty()
                },
                required_limits: adapter.limits(),
                ..Default::default()
            }))?;
        let limit = device.limits().max_storage_buffer_binding_size;
        let errors = std::sync::Arc::new(std::sync::Mutex::new(None));
        let sink = errors.clone();
        device.on_uncaptured_error(std::sync::Arc::new(move |e: wgpu::Error| {
            let err = match e {
                wgpu::Error::OutOfMemory { source } => GpuError::OutOfMemory(source.to_string()),
                wgpu::Error::Validation { description, .. } => GpuError::Validation(description),
                wgpu::Error::Internal { description, .. } => GpuError::DeviceLost(description),
            };
            if let Ok(mut first) = sink.lock() {
                first.get_or_insert(err);
            }
        }));
        let sink = errors.clone();
        device.set_device_lost_callback(move |reason, message| {
            if let Ok(mut first) = sink.lock() {
                first.get_or_insert(GpuError::DeviceLost(format!("{reason:?}: {message}")));
            }
        });
        let kernel_clock = clock && device.features().contains(FEATURES);
        Ok(GpuContext {
            adapter,
            device,
            queue,
            info,
            batch_memory: DEFAULT_BATCH_MEMORY.min(limit.saturating_mul(4)),
            binding_limit: limit,
            errors,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            kernel_clock,
        })
    }

    /// The process's own context: the adapter probed and the device opened on the first
    /// call (tens of milliseconds, more on a software adapter), the same device handed out
    /// to every later call at no cost, so that a caller that picks a backend per call (the
    /// Python package's `backend="auto"`) pays the probe once, and a [`crate::Collider`]
    /// finds the scene it uploaded to that device. "No adapter" is kept too (there is none
    /// the next time either); another failure is not, so a later call tries again. A
    /// device lost since is dropped by [`GpuContext::forget_shared`].
    pub fn shared() -> Result<GpuContext, GpuError> {
        GpuContext::shared_probe().0
    }

    /// [`GpuContext::shared`], and how long this call spent probing: `Some` only for the
    /// call that opened the device (or found no adapter), `None` when it was kept.
    pub fn shared_probe() -> (Result<GpuContext, GpuError>, Option<std::time::Duration>) {
        static SHARED: std::sync::Mutex<Option<Result<GpuContext, String>>> =
            std::sync::Mutex::new(None);
        let mut slot = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        if FORGET.swap(false, std::sync::atomic::Ordering::Relaxed) {
            *slot = None;
        }
        match &*slot {
            Some(Ok(ctx)) => return (Ok(ctx.clone()), None),
            Some(Err(backends)) => {
                let backends = backends.clone();
                return (Err(GpuError::NoAdapter { backends }), None);
            }
            None => {}
        }
        let t = std::time::Instant::now();
        let opened = GpuContext::new();
        let took = Some(t.elapsed());
        match opened {
            Ok(ctx) => {
                *slot = Some(Ok(ctx.clone()));
                (Ok(ctx), took)
            }
            Err(GpuError::NoAdapter { backends }) => {
                *slot = Some(Err(backends.clone()));
                (Err(GpuError::NoAdapter { backends }), took)
            }
            Err(e) => (Err(e), took),
        }
    }

    /// Makes the next [`GpuContext::shared`] probe again (after a device loss).
    pub fn forget_shared() {
        FORGET.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// A number no other device opened by this process has: what a device's buffers and
    /// pipelines are kept under (a `Collider` keeps its uploaded scene per device). The
    /// `with_*` variants keep it: they are the same device.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The first error the device reported since the last check (validation, out of
    /// memory, device loss), as a typed error; `Ok` if none.
    pub fn check(&self) -> Result<(), GpuError> {
        match self.errors.lock() {
            Ok(mut first) => match first.take() {
                None => Ok(()),
                Some(e) => {
                    if matches!(e, GpuError::DeviceLost(_)) {
                        GpuContext::forget_shared();
                    }
                    Err(e)
                }
            },
            Err(_) => Err(GpuError::DeviceLost("error sink poisoned".into())),
        }
    }

    /// The same context with a batch memory budget of `bytes` (at least 1 MiB).
    pub fn with_batch_memory(mut self, bytes: u64) -> GpuContext {
        self.batch_memory = bytes.max(1 << 20);
        self
    }

    /// The same context with storage bindings of at most `bytes` (at least 256, at most the
    /// device's limit): large arrays are paged sooner. For tests of the paged path, and for
    /// drivers whose real limit is below the one they report.
    pub fn with_binding_limit(mut self, bytes: u64) -> GpuContext {
        let device = self.device.limits().max_storage_buffer_binding_size;
        self.binding_limit = bytes.clamp(256, device);
        self
    }

    /// `"name (backend, type)"`, as reported in stats.json.
    pub fn adapter_name(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// A storage buffer initialised with `data` (at least 4 bytes, as wgpu requires).
    pub fn storage(&self, label: &str, data: &[u8], extra: wgpu::BufferUsages) -> wgpu::Buffer {
        let padded;
        let contents = if data.len() < 4 {
            padded = [0u8; 4];
            &padded[..]
        } else {
            data
        };
        self.device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST
                    | extra,
            })
    }

    /// An uninitialised (zeroed) storage buffer of `size` bytes.
    pub fn storage_empty(
        &self,
        label: &str,
        size: u64,
        extra: wgpu::BufferUsages,
    ) -> Result<wgpu::Buffer, GpuError> {
        let limit = self.binding_limit;
        let size = size.max(4).next_multiple_of(4);
        if size > limit {
            return Err(GpuError::TooLarge {
                needed: size,
                limit,
            });
        }
        Ok(self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_SRC
                | wgpu::BufferUsages::COPY_DST
                | extra,
            mapped_at_creation: false,
        }))
    }

    /// Copies `size` bytes of `buffer` back to the host (one staging buffer, one wait).
    pub fn read(&self, buffer: &wgpu::Buffer, size: u64) -> Result<Vec<u8>, GpuError> {
        let size = size.max(4).next_multiple_of(4);
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, size);
        self.queue.submit([enc.finish()]);
        self.map_read(&staging)
    }

    /// Waits for the device and returns the contents of a `MAP_READ` buffer (one wait).
    pub fn map_read(&self, staging: &wgpu::Buffer) -> Result<Vec<u8>, GpuError> {
        let slice = staging.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device.poll(wgpu::PollType::wait_indefinitely())?;
        self.check()?;
        rx.recv().unwrap_or(Ok(()))?;
        self.check()?;
        let data = slice
            .get_mapped_range()
            .map_err(|e| GpuError::MapRange(e.to_string()))?
            .to_vec();
        staging.unmap();
        Ok(data)
    }

    /// The first `na` bytes of `a` and the first `nb` bytes of `b` as Pod values, through one
    /// staging buffer and one wait (one readback); nothing is read when both are 0.
    pub fn read_two<T: bytemuck::Pod>(
        &self,
        label: &str,
        (a, na): (&wgpu::Buffer, u64),
        (b, nb): (&wgpu::Buffer, u64),
    ) -> Result<(Vec<T>, Vec<T>), GpuError> {
        if na + nb == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        let staging = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: na + nb,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = self.device.create_command_encoder(&Default::default());
        if na > 0 {
            enc.copy_buffer_to_buffer(a, 0, &staging, 0, na);
        }
        if nb > 0 {
            enc.copy_buffer_to_buffer(b, 0, &staging, na, nb);
        }
        self.queue.submit([enc.finish()]);
        let bytes = self.map_read(&staging)?;
        Ok((
            bytemuck::pod_collect_to_vec(&bytes[..na as usize]),
            bytemuck::pod_collect_to_vec(&bytes[na as usize..]),
        ))
    }

    /// Reads a buffer back as Pod values.
    pub fn read_pod<T: bytemuck::Pod>(
        &self,
        buffer: &wgpu::Buffer,
        count: usize,
    ) -> Result<Vec<T>, GpuError> {
        let bytes = self.read(buffer, (count * std::mem::size_of::<T>()) as u64)?;
        Ok(bytemuck::pod_collect_to_vec(
            &bytes[..count * std::mem::size_of::<T>()],
        ))
    }
}

/// The environment variable that turns the kernel clock on (any value but empty or `0`;
/// the clock is `gpu::collide::profile`'s, the device requests its features here).
pub const PROFILE_ENV: &str = "MESHCOLLIDE_GPU_PROFILE";

/// The device features the kernel clock needs.
pub const FEATURES: wgpu::Features =
    wgpu::Features::TIMESTAMP_QUERY.union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES);

/// Whether profiling was asked for in the environment.
pub fn requested() -> bool {
    std::env::var_os(PROFILE_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}
