//! Saved hierarchies (`.mch`): a round trip gives the same pairs and counters as a fresh
//! build, on the CPU and the GPU; every kind of damage is a typed error naming the file.

mod common;

#[cfg(feature = "gpu")]
use meshcollide::QueryOptions;
use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::saved::{FORMAT_VERSION, SavedHierarchy, invariants as inv};
use meshcollide::tumble::BoundingPoints;
use meshcollide::{
    BuildOptions, BvKind, Collider, Contacts, KdopHierarchy, Mesh, Pose, SavedError, SplitPoint,
    SplitRule, brute_force,
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
}

/// A file that is not there is an `Io` error naming it.
#[test]
fn missing_file_is_an_io_error() {
    let e = SavedHierarchy::load(Path::new("/nonexistent/x.mch")).unwrap_err();
    assert!(matches!(e, SavedError::Io { .. }) && e.to_string().contains("x.mch"));
}

/// Where each part of a `.mch` file lies (the layout of `src/saved/format.rs`), from the
/// header's k and counts, for crafting files field by field.
#[derive(Clone, Copy)]
struct Layout {
    k: usize,
    n_pos: usize,
    n_tri: usize,
    n_nodes: usize,
}

impl Layout {
    fn of(b: &[u8]) -> Layout {
        let count = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap()) as usize;
        Layout {
            k: u32_at(b, 12) as usize,
            n_pos: count(32),
            n_tri: count(40),
            n_nodes: count(48),
        }
    }
    fn mesh_end(&self) -> usize {
        72 + 24 * self.n_pos + 12 * self.n_tri
    }
    fn order(&self, p: usize) -> usize {
        self.mesh_end() + 4 * p
    }
    fn node(&self, i: usize) -> usize {
        self.order(self.n_tri) + i * 4 * (self.k + 2)
    }
    fn min(&self, i: usize, s: usize) -> usize {
        self.node(i) + 4 * s
    }
    fn max(&self, i: usize, s: usize) -> usize {
        self.node(i) + 4 * (self.k / 2 + s)
    }
    fn first(&self, i: usize) -> usize {
        self.node(i) + 4 * self.k
    }
    fn count(&self, i: usize) -> usize {
        self.first(i) + 4
    }
    fn offset(&self, i: usize) -> usize {
        self.node(self.n_nodes) + 4 * i
    }
    fn point(&self, j: usize) -> usize {
        self.offset(self.n_nodes + 1) + 12 * j
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn set_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_bits(u32_at(b, at))
}

fn set_f32(b: &mut [u8], at: usize, v: f32) {
    set_u32(b, at, v.to_bits());
}

/// Recomputes both checksums (the mesh's, then the whole file's), as whoever crafts a
/// file does: what is left to refuse it is the invariants.
fn fix_crcs(b: &mut [u8]) {
    let crc = |parts: &[&[u8]]| {
        let mut c = flate2::Crc::new();
        for p in parts {
            c.update(p);
        }
        c.sum()
    };
    let mesh_end = Layout::of(b).mesh_end();
    let mesh = crc(&[&b[72..mesh_end]]);
    b[64..68].copy_from_slice(&mesh.to_le_bytes());
    let all = crc(&[&b[..68], &b[72..]]);
    b[68..72].copy_from_slice(&all.to_le_bytes());
}

/// `bytes` are refused for `invariant` at `node`, and the message names the file, the
/// invariant and the node.
fn refused(bytes: &[u8], invariant: &str, node: Option<usize>, label: &str) {
    let e = match load(bytes) {
        Ok(_) => panic!("{label}: accepted"),
        Err(e) => e,
    };
    let text = e.to_string();
    let SavedError::Invariant {
        invariant: got,
        node: at,
        ..
    } = e
    else {
        panic!("{label}: {e:?}")
    };
    assert_eq!(
        (got, at),
        (invariant, node.map(|n| n as u64)),
        "{label}: {text}"
    );
    assert!(
        text.contains("bad.mch") && text.contains(invariant),
        "{label}: {text}"
    );
    if let Some(n) = node {
        assert!(text.contains(&format!("node {n}:")), "{label}: {text}");
    }
}

/// The decoded hierarchy of `bytes` (a kdop14 file).
fn kdop14_of(bytes: &[u8]) -> (Mesh, meshcollide::Bvh<7>, BoundingPoints) {
    let (m, h) = load(bytes).unwrap().into_parts();
    let (b, p) = h.into_bvh::<7>().unwrap();
    (m, b, p)
}

/// One crafted file per invariant (one field changed, both checksums recomputed), each
/// refused for that invariant at the node changed (or the one the change breaks). The nodes
/// are picked from the decoded hierarchy, and a sanity check ties the byte layout used to
/// craft them to it.
#[test]
fn every_invariant_is_checked_with_checksums_recomputed() {
    let good = valid_bytes();
    let l = Layout::of(&good);
    let (_, bvh, bp) = kdop14_of(&good);
    let n = bvh.nodes.len();
    let t = bvh.triangle_count() as u32;
    // The layout is the file's: it ends at the last point, and node and offset fields read
    // back what was decoded.
    assert_eq!(l.point(bp.points.len()), good.len());
    for i in [0, n / 2, n - 1] {
        assert_eq!(u32_at(&good, l.first(i)), bvh.nodes[i].first);
        assert_eq!(u32_at(&good, l.count(i)), bvh.nodes[i].count);
        assert_eq!(f32_at(&good, l.max(i, 6)), bvh.nodes[i].bv.max[6]);
        assert_eq!(u32_at(&good, l.offset(i)), bp.offsets[i]);
    }
    let leaf = |i: usize| bvh.nodes[i].is_leaf();
    let child = |i: usize| bvh.nodes[i].first as usize;
    let a_leaf = (0..n).find(|&i| leaf(i)).unwrap();
    let leaf_pair = (0..n)
        .find(|&i| !leaf(i) && leaf(child(i)) && leaf(child(i) + 1))
        .unwrap();
    assert!(
        !leaf(1) && !leaf(2) && child(0) == 1,
        "a tree of two levels at least"
    );
    let small = (0..n).find(|&i| leaf(i) && i > 2).unwrap();
    let small_at = bp.offsets[small] as usize;
    let (c, d) = (child(leaf_pair), child(leaf_pair) + 1);
    let big_points = bp.offsets[1] - bp.offsets[0];
    assert!(big_points > 6, "the root's points are its polytope's");

    type Edit = Box<dyn Fn(&mut Vec<u8>)>;
    let u = |at: usize, v: u32| -> Edit { Box::new(move |b: &mut Vec<u8>| set_u32(b, at, v)) };
    let f = |at: usize, v: f32| -> Edit { Box::new(move |b: &mut Vec<u8>| set_f32(b, at, v)) };
    let min0 = f32_at(&good, l.min(0, 2));
    let leaf_max = f32_at(&good, l.max(a_leaf, 4));
    let leaf_min = f32_at(&good, l.min(a_leaf, 0));
    let last = bp.offsets[n];
    let cases: Vec<(&str, Edit, &str, Option<usize>)> = vec![
        ("k 10", u(12, 10), inv::KIND, None),
        ("leaf size 0", u(24, 0), inv::OPTIONS, None),
        ("split rule 99", u(16, 99), inv::OPTIONS, None),
        ("split point 99", u(20, 99), inv::OPTIONS, None),
        (
            "leaf order repeats",
            u(l.order(1), bvh.tri_index[0]),
            inv::LEAF_ORDER,
            None,
        ),
        ("leaf order beyond", u(l.order(0), t), inv::LEAF_ORDER, None),
        (
            "root slab NaN",
            f(l.min(0, 0), f32::NAN),
            inv::FINITE_VOLUMES,
            Some(0),
        ),
        (
            "root slab infinite",
            f(l.max(0, 2), f32::INFINITY),
            inv::FINITE_VOLUMES,
            Some(0),
        ),
        (
            "root slab min above max",
            f(l.min(0, 1), f32_at(&good, l.max(0, 1)) + 1.0),
            inv::FINITE_VOLUMES,
            Some(0),
        ),
        (
            "child is itself",
            u(l.first(0), 0),
            inv::CHILD_INDICES,
            Some(0),
        ),
        (
            "child beyond",
            u(l.first(0), n as u32 - 1),
            inv::CHILD_INDICES,
            Some(0),
        ),
        (
            "two parents",
            u(l.first(2), child(1) as u32),
            inv::ONE_PARENT,
            Some(child(1)),
        ),
        (
            "root made a leaf",
            u(l.count(0), 1),
            inv::ONE_PARENT,
            Some(1),
        ),
        (
            "leaf above the leaf size",
            u(l.count(a_leaf), 2),
            inv::LEAF_RANGE,
            Some(a_leaf),
        ),
        (
            "leaf beyond the triangles",
            u(l.first(a_leaf), t),
            inv::LEAF_RANGE,
            Some(a_leaf),
        ),
        (
            "sibling leaves swapped",
            Box::new(move |b: &mut Vec<u8>| {
                let (fc, fd) = (u32_at(b, l.first(c)), u32_at(b, l.first(d)));
                set_u32(b, l.first(c), fd);
                set_u32(b, l.first(d), fc);
            }),
            inv::RANGES_NEST,
            Some(leaf_pair),
        ),
        ("depth + 1", u(28, bvh.depth + 1), inv::DEPTH, None),
        ("depth - 1", u(28, bvh.depth - 1), inv::DEPTH, None),
        (
            "leaf max one ulp short",
            f(l.max(a_leaf, 4), leaf_max.next_down()),
            inv::CONTAINS_TRIANGLES,
            Some(a_leaf),
        ),
        (
            "leaf min one ulp short",
            f(l.min(a_leaf, 0), leaf_min.next_up()),
            inv::CONTAINS_TRIANGLES,
            Some(a_leaf),
        ),
        (
            "root min one ulp short",
            f(l.min(0, 2), min0.next_up()),
            inv::CONTAINS_CHILDREN,
            Some(0),
        ),
        (
            "first offset 1",
            u(l.offset(0), 1),
            inv::POINT_OFFSETS,
            None,
        ),
        (
            "offsets out of order",
            u(l.offset(5), bp.offsets[6] + 1),
            inv::POINT_OFFSETS,
            Some(5),
        ),
        (
            "offsets end early",
            u(l.offset(n), last - 1),
            inv::POINT_OFFSETS,
            None,
        ),
        (
            "point NaN",
            f(l.point(bp.offsets[3] as usize) + 4, f32::NAN),
            inv::FINITE_POINTS,
            Some(3),
        ),
        (
            "a polytope vertex replaced",
            Box::new(move |b: &mut Vec<u8>| {
                let (p0, p1) = (l.point(0), l.point(1));
                let other = b[p1..p1 + 12].to_vec();
                b[p0..p0 + 12].copy_from_slice(&other);
            }),
            inv::POINTS_BOUND_NODE,
            Some(0),
        ),
        (
            "a leaf corner replaced",
            Box::new(move |b: &mut Vec<u8>| {
                let (p0, p1) = (l.point(small_at), l.point(small_at + 1));
                let other = b[p1..p1 + 12].to_vec();
                b[p0..p0 + 12].copy_from_slice(&other);
            }),
            inv::POINTS_BOUND_NODE,
            Some(small),
        ),
        (
            "the root's points shrunk by 1e-6",
            Box::new(move |b: &mut Vec<u8>| {
                for j in 0..big_points as usize {
                    for c in 0..3 {
                        let at = l.point(j) + 4 * c;
                        let v = f32_at(b, at);
                        set_f32(b, at, v * (1.0 - 1e-6));
                    }
                }
            }),
            inv::POINTS_BOUND_NODE,
            Some(0),
        ),
    ];
    for (label, edit, invariant, node) in cases {
        let mut b = good.clone();
        edit(&mut b);
        assert_ne!(b, good, "{label}: the edit changes the file");
        fix_crcs(&mut b);
        refused(&b, invariant, node, label);
    }
}

/// Crafted in memory and written (the writer computes both checksums): more nodes than a
/// tree of T triangles has.
#[test]
fn too_many_nodes_are_refused() {
    let (m, mut bvh, mut bp) = kdop14_of(&valid_bytes());
    let last = *bvh.nodes.last().unwrap();
    bvh.nodes.push(last);
    bp.offsets.push(*bp.offsets.last().unwrap());
    let crafted = SavedHierarchy {
        mesh: m,
        hierarchy: KdopHierarchy::Kdop14(bvh, bp),
    };
    refused(&crafted.to_bytes(), inv::COUNTS, None, "2T nodes");
}

/// What the tester found (issue 36): one node's bounding-point offset moved down by 3 and
/// both checksums recomputed. The damage is real — the same hierarchy handed to a collider
/// without the file's checks loses pairs that brute force finds — and the file is refused,
/// naming the node whose points no longer bound it (node 45: its range lost its last 3
/// points to node 46, which only gained some).
#[test]
fn a_shifted_bounding_point_offset_is_refused() {
    let a = generate::uv_sphere([0.0; 3], 1.0, 12, 24);
    let b = generate::uv_sphere([0.3, 0.0, 0.0], 0.8, 8, 16);
    let saved = SavedHierarchy::build(b.clone(), BvKind::Kdop18, &BuildOptions::default()).unwrap();
    let good = saved.to_bytes();
    let l = Layout::of(&good);
    let mut bad = good.clone();
    let was = u32_at(&bad, l.offset(46));
    set_u32(&mut bad, l.offset(46), was - 3);
    fix_crcs(&mut bad);
    // The same damage in memory, bypassing the file's checks.
    let (mesh, h) = saved.into_parts();
    let (bvh, mut bp) = h.into_bvh::<9>().unwrap();
    assert!(
        bp.offsets[46] - bp.offsets[45] > 3,
        "node 45 keeps some points"
    );
    bp.offsets[46] -= 3;
    let crafted = SavedHierarchy {
        mesh,
        hierarchy: KdopHierarchy::Kdop18(bvh, bp),
    };
    assert_eq!(
        crafted.to_bytes(),
        bad,
        "the crafted file is that hierarchy"
    );
    let c = Collider::builder(&a, &b)
        .bv(BvKind::Kdop18)
        .hierarchy_b(crafted.hierarchy)
        .build()
        .unwrap();
    let ps = poses(36, 200, 1.0);
    let lost = ps
        .iter()
        .filter(|p| c.collide(p).pairs != brute_force(&a, &b, p))
        .count();
    assert!(lost > 0, "the damage loses pairs on some pose");
    refused(
        &bad,
        inv::POINTS_BOUND_NODE,
        Some(45),
        "offset of node 46 - 3",
    );
}

/// Points beyond what the build writes are accepted (a superset of a node's corners or
/// polytope vertices still bounds it), and the queries stay exact: equal to brute force.
#[test]
fn extra_bounding_points_are_accepted_and_exact() {
    let (m, bvh, mut bp) = kdop14_of(&valid_bytes());
    let far = [40.0f32, -3.0, 7.5];
    for i in [0, 7, bvh.nodes.len() - 1] {
        bp.points.insert(bp.offsets[i + 1] as usize, far);
        for o in &mut bp.offsets[i + 1..] {
            *o += 1;
        }
    }
    let crafted = SavedHierarchy {
        mesh: m.clone(),
        hierarchy: KdopHierarchy::Kdop14(bvh, bp),
    };
    let (mesh, h) = load(&crafted.to_bytes()).unwrap().into_parts();
    assert_eq!(mesh, m);
    let a = generate::uv_sphere([3.0, -1.0, 2.0], 1.1, 12, 24);
    let c = Collider::builder(&a, &mesh)
        .bv(BvKind::Kdop14)
        .hierarchy_b(h)
        .build()
        .unwrap();
    let ps = poses(7, 40, 0.5);
    let mut contacts = 0;
    for p in &ps {
        let want = brute_force(&a, &mesh, p);
        contacts += !want.is_empty() as usize;
        assert_eq!(c.collide(p).pairs, want);
    }
    assert!(contacts > 0, "some poses touch");
}

/// Every shared model's file, as the build writes it, passes every check (no false refusal
/// on real meshes: open, non-manifold, zero-area triangles); each k and both option sets
/// over the models.
#[test]
fn shared_models_load_for_every_k() {
    let Some(dir) = common::shared_meshes_dir() else {
        return;
    };
    for (i, name) in [
        "armadillo.obj",
        "beetle.obj",
        "cycloidal.ply",
        "fandisk.obj",
        "featuretype.stl",
        "gearwheel.stl",
        "soup.stl",
        "spot.obj",
        "stanford-bunny.obj",
    ]
    .iter()
    .enumerate()
    {
        let m = meshcollide::mesh::load::load(&dir.join(name)).unwrap();
        let (bv, o) = (BvKind::ALL[i % 4], option_sets()[i % 2]);
        let s = SavedHierarchy::build(m, bv, &o).unwrap();
        SavedHierarchy::from_bytes(Path::new(name), &s.to_bytes())
            .unwrap_or_else(|e| panic!("{name} {} {o:?}: {e}", bv.name()));
    }
}

/// A reader that hands out at most 7 bytes per call, like a pipe.
struct Trickle<'a>(&'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(7).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// `read_from` (a stream) and `load` (a path) read exactly the length the header describes:
/// the same hierarchy as `from_bytes`, a length error for a stream or file that ends early
/// or goes on (with its true length), and the header's other errors as `from_bytes` gives.
#[test]
fn streams_and_files_are_read_to_the_header_length() {
    let good = valid_bytes();
    let path = Path::new("bad.mch");
    let want = load(&good).unwrap();
    let got = SavedHierarchy::read_from(path, Trickle(&good)).unwrap();
    assert_eq!(got.mesh, want.mesh);
    assert_eq!(got.to_bytes(), good);
    let dir = std::env::temp_dir().join(format!("meshcollide-saved-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bad.mch");
    let len = good.len() as u64;
    for (label, bytes, found) in [
        ("short", good[..good.len() - 5].to_vec(), len - 5),
        ("long", [&good[..], &[0u8; 9][..]].concat(), len + 9),
        ("header only", good[..72].to_vec(), 72),
        ("half a header", good[..40].to_vec(), 40),
    ] {
        std::fs::write(&file, &bytes).unwrap();
        for e in [
            SavedHierarchy::read_from(path, Trickle(&bytes)).unwrap_err(),
            SavedHierarchy::load(&file).unwrap_err(),
            load(&bytes).unwrap_err(),
        ] {
            let SavedError::Length { len, .. } = e else {
                panic!("{label}: {e:?}")
            };
            assert_eq!(len, found, "{label}");
        }
    }
    let mut b = good.clone();
    b[8] ^= 1;
    assert!(matches!(
        SavedHierarchy::read_from(path, Trickle(&b)),
        Err(SavedError::Version { .. })
    ));
    b[0] ^= 1;
    assert!(matches!(
        SavedHierarchy::read_from(path, Trickle(&b)),
        Err(SavedError::Magic { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}
