//! The OBB tree and the sphere tree on the GPU (`expand_obb`, `expand_sphere` in
//! `shaders/front_expand.wgsl`, the node tests of `shaders/shared/obb.wgsl` and `shaders/shared/dual.wgsl`)
//! against their CPU reference (`obb::VolumeScene`, depth first): in all-contacts mode the
//! same pairs and the same Nv and Np at every pose (the same node tests: both sides run the
//! same flushed f32 arithmetic); in first-contact mode a true contact exactly where the
//! reference has one. The reference equals f64 brute force (`tests/volumes.rs`); the pairs are
//! checked against brute force here too on the small scenes. The CPU twins of the kernels
//! (`gpu::mirror`) give the same results.

mod common;

use common::Case;

use meshcollide::dual::Sphere as NodeSphere;
use meshcollide::gpu::GpuContext;
use meshcollide::gpu::collide::{Capacities, GpuPairScene, GpuScene, GpuVolume};
use meshcollide::gpu::mirror::collide_batch_mirror;
use meshcollide::mesh::generate;
use meshcollide::obb::{Obb32, VolumeScene};
use meshcollide::pose::tumbling_poses;
use meshcollide::rng::Rng;
use meshcollide::*;

/// Compares one scene for one volume; returns the contacts found.
fn compare<V: GpuVolume>(ctx: &GpuContext, c: &Case, caps: Option<Capacities>) -> usize
where
    VolumeScene<V>: GpuPairScene<3, Sub = meshcollide::scene::NoSub>,
{
    let o = BuildOptions {
        leaf_size: c.leaf,
        ..Default::default()
    };
    let scene = VolumeScene::<V>::build(c.a, c.b, &o, &o);
    let mut gpu = GpuScene::new(ctx, &scene).unwrap();
    if let Some(caps) = caps {
        gpu.capacities = caps;
    }
    let mut total = 0;
    // The tumbling method does not apply to the volume trees (nothing is tumbled).
    let runs = [
        (Mode::All, TumbleMethod::Approximate),
        (Mode::All, TumbleMethod::Exact),
        (Mode::First, TumbleMethod::Approximate),
    ];
    for (mode, tumble) in runs {
        let label = format!(
            "{} {} {mode:?} {tumble:?}",
            c.label,
            std::any::type_name::<V>()
        );
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
        if mode == Mode::All {
            // B's volumes posed once per (pose, node) the front reaches, in the batches'
            // work too.
            assert_eq!(
                stats.batches.iter().map(|b| b.nodes_tumbled).sum::<u64>(),
                cpu.iter().map(|r| r.counters.bv_updates).sum::<u64>(),
                "{label}: nodes posed"
            );
        }
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
            assert_eq!(gc.bv_tests, rc.bv_tests, "{label} pose {i}: Nv");
            assert_eq!(gc.tri_tests, rc.tri_tests, "{label} pose {i}: Np");
            // Both pose B's volume once per node and pose the descent reaches.
            assert_eq!(gc.bv_updates, rc.bv_updates, "{label} pose {i}: Nu");
            if c.brute {
                assert_eq!(
                    g.pairs,
                    brute_force(c.a, c.b, &c.poses[i]),
                    "{label} pose {i}: brute force"
                );
            }
            total += r.pairs.len();
        }
        if mode == Mode::All {
            // The kernels' CPU twins, dispatch by dispatch.
            let (mirror, _) = collide_batch_mirror(&scene, c.poses, mode);
            for (i, (m, r)) in mirror.iter().zip(&cpu).enumerate() {
                assert_eq!(m.pairs, r.pairs, "{label} pose {i}: mirror pairs");
                assert_eq!(
                    m.counters.bv_tests, r.counters.bv_tests,
                    "{label} pose {i}: mirror Nv"
                );
                assert_eq!(
                    m.counters.bv_updates, r.counters.bv_updates,
                    "{label} pose {i}: mirror Nu"
                );
            }
        }
        // The host tests the root pairs: a batch of L ≥ 2 levels that ran through records
        // L − 1 expansions and one triangle-test dispatch, a quarter of the 4 per level of
        // the pipeline before issue 39.
        for w in &stats.batches {
            if w.resumes == 0 && w.submissions == 1 && w.levels > 1 {
                assert_eq!(w.dispatches, w.levels, "{label}: {w:?}");
                assert_eq!(w.indirect_dispatches, w.levels, "{label}: {w:?}");
            }
        }
        // Capacities grow and stay grown: only the first run starts from the tiny ones.
        if caps.is_some() && (mode, tumble) == runs[0] {
            assert!(stats.resumes > 0, "{label}: tiny capacities must resume");
        }
    }
    total
}

fn both(ctx: &GpuContext, c: &Case) {
    let n = compare::<Obb32>(ctx, c, None) + compare::<NodeSphere>(ctx, c, None);
    assert!(n > 0, "{}: the scene must have contacts", c.label);
}

#[test]
fn interlocked_tori_and_nested_spheres_match_the_cpu() {
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
    both(&ctx, &case(1, "tori"));
    both(&ctx, &case(4, "tori leaf 4"));
    let outer = generate::uv_sphere([0.0; 3], 1.0, 10, 20);
    let inner = generate::uv_sphere([0.0; 3], 0.93, 10, 20);
    let poses = tumbling_poses(8, [0.0; 3], [0.06, 0.0, 0.0]);
    both(
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
/// contacts, where a volume test that rounds the wrong way would lose a pair.
#[test]
fn touching_grid_soups_match_brute_force() {
    let Some(ctx) = common::gpu() else { return };
    let mut rng = Rng::new(23);
    let grid = |rng: &mut Rng| common::grid_soup(rng, 50);
    let (a, b) = (grid(&mut rng), grid(&mut rng));
    let poses = common::quarter_turns(&mut rng, 12);
    both(
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

/// Far from the origin (10⁶ and 17-digit coordinates): random soups moved there, with
/// poses that bring B into contact; and a hand-made matrix that is not a rotation (nothing
/// may be culled, the exact test decides).
#[test]
fn far_from_the_origin_and_non_rotations_match_brute_force() {
    let Some(ctx) = common::gpu() else { return };
    let mut rng = Rng::new(5);
    for off in [1e6, 123_456_789.012_345_67] {
        let shift = |m: Mesh| m.map_positions(|p| [p[0] + off, p[1] - off, p[2] + 0.5 * off]);
        let a = shift(generate::random_soup(rng.next_u64(), 60, 1.0, 0.6));
        let b = shift(generate::random_soup(rng.next_u64(), 50, 1.0, 0.6));
        // B's copy about A's place: rotate about B's centre, land near A's centre.
        let c = [off, -off, 0.5 * off];
        let mut poses: Vec<Pose> = tumbling_poses(8, c, [0.3, 0.0, 0.0]);
        let mut bent = Pose::translation([0.2, 0.0, 0.0]);
        bent.r[0][0] = 1.0 + 1e-3;
        poses.push(bent);
        both(
            &ctx,
            &Case {
                a: &a,
                b: &b,
                poses: &poses,
                leaf: 1,
                label: &format!("soups at {off}"),
                brute: true,
            },
        );
    }
}

#[test]
fn tiny_capacities_and_paged_arrays_give_the_same_results() {
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
    assert!(compare::<Obb32>(&ctx, &case, Some(tiny)) > 0);
    assert!(compare::<NodeSphere>(&ctx, &case, Some(tiny)) > 0);
    // Every static array beyond a binding half the largest (the volume arrays): paged.
    // Grazing poses: one pose's front fits the small binding, the arrays do not.
    let (a, b) = common::tori(14);
    let poses = tumbling_poses(6, [0.0; 3], [2.2, 0.0, 0.0]);
    let o = BuildOptions::default();
    let scene = VolumeScene::<Obb32>::build(&a, &b, &o, &o);
    let full = GpuScene::new(&ctx, &scene).unwrap().pages();
    let largest = full.iter().map(|&(_, _, bytes)| bytes).max().unwrap();
    let ctx = ctx.with_binding_limit(largest / 2);
    let paged = GpuScene::new(&ctx, &scene).unwrap();
    assert!(paged.paged);
    let obbs = paged
        .pages()
        .into_iter()
        .find(|p| p.0 == "env_obbs")
        .unwrap();
    assert!(obbs.1 > 1, "env_obbs in {} page(s)", obbs.1);
    let case = Case {
        a: &a,
        b: &b,
        poses: &poses,
        leaf: 1,
        label: "paged",
        brute: true,
    };
    let n = compare::<Obb32>(&ctx, &case, None);
    assert_eq!(n, compare::<NodeSphere>(&ctx, &case, None));
    assert!(n > 0, "grazing tori must touch");
}

#[test]
fn shared_models_match_the_cpu() {
    let Some(ctx) = common::gpu() else { return };
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in ["beetle.obj", "spot.obj"] {
        let m = mesh::load(&dir.join(name)).unwrap();
        let poses = common::shifted_tumbling(&m, 3, &[0.3, 0.8]);
        let case = Case {
            a: &m,
            b: &m,
            poses: &poses,
            leaf: 1,
            label: name,
            brute: false,
        };
        both(&ctx, &case);
    }
}
