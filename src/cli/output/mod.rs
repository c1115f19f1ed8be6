//! Output files that are whole or absent: each is written under a temporary name in its own
//! directory, synced, and renamed into place only when complete, so the final path never
//! holds half a file, whether the run fails, is killed, or the disk fills up.

mod claim;
mod lock;

pub use claim::{Out, Outputs};

use super::Failure;
use crate::formats::{PAIRS_HEADER, write_pose_pairs};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

pub fn cannot_write(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::Input(format!("{}: cannot write: {e}", path.display()))
}

/// A file written as `.<name>.<pid>.tmp` next to its final path; [`AtomicFile::commit`]
/// renames it into place. Dropped uncommitted (an error, a panic), the temporary is removed.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    file: File,
    persisted: bool,
}

impl AtomicFile {
    /// Creates the temporary file: an unwritable directory is reported now, before any work.
    pub fn create(path: &Path) -> Result<AtomicFile, Failure> {
        let name = match path.file_name() {
            Some(n) if !path.is_dir() => n.to_string_lossy(),
            _ => return Err(cannot_write(path, "is a directory")),
        };
        let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
        // The name holds our process id: a file by that name is a dead process's leftover.
        let file = File::create(&tmp).map_err(|e| cannot_write(path, e))?;
        super::interrupt::register(&tmp);
        Ok(AtomicFile {
            path: path.to_path_buf(),
            tmp,
            file,
            persisted: false,
        })
    }

    /// Writes all of `bytes`.
    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), Failure> {
        self.file
            .write_all(bytes)
            .map_err(|e| cannot_write(&self.path, e))
    }

    /// Syncs the data and renames the file into place.
    pub fn commit(self) -> Result<(), Failure> {
        let path = self.path.clone();
        self.persist(&path).map_err(|e| cannot_write(&path, e))
    }

    /// Syncs the data, then renames the file to `to` (in the same directory): data first,
    /// so a crash after the rename cannot leave a complete name on incomplete data.
    fn persist(mut self, to: &Path) -> std::io::Result<()> {
        self.file.sync_all()?;
        std::fs::rename(&self.tmp, to)?;
        self.persisted = true;
        super::interrupt::unregister(&self.tmp);
        // The rename itself is durable once the directory is synced (best effort).
        if let Some(dir) = to.parent() {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            let _ = File::open(dir).and_then(|d| d.sync_all());
        }
        Ok(())
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if !self.persisted {
            let _ = std::fs::remove_file(&self.tmp);
            super::interrupt::unregister(&self.tmp);
        }
    }
}

/// A temporary file of the run beside an output, `.<name>.<pid>.<what>.tmp` (so the next
/// run on that output removes it if this one is killed), removed when dropped or when the
/// process is stopped by a signal.
pub struct Temporary {
    path: PathBuf,
}

impl Temporary {
    /// The name for a temporary `what` beside `out` (nothing is created).
    pub fn beside(out: &Path, what: &str) -> Result<Temporary, Failure> {
        let name = match out.file_name() {
            Some(n) => n.to_string_lossy(),
            None => return Err(cannot_write(out, "is a directory")),
        };
        let path = out.with_file_name(format!(".{name}.{}.{what}.tmp", std::process::id()));
        super::interrupt::register(&path);
        Ok(Temporary { path })
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Temporary {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        super::interrupt::unregister(&self.path);
    }
}

/// Where a failed `query` keeps the pairs it computed: `<out>.partial`.
pub fn partial_path(out: &Path) -> PathBuf {
    let mut p = out.as_os_str().to_owned();
    p.push(".partial");
    PathBuf::from(p)
}

/// Bytes of `pairs.csv` buffered before a write: blocks end at a pose boundary.
const BLOCK: usize = 1 << 16;

/// `pairs.csv` written pose by pose into an [`AtomicFile`] in blocks that end between
/// poses, so the disk holds whole poses only and a failed run can keep them
/// ([`PairsOut::keep_partial`]).
pub struct PairsOut {
    file: AtomicFile,
    buf: Vec<u8>,
    /// Poses written to `buf` or the disk.
    poses: usize,
    /// Bytes and poses on disk.
    disk_bytes: u64,
    disk_poses: usize,
    /// The file's first pose number (`--pose-range`), for the partial-output message.
    first: usize,
    /// Time spent writing blocks to the file (the query's time excludes it).
    write_time: std::time::Duration,
    /// What a unit of rows is, for the partial-output message: `poses` or `frames`.
    unit: &'static str,
}

impl PairsOut {
    /// Creates the temporary file for `pairs.csv` at `path`.
    pub fn create(path: &Path) -> Result<PairsOut, Failure> {
        PairsOut::with_header(path, PAIRS_HEADER, "poses")
    }

    /// Creates the temporary file for rows under `header`, written a `unit` (`frames`, …)
    /// at a time with [`PairsOut::push_rows`].
    pub fn with_header(path: &Path, header: &str, unit: &'static str) -> Result<PairsOut, Failure> {
        let mut buf = Vec::with_capacity(2 * BLOCK);
        buf.extend_from_slice(header.as_bytes());
        buf.push(b'\n');
        Ok(PairsOut {
            file: AtomicFile::create(path)?,
            buf,
            poses: 0,
            disk_bytes: 0,
            disk_poses: 0,
            first: 0,
            write_time: Default::default(),
            unit,
        })
    }

    /// Appends the rows of the next unit (whole lines).
    pub fn push_rows(&mut self, rows: &[u8]) -> std::io::Result<()> {
        self.buf.extend_from_slice(rows);
        self.poses += 1;
        if self.buf.len() >= BLOCK {
            self.flush()?;
        }
        Ok(())
    }

    /// Numbers the poses of the message of [`PairsOut::keep_partial`] from `first`.
    pub fn first_pose(mut self, first: usize) -> Self {
        self.first = first;
        self
    }

    /// Appends the pairs of the next pose (`pose` is its index).
    pub fn push(&mut self, pose: usize, pairs: &[(u32, u32)]) -> std::io::Result<()> {
        write_pose_pairs(&mut self.buf, pose, pairs)?;
        self.poses += 1;
        if self.buf.len() >= BLOCK {
            self.flush()?;
        }
        Ok(())
    }

    /// Time spent writing blocks so far.
    pub fn write_time(&self) -> std::time::Duration {
        self.write_time
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let t = std::time::Instant::now();
        let f = &mut self.file.file;
        let written = f.write_all(&self.buf);
        self.write_time += t.elapsed();
        if let Err(e) = written {
            // Part of the block may be on disk: cut back to the last whole pose.
            let _ = f
                .set_len(self.disk_bytes)
                .and_then(|_| f.seek(SeekFrom::Start(self.disk_bytes)));
            self.buf.clear();
            self.poses = self.disk_poses;
            return Err(e);
        }
        self.disk_bytes += self.buf.len() as u64;
        self.disk_poses = self.poses;
        self.buf.clear();
        Ok(())
    }

    /// Writes what is left and renames the file into place.
    pub fn commit(mut self) -> Result<(), Failure> {
        self.flush().map_err(|e| cannot_write(&self.file.path, e))?;
        self.file.commit()
    }

    /// After a failed run: keeps the whole poses written so far as `<out>.partial` (when
    /// there are any; else nothing is left behind) and says so for the error message.
    pub fn keep_partial(mut self, total: usize) -> String {
        let out = self.file.path.clone();
        let _ = self.flush();
        let (n, f) = (self.disk_poses, self.first);
        if n == 0 {
            return format!("{} was not written", out.display());
        }
        let partial = partial_path(&out);
        // Not promised until its message is printed (`interrupt::finishing`): a second
        // signal before then removes it with the rest.
        super::interrupt::register(&partial);
        match self.file.persist(&partial) {
            Ok(()) => format!(
                "{} was not written; the pairs of {} {f}..{} (of {total}) are in {}",
                out.display(),
                self.unit,
                f + n,
                partial.display()
            ),
            Err(e) => format!(
                "{} was not written; the pairs of {} {f}..{} could not be kept in {}: {e}",
                out.display(),
                self.unit,
                f + n,
                partial.display()
            ),
        }
    }
}

/// Finishes a successful run: the statistics are written (before either file is renamed
/// into place), then pairs.csv and stats.json are committed, and what an earlier failed run
/// kept in `<out>.partial` is removed, being superseded.
pub fn finish_outputs(
    out: PairsOut,
    stats_file: Option<AtomicFile>,
    stats: &impl serde::Serialize,
    out_path: &Path,
) -> Result<(), Failure> {
    super::interrupt::finishing();
    let stats_file = match stats_file {
        Some(mut f) => {
            let json = serde_json::to_string_pretty(stats)
                .map_err(|e| Failure::Internal(e.to_string()))?;
            f.write_all((json + "\n").as_bytes())?;
            Some(f)
        }
        None => None,
    };
    out.commit()?;
    if let Some(f) = stats_file {
        f.commit()?;
    }
    let _ = std::fs::remove_file(partial_path(out_path));
    Ok(())
}
