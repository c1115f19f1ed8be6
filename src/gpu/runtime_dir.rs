//! A valid `XDG_RUNTIME_DIR` before wgpu probes Vulkan.
//!
//! Without one (containers, ssh sessions, CI), Mesa's Vulkan loader layer (device
//! selection, which asks the Wayland compositor for the default GPU) connects to Wayland while
//! enumerating adapters, and libwayland prints `error: XDG_RUNTIME_DIR is invalid or not set
//! in the environment.` (twice per instance), which users take for our error: it is no error,
//! the adapters are found all the same. Pointing the variable at a private directory of ours
//! silences it; nothing of ours is written there, and no compositor is found there, so Mesa
//! behaves as it did without the variable.
//!
//! [`ensure`] runs once per process, before the first wgpu instance
//! ([`crate::gpu::GpuContext::new`], [`crate::gpu::adapters`]), so every user of the library
//! gets it, not only the command line. It changes the environment only when the variable is
//! unset, empty, relative or not a directory, i.e. when no program could have used it; a
//! valid value is never touched. A program that wants the variable left alone either way sets
//! it to a valid directory itself before the first context.

#[cfg(unix)]
use std::path::{Path, PathBuf};

/// Sets `XDG_RUNTIME_DIR` to a private directory if it is unset, empty, relative (libwayland
/// rejects those) or not an existing directory; once per process (later calls return at
/// once). The command line calls it first, while single-threaded; the library calls it
/// before creating its first wgpu instance.
pub fn ensure() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(set_if_invalid);
}

fn set_if_invalid() {
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
            // SAFETY: setting a variable races only with C code reading the environment on
            // another thread at this moment (Rust's own `env` functions take a lock). The
            // command line calls this first, while it has a single thread. A library caller
            // reaches it before its first wgpu instance, under `ONCE`, so none of our threads
            // is inside Vulkan (which reads the environment) at that moment; the remaining
            // risk, a caller's own thread calling `getenv` in C at that instant, is why the
            // variable is touched only when it is invalid, once per process.
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
