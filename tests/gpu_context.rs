//! The library's device setup as a Rust user meets it: `GpuContext::new()` in a process
//! without `XDG_RUNTIME_DIR` prints nothing (Mesa's device selection would otherwise make
//! libwayland print `error: XDG_RUNTIME_DIR is invalid or not set…` twice per instance).
//!
//! Without a GPU adapter the test prints `SKIP:` and passes, unless
//! `MESHCOLLIDE_REQUIRE_GPU=1`, which turns a missing adapter into a failure.

mod common;

use meshcollide::gpu::GpuContext;
use std::process::Command;

/// Set in the child process: it only opens contexts.
const CHILD: &str = "MESHCOLLIDE_TEST_XDG_CHILD";

/// This test binary runs this very test again as a child, without `XDG_RUNTIME_DIR`; the
/// child opens a context twice (`new` and `shared`) and its whole output, stderr included
/// (libwayland writes there directly, whatever the test harness captures), must not
/// mention the variable. Before the library set the variable itself the child printed the
/// error four times.
#[test]
fn gpu_context_without_xdg_runtime_dir_prints_no_driver_noise() {
    if std::env::var_os(CHILD).is_some() {
        GpuContext::new().expect("a context (MESHCOLLIDE_REQUIRE_GPU=1 in the child)");
        GpuContext::shared().expect("the shared context");
        return;
    }
    if common::gpu().is_none() {
        return;
    }
    let name = "gpu_context_without_xdg_runtime_dir_prints_no_driver_noise";
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads", "1"])
        .env_remove("XDG_RUNTIME_DIR")
        .env(CHILD, "1")
        .env("MESHCOLLIDE_REQUIRE_GPU", "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("1 passed"),
        "the child ran no test:\n{stdout}"
    );
    assert!(
        !stderr.contains("XDG_RUNTIME_DIR") && !stdout.contains("XDG_RUNTIME_DIR"),
        "{stdout}\n{stderr}"
    );
}

/// Without an adapter (`WGPU_BACKEND=none` hides them all) a GPU test passes by skipping,
/// and the binary says so in one line on stderr as it exits; with `MESHCOLLIDE_REQUIRE_GPU=1`
/// it fails instead. Needs no GPU itself.
#[test]
fn a_missing_adapter_is_summed_up_or_fails_when_required() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    common::skips::rerun_without(
        "gpu_context_without_xdg_runtime_dir_prints_no_driver_noise",
        ("WGPU_BACKEND", "none".as_ref()),
        "MESHCOLLIDE_REQUIRE_GPU",
        "SKIPPED in gpu_context: 1 test without a GPU adapter (MESHCOLLIDE_REQUIRE_GPU=1 \
         fails instead); they report ok (--nocapture shows each SKIP line)",
    );
}
