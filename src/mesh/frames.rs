//! Frame lists of deforming meshes (`../shared/FORMATS.md`, "Deforming meshes: frame
//! lists"): a text file naming one mesh file per line, relative to the list's own folder;
//! blank lines and lines starting with `#` are skipped; frame numbers count the listed files
//! from 0. Every frame must have exactly its base mesh's vertex count and faces (same order):
//! only positions change.
//!
//! The list is read and every listed path checked to exist up front (a missing file is
//! reported with the list's line before any work); the frames themselves are loaded one at a
//! time ([`FrameList::load`]), so a run over 500 frames of a large mesh holds one or two
//! frames, never the sequence.

use super::Mesh;
use crate::error::FrameError;
use std::path::{Path, PathBuf};

/// A parsed frame list: the listed frame files, resolved against the list's folder.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameList {
    /// The list file.
    pub list: PathBuf,
    /// Per frame, the 1-based line of the list and the resolved path.
    pub frames: Vec<(usize, PathBuf)>,
}

impl FrameList {
    /// Reads and checks a frame list: every listed file must exist (else
    /// [`FrameError::Missing`] naming the list, its line and the path); an empty list is
    /// [`FrameError::Empty`].
    pub fn read(list: &Path) -> Result<FrameList, FrameError> {
        let text = std::fs::read_to_string(list).map_err(|source| FrameError::List {
            list: list.to_path_buf(),
            source,
        })?;
        let dir = list.parent().unwrap_or(Path::new(""));
        let mut frames = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let entry = line.trim();
            if entry.is_empty() || entry.starts_with('#') {
                continue;
            }
            let path = dir.join(entry);
            if !path.is_file() {
                return Err(FrameError::Missing {
                    list: list.to_path_buf(),
                    line: i + 1,
                    path,
                });
            }
            frames.push((i + 1, path));
        }
        if frames.is_empty() {
            return Err(FrameError::Empty {
                list: list.to_path_buf(),
            });
        }
        Ok(FrameList {
            list: list.to_path_buf(),
            frames,
        })
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the list names no frame (never true for a list [`FrameList::read`] accepted).
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The path of frame `i`.
    pub fn path(&self, i: usize) -> &Path {
        &self.frames[i].1
    }

    /// Loads frame `i` with the mesh loaders and checks it against `base` (read from
    /// `base_path`, named in the errors): its vertex positions.
    pub fn load(
        &self,
        i: usize,
        base: &Mesh,
        base_path: &Path,
    ) -> Result<Vec<[f64; 3]>, FrameError> {
        let path = self.path(i);
        let frame = super::load(path)?;
        check_frame(base, base_path, &frame, path)?;
        Ok(frame.positions)
    }
}

/// Checks that `frame` (read from `path`) has exactly `base`'s vertex count and faces in the
/// same order; the error names the frame file and the first difference.
pub fn check_frame(
    base: &Mesh,
    base_path: &Path,
    frame: &Mesh,
    path: &Path,
) -> Result<(), FrameError> {
    if frame.positions.len() != base.positions.len() {
        return Err(FrameError::VertexCount {
            path: path.to_path_buf(),
            base: base_path.to_path_buf(),
            expected: base.positions.len(),
            found: frame.positions.len(),
        });
    }
    let n = base.triangles.len().max(frame.triangles.len());
    if let Some(face) = (0..n).find(|&f| base.triangles.get(f) != frame.triangles.get(f)) {
        return Err(FrameError::Face {
            path: path.to_path_buf(),
            base: base_path.to_path_buf(),
            face,
            expected: base.triangles.get(face).copied(),
            found: frame.triangles.get(face).copied(),
        });
    }
    Ok(())
}

/// Checks a frame of positions given to the library for mesh `mesh` (`"A"` or `"B"`) of
/// `vertices` vertices: the count, and every coordinate finite and in the supported range.
pub fn check_positions(
    mesh: &'static str,
    vertices: usize,
    positions: &[[f64; 3]],
) -> Result<(), FrameError> {
    if positions.len() != vertices {
        return Err(FrameError::Positions {
            mesh,
            expected: vertices,
            found: positions.len(),
        });
    }
    match positions
        .iter()
        .position(|p| !p.iter().all(|&c| super::in_supported_range(c)))
    {
        Some(vertex) => Err(FrameError::Coordinate { mesh, vertex }),
        None => Ok(()),
    }
}
