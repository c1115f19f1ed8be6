//! The hardware run kit, `scripts/gpu-hardware.sh` (docs/GPU-HARDWARE.md): the script parses
//! (and passes `shellcheck` where it is installed), it packs and runs every GPU test target
//! of `tests/` and each of them is a declared `[[test]]` target that `cargo test --no-run`
//! builds, and `run` without a kit refuses with a message. Fast: no build, no GPU.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn script() -> PathBuf {
    root().join("scripts/gpu-hardware.sh")
}

/// `bash` with these arguments in the crate root, or `None` (a loud skip) without bash.
fn bash(args: &[&str], env: &[(&str, &Path)]) -> Option<std::process::Output> {
    let mut c = Command::new("bash");
    c.args(args).current_dir(root());
    for (k, v) in env {
        c.env(k, v);
    }
    match c.output() {
        Ok(o) => Some(o),
        Err(e) => {
            eprintln!("SKIP: no bash ({e})");
            None
        }
    }
}

/// The GPU test targets as the test tree has them: `tests/gpu_<name>.rs` and
/// `tests/gpu_<name>/main.rs`.
fn gpu_targets() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(root().join("tests"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name()?.to_str()?.to_owned();
            if !name.starts_with("gpu_") {
                return None;
            }
            if p.is_dir() {
                p.join("main.rs").is_file().then_some(name)
            } else {
                name.strip_suffix(".rs").map(str::to_owned)
            }
        })
        .collect();
    v.sort();
    v
}

#[test]
fn the_script_parses_and_passes_shellcheck() {
    let Some(o) = bash(&["-n", script().to_str().unwrap()], &[]) else {
        return;
    };
    assert!(
        o.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    match Command::new("shellcheck").arg(script()).output() {
        Ok(o) => assert!(
            o.status.success(),
            "shellcheck:\n{}",
            String::from_utf8_lossy(&o.stdout)
        ),
        Err(_) => eprintln!("SKIP: shellcheck not installed"),
    }
}

#[test]
fn the_kit_takes_every_gpu_test_target() {
    let Some(o) = bash(&[script().to_str().unwrap(), "list"], &[]) else {
        return;
    };
    assert!(o.status.success());
    let listed: Vec<String> = String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    let targets = gpu_targets();
    assert!(targets.len() >= 8, "{targets:?}");
    assert_eq!(listed, targets, "the kit's list and tests/gpu_*");
    // Each is declared with the feature it needs, so `cargo test --no-run` (default
    // features) builds it and `--no-default-features` leaves it out.
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    for t in &targets {
        let decl = format!("[[test]]\nname = \"{t}\"\nrequired-features = [");
        assert!(
            manifest.contains(&decl),
            "Cargo.toml declares no [[test]] {t} with required-features"
        );
    }
}

#[test]
fn run_without_a_kit_refuses_with_a_message() {
    let empty = std::env::temp_dir().join(format!("meshcollide-kit-none-{}", std::process::id()));
    let Some(o) = bash(
        &[script().to_str().unwrap(), "run"],
        &[("MESHCOLLIDE_KIT_DIR", &empty)],
    ) else {
        return;
    };
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no kit at") && err.contains("pack"), "{err}");
    let Some(o) = bash(&[script().to_str().unwrap()], &[]) else {
        return;
    };
    assert_eq!(o.status.code(), Some(2), "no verb: usage");
}
