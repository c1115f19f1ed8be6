//! Frame lists of deforming meshes (`docs/FORMATS.md`, "Deforming meshes: frame
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
    ///
    /// The list is streamed a line at a time, each of at most [`MAX_LIST_LINE`] bytes
    /// (a path, far above any system's path limit) and valid UTF-8, so a list that is not
    /// one (`/dev/zero`, a binary file) is refused after at most that many bytes; memory
    /// holds the frames' paths.
    pub fn read(list: &Path) -> Result<FrameList, FrameError> {
        use std::io::{BufRead, Read};
        let io = |source| FrameError::List {
            list: list.to_path_buf(),
            source,
        };
        let mut reader = std::io::BufReader::new(std::fs::File::open(list).map_err(io)?);
        let dir = list.parent().unwrap_or(Path::new(""));
        let mut frames = Vec::new();
        let mut bytes = Vec::new();
        for line in 1.. {
            bytes.clear();
            let n = (&mut reader)
                .take(MAX_LIST_LINE as u64 + 1)
                .read_until(b'\n', &mut bytes)
                .map_err(io)?;
            if n == 0 {
                break;
            }
            let bad = |what: String| FrameError::BadLine {
                list: list.to_path_buf(),
                line,
                what,
            };
            if bytes.len() > MAX_LIST_LINE && bytes.last() != Some(&b'\n') {
                return Err(bad(format!(
                    "longer than {MAX_LIST_LINE} bytes; a frame list names one mesh file per line"
                )));
            }
            let text = std::str::from_utf8(&bytes).map_err(|_| {
                bad(format!(
                    "`{}` is not UTF-8 text; a frame list names one mesh file per line",
                    crate::error::shown(&bytes)
                ))
            })?;
            let entry = text.trim();
            if entry.is_empty() || entry.starts_with('#') {
                continue;
            }
            let path = dir.join(entry);
            if let Some(problem) = not_a_frame_file(&path) {
                return Err(FrameError::Missing {
                    list: list.to_path_buf(),
                    line,
                    path,
                    problem,
                });
            }
            frames.push((line, path));
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

/// The longest line of a frame list read (64 KiB).
pub const MAX_LIST_LINE: usize = 64 << 10;

/// What keeps `path` from being a frame file, or `None` if it is a regular file (through
/// symlinks). Frames are read twice (checked before the run, then loaded as it goes), so a
/// pipe or a device cannot be one.
fn not_a_frame_file(path: &Path) -> Option<&'static str> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => None,
        Ok(m) if m.is_dir() => Some("is a directory"),
        Ok(_) => Some(
            "is not a regular file (a device or a pipe; frames are read twice, to check them and to run)",
        ),
        Err(_) if std::fs::symlink_metadata(path).is_ok() => {
            Some("is a symbolic link to nothing (its target does not exist)")
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some("does not exist"),
        Err(_) => Some("cannot be read (permission or path error)"),
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
