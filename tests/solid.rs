//! Solids (`meshcollide::solid`): closedness (open and non-manifold edges refused, naming
//! the edge), exact point containment, and which mesh lies inside the other at poses
//! without surface contact. Every expectation comes from an oracle that shares no code with
//! the implementation: for convex solids (boxes, UV spheres) a point is inside iff it is
//! strictly on the inner side of every face plane (exact `orient3d`, faces oriented
//! outwards), and for any closed mesh the generalized winding number in f64 (the sum of the
//! triangles' solid angles over 4π), used only where it is within 0.05 of an integer;
//! contact is excluded with `meshcollide::brute_force`. No expectation is a number copied
//! from a run.

use meshcollide::error::{Location, MeshError};
use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::solid::{Containment, Inner, Solid, containment, inside};
use meshcollide::{Mesh, Pose, brute_force};
use robust::{Coord3D, orient3d};

type P3 = [f64; 3];

fn o3(a: P3, b: P3, c: P3, d: P3) -> f64 {
    let c3 = |p: P3| Coord3D {
        x: p[0],
        y: p[1],
        z: p[2],
    };
    orient3d(c3(a), c3(b), c3(c), c3(d))
}

/// Exact oracle for a convex mesh whose faces are counter-clockwise seen from outside (the
/// generators' convention; `robust::orient3d` is positive for a point below such a face,
/// that is on its inner side): `Some(true)` strictly inside every face plane, `Some(false)`
/// strictly outside one, `None` otherwise (on the surface, for an exactly convex mesh).
/// Collinear triangles (orientation 0 for every point) are skipped.
fn convex_side(m: &Mesh, p: P3) -> Option<bool> {
    let mut on = false;
    for i in 0..m.triangle_count() {
        let [a, b, c] = m.triangle(i);
        if o3(a, b, c, [a[0] + 1.0, a[1] + 2.0, a[2] + 3.0]) == 0.0
            && o3(a, b, c, [a[0] + 3.0, a[1] + 1.0, a[2] + 2.0]) == 0.0
            && o3(a, b, c, [a[0] + 2.0, a[1] + 3.0, a[2] + 1.0]) == 0.0
        {
            continue; // collinear
        }
        let s = o3(a, b, c, p);
        if s < 0.0 {
            return Some(false);
        }
        on |= s == 0.0;
    }
    if on { None } else { Some(true) }
}

/// The generalized winding number of `m` at `p` in f64 (Van Oosterom and Strackee's solid
/// angle of each triangle), as an integer; panics unless it is within 0.05 of one (the
/// oracle is then sure).
fn winding(m: &Mesh, p: P3) -> i64 {
    let sub = |a: P3| [a[0] - p[0], a[1] - p[1], a[2] - p[2]];
    let dot = |a: P3, b: P3| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let norm = |a: P3| dot(a, a).sqrt();
    let mut total = 0.0;
    for i in 0..m.triangle_count() {
        let [a, b, c] = m.triangle(i).map(sub);
        let det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]);
        let (la, lb, lc) = (norm(a), norm(b), norm(c));
        let den = la * lb * lc + dot(a, b) * lc + dot(a, c) * lb + dot(b, c) * la;
        total += 2.0 * det.atan2(den);
    }
    let w = total / (4.0 * std::f64::consts::PI);
    let r = w.round();
    assert!(
        (w - r).abs() < 0.05,
        "winding number {w} at {p:?} is not near an integer"
    );
    r as i64
}

/// Inside by the winding number's parity (the mod-2 winding number the implementation
/// means, for self-intersecting or multi-shell meshes too).
fn winding_inside(m: &Mesh, p: P3) -> bool {
    winding(m, p).rem_euclid(2) == 1
}

/// Brute-force containment of a pose with no contact: every vertex of the posed B tested
/// against A, every vertex of A against the posed B (the posed copy made with
/// [`Mesh::map_positions`] and [`Pose::apply`]), with `oracle`. "Some component inside" is
/// "some vertex inside"; for meshes of one component the test also checks that all
/// vertices agree (the premise that a component is wholly inside or outside).
fn oracle(
    a: &Mesh,
    b: &Mesh,
    pose: &Pose,
    one_component: bool,
    side: &dyn Fn(&Mesh, P3) -> bool,
) -> Containment {
    let bp = b.map_positions(|p| pose.apply(p));
    let flags_b: Vec<bool> = bp.positions.iter().map(|&v| side(a, v)).collect();
    let flags_a: Vec<bool> = a.positions.iter().map(|&v| side(&bp, v)).collect();
    if one_component {
        assert!(flags_b.iter().all(|&f| f == flags_b[0]), "B straddles A");
        assert!(flags_a.iter().all(|&f| f == flags_a[0]), "A straddles B");
    }
    Containment {
        b_in_a: flags_b.contains(&true),
        a_in_b: flags_a.contains(&true),
    }
}

fn convex_oracle(m: &Mesh, p: P3) -> bool {
    let c = convex_side(m, p).expect("a vertex on the other surface at a pose without contact");
    assert_eq!(c, winding_inside(m, p), "the oracles disagree at {p:?}");
    c
}

fn expected_inner(c: Containment) -> Option<Inner> {
    if c.b_in_a {
        Some(Inner::B)
    } else if c.a_in_b {
        Some(Inner::A)
    } else {
        None
    }
}

/// Random poses of `b` about `a`: a uniform rotation and a translation uniform in
/// `[-extent, extent]³` around `center`. For each without contact, `containment` and
/// `inside` must equal the oracle's. Returns how many poses were (contact, B in A, A in B,
/// neither).
fn random_poses(
    a: &Mesh,
    b: &Mesh,
    seed: u64,
    n: usize,
    center: P3,
    extent: f64,
    side: &dyn Fn(&Mesh, P3) -> bool,
) -> [usize; 4] {
    let (sa, sb) = (Solid::new(a).unwrap(), Solid::new(b).unwrap());
    let mut rng = Rng::new(seed);
    let mut counts = [0; 4];
    for _ in 0..n {
        let q = rng.unit_quaternion();
        let t = center.map(|c| c + rng.range(-extent, extent));
        let pose = Pose::new(q, t);
        if !brute_force(a, b, &pose).is_empty() {
            counts[0] += 1;
            continue;
        }
        let want = oracle(a, b, &pose, true, side);
        let got = containment(&sa, a, &sb, b, &pose);
        assert_eq!(got, want, "pose {pose:?}");
        assert_eq!(inside(&sa, a, &sb, b, &pose), expected_inner(want));
        counts[match (want.b_in_a, want.a_in_b) {
            (true, _) => 1,
            (false, true) => 2,
            (false, false) => 3,
        }] += 1;
    }
    counts
}

#[test]
fn box_inside_box_translated_and_turned() {
    let big = generate::box_mesh([-10.0; 3], [10.0; 3]);
    let small = generate::box_mesh([-1.0; 3], [1.0; 3]);
    let (sbig, ssmall) = (Solid::new(&big).unwrap(), Solid::new(&small).unwrap());
    let turned = Pose::from_axis_angle([0.6, 0.0, 0.8], 0.7, [2.0, -3.0, 1.5]);
    for pose in [Pose::IDENTITY, turned, Pose::translation([8.5, 8.5, -8.5])] {
        assert!(brute_force(&big, &small, &pose).is_empty());
        assert_eq!(inside(&sbig, &big, &ssmall, &small, &pose), Some(Inner::B));
    }
    // The other way round: A the small box, B the big one posed around it.
    for pose in [Pose::IDENTITY, turned] {
        assert!(brute_force(&small, &big, &pose).is_empty());
        assert_eq!(
            inside(&ssmall, &small, &sbig, &big, &pose),
            Some(Inner::A),
            "{pose:?}"
        );
        assert_eq!(
            containment(&ssmall, &small, &sbig, &big, &pose),
            Containment {
                b_in_a: false,
                a_in_b: true
            }
        );
    }
    for pose in [
        Pose::translation([30.0, 0.0, 0.0]),
        Pose::from_axis_angle([0.0, 0.0, 1.0], 0.3, [0.0, -25.0, 3.0]),
    ] {
        assert!(brute_force(&big, &small, &pose).is_empty());
        assert_eq!(inside(&sbig, &big, &ssmall, &small, &pose), None);
        assert_eq!(inside(&ssmall, &small, &sbig, &big, &pose), None);
    }
    // Touching (a face of the small box on the big one's): pairs, and the vertices on the
    // surface count as not inside.
    let touch = Pose::translation([9.0, 0.0, 0.0]);
    assert!(!brute_force(&big, &small, &touch).is_empty());
    assert_eq!(sbig.contains(&big, touch.apply([1.0, 1.0, 1.0])), None);
}

#[test]
fn nested_spheres_random_poses_equal_the_oracle() {
    let big = generate::uv_sphere([0.0; 3], 1.0, 8, 16);
    let small = generate::uv_sphere([0.0; 3], 0.25, 5, 8);
    let side = |m: &Mesh, p: P3| convex_oracle(m, p);
    // B small, moved through and around A: inside, outside and contact.
    let c = random_poses(&big, &small, 1, 400, [0.0; 3], 1.2, &side);
    assert!(c[1] >= 10 && c[3] >= 10 && c[0] >= 10, "{c:?}");
    // B big, around A small: A inside B.
    let c = random_poses(&small, &big, 2, 400, [0.0; 3], 1.2, &side);
    assert!(c[2] >= 10 && c[3] >= 10 && c[0] >= 10, "{c:?}");
}

#[test]
fn boxes_in_spheres_random_poses_equal_the_oracle() {
    // Integer boxes: rays from their vertices and edges run along the sphere's grid.
    let sphere = generate::uv_sphere([0.0; 3], 4.0, 6, 12);
    let cube = generate::box_mesh([-1.0; 3], [1.0; 3]);
    let side = |m: &Mesh, p: P3| convex_oracle(m, p);
    // Near the centre (mostly inside) and off to one side (mostly outside or touching).
    for (seed, center, extent) in [(3, [0.0; 3], 2.0), (4, [5.0, 1.0, 0.0], 2.0)] {
        let c = random_poses(&sphere, &cube, seed, 150, center, extent, &side);
        assert!(c[1] + c[3] >= 10, "{c:?}");
        let c = random_poses(&cube, &sphere, seed + 10, 150, center, extent, &side);
        assert!(c[2] + c[3] >= 10, "{c:?}");
    }
}

#[test]
fn far_from_origin() {
    let o = 1e7;
    let big = generate::box_mesh(
        [o - 10.0, o - 10.0, o - 10.0],
        [o + 10.0, o + 10.0, o + 10.0],
    );
    let small = generate::uv_sphere([0.0; 3], 0.5, 5, 10);
    let side = |m: &Mesh, p: P3| convex_oracle(m, p);
    let c = random_poses(&big, &small, 5, 200, [o, o, o], 11.0, &side);
    assert!(c[1] >= 10 && c[3] >= 10, "{c:?}");
    // The sphere far from the origin, the box around it at the origin's side: A inside B.
    let ball = generate::uv_sphere([o, -o, o], 0.5, 5, 10);
    let cage = generate::box_mesh([-3.0; 3], [3.0; 3]);
    let c = random_poses(&ball, &cage, 6, 300, [o, -o, o], 5.0, &side);
    assert!(c[2] >= 10 && c[3] >= 10, "{c:?}");
    // One ulp inside and outside a face far from the origin.
    let s = Solid::new(&big).unwrap();
    let face = o + 10.0;
    assert_eq!(s.contains(&big, [face.next_down(), o, o]), Some(true));
    assert_eq!(s.contains(&big, [face.next_up(), o, o]), Some(false));
    assert_eq!(s.contains(&big, [face, o, o]), None);
}

#[test]
fn nested_tori_and_spheres_in_a_tube() {
    let ring = generate::torus([0.0; 3], 3.0, 1.0, 32, 16);
    let thin = generate::torus([0.0; 3], 3.0, 0.3, 32, 8);
    let (sring, sthin) = (Solid::new(&ring).unwrap(), Solid::new(&thin).unwrap());
    let side = |m: &Mesh, p: P3| winding_inside(m, p);
    // The thin ring inside the thick one's tube, turned about their common axis.
    for angle in [0.0, 0.1, 1.0, 2.5] {
        let pose = Pose::from_axis_angle([0.0, 0.0, 1.0], angle, [0.0; 3]);
        assert!(brute_force(&ring, &thin, &pose).is_empty());
        assert_eq!(inside(&sring, &ring, &sthin, &thin, &pose), Some(Inner::B));
        assert_eq!(
            containment(&sring, &ring, &sthin, &thin, &pose),
            oracle(&ring, &thin, &pose, true, &side)
        );
        assert_eq!(inside(&sthin, &thin, &sring, &ring, &pose), Some(Inner::A));
    }
    // Lifted out of the tube, above it: no contact, neither inside.
    for z in [1.5, 3.0] {
        let pose = Pose::translation([0.0, 0.0, z]);
        assert!(brute_force(&ring, &thin, &pose).is_empty());
        let got = containment(&sring, &ring, &sthin, &thin, &pose);
        assert_eq!(got, oracle(&ring, &thin, &pose, true, &side));
        assert_eq!(got, Containment::default());
    }
    // A small sphere wandering about the ring: in the tube, in the hole, outside.
    let ball = generate::uv_sphere([0.0; 3], 0.2, 5, 8);
    let c = random_poses(&ring, &ball, 7, 300, [0.0; 3], 4.2, &side);
    assert!(c[1] >= 10 && c[3] >= 10, "{c:?}");
    // The centre of the hole and the middle of the tube, exactly.
    assert_eq!(sring.contains(&ring, [0.0; 3]), Some(false));
    assert_eq!(sring.contains(&ring, [3.0, 0.0, 0.0]), Some(true));
    assert_eq!(sring.contains(&ring, [-3.0, 0.0, 0.0]), Some(true));
}

#[test]
fn integer_grid_points_against_an_integer_box() {
    // Every point of a half-integer grid around the box [0, 4]³: the rays from them meet
    // the box's vertices, edges and face diagonals; points on the surface must be found
    // exactly (None). The oracle is exact for a box.
    let m = generate::box_mesh([0.0; 3], [4.0; 3]);
    let s = Solid::new(&m).unwrap();
    let mut retried = 0;
    let mut on = 0;
    for i in -2..=10 {
        for j in -2..=10 {
            for k in -2..=10 {
                let p = [i, j, k].map(|c| f64::from(c) * 0.5);
                let (got, tries) = s.contains_tries(&m, p);
                assert_eq!(got, convex_side(&m, p), "{p:?}");
                retried += usize::from(tries > 1);
                on += usize::from(got.is_none());
            }
        }
    }
    // 9³ grid points in the closed box, 7³ of them inside: 386 on the surface.
    assert_eq!(on, 9 * 9 * 9 - 7 * 7 * 7);
    assert!(
        retried > 0,
        "no ray met an edge: the retry path is untested"
    );
}

#[test]
fn points_on_the_surface_are_on_it() {
    let m = generate::uv_sphere([0.5, -0.25, 2.0], 1.5, 7, 11);
    let s = Solid::new(&m).unwrap();
    for &v in &m.positions {
        assert_eq!(s.contains(&m, v), None, "vertex {v:?}");
    }
    // Edge points of a box (exact midpoints), and a rotated copy's vertices posed exactly
    // as the query poses them.
    let b = generate::box_mesh([-3.0, 1.0, 2.0], [5.0, 7.0, 4.0]);
    let sb = Solid::new(&b).unwrap();
    for t in &b.triangles {
        for i in 0..3 {
            let (u, v) = (
                b.positions[t[i] as usize],
                b.positions[t[(i + 1) % 3] as usize],
            );
            let mid = [0, 1, 2].map(|k| 0.5 * (u[k] + v[k]));
            assert_eq!(sb.contains(&b, mid), None, "{mid:?}");
        }
    }
    let pose = Pose::from_axis_angle([0.0, 0.6, 0.8], 1.1, [0.1, 0.2, 0.3]);
    for &v in &m.positions {
        assert_eq!(s.contains_posed(&m, &pose, pose.apply(v)), None);
    }
}

#[test]
fn contains_posed_equals_contains_on_the_posed_copy() {
    let m = generate::torus([1.0, 2.0, 3.0], 2.0, 0.7, 20, 10);
    let s = Solid::new(&m).unwrap();
    let mut rng = Rng::new(9);
    for _ in 0..20 {
        let pose = Pose::new(rng.unit_quaternion(), [rng.range(-1.0, 1.0), 0.5, -0.5]);
        let moved = m.map_positions(|p| pose.apply(p));
        let sm = Solid::new(&moved).unwrap();
        for _ in 0..20 {
            let p = [0, 1, 2].map(|_| rng.range(-3.0, 6.0));
            let got = s.contains_posed(&m, &pose, p);
            assert_eq!(got, sm.contains(&moved, p));
            assert_eq!(got, Some(winding_inside(&moved, p)));
        }
    }
}

/// Box [0, 1]³ as an STL-like soup: every triangle with its own three vertices.
fn box_soup(lo: P3, hi: P3) -> Mesh {
    let m = generate::box_mesh(lo, hi);
    let positions: Vec<P3> = (0..m.triangle_count())
        .flat_map(|i| m.triangle(i))
        .collect();
    let triangles = (0..m.triangle_count() as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect();
    Mesh::new(positions, triangles).unwrap()
}

#[test]
fn soups_are_closed_by_position() {
    let mut soup = box_soup([0.0; 3], [2.0; 3]);
    // Zeros written as −0.0 in some copies: the same position.
    for (i, p) in soup.positions.iter_mut().enumerate() {
        if i % 2 == 0 {
            *p = p.map(|c| if c == 0.0 { -0.0 } else { c });
        }
    }
    let s = Solid::new(&soup).unwrap();
    assert_eq!(s.components().len(), 1);
    assert_eq!(s.contains(&soup, [1.0, 1.0, 1.0]), Some(true));
    assert_eq!(s.contains(&soup, [1.0, 1.0, 2.5]), Some(false));
    assert_eq!(s.contains(&soup, [1.0, 0.5, 0.0]), None);
}

#[test]
fn open_meshes_are_refused_naming_an_edge() {
    let mut m = generate::box_mesh([0.0; 3], [1.0; 3]);
    let gone = m.triangles.remove(5); // one of the −y face
    let err = Solid::new(&m).unwrap_err();
    let MeshError::NotClosed {
        location: Location::Face(f),
        edge,
        ends,
        uses,
        ..
    } = &err
    else {
        panic!("{err}")
    };
    assert_eq!(*uses, 1);
    // The named edge is an edge of the hole: two corners of the removed triangle, and of
    // the named triangle.
    assert!(edge.iter().all(|v| gone.contains(v)), "{err}");
    assert!(edge.iter().all(|v| m.triangles[*f].contains(v)), "{err}");
    assert_eq!(*ends, edge.map(|v| m.positions[v as usize]));
    let text = err.to_string();
    assert!(
        text.contains("not a closed mesh") && text.contains("1 triangle,"),
        "{text}"
    );

    // An open sheet, and a soup with one triangle missing.
    assert!(matches!(
        Solid::new(&generate::grid(3, 3, 1.0, 0.0)),
        Err(MeshError::NotClosed { uses: 1, .. })
    ));
    let mut soup = box_soup([0.0; 3], [1.0; 3]);
    soup.triangles.pop();
    assert!(matches!(
        Solid::new(&soup),
        Err(MeshError::NotClosed { uses: 1, .. })
    ));
}

#[test]
fn non_manifold_edges_are_refused() {
    // A fin on an edge of a box: that edge is shared by three triangles, and the box's
    // triangles come first, so the edge named is the box's edge with its three uses.
    let mut m = generate::box_mesh([0.0; 3], [1.0; 3]);
    let apex = m.positions.len() as u32;
    m.positions.push([2.0, 2.0, 0.5]);
    m.triangles.push([3, 7, apex]); // corners 3 = (1, 1, 0) and 7 = (1, 1, 1)
    let err = Solid::new(&m).unwrap_err();
    let MeshError::NotClosed { edge, uses, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(*uses, 3, "{err}");
    let mut e = *edge;
    e.sort();
    assert_eq!(e, [3, 7], "{err}");
    // Two closed boxes sharing an edge: four triangles there.
    let other = generate::box_mesh([1.0, 1.0, 0.0], [2.0, 2.0, 1.0]);
    let both = generate::merge(&[generate::box_mesh([0.0; 3], [1.0; 3]), other]);
    assert!(matches!(
        Solid::new(&both),
        Err(MeshError::NotClosed { uses: 4, .. })
    ));
}

#[test]
fn degenerate_triangles() {
    // The box [0, 2]³ whose +z face has a vertex m = (1, 0, 2) on its edge from corner 4
    // to 5, and a collinear filler (4, 5, m) closing the T-junction, plus a triangle with
    // two corners at one position: still closed, the same solid.
    let mut b = generate::box_mesh([0.0; 3], [2.0; 3]);
    let m = b.positions.len() as u32;
    b.positions.push([1.0, 0.0, 2.0]);
    let plus_z = b.triangles.iter().position(|t| *t == [4, 5, 7]).unwrap();
    b.triangles[plus_z] = [4, m, 7];
    b.triangles.push([m, 5, 7]);
    b.triangles.push([4, 5, m]);
    b.triangles.push([6, 6, 2]);
    let s = Solid::new(&b).unwrap();
    let plain = generate::box_mesh([0.0; 3], [2.0; 3]);
    for i in -1..=5 {
        for j in -1..=5 {
            for k in -1..=5 {
                let p = [i, j, k].map(|c| f64::from(c) * 0.5);
                assert_eq!(s.contains(&b, p), convex_side(&plain, p), "{p:?}");
            }
        }
    }
    assert_eq!(s.contains(&b, [0.25, 0.0, 2.0]), None);
}

#[test]
fn several_components_and_hollow_solids() {
    let big = generate::uv_sphere([0.0; 3], 2.0, 8, 16);
    // A hollow ball: the big sphere and a smaller one inside (its orientation does not
    // matter for the parity).
    let cavity = generate::uv_sphere([0.0; 3], 1.0, 8, 16);
    let shell = generate::merge(&[big.clone(), cavity]);
    let sshell = Solid::new(&shell).unwrap();
    assert_eq!(sshell.components().len(), 2);
    let pebble = generate::box_mesh([-0.1; 3], [0.1; 3]);
    let spebble = Solid::new(&pebble).unwrap();
    let side = |m: &Mesh, p: P3| winding_inside(m, p);
    // In the cavity: not inside the material; in the wall: inside.
    for (pose, want) in [
        (Pose::IDENTITY, None),
        (Pose::translation([0.0, 0.0, 1.5]), Some(Inner::B)),
        (Pose::translation([1.0, 1.0, 0.0]), Some(Inner::B)),
        (Pose::translation([0.0, 3.0, 0.0]), None),
    ] {
        assert!(brute_force(&shell, &pebble, &pose).is_empty());
        assert_eq!(inside(&sshell, &shell, &spebble, &pebble, &pose), want);
        assert_eq!(
            expected_inner(oracle(&shell, &pebble, &pose, true, &side)),
            want
        );
    }
    // B of two components, one inside A and one outside: B (some component) inside A.
    let pair = generate::merge(&[
        pebble.clone(),
        generate::box_mesh([5.0, 5.0, 5.0], [6.0, 6.0, 6.0]),
    ]);
    let spair = Solid::new(&pair).unwrap();
    let sbig = Solid::new(&big).unwrap();
    assert_eq!(spair.components().len(), 2);
    assert!(brute_force(&big, &pair, &Pose::IDENTITY).is_empty());
    assert_eq!(
        inside(&sbig, &big, &spair, &pair, &Pose::IDENTITY),
        Some(Inner::B)
    );
    assert_eq!(
        containment(&sbig, &big, &spair, &pair, &Pose::IDENTITY),
        oracle(&big, &pair, &Pose::IDENTITY, false, &side)
    );
    // Each inside the other: a small part of each inside a big part of the other.
    let a = generate::merge(&[
        generate::box_mesh([-10.0; 3], [10.0; 3]),
        generate::box_mesh([100.0; 3], [101.0; 3]),
    ]);
    let b = generate::merge(&[
        generate::box_mesh([0.0; 3], [1.0; 3]),
        generate::box_mesh([90.0; 3], [110.0; 3]),
    ]);
    let (sa, sb) = (Solid::new(&a).unwrap(), Solid::new(&b).unwrap());
    let both = Containment {
        b_in_a: true,
        a_in_b: true,
    };
    assert!(brute_force(&a, &b, &Pose::IDENTITY).is_empty());
    assert_eq!(containment(&sa, &a, &sb, &b, &Pose::IDENTITY), both);
    assert_eq!(oracle(&a, &b, &Pose::IDENTITY, false, &side), both);
    assert_eq!(inside(&sa, &a, &sb, &b, &Pose::IDENTITY), Some(Inner::B));
}

#[test]
fn inner_names() {
    assert_eq!(Inner::A.as_str(), "a");
    assert_eq!(Inner::B.as_str(), "b");
}

#[test]
fn rays_in_a_face_plane() {
    // A box [-4, 4]³ (so the first ray from p goes towards (8, 4, 4)) and, inside it, a
    // tetrahedron with a face in the plane y = z. From p = (-3, -3, -3), in that plane, the
    // first ray runs within the plane and meets the face without p being on it: a
    // degenerate ray to retry, not a point on the surface.
    let tetra = Mesh::new(
        vec![
            [1.0, 0.0, 0.0],
            [3.0, 0.0, 0.0],
            [2.0, 2.0, 2.0],
            [2.0, 2.0, 0.0],
        ],
        vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
    )
    .unwrap();
    // The tetrahedron first: its face is met before the box's diagonals (which the first
    // ray meets too).
    let m = generate::merge(&[tetra, generate::box_mesh([-4.0; 3], [4.0; 3])]);
    let s = Solid::new(&m).unwrap();
    assert_eq!(s.components().len(), 2);
    let p = [-3.0; 3];
    let (got, tries) = s.contains_tries(&m, p);
    assert_eq!(got, Some(winding_inside(&m, p)));
    assert_eq!(got, Some(true));
    assert!(tries > 1);
    // Inside the tetrahedron (inside both: even), and on its face in the plane.
    assert_eq!(
        s.contains(&m, [2.0, 1.0, 0.5]),
        Some(winding_inside(&m, [2.0, 1.0, 0.5]))
    );
    assert_eq!(s.contains(&m, [2.0, 1.0, 0.5]), Some(false));
    assert_eq!(s.contains(&m, [2.0, 0.5, 0.5]), None);
}
