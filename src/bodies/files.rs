//! The scene's input files (`docs/FORMATS.md`, "Scenes of many bodies"): `BODIES.csv`
//! ([`read_bodies`]) and `MOTION.csv` ([`MotionReader`], a frame at a time, so memory does
//! not grow with the file). Every error names the file and line.

use super::{Body, BodyKind, Motion};
use crate::error::SceneError;
use crate::mesh::Mesh;
use crate::pose::{MAX_LINE, pose_from_row};
use rayon::prelude::*;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The header of `BODIES.csv`.
pub const BODIES_HEADER: &str = "body,mesh,kind";
/// The header of `MOTION.csv`.
pub const MOTION_HEADER: &str = "frame,body,qw,qx,qy,qz,tx,ty,tz";
/// The header of `contacts.csv`.
pub const CONTACTS_HEADER: &str = "frame,body_a,tri_a,body_b,tri_b";

/// Lines of a text file, each at most [`MAX_LINE`] bytes, numbered from 1.
struct Lines<R> {
    path: PathBuf,
    reader: R,
    buf: Vec<u8>,
    line: usize,
}

impl<R: BufRead> Lines<R> {
    fn next(&mut self) -> Result<Option<String>, SceneError> {
        self.buf.clear();
        let n = (&mut self.reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| SceneError::Io {
                path: self.path.clone(),
                source,
            })?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        if self.buf.len() > MAX_LINE && self.buf.last() != Some(&b'\n') {
            return Err(self.error(format!("longer than {MAX_LINE} bytes")));
        }
        Ok(Some(String::from_utf8_lossy(&self.buf).into_owned()))
    }

    fn error(&self, message: String) -> SceneError {
        SceneError::Row {
            path: self.path.clone(),
            line: self.line,
            message,
        }
    }

    /// Reads the header line, which must be `header` (whitespace and a byte-order mark
    /// ignored).
    fn header(&mut self, header: &str) -> Result<(), SceneError> {
        let got = self.next()?.unwrap_or_default();
        let h: String = got.chars().filter(|c| !c.is_whitespace()).collect();
        if h.trim_start_matches('\u{feff}') != header {
            self.line = self.line.max(1);
            return Err(self.error(format!(
                "the header must be `{header}`, found `{}`",
                crate::error::shown(got.trim_end().as_bytes())
            )));
        }
        Ok(())
    }
}

fn open(path: &Path) -> Result<Lines<BufReader<std::fs::File>>, SceneError> {
    let file = std::fs::File::open(path).map_err(|source| SceneError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(Lines {
        path: path.to_path_buf(),
        reader: BufReader::new(file),
        buf: vec![],
        line: 0,
    })
}

/// A field as an error message shows it.
fn shown(s: &str) -> String {
    crate::error::shown(s.as_bytes())
}

/// A bodies file as read: the bodies, and the distinct mesh files they name.
#[derive(Debug, Clone)]
pub struct BodiesFile {
    /// The bodies, numbered in order.
    pub bodies: Vec<Body>,
    /// The mesh files loaded, one per distinct file.
    pub mesh_paths: Vec<PathBuf>,
}

/// Reads `BODIES.csv` and loads its meshes (in parallel; paths relative to the file, the
/// same path loaded once and shared by its bodies). Errors name the file and line: a bad
/// row, a body out of order, a mesh that cannot be loaded (with the mesh's own error).
pub fn read_bodies(path: &Path) -> Result<BodiesFile, SceneError> {
    let mut lines = open(path)?;
    lines.header(BODIES_HEADER)?;
    let dir = path.parent().unwrap_or(Path::new(""));
    // Each row: (line, mesh path, kind).
    let mut rows: Vec<(usize, PathBuf, BodyKind)> = vec![];
    while let Some(line) = lines.next()? {
        let row = line.trim();
        if row.is_empty() {
            continue;
        }
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        let [body, mesh, kind] = fields[..] else {
            return Err(lines.error(format!(
                "expected 3 fields (body,mesh,kind), found {}",
                fields.len()
            )));
        };
        if body.parse::<usize>().ok() != Some(rows.len()) {
            return Err(lines.error(format!(
                "body `{}`: bodies are numbered 0, 1, 2, … in order, so this row is body {}",
                shown(body),
                rows.len()
            )));
        }
        if mesh.is_empty() {
            return Err(lines.error("the mesh path is empty".into()));
        }
        let kind = match kind {
            "static" => BodyKind::Static,
            "moving" => BodyKind::Moving,
            k => {
                return Err(lines.error(format!(
                    "kind `{}`: expected `static` or `moving`",
                    shown(k)
                )));
            }
        };
        rows.push((lines.line, dir.join(mesh), kind));
    }
    // One load per distinct file (by its canonical path where it has one).
    let key = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let mut distinct: Vec<(PathBuf, usize, PathBuf)> = vec![];
    let mut which = Vec::with_capacity(rows.len());
    for (line, p, _) in &rows {
        let k = key(p);
        which.push(match distinct.iter().position(|(d, _, _)| *d == k) {
            Some(i) => i,
            None => {
                distinct.push((k, *line, p.clone()));
                distinct.len() - 1
            }
        });
    }
    let meshes: Vec<Arc<Mesh>> = distinct
        .par_iter()
        .map(|(_, line, p)| {
            crate::mesh::load(p)
                .and_then(|m| m.validate(p).map(|()| m))
                .map(Arc::new)
                .map_err(|source| SceneError::Mesh {
                    path: path.to_path_buf(),
                    line: *line,
                    source: Box::new(source),
                })
        })
        .collect::<Result<_, _>>()?;
    Ok(BodiesFile {
        bodies: rows
            .iter()
            .zip(which)
            .map(|((_, _, kind), i)| Body {
                mesh: meshes[i].clone(),
                kind: *kind,
            })
            .collect(),
        mesh_paths: distinct.into_iter().map(|(_, _, p)| p).collect(),
    })
}

/// One frame of `MOTION.csv`: its number and its rows' motions, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameMotion {
    /// The frame.
    pub frame: u64,
    /// `(body, motion)`, one per body at most.
    pub motions: Vec<(u32, Motion)>,
}

/// Reads `MOTION.csv` a frame at a time, checking every rule of the format against the
/// bodies' kinds: frames never decrease, bodies are known and named once per frame,
/// quaternions are valid, a static body is placed at one frame only, a body removed is
/// present. Errors name the file and line.
pub struct MotionReader<R> {
    lines: Lines<R>,
    kinds: Vec<BodyKind>,
    present: Vec<bool>,
    placed: Vec<bool>,
    /// The first row of the next frame, read ahead: `(line, frame, body, motion)`.
    ahead: Option<(usize, u64, u32, Motion)>,
    /// The last frame returned.
    last: Option<u64>,
    /// An error in the row after a frame's last one: the frame is whole, so it is
    /// returned first and the error on the next call.
    pending: Option<SceneError>,
    done: bool,
}

impl MotionReader<BufReader<std::fs::File>> {
    /// Opens `path` for bodies of `kinds` (body `i` of kind `kinds[i]`) and reads its
    /// header.
    pub fn open(path: &Path, kinds: Vec<BodyKind>) -> Result<Self, SceneError> {
        MotionReader::new(path, open(path)?.reader, kinds)
    }
}

impl<R: BufRead> MotionReader<R> {
    /// A reader of `reader`, named `path` in errors.
    pub fn new(path: &Path, reader: R, kinds: Vec<BodyKind>) -> Result<Self, SceneError> {
        let mut lines = Lines {
            path: path.to_path_buf(),
            reader,
            buf: vec![],
            line: 0,
        };
        lines.header(MOTION_HEADER)?;
        let n = kinds.len();
        Ok(MotionReader {
            lines,
            kinds,
            present: vec![false; n],
            placed: vec![false; n],
            ahead: None,
            last: None,
            pending: None,
            done: false,
        })
    }

    /// The next data row, parsed and checked on its own: `(line, frame, body, motion)`.
    fn row(&mut self) -> Result<Option<(usize, u64, u32, Motion)>, SceneError> {
        while let Some(line) = self.lines.next()? {
            let row = line.trim();
            if row.is_empty() {
                continue;
            }
            let fields: Vec<&str> = row.split(',').map(str::trim).collect();
            if fields.len() != 9 {
                return Err(self.lines.error(format!(
                    "expected 9 fields ({MOTION_HEADER}), found {}",
                    fields.len()
                )));
            }
            let frame: u64 = fields[0].parse().map_err(|_| {
                self.lines.error(format!(
                    "frame `{}` is not a whole number at least 0",
                    shown(fields[0])
                ))
            })?;
            let body: u32 = match fields[1].parse::<u32>() {
                Ok(b) if (b as usize) < self.kinds.len() => b,
                _ => {
                    return Err(self.lines.error(format!(
                        "body `{}` is not one of the bodies file's bodies 0..{}",
                        shown(fields[1]),
                        self.kinds.len()
                    )));
                }
            };
            let motion = if fields[2] == "remove" {
                if let Some(f) = fields[3..].iter().find(|f| !f.is_empty()) {
                    return Err(self.lines.error(format!(
                        "a `remove` row leaves the other pose fields empty, found `{}`",
                        shown(f)
                    )));
                }
                Motion::Remove
            } else {
                let mut v = [0.0; 7];
                for (k, f) in fields[2..].iter().enumerate() {
                    v[k] = f.parse().map_err(|_| {
                        let name = MOTION_HEADER.split(',').nth(k + 2).unwrap_or("");
                        self.lines.error(format!(
                            "field {name} `{}` is not a number (or `remove` in qw)",
                            shown(f)
                        ))
                    })?;
                }
                Motion::Place(pose_from_row(v).map_err(|m| self.lines.error(m))?)
            };
            return Ok(Some((self.lines.line, frame, body, motion)));
        }
        Ok(None)
    }

    /// The next frame with rows, or `None` at the end of the file.
    pub fn next_frame(&mut self) -> Result<Option<FrameMotion>, SceneError> {
        if let Some(e) = self.pending.take() {
            self.done = true;
            return Err(e);
        }
        if self.done {
            return Ok(None);
        }
        let first = match self.ahead.take() {
            Some(r) => Some(r),
            None => self.row()?,
        };
        let Some((line, frame, body, motion)) = first else {
            self.done = true;
            return Ok(None);
        };
        if let Some(last) = self.last
            && frame < last
        {
            self.lines.line = line;
            return Err(self.lines.error(format!(
                "frame {frame} after frame {last}: frames never decrease"
            )));
        }
        self.last = Some(frame);
        let mut motions = vec![];
        let mut next = Some((line, frame, body, motion));
        while let Some((line, f, body, motion)) = next {
            if f != frame {
                if f < frame {
                    // This frame is whole: the error comes with the next call.
                    self.pending = Some(self.lines.error(format!(
                        "frame {f} after frame {frame}: frames never decrease"
                    )));
                } else {
                    self.ahead = Some((line, f, body, motion));
                }
                break;
            }
            self.check(line, body, &motion, &motions)?;
            motions.push((body, motion));
            next = match self.row() {
                Ok(r) => r,
                Err(e) => {
                    self.pending = Some(e);
                    None
                }
            };
        }
        Ok(Some(FrameMotion { frame, motions }))
    }

    /// The rules that depend on the bodies' state, for a row at `line`.
    fn check(
        &mut self,
        line: usize,
        body: u32,
        motion: &Motion,
        frame: &[(u32, Motion)],
    ) -> Result<(), SceneError> {
        let i = body as usize;
        let err = |m: String| SceneError::Row {
            path: self.lines.path.clone(),
            line,
            message: m,
        };
        if frame.iter().any(|&(b, _)| b == body) {
            return Err(err(format!("body {body} has a second row in this frame")));
        }
        match motion {
            Motion::Place(_) if self.kinds[i] == BodyKind::Static && self.placed[i] => {
                return Err(err(format!(
                    "body {body} is static: it has a pose row at one frame only (its insertion)"
                )));
            }
            Motion::Place(_) => {
                self.placed[i] = true;
                self.present[i] = true;
            }
            Motion::Remove if !self.present[i] => {
                return Err(err(format!(
                    "body {body} is removed, but it is not in the scene"
                )));
            }
            Motion::Remove => self.present[i] = false,
        }
        Ok(())
    }
}
