//! Scenes of the papers' experiments, shared by `meshcollide bench` and the criterion
//! benches: Zachmann's tumbling protocol (*Minimal Hierarchical Collision Detection*, 2002,
//! section 5), Klosowski et al.'s nested spheres and billiard flights (*Efficient Collision
//! Detection Using Bounding Volume Hierarchies of k-DOPs*, 1998, section 5.2.2),
//! Figueiredo's grid (*An R-Tree Collision Detection Algorithm for Polygonal Models*, 2009,
//! section 4). Generation only: the timing lives with the callers, so a test can rebuild
//! exactly the scene an experiment measured and query it directly.

use crate::mesh::{Mesh, generate};
use crate::rng::Rng;
use crate::{collider::Collider, kind::BvKind, pose::Pose, scene::Mode, scene::QueryOptions};

/// `m` scaled uniformly so its bounding box fits a cube of side 2 centred at the origin
/// (its longest side becomes 2), as Zachmann's protocol asks.
pub fn fit_cube(m: &Mesh) -> Mesh {
    let (lo, hi) = m.bounds();
    let c: [f64; 3] = std::array::from_fn(|k| (lo[k] + hi[k]) / 2.0);
    let side = (0..3).map(|k| hi[k] - lo[k]).fold(0.0f64, f64::max);
    let s = if side > 0.0 { 2.0 / side } else { 1.0 };
    m.map_positions(|p| std::array::from_fn(|k| (p[k] - c[k]) * s))
}

/// The default model of `tumble` and `rules` when no `--model` is given: a torus knot-like
/// ring of two interlinked tori merged into one mesh (non-convex, with a hole, so the
/// tumbling copies interlock), about `tris` triangles, fitted into the cube of side 2.
pub fn default_model(tris: usize) -> Mesh {
    let per = (tris / 2).max(18);
    let n_minor = ((per as f64 / 5.0).sqrt().round() as u32).max(3);
    let n_major = (f64::from(n_minor) * 2.5).round() as u32;
    let a = generate::torus([0.0; 3], 1.0, 0.3, n_major, n_minor);
    let b = generate::torus([1.0, 0.0, 0.0], 1.0, 0.3, n_major, n_minor)
        .map_positions(|[x, y, z]| [x, z, y]);
    fit_cube(&generate::merge(&[a, b]))
}

/// The tumbling turn of B (a copy of the fitted model) at centre distance `d` along x:
/// one full turn about z and x in `steps` steps, about B's bounding-box centre (the origin
/// after [`fit_cube`]).
pub fn tumble_poses(steps: usize, d: f64) -> Vec<Pose> {
    crate::pose::tumbling_poses(steps, [0.0; 3], [d, 0.0, 0.0])
}

/// Klosowski et al.'s nested spheres (*Efficient Collision Detection Using Bounding Volume
/// Hierarchies of k-DOPs*, 1998, section 5.2.2, Tables 6 and 7): the outer sphere of radius
/// 1 with about `tris` triangles and the inner sphere, a copy scaled by `1 − alpha` about
/// the centre. Our choices where the paper is silent: the outer sphere is the environment
/// A, the inner one the flying object B at the identity pose, both with leaf size 1
/// ("threshold t = 1"), a UV sphere tessellation (ours: `sphere_with_triangles`). The inner
/// polyhedron lies strictly inside the outer one (a scaled copy of a convex polyhedron
/// around its centre), so there is no contact and Nv is the whole cost.
pub fn nested_spheres(tris: usize, alpha: f64) -> (Mesh, Mesh) {
    let outer = generate::sphere_with_triangles([0.0; 3], 1.0, tris);
    let s = 1.0 - alpha;
    let inner = outer.map_positions(|p| p.map(|c| c * s));
    (outer, inner)
}

/// Figueiredo's grid (*An R-Tree Collision Detection Algorithm for Polygonal Models*, 2009,
/// section 4, Fig. 5): 46,080 triangles. The figure is not in our copy of the paper; our
/// choice is a flat square-celled grid of `nx × ny` = 160 × 144 cells (2 triangles each),
/// fitted into the cube of side 2. `scale` in (0, 1] shrinks the cell count for quick runs
/// (about `scale²` of the triangles).
pub fn grid_model(scale: f64) -> Mesh {
    let s = scale.clamp(1e-3, 1.0);
    let nx = ((160.0 * s).round() as u32).max(1);
    let ny = ((144.0 * s).round() as u32).max(1);
    fit_cube(&generate::grid(nx, ny, 1.0, 0.0))
}

/// Positions of the benchmarking suite the grid experiment uses (Figueiredo, section 4;
/// Trenkel, Weller and Zachmann's suite): per position a random orientation of B and a
/// random direction; "distance 0.0" is the closest free placement along that direction
/// (found by bisection to `1e-4` of the object size with exact queries: free there, in
/// contact `1e-4` closer), and distance `d` moves B a further `d` × object size (the
/// longest side of the bounding box, 2 after [`fit_cube`]) along the direction. Returns,
/// per position, the touching offset `s0` and the pose builder's inputs; see `placed`.
pub fn grid_positions(
    a: &Mesh,
    b: &Mesh,
    n: usize,
    seed: u64,
    bv: BvKind,
) -> crate::error::Result<Vec<Placement>> {
    let col = Collider::builder(a, b).bv(bv).paper().build()?;
    let first = QueryOptions {
        mode: Mode::First,
        ..QueryOptions::PAPER
    };
    let reach = radius(a) + radius(b) + 1e-3;
    let mut rng = Rng::new(seed);
    Ok((0..n)
        .map(|_| {
            let q = rng.unit_quaternion();
            let dir = random_direction(&mut rng);
            let hits = |s: f64| {
                let p = Pose::new(q, dir.map(|c| c * s));
                !col.collide_with(&p, &first).pairs.is_empty()
            };
            // Free at `hi` (bounding spheres apart), in contact at `lo`; bisect. Free even
            // with the centres together (possible for open meshes): distance 0 is there.
            let (mut lo, mut hi) = (0.0, reach);
            if !hits(lo) {
                return Placement { q, dir, s0: 0.0 };
            }
            while hi - lo > 1e-4 {
                let mid = 0.5 * (lo + hi);
                if hits(mid) { lo = mid } else { hi = mid }
            }
            Placement { q, dir, s0: hi }
        })
        .collect())
}

/// One position of [`grid_positions`].
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    pub q: [f64; 4],
    pub dir: [f64; 3],
    /// Offset along `dir` of the closest free placement found.
    pub s0: f64,
}

impl Placement {
    /// The pose at relative distance `d` (fraction of the object size `size`).
    pub fn placed(&self, d: f64, size: f64) -> Pose {
        let s = self.s0 + d * size;
        Pose::new(self.q, self.dir.map(|c| c * s))
    }
}

fn radius(m: &Mesh) -> f64 {
    m.positions
        .iter()
        .map(|p| p.iter().map(|&c| c.powi(2)).sum::<f64>().sqrt())
        .fold(0.0, f64::max)
}

fn random_direction(rng: &mut Rng) -> [f64; 3] {
    loop {
        let v: [f64; 3] = std::array::from_fn(|_| rng.range(-1.0, 1.0));
        let n = v.iter().map(|c| c * c).sum::<f64>().sqrt();
        if n > 0.1 && n <= 1.0 {
            return v.map(|c| c / n);
        }
    }
}

/// `n` random disjoint tetrahedra: one per cell of a cubic lattice of cells of side `cell`
/// (the first `n` cells of the smallest cube of cells holding `n`), each a randomly turned
/// regular tetrahedron of circumradius in `[0.3, 0.45]·cell` at a jittered point, so no two
/// tetrahedra can meet. The lattice is centred at the origin.
pub fn tetrahedra_field(seed: u64, n: usize, cell: f64) -> Mesh {
    let side = (n as f64).cbrt().ceil().max(1.0) as usize;
    let half = side as f64 * cell / 2.0;
    let mut rng = Rng::new(seed);
    let tets: Vec<Mesh> = (0..n)
        .map(|i| {
            let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
            let r = rng.range(0.3, 0.45) * cell;
            let slack = 0.5 * cell - r;
            let c = [x, y, z].map(|k| (k as f64 + 0.5) * cell - half + rng.range(-slack, slack));
            tetra(&mut rng, c, r)
        })
        .collect();
    generate::merge(&tets)
}

/// A randomly turned regular tetrahedron of circumradius `r` at `c`.
fn tetra(rng: &mut Rng, c: [f64; 3], r: f64) -> Mesh {
    let rot = Pose::new(rng.unit_quaternion(), c);
    generate::tetrahedron([0.0; 3], r).map_positions(|p| rot.apply(p))
}

/// The "axe-shaped" flying object of the Swept set-up (Klosowski et al., 5.2.2): a handle
/// (a long box) and a head (a flat box), 24 triangles, fitted into the cube of side 2.
pub fn axe() -> Mesh {
    let handle = generate::box_mesh([-0.1, -0.1, -1.0], [0.1, 0.1, 1.0]);
    let head = generate::box_mesh([-0.6, -0.05, 0.5], [0.1, 0.05, 1.0]);
    fit_cube(&generate::merge(&[handle, head]))
}

/// A billiard path (Klosowski et al., 5.2.2): B moves in straight steps of length `speed`
/// while turning by `spin` radians per step about a fixed random axis, inside the box
/// `[-bound, bound]³` (its centre reflects off the walls). `hit(step, pose)` says whether B
/// collides there; the paper "simply reverse\[s\] the trajectory when a collision occurs".
/// Our choices: the reversal happens on the step that enters contact only (reversing again
/// on every step in contact would ping-pong B inside the obstacle whenever one step goes
/// deeper than the next step backs out), and the new direction is also turned by a random
/// amount, so B does not retrace the same segment forever. Returns the poses visited; `hit`
/// is called once per pose, in order.
pub fn billiard(
    seed: u64,
    steps: usize,
    start: [f64; 3],
    speed: f64,
    spin: f64,
    bound: f64,
    mut hit: impl FnMut(usize, &Pose) -> bool,
) -> Vec<Pose> {
    let mut rng = Rng::new(seed);
    let mut vel = random_direction(&mut rng).map(|c| c * speed);
    let axis = random_direction(&mut rng);
    let mut angle = 0.0f64;
    let mut dang = spin;
    let mut pos = start;
    let mut out = Vec::with_capacity(steps);
    let mut was_in_contact = false;
    for i in 0..steps {
        let pose = Pose::from_axis_angle(axis, angle, pos);
        let contact = hit(i, &pose);
        out.push(pose);
        let enters = contact && !was_in_contact;
        was_in_contact = contact;
        if enters {
            vel = vel.map(|c| -c);
            dang = -dang;
            let turn = random_direction(&mut rng);
            let mix = rng.range(0.0, 1.0);
            let v: [f64; 3] = std::array::from_fn(|k| vel[k] / speed + mix * turn[k]);
            let n = v.iter().map(|c| c * c).sum::<f64>().sqrt().max(1e-12);
            vel = v.map(|c| c / n * speed);
        }
        for k in 0..3 {
            pos[k] += vel[k];
            if pos[k].abs() > bound {
                vel[k] = -vel[k];
                pos[k] = pos[k].clamp(-bound, bound);
            }
        }
        angle += dang;
    }
    out
}

/// Half-side of the box the Swept path stays in.
pub const SWEPT_BOUND: f64 = 5.0;

/// The Swept set-up (Klosowski et al., 5.2.2): "a moving object is swept through space on a
/// random motion, then numerous obstacles are randomly placed close to, but not
/// penetrating, the swept volume". B's billiard path (`steps` poses, no obstacles) comes
/// first; then up to `n` tetrahedra of circumradius 0.1–0.2 are drawn within B's bounding
/// radius + 0.5 of a random pose's centre and kept only if no step of the path touches them
/// (an exact batch query) and their centres are at least 0.4 (twice the largest radius)
/// from every kept one, so they are disjoint. Up to 8 rounds of candidates; fewer than `n`
/// may remain.
pub fn swept_scene(
    seed: u64,
    fly: &Mesh,
    n: usize,
    steps: usize,
) -> crate::error::Result<(Mesh, Vec<Pose>)> {
    use std::collections::HashMap;
    let path = billiard(
        seed,
        steps,
        [0.0; 3],
        0.05,
        std::f64::consts::TAU / 2000.0,
        SWEPT_BOUND,
        |_, _| false,
    );
    let reach = radius(fly) + 0.5;
    let mut rng = Rng::new(seed ^ 0x5EED_5EED);
    let mut kept: Vec<Mesh> = Vec::new();
    let mut cells: HashMap<[i64; 3], Vec<[f64; 3]>> = HashMap::new();
    for _round in 0..8 {
        if kept.len() >= n || path.is_empty() {
            break;
        }
        let want = 2 * (n - kept.len());
        let cand: Vec<([f64; 3], Mesh)> = (0..want)
            .map(|_| {
                let p = &path[rng.below(path.len() as u64) as usize];
                let dir = random_direction(&mut rng);
                let dist = rng.range(0.0, reach);
                let c: [f64; 3] = std::array::from_fn(|k| p.t[k] + dir[k] * dist);
                let r = rng.range(0.1, 0.2);
                (c, tetra(&mut rng, c, r))
            })
            .collect();
        let env = generate::merge(&cand.iter().map(|(_, m)| m.clone()).collect::<Vec<_>>());
        let col = Collider::builder(&env, fly).paper().build()?;
        let mut hit = vec![false; cand.len()];
        for r in col.collide_batch(&path) {
            for &(ta, _) in &r.pairs {
                hit[ta as usize / 4] = true;
            }
        }
        for ((c, m), h) in cand.into_iter().zip(hit) {
            if h || kept.len() >= n {
                continue;
            }
            let key = c.map(|x| (x / 0.4).floor() as i64);
            let near = (0..27).any(|j| {
                let k = [
                    key[0] + j % 3 - 1,
                    key[1] + j / 3 % 3 - 1,
                    key[2] + j / 9 - 1,
                ];
                cells.get(&k).is_some_and(|v| {
                    v.iter()
                        .any(|q| (0..3).map(|i| (q[i] - c[i]).powi(2)).sum::<f64>() < 0.16)
                })
            });
            if !near {
                cells.entry(key).or_default().push(c);
                kept.push(m);
            }
        }
    }
    Ok((generate::merge(&kept), path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_cube_has_side_two_centred() {
        let m = fit_cube(&generate::box_mesh([1.0, 2.0, 3.0], [5.0, 3.0, 4.0]));
        assert_eq!(m.bounds(), ([-1.0, -0.25, -0.25], [1.0, 0.25, 0.25]));
    }

    #[test]
    fn nested_spheres_do_not_touch() {
        for alpha in [0.1, 0.001] {
            let (a, b) = nested_spheres(200, alpha);
            assert!(crate::scene::brute_force(&a, &b, &Pose::IDENTITY).is_empty());
        }
    }

    #[test]
    fn tetrahedra_are_disjoint() {
        let m = tetrahedra_field(3, 30, 1.0);
        assert_eq!(m.triangle_count(), 120);
        // Every contact of the field with itself is within one tetrahedron.
        for (i, j) in crate::scene::brute_force(&m, &m, &Pose::IDENTITY) {
            assert_eq!(i / 4, j / 4);
        }
    }

    #[test]
    fn swept_obstacles_are_never_hit() {
        let fly = axe();
        let (env, path) = swept_scene(2, &fly, 40, 30).unwrap();
        assert_eq!(path.len(), 30);
        assert!(env.triangle_count() >= 4 * 20, "{}", env.triangle_count());
        for p in path.iter().step_by(5) {
            assert!(crate::scene::brute_force(&env, &fly, p).is_empty());
        }
        for (i, j) in crate::scene::brute_force(&env, &env, &Pose::IDENTITY) {
            assert_eq!(i / 4, j / 4);
        }
    }

    #[test]
    fn grid_distance_zero_is_free_and_close() {
        let g = grid_model(0.05);
        let ps = grid_positions(&g, &g, 3, 1, BvKind::Kdop18).unwrap();
        for p in ps {
            assert!(crate::scene::brute_force(&g, &g, &p.placed(0.0, 2.0)).is_empty());
            let closer = Pose::new(p.q, p.dir.map(|c| c * (p.s0 - 3e-4)));
            assert!(!crate::scene::brute_force(&g, &g, &closer).is_empty());
        }
    }
}
