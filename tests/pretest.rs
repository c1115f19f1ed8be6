//! The pose-level pretest (B's posed box against A's box, `meshcollide::kdop::pretest`): it
//! never rejects a pose with a contact (f64 brute force is the oracle), at the touching
//! edge near the origin and far from it; it does reject clear misses; and with it on, the
//! k-DOP scene's pairs are those without it, Nv one more per pose it did not reject, and
//! the GPU (which runs it on the host) gives the same pairs and counters as the CPU.

mod common;

#[cfg(feature = "gpu")]
use meshcollide::gpu::collide::GpuScene;
use meshcollide::kdop::KdopScene;
use meshcollide::kdop::pretest::BoxPretest;
use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::scene::brute_force;
use meshcollide::*;

fn scene(a: &Mesh, b: &Mesh, pretest: bool) -> KdopScene<9> {
    let o = BuildOptions::default();
    KdopScene::build(
        a,
        b,
        &o,
        &o,
        KdopOptions {
            pretest,
            ..Default::default()
        },
    )
}

/// B is a sliver from (−1, 0, 0) to (1, 0, 0) (box half-extent 1 along x), so at
/// translation `(x, ½, ½) + o` its left end lies on A's face `x = o + 1` when `x = 2`: the
/// posed box touches A's box exactly where B touches A.
fn touching_edge(o: f64) {
    let a = generate::box_mesh([o, o, o], [o + 1.0, o + 1.0, o + 1.0]);
    let b = Mesh::new(
        vec![[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1e-3, 0.0]],
        vec![[0, 1, 2]],
    )
    .unwrap();
    let s = scene(&a, &b, true);
    let t = s.pretest().expect("two non-empty meshes");
    let mut x = 2.0 + o;
    // From the touching translation outwards, ulp by ulp, then in growing steps.
    let mut rejected = 0;
    for step in 0..200 {
        let pose = Pose::new([1.0, 0.0, 0.0, 0.0], [x, o + 0.5, o + 0.5]);
        let truth = brute_force(&a, &b, &pose);
        if step == 0 {
            assert!(!truth.is_empty(), "o = {o}: B touches A at x = 2");
        }
        if t.separated(&pose) {
            assert!(truth.is_empty(), "o = {o}, x = {x}: rejected a contact");
            rejected += 1;
        }
        x = if step < 100 {
            x.next_up()
        } else {
            x + (x - 2.0 - o).max(f64::EPSILON * x.abs()) * 2.0
        };
    }
    assert!(rejected > 0, "o = {o}: a clear miss must be rejected");
}

#[test]
fn never_rejects_the_touching_pose_near_or_far_from_the_origin() {
    for o in [0.0, 1e6, -3.75e9, 1e15] {
        touching_edge(o);
    }
}

/// Random soups and random poses, some near, some far: a rejected pose has no contact.
#[test]
fn rejected_poses_have_no_contact() {
    let mut rng = Rng::new(31);
    let mut rejected = 0;
    let mut contacts = 0;
    for case in 0..40 {
        let a = generate::random_soup(case, 60, 1.0, 0.4);
        let b = generate::random_soup(case + 1000, 40, 0.6, 0.4);
        let s = scene(&a, &b, true);
        let t = *s.pretest().unwrap();
        for _ in 0..40 {
            let q = [
                rng.f64() - 0.5,
                rng.f64() - 0.5,
                rng.f64() - 0.5,
                rng.f64() - 0.5,
            ];
            let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
            let d = 3.0 * rng.f64();
            let tr = [
                d * (rng.f64() - 0.5),
                d * (rng.f64() - 0.5),
                d * (rng.f64() - 0.5),
            ];
            let pose = Pose::new(q.map(|x| x / n), tr);
            let truth = brute_force(&a, &b, &pose);
            contacts += !truth.is_empty() as usize;
            if t.separated(&pose) {
                rejected += 1;
                assert!(
                    truth.is_empty(),
                    "case {case}: rejected a contact at {pose:?}"
                );
            }
        }
    }
    assert!(rejected > 100 && contacts > 100, "{rejected} {contacts}");
}

fn mixed_poses() -> Vec<Pose> {
    // Interlocked tori turning, and every third pose moved far away along a changing axis.
    meshcollide::pose::tumbling_poses(30, [0.0; 3], [1.0, 0.0, 0.0])
        .into_iter()
        .enumerate()
        .map(|(i, mut p)| {
            if i % 3 == 1 {
                p.t[i % 3] += 5.0 * if i % 2 == 0 { 1.0 } else { -1.0 };
            }
            p
        })
        .collect()
}

#[test]
fn same_pairs_with_and_without_it_and_one_more_test_per_pose_run() {
    let (a, b) = common::tori(12);
    let poses = mixed_poses();
    let on = scene(&a, &b, true);
    let off = scene(&a, &b, false);
    let q = QueryOptions::default();
    let r_on = meshcollide::scene::collide_batch(&on, &poses, &q, None);
    let r_off = meshcollide::scene::collide_batch(&off, &poses, &q, None);
    let t: &BoxPretest = on.pretest().unwrap();
    let mut rejected = 0;
    for (i, ((x, y), p)) in r_on.iter().zip(&r_off).zip(&poses).enumerate() {
        assert_eq!(x.pairs, y.pairs, "pose {i}");
        if t.separated(p) {
            rejected += 1;
            assert_eq!(
                (
                    x.counters.bv_tests,
                    x.counters.bv_updates,
                    x.counters.tri_tests
                ),
                (1, 0, 0),
                "pose {i}"
            );
        } else {
            assert_eq!(x.counters.bv_tests, y.counters.bv_tests + 1, "pose {i}");
            assert_eq!(x.counters.bv_updates, y.counters.bv_updates, "pose {i}");
        }
    }
    assert!(rejected >= 10, "{rejected}");
    assert!(r_on.iter().any(|r| !r.pairs.is_empty()));
}

#[test]
#[cfg(feature = "gpu")]
fn gpu_runs_it_on_the_host_with_the_cpu_counters() {
    let Some(ctx) = common::gpu() else { return };
    let (a, b) = common::tori(12);
    let mut poses = mixed_poses();
    // A batch of misses only, then the mixed one.
    let far: Vec<Pose> = poses
        .iter()
        .map(|p| Pose {
            t: [p.t[0], 9.0, 0.0],
            ..*p
        })
        .collect();
    poses.extend(far.iter().copied());
    let s = scene(&a, &b, true);
    let mut gpu = GpuScene::new(&ctx, &s).unwrap();
    for poses in [&far[..], &poses[..]] {
        for mode in [Mode::All, Mode::First] {
            let q = QueryOptions {
                mode,
                ..Default::default()
            };
            let cpu = meshcollide::scene::collide_batch(&s, poses, &q, None);
            let (got, _) = gpu
                .collide_batch(&ctx, &s, poses, mode, q.tumble, None)
                .unwrap();
            let (mirror, _) = meshcollide::gpu::mirror::collide_batch_mirror(&s, poses, mode);
            for (i, ((g, c), m)) in got.iter().zip(&cpu).zip(&mirror).enumerate() {
                if mode == Mode::All {
                    assert_eq!(g.pairs, c.pairs, "pose {i}");
                    assert_eq!(g.counters, c.counters, "pose {i}");
                    assert_eq!(m.counters.bv_tests, c.counters.bv_tests, "pose {i}: mirror");
                } else {
                    assert_eq!(g.pairs.is_empty(), c.pairs.is_empty(), "pose {i}");
                }
            }
        }
    }
}
