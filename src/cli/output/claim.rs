//! A run's output files, claimed before any work: every output is checked against every
//! input and against each other (by canonical path and, where the file exists, by device
//! and inode, so hard links and symlinks are caught), an existing read-only target is kept
//! unless `--force`, each target is locked ([`TargetLock`]), and what earlier runs left
//! beside it (temporaries of a dead process, a `.partial`) is removed or named.
//!
//! Why before any work: a user's only copy of a model, or a poses file, lost to a typo
//! (`self A --out A`, `--out x.csv --stats x.csv`) is a worse failure than any query error.

use super::super::Failure;
use super::lock::TargetLock;
use super::partial_path;
use std::path::{Path, PathBuf};

/// One output of a command: its flag (for messages), its path, and whether a failed run
/// may keep part of it as `<path>.partial`.
#[derive(Clone, Copy)]
pub struct Out<'a> {
    pub flag: &'static str,
    pub path: &'a Path,
    pub partial: bool,
}

impl<'a> Out<'a> {
    /// An output written whole or not at all.
    pub fn whole(flag: &'static str, path: &'a Path) -> Out<'a> {
        Out {
            flag,
            path,
            partial: false,
        }
    }

    /// `pairs.csv`: a failed run keeps its whole poses in `<path>.partial`.
    pub fn pairs(flag: &'static str, path: &'a Path) -> Out<'a> {
        Out {
            flag,
            path,
            partial: true,
        }
    }
}

/// Where a file is, for comparing paths: its canonical path (the folder canonicalized when
/// the file does not exist yet) and, when it exists, its device and inode.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Identity {
    canonical: PathBuf,
    inode: Option<(u64, u64)>,
}

impl Identity {
    fn of(path: &Path) -> Identity {
        let inode = inode(path);
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| {
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
            let dir = std::fs::canonicalize(parent).unwrap_or_else(|_| parent.to_path_buf());
            dir.join(path.file_name().unwrap_or_default())
        });
        Identity { canonical, inode }
    }

    fn same(&self, other: &Identity) -> bool {
        self.canonical == other.canonical
            || matches!((self.inode, other.inode), (Some(a), Some(b)) if a == b)
    }
}

#[cfg(unix)]
fn inode(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn inode(_: &Path) -> Option<(u64, u64)> {
    None
}

/// The claimed outputs of a run: their locks are held until it is dropped (after the
/// outputs are committed or the run has failed).
pub struct Outputs {
    /// Per output: what it is checked as (its `.partial` too).
    claimed: Vec<(&'static str, PathBuf, Identity)>,
    /// Per output given, where it is written.
    targets: Vec<PathBuf>,
    /// Held for the run.
    locks: Vec<TargetLock>,
}

/// `path`, or where its symlink points (relative links against the link's folder), followed
/// to a file that is not a link; the path itself where the chain cannot be followed.
fn resolve_link(path: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::read_link(&p) {
            Ok(target) => {
                p = match p.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Err(_) => return p,
        }
    }
    path.to_path_buf()
}

impl Outputs {
    /// Claims `outputs` for a run that reads `inputs` (flag or role, path); `force` lets an
    /// existing read-only target be replaced. Fails with an input error (exit 2) naming both
    /// paths when an output is an input or another output, or naming the target when it is
    /// read-only, not a regular file, or locked by another run. Prints a note for each
    /// leftover of an earlier run it removes or finds.
    pub fn claim(
        outputs: &[Out<'_>],
        inputs: &[(&str, &Path)],
        force: bool,
    ) -> Result<Outputs, Failure> {
        // A symlink is written through: its target is replaced, the link kept.
        let resolved: Vec<PathBuf> = outputs.iter().map(|o| resolve_link(o.path)).collect();
        let outputs: Vec<Out<'_>> = outputs
            .iter()
            .zip(&resolved)
            .map(|(o, path)| Out { path, ..*o })
            .collect();
        let mut claimed: Vec<(&'static str, PathBuf, Identity)> = Vec::new();
        for o in &outputs {
            check_target(o, force)?;
            let mut paths = vec![o.path.to_path_buf()];
            if o.partial {
                paths.push(partial_path(o.path));
            }
            for p in paths {
                let id = Identity::of(&p);
                if let Some((flag, other, _)) = claimed.iter().find(|(_, _, c)| c.same(&id)) {
                    return Err(Failure::Input(format!(
                        "{} {} and {flag} {} are the same file: give each output its own path",
                        o.flag,
                        p.display(),
                        other.display()
                    )));
                }
                claimed.push((o.flag, p, id));
            }
        }
        let mut claim = Outputs {
            claimed,
            targets: resolved.clone(),
            locks: Vec::new(),
        };
        claim.check_inputs(inputs)?;
        for o in &outputs {
            claim.locks.push(TargetLock::take(o.path, o.path)?);
            for note in leftovers(o) {
                eprintln!("note: {}", crate::error::escape_controls(&note));
            }
        }
        Ok(claim)
    }

    /// Where output `i` (in the order given to [`Outputs::claim`]) is written: its path,
    /// or the file its symlink points to.
    pub fn path(&self, i: usize) -> &Path {
        &self.targets[i]
    }

    /// Checks `inputs` against the claimed outputs (also for inputs known only later, such
    /// as the files a frame list names).
    pub fn check_inputs(&self, inputs: &[(&str, &Path)]) -> Result<(), Failure> {
        for (role, input) in inputs {
            let id = Identity::of(input);
            if let Some((flag, out, _)) = self.claimed.iter().find(|(_, _, c)| c.same(&id)) {
                return Err(Failure::Input(format!(
                    "{flag} {} is the {role} {}: an output never replaces an input; choose another output path",
                    out.display(),
                    input.display()
                )));
            }
        }
        Ok(())
    }
}

/// An existing target must be a regular file (the output is written beside it and renamed
/// over it, which would replace a device, a pipe or a folder rather than write into it),
/// and writable unless `force`.
fn check_target(o: &Out<'_>, force: bool) -> Result<(), Failure> {
    let Ok(meta) = std::fs::metadata(o.path) else {
        return Ok(());
    };
    let shown = o.path.display();
    if meta.is_dir() {
        return Err(Failure::Input(format!(
            "{} {shown}: cannot write: is a directory",
            o.flag
        )));
    }
    if !meta.is_file() {
        return Err(Failure::Input(format!(
            "{} {shown}: cannot write: not a regular file (outputs are written to a temporary file renamed into place, which would replace it)",
            o.flag
        )));
    }
    if meta.permissions().readonly() && !force {
        return Err(Failure::Input(format!(
            "{} {shown}: the file exists and is read-only; give --force to replace it",
            o.flag
        )));
    }
    Ok(())
}

/// What earlier runs on target `o` left beside it, with the lock held (so no live run of
/// ours writes there): temporaries `.<name>.<pid>.tmp` of processes that no longer run are
/// removed, others named; an earlier `.partial` is named (this run replaces it when it
/// completes, or when it fails with poses done). The notes to print.
fn leftovers(o: &Out<'_>) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(name) = o.path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return notes;
    };
    let dir = match o.path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let prefix = format!(".{name}.");
    let ours = std::process::id();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let file = e.file_name().to_string_lossy().into_owned();
            // `.<name>.<pid>.tmp`, or `.<name>.<pid>.<what>.tmp` (`output::Temporary`).
            let Some(pid) = file
                .strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(".tmp"))
                .and_then(|r| r.split('.').next())
                .and_then(|p| p.parse::<u32>().ok())
            else {
                continue;
            };
            let path = e.path();
            if pid == ours {
                continue;
            }
            if process_alive(pid) == Some(true) {
                notes.push(format!(
                    "{} is a temporary file of process {pid}, which still runs; left as it is",
                    path.display()
                ));
            } else if std::fs::remove_file(&path).is_ok() {
                notes.push(format!(
                    "removed {}, left by an earlier run on {} that was stopped (process {pid})",
                    path.display(),
                    o.path.display()
                ));
            } else {
                notes.push(format!(
                    "{} was left by an earlier run on {} (process {pid}) and cannot be removed",
                    path.display(),
                    o.path.display()
                ));
            }
        }
    }
    if o.partial {
        let partial = partial_path(o.path);
        if partial.is_file() {
            notes.push(format!(
                "{} holds the pairs of an earlier run that did not finish; this run removes it when it completes",
                partial.display()
            ));
        }
    }
    notes
}

/// Whether process `pid` runs (Linux: `/proc/<pid>`); `None` where that cannot be told.
fn process_alive(pid: u32) -> Option<bool> {
    let proc = Path::new("/proc");
    proc.join("self")
        .exists()
        .then(|| proc.join(pid.to_string()).exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("mc-claim-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn message(r: Result<Outputs, Failure>) -> String {
        match r {
            Err(Failure::Input(m)) => m,
            Err(_) => panic!("not an input error"),
            Ok(_) => panic!("claimed"),
        }
    }

    #[test]
    fn an_output_that_is_an_input_is_refused_by_path_link_and_inode() {
        let d = dir("input");
        let a = d.join("a.obj");
        std::fs::write(&a, "v 0 0 0\n").unwrap();
        let claim =
            |out: &Path| Outputs::claim(&[Out::whole("--out", out)], &[("mesh", &a)], false);
        let m = message(claim(&a));
        assert!(m.contains("is the mesh") && m.contains("a.obj"), "{m}");
        // The same file by another spelling, a symlink and a hard link.
        let m = message(claim(&d.join(".").join("a.obj")));
        assert!(m.contains("is the mesh"), "{m}");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&a, d.join("link.obj")).unwrap();
            let m = message(claim(&d.join("link.obj")));
            assert!(m.contains("is the mesh"), "{m}");
            std::fs::hard_link(&a, d.join("hard.obj")).unwrap();
            let m = message(claim(&d.join("hard.obj")));
            assert!(m.contains("is the mesh"), "{m}");
        }
        // The `.partial` of a pairs output is an output too.
        let p = d.join("p.csv.partial");
        std::fs::write(&p, "x").unwrap();
        let m = message(Outputs::claim(
            &[Out::pairs("--out", &d.join("p.csv"))],
            &[("--poses input", &p)],
            false,
        ));
        assert!(m.contains("--poses input"), "{m}");
        assert!(claim(&d.join("other.csv")).is_ok());
    }

    #[test]
    fn two_outputs_on_one_file_are_refused() {
        let d = dir("two");
        let x = d.join("x.csv");
        let m = message(Outputs::claim(
            &[Out::pairs("--out", &x), Out::whole("--stats", &x)],
            &[],
            false,
        ));
        assert!(
            m.contains("--stats") && m.contains("--out") && m.contains("same file"),
            "{m}"
        );
        assert!(!x.exists());
    }

    #[test]
    fn read_only_targets_need_force() {
        let d = dir("ro");
        let x = d.join("x.csv");
        std::fs::write(&x, "keep").unwrap();
        let mut perm = std::fs::metadata(&x).unwrap().permissions();
        perm.set_readonly(true);
        std::fs::set_permissions(&x, perm).unwrap();
        let m = message(Outputs::claim(&[Out::whole("--out", &x)], &[], false));
        assert!(m.contains("read-only") && m.contains("--force"), "{m}");
        assert!(Outputs::claim(&[Out::whole("--out", &x)], &[], true).is_ok());
        assert_eq!(std::fs::read_to_string(&x).unwrap(), "keep");
    }

    #[test]
    fn a_second_claim_on_a_target_fails_while_the_first_holds_it() {
        let d = dir("lock");
        let x = d.join("x.csv");
        let first = Outputs::claim(&[Out::whole("--out", &x)], &[], false).unwrap();
        assert!(super::super::lock::lock_path(&x).exists());
        let m = message(Outputs::claim(&[Out::whole("--out", &x)], &[], false));
        assert!(m.contains("is writing it"), "{m}");
        assert!(m.contains(&std::process::id().to_string()), "{m}");
        drop(first);
        assert!(!super::super::lock::lock_path(&x).exists());
        assert!(Outputs::claim(&[Out::whole("--out", &x)], &[], false).is_ok());
    }

    #[test]
    fn temporaries_of_dead_processes_are_removed() {
        let d = dir("stale");
        let x = d.join("x.csv");
        // No process has a pid this large (Linux caps pids at 2^22).
        let stale = d.join(".x.csv.4294967290.tmp");
        std::fs::write(&stale, "half").unwrap();
        let other = d.join(".y.csv.4294967290.tmp");
        std::fs::write(&other, "other target").unwrap();
        let _claim = Outputs::claim(&[Out::whole("--out", &x)], &[], false).unwrap();
        assert!(!stale.exists());
        assert!(other.exists());
    }
}
