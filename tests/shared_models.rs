//! The real models of `../shared/meshes/`: every file loads, and queries on them equal the
//! f64 brute force (small models) or the reference of other k-DOPs, split rules and the
//! exact tumbling method (models too large for brute force at every pose).

mod common;

use meshcollide::pose::tumbling_poses;
use meshcollide::*;
use std::path::Path;

fn load(dir: &Path, name: &str) -> Mesh {
    mesh::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Poses of B about its own bounding-box centre, shifted along x by fractions of its size:
/// deep overlap, close contact, and (nearly) apart.
fn poses(m: &Mesh, steps: usize) -> Vec<Pose> {
    common::shifted_tumbling(m, steps, &[0.0, 0.3, 0.7, 1.0])
}

fn check_equal(label: &str, got: &[Contacts], want: &[Vec<(u32, u32)>]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if &g.pairs != w {
            let missed: Vec<_> = w.iter().filter(|x| !g.pairs.contains(x)).take(10).collect();
            let extra: Vec<_> = g.pairs.iter().filter(|x| !w.contains(x)).take(10).collect();
            panic!("{label} pose {i}: missed {missed:?} extra {extra:?}");
        }
    }
}

#[test]
fn every_shared_model_loads() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for (name, tris) in [
        ("armadillo.obj", 29170),
        ("beetle.obj", 2053),
        ("cycloidal.ply", 43368),
        ("fandisk.obj", 12946),
        ("featuretype.stl", 3476),
        ("gearwheel.stl", 2444),
        ("horse.ply", 96966),
        ("rocker-arm.obj", 20088),
        ("soup.stl", 100),
        ("spot.obj", 5856),
        ("stanford-bunny.obj", 69451),
    ] {
        assert_eq!(load(&dir, name).triangle_count(), tris, "{name}");
    }
}

#[test]
fn small_models_equal_brute_force() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for name in [
        "soup.stl",
        "beetle.obj",
        "gearwheel.stl",
        "featuretype.stl",
        "spot.obj",
    ] {
        let m = load(&dir, name);
        let ps = poses(&m, 2);
        let truth: Vec<_> = ps.iter().map(|p| brute_force(&m, &m, p)).collect();
        let contacts: usize = truth.iter().map(Vec::len).sum();
        assert!(contacts > 0, "{name}: the poses must produce contacts");
        for bv in BvKind::ALL {
            let o = BuildOptions::default();
            let c = Collider::builder(&m, &m)
                .bv(bv)
                .build_options_a(o)
                .build_options_b(BuildOptions { leaf_size: 3, ..o })
                .build()
                .unwrap();
            for tumble in [TumbleMethod::Approximate, TumbleMethod::Exact] {
                let all = c.collide_batch_with(
                    &ps,
                    &QueryOptions {
                        mode: Mode::All,
                        tumble,
                        ..Default::default()
                    },
                    None,
                );
                check_equal(&format!("{name} {bv:?} {tumble:?}"), &all, &truth);
                let first = c.collide_batch_with(
                    &ps,
                    &QueryOptions {
                        mode: Mode::First,
                        tumble,
                        ..Default::default()
                    },
                    None,
                );
                for (f, t) in first.iter().zip(&truth) {
                    assert_eq!(f.pairs.is_empty(), t.is_empty(), "{name} first mode");
                    assert!(
                        f.pairs.iter().all(|x| t.contains(x)),
                        "{name} first mode pair"
                    );
                }
            }
        }
        eprintln!(
            "{name}: {} poses, {contacts} pairs equal brute force",
            ps.len()
        );
    }
}

/// Larger models: the pair sets of independent configurations (a different k, split rule,
/// split point, leaf size and tumbling method each) must all agree, and spot checks at
/// the close-contact poses equal brute force on a sample of pairs of the reference.
#[test]
fn large_models_agree_across_configurations() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    let configs = [
        (
            BvKind::Kdop18,
            SplitRule::Splatter,
            SplitPoint::Mean,
            1,
            TumbleMethod::Approximate,
        ),
        (
            BvKind::Kdop6,
            SplitRule::LongestSide,
            SplitPoint::Median,
            4,
            TumbleMethod::Exact,
        ),
        (
            BvKind::Kdop26,
            SplitRule::Splatter,
            SplitPoint::Median,
            2,
            TumbleMethod::Approximate,
        ),
        (
            BvKind::Kdop14,
            SplitRule::LongestSide,
            SplitPoint::Mean,
            8,
            TumbleMethod::Approximate,
        ),
    ];
    for name in [
        "fandisk.obj",
        "rocker-arm.obj",
        "armadillo.obj",
        "cycloidal.ply",
        "stanford-bunny.obj",
        "horse.ply",
    ] {
        let m = load(&dir, name);
        let ps = poses(&m, 3);
        let mut reference: Option<Vec<Vec<(u32, u32)>>> = None;
        for (bv, rule, point, leaf_size, tumble) in configs {
            let o = BuildOptions {
                rule,
                point,
                leaf_size,
            };
            let c = Collider::builder(&m, &m)
                .bv(bv)
                .build_options(o)
                .build()
                .unwrap();
            let r = c.collide_batch_with(
                &ps,
                &QueryOptions {
                    mode: Mode::All,
                    tumble,
                    ..Default::default()
                },
                None,
            );
            match &reference {
                None => reference = Some(r.into_iter().map(|x| x.pairs).collect()),
                Some(want) => check_equal(&format!("{name} {bv:?} {rule:?} {point:?}"), &r, want),
            }
        }
        let want = reference.unwrap();
        let total: usize = want.iter().map(Vec::len).sum();
        assert!(total > 0, "{name}: no contacts at any pose");
        eprintln!(
            "{name}: {} poses, {total} pairs, 4 configurations agree",
            ps.len()
        );
    }
}

#[test]
fn dragon_loads_and_kdop6_agrees_with_kdop18() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    let m = load(&dir, "dragon-vrip.ply.gz");
    assert_eq!(m.triangle_count(), 871_414);
    let (lo, hi) = m.bounds();
    let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
    let ps = tumbling_poses(2, c, [0.05, 0.0, 0.0]);
    let o = BuildOptions {
        leaf_size: 4,
        ..Default::default()
    };
    let a = Collider::builder(&m, &m)
        .bv(BvKind::Kdop18)
        .build_options(o)
        .build()
        .unwrap()
        .collide_batch_with(&ps, &QueryOptions::default(), None);
    let b = Collider::builder(&m, &m)
        .bv(BvKind::Kdop6)
        .build_options_a(o)
        .build_options_b(BuildOptions { leaf_size: 16, ..o })
        .build()
        .unwrap()
        .collide_batch_with(&ps, &QueryOptions::default(), None);
    let want: Vec<_> = a.into_iter().map(|r| r.pairs).collect();
    assert!(want.iter().any(|p| !p.is_empty()));
    check_equal("dragon", &b, &want);
}

/// Without the shared models the tests above pass by skipping: the binary then says so in
/// one line on stderr as it exits (which cargo shows, unlike a passing test's output), and
/// with `MESHCOLLIDE_REQUIRE_SHARED=1` they fail. Runs one of them again in a child that
/// looks for the models in a folder that does not exist.
#[test]
fn missing_shared_models_are_summed_up_or_fail_when_required() {
    let absent = std::env::temp_dir().join(format!("meshcollide-no-shared-{}", std::process::id()));
    common::skips::rerun_without(
        "every_shared_model_loads",
        ("MESHCOLLIDE_SHARED_MESHES", absent.as_os_str()),
        "MESHCOLLIDE_REQUIRE_SHARED",
        "SKIPPED in shared_models: 1 test without the shared models (../shared/meshes absent; \
         MESHCOLLIDE_REQUIRE_SHARED=1 fails instead); they report ok (--nocapture shows each \
         SKIP line)",
    );
}

/// The summary's wording: one clause per reason, counted; nothing when nothing skipped.
#[test]
fn skip_summary_counts_each_reason() {
    use std::collections::{BTreeMap, BTreeSet};
    let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    assert_eq!(common::skips::summary_line("x", &m), None);
    m.entry("without a".into())
        .or_default()
        .extend(["t1".into(), "t2".into()]);
    m.entry("without b".into()).or_default().insert("t1".into());
    assert_eq!(
        common::skips::summary_line("x", &m).unwrap(),
        "SKIPPED in x: 2 tests without a, 1 test without b; they report ok (--nocapture shows \
         each SKIP line)"
    );
}
