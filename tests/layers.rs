//! The module layering of ARCHITECTURE.md ("Layers"): every top-level module of `src/` uses
//! only modules of lower layers, so there is no import circle. Read from the source: every
//! `crate::<module>` path and `use crate::{…}` group outside comments and test modules, with
//! the crate root's re-exports mapped to their modules.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Lowest first; a module may use the modules of the layers before its own.
const LAYERS: &[&[&str]] = &[
    &["isa"],
    &["geom", "rng", "option_names", "tri", "error", "prefetch"],
    &["mesh"],
    &["pose"],
    &["bv"],
    &["frame"],
    &["ordered", "hull"],
    &["bvh"],
    &["tumble"],
    &["saved"],
    &["scene"],
    &["traverse", "self_collide"],
    &["kdop"],
    &["dual", "boxtree", "rtree", "deform"],
    &["obb"],
    &["auto"],
    &["gpu"],
    &["collider"],
    &["formats", "experiments"],
    &["cli"],
];

/// Names the crate root re-exports, and the module each comes from.
const ROOT_NAMES: &[(&str, &str)] = &[
    ("Pose", "pose"),
    ("Mesh", "mesh"),
    ("Error", "error"),
    ("Result", "error"),
    ("MeshError", "error"),
    ("PoseError", "error"),
    ("FrameError", "error"),
    ("Location", "error"),
    ("BvKind", "bv"),
    ("BuildOptions", "bvh"),
    ("Bvh", "bvh"),
    ("SplitRule", "bvh"),
    ("SplitPoint", "bvh"),
    ("Counters", "scene"),
    ("Mode", "scene"),
    ("PoseResult", "scene"),
    ("QueryOptions", "scene"),
    ("brute_force", "scene"),
    ("TumbleMethod", "tumble"),
    ("BoxTest", "boxtree"),
    ("BoxtreeOptions", "boxtree"),
    ("KdopOptions", "kdop"),
    ("Descent", "kdop"),
    ("DualOptions", "dual"),
    ("DualCounters", "dual"),
    ("SlabOrder", "dual"),
    ("RtreeOptions", "rtree"),
    ("RtreeCollide", "rtree"),
    ("SavedError", "error"),
    ("KdopHierarchy", "saved"),
    ("SavedHierarchy", "saved"),
    ("Collider", "collider"),
    ("ColliderBuilder", "collider"),
    ("Contacts", "collider"),
    ("AnySub", "collider"),
    ("AnyScene", "collider"),
    ("SelfCollider", "self_collide"),
    ("SelfColliderBuilder", "self_collide"),
    ("brute_force_self", "self_collide"),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Identifiers after `crate::` (and inside `use crate::{…}`) in code, not comments or tests.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or("");
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|x| ident(x.trim())));
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

#[test]
fn every_module_uses_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let layer: BTreeMap<&str, usize> = LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.iter().map(move |m| (*m, i)))
        .collect();
    let roots: BTreeMap<&str, &str> = ROOT_NAMES.iter().copied().collect();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut seen = BTreeSet::new();
    let mut bad = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let name = f.file_name().unwrap().to_string_lossy();
        if name == "tests.rs" || name == "reference.rs" {
            continue; // test-only files (`#[cfg(test)] mod …;`)
        }
        let first = rel.iter().next().unwrap().to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let Some(&own) = layer.get(module.as_str()) else {
            bad.push(format!(
                "src/{} is in no layer of tests/layers.rs",
                rel.display()
            ));
            continue;
        };
        seen.insert(module.clone());
        let text = std::fs::read_to_string(f).unwrap();
        for p in crate_paths(&text) {
            let used = roots.get(p.as_str()).copied().unwrap_or(p.as_str());
            if used == module || !layer.contains_key(used) {
                continue;
            }
            if layer[used] >= own {
                bad.push(format!(
                    "src/{} ({module}, layer {own}) uses crate::{p} ({used}, layer {})",
                    rel.display(),
                    layer[used]
                ));
            }
        }
    }
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
    // The layers name real modules only.
    for m in layer.keys() {
        assert!(
            seen.contains(*m),
            "tests/layers.rs names `{m}`, not in src/"
        );
    }
}
