//! `front_prepare.wgsl` against `gpu::mirror::front_prepare` (`prepare_tumble`), and the
//! hand-over of `front_expand.wgsl` (`next_level`, run by the last workgroup of every
//! expansion) on hand-made counter states: an `expand` dispatch over an empty level, so
//! only its hand-over writes.

use crate::Gpu;
use meshcollide::gpu::kernels;
use meshcollide::gpu::layout::GpuCounters;
use meshcollide::gpu::mirror::{front_expand, front_prepare};
use meshcollide::gpu::shader::{DISPATCH_X, WORKGROUP_SIZE};

/// The hand-over's outputs: counters, `next_args`, `tri_args`, `level_sizes`.
type HandedOver = (GpuCounters, [u32; 3], [u32; 3], [u32; 4]);

/// One `expand` dispatch of `groups` workgroups over an empty input (`n_in` is taken as 0
/// for the grid: no pair is read) from `c0`: what its hand-over wrote on the device, and
/// what the twin [`front_expand::next_level`] computes.
fn hand_over(gpu: &mut Gpu, c0: GpuCounters, invocations: u64) -> (HandedOver, HandedOver) {
    // Every binding but the hand-over's gets a small dummy buffer of its own (nothing is
    // read).
    let dummies: Vec<wgpu::Buffer> = kernels::EXPAND
        .uses
        .iter()
        .map(|_| gpu.buf(&[0u32; 1024]))
        .collect();
    let (c_b, next_b, tri_b, sizes_b) = (
        gpu.buf(&[GpuCounters { n_in: 0, ..c0 }]),
        gpu.buf(&[9u32; 3]),
        gpu.buf(&[9u32; 3]),
        gpu.buf(&[11u32; 4]),
    );
    let own = [
        ("counters", &c_b),
        ("next_args", &next_b),
        ("tri_args", &tri_b),
        ("level_sizes", &sizes_b),
    ];
    let b: Vec<(&str, &wgpu::Buffer)> = kernels::EXPAND
        .uses
        .iter()
        .zip(&dummies)
        .map(|(&name, dummy)| {
            own.iter()
                .find(|(n, _)| *n == name)
                .map_or((name, dummy), |&(n, b)| (n, b))
        })
        .collect();
    gpu.run(&kernels::EXPAND, 9, &b, invocations);
    let three = |v: Vec<u32>| [v[0], v[1], v[2]];
    let got = (
        gpu.read::<GpuCounters>(&c_b, 1)[0],
        three(gpu.read(&next_b, 3)),
        three(gpu.read(&tri_b, 3)),
        {
            let v = gpu.read::<u32>(&sizes_b, 4);
            [v[0], v[1], v[2], v[3]]
        },
    );
    let mut c = GpuCounters { n_in: 0, ..c0 };
    let (mut next, mut tri, mut sizes) = ([9u32; 3], [9u32; 3], [11u32; 4]);
    front_expand::next_level(&mut c, &mut next, &mut tri, &mut sizes);
    ((got), (c, next, tri, sizes))
}

/// The hand-over and `prepare_tumble` on hand-made counter states, bit for bit, from one
/// workgroup and from many (the last to finish hands over; the count returns to 0).
#[test]
fn hand_over_and_prepare_tumble_match_their_twins() {
    let Some(mut gpu) = Gpu::new() else { return };
    let big = 2 * DISPATCH_X * WORKGROUP_SIZE + 5;
    let states = [
        (3, 17, 100, 100, 0),
        (0, 0, 8, 8, 1),
        (big, 70, big, 9, 2),
        (300, 1000, 64, 256, 3),
        (7, 7, 1 << 20, 1 << 20, 3),
    ];
    for (i, &(n_out, n_leaf, cap_front, cap_leaf, level)) in states.iter().enumerate() {
        // Some states after an overflow: the hand-over then freezes the batch.
        let overflow = [0, 1, 0, 4, 16][i];
        let c0 = GpuCounters {
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
            n_fresh: [3, 0, big, 70, 1][i],
            fresh_in: 5,
            ..Default::default()
        };
        for invocations in [1, 40 * WORKGROUP_SIZE as u64] {
            let (got, want) = hand_over(&mut gpu, c0, invocations);
            assert_eq!(got, want, "state {i}, {invocations} invocations");
            let (c, next, tri, sizes) = want;
            assert_eq!(c.groups_done, 0, "the last workgroup clears the count");
            if overflow != 0 {
                let frozen = GpuCounters {
                    n_in: 0,
                    frozen: 1,
                    ..c0
                };
                assert_eq!(c, frozen, "frozen: no other counter changes");
                assert_eq!((next, tri[0]), ([1, 1, 1], 0), "frozen: one group next");
                assert_eq!(sizes, [11; 4]);
            } else {
                assert_eq!((c.n_in, c.n_out), (n_out.min(cap_front), 0));
                assert_eq!(
                    (c.level, c.leaf_mark, c.n_leaf),
                    (level + 1, n_leaf, n_leaf)
                );
                assert_eq!((c.contact_mark, c.unsure_mark), (4, 2), "marks");
                assert_eq!(c.resumed, 0, "the hand-over ends a resumed level");
                assert_eq!(sizes[level as usize], 0, "the level's input size");
            }
        }
        // `prepare_tumble` runs after an overflow too; after a full table, it freezes.
        let (c_b, args_b) = (gpu.buf(&[c0]), gpu.buf(&[9u32; 3]));
        gpu.run(
            &kernels::PREPARE_TUMBLE,
            9,
            &[("counters", &c_b), ("args", &args_b)],
            1,
        );
        let (mut c_t, mut args_t) = (c0, [9u32; 3]);
        front_prepare::prepare_tumble(&mut c_t, &mut args_t);
        assert_eq!(
            gpu.read::<GpuCounters>(&c_b, 1)[0],
            c_t,
            "prepare_tumble {i}"
        );
        assert_eq!(gpu.read::<u32>(&args_b, 3), args_t, "prepare_tumble {i}");
        assert_eq!((c_t.n_fresh, c_t.fresh_in), (0, c0.n_fresh));
        assert_eq!(c_t.frozen == 1, overflow & 16 != 0, "prepare_tumble {i}");
    }
}

/// wgpu's validation of indirect dispatches is off (`gpu::context`): every size the
/// hand-over and `prepare_tumble` write must be within the device's limit whatever the
/// counters hold. The counts here run to `u32::MAX` (far beyond any capacity): each of x,
/// y, z stays within `MAX_INDIRECT_GROUPS` and the device's
/// `max_compute_workgroups_per_dimension`, on the device as in the twins, and never 0.
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
        let (got, want) = hand_over(&mut gpu, c0, 1);
        assert_eq!(got, want, "n = {n}: the twin");
        let (c_b, args_b) = (gpu.buf(&[c0]), gpu.buf(&[0u32; 3]));
        gpu.run(
            &kernels::PREPARE_TUMBLE,
            9,
            &[("counters", &c_b), ("args", &args_b)],
            1,
        );
        let (mut c, mut fresh) = (c0, [0u32; 3]);
        front_prepare::prepare_tumble(&mut c, &mut fresh);
        assert_eq!(gpu.read::<u32>(&args_b, 3), fresh, "n = {n}: the twin");
        for (name, args) in [("next_args", got.1), ("tri_args", got.2), ("fresh", fresh)] {
            for (k, &v) in args.iter().enumerate() {
                assert!(v <= MAX_INDIRECT_GROUPS, "n = {n}: {name}[{k}] = {v}");
            }
            assert!(args[0] >= 1, "n = {n}: {name}: at least one workgroup");
            // Every count below the wrap dispatches enough groups for its invocations.
            if n <= u32::MAX - WORKGROUP_SIZE {
                let groups = args[0] as u64 * args[1] as u64;
                assert!(
                    groups * WORKGROUP_SIZE as u64 >= n as u64,
                    "n = {n}: {name}"
                );
                assert_eq!(args[2], 1);
            }
        }
    }
}
