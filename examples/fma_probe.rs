//! Probes whether the GPU contracts `a * b + c` into a fused multiply-add (it changes the
//! rounding, which matters for bit-exact CPU/GPU parity of tumbled k-DOPs).
//!
//! It builds its own one-off pipeline on purpose: the three-line kernel below probes the
//! hardware's arithmetic and is no part of the collision pipeline, so it stays out of the
//! kernel registry (src/gpu/kernels.rs) and its shader out of `shaders/`.
use meshcollide::gpu::GpuContext;
use meshcollide::rng::Rng;
use wgpu::util::DeviceExt;

fn main() -> Result<(), meshcollide::gpu::GpuError> {
    let ctx = GpuContext::new()?;
    println!("adapter: {}", ctx.adapter_name());
    let n = 1 << 16;
    let mut rng = Rng::new(1);
    let data: Vec<f32> = (0..3 * n).map(|_| rng.range(-1.0, 1.0) as f32).collect();
    let src = "@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let i = g.x; if (i >= arrayLength(&y) / 3u) { return; }
  let a = x[3u*i]; let b = x[3u*i+1u]; let c = x[3u*i+2u];
  y[3u*i] = a * b + c;
  y[3u*i+1u] = fma(a, b, c);
  y[3u*i+2u] = (a * b + b * c) + c * a;
}";
    let m = ctx
        .device
        .create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(src.into()),
        });
    let p = ctx
        .device
        .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &m,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
    let xb = ctx
        .device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(&data),
            usage: wgpu::BufferUsages::STORAGE,
        });
    let yb = ctx.storage_empty("y", (12 * n) as u64, wgpu::BufferUsages::empty())?;
    let bg = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &p.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: xb.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: yb.as_entire_binding(),
            },
        ],
    });
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p);
        pass.set_bind_group(0, &bg, &[]);
        pass.dispatch_workgroups((n as u32).div_ceil(64), 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    let y: Vec<f32> = ctx.read_pod(&yb, 3 * n)?;
    let (mut plain_eq, mut plain_fused, mut fma_eq, mut three_eq) = (0, 0, 0, 0);
    let mut hits = [0; 9];
    for i in 0..n {
        let (a, b, c) = (data[3 * i], data[3 * i + 1], data[3 * i + 2]);
        if y[3 * i] == a * b + c {
            plain_eq += 1;
        }
        if y[3 * i] == a.mul_add(b, c) {
            plain_fused += 1;
        }
        if y[3 * i + 1] == a.mul_add(b, c) {
            fma_eq += 1;
        }
        if y[3 * i + 2] == (a * b + b * c) + c * a {
            three_eq += 1;
        }
        let v = y[3 * i + 2];
        let cands = [
            c.mul_add(a, a * b + b * c),
            c.mul_add(a, a.mul_add(b, b * c)),
            c.mul_add(a, b.mul_add(c, a * b)),
            a.mul_add(b, b * c) + c * a,
            b.mul_add(c, a * b) + c * a,
            (a * b + b * c) + c * a,
            a * b + (b * c + c * a),
            (a * b + c * a) + b * c,
            ((a as f64 * b as f64 + b as f64 * c as f64) + c as f64 * a as f64) as f32,
        ];
        for (k, x) in cands.iter().enumerate() {
            if v == *x {
                hits[k] += 1;
            }
        }
    }
    println!("3-term candidates: {hits:?}");
    println!(
        "n={n}: a*b+c == unfused {plain_eq}, == fused {plain_fused}; fma == fused {fma_eq}; 3-term unfused {three_eq}"
    );
    Ok(())
}
