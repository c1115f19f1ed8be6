//! `front_prepare.wgsl` against `gpu::mirror::front_prepare`: the counter kernels between
//! the levels (`prepare_tri`, `prepare_next`, `prepare_tumble`).

use crate::Gpu;
use meshcollide::gpu::kernels;
use meshcollide::gpu::layout::GpuCounters;
use meshcollide::gpu::mirror::front_prepare;
use meshcollide::gpu::shader::{DISPATCH_X, WORKGROUP_SIZE};

/// `prepare_tri`, `prepare_next` and `prepare_tumble` on hand-made counter states, bit for
/// bit.
#[test]
fn prepare_kernels_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let big = 2 * DISPATCH_X * WORKGROUP_SIZE + 5;
    let states = [
        (5, 3, 17, 100, 100, 0),
        (0, 0, 0, 8, 8, 1),
        (big, big, 70, big, 9, 2),
        (40, 300, 1000, 64, 256, 7),
        (7, 7, 7, 1 << 20, 1 << 20, 3),
    ];
    // Some states after an overflow: both kernels then freeze the batch.
    for (i, &(n_in, n_out, n_leaf, cap_front, cap_leaf, level)) in states.iter().enumerate() {
        let overflow = [0, 1, 0, 4, 16][i];
        let c0 = GpuCounters {
            n_in,
            n_out,
            n_leaf,
            cap_front,
            cap_leaf,
            level,
            max_front: 50,
            max_leaf: 60,
            n_contact: 4,
            n_unsure: 2,
            resumed: 3,
            overflow,
            ..Default::default()
        };
        let c0 = GpuCounters {
            n_fresh: [3, 0, big, 70, 1][i],
            fresh_in: 5,
            ..c0
        };
        let args0 = [9u32; 9];
        let sizes0 = [11u32; 4];
        let (c_b, args_b, sizes_b) = (gpu.buf(&[c0]), gpu.buf(&args0), gpu.buf(&sizes0));
        let (mut c, mut args, mut sizes) = (c0, args0, sizes0);
        gpu.run(
            &kernels::PREPARE_TRI,
            9,
            &[("counters", &c_b), ("args", &args_b)],
            1,
        );
        front_prepare::prepare_tri(&mut c, &mut args);
        assert_eq!(gpu.read::<GpuCounters>(&c_b, 1)[0], c, "prepare_tri {i}");
        assert_eq!(gpu.read::<u32>(&args_b, 9), args, "prepare_tri {i}");
        let b = [
            ("counters", &c_b),
            ("args", &args_b),
            ("level_sizes", &sizes_b),
        ];
        gpu.run(&kernels::PREPARE_NEXT, 9, &b, 1);
        front_prepare::prepare_next(&mut c, &mut args, &mut sizes);
        assert_eq!(gpu.read::<GpuCounters>(&c_b, 1)[0], c, "prepare_next {i}");
        assert_eq!(gpu.read::<u32>(&args_b, 9), args, "prepare_next {i}");
        assert_eq!(gpu.read::<u32>(&sizes_b, 4), sizes, "prepare_next {i}");
        if overflow != 0 {
            assert_eq!(c, c0, "frozen: no counter changes");
            assert_eq!((args[0], args[3]), (0, 0), "frozen: no dispatch after");
        }
        // `prepare_tumble` runs after an overflow too; after a full table, no `expand`.
        let (c_t, mut args_t) = (c, args0);
        let (c_b, args_b) = (gpu.buf(&[c_t]), gpu.buf(&args_t));
        gpu.run(
            &kernels::PREPARE_TUMBLE,
            9,
            &[("counters", &c_b), ("args", &args_b)],
            1,
        );
        let mut c_t = c_t;
        front_prepare::prepare_tumble(&mut c_t, &mut args_t);
        assert_eq!(
            gpu.read::<GpuCounters>(&c_b, 1)[0],
            c_t,
            "prepare_tumble {i}"
        );
        assert_eq!(gpu.read::<u32>(&args_b, 9), args_t, "prepare_tumble {i}");
        assert_eq!((c_t.n_fresh, c_t.fresh_in), (0, c.n_fresh));
        assert_eq!(
            args_t[0] == 0,
            overflow & 16 != 0,
            "prepare_tumble {i}: expand"
        );
        if overflow == 0 {
            assert_eq!(
                (c.contact_mark, c.unsure_mark),
                (4, 2),
                "marks before tri_test"
            );
            assert_eq!(c.resumed, 0, "prepare_next ends a resumed level");
        }
    }
}

/// wgpu's validation of indirect dispatches is off (`gpu::context`): every size the
/// prepare kernels write must be within the device's limit whatever the counters hold. The
/// counts here run to `u32::MAX` (far beyond any capacity): each of x, y, z stays within
/// `MAX_INDIRECT_GROUPS` and the device's `max_compute_workgroups_per_dimension`, on the
/// device as in the twins.
#[test]
fn dispatch_sizes_stay_within_the_device_limits_for_any_count() {
    use meshcollide::gpu::shader::MAX_INDIRECT_GROUPS;
    let Some(mut gpu) = Gpu::new() else { return };
    let device_limit = gpu.ctx.device.limits().max_compute_workgroups_per_dimension;
    assert!(MAX_INDIRECT_GROUPS <= device_limit, "{device_limit}");
    let per_x = DISPATCH_X * WORKGROUP_SIZE;
    let counts = [
        0,
        1,
        per_x - 1,
        per_x,
        per_x + 1,
        1 << 31,
        u32::MAX - WORKGROUP_SIZE,
        u32::MAX - 1,
        u32::MAX,
    ];
    for n in counts {
        let c0 = GpuCounters {
            n_out: n,
            n_leaf: n,
            n_fresh: n,
            cap_front: u32::MAX,
            cap_leaf: u32::MAX,
            ..Default::default()
        };
        let (c_b, args_b, sizes_b) = (gpu.buf(&[c0]), gpu.buf(&[0u32; 9]), gpu.buf(&[0u32; 4]));
        let (mut c, mut args, mut sizes) = (c0, [0u32; 9], [0u32; 4]);
        gpu.run(
            &kernels::PREPARE_TRI,
            9,
            &[("counters", &c_b), ("args", &args_b)],
            1,
        );
        front_prepare::prepare_tri(&mut c, &mut args);
        let b = [
            ("counters", &c_b),
            ("args", &args_b),
            ("level_sizes", &sizes_b),
        ];
        gpu.run(&kernels::PREPARE_NEXT, 9, &b, 1);
        front_prepare::prepare_next(&mut c, &mut args, &mut sizes);
        gpu.run(
            &kernels::PREPARE_TUMBLE,
            9,
            &[("counters", &c_b), ("args", &args_b)],
            1,
        );
        front_prepare::prepare_tumble(&mut c, &mut args);
        let on_device = gpu.read::<u32>(&args_b, 9);
        assert_eq!(on_device, args, "n = {n}: the twins");
        for (k, &v) in on_device.iter().enumerate() {
            assert!(v <= MAX_INDIRECT_GROUPS, "n = {n}: args[{k}] = {v}");
        }
        // Every count below the wrap dispatches enough groups for its invocations.
        if n <= u32::MAX - WORKGROUP_SIZE {
            for at in [0, 3, 6] {
                let groups = on_device[at] as u64 * on_device[at + 1] as u64;
                assert!(
                    groups * WORKGROUP_SIZE as u64 >= n as u64,
                    "n = {n}: args[{at}..]"
                );
                assert_eq!(on_device[at + 2], 1);
            }
        }
    }
}
