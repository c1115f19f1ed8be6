//! Generated scenes: meshes (grid and float soups, tori), poses (exact, random, quarter
//! turns, tumbling), and the deforming scenes.

use meshcollide::rng::Rng;
use meshcollide::{Mesh, Pose};

/// `n` random triangles on a half-integer grid of 4 cells per side: coplanar, touching and
/// degenerate contacts on purpose (GPU parity tests).
pub fn grid_soup(rng: &mut Rng, n: u32) -> Mesh {
    meshcollide::mesh::generate::grid_soup(rng, n as usize, 4)
}

/// `n` random triangles of edges up to 0.6 in the unit cube (`generate::random_soup`, seeded
/// from `rng`): crossings in general position.
pub fn float_soup(rng: &mut Rng, n: usize) -> Mesh {
    meshcollide::mesh::generate::random_soup(rng.next_u64(), n, 1.0, 0.6)
}

/// A pose with an exact matrix (a half-turn about a coordinate axis, or none) and a
/// half-integer translation in [−1.5, 1.5]: grid coordinates stay exact, contacts touch
/// exactly.
pub fn exact_pose(rng: &mut Rng) -> Pose {
    let q = match rng.below(4) {
        0 => [1.0, 0.0, 0.0, 0.0],
        1 => [0.0, 1.0, 0.0, 0.0],
        2 => [0.0, 0.0, 1.0, 0.0],
        _ => [0.0, 0.0, 0.0, 1.0],
    };
    Pose::new(q, [0; 3].map(|_| (rng.below(7) as f64 - 3.0) * 0.5))
}

/// A random rotation and a translation in [−`reach`, `reach`]³.
pub fn float_pose(rng: &mut Rng, reach: f64) -> Pose {
    Pose::new(
        rng.unit_quaternion(),
        [0; 3].map(|_| rng.range(-reach, reach)),
    )
}

/// [`exact_pose`] if `exact`, else [`float_pose`] within `reach`.
pub fn random_pose(rng: &mut Rng, exact: bool, reach: f64) -> Pose {
    if exact {
        exact_pose(rng)
    } else {
        float_pose(rng, reach)
    }
}

/// `n` poses of quarter and half turns (cycling through the identity, z, x and y turns)
/// with random half-integer shifts in [−1, 1]: with [`grid_soup`]s they touch, share faces
/// and overlap in coplanar patches (the GPU parity tests' hard cases).
pub fn quarter_turns(rng: &mut Rng, n: usize) -> Vec<Pose> {
    (0..n)
        .map(|i| {
            let q = [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.5f64.sqrt(), 0.0, 0.5f64.sqrt(), 0.0],
            ][i % 4];
            Pose::new(q, [0; 3].map(|_| (rng.below(5) as f64 - 2.0) * 0.5))
        })
        .collect()
}

/// `n` poses near the identity (seeded by `seed`): the rotation of the quaternion
/// `(1, x, y, z)` and the shift `(x', y', z')`, each in [−0.05, 0.05] (the deforming
/// scenes, whose frames do the moving).
pub fn small_poses(seed: u64, n: usize) -> Vec<Pose> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let q = [
                1.0,
                rng.range(-0.05, 0.05),
                rng.range(-0.05, 0.05),
                rng.range(-0.05, 0.05),
            ];
            Pose::new(q, [0, 1, 2].map(|_| rng.range(-0.05, 0.05)))
        })
        .collect()
}

/// Two interlocked tori (major radius 1, minor 0.3), B in the xz plane.
pub fn tori(n: u32) -> (Mesh, Mesh) {
    let a = meshcollide::mesh::generate::torus([0.0; 3], 1.0, 0.3, (n * 5) / 2, n);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    (a, b)
}

/// One scene of a GPU-against-CPU comparison: both meshes, the poses, the leaf size of both
/// hierarchies, the scene's name in messages.
pub struct Case<'a> {
    pub a: &'a Mesh,
    pub b: &'a Mesh,
    pub poses: &'a [Pose],
    pub leaf: u32,
    pub label: &'a str,
    /// Check every all-contacts pose against brute force too (small scenes).
    pub brute: bool,
}

/// Tumbling poses of `m` against itself (`pose::tumbling_poses`, `steps` each) about its
/// bounding-box centre, shifted along x by each fraction of its largest extent (and by 2 %
/// along y): deep overlap, close contact and (nearly) apart, for the shared-model tests.
pub fn shifted_tumbling(
    m: &meshcollide::Mesh,
    steps: usize,
    fracs: &[f64],
) -> Vec<meshcollide::Pose> {
    let (lo, hi) = m.bounds();
    let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
    let size = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
    fracs
        .iter()
        .flat_map(|f| meshcollide::pose::tumbling_poses(steps, c, [f * size, 0.02 * size, 0.0]))
        .collect()
}

/// A deforming scene: A and B at time `t`.
pub type Scene = Box<dyn Fn(f64) -> (meshcollide::Mesh, meshcollide::Mesh)>;

/// The generated deforming scenes: a sheet folding onto itself, a sheet draping onto a
/// sphere, twisting bars crossing, tori breathing.
pub fn deforming_scenes() -> Vec<(&'static str, Scene)> {
    vec![
        (
            "sheet folding onto itself",
            Box::new(|t| {
                (
                    meshcollide::mesh::generate::folding_sheet([0.0; 3], 14, 2.0, t),
                    // A copy folding the other way, a little above: the halves cross.
                    meshcollide::mesh::generate::folding_sheet(
                        [0.0, 0.05, 0.03],
                        12,
                        2.0,
                        -0.9 * t,
                    ),
                )
            }),
        ),
        (
            "sheet draping onto a sphere",
            Box::new(|t| {
                (
                    meshcollide::mesh::generate::draping_sheet([0.0; 3], 1.0, 16, 4.0, t),
                    meshcollide::mesh::generate::uv_sphere([0.0; 3], 1.0, 12, 24),
                )
            }),
        ),
        (
            "twisting bars",
            Box::new(|t| {
                (
                    meshcollide::mesh::generate::twisted_bar([0.0; 3], 4.0, 0.3, 24, t),
                    meshcollide::mesh::generate::twisted_bar([0.0; 3], 4.0, 0.3, 24, -t)
                        .map_positions(|p| {
                            [p[1] + 0.2, p[0], p[2] + 0.1] // crossing at 90°
                        }),
                )
            }),
        ),
        (
            "tori breathing",
            Box::new(|t| {
                (
                    meshcollide::mesh::generate::breathing_torus([0.0; 3], 1.0, 0.45, 24, 10, t),
                    meshcollide::mesh::generate::breathing_torus(
                        [1.0, 0.0, 0.0],
                        1.0,
                        0.45,
                        24,
                        10,
                        t + 0.25,
                    )
                    .map_positions(|p| [p[0], p[2], p[1]]),
                )
            }),
        ),
    ]
}

/// A pose given as a matrix (`Pose::from_rows`): an orthonormal basis by Gram–Schmidt from
/// random columns, not from a quaternion, mirrored when `reflect` (determinant −1), and a
/// translation in `[-reach, reach]³`.
pub fn matrix_pose(rng: &mut Rng, reflect: bool, reach: f64) -> Pose {
    let unit = |v: [f64; 3]| {
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / n)
    };
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut r = || [rng.f64() - 0.5, rng.f64() - 0.5, rng.f64() - 0.5];
    let a = unit(r());
    let b0 = r();
    let b = unit(std::array::from_fn(|k| b0[k] - dot(a, b0) * a[k]));
    let mut c = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    if reflect {
        c = c.map(|x| -x);
    }
    let t = [0, 1, 2].map(|_| (rng.f64() * 2.0 - 1.0) * reach);
    Pose::from_rows([a, b, c], t).expect("an orthonormal basis")
}
