//! `meshcollide generate`: writes one of the generated meshes of `mesh::generate` as OBJ,
//! so examples (README) run on generated data without any file at hand.

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
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// The mesh.
    #[arg(value_enum)]
    pub kind: Kind,
    /// Resolution: cells along the sheet or the grid side, segments around the torus.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(3..=100_000))]
    pub n: u32,
    /// Output OBJ file (written whole or not at all).
    #[arg(long)]
    pub out: PathBuf,
    /// Replace an existing output file even if it is read-only.
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: &GenerateArgs) -> Result<(), Failure> {
    let n = a.n;
    let m = match a.kind {
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
