//! Deforming meshes (`meshcollide::deform`): per frame, the pairs of every update method
//! (Refit, Hybrid, Rebuild) equal the f64 brute force over all triangle pairs on that
//! frame's positions (B's moved by `Pose::apply`), with and without poses; the hierarchies
//! validate after the updates; far from the origin; a shared model deformed by a smooth
//! field against a grid-limited brute force; with coherence across frames as without.

use meshcollide::deform::{DeformOptions, DeformingCollider, UpdateMethod};
use meshcollide::mesh::generate;
use meshcollide::{BuildOptions, BvKind, KdopOptions, Mesh, Pose, QueryOptions, brute_force};

mod common;

use common::{Scene, deforming_scenes as scenes};

const FRAMES: usize = 6;

/// The pairs as sorted sets; each missed or extra pair printed.
fn assert_same_pairs(expect: &[(u32, u32)], got: &[(u32, u32)], what: &str) {
    if expect == got {
        return;
    }
    let missed: Vec<_> = expect.iter().filter(|p| !got.contains(p)).collect();
    let extra: Vec<_> = got.iter().filter(|p| !expect.contains(p)).collect();
    panic!("{what}: missed {missed:?}, extra {extra:?}");
}

fn methods() -> [DeformOptions; 4] {
    [
        DeformOptions {
            method: UpdateMethod::Refit,
            rebuild_ratio: None,
        },
        DeformOptions {
            method: UpdateMethod::Hybrid,
            rebuild_ratio: None,
        },
        DeformOptions {
            method: UpdateMethod::Rebuild,
            rebuild_ratio: None,
        },
        // The trigger on a hair: it rebuilds nearly every frame, through both paths.
        DeformOptions {
            method: UpdateMethod::Hybrid,
            rebuild_ratio: Some(1.0),
        },
    ]
}

/// Runs every method over the frames of `scene` (A and B both deforming, or only one),
/// comparing each frame with brute force; returns the number of frames in contact.
fn check_scene(name: &str, scene: &Scene, poses: Option<&[Pose]>, bv: BvKind) -> usize {
    let (a0, b0) = scene(0.0);
    let frames: Vec<(Mesh, Mesh)> = (0..FRAMES)
        .map(|i| scene(i as f64 / (FRAMES - 1) as f64))
        .collect();
    let pose_of = |i: usize| poses.map_or(Pose::IDENTITY, |p| p[i]);
    let oracle: Vec<Vec<(u32, u32)>> = frames
        .iter()
        .enumerate()
        .map(|(i, (a, b))| brute_force(a, b, &pose_of(i)))
        .collect();
    // Coherence across frames (each frame from the previous frame's front) too.
    let kdops = [false, true].map(|coherence| KdopOptions {
        coherence,
        ..Default::default()
    });
    for (m, opts) in methods().into_iter().enumerate() {
        for (which, kdop) in (0..3).flat_map(|w| kdops.map(|k| (w, k))) {
            // 0: both deform; 1: only A; 2: only B.
            let build = [BuildOptions::default(), BuildOptions::default()];
            let mut c = DeformingCollider::new(&a0, &b0, bv, build, kdop, opts).unwrap();
            for (i, (a, b)) in frames.iter().enumerate() {
                let fa = (which != 2).then_some(a.positions.as_slice());
                let fb = (which != 1).then_some(b.positions.as_slice());
                let r = c
                    .query_frame(fa, fb, &pose_of(i), &QueryOptions::default())
                    .unwrap();
                let expect = if which == 0 {
                    oracle[i].clone()
                } else {
                    let a = if which == 2 { &a0 } else { a };
                    let b = if which == 1 { &b0 } else { b };
                    brute_force(a, b, &pose_of(i))
                };
                assert_same_pairs(
                    &expect,
                    &r.pairs,
                    &format!(
                        "{name}, {bv:?}, method {m} {opts:?}, deforming {which}, frame {i}, {kdop:?}"
                    ),
                );
            }
            c.validate()
                .unwrap_or_else(|e| panic!("{name}, method {m}: {e}"));
        }
    }
    oracle.iter().filter(|p| !p.is_empty()).count()
}

#[test]
fn generated_scenes_equal_brute_force_per_frame() {
    for (name, scene) in scenes() {
        let contact = check_scene(name, &scene, None, BvKind::Kdop18);
        assert!(contact >= 2, "{name}: only {contact} frames in contact");
        let poses = common::small_poses(7, FRAMES);
        check_scene(name, &scene, Some(&poses), BvKind::Kdop18);
    }
}

#[test]
fn every_kdop_follows_frames() {
    let (name, scene) = scenes().remove(3);
    for bv in [BvKind::Kdop6, BvKind::Kdop14, BvKind::Kdop26] {
        check_scene(name, &scene, None, bv);
    }
}

#[test]
fn far_from_the_origin() {
    let off = [1e6, -1e6, 5e5];
    let scene: Scene = Box::new(move |t| {
        (
            generate::breathing_torus(off, 1.0, 0.25, 24, 10, t),
            generate::folding_sheet([off[0] + 1.0, off[1], off[2] + 0.01], 10, 1.5, t),
        )
    });
    let contact = check_scene("far tori and sheet", &scene, None, BvKind::Kdop18);
    assert!(contact >= 2);
    // Poses far from the identity's translation too: B moved by -off then back.
    let poses: Vec<Pose> = common::small_poses(3, FRAMES);
    check_scene("far, posed", &scene, Some(&poses), BvKind::Kdop18);
}

#[test]
fn wrong_frames_are_typed_errors_and_change_nothing() {
    let a = generate::torus([0.0; 3], 1.0, 0.3, 12, 6);
    let b = generate::torus([1.0, 0.0, 0.0], 1.0, 0.3, 12, 6);
    let mut c = DeformingCollider::new(
        &a,
        &b,
        BvKind::Kdop18,
        Default::default(),
        Default::default(),
        Default::default(),
    )
    .unwrap();
    let q = QueryOptions::default();
    let short = &a.positions[1..];
    let e = c
        .query_frame(Some(short), None, &Pose::IDENTITY, &q)
        .unwrap_err();
    assert!(
        matches!(
            e,
            meshcollide::Error::Frame(meshcollide::FrameError::Positions {
                mesh: "A",
                expected: 72,
                found: 71
            })
        ),
        "{e}"
    );
    let mut nan = b.positions.clone();
    nan[3][1] = f64::NAN;
    let e = c
        .query_frame(None, Some(&nan), &Pose::IDENTITY, &q)
        .unwrap_err();
    assert!(e.to_string().contains("vertex 3"), "{e}");
    let r = c.query_frame(None, None, &Pose::IDENTITY, &q).unwrap();
    assert_eq!(r.pairs, brute_force(&a, &b, &Pose::IDENTITY));
    for bv in [BvKind::Obb, BvKind::Dual18, BvKind::Boxtree] {
        let e = DeformingCollider::new(
            &a,
            &b,
            bv,
            Default::default(),
            Default::default(),
            Default::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("kdop18"), "{e}");
    }
}

/// A fast oracle: every pair of triangles whose f64 bounding boxes overlap (exact: min and
/// max do not round, and intersecting triangles have overlapping boxes), found through a
/// uniform grid of B's boxes, decided by the exact test on the same f64 corners as the brute
/// force (B's moved by `Pose::apply`).
fn grid_oracle(a: &Mesh, b: &Mesh, pose: &Pose) -> Vec<(u32, u32)> {
    use std::collections::HashMap;
    let tb: Vec<[[f64; 3]; 3]> = (0..b.triangle_count())
        .map(|j| b.triangle(j).map(|p| pose.apply(p)))
        .collect();
    let bbox = |t: &[[f64; 3]; 3]| {
        let lo: [f64; 3] = std::array::from_fn(|k| t[0][k].min(t[1][k]).min(t[2][k]));
        let hi: [f64; 3] = std::array::from_fn(|k| t[0][k].max(t[1][k]).max(t[2][k]));
        (lo, hi)
    };
    let boxes: Vec<_> = tb.iter().map(bbox).collect();
    let ext: f64 = boxes
        .iter()
        .map(|(lo, hi)| (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max))
        .sum::<f64>()
        / boxes.len() as f64;
    let cell = 2.0 * ext.max(1e-9);
    let key = |x: f64| (x / cell).floor() as i64;
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    for (j, (lo, hi)) in boxes.iter().enumerate() {
        for x in key(lo[0])..=key(hi[0]) {
            for y in key(lo[1])..=key(hi[1]) {
                for z in key(lo[2])..=key(hi[2]) {
                    grid.entry([x, y, z]).or_default().push(j as u32);
                }
            }
        }
    }
    let mut pairs = Vec::new();
    let mut cand = Vec::new();
    for i in 0..a.triangle_count() {
        let ta = a.triangle(i);
        let (lo, hi) = bbox(&ta);
        cand.clear();
        for x in key(lo[0])..=key(hi[0]) {
            for y in key(lo[1])..=key(hi[1]) {
                for z in key(lo[2])..=key(hi[2]) {
                    if let Some(v) = grid.get(&[x, y, z]) {
                        cand.extend_from_slice(v);
                    }
                }
            }
        }
        cand.sort_unstable();
        cand.dedup();
        for &j in &cand {
            let (blo, bhi) = boxes[j as usize];
            if (0..3).all(|k| lo[k] <= bhi[k] && blo[k] <= hi[k])
                && meshcollide::tri::tri_tri_intersect(&ta, &tb[j as usize])
            {
                pairs.push((i as u32, j));
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

#[test]
fn grid_oracle_equals_brute_force() {
    let (name, scene) = scenes().remove(0);
    let (a, b) = scene(0.6);
    let p = common::small_poses(1, 1)[0];
    assert_eq!(grid_oracle(&a, &b, &p), brute_force(&a, &b, &p), "{name}");
}

#[test]
fn deformed_shared_model_equals_the_grid_oracle() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    let base = meshcollide::mesh::load(&dir.join("spot.obj")).unwrap();
    let (lo, hi) = base.bounds();
    let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
    let frame = |t: f64| base.map_positions(|p| generate::smooth_field(p, size, 0.03, t));
    // B: the same model shifted by 30% of its size, tumbling a little.
    let poses: Vec<Pose> = (0..4)
        .map(|i| {
            let a = 0.1 * i as f64;
            Pose::new([1.0, a, 0.5 * a, 0.0], [0.3 * size, 0.02 * size, 0.0])
        })
        .collect();
    for method in [UpdateMethod::Refit, UpdateMethod::Hybrid] {
        let opts = DeformOptions {
            method,
            rebuild_ratio: None,
        };
        let build = [BuildOptions::default(); 2];
        let mut c = DeformingCollider::new(
            &base,
            &base,
            BvKind::Kdop18,
            build,
            KdopOptions::default(),
            opts,
        )
        .unwrap();
        let mut contact = 0;
        for (i, pose) in poses.iter().enumerate() {
            let (fa, fb) = (frame(i as f64), frame(i as f64 + 0.5));
            let r = c
                .query_frame(
                    Some(&fa.positions),
                    Some(&fb.positions),
                    pose,
                    &QueryOptions::default(),
                )
                .unwrap();
            let want = grid_oracle(&fa, &fb, pose);
            contact += !want.is_empty() as usize;
            assert_same_pairs(&want, &r.pairs, &format!("spot.obj, {method:?}, frame {i}"));
        }
        assert!(contact >= 2, "{contact}");
        c.validate().unwrap();
    }
}

#[test]
fn first_mode_reports_a_true_contact_per_frame() {
    let (name, scene) = scenes().remove(2);
    let (a0, b0) = scene(0.0);
    for method in [
        UpdateMethod::Refit,
        UpdateMethod::Hybrid,
        UpdateMethod::Rebuild,
    ] {
        let opts = DeformOptions {
            method,
            rebuild_ratio: None,
        };
        let build = [BuildOptions::default(); 2];
        let mut c = DeformingCollider::new(
            &a0,
            &b0,
            BvKind::Kdop18,
            build,
            KdopOptions::default(),
            opts,
        )
        .unwrap();
        let q = QueryOptions {
            mode: meshcollide::Mode::First,
            ..Default::default()
        };
        for i in 0..FRAMES {
            let (a, b) = scene(i as f64 / (FRAMES - 1) as f64);
            let r = c
                .query_frame(Some(&a.positions), Some(&b.positions), &Pose::IDENTITY, &q)
                .unwrap();
            let all = brute_force(&a, &b, &Pose::IDENTITY);
            assert_eq!(
                r.pairs.len(),
                usize::from(!all.is_empty()),
                "{name} frame {i}"
            );
            assert!(r.pairs.iter().all(|p| all.contains(p)), "{name} frame {i}");
        }
    }
}

/// Coherence across frames saves node tests on a smooth sequence (every scene in 40 small
/// steps; runs of 16 frames), with the same pairs as from the roots, for each update
/// method (a rebuild starts again at the roots).
#[test]
fn coherent_frames_test_fewer_node_pairs() {
    for (name, scene) in scenes() {
        let n = 40;
        let frames: Vec<(Mesh, Mesh)> = (0..n).map(|i| scene(i as f64 / (n - 1) as f64)).collect();
        let (a0, b0) = scene(0.0);
        for opts in methods() {
            let mut nv = [0u64; 2];
            let mut pairs = [Vec::new(), Vec::new()];
            for (k, coherence) in [false, true].into_iter().enumerate() {
                let kdop = KdopOptions {
                    coherence,
                    ..Default::default()
                };
                let build = [BuildOptions::default(); 2];
                let mut c =
                    DeformingCollider::new(&a0, &b0, BvKind::Kdop18, build, kdop, opts).unwrap();
                for (a, b) in &frames {
                    let r = c
                        .query_frame(
                            Some(&a.positions),
                            Some(&b.positions),
                            &Pose::IDENTITY,
                            &QueryOptions::default(),
                        )
                        .unwrap();
                    nv[k] += r.counters.bv_tests;
                    pairs[k].push(r.pairs);
                }
            }
            assert_eq!(pairs[0], pairs[1], "{name} {opts:?}");
            if opts.method != UpdateMethod::Rebuild && opts.rebuild_ratio.is_none() {
                assert!(nv[1] < nv[0], "{name} {opts:?}: {nv:?}");
            }
        }
    }
}
