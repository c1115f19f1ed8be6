//! The scenes of the tolerance and distance tests (`tests/proximity.rs`, and smaller on
//! lavapipe, `tests/gpu_tolerance.rs`): touching and coplanar grid soups, soups in general
//! position, tumbling tori and soups 10⁷ from the origin, each with the tolerances it is
//! tried at.

use super::scenes::{exact_pose, float_pose, float_soup, grid_soup, tori};
use meshcollide::rng::Rng;
use meshcollide::{Mesh, Pose, pose};

/// A scene: its name, both meshes, the poses and the tolerances it is tried at.
pub struct ProximityCase {
    pub name: &'static str,
    pub a: Mesh,
    pub b: Mesh,
    pub poses: Vec<Pose>,
    pub eps: Vec<f64>,
}

/// How big each scene of [`proximity_cases`] is: `(triangles per soup, poses)` of the grid
/// soups, the float soups and the far soups, the tori's poses, and the grid soups' largest
/// tolerance.
pub struct CaseSizes {
    pub grid: (u32, usize),
    pub float: (usize, usize),
    pub tori_poses: usize,
    pub far: (usize, usize),
    pub grid_eps_max: f64,
}

/// Moves a mesh by `d` (every coordinate, in f64).
pub fn shifted(m: &Mesh, d: [f64; 3]) -> Mesh {
    m.map_positions(|p| [p[0] + d[0], p[1] + d[1], p[2] + d[2]])
}

/// The four scenes, from `seed`.
pub fn proximity_cases(seed: u64, n: &CaseSizes) -> Vec<ProximityCase> {
    let mut rng = Rng::new(seed);
    let mut v = Vec::new();
    // Half-integer grids under half-turns and half-integer shifts: distances of exactly
    // 0.5 and 0.25 occur, so `dist = ε` is met exactly, as are touching and coplanar pairs.
    let (a, b) = (grid_soup(&mut rng, n.grid.0), grid_soup(&mut rng, n.grid.0));
    let poses = (0..n.grid.1).map(|_| exact_pose(&mut rng)).collect();
    v.push(ProximityCase {
        name: "grid soups",
        a,
        b,
        poses,
        eps: vec![0.25, 0.5, n.grid_eps_max],
    });
    let (a, b) = (
        float_soup(&mut rng, n.float.0),
        float_soup(&mut rng, n.float.0),
    );
    let poses = (0..n.float.1).map(|_| float_pose(&mut rng, 1.2)).collect();
    v.push(ProximityCase {
        name: "float soups",
        a,
        b,
        poses,
        eps: vec![1e-3, 0.05, 0.3],
    });
    let (a, b) = tori(8);
    let poses = pose::tumbling_poses(n.tori_poses, [0.0; 3], [2.7, 0.1, 0.0]);
    v.push(ProximityCase {
        name: "tumbling tori",
        a,
        b,
        poses,
        eps: vec![0.02, 0.2, 0.6],
    });
    // 10⁷ from the origin: the same soups moved there, B posed about the far centre, so
    // the f32 stages work in local frames and the gaps are a few thousand ulps.
    let far = [1e7, -2e7, 3e7];
    let (a, b) = (float_soup(&mut rng, n.far.0), float_soup(&mut rng, n.far.0));
    let (a, b) = (shifted(&a, far), shifted(&b, far));
    let poses = (0..n.far.1)
        .map(|_| {
            let p = float_pose(&mut rng, 0.8);
            // Rotate about the far centre: t = far − R·far + shift.
            let rc = p.apply(far);
            let t = [0, 1, 2].map(|k| far[k] - (rc[k] - p.t[k]) + p.t[k]);
            Pose { t, ..p }
        })
        .collect();
    v.push(ProximityCase {
        name: "10^7 from the origin",
        a,
        b,
        poses,
        eps: vec![1e-6, 1e-3, 0.1],
    });
    v
}
