//! `meshcollide generate`: writes one of the generated meshes of `mesh::generate` as OBJ,
//! so examples (README) run on generated data without any file at hand; `generate scene`
//! writes a whole scene of many bodies for `meshcollide scene` (`generate_scene.rs`).

use super::Failure;
use crate::mesh::Mesh;
use crate::mesh::generate;
use clap::ValueEnum;
use std::path::PathBuf;

/// What to generate.
#[derive(Clone, Copy, ValueEnum)]
pub enum Kind {
    /// A strip bent by a nodal cubic so that its ends cut through each other.
    FoldedSheet,
    /// A ring torus (closed, embedded: no self-intersection).
    Torus,
    /// A spindle torus (tube radius above the major radius: the tube passes through itself).
    SpindleTorus,
    /// A flat grid.
    Grid,
    /// A scene of many bodies for `meshcollide scene`: --out is a folder that receives
    /// bodies.csv, motion.csv and meshes/*.obj (needs --bodies and --frames).
    Scene,
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// The mesh.
    #[arg(value_enum)]
    pub kind: Kind,
    /// Resolution: cells along the sheet or the grid side, segments around the torus
    /// [default: 60] (not for `scene`: see --tris).
    #[arg(long, value_parser = clap::value_parser!(u32).range(3..=100_000))]
    pub n: Option<u32>,
    /// `scene`: number of moving bodies (plus a floor and 2 + N/1000 static blocks).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    pub bodies: Option<u32>,
    /// `scene`: number of frames of the motion (0 to F − 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub frames: Option<u32>,
    /// `scene`: seed of the random placement, motion and insertions (same seed, same files)
    /// [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// `scene`: triangles of the sphere; the sheet, cube and torus have about 1/4, 1/2 and
    /// 2 times as many [default: 1000].
    #[arg(long, value_parser = clap::value_parser!(u32).range(16..=10_000_000))]
    pub tris: Option<u32>,
    /// Output OBJ file (written whole or not at all); for `scene`, the output folder.
    #[arg(long)]
    pub out: PathBuf,
    /// Replace existing output files even if they are read-only.
    #[arg(long)]
    pub force: bool,
}

/// The options of `scene` only, for refusing them with a mesh (and `--n` with a scene).
fn scene_options(a: &GenerateArgs) -> [(&'static str, bool); 4] {
    [
        ("--bodies", a.bodies.is_some()),
        ("--frames", a.frames.is_some()),
        ("--seed", a.seed.is_some()),
        ("--tris", a.tris.is_some()),
    ]
}

/// `generate scene`: the options checked, then `generate_scene::run`.
fn scene(a: &GenerateArgs) -> Result<(), Failure> {
    if a.n.is_some() {
        return Err(Failure::Input(
            "--n does not apply to `generate scene`: the meshes' size is --tris".into(),
        ));
    }
    let (Some(bodies), Some(frames)) = (a.bodies, a.frames) else {
        return Err(Failure::Input(
            "`generate scene` needs --bodies N (moving bodies) and --frames F".into(),
        ));
    };
    let spec = super::generate_scene::SceneSpec {
        bodies,
        frames,
        seed: a.seed.unwrap_or(1),
        tris: a.tris.unwrap_or(1000),
    };
    super::generate_scene::run(&spec, &a.out, a.force, obj)
}

pub fn run(a: &GenerateArgs) -> Result<(), Failure> {
    let mesh_kind = !matches!(a.kind, Kind::Scene);
    if let Some((flag, _)) = scene_options(a).into_iter().find(|o| mesh_kind && o.1) {
        return Err(Failure::Input(format!(
            "{flag} applies to `generate scene` only (a mesh takes --n)"
        )));
    }
    let n = a.n.unwrap_or(60);
    let m = match a.kind {
        Kind::Scene => return scene(a),
        Kind::FoldedSheet => generate::folded_sheet(n, (n / 4).max(1), 0.5),
        Kind::Torus => generate::torus([0.0; 3], 1.0, 0.3, n, (n / 2).max(3)),
        Kind::SpindleTorus => generate::torus([0.0; 3], 1.0, 1.3, n, (n / 2).max(3)),
        Kind::Grid => generate::grid(n, n, 1.0 / f64::from(n), 0.0),
    };
    super::write_output(Some(&a.out), &obj(&m), a.force)?;
    eprintln!(
        "wrote {} ({} triangles)",
        a.out.display(),
        m.triangle_count()
    );
    Ok(())
}

/// OBJ text: `v` lines in the shortest decimal that reads back to the same f64, 1-based faces.
fn obj(m: &Mesh) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for p in &m.positions {
        let _ = writeln!(s, "v {:?} {:?} {:?}", p[0], p[1], p[2]);
    }
    for t in &m.triangles {
        let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    s
}
