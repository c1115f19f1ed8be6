//! Ctrl-C (and SIGTERM, SIGHUP: a cluster's scheduler stopping a worker) without half-written
//! output. While `query` streams poses ([`streaming`]), the first signal asks it to stop at
//! the next pose it delivers: it then keeps the whole poses done as `<out>.partial`, as after
//! any failure, and says so (exit 130). At any other moment, or on a second signal, the
//! process removes its temporary output files ([`register`]) and exits 130 at once: the
//! final paths are renamed into place only when complete, so they are never partial.
//!
//! A stop at once removes everything the run has not promised: its temporaries, its lock
//! files, and a `.partial` file whose message has not been printed yet (the second Ctrl-C
//! of a user who changed their mind while the poses in flight finished). What the run
//! commits or promises, it does under [`finishing`], which a stop waits for: the message on
//! the terminal always matches the files on disk.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);
static STREAMING: AtomicBool = AtomicBool::new(false);
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Held by whoever ends the process: the signal handler while it removes the temporaries
/// and exits, or the run from [`finishing`] on (never released: the process ends).
static ENDING: Mutex<()> = Mutex::new(());
static FINISHING: AtomicBool = AtomicBool::new(false);

/// The exit code of a run stopped by a signal (128 + SIGINT, as shells report it).
pub const EXIT_CODE: u8 = 130;

/// Installs the handler (once, at start-up; a failure leaves the default behaviour).
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if STREAMING.load(Ordering::SeqCst) && !REQUESTED.swap(true, Ordering::SeqCst) {
            eprintln!("\ninterrupted: stopping after the poses in flight (again to stop at once)");
            return;
        }
        // If the run is committing or printing its last message, it ends the process
        // itself: this waits for that, for good.
        let _ending = ENDING.lock();
        let paths = match TEMPORARIES.lock() {
            Ok(t) => t.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        for p in paths {
            let _ = std::fs::remove_file(p);
        }
        eprintln!("\ninterrupted: no output written");
        std::process::exit(EXIT_CODE.into());
    });
}

/// From here on the run ends the process itself: a signal no longer removes anything (it
/// waits), so the outputs committed after this call and the message printed after it stand
/// as they are. Called before the outputs are renamed into place and before the final
/// message; later calls return at once. Do not call it from the handler's thread.
pub fn finishing() {
    if !FINISHING.swap(true, Ordering::SeqCst) {
        match ENDING.lock() {
            Ok(g) => std::mem::forget(g),
            Err(p) => std::mem::forget(p.into_inner()),
        }
    }
}

/// Whether a stop was asked for while streaming.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Runs `f` with a first signal turned into a request ([`requested`]) instead of an exit.
pub fn streaming<T>(f: impl FnOnce() -> T) -> T {
    STREAMING.store(true, Ordering::SeqCst);
    let out = f();
    STREAMING.store(false, Ordering::SeqCst);
    out
}

/// A temporary file to remove if the process is stopped before it is renamed or dropped.
pub fn register(tmp: &Path) {
    if let Ok(mut t) = TEMPORARIES.lock() {
        t.push(tmp.to_path_buf());
    }
}

/// The temporary file is gone (renamed into place or removed).
pub fn unregister(tmp: &Path) {
    if let Ok(mut t) = TEMPORARIES.lock() {
        t.retain(|p| p != tmp);
    }
}
