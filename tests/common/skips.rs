//! Skipped tests, summed up where `cargo test` shows it.
//!
//! A test whose resource is missing (the shared models, a GPU adapter, Python) returns early
//! and so reports `ok`; cargo hides a passing test's output, so its `SKIP:` line shows only
//! with `--nocapture`. [`skip`] records the test and why; as the test binary exits it writes
//! one line to stderr, uncaptured, after cargo's `test result:` line:
//!
//! ```text
//! SKIPPED in shared_models: 4 tests without the shared models (../shared/meshes absent; MESHCOLLIDE_REQUIRE_SHARED=1 fails instead); they report ok
//! ```
//!
//! Why at run time and not `#[ignore]` from a `build.rs` cfg: whether a GPU adapter or
//! Python works is known only by trying it at run time, many tests skip only a part (the
//! GPU half of a CPU test), and a build script that watched `../shared` would rerun (and
//! rebuild the crate) on every build where that folder is missing. CI is unchanged: with
//! the `MESHCOLLIDE_REQUIRE_*` variables nothing skips, a missing resource fails.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::sync::Mutex;

/// Why tests skipped: reason → the tests (thread names: libtest names each test's thread).
static SKIPPED: Mutex<BTreeMap<String, BTreeSet<String>>> = Mutex::new(BTreeMap::new());

/// Records that the running test skips (wholly or in part) for `reason`, a phrase such as
/// "without a GPU adapter (…)", and prints `message` as the test's own `SKIP:` line
/// (captured, shown with `--nocapture`). The first call registers the summary at exit.
pub fn skip(reason: &str, message: &str) {
    eprintln!("SKIP: {message}");
    let test = std::thread::current()
        .name()
        .unwrap_or("a test outside the harness")
        .to_string();
    let mut skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    if skipped.is_empty() {
        unsafe extern "C" {
            fn atexit(f: extern "C" fn()) -> std::ffi::c_int;
        }
        // SAFETY: `atexit` is the C library's (on every platform Rust's std links to one);
        // `summary` is an `extern "C" fn()` that neither unwinds nor exits.
        unsafe { atexit(summary) };
    }
    skipped.entry(reason.to_string()).or_default().insert(test);
}

/// The line [`skip`] leaves at exit: which binary, how many tests per reason. `None` when
/// nothing skipped.
pub fn summary_line(binary: &str, skipped: &BTreeMap<String, BTreeSet<String>>) -> Option<String> {
    if skipped.is_empty() {
        return None;
    }
    let parts: Vec<String> = skipped
        .iter()
        .map(|(why, tests)| {
            let n = tests.len();
            format!("{n} test{} {why}", if n == 1 { "" } else { "s" })
        })
        .collect();
    Some(format!(
        "SKIPPED in {binary}: {}; they report ok (--nocapture shows each SKIP line)",
        parts.join(", ")
    ))
}

/// This test binary's name without cargo's hash (`shared_models`).
fn binary() -> String {
    let exe = std::env::current_exe().unwrap_or_default();
    let stem = exe.file_stem().map(|s| s.to_string_lossy().into_owned());
    let stem = stem.unwrap_or_default();
    match stem.rsplit_once('-') {
        Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_string(),
        _ => stem,
    }
}

extern "C" fn summary() {
    let skipped = SKIPPED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(line) = summary_line(&binary(), &skipped) {
        // Straight to the stream: no capture at exit, and no panic out of a C callback.
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    }
}

/// Runs `test` of this test binary again in a child with `env` set (hiding a resource) and
/// the resource's `require` variable (`MESHCOLLIDE_REQUIRE_*`) unset, then set: unset, the
/// test passes by skipping and the child's one `SKIPPED` line is `summary`; set, it fails,
/// with no summary.
pub fn rerun_without(test: &str, env: (&str, &std::ffi::OsStr), require: &str, summary: &str) {
    let child = |required: bool| {
        let mut c = std::process::Command::new(std::env::current_exe().unwrap());
        c.args([test, "--exact"])
            .env(env.0, env.1)
            .env_remove(require);
        if required {
            c.env(require, "1");
        }
        let o = c.output().unwrap();
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (o.status.success(), text(&o.stdout), text(&o.stderr))
    };
    let (ok, out, err) = child(false);
    assert!(ok && out.contains("1 passed"), "{out}\n{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("SKIPPED")).collect();
    assert_eq!(lines, [summary], "{err}");
    let (ok, out, err) = child(true);
    assert!(!ok && out.contains("1 failed"), "{out}\n{err}");
    assert!(!err.contains("SKIPPED"), "{err}");
}
