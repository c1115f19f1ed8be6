//! What the environment decides: whether the shared models are there (and whether their
//! absence fails), and how many random cases the property tests run.

use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The shared test meshes (`../shared/meshes` next to the crate), or `None` with a loud
/// "SKIP" on stderr when absent. With `MESHCOLLIDE_REQUIRE_SHARED=1` (CI) absence is a
/// failure instead, so a misconfigured runner cannot pass by skipping.
///
/// `MESHCOLLIDE_SHARED_MESHES=DIR` looks in `DIR` instead (a test of the skip itself points
/// it at a folder that does not exist).
pub fn shared_meshes_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MESHCOLLIDE_SHARED_MESHES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes"),
    };
    if dir.join("MANIFEST.md").is_file() {
        return Some(dir);
    }
    if std::env::var("MESHCOLLIDE_REQUIRE_SHARED").as_deref() == Ok("1") {
        panic!(
            "shared meshes not found at {} but MESHCOLLIDE_REQUIRE_SHARED=1",
            dir.display()
        );
    }
    super::skip(
        "without the shared models (../shared/meshes absent; MESHCOLLIDE_REQUIRE_SHARED=1 fails instead)",
        &format!(
            "shared meshes not found at {} (set MESHCOLLIDE_REQUIRE_SHARED=1 to fail instead)",
            dir.display()
        ),
    );
    None
}

/// The number in the environment variable `name`, or `None` if it is unset or no number.
pub fn env_number<T: FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// The number of random cases of a property test: `MESHCOLLIDE_CASES=<n>`, else `default`
/// (each test file states its own).
pub fn cases(default: usize) -> usize {
    env_number("MESHCOLLIDE_CASES").unwrap_or(default)
}

/// The number of cases of a `proptest!` block: `MESHCOLLIDE_PROPTEST_CASES=<n>`, else
/// `default`.
pub fn proptest_cases(default: u32) -> u32 {
    env_number("MESHCOLLIDE_PROPTEST_CASES").unwrap_or(default)
}
