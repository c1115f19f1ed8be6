//! The narrow phase of a scene: a pair of bodies, both posed in the world, asked of the
//! two-mesh machinery ([`crate::Collider`]), which poses B in A's frame and leaves A as
//! written, and still decided exactly on the world coordinates of both.
//!
//! A scene's contract (`docs/FORMATS.md`, "Scenes of many bodies") is exactness on the world
//! f64 coordinates: body `X`'s vertex `p` is at `fl(M_X·p + t_X)` ([`Pose::apply`]), for both
//! bodies of a pair. The pair machinery decides on A's coordinates as written and B's posed
//! by one pose. Two cases:
//!
//! - **One body at the identity** (its matrix exactly `I`, its translation exactly 0: a
//!   static environment is usually placed so): its world coordinates are its model ones bit
//!   for bit (`1·p₀ + 0·p₁ + 0·p₂ + 0 = p₀`), so it is A, the other body's world pose is
//!   the query's pose, and the pair query is the scene's answer as it stands.
//! - **Otherwise** the pose of B relative to A is computed in f64 and the pair is asked as
//!   a tolerance query ([`crate::proximity`]) with the bound `ε` of [`relative`]: every
//!   pair of triangles that meets in the world is within `ε` in A's frame, so the tolerance
//!   query's exact answer holds every world contact, and each of its candidates is then
//!   decided exactly on the world coordinates ([`world_intersect`]).

use super::{Body, BodyKind, SceneContact};
use crate::collider::{Collider, Contacts};
use crate::mesh::{MIN_COORDINATE, Mesh};
use crate::pose::{Pose, ROTATION_FLUSH};
use crate::scene::QueryOptions;

/// Whether `pose` maps every point to itself bit for bit: matrix exactly `I`, translation
/// exactly 0.
pub fn is_identity(pose: &Pose) -> bool {
    pose.t == [0.0; 3] && pose.r == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
}

/// Largest orthogonality defect `max |(MᵀM − I)_ij|` of A's matrix that [`relative`]
/// accepts: `2^-10`, far above what [`Pose::new`] (about `2^-52`) and [`Pose::from_rows`]
/// (`10^-6`) let through.
pub const MAX_DEFECT: f64 = 1.0 / 1024.0;

/// The largest `|p₀| + |p₁| + |p₂|` over the vertices of `mesh`'s triangles: `ρ` of the
/// bound of [`relative`].
pub fn l1_radius(mesh: &Mesh) -> f64 {
    mesh.triangles
        .iter()
        .flatten()
        .map(|&v| {
            let p = mesh.positions[v as usize];
            p[0].abs() + p[1].abs() + p[2].abs()
        })
        .fold(0.0, f64::max)
}

/// B's pose in A's frame, computed in f64, and a tolerance `ε` such that every pair of
/// triangles that meets in the world (A posed by `a`, B by `b`, both by [`Pose::apply`]) is
/// within `ε` of each other in A's frame (A as written, B by the returned pose). `rho_a`,
/// `rho_b` are [`l1_radius`] of the two meshes. `None` when A's matrix is further from
/// orthonormal than [`MAX_DEFECT`].
///
/// The relative pose is `M = fl(M_Aᵀ·M_B)` (entries below `2^-60` set to 0, as
/// [`Pose::new`] does) and `t = fl(M_Aᵀ·fl(t_B − t_A))` (coordinates below
/// [`MIN_COORDINATE`] set to 0), and
/// `ε = (2⁻⁴⁰ + 8·d)·S + 2⁻¹⁸⁰`, `S = ρ_A + ρ_B + ‖t_A‖₁ + ‖t_B‖₁`, `d = max |(M_AᵀM_A − I)_ij|`.
///
/// Proof. Let `u = 2⁻⁵³` and `L(x) = M_A⁻¹(x − t_A)`, the exact inverse of A's world map
/// (`M_AᵀM_A = I + E`, `‖E‖₂ ≤ 3d ≤ 3·2⁻¹⁰`, so `M_A` is invertible, `‖M_A⁻¹‖₂ ≤ 1.01` and
/// `‖M_A⁻¹ − M_Aᵀ‖₂ = ‖((I + E)⁻¹ − I)M_Aᵀ‖₂ ≤ 3.1d`). A world vertex is
/// `w = M p + t + e` with `|e_i| ≤ γ₄(Σ_j|M_ij||p_j| + |t_i|)`, so `‖e‖₂ ≤ 7.1u(ρ + ‖t‖₁)`
/// (entries of `M` are at most `1 + 2d`). `L` is affine, so a world point of A's triangle,
/// a convex combination of its `w`'s, maps to the same combination of the `L(w)`'s, each
/// within `‖M_A⁻¹e_A‖ ≤ 7.2uS` of the vertex as written: within `7.2uS` of A's triangle. For
/// B, `L(w_B) − v` (with `v = fl(M p + t)` the vertex the pair query uses) is
/// `(M_A⁻¹ − M_Aᵀ)(M_B p + t_B − t_A) + M_A⁻¹e_B − F p − f − e'`, where `F = M − M_AᵀM_B`
/// (rounding `γ₃` per entry and the flush: `‖Fp‖ ≤ 6uS`), `f` the error of `t` (`≤ 8uS`
/// and the flush `≤ √3·2⁻²⁰⁰`) and `e'` the rounding of `v` (`≤ 7.2uS`): at most
/// `3.2dS + 29uS + 2⁻¹⁹⁹`. A world point common to both triangles thus maps to a point
/// within `7.2uS` of A's triangle and `3.2dS + 29uS + 2⁻¹⁹⁹` of B's posed one, so their
/// distance is at most `3.2dS + 37uS + 2⁻¹⁹⁹ < ε` (`2⁻⁴⁰ = 8192u`); the f64 evaluation of
/// `ε` errs by a few `u` relative, far inside that slack.
pub fn relative(a: &Pose, b: &Pose, rho_a: f64, rho_b: f64) -> Option<(Pose, f64)> {
    let (ma, mb) = (&a.r, &b.r);
    let mut d: f64 = 0.0;
    for i in 0..3 {
        for j in 0..3 {
            let g = ma[0][i] * ma[0][j] + ma[1][i] * ma[1][j] + ma[2][i] * ma[2][j];
            d = d.max((g - if i == j { 1.0 } else { 0.0 }).abs());
        }
    }
    if d.is_nan() || d > MAX_DEFECT {
        return None;
    }
    let mut r = [[0.0; 3]; 3];
    for (i, row) in r.iter_mut().enumerate() {
        for (j, e) in row.iter_mut().enumerate() {
            let x = ma[0][i] * mb[0][j] + ma[1][i] * mb[1][j] + ma[2][i] * mb[2][j];
            *e = if x.abs() < ROTATION_FLUSH { 0.0 } else { x };
        }
    }
    let dt = [0, 1, 2].map(|k| b.t[k] - a.t[k]);
    let t = [0, 1, 2].map(|i| {
        let x = ma[0][i] * dt[0] + ma[1][i] * dt[1] + ma[2][i] * dt[2];
        if x.abs() < MIN_COORDINATE { 0.0 } else { x }
    });
    let l1 = |v: &[f64; 3]| v[0].abs() + v[1].abs() + v[2].abs();
    let s = rho_a + rho_b + l1(&a.t) + l1(&b.t);
    let eps = (2f64.powi(-40) + 8.0 * d) * s + 2f64.powi(-180);
    Some((Pose::from_rows_unchecked(r, t), eps))
}

/// Triangle `i` of `mesh` at its world pose (each corner by [`Pose::apply`]).
#[inline]
pub fn world_triangle(mesh: &Mesh, pose: &Pose, i: u32) -> [[f64; 3]; 3] {
    mesh.triangle(i as usize).map(|p| pose.apply(p))
}

/// Whether triangle `ia` of body A and `ib` of body B meet in the world, exactly.
#[inline]
pub fn world_intersect(a: (&Mesh, &Pose, u32), b: (&Mesh, &Pose, u32)) -> bool {
    crate::tri::tri_tri_intersect(
        &world_triangle(a.0, a.1, a.2),
        &world_triangle(b.0, b.1, b.2),
    )
}

/// The world box of a body: its mesh's bounds `(lo, hi)` (of the vertices its triangles
/// use) under `pose`, widened so that it holds every world vertex as [`Pose::apply`]
/// rounds it.
///
/// Per world axis `i`, the exact image of the model box is the interval from
/// `Σ_j min(M_ij lo_j, M_ij hi_j) + t_i` to `Σ_j max(…) + t_i`. Both sums, evaluated in f64,
/// and each world vertex's own
/// rounding err by at most `γ₄·S_i`, `S_i = Σ_j |M_ij|·max(|lo_j|, |hi_j|) + |t_i|`; the
/// box is widened by `2⁻⁴⁰·S_i` (`= 8192u·S_i`, far more than `2γ₄·S_i` plus the rounding
/// of the widening itself) and then by one ulp outward.
pub fn world_box(bounds: &([f64; 3], [f64; 3]), pose: &Pose) -> super::sweep::Aabb {
    let (lo, hi) = bounds;
    let mut out = [[0.0; 3]; 2];
    for (i, row) in pose.r.iter().enumerate() {
        let (mut a, mut b, mut s) = (pose.t[i], pose.t[i], pose.t[i].abs());
        for (j, &m) in row.iter().enumerate() {
            let (x, y) = (m * lo[j], m * hi[j]);
            a += x.min(y);
            b += x.max(y);
            s += m.abs() * lo[j].abs().max(hi[j].abs());
        }
        let margin = s * 2f64.powi(-40);
        out[0][i] = (a - margin).next_down();
        out[1][i] = (b + margin).next_up();
    }
    out
}

/// One mesh pair's batch on the CPU: the pair query as asked ([`QueryOptions::tolerance`]
/// zero), or the candidates within the tolerance, whose every pair the caller decides on the
/// world coordinates ([`crate::kdop::candidates`]: the k-DOPs' grown test without a leaf
/// test, which would be the distance decision on coordinates the scene does not use).
pub(super) fn cpu_batch(
    c: &Collider,
    poses: &[Pose],
    opts: &QueryOptions,
) -> crate::error::Result<Vec<Contacts>> {
    use crate::collider::{AnyScene, AnySub};
    use crate::kdop::{KdopScene, candidates::Candidates};
    fn run<const H: usize>(scene: &KdopScene<H>, poses: &[Pose], eps: f64) -> Vec<Contacts> {
        let c = Candidates { scene, eps };
        crate::scene::collide_batch(&c, poses, &QueryOptions::default(), None)
            .into_iter()
            .map(|r| r.map_sub(AnySub::from))
            .collect()
    }
    let eps = opts.tolerance.get();
    if eps == 0.0 {
        return Ok(c.collide_batch_with(poses, opts, None));
    }
    Ok(match c.scene() {
        AnyScene::Kdop6(s) => run(s, poses, eps),
        AnyScene::Kdop14(s) => run(s, poses, eps),
        AnyScene::Kdop18(s) => run(s, poses, eps),
        AnyScene::Kdop26(s) => run(s, poses, eps),
        // A scene builds k-DOP colliders only (`Scene::new`).
        _ => c.collide_batch_with(poses, opts, None),
    })
}

/// The oracle: every pair of present bodies (at least one moving), every pair of their
/// triangles, decided exactly on the world coordinates; with `self_pairs`, every moving
/// body's own pairs by the self-collision rule on its world coordinates. Sorted.
pub fn brute_force(bodies: &[Body], poses: &[Option<Pose>], self_pairs: bool) -> Vec<SceneContact> {
    let world = |i: usize| -> Option<Mesh> {
        let p = poses[i]?;
        Some(bodies[i].mesh.map_positions(|q| p.apply(q)))
    };
    let worlds: Vec<Option<Mesh>> = (0..bodies.len()).map(world).collect();
    let mut out = vec![];
    for i in 0..bodies.len() {
        let Some(wi) = &worlds[i] else { continue };
        for j in i + 1..bodies.len() {
            let Some(wj) = &worlds[j] else { continue };
            if bodies[i].kind == BodyKind::Static && bodies[j].kind == BodyKind::Static {
                continue;
            }
            for (ta, tb) in crate::scene::brute_force(wi, wj, &Pose::IDENTITY) {
                out.push(SceneContact {
                    body_a: i as u32,
                    body_b: j as u32,
                    tri_a: ta,
                    tri_b: tb,
                });
            }
        }
        if self_pairs && bodies[i].kind == BodyKind::Moving {
            for (ta, tb) in crate::self_collide::brute_force_self(wi) {
                out.push(SceneContact {
                    body_a: i as u32,
                    body_b: i as u32,
                    tri_a: ta,
                    tri_b: tb,
                });
            }
        }
    }
    out.sort_unstable_by_key(|c| (c.body_a, c.body_b, c.tri_a, c.tri_b));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    /// The bound of [`relative`] holds at its edges: vertices far from the origin (2^40),
    /// translations far out, and random rotations; each world triangle pair that meets is
    /// within ε in A's frame, checked with the exact tolerance decision.
    #[test]
    fn world_contacts_are_within_the_bound_in_a_frame() {
        let mut rng = Rng::new(7);
        let mut checked = 0;
        for round in 0..400 {
            let scale = [1.0, 1e-3, 2f64.powi(40)][round % 3];
            let far = [0.0, 1.0, 1e7, 2f64.powi(45)][round % 4];
            let tri = |rng: &mut Rng| [0; 3].map(|_| [0; 3].map(|_| rng.range(-1.0, 1.0) * scale));
            let ta = tri(&mut rng);
            let tb = tri(&mut rng);
            let a = crate::mesh::Mesh {
                positions: ta.to_vec(),
                triangles: vec![[0, 1, 2]],
            };
            let b = crate::mesh::Mesh {
                positions: tb.to_vec(),
                triangles: vec![[0, 1, 2]],
            };
            let off = [far, -far * 0.5, far * 0.25];
            let pa = Pose::new(rng.unit_quaternion(), off);
            let pb = Pose::new(rng.unit_quaternion(), off);
            let meet = world_intersect((&a, &pa, 0), (&b, &pb, 0));
            let (rel, eps) = relative(&pa, &pb, l1_radius(&a), l1_radius(&b)).unwrap();
            let posed = tb.map(|p| rel.apply(p));
            if meet {
                checked += 1;
                assert!(
                    crate::proximity::tri_tri_within(&ta, &posed, eps),
                    "round {round}"
                );
            }
        }
        assert!(checked > 20, "only {checked} meeting pairs");
    }

    #[test]
    fn world_boxes_hold_every_posed_vertex() {
        let mut rng = Rng::new(3);
        for round in 0..200 {
            let s = [1.0, 1e9, 1e-9][round % 3];
            let m = crate::mesh::generate::random_soup(round as u64, 30, 5.0 * s, s);
            let pose = Pose::new(rng.unit_quaternion(), [rng.range(-1e8, 1e8), 0.5, -3.0]);
            let b = world_box(&m.bounds(), &pose);
            for p in &m.positions {
                let w = pose.apply(*p);
                for k in 0..3 {
                    assert!(b[0][k] <= w[k] && w[k] <= b[1][k], "round {round}");
                }
            }
        }
    }

    #[test]
    fn identity_is_exactly_the_identity() {
        assert!(is_identity(&Pose::new([1.0, 0.0, 0.0, 0.0], [0.0; 3])));
        assert!(!is_identity(&Pose::new(
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 1e-100]
        )));
        let p = [3.25, -0.0, 1e-30];
        assert_eq!(
            Pose::new([1.0, 0.0, 0.0, 0.0], [0.0; 3]).apply(p),
            [3.25, 0.0, 1e-30]
        );
    }
}
