//! One run per output file: a lock file `.<name>.lock` beside the target, held with an
//! advisory lock (`flock`) for the whole run, so that a second run on the same target fails
//! at once instead of racing the first for the rename.
//!
//! Why `flock` on a file rather than the file's mere existence: the kernel releases the lock
//! when its process dies, whatever kills it (SIGKILL, a power cut), so a lock file left
//! behind by a dead run is never mistaken for a live one; the next run takes it over.
//! The file holds the owner's process id, for the message of the run that is refused.

use super::super::{Failure, interrupt};
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A held lock on one output target; dropped, it removes its file and releases the lock.
pub struct TargetLock {
    path: PathBuf,
    file: File,
}

/// The lock file of `target`: `.<name>.lock` in its folder.
pub fn lock_path(target: &Path) -> PathBuf {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    target.with_file_name(format!(".{name}.lock"))
}

impl TargetLock {
    /// Takes the lock of `target` (shown as `shown` in messages), or fails at once naming
    /// the process that holds it.
    pub fn take(target: &Path, shown: &Path) -> Result<TargetLock, Failure> {
        let path = lock_path(target);
        // A run that held the lock may remove the file while we open it; we then hold a lock
        // on a file nobody else can see. Taking it again on the path's current file settles
        // it: the loop ends when the file we locked is the one at the path.
        for _ in 0..16 {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(|e| {
                    Failure::Input(format!(
                        "{}: cannot write: cannot create the lock file {}: {e}",
                        shown.display(),
                        path.display()
                    ))
                })?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let mut owner = String::new();
                    let _ = file.read_to_string(&mut owner);
                    let owner = owner.trim();
                    let who = if owner.is_empty() {
                        "another meshcollide run".to_string()
                    } else {
                        format!("another meshcollide run (process {owner})")
                    };
                    return Err(Failure::Input(format!(
                        "{}: {who} is writing it (lock {}); wait for it to finish, or write elsewhere",
                        shown.display(),
                        path.display()
                    )));
                }
                Err(TryLockError::Error(e)) => {
                    return Err(Failure::Input(format!(
                        "{}: cannot write: cannot lock {}: {e}",
                        shown.display(),
                        path.display()
                    )));
                }
            }
            if !same_file(&file, &path) {
                continue;
            }
            let _ = file
                .set_len(0)
                .and_then(|()| file.seek(SeekFrom::Start(0)))
                .and_then(|_| writeln!(file, "{}", std::process::id()));
            interrupt::register(&path);
            return Ok(TargetLock { path, file });
        }
        Err(Failure::Internal(format!(
            "{}: the lock file {} kept changing under this run",
            shown.display(),
            path.display()
        )))
    }
}

/// Whether the open `file` is the file now at `path` (same device and inode).
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.exists()
}

impl Drop for TargetLock {
    fn drop(&mut self) {
        // Removed while still held, so no other run can lock this file and then lose it.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
        interrupt::unregister(&self.path);
    }
}
