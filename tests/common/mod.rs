//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

/// The shared test meshes (`../shared/meshes` next to the crate), or `None` with a loud
/// "SKIP" on stderr when absent. With `MESHCOLLIDE_REQUIRE_SHARED=1` (CI) absence is a
/// failure instead, so a misconfigured runner cannot pass by skipping.
#[allow(dead_code)] // not every test file uses the shared models
pub fn shared_meshes_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes");
    if dir.join("MANIFEST.md").is_file() {
        return Some(dir);
    }
    if std::env::var("MESHCOLLIDE_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!(
            "shared meshes not found at {} but MESHCOLLIDE_REQUIRE_SHARED=1",
            dir.display()
        );
    }
    eprintln!(
        "SKIP: shared meshes not found at {} (set MESHCOLLIDE_REQUIRE_SHARED=1 to fail instead)",
        dir.display()
    );
    None
}

/// The GPU context, or `None` with a loud "SKIP" when no adapter exists. With
/// `MESHCOLLIDE_REQUIRE_GPU=1` (CI, on lavapipe) a missing adapter is a failure instead.
#[allow(dead_code)] // not every test file uses the GPU
#[cfg(feature = "gpu")]
pub fn gpu() -> Option<meshcollide::gpu::GpuContext> {
    match meshcollide::gpu::GpuContext::new() {
        Ok(ctx) => Some(ctx),
        Err(e) if std::env::var("MESHCOLLIDE_REQUIRE_GPU").as_deref() == Ok("1") => {
            panic!("no GPU but MESHCOLLIDE_REQUIRE_GPU=1: {e}")
        }
        Err(e) => {
            eprintln!("SKIP: no GPU adapter ({e}); set MESHCOLLIDE_REQUIRE_GPU=1 to fail instead");
            None
        }
    }
}

/// `n` random triangles on a half-integer grid of 4 cells per side: coplanar, touching and
/// degenerate contacts on purpose (GPU parity tests).
#[allow(dead_code)]
pub fn grid_soup(rng: &mut meshcollide::rng::Rng, n: u32) -> meshcollide::Mesh {
    meshcollide::mesh::generate::grid_soup(rng, n as usize, 4)
}

/// `n` poses of quarter and half turns (cycling through the identity, z, x and y turns)
/// with random half-integer shifts in [−1, 1]: with [`grid_soup`]s they touch, share faces
/// and overlap in coplanar patches (the GPU parity tests' hard cases).
#[allow(dead_code)]
pub fn quarter_turns(rng: &mut meshcollide::rng::Rng, n: usize) -> Vec<meshcollide::Pose> {
    (0..n)
        .map(|i| {
            let q = [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.5f64.sqrt(), 0.0, 0.5f64.sqrt(), 0.0],
            ][i % 4];
            meshcollide::Pose::new(q, [0; 3].map(|_| (rng.below(5) as f64 - 2.0) * 0.5))
        })
        .collect()
}

/// Two interlocked tori (major radius 1, minor 0.3), B in the xz plane.
#[allow(dead_code)]
pub fn tori(n: u32) -> (meshcollide::Mesh, meshcollide::Mesh) {
    let a = meshcollide::mesh::generate::torus([0.0; 3], 1.0, 0.3, (n * 5) / 2, n);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    (a, b)
}

/// Writes `m` as an OBJ file (1-based faces), for the command-line tests.
#[allow(dead_code)]
pub fn write_obj(path: &std::path::Path, m: &meshcollide::Mesh) {
    let mut s = String::new();
    for p in &m.positions {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for t in &m.triangles {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(path, s).unwrap();
}

/// Tumbling poses of `m` against itself (`pose::tumbling_poses`, `steps` each) about its
/// bounding-box centre, shifted along x by each fraction of its largest extent (and by 2 %
/// along y): deep overlap, close contact and (nearly) apart, for the shared-model tests.
#[allow(dead_code)]
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
#[allow(dead_code)] // the deforming tests only
pub type Scene = Box<dyn Fn(f64) -> (meshcollide::Mesh, meshcollide::Mesh)>;

#[allow(dead_code)] // the deforming tests only
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
