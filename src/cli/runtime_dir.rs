//! A valid `XDG_RUNTIME_DIR` before wgpu probes Vulkan.
//!
//! Without one (containers, ssh sessions, CI), Mesa's Vulkan drivers connect to Wayland while
//! enumerating adapters and libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set
//! in the environment.` (twice), which users take for our error. Pointing the variable at a
//! private directory of ours silences it; nothing of ours is written there.

#[cfg(unix)]
use std::path::{Path, PathBuf};

/// Sets `XDG_RUNTIME_DIR` to a private directory if it is unset, empty, relative (libwayland
/// rejects those) or not an existing directory. Must run before any other thread starts.
pub fn ensure() {
    #[cfg(unix)]
    {
        let valid = std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|v| {
            let p = Path::new(&v);
            p.is_absolute() && p.is_dir()
        });
        if valid {
            return;
        }
        if let Some(dir) = private_dir(&std::env::temp_dir()) {
            // SAFETY: `cli::run` calls this first, while the process has a single thread, so
            // no other thread can read or write the environment concurrently.
            unsafe { std::env::set_var("XDG_RUNTIME_DIR", dir) };
        }
    }
}

/// `TMP/meshcollide-runtime-UID` if it is (or can be made) a directory of ours with mode
/// 0700; otherwise (taken by another user, a symlink, other permissions) a fresh directory
/// of a unique name. `None` if nothing can be created: the variable then stays as it was.
#[cfg(unix)]
fn private_dir(tmp: &Path) -> Option<PathBuf> {
    let uid = own_uid(tmp)?;
    let shared = tmp.join(format!("meshcollide-runtime-{uid}"));
    if is_private(&shared, uid) || (create_private(&shared) && is_private(&shared, uid)) {
        return Some(shared);
    }
    let fresh = tmp.join(format!("meshcollide-runtime-{uid}-{}", unique()));
    (create_private(&fresh) && is_private(&fresh, uid)).then_some(fresh)
}

/// Our user id, without libc: the owner of a file we create (and remove at once).
#[cfg(unix)]
fn own_uid(tmp: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    let probe = tmp.join(format!(".meshcollide-uid-{}", unique()));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .ok()?;
    let uid = file.metadata().ok().map(|m| m.uid());
    drop(file);
    let _ = std::fs::remove_file(&probe);
    uid
}

/// A real directory (not a symlink) owned by `uid`, readable by nobody else.
#[cfg(unix)]
fn is_private(dir: &Path, uid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(dir)
        .is_ok_and(|m| m.is_dir() && m.uid() == uid && m.mode() & 0o777 == 0o700)
}

/// Creates `dir` (failing if anything is there) with mode 0700 whatever the umask.
#[cfg(unix)]
fn create_private(dir: &Path) -> bool {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new().mode(0o700).create(dir).is_ok()
        && std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).is_ok()
}

/// A name part no other process picks at the same time: our pid and the clock.
#[cfg(unix)]
fn unique() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}", std::process::id())
}
