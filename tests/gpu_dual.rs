//! The dual k-DOP–sphere hierarchy on the GPU (`expand_dual` in `shaders/front_expand.wgsl`)
//! against its CPU reference (`dual::collide_pose`): in all-contacts mode the same pairs, the
//! same Nv and Np, and the same decisions of each sub-test (sphere rejects, slab rejects,
//! slab tests) at every pose, for every k, both slab orders, symmetric k-DOPs on and off,
//! both tumbling methods; in first-contact mode a true contact exactly where the reference
//! has one. The reference itself equals f64 brute force (`tests/dual.rs`); here the pairs
//! are also checked against brute force directly on the small scenes.

mod common;

use common::Case;

use meshcollide::dual::{DualOptions, DualScene, SlabOrder};
use meshcollide::gpu::GpuContext;
use meshcollide::gpu::collide::{Capacities, GpuScene};
use meshcollide::mesh::generate;
use meshcollide::pose::tumbling_poses;
use meshcollide::rng::Rng;
use meshcollide::*;

const OPTIONS: [DualOptions; 3] = [
    DualOptions {
        symmetric: false,
        order: SlabOrder::PerPair,
    },
    DualOptions {
        symmetric: true,
        order: SlabOrder::PerPair,
    },
    DualOptions {
        symmetric: false,
        order: SlabOrder::Fixed,
    },
];

/// Compares one scene for one k and one set of dual options; returns the contacts found and
/// the sphere rejects (so callers can require that the pretest did decide something).
fn compare<const H: usize>(
    ctx: &GpuContext,
    c: &Case,
    options: DualOptions,
    caps: Option<Capacities>,
) -> (usize, u64) {
    let o = BuildOptions {
        leaf_size: c.leaf,
        ..Default::default()
    };
    let scene = DualScene::<H>::build(c.a, c.b, &o, &o, &options);
    let mut gpu = GpuScene::new(ctx, &scene).unwrap();
    if let Some(caps) = caps {
        gpu.capacities = caps;
    }
    let (mut total, mut sphere_rejects) = (0, 0);
    let runs = [
        (Mode::All, TumbleMethod::Approximate),
        (Mode::All, TumbleMethod::Exact),
        (Mode::First, TumbleMethod::Approximate),
    ];
    for (mode, tumble) in runs {
        let label = format!("{} H={H} {options:?} {mode:?} {tumble:?}", c.label);
        let opts = QueryOptions {
            mode,
            tumble,
            ..Default::default()
        };
        let cpu = meshcollide::scene::collide_batch(&scene, c.poses, &opts, None);
        let (got, stats) = gpu
            .collide_batch(ctx, &scene, c.poses, mode, tumble, None)
            .unwrap();
        assert_eq!(got.len(), cpu.len());
        for (i, (g, r)) in got.iter().zip(&cpu).enumerate() {
            if mode == Mode::First {
                assert_eq!(g.pairs.is_empty(), r.pairs.is_empty(), "{label} pose {i}");
                assert!(g.pairs.len() <= 1);
                if let Some(p) = g.pairs.first() {
                    let truth = brute_force(c.a, c.b, &c.poses[i]);
                    assert!(truth.contains(p), "{label} pose {i}: {p:?} is no contact");
                }
                continue;
            }
            assert_eq!(g.pairs, r.pairs, "{label} pose {i}: pairs");
            let (gc, rc) = (&g.counters, &r.counters);
            let what = [
                ("Nv", gc.bv_tests, rc.bv_tests),
                ("Np", gc.tri_tests, rc.tri_tests),
                (
                    "sphere rejects",
                    gc.sub.sphere_rejects,
                    rc.sub.sphere_rejects,
                ),
                ("slab rejects", gc.sub.slab_rejects, rc.sub.slab_rejects),
                ("slab tests", gc.sub.slab_tests, rc.sub.slab_tests),
            ];
            for (name, gv, rv) in what {
                assert_eq!(gv, rv, "{label} pose {i}: {name}");
            }
            if c.brute {
                assert_eq!(
                    g.pairs,
                    brute_force(c.a, c.b, &c.poses[i]),
                    "{label} pose {i}: brute force"
                );
            }
            total += r.pairs.len();
            sphere_rejects += rc.sub.sphere_rejects;
        }
        // Capacities grow and stay grown: only the first run starts from the tiny ones.
        if caps.is_some() && (mode, tumble) == runs[0] {
            assert!(stats.resumes > 0, "{label}: tiny capacities must resume");
            assert_eq!(stats.reruns, 0, "{label}: no whole-batch re-run");
        }
    }
    (total, sphere_rejects)
}

fn every_k_and_option(ctx: &GpuContext, c: &Case) {
    let (mut pairs, mut rejects) = (0, 0);
    for options in OPTIONS {
        for (n, r) in [
            compare::<3>(ctx, c, options, None),
            compare::<7>(ctx, c, options, None),
            compare::<9>(ctx, c, options, None),
            compare::<13>(ctx, c, options, None),
        ] {
            pairs += n;
            rejects += r;
        }
    }
    assert!(pairs > 0, "{}: the scene must have contacts", c.label);
    assert!(rejects > 0, "{}: the sphere test must reject", c.label);
}

#[test]
fn interlocked_tori_and_nested_spheres_match_the_cpu_dual() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let poses = tumbling_poses(12, [0.0; 3], [1.0, 0.0, 0.0]);
    let case = |leaf, label| Case {
        a: &a,
        b: &b,
        poses: &poses,
        leaf,
        label,
        brute: true,
    };
    every_k_and_option(&ctx, &case(1, "tori"));
    every_k_and_option(&ctx, &case(4, "tori leaf 4"));
    let outer = generate::uv_sphere([0.0; 3], 1.0, 10, 20);
    let inner = generate::uv_sphere([0.0; 3], 0.93, 10, 20);
    let poses = tumbling_poses(8, [0.0; 3], [0.06, 0.0, 0.0]);
    every_k_and_option(
        &ctx,
        &Case {
            a: &outer,
            b: &inner,
            poses: &poses,
            leaf: 1,
            label: "nested spheres",
            brute: true,
        },
    );
}

/// Integer grid soups under quarter and half turns: touching, coplanar and degenerate
/// contacts, where a sphere test that rounds the wrong way would lose a pair.
#[test]
fn touching_grid_soups_match_brute_force() {
    let Some(ctx) = common::gpu() else { return };
    let mut rng = Rng::new(21);
    let grid = |rng: &mut Rng| common::grid_soup(rng, 50);
    let (a, b) = (grid(&mut rng), grid(&mut rng));
    let poses = common::quarter_turns(&mut rng, 12);
    every_k_and_option(
        &ctx,
        &Case {
            a: &a,
            b: &b,
            poses: &poses,
            leaf: 1,
            label: "grid soup",
            brute: true,
        },
    );
}

#[test]
fn tiny_capacities_give_the_same_dual_results() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(10);
    let poses = tumbling_poses(10, [0.0; 3], [1.0, 0.0, 0.0]);
    let tiny = common::TINY_CAPACITIES;
    let case = Case {
        a: &a,
        b: &b,
        poses: &poses,
        leaf: 1,
        label: "tiny capacities",
        brute: false,
    };
    let (n, _) = compare::<9>(&ctx, &case, OPTIONS[0], Some(tiny));
    assert!(n > 0);
}

#[test]
fn shared_models_match_the_cpu_dual() {
    let Some(ctx) = common::gpu() else { return };
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in ["beetle.obj", "spot.obj"] {
        let m = mesh::load(&dir.join(name)).unwrap();
        let (lo, hi) = m.bounds();
        let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
        let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        let mut poses = tumbling_poses(3, c, [0.3 * size, 0.0, 0.0]);
        poses.extend(tumbling_poses(3, c, [0.8 * size, 0.02 * size, 0.0]));
        let case = Case {
            a: &m,
            b: &m,
            poses: &poses,
            leaf: 1,
            label: name,
            brute: false,
        };
        let (n, rejects) = compare::<9>(&ctx, &case, OPTIONS[0], None);
        assert!(n > 0 && rejects > 0, "{name}");
        compare::<3>(&ctx, &case, OPTIONS[1], None);
    }
}
