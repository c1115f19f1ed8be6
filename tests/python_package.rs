//! The Python package (`python/`): builds its wheel with maturin (into this target
//! directory, reusing the release artifacts), installs it into a private folder and runs its
//! pytest suite against the command line built here. Skips loudly without Python, maturin,
//! NumPy or pytest, and fails instead when `MESHCOLLIDE_REQUIRE_PYTHON=1` (as in CI).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The interpreter: `MESHCOLLIDE_PYTHON`, else `python3` on PATH.
fn python() -> String {
    std::env::var("MESHCOLLIDE_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// What is missing to run the suite, if anything.
fn missing(py: &str) -> Option<String> {
    let ok = |args: &[&str]| {
        Command::new(py)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !ok(&["--version"]) {
        return Some(format!("no Python interpreter `{py}`"));
    }
    if !ok(&["-c", "import numpy, pytest"]) {
        return Some(format!("`{py}` lacks numpy or pytest"));
    }
    if !ok(&["-m", "maturin", "--version"]) {
        return Some(format!("`{py}` lacks maturin"));
    }
    None
}

fn run(cmd: &mut Command) {
    eprintln!("python_package: {cmd:?}");
    let status = cmd.status().expect("spawn");
    assert!(status.success(), "{cmd:?} failed: {status}");
}

#[test]
fn python_package_pytest_suite() {
    let py = python();
    if let Some(why) = missing(&py) {
        assert!(
            std::env::var("MESHCOLLIDE_REQUIRE_PYTHON").as_deref() != Ok("1"),
            "{why}, and MESHCOLLIDE_REQUIRE_PYTHON=1"
        );
        common::skip(
            "without Python, maturin, NumPy or pytest (MESHCOLLIDE_REQUIRE_PYTHON=1 fails instead)",
            &format!(
                "python_package: {why} (pip install maturin numpy pytest \"dask[distributed]\"; MESHCOLLIDE_REQUIRE_PYTHON=1 makes this a failure)"
            ),
        );
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("python_package");
    let (wheels, site) = (work.join("wheels"), work.join("site"));
    let _ = std::fs::remove_dir_all(&work);
    run(Command::new(&py)
        .args(["-m", "maturin", "build", "--release", "--quiet", "-i", &py])
        // The root's feature set (python/Cargo.toml): the artifacts this test's own build
        // made are reused, not compiled again without the command line. maturin takes these
        // instead of pyproject.toml's features, so `extension-module` is named again.
        .args(["--features", "pyo3/extension-module,reuse-root-build"])
        .arg("-m")
        .arg(root.join("python/Cargo.toml"))
        .arg("--out")
        .arg(&wheels));
    let wheel = std::fs::read_dir(&wheels)
        .expect("wheels")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .expect("a wheel");
    run(Command::new(&py)
        .args(["-m", "pip", "install", "--quiet", "--no-deps", "--no-index"])
        .arg("--target")
        .arg(&site)
        .arg(&wheel));
    run(Command::new(&py)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("python/tests"))
        .env("PYTHONPATH", &site)
        .env("MESHCOLLIDE_BIN", env!("CARGO_BIN_EXE_meshcollide"))
        .current_dir(&work));
}
