//! Self-collision on the GPU (`gpu::self_collide`: `expand_self`, `tri_test_self`) against
//! the CPU reference (`SelfCollider`, depth first): in all-pairs mode the same pairs and the
//! same Nv and Np; in first mode one of the reference's pairs exactly when it has any. The
//! reference equals the exact brute force (`tests/self_collision.rs`); small meshes are
//! checked against `brute_force_self` here too, and the kernels' CPU twins composed
//! (`collide_mirror`) give the same answer and counters. Obeys `MESHCOLLIDE_REQUIRE_GPU`.

#![cfg(feature = "gpu")]

mod common;

use meshcollide::gpu::collide::Capacities;
use meshcollide::gpu::self_collide::collide_mirror;
use meshcollide::gpu::{GpuContext, GpuSelf};
use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::self_collide::SelfHierarchy;
use meshcollide::{BuildOptions, BvKind, Mesh, Mode, SelfCollider, brute_force_self};

/// The mirror's answer and counters, whatever the k.
fn mirror(c: &SelfCollider, mode: Mode) -> meshcollide::scene::PoseResult {
    match c.hierarchy() {
        SelfHierarchy::Kdop6(h) => collide_mirror(h, mode).0,
        SelfHierarchy::Kdop14(h) => collide_mirror(h, mode).0,
        SelfHierarchy::Kdop18(h) => collide_mirror(h, mode).0,
        SelfHierarchy::Kdop26(h) => collide_mirror(h, mode).0,
    }
}

/// GPU against CPU (and the mirror; brute force when `brute`) for one collider, both
/// modes; `tiny` starts from capacities of a few pairs (reruns on overflow). Returns the
/// all-pairs answer.
fn compare(
    ctx: &GpuContext,
    label: &str,
    c: &SelfCollider,
    gpu: &mut GpuSelf,
    tiny: bool,
) -> Vec<(u32, u32)> {
    let cpu = c.collide_with(Mode::All);
    if tiny {
        *gpu.capacities_mut() = Capacities {
            front: 2,
            leaf: 1,
            contact: 1,
            unsure: 1,
            tumbled: 1,
        };
    }
    let (got, stats) = gpu.collide(ctx, c, Mode::All).unwrap();
    assert_eq!(got.pairs, cpu.pairs, "{label}: pairs");
    assert_eq!(got.counters, cpu.counters, "{label}: counters (Nv, Np)");
    assert!(stats.contacts <= cpu.pairs.len() as u64, "{label}");
    if tiny && !cpu.pairs.is_empty() {
        assert!(stats.reruns > 0, "{label}: tiny capacities rerun");
    }
    assert_eq!(mirror(c, Mode::All), cpu, "{label}: mirror");
    let (first, _) = gpu.collide(ctx, c, Mode::First).unwrap();
    assert!(first.pairs.len() <= 1, "{label}: first");
    assert_eq!(
        first.pairs.is_empty(),
        cpu.pairs.is_empty(),
        "{label}: first"
    );
    assert!(
        first.pairs.iter().all(|p| cpu.pairs.contains(p)),
        "{label}: first pair {:?} not a pair",
        first.pairs
    );
    let m = mirror(c, Mode::First);
    assert!(m.pairs.iter().all(|p| cpu.pairs.contains(p)), "{label}");
    cpu.pairs
}

/// [`compare`] for leaf sizes 1 and 4 and the given k-DOPs (tiny capacities on the first).
fn check(ctx: &GpuContext, label: &str, m: &Mesh, kinds: &[BvKind], brute: bool) -> usize {
    let want = brute.then(|| brute_force_self(m));
    let mut n = 0;
    for (i, &bv) in kinds.iter().enumerate() {
        for leaf in [1, 4] {
            let c = SelfCollider::builder(m)
                .bv(bv)
                .build_options(BuildOptions {
                    leaf_size: leaf,
                    ..Default::default()
                })
                .build()
                .unwrap();
            let mut gpu = GpuSelf::new(ctx, &c).unwrap();
            let label = format!("{label} {} leaf {leaf}", bv.name());
            let pairs = compare(ctx, &label, &c, &mut gpu, i == 0 && leaf == 1);
            if let Some(w) = &want {
                assert_eq!(&pairs, w, "{label}: brute force");
            }
            n = pairs.len();
        }
    }
    n
}

const K18: &[BvKind] = &[BvKind::Kdop18];

/// Random triangles over a small pool of lattice points with unwelded copies and repeated
/// indices (as `tests/self_collision.rs`).
fn lattice_mesh(rng: &mut Rng, n_vertices: usize, n_tris: usize) -> Mesh {
    let mut positions: Vec<[f64; 3]> = (0..n_vertices)
        .map(|_| [0, 1, 2].map(|_| rng.below(3) as f64))
        .collect();
    for k in 0..n_vertices / 4 {
        positions.push(positions[k]);
    }
    let nv = positions.len() as u64;
    let triangles = (0..n_tris)
        .map(|_| {
            let mut t = [0; 3].map(|_| rng.below(nv) as u32);
            if rng.below(8) == 0 {
                t[2] = t[rng.below(2) as usize];
            }
            t
        })
        .collect();
    Mesh::new(positions, triangles).unwrap()
}

#[test]
fn sheets_tori_and_grids_equal_the_cpu() {
    let Some(ctx) = common::gpu() else { return };
    let all = &[
        BvKind::Kdop18,
        BvKind::Kdop6,
        BvKind::Kdop14,
        BvKind::Kdop26,
    ];
    let sheet = generate::folded_sheet(30, 4, 0.5);
    assert!(check(&ctx, "folded sheet", &sheet, all, true) > 0);
    let big = generate::folded_sheet(120, 20, 0.3);
    assert!(check(&ctx, "large folded sheet", &big, K18, false) > 0);
    let torus = generate::torus([0.0; 3], 1.0, 0.3, 30, 12);
    assert_eq!(check(&ctx, "torus", &torus, K18, true), 0);
    let spindle = generate::torus([0.0; 3], 1.0, 1.3, 16, 10);
    assert!(check(&ctx, "spindle torus", &spindle, K18, true) > 0);
    let grid = generate::grid(20, 10, 0.1, 0.0);
    assert_eq!(check(&ctx, "grid", &grid, K18, true), 0);
    // A single triangle: one leaf, one level.
    let one = Mesh::new(
        vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        vec![[0, 1, 2]],
    )
    .unwrap();
    assert_eq!(check(&ctx, "one triangle", &one, K18, true), 0);
}

#[test]
fn soups_duplicates_and_far_coordinates_equal_the_cpu() {
    let Some(ctx) = common::gpu() else { return };
    for seed in 0..3 {
        let s = generate::random_soup(seed, 150, 1.0, 0.3);
        check(&ctx, &format!("soup {seed}"), &s, K18, true);
        let d = generate::degenerate_soup(seed, 120, 1.0);
        check(&ctx, &format!("degenerate soup {seed}"), &d, K18, true);
    }
    let mut rng = Rng::new(11);
    for case in 0..4 {
        let m = lattice_mesh(&mut rng, 10, 40);
        check(&ctx, &format!("lattice {case}"), &m, K18, true);
    }
    // Unwelded copies of a sheet over itself (same positions, other indices) and
    // duplicated faces (same indices).
    let mut m = generate::folded_sheet(12, 3, 0.5);
    let (nv, nt) = (m.positions.len() as u32, m.triangles.len());
    m.positions.extend(m.positions.clone());
    for t in 0..nt {
        let [a, b, c] = m.triangles[t];
        m.triangles.push([a + nv, b + nv, c + nv]);
        if t % 5 == 0 {
            m.triangles.push([a, b, c]);
            m.triangles.push([c, a, a]);
        }
    }
    assert!(check(&ctx, "unwelded and duplicated", &m, K18, true) > 0);
    let shift = |m: &Mesh| {
        m.map_positions(|[x, y, z]| {
            [
                x + 1000000.0000000001,
                y * 0.1 - 999_999.999_999_999_9,
                z + 1e6 / 3.0,
            ]
        })
    };
    let far = shift(&generate::folded_sheet(30, 3, 0.5));
    assert!(check(&ctx, "far folded sheet", &far, K18, true) > 0);
    check(
        &ctx,
        "far spindle torus",
        &shift(&generate::torus([0.0; 3], 1.0, 1.3, 16, 8)),
        K18,
        true,
    );
    for case in 0..3 {
        let m = lattice_mesh(&mut rng, 8, 24)
            .map_positions(|p| p.map(|c| 1e6 + c * 1e-9).map(|c| c + 0.1));
        check(&ctx, &format!("far lattice {case}"), &m, K18, true);
    }
}

#[test]
fn refitted_frames_equal_the_cpu() {
    let Some(ctx) = common::gpu() else { return };
    let end = generate::folded_sheet(40, 6, 0.5);
    let start = generate::grid(40, 6, 0.1, 0.0);
    for leaf in [1, 4] {
        let mut c = SelfCollider::builder(&start)
            .build_options(BuildOptions {
                leaf_size: leaf,
                ..Default::default()
            })
            .build()
            .unwrap();
        let mut gpu = GpuSelf::new(&ctx, &c).unwrap();
        let mut found = 0;
        for f in 0..5 {
            let t = f64::from(f) / 4.0;
            let positions: Vec<[f64; 3]> = start
                .positions
                .iter()
                .zip(&end.positions)
                .map(|(a, b)| [0, 1, 2].map(|k| a[k] + t * (b[k] - a[k])))
                .collect();
            c.refit(&positions).unwrap();
            gpu.refit(&ctx, &c).unwrap();
            let frame = Mesh::new(positions, start.triangles.clone()).unwrap();
            let pairs = compare(
                &ctx,
                &format!("frame {f} leaf {leaf}"),
                &c,
                &mut gpu,
                f == 2,
            );
            assert_eq!(pairs, brute_force_self(&frame), "frame {f}: brute force");
            found += pairs.len();
        }
        assert!(found > 0);
    }
    // Another collider's hierarchy is a typed error.
    let c6 = SelfCollider::builder(&start)
        .bv(BvKind::Kdop6)
        .build()
        .unwrap();
    let c18 = SelfCollider::builder(&start).build().unwrap();
    let mut g = GpuSelf::new(&ctx, &c18).unwrap();
    assert!(g.collide(&ctx, &c6, Mode::All).is_err());
    assert!(g.refit(&ctx, &c6).is_err());
    // Another mesh's hierarchy of the same k: refused, not read out of bounds.
    let other = SelfCollider::builder(&generate::grid(3, 2, 0.1, 0.0))
        .build()
        .unwrap();
    assert!(g.collide(&ctx, &other, Mode::All).is_err());
    assert!(g.refit(&ctx, &other).is_err());
}

#[test]
fn paged_arrays_equal_the_cpu() {
    let Some(ctx) = common::gpu() else { return };
    // A binding limit of 32 KiB splits the node array into pages (and bounds the front
    // buffers: capacities are clamped to it).
    let ctx = ctx.with_binding_limit(1 << 15);
    let m = generate::folded_sheet(24, 6, 0.5);
    let c = SelfCollider::builder(&m).build().unwrap();
    let mut gpu = GpuSelf::new(&ctx, &c).unwrap();
    assert!(!compare(&ctx, "paged", &c, &mut gpu, false).is_empty());
}

/// The tolerance query of one mesh on the GPU (`GpuSelf::collide_within`): the slabs grown
/// by the CPU's margins, every triangle pair of the leaf pairs decided by the host's exact
/// rule; the same pairs as the all-pairs oracle (`brute_force_self_within`) and the CPU,
/// the same Nv and Np as the CPU, the kernels' twins composed (`collide_mirror_within`)
/// alike; first mode gives one of the pairs; ε = 0 is the intersection query; tiny
/// capacities rerun to the same answer; the same uploaded hierarchy answers several ε.
#[test]
fn tolerance_equals_the_cpu_and_brute_force() {
    use meshcollide::gpu::self_collide::collide_mirror_within;
    use meshcollide::proximity::Tolerance;
    use meshcollide::self_collide::brute_force_self_within;
    let Some(ctx) = common::gpu() else { return };
    let meshes = [
        ("folded sheet", generate::folded_sheet(20, 4, 0.5)),
        ("grid", generate::grid(12, 8, 0.1, 0.0)),
        ("soup", generate::random_soup(3, 120, 1.0, 0.3)),
        ("lattice", lattice_mesh(&mut Rng::new(5), 10, 40)),
    ];
    let mut grew = 0;
    for (name, m) in &meshes {
        for bv in [BvKind::Kdop18, BvKind::Kdop6] {
            let c = SelfCollider::builder(m).bv(bv).build().unwrap();
            let mut gpu = GpuSelf::new(&ctx, &c).unwrap();
            for (k, eps) in [0.0, 0.02, 0.1, 0.3].into_iter().enumerate() {
                let label = format!("{name} {} ε {eps}", bv.name());
                let tol = Tolerance::new(eps, "eps").unwrap();
                let want = brute_force_self_within(m, eps);
                let cpu = c.collide_within(Mode::All, tol);
                assert_eq!(cpu.pairs, want, "{label}: CPU");
                if k == 1 {
                    *gpu.capacities_mut() = Capacities {
                        front: 2,
                        leaf: 1,
                        contact: 1,
                        unsure: 1,
                        tumbled: 1,
                    };
                }
                let (got, _) = gpu.collide_within(&ctx, &c, Mode::All, tol).unwrap();
                assert_eq!(got.pairs, want, "{label}: pairs");
                assert_eq!(got.counters, cpu.counters, "{label}: counters (Nv, Np)");
                let mirrored = match c.hierarchy() {
                    SelfHierarchy::Kdop6(h) => collide_mirror_within(h, Mode::All, eps).0,
                    SelfHierarchy::Kdop18(h) => collide_mirror_within(h, Mode::All, eps).0,
                    _ => unreachable!("kdop6 and kdop18 built"),
                };
                assert_eq!(mirrored, cpu, "{label}: mirror");
                let (first, _) = gpu.collide_within(&ctx, &c, Mode::First, tol).unwrap();
                assert!(first.pairs.len() <= 1, "{label}: first");
                assert_eq!(first.pairs.is_empty(), want.is_empty(), "{label}: first");
                assert!(first.pairs.iter().all(|p| want.contains(p)), "{label}");
                if eps == 0.0 {
                    assert_eq!(got, c.collide_with(Mode::All), "{label}: ε 0");
                } else {
                    grew += usize::from(want.len() > brute_force_self(m).len());
                }
            }
        }
    }
    // The tolerance reached pairs the intersection query does not report.
    assert!(grew > 4, "{grew}");
}
