//! Saved hierarchies (`.mch`): a round trip gives the same pairs and counters as a fresh
//! build, on the CPU and the GPU; every kind of damage is a typed error naming the file.

mod common;

#[cfg(feature = "gpu")]
use meshcollide::QueryOptions;
use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::saved::{FORMAT_VERSION, SavedHierarchy};
use meshcollide::{
    BuildOptions, BvKind, Collider, Contacts, Mesh, Pose, SavedError, SplitPoint, SplitRule,
};
use std::path::Path;

fn poses(seed: u64, n: usize, spread: f64) -> Vec<Pose> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let t = [0, 1, 2].map(|_| rng.range(-spread, spread));
            Pose::new(rng.unit_quaternion(), t)
        })
        .collect()
}

/// (A, B, poses) of generated scenes: spheres, tori, soups.
fn scenes() -> Vec<(&'static str, Mesh, Mesh, Vec<Pose>)> {
    let (ta, tb) = common::tori(16);
    vec![
        (
            "spheres",
            generate::uv_sphere([0.0; 3], 1.0, 10, 20),
            generate::uv_sphere([0.3, 0.0, 0.0], 0.8, 8, 16),
            poses(1, 24, 0.6),
        ),
        ("tori", ta, tb, poses(2, 24, 0.4)),
        (
            "soups",
            generate::random_soup(3, 400, 2.0, 0.4),
            generate::degenerate_soup(4, 300, 2.0),
            poses(5, 24, 1.0),
        ),
    ]
}

fn round_trip(m: &Mesh, bv: BvKind, o: &BuildOptions) -> SavedHierarchy {
    let saved = SavedHierarchy::build(m.clone(), bv, o).unwrap();
    let mut bytes = Vec::new();
    saved.write_to(&mut bytes).unwrap();
    SavedHierarchy::from_bytes(Path::new("x.mch"), &bytes).unwrap()
}

fn same(label: &str, got: &[Contacts], want: &[Contacts]) {
    assert_eq!(got.len(), want.len(), "{label}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.pairs, w.pairs, "{label}: pose {i} pairs");
        assert_eq!(
            g.counters.bv_tests, w.counters.bv_tests,
            "{label}: pose {i} Nv"
        );
        assert_eq!(
            g.counters.tri_tests, w.counters.tri_tests,
            "{label}: pose {i} Np"
        );
        assert_eq!(
            g.counters.bv_updates, w.counters.bv_updates,
            "{label}: pose {i} Nu"
        );
        assert_eq!(
            g.counters.sub, w.counters.sub,
            "{label}: pose {i} sub-counters"
        );
    }
}

fn option_sets() -> [BuildOptions; 2] {
    [
        BuildOptions::default(),
        BuildOptions {
            rule: SplitRule::MinSum,
            point: SplitPoint::Median,
            leaf_size: 4,
        },
    ]
}

/// Loaded hierarchies equal fresh builds: the bytes of every node, and every pose's pairs
/// and counters on the CPU, for each k and two sets of build options.
#[test]
fn round_trip_equals_a_fresh_build_on_the_cpu() {
    for (name, a, b, poses) in scenes() {
        for bv in BvKind::ALL {
            for o in option_sets() {
                let label = format!("{name} {} {o:?}", bv.name());
                let fresh = Collider::builder(&a, &b)
                    .bv(bv)
                    .build_options(o)
                    .build()
                    .unwrap();
                let (ma, ha) = round_trip(&a, bv, &o).into_parts();
                let (mb, hb) = round_trip(&b, bv, &o).into_parts();
                assert_eq!((&ma, &mb), (&a, &b), "{label}: meshes");
                let loaded = Collider::builder(&ma, &mb)
                    .bv(bv)
                    .hierarchy_a(ha)
                    .hierarchy_b(hb)
                    .build()
                    .unwrap();
                assert_eq!(loaded.hierarchy_sizes(), fresh.hierarchy_sizes(), "{label}");
                assert_eq!(loaded.depths(), fresh.depths(), "{label}");
                same(
                    &label,
                    &loaded.collide_batch(&poses),
                    &fresh.collide_batch(&poses),
                );
            }
        }
    }
}

/// The same on the GPU: the loaded scene's GPU pairs and counters equal the fresh CPU
/// reference's.
#[test]
#[cfg(feature = "gpu")]
fn round_trip_equals_a_fresh_build_on_the_gpu() {
    let Some(ctx) = common::gpu() else { return };
    for (name, a, b, poses) in scenes() {
        for bv in [BvKind::Kdop6, BvKind::Kdop18] {
            let o = BuildOptions::default();
            let label = format!("{name} {} gpu", bv.name());
            let fresh = Collider::builder(&a, &b).bv(bv).build().unwrap();
            let (ma, ha) = round_trip(&a, bv, &o).into_parts();
            let (mb, hb) = round_trip(&b, bv, &o).into_parts();
            let loaded = Collider::builder(&ma, &mb)
                .bv(bv)
                .hierarchy_a(ha)
                .hierarchy_b(hb)
                .build()
                .unwrap();
            let q = QueryOptions::default();
            let (gpu, _) = loaded.collide_batch_gpu(&ctx, &poses, &q, None).unwrap();
            same(&label, &gpu, &fresh.collide_batch(&poses));
        }
    }
}

/// A saved k-DOP tree serves the dual k-DOP–sphere hierarchy of the same k (the spheres
/// are computed at load): the same pairs and counters, sub-counters included, as a fresh
/// dual build, on the CPU (every k, plain and symmetric) and the GPU (dual18).
#[test]
fn saved_kdop_trees_serve_the_dual_hierarchy() {
    #[cfg(feature = "gpu")]
    let ctx = common::gpu();
    for (name, a, b, poses) in scenes() {
        for (kdop, dual) in BvKind::ALL.into_iter().zip(BvKind::DUAL) {
            for symmetric in [false, true] {
                let o = BuildOptions::default();
                let d = meshcollide::DualOptions {
                    symmetric,
                    ..Default::default()
                };
                let label = format!("{name} {} symmetric {symmetric}", dual.name());
                let fresh = Collider::builder(&a, &b).bv(dual).dual(d).build().unwrap();
                let (ma, ha) = round_trip(&a, kdop, &o).into_parts();
                let (mb, hb) = round_trip(&b, kdop, &o).into_parts();
                let loaded = Collider::builder(&ma, &mb)
                    .bv(dual)
                    .dual(d)
                    .hierarchy_a(ha)
                    .hierarchy_b(hb)
                    .build()
                    .unwrap();
                let want = fresh.collide_batch(&poses);
                same(&label, &loaded.collide_batch(&poses), &want);
                #[cfg(feature = "gpu")]
                if let Some(ctx) = &ctx
                    && dual == BvKind::Dual18
                {
                    let q = QueryOptions::default();
                    let (gpu, _) = loaded.collide_batch_gpu(ctx, &poses, &q, None).unwrap();
                    same(&format!("{label} gpu"), &gpu, &want);
                }
            }
        }
    }
}

/// A hierarchy of another mesh or another k is refused by the builder.
#[test]
fn mismatched_hierarchies_are_refused() {
    let a = generate::uv_sphere([0.0; 3], 1.0, 8, 16);
    let b = generate::torus([0.0; 3], 1.0, 0.3, 12, 8);
    let o = BuildOptions::default();
    let (_, hb) = round_trip(&b, BvKind::Kdop18, &o).into_parts();
    let e = Collider::builder(&a, &b)
        .hierarchy_a(hb.clone())
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("not built over it"), "{e}");
    let e = Collider::builder(&a, &b)
        .bv(BvKind::Kdop6)
        .hierarchy_b(hb)
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("kdop6"), "{e}");
    let e = SavedHierarchy::build(a, BvKind::Boxtree, &o).unwrap_err();
    assert!(e.to_string().contains("boxtree"), "{e}");
}

fn valid_bytes() -> Vec<u8> {
    let m = generate::torus([3.0, -1.0, 2.0], 1.0, 0.3, 12, 8);
    SavedHierarchy::build(m, BvKind::Kdop14, &BuildOptions::default())
        .unwrap()
        .to_bytes()
}

fn load(bytes: &[u8]) -> Result<SavedHierarchy, SavedError> {
    std::panic::catch_unwind(|| SavedHierarchy::from_bytes(Path::new("bad.mch"), bytes))
        .expect("no panic")
}

fn fix_payload_crc(b: &mut [u8]) {
    let mut c = flate2::Crc::new();
    c.update(&b[..68]);
    c.update(&b[72..]);
    let s = c.sum();
    b[68..72].copy_from_slice(&s.to_le_bytes());
}

/// Every kind of damage is its own typed error naming the file.
#[test]
fn damaged_files_give_typed_errors() {
    let good = valid_bytes();
    load(&good).unwrap();
    let named = |e: &SavedError| assert!(e.to_string().contains("bad.mch"), "{e}");
    // Truncated anywhere: a length error (or the magic, when even that is cut).
    for cut in [0, 5, 8, 11, 40, 71, 72, 100, good.len() / 2, good.len() - 1] {
        match load(&good[..cut]) {
            Err(e @ SavedError::Length { .. }) => {
                named(&e);
                assert!(e.to_string().contains("truncated"), "{e}");
            }
            Err(SavedError::Magic { .. }) if cut < 8 => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    // Trailing bytes.
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(
        load(&long),
        Err(SavedError::Length {
            what: "trailing bytes",
            ..
        })
    ));
    // Wrong magic.
    let mut b = good.clone();
    b[1] = b'X';
    assert!(matches!(load(&b), Err(SavedError::Magic { .. })));
    assert!(matches!(
        load(b"solid x\nendsolid x\n"),
        Err(SavedError::Magic { .. })
    ));
    // Another version.
    let mut b = good.clone();
    b[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let e = load(&b).unwrap_err();
    assert!(matches!(e, SavedError::Version { found, .. } if found == FORMAT_VERSION + 1));
    named(&e);
    // A flipped bit in the mesh, in the nodes, in the header.
    for at in [80, good.len() - 10, 30] {
        let mut b = good.clone();
        b[at] ^= 0x10;
        let e = load(&b).unwrap_err();
        assert!(matches!(e, SavedError::Checksum { .. }), "byte {at}: {e:?}");
        named(&e);
    }
    // Huge counts: a length error, before any allocation.
    for at in [32, 40, 48, 56] {
        let mut b = good.clone();
        b[at..at + 8].copy_from_slice(&(u64::MAX / 3).to_le_bytes());
        assert!(
            matches!(load(&b), Err(SavedError::Length { .. })),
            "count at {at}"
        );
    }
    // Consistent checksums over an inconsistent hierarchy: the structure check.
    let n_tri = u64::from_le_bytes(good[40..48].try_into().unwrap()) as usize;
    let n_pos = u64::from_le_bytes(good[32..40].try_into().unwrap()) as usize;
    let n_nodes = u64::from_le_bytes(good[48..56].try_into().unwrap()) as usize;
    let nodes_at = 72 + 24 * n_pos + 16 * n_tri;
    let node = 4 * (14 + 2);
    let offsets_at = nodes_at + n_nodes * node;
    for (what, at, value) in [
        ("child index", nodes_at + node - 8, u32::MAX - 1),
        ("leaf order", 72 + 24 * n_pos + 12 * n_tri, u32::MAX - 15),
        ("point offsets", offsets_at + 8, u32::MAX),
        (
            "bounding point",
            offsets_at + 4 * (n_nodes + 1) + 4,
            f32::NAN.to_bits(),
        ),
        ("k-DOP", nodes_at + node + 4, (1e30f32).to_bits()),
        ("depth", 28, 77),
        ("k", 12, 10),
        ("leaf size", 24, 0),
    ] {
        let mut b = good.clone();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        fix_payload_crc(&mut b);
        let e = load(&b).unwrap_err();
        assert!(matches!(e, SavedError::Invalid { .. }), "{what}: {e:?}");
        named(&e);
    }
}

/// A file that is not there is an `Io` error naming it.
#[test]
fn missing_file_is_an_io_error() {
    let e = SavedHierarchy::load(Path::new("/nonexistent/x.mch")).unwrap_err();
    assert!(matches!(e, SavedError::Io { .. }) && e.to_string().contains("x.mch"));
}
