//! The command line: its binary, temporary folders, OBJ files for it to read.

use std::path::PathBuf;

/// The `meshcollide` binary: `MESHCOLLIDE_TEST_BIN=PATH` if set (to run the command-line
/// tests on another build, an older one to see them fail), else the one cargo built.
#[cfg(feature = "cli")]
pub fn bin() -> std::process::Command {
    std::process::Command::new(
        std::env::var_os("MESHCOLLIDE_TEST_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_meshcollide").into()),
    )
}

/// `meshcollide-<tag>-<process id>-<name>` in the system's temporary folder, created if
/// absent (what an earlier run of this process id left stays).
pub fn tmp_dir(tag: &str, name: &str) -> PathBuf {
    let d = tmp_path(tag, name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// [`tmp_dir`], emptied first.
pub fn fresh_tmp_dir(tag: &str, name: &str) -> PathBuf {
    let d = tmp_path(tag, name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn tmp_path(tag: &str, name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("meshcollide-{tag}-{}-{name}", std::process::id()))
}

/// Writes `m` as an OBJ file (1-based faces), for the command-line tests.
pub fn write_obj(path: &std::path::Path, m: &meshcollide::Mesh) {
    let mut s = String::new();
    for p in &m.positions {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for t in &m.triangles {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(path, s).unwrap();
}
