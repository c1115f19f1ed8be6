//! `meshcollide generate scene`: a scene of many bodies in the files of `meshcollide scene`
//! (docs/FORMATS.md, "Scenes of many bodies"): `bodies.csv`, `motion.csv` and the meshes
//! under `meshes/`, so that the scene command, its tests and its benchmarks against FCL's
//! broad phase (benches/peers/scene.py) run on data anyone can regenerate from a seed.
//!
//! What the scene exercises, and why it is built so:
//! - four meshes of different sizes (`--tris` T: a saddle sheet of about T/4 triangles, a
//!   cube of T/2, a sphere of T, a torus of 2T), each shared by many bodies, so that a
//!   scene command that builds one hierarchy per mesh file is measured as such;
//! - moving bodies that tumble (a constant angular velocity, small per frame) and drift (a
//!   constant velocity, reflected at the walls of a cube): motion is coherent from frame to
//!   frame, as in a simulation, which is what incremental broad phases rely on;
//! - the cube's side grows like N^(1/3) ([`SPACING`]), so the density and thus the number
//!   of neighbours of a body stay the same at any N: time per frame against N measures
//!   the broad phase's scaling, not a denser and denser pile;
//! - static bodies (a floor grid, a few blocks) inserted at frame 0, numbered before and
//!   after the moving ones, so that both orders of a static–moving pair occur;
//! - insertions (about 10 % of the moving bodies first appear at a later frame), removals
//!   (about 10 % get a `remove` row) and returns (about half of those come back later).
//!
//! Poses are functions of the frame number (not accumulated steps), so a frame's pose does
//! not depend on rounding carried from the frames before, and the output is the same bytes
//! for the same options on every machine (f64 arithmetic, [`Rng`]).

use super::Failure;
use super::output::{AtomicFile, Out, Outputs, cannot_write};
use crate::mesh::{Mesh, generate};
use crate::pose::quat_mul;
use crate::rng::Rng;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Side of the cube of space per moving body: the box of the bodies' centres has side
/// `SPACING · N^(1/3)`. Every mesh fits in a ball of radius [`RADIUS`] (diameter 1), so a
/// body's bounding ball overlaps about `(4/3)·π / SPACING³ ≈ 0.85` others at any time
/// (its mesh cuts about 0.35 others) and a body's mesh cuts 2 to 3 others over a run of
/// 100 frames (measured with FCL on seed 1, 1,000 bodies: 0.36 and 2.3).
const SPACING: f64 = 1.7;

/// Every moving mesh lies within this distance of its local origin (its centre).
const RADIUS: f64 = 0.5;

/// Drift per frame, in units of the body's diameter: slow enough for frame-to-frame
/// coherence, fast enough that bodies meet new neighbours within tens of frames.
const SPEED: (f64, f64) = (0.02, 0.06);

/// Tumbling per frame, in radians.
const SPIN: (f64, f64) = (0.005, 0.03);

/// The floor lies this far below the lowest centre, so the bodies drifting along the
/// bottom of the box cut it (static–moving contacts).
const FLOOR_DEPTH: f64 = 0.25;

/// Side of the floor grid's cells.
const FLOOR_CELL: f64 = 0.5;

/// What `generate scene` was asked for.
pub struct SceneSpec {
    /// Moving bodies.
    pub bodies: u32,
    /// Frames of the motion: 0 to `frames − 1`.
    pub frames: u32,
    pub seed: u64,
    /// Triangles of the mid-sized meshes; the four range from about T/4 to 2T.
    pub tris: u32,
}

/// A mesh file of the scene: its name under `meshes/` and its triangles.
struct MeshFile {
    name: &'static str,
    mesh: Mesh,
}

/// How a body moves; poses map a point `p` of its mesh to `R(q)·p + t`.
enum Motion {
    /// Placed at frame 0, never moved.
    Static {
        q: [f64; 4],
        t: [f64; 3],
    },
    Moving(Mover),
}

/// A moving body: pose at frame `f` is `q = rot(axis, spin·f) ⊗ q0`, `t = c0 + vel·f`
/// folded back into the box (a reflection at each wall), present from frame `enter` on,
/// except for frames `leave ≤ f < back`.
struct Mover {
    q0: [f64; 4],
    axis: [f64; 3],
    spin: f64,
    c0: [f64; 3],
    vel: [f64; 3],
    enter: u32,
    leave: Option<u32>,
    /// With `leave`: the frame it comes back (absent: it does not).
    back: Option<u32>,
}

impl Mover {
    fn present(&self, f: u32) -> bool {
        let away = match (self.leave, self.back) {
            (Some(l), None) => f >= l,
            (Some(l), Some(b)) => (l..b).contains(&f),
            (None, _) => false,
        };
        f >= self.enter && !away
    }

    /// The pose at frame `f` (`side`: the box's side), quaternion normalized.
    fn pose(&self, f: u32, side: f64) -> ([f64; 4], [f64; 3]) {
        let f = f64::from(f);
        let (s, c) = (0.5 * self.spin * f).sin_cos();
        let turn = [c, self.axis[0] * s, self.axis[1] * s, self.axis[2] * s];
        let t = std::array::from_fn(|k| fold(self.c0[k] + self.vel[k] * f, side));
        (normalized(quat_mul(turn, self.q0)), t)
    }
}

/// `q` divided by its norm (the file's quaternions are unit up to the last bit's rounding).
fn normalized(q: [f64; 4]) -> [f64; 4] {
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    q.map(|x| x / n)
}

/// `x` reflected into `[0, side]` (a triangle wave): a body bouncing off two walls.
fn fold(x: f64, side: f64) -> f64 {
    let period = 2.0 * side;
    let y = x.rem_euclid(period);
    if y > side { period - y } else { y }
}

/// A body of `bodies.csv`: its mesh (index into the mesh files) and motion.
struct Body {
    mesh: usize,
    motion: Motion,
}

/// Generates the scene and writes it under `dir`, every file whole (see `write_all`).
/// `obj` is the OBJ writer of `generate` (its caller), passed in so that the meshes are
/// written as `generate` writes them without this file importing its caller (a circle in
/// the import graph, tests/layers.rs).
pub fn run(
    spec: &SceneSpec,
    dir: &Path,
    force: bool,
    obj: fn(&Mesh) -> String,
) -> Result<(), Failure> {
    let meshes = meshes(spec);
    let bodies = bodies(spec);
    write_all(spec, dir, &meshes, obj, &bodies, force)?;
    let moving = bodies
        .iter()
        .filter(|b| matches!(b.motion, Motion::Moving(_)))
        .count();
    let tris: Vec<String> = meshes
        .iter()
        .map(|m| format!("{} {}", m.name, m.mesh.triangle_count()))
        .collect();
    eprintln!(
        "wrote {}: {} bodies ({moving} moving, {} static), {} frames; meshes (triangles): {}",
        dir.display(),
        bodies.len(),
        bodies.len() - moving,
        spec.frames,
        tris.join(", ")
    );
    Ok(())
}

/// The box's side for `n` moving bodies (at least room for one body).
fn side(n: u32) -> f64 {
    (SPACING * f64::from(n).cbrt()).max(2.0 * RADIUS)
}

/// The scene's mesh files: the four moving meshes (indices 0–3, from about T/4 to 2T
/// triangles so that bodies differ in size and cost), then the floor and the block.
fn meshes(spec: &SceneSpec) -> Vec<MeshFile> {
    let t = f64::from(spec.tris);
    // Saddle z = 0.8·(x² − y²) over [−0.35, 0.35]²: open, curved, no self-intersection.
    let n = ((t / 8.0).sqrt().round() as u32).max(2);
    let h = 0.35;
    let sheet = generate::grid(n, n, 2.0 * h / f64::from(n), 0.0).map_positions(|p| {
        let (x, y) = (p[0] - h, p[1] - h);
        [x, y, 0.8 * (x * x - y * y)]
    });
    // A sphere pushed radially onto a cube of half-side 0.28: a closed box tessellated
    // like the sphere (box_mesh has only 12 triangles), within RADIUS (0.28·√3 < 0.5).
    let cube = generate::sphere_with_triangles([0.0; 3], 1.0, (spec.tris / 2).max(8) as usize)
        .map_positions(|p| {
            let m = p.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            p.map(|x| 0.28 * x / m)
        });
    let sphere = generate::sphere_with_triangles([0.0; 3], 0.48, spec.tris as usize);
    // 2·nu·nv = 2T with nu = 2·nv; outer radius 0.34 + 0.14 < 0.5.
    let nv = ((t / 2.0).sqrt().round() as u32).max(3);
    let torus = generate::torus([0.0; 3], 0.34, 0.14, 2 * nv, nv);
    // The floor covers the box and one body's width around it.
    let s = side(spec.bodies) + 2.0;
    let cells = ((s / FLOOR_CELL).ceil() as u32).max(1);
    let floor = generate::grid(cells, cells, s / f64::from(cells), 0.0);
    let block = generate::box_mesh([-1.0, -1.0, -0.5], [1.0, 1.0, 0.5]);
    [
        ("sheet.obj", sheet),
        ("cube.obj", cube),
        ("sphere.obj", sphere),
        ("torus.obj", torus),
        ("floor.obj", floor),
        ("block.obj", block),
    ]
    .into_iter()
    .map(|(name, mesh)| MeshFile { name, mesh })
    .collect()
}

/// Index of the floor and the block among [`meshes`]' files.
const FLOOR: usize = 4;
const BLOCK: usize = 5;
/// The moving meshes are the first four.
const MOVING_MESHES: u64 = 4;

/// The bodies in `bodies.csv` order: the floor (body 0), the moving bodies, then the
/// blocks (`2 + N/1000`), so that statics come both before and after the moving bodies.
fn bodies(spec: &SceneSpec) -> Vec<Body> {
    let mut rng = Rng::new(spec.seed);
    let side = side(spec.bodies);
    let mut out = vec![Body {
        mesh: FLOOR,
        motion: Motion::Static {
            q: [1.0, 0.0, 0.0, 0.0],
            t: [-1.0, -1.0, -FLOOR_DEPTH],
        },
    }];
    for _ in 0..spec.bodies {
        let mesh = rng.below(MOVING_MESHES) as usize;
        let q0 = rng.unit_quaternion();
        let axis = unit_vector(&mut rng);
        let spin = rng.range(SPIN.0, SPIN.1);
        let c0 = [0; 3].map(|_| rng.range(0.0, side));
        let dir = unit_vector(&mut rng);
        let speed = rng.range(SPEED.0, SPEED.1);
        out.push(Body {
            mesh,
            motion: Motion::Moving(Mover {
                q0,
                axis,
                spin,
                c0,
                vel: dir.map(|d| d * speed),
                enter: 0,
                leave: None,
                back: None,
            }),
        });
    }
    schedule(&mut rng, spec.frames, &mut out[1..]);
    for _ in 0..2 + spec.bodies / 1000 {
        let q = normalized(rng.unit_quaternion());
        let t = [0; 3].map(|_| rng.range(0.0, side));
        out.push(Body {
            mesh: BLOCK,
            motion: Motion::Static { q, t },
        });
    }
    out
}

/// Insertions and deletions: of the moving bodies after the first (which stays, so every
/// frame up to the last has rows and the motion spans all `frames`), a tenth (rounded up)
/// enters at a frame after 0, a tenth is removed at a frame after its entry, the second
/// half of the first group overlapping the first half of the second (a late body removed
/// later), and every other removed body comes back at a later frame. Exact counts rather
/// than coin flips, so that even a small test scene has each case.
fn schedule(rng: &mut Rng, frames: u32, movers: &mut [Body]) {
    let eligible = movers.len().saturating_sub(1);
    if eligible == 0 || frames < 2 {
        return;
    }
    let k = eligible.div_ceil(10);
    // Fisher–Yates over the movers after the first.
    let mut order: Vec<usize> = (1..movers.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    // Uniform in `lo..=hi` (`lo ≤ hi`).
    let mut pick = |lo: u32, hi: u32| lo + rng.below(u64::from(hi - lo) + 1) as u32;
    let last = frames - 1;
    for &i in &order[..k] {
        if let Motion::Moving(m) = &mut movers[i].motion {
            m.enter = pick(1, last);
        }
    }
    let removed = &order[k / 2..(k / 2 + k).min(order.len())];
    for (j, &i) in removed.iter().enumerate() {
        if let Motion::Moving(m) = &mut movers[i].motion
            && m.enter < last
        {
            let leave = pick(m.enter + 1, last);
            m.leave = Some(leave);
            if j % 2 == 1 && leave < last {
                m.back = Some(pick(leave + 1, last));
            }
        }
    }
}

/// A uniformly distributed unit vector (a normal direction normalized; never zero in
/// practice, the fallback keeps it total).
fn unit_vector(rng: &mut Rng) -> [f64; 3] {
    loop {
        let v = [0; 3].map(|_| rng.range(-1.0, 1.0));
        let n = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if (1e-3..=1.0).contains(&n) {
            return v.map(|x| x / n);
        }
    }
}

/// `bodies.csv`: `body,mesh,kind`, mesh paths relative to the file's folder.
fn bodies_csv(meshes: &[MeshFile], bodies: &[Body]) -> String {
    let mut s = String::from("body,mesh,kind\n");
    for (i, b) in bodies.iter().enumerate() {
        let kind = match b.motion {
            Motion::Static { .. } => "static",
            Motion::Moving(_) => "moving",
        };
        let _ = writeln!(s, "{i},meshes/{},{kind}", meshes[b.mesh].name);
    }
    s
}

/// Appends one pose row: every number as the shortest decimal that reads back to the same
/// f64 (`{:?}`), so the scene command and the peers read the poses generated here.
fn pose_row(s: &mut String, frame: u32, body: usize, q: [f64; 4], t: [f64; 3]) {
    let _ = writeln!(
        s,
        "{frame},{body},{:?},{:?},{:?},{:?},{:?},{:?},{:?}",
        q[0], q[1], q[2], q[3], t[0], t[1], t[2]
    );
}

/// `motion.csv`, frame by frame (bodies in order within a frame, so at most one row per
/// body and frame): statics at frame 0, every present moving body at every frame (they
/// all move), a `remove` row at a body's leaving frame. Written to `out` in blocks of
/// about a megabyte, so a large scene is never held whole in memory.
fn write_motion(spec: &SceneSpec, bodies: &[Body], out: &mut AtomicFile) -> Result<(), Failure> {
    const BLOCK_BYTES: usize = 1 << 20;
    let side = side(spec.bodies);
    let mut s = String::from("frame,body,qw,qx,qy,qz,tx,ty,tz\n");
    for f in 0..spec.frames {
        for (i, b) in bodies.iter().enumerate() {
            match &b.motion {
                Motion::Static { q, t } if f == 0 => pose_row(&mut s, f, i, *q, *t),
                Motion::Static { .. } => {}
                Motion::Moving(m) if m.present(f) => {
                    let (q, t) = m.pose(f, side);
                    pose_row(&mut s, f, i, q, t);
                }
                Motion::Moving(m) if m.leave == Some(f) => {
                    let _ = writeln!(s, "{f},{i},remove,,,,,,");
                }
                Motion::Moving(_) => {}
            }
        }
        if s.len() >= BLOCK_BYTES {
            out.write_all(s.as_bytes())?;
            s.clear();
        }
    }
    out.write_all(s.as_bytes())
}

/// Writes the scene under `dir` (created if absent): every file is claimed first (as each
/// command claims its outputs: another run's lock, an output that is read-only without
/// `force`, an output that is not a regular file are refused before any work), written
/// under a temporary name, and renamed into place only once all are written, meshes
/// first and `motion.csv` last, so a run that fails leaves no partial file and an earlier
/// scene's files stay whole.
fn write_all(
    spec: &SceneSpec,
    dir: &Path,
    meshes: &[MeshFile],
    obj: fn(&Mesh) -> String,
    bodies: &[Body],
    force: bool,
) -> Result<(), Failure> {
    let mesh_dir = dir.join("meshes");
    std::fs::create_dir_all(&mesh_dir).map_err(|e| cannot_write(&mesh_dir, e))?;
    let mut paths: Vec<PathBuf> = meshes.iter().map(|m| mesh_dir.join(m.name)).collect();
    paths.push(dir.join("bodies.csv"));
    paths.push(dir.join("motion.csv"));
    let outs: Vec<Out<'_>> = paths.iter().map(|p| Out::whole("--out", p)).collect();
    let claim = Outputs::claim(&outs, &[], force)?;
    let mut files = Vec::with_capacity(paths.len());
    for (i, m) in meshes.iter().enumerate() {
        let mut f = AtomicFile::create(claim.path(i))?;
        f.write_all(obj(&m.mesh).as_bytes())?;
        files.push(f);
    }
    let mut f = AtomicFile::create(claim.path(meshes.len()))?;
    f.write_all(bodies_csv(meshes, bodies).as_bytes())?;
    files.push(f);
    let mut f = AtomicFile::create(claim.path(meshes.len() + 1))?;
    write_motion(spec, bodies, &mut f)?;
    files.push(f);
    super::interrupt::finishing();
    for f in files {
        f.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_reflects_at_both_walls() {
        assert_eq!(fold(0.5, 2.0), 0.5);
        assert_eq!(fold(2.5, 2.0), 1.5);
        assert_eq!(fold(4.5, 2.0), 0.5);
        assert_eq!(fold(-0.5, 2.0), 0.5);
    }

    #[test]
    fn every_moving_mesh_fits_in_its_ball() {
        let spec = SceneSpec {
            bodies: 10,
            frames: 2,
            seed: 1,
            tris: 400,
        };
        for m in &meshes(&spec)[..MOVING_MESHES as usize] {
            let r = m
                .mesh
                .positions
                .iter()
                .map(|p| p.iter().map(|x| x * x).sum::<f64>().sqrt())
                .fold(0.0, f64::max);
            assert!(r <= RADIUS, "{}: radius {r}", m.name);
            let n = m.mesh.triangle_count();
            assert!((80..=1000).contains(&n), "{}: {n} triangles", m.name);
        }
    }

    #[test]
    fn presence_follows_the_schedule() {
        let m = Mover {
            q0: [1.0, 0.0, 0.0, 0.0],
            axis: [0.0, 0.0, 1.0],
            spin: 0.1,
            c0: [0.0; 3],
            vel: [0.0; 3],
            enter: 2,
            leave: Some(4),
            back: Some(6),
        };
        let seen: Vec<bool> = (0..8).map(|f| m.present(f)).collect();
        assert_eq!(seen, [false, false, true, true, false, false, true, true]);
    }
}
