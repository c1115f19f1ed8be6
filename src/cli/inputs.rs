//! `query`'s inputs: a mesh file, or a saved hierarchy (`.mch`, recognized by its magic
//! bytes) whose mesh and hierarchy are used as they are; and `--pose-range`.

use super::Failure;
use crate::saved::{KdopHierarchy, LoadedInput, SavedHierarchy, load_mesh_or_saved};
use crate::{bvh::BuildOptions, kind::BvKind, mesh::Mesh};
use std::path::Path;

/// One side of the query after the first pass: a mesh, or a `.mch` file with the time its
/// load took (the load replaces the build, so `build_ms` counts it).
pub enum Input {
    Mesh(Mesh),
    Saved(Box<SavedHierarchy>, std::time::Duration),
}

impl Input {
    /// The time of a `.mch` file's load, which stands for a build.
    pub fn saved_load_time(&self) -> std::time::Duration {
        match self {
            Input::Mesh(_) => std::time::Duration::ZERO,
            Input::Saved(_, t) => *t,
        }
    }
}

/// Loads a mesh file or a `.mch` file, opening it once (it may be a pipe).
pub fn load(path: &Path) -> Result<Input, Failure> {
    let t = std::time::Instant::now();
    Ok(match load_mesh_or_saved(path)? {
        LoadedInput::Mesh(m) => Input::Mesh(m),
        LoadedInput::Saved(s) => Input::Saved(s, t.elapsed()),
    })
}

/// [`load`], with a mesh file that holds no triangle as `None` instead of an error: the
/// distance query's contract gives such a mesh `inf` and no witness at every pose
/// (docs/FORMATS.md, "Distance"), where every other command refuses it.
pub fn load_or_empty(path: &Path) -> Result<Option<Input>, Failure> {
    let t = std::time::Instant::now();
    match load_mesh_or_saved(path) {
        Err(crate::error::Error::Mesh(crate::error::MeshError::Empty { .. })) => Ok(None),
        Err(e) => Err(e.into()),
        Ok(LoadedInput::Mesh(m)) => Ok(Some(Input::Mesh(m))),
        Ok(LoadedInput::Saved(s)) => Ok(Some(Input::Saved(s, t.elapsed()))),
    }
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
    let saved = match input {
        Input::Mesh(m) => return Ok((m, None)),
        Input::Saved(saved, _) => saved,
    };
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
    Ok((mesh, Some(h)))
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

/// `--poses` as the run reads it: the file itself, read once to check it and again to
/// stream it; or, for `-` (stdin), a FIFO or a device, which can be read only once, a copy
/// made while checking it (every row, with [`crate::pose::MAX_LINE`] per line, so a stream
/// that is not a poses file is refused after at most that many bytes), kept beside the
/// output as `.<out>.<pid>.poses.tmp` and removed when the run ends. Memory holds one line
/// either way; the copy takes the disk space of the rows, not memory (the system's
/// temporary folder may be a RAM disk, the output's folder is where the user has room).
pub struct PosesFile {
    /// The file to open.
    pub read: std::path::PathBuf,
    /// The name errors give it (`stdin` for `-`).
    pub name: std::path::PathBuf,
    /// The copy of a stream, removed when this is dropped.
    _copy: Option<super::output::Temporary>,
}

impl PosesFile {
    /// Opens `--poses PATH` for a run whose pairs go to `out`.
    pub fn open(path: &Path, out: &Path) -> Result<PosesFile, Failure> {
        let stdin = path.as_os_str() == "-";
        let regular = !stdin && std::fs::metadata(path).is_ok_and(|m| m.is_file());
        if regular || (!stdin && !path.exists()) {
            return Ok(PosesFile {
                read: path.to_path_buf(),
                name: path.to_path_buf(),
                _copy: None,
            });
        }
        let name = if stdin {
            std::path::PathBuf::from("stdin")
        } else {
            path.to_path_buf()
        };
        let copy = super::output::Temporary::beside(out, "poses")?;
        let file = std::fs::File::create(copy.path())
            .map_err(|e| super::output::cannot_write(copy.path(), e))?;
        let source: Box<dyn std::io::Read> = if stdin {
            Box::new(std::io::stdin().lock())
        } else {
            Box::new(std::fs::File::open(path).map_err(|source| {
                crate::error::Error::from(crate::error::PoseError::Io {
                    path: name.clone(),
                    source,
                })
            })?)
        };
        let mut tee = Tee {
            source,
            copy: std::io::BufWriter::new(file),
            error: None,
        };
        let checked = crate::pose::PoseReader::new(&name, std::io::BufReader::new(&mut tee))
            .and_then(|mut r| r.try_fold(0usize, |n, p| p.map(|_| n + 1)));
        if let Some(e) = tee.error.take() {
            return Err(super::output::cannot_write(copy.path(), e));
        }
        checked.map_err(crate::error::Error::from)?;
        tee.copy
            .into_inner()
            .map_err(|e| super::output::cannot_write(copy.path(), e.error()))?;
        Ok(PosesFile {
            read: copy.path().to_path_buf(),
            name,
            _copy: Some(copy),
        })
    }
}

/// Copies what is read from `source` to `copy`; a write error ends the reading (an empty
/// read) and is kept for the caller.
struct Tee<W: std::io::Write> {
    source: Box<dyn std::io::Read>,
    copy: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> std::io::Read for Tee<W> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.error.is_some() {
            return Ok(0);
        }
        let n = self.source.read(buf)?;
        if let Err(e) = self.copy.write_all(&buf[..n]) {
            self.error = Some(e);
            return Ok(0);
        }
        Ok(n)
    }
}

/// A distance argument (`--tolerance`, `--upto`): a decimal rounded once to f64 (Rust's
/// parser rounds correctly), finite and at least 0. Clap names the option in its error
/// (exit 2).
pub fn parse_distance(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x + 0.0),
        Ok(x) => Err(format!("must be a finite number at least 0, got {x}")),
        Err(e) => Err(format!("not a number ({e})")),
    }
}
