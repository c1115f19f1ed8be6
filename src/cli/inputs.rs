//! `query`'s inputs: a mesh file, or a saved hierarchy (`.mch`, recognized by its magic
//! bytes) whose mesh and hierarchy are used as they are; and `--pose-range`.

use super::Failure;
use crate::saved::{KdopHierarchy, SavedHierarchy, is_saved_file};
use crate::{BuildOptions, BvKind, Mesh};
use std::path::Path;

/// One side of the query after the first pass: a mesh, or a `.mch` file to load in the
/// build phase (its load replaces the build, so `build_ms` counts it).
pub enum Input {
    Mesh(Mesh),
    Saved,
}

/// Loads a mesh file; a `.mch` file is left for [`resolve`].
pub fn load(path: &Path) -> Result<Input, Failure> {
    if is_saved_file(path) {
        return Ok(Input::Saved);
    }
    Ok(Input::Mesh(
        crate::mesh::load(path).map_err(crate::Error::from)?,
    ))
}

/// The mesh, and the hierarchy of a `.mch` file after checking that it is what the query
/// asks for: a different `--bv` or build option is an input error naming the file and the
/// difference (the file is never silently used for another hierarchy, nor rebuilt).
pub fn resolve(
    input: Input,
    path: &Path,
    bv: BvKind,
    options: &BuildOptions,
    leaf_flag: &str,
) -> Result<(Mesh, Option<KdopHierarchy>), Failure> {
    let Input::Mesh(m) = input else {
        let saved = SavedHierarchy::load(path).map_err(crate::Error::from)?;
        let diff: Vec<String> = saved
            .differences(bv, options)
            .into_iter()
            .map(|(flag, was, asked)| {
                let flag = if flag == "leaf-size" {
                    leaf_flag.to_string()
                } else {
                    format!("--{flag}")
                };
                format!("{flag} {was} (the query asks for {asked})")
            })
            .collect();
        if !diff.is_empty() {
            return Err(Failure::Input(format!(
                "{}: the saved hierarchy was built with {}; give the query the same options or rebuild it with `meshcollide build`",
                path.display(),
                diff.join(", ")
            )));
        }
        let (mesh, h) = saved.into_parts();
        return Ok((mesh, Some(h)));
    };
    Ok((m, None))
}

/// `--pose-range START:END` (END exclusive).
#[derive(Clone, Copy, Debug)]
pub struct PoseRange {
    pub start: usize,
    pub end: usize,
}

/// Parses `START:END` with `START <= END`.
pub fn parse_pose_range(s: &str) -> Result<PoseRange, String> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| format!("`{s}`: expected START:END (END exclusive), e.g. 0:100"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("`{s}`: `{t}` is not a pose number"))
    };
    let (start, end) = (num(a)?, num(b)?);
    if start > end {
        return Err(format!("`{s}`: START is after END"));
    }
    Ok(PoseRange { start, end })
}

/// Checks the range against the number of poses in the file.
pub fn check_pose_range(r: PoseRange, n: usize, poses: &Path) -> Result<(), Failure> {
    if r.end > n {
        return Err(Failure::Input(format!(
            "--pose-range {}:{}: {} has {n} poses (rows 0..{n})",
            r.start,
            r.end,
            poses.display()
        )));
    }
    Ok(())
}
