//! The module layering of ARCHITECTURE.md ("Layers") and the import graph of `src/`.
//!
//! The graph's nodes are the files of `src/` (`src/main.rs` aside); file A imports file B
//! when a `use` leaf or a path in A's code (outside comments, `#[cfg(test)]` and
//! `#[cfg(doc)]` items) names an item that B defines, or passes through a `use` in B (a
//! re-export). A `pub use` in a module's root file (lib.rs, mod.rs, or `x.rs` beside `x/`)
//! of an item of that module's own descendants is its façade, not an import. The crate
//! root's names are read from lib.rs itself; a path that names nothing fails the test.
//!
//! Family arrows are left out: those between a file and the root file of a module that
//! contains it, to an item that file defines (a part using its module's own types, the
//! module calling its parts). A module and its parts are one unit to each other; circles
//! and arrows up are counted between siblings, cousins and modules.
//!
//! An arrow goes *up* when it runs from a module to one of the same or a higher layer of
//! [`LAYERS`] (lib.rs is above them all), or, inside one module, from a file to the root
//! file of a module that contains it through that file's re-export (take an item from the
//! file that defines it, not from the façade above). An arrow up must say why at its import,
//! in a comment on the line of the path or in the comment just above it that contains
//! "Arrow up:". There must be no circle (a strongly connected set of more than one file).
//!
//! The report: `cargo test --release --test layers -- --nocapture import_graph_report`.

#[path = "layers/graph.rs"]
mod graph;

use graph::{Arrow, Crate, arrows, circles, src_dir};
use std::collections::{BTreeMap, BTreeSet};

/// Lowest first; a module may use the modules of the layers before its own.
const LAYERS: &[&[&str]] = &[
    &["isa"],
    &["limits"],
    &["geom", "rng", "option_names", "tri", "error", "prefetch"],
    &["kind"],
    &["mesh"],
    &["pose"],
    &["scene", "solid"],
    &["bv"],
    &["frame"],
    &["ordered", "hull"],
    &["bvh"],
    &["tumble"],
    &["proximity"],
    &["saved"],
    &["traverse", "self_collide"],
    &["budget"],
    &["kdop"],
    &["dual", "boxtree", "rtree", "deform"],
    &["obb"],
    &["sphere"],
    &["auto"],
    &["gpu"],
    &["collider"],
    &["bodies"],
    &["formats", "experiments"],
    &["cli"],
];

struct Analysis {
    c: Crate,
    /// Every arrow, family arrows included.
    arrows: Vec<Arrow>,
    /// Which of them are family arrows.
    family: Vec<bool>,
    unresolved: Vec<String>,
    circles: Vec<Vec<usize>>,
    /// The arrows up, one per pair of files (the first path), with why it is up.
    up: Vec<(Arrow, String)>,
    /// Top-level modules in no layer.
    unlayered: BTreeSet<String>,
}

fn layers() -> BTreeMap<&'static str, usize> {
    LAYERS
        .iter()
        .enumerate()
        .flat_map(|(i, l)| l.iter().map(move |m| (*m, i)))
        .collect()
}

fn analyse() -> Analysis {
    let c = Crate::read(&src_dir());
    let (arrows, unresolved) = arrows(&c);
    let path = |f: usize| &c.modules[c.files[f].module].path;
    let family: Vec<bool> = arrows
        .iter()
        .map(|a| {
            !a.through
                && (path(a.from).starts_with(path(a.to)) || path(a.to).starts_with(path(a.from)))
        })
        .collect();
    let kept: Vec<Arrow> = arrows
        .iter()
        .zip(&family)
        .filter(|(_, f)| !**f)
        .map(|(a, _)| a.clone())
        .collect();
    let circles = circles(c.files.len(), &kept);
    let layer = layers();
    let top = |f: usize| -> String {
        c.modules[c.files[f].module]
            .path
            .first()
            .cloned()
            .unwrap_or_else(|| "lib".into())
    };
    let mut unlayered = BTreeSet::new();
    let level = |f: usize, unlayered: &mut BTreeSet<String>| -> usize {
        let t = top(f);
        match layer.get(t.as_str()) {
            Some(&l) => l,
            None if t == "lib" => LAYERS.len(),
            None => {
                unlayered.insert(t);
                LAYERS.len()
            }
        }
    };
    let mut seen = BTreeSet::new();
    let mut up = Vec::new();
    for a in arrows
        .iter()
        .zip(&family)
        .filter(|(_, f)| !**f)
        .map(|(a, _)| a)
    {
        let (from, to) = (top(a.from), top(a.to));
        let (lf, lt) = (level(a.from, &mut unlayered), level(a.to, &mut unlayered));
        let why = if from != to && lt >= lf {
            let name = |m: &str, l: usize| match l {
                l if l == LAYERS.len() => m.to_string(),
                l => format!("{m}, layer {l}"),
            };
            Some(format!("{} to {}", name(&from, lf), name(&to, lt)))
        } else {
            let inner = &c.modules[c.files[a.from].module].path;
            let outer = &c.modules[c.files[a.to].module].path;
            (from == to && a.through && inner.len() > outer.len() && inner.starts_with(outer))
                .then(|| "through the re-export of a module above it".to_string())
        };
        if let Some(why) = why
            && seen.insert((a.from, a.to))
        {
            up.push((a.clone(), why));
        }
    }
    Analysis {
        c,
        arrows,
        family,
        unresolved,
        circles,
        up,
        unlayered,
    }
}

impl Analysis {
    fn rel(&self, f: usize) -> &str {
        &self.c.files[f].rel
    }

    /// The reason written at an arrow's import, if any.
    fn reason(&self, a: &Arrow) -> Option<String> {
        let lines = &self.c.files[a.from].lines;
        let at = a.line - 1;
        let marker = "Arrow up:";
        if let Some(k) = lines[at].find(marker) {
            return Some(lines[at][k..].to_string());
        }
        // The comment block just above the statement the path is in.
        let mut k = at;
        while k > 0 && !lines[k - 1].trim_start().starts_with("//") && k + 8 > at {
            if lines[k - 1].trim_end().ends_with(';') || lines[k - 1].trim().is_empty() {
                return None;
            }
            k -= 1;
        }
        let mut text = Vec::new();
        while k > 0 && lines[k - 1].trim_start().starts_with("//") {
            text.push(lines[k - 1].trim_start().trim_start_matches('/').trim());
            k -= 1;
        }
        text.reverse();
        let text = text.join(" ");
        text.find(marker).map(|k| text[k..].to_string())
    }

    fn report(&self) -> String {
        let pairs = |family: bool| -> usize {
            let set: BTreeSet<(usize, usize)> = self
                .arrows
                .iter()
                .zip(&self.family)
                .filter(|(_, f)| **f == family)
                .map(|(a, _)| (a.from, a.to))
                .collect();
            set.len()
        };
        let mut out = format!(
            "import graph of src/: {} files, {} arrows (pairs of files), and {} family arrows \
             (between a file and the root file of a module containing it) left out\n",
            self.c.files.len(),
            pairs(false),
            pairs(true)
        );
        out += &format!("circles: {}\n", self.circles.len());
        for (i, comp) in self.circles.iter().enumerate() {
            let names: Vec<&str> = comp.iter().map(|&f| self.rel(f)).collect();
            out += &format!("  circle {}: {}\n", i + 1, names.join(", "));
            let mut shown = BTreeSet::new();
            for (a, _) in self.arrows.iter().zip(&self.family).filter(|(_, f)| !**f) {
                if comp.contains(&a.from) && comp.contains(&a.to) && shown.insert((a.from, a.to)) {
                    out += &format!(
                        "    {}:{} -> {} ({}{})\n",
                        self.rel(a.from),
                        a.line,
                        self.rel(a.to),
                        a.path,
                        if a.through { ", re-export" } else { "" }
                    );
                }
            }
        }
        out += &format!("arrows up: {}\n", self.up.len());
        for (a, why) in &self.up {
            out += &format!(
                "  src/{}:{} -> src/{} ({}; {why}){}\n",
                self.rel(a.from),
                a.line,
                self.rel(a.to),
                a.path,
                match self.reason(a) {
                    Some(r) => format!("\n      {r}"),
                    None => String::new(),
                }
            );
        }
        out += &format!("paths that name nothing: {}\n", self.unresolved.len());
        for u in &self.unresolved {
            out += &format!("  {u}\n");
        }
        out
    }
}

#[test]
fn import_graph_report() {
    println!("{}", analyse().report());
}

#[test]
fn every_path_names_an_item() {
    let a = analyse();
    assert!(
        a.unresolved.is_empty(),
        "paths the graph cannot map (a root name lib.rs does not re-export, or a gap in \
         tests/layers/graph.rs):\n{}",
        a.unresolved.join("\n")
    );
    // The crate root's re-exports, read from lib.rs: each names an item of a layered module.
    let c = &a.c;
    let mut names = 0;
    for (name, (leaf, public)) in &c.modules[0].bindings {
        if !public {
            continue;
        }
        names += 1;
        match c.resolve(0, &leaf.path, &mut Vec::new(), 0) {
            graph::Target::Item(f) => {
                let top = &c.modules[c.files[f].module].path[0];
                assert!(
                    layers().contains_key(top.as_str()),
                    "lib.rs re-exports `{name}` from `{top}`, in no layer"
                );
            }
            other => panic!("lib.rs's `pub use` of `{name}` maps to {other:?}"),
        }
    }
    assert!(names > 10, "read only {names} re-exports from lib.rs");
}

#[test]
fn every_module_uses_only_lower_layers() {
    let a = analyse();
    assert!(
        a.unlayered.is_empty(),
        "modules in no layer of tests/layers.rs: {:?}",
        a.unlayered
    );
    let tops: BTreeSet<&str> =
        a.c.modules
            .iter()
            .filter_map(|m| m.path.first().map(String::as_str))
            .collect();
    for m in layers().keys() {
        assert!(tops.contains(m), "tests/layers.rs names `{m}`, not in src/");
    }
    let bad: Vec<String> =
        a.up.iter()
            .filter(|(arrow, _)| a.reason(arrow).is_none())
            .map(|(arrow, why)| {
                format!(
                    "src/{}:{} imports src/{} ({}; {why}): import from a lower layer, or say why \
                 in an \"Arrow up:\" comment at the import",
                    a.rel(arrow.from),
                    arrow.line,
                    a.rel(arrow.to),
                    arrow.path
                )
            })
            .collect();
    assert!(bad.is_empty(), "layering broken:\n{}", bad.join("\n"));
}

#[test]
fn no_import_circle() {
    let a = analyse();
    assert!(a.circles.is_empty(), "import circles:\n{}", a.report());
}

#[test]
#[ignore = "a listing for a reader, asserts nothing: DUMP=prefix cargo test --release --test layers -- --ignored --nocapture dump_arrows"]
fn dump_arrows() {
    let a = analyse();
    let prefix = std::env::var("DUMP").unwrap_or_default();
    let mut seen = BTreeSet::new();
    for (x, f) in a.arrows.iter().zip(&a.family) {
        if !*f && a.rel(x.from).starts_with(&prefix) && seen.insert((x.from, x.to)) {
            println!(
                "{}:{} -> {} ({})",
                a.rel(x.from),
                x.line,
                a.rel(x.to),
                x.path
            );
        }
    }
}

/// The checker itself: a planted crate with a circle (a ↔ b), an import through lib.rs's
/// façade (c uses `crate::A`) and an unknown root name must show all three, so the tests
/// above cannot pass by seeing nothing.
#[test]
fn checker_sees_planted_circle_facade_and_unknown_name() {
    let dir = std::env::temp_dir().join(format!("meshcollide-layers-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let files = [
        (
            "lib.rs",
            "pub mod a;\npub mod b;\npub mod c;\npub use a::A;\n",
        ),
        ("a.rs", "use crate::b::B;\npub struct A(pub B);\n"),
        ("b.rs", "pub struct B;\npub fn f(_: &crate::a::A) {}\n"),
        (
            "c.rs",
            "use crate::A;\npub fn g(_: &A) {}\npub fn h() { crate::Missing::new() }\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(src.join(name), text).unwrap();
    }
    let c = Crate::read(&src);
    let (all, unresolved) = arrows(&c);
    let _ = std::fs::remove_dir_all(&dir);
    let file = |rel: &str| c.file_of(rel).unwrap_or_else(|| panic!("{rel} not read"));
    let (a, b, cc, lib) = (file("a.rs"), file("b.rs"), file("c.rs"), file("lib.rs"));
    let found = circles(c.files.len(), &all);
    assert!(
        found.iter().any(|k| k.contains(&a) && k.contains(&b)),
        "a ↔ b not seen as a circle: {found:?}"
    );
    assert!(
        all.iter().any(|x| x.from == cc && x.to == lib && x.through),
        "c's import through lib.rs's façade not seen: {all:?}"
    );
    assert!(
        all.iter().any(|x| x.from == cc && x.to == a && !x.through),
        "c → a (A's definition) not seen"
    );
    assert!(
        unresolved.iter().any(|u| u.contains("Missing")),
        "crate::Missing not reported: {unresolved:?}"
    );
}

/// Small modules: no file of `src/` is over 600 lines unless its module docs say why in a
/// line that starts with "Over 600 lines:".
#[test]
fn no_source_file_is_over_600_lines_without_a_reason() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&src_dir(), &mut files);
    assert!(files.len() > 100, "read only {} files", files.len());
    let long: Vec<String> = files
        .iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            let n = text.lines().count();
            let why = text
                .lines()
                .any(|l| l.trim_start().starts_with("//! Over 600 lines:"));
            (n > 600 && !why).then(|| format!("{} ({n} lines)", p.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these, or say why: {long:?}");
}
