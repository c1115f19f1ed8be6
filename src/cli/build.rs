//! `meshcollide build`: a mesh and its k-DOP hierarchy saved as a `.mch` file, which
//! `query` then loads in place of the mesh without building (`crate::saved`).

use super::Failure;
use super::output::{AtomicFile, Out, Outputs};
use super::query_args::ms;
use crate::saved::SavedHierarchy;
use crate::{bvh::BuildOptions, bvh::SplitPoint, bvh::SplitRule};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct BuildArgs {
    /// The mesh (OBJ, STL, PLY; optionally .gz).
    pub mesh: PathBuf,
    /// The saved hierarchy to write (written whole or not at all). `query` takes it wherever
    /// it takes a mesh (recognized by its magic bytes, whatever its extension).
    #[arg(long)]
    pub out: PathBuf,
    /// Bounding volume: the k-DOPs only (a kdopK file also serves `query --bv dualK`; the
    /// boxtree and the R-tree are not saved).
    #[arg(long, value_enum, default_value = "kdop18")]
    pub bv: super::KdopArg,
    /// Splitting rule for the split axis.
    #[arg(long, value_enum, default_value = "splatter")]
    pub split: SplitRule,
    /// Split point along the chosen axis.
    #[arg(long = "split-point", value_enum, default_value = "mean")]
    pub split_point: SplitPoint,
    /// Most triangles in a leaf.
    #[arg(long = "leaf-size", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub leaf_size: u32,
    /// Replace an existing output file even if it is read-only (without it: exit 2). The
    /// mesh itself is never replaced.
    #[arg(long)]
    pub force: bool,
}

pub fn run(a: &BuildArgs) -> Result<(), Failure> {
    let claim = Outputs::claim(
        &[Out::whole("--out", &a.out)],
        &[("mesh", &a.mesh)],
        a.force,
    )?;
    let t0 = Instant::now();
    let mesh = crate::mesh::load(&a.mesh).map_err(crate::error::Error::from)?;
    let load_ms = ms(t0);
    let mut file = AtomicFile::create(claim.path(0))?;
    let options = BuildOptions {
        rule: a.split,
        point: a.split_point,
        leaf_size: a.leaf_size,
    };
    let t1 = Instant::now();
    let saved = SavedHierarchy::build(mesh, a.bv.0, &options)?;
    let build_ms = ms(t1);
    let t2 = Instant::now();
    let bytes = saved.to_bytes();
    file.write_all(&bytes)?;
    super::interrupt::finishing();
    file.commit()?;
    eprintln!(
        "{}: {} triangles, {} ({} split at the {}, leaf size {}), {} bytes; load {load_ms:.1} ms, build {build_ms:.1} ms, write {:.1} ms",
        a.out.display(),
        saved.mesh.triangle_count(),
        a.bv.0.name(),
        a.split.name(),
        a.split_point.name(),
        a.leaf_size,
        bytes.len(),
        ms(t2)
    );
    Ok(())
}
