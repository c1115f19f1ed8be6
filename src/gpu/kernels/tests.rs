//! The registry against the shaders (naga), against its own rules, and against
//! ARCHITECTURE.md's kernel table.

use super::bind::layout_slots;
use super::*;
use crate::gpu::paged::{Paging, extra_binding};
use crate::gpu::shader::{self, source_paged};
use std::collections::BTreeMap;

/// A shader assembled for `paging`, parsed and validated.
fn module(file: &str, paging: &Paging) -> (naga::Module, naga::valid::ModuleInfo) {
    let src = source_paged(file, 9, paging);
    let module = naga::front::wgsl::parse_str(&src)
        .unwrap_or_else(|e| panic!("{file}: {}", e.emit_to_string(&src)));
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::empty(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{file}: {e:?}"));
    (module, info)
}

/// The access a registry entry must have for a global of address space `space`.
fn access_of(space: naga::AddressSpace) -> Option<Access> {
    match space {
        naga::AddressSpace::Storage { access } if access == naga::StorageAccess::LOAD => {
            Some(Access::Read)
        }
        naga::AddressSpace::Storage { access }
            if access == naga::StorageAccess::LOAD | naga::StorageAccess::STORE =>
        {
            Some(Access::ReadWrite)
        }
        naga::AddressSpace::Uniform => Some(Access::Uniform),
        _ => None,
    }
}

/// The bound globals the `@compute` entry points of `module` use: entry name → variable
/// name → (binding, access). Every bound global is in group 0.
fn used(
    file: &str,
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
) -> BTreeMap<String, BTreeMap<String, (u32, Access)>> {
    let mut out = BTreeMap::new();
    for (i, ep) in module.entry_points.iter().enumerate() {
        assert_eq!(ep.stage, naga::ShaderStage::Compute, "{file}: {}", ep.name);
        let uses = info.get_entry_point(i);
        let mut globals = BTreeMap::new();
        for (h, g) in module.global_variables.iter() {
            let (Some(rb), false) = (&g.binding, uses[h].is_empty()) else {
                continue;
            };
            let name = g.name.clone().expect("bound globals are named");
            assert_eq!(rb.group, 0, "{file}: {name} outside group 0");
            let access = access_of(g.space)
                .unwrap_or_else(|| panic!("{file}: {name}: address space {:?}", g.space));
            globals.insert(name, (rb.binding, access));
        }
        out.insert(ep.name.clone(), globals);
    }
    out
}

/// A registry access as the shader declares it (the dynamic offset is the host's choice).
fn declared(access: Access) -> Access {
    match access {
        Access::DynamicUniform => Access::Uniform,
        a => a,
    }
}

/// Both ways: every `@compute` entry point of every kernel file is registered, under its
/// file; every registered kernel is one; and each registered kernel's bindings are exactly
/// the bound globals its entry point uses, with their numbers and access. A binding number
/// changed on either side, a global used and not registered, or one registered and not
/// used fails here.
#[test]
fn registry_matches_the_shaders() {
    let files: Vec<&str> = shader::KERNEL_FILES.iter().map(|(f, _)| *f).collect();
    let registered: Vec<&str> = SHADERS.iter().map(|s| s.file).collect();
    assert_eq!(
        files, registered,
        "SHADERS lists gpu::shader::KERNEL_FILES' files"
    );
    let mut seen = 0;
    for file in files {
        let (module, info) = module(file, &Paging::default());
        let shader = SHADERS.iter().find(|s| s.file == file).expect("checked");
        // Every declaration of the file's table is a global of its name, number and access.
        for b in shader.bindings {
            let g = module
                .global_variables
                .iter()
                .find(|(_, g)| g.name.as_deref() == Some(b.name))
                .map(|(_, g)| g)
                .unwrap_or_else(|| panic!("{file}: no global `{}` in the WGSL", b.name));
            let rb = g.binding.as_ref().expect("a bound global");
            assert_eq!(rb.binding, b.index, "{file}: `{}`: @binding", b.name);
            assert_eq!(
                access_of(g.space),
                Some(declared(b.access)),
                "{file}: `{}`: access",
                b.name
            );
        }
        for (entry, globals) in used(file, &module, &info) {
            let kernel = KERNELS
                .iter()
                .find(|k| k.entry == entry)
                .unwrap_or_else(|| panic!("{file}: entry point {entry} is not registered"));
            assert_eq!(
                kernel.shader.file, file,
                "{entry}: registered under another file"
            );
            let mine: BTreeMap<String, (u32, Access)> = kernel
                .bindings()
                .map(|b| (b.name.to_string(), (b.index, declared(b.access))))
                .collect();
            for (name, (index, access)) in &globals {
                let Some(&(i, a)) = mine.get(name) else {
                    panic!("{entry} ({file}) uses `{name}` (@binding({index})), not registered");
                };
                assert_eq!(
                    i, *index,
                    "{entry} ({file}): `{name}`: registry {i}, WGSL {index}"
                );
                assert_eq!(a, *access, "{entry} ({file}): `{name}`: access");
            }
            for name in mine.keys() {
                assert!(
                    globals.contains_key(name),
                    "{entry} ({file}): `{name}` is registered but the entry point does not use it"
                );
            }
            seen += 1;
        }
    }
    assert_eq!(seen, KERNELS.len(), "a registered kernel is no entry point");
}

/// Each file's table holds each name and number once, in increasing number, below the
/// extra pages' numbers; each kernel's uses are declarations of its file, once each, in
/// increasing number.
#[test]
fn tables_are_ordered_and_unique() {
    for s in SHADERS {
        for w in s.bindings.windows(2) {
            assert!(w[0].index < w[1].index, "{}: {:?}", s.file, w);
        }
        for (i, b) in s.bindings.iter().enumerate() {
            assert!(
                s.bindings[..i].iter().all(|c| c.name != b.name),
                "{}: `{}` twice",
                s.file,
                b.name
            );
        }
    }
    for s in SHADERS {
        for b in s.bindings {
            assert!(
                b.index < extra_binding(0, 1),
                "{}: `{}`: the numbers from {} are the extra pages'",
                s.file,
                b.name,
                extra_binding(0, 1)
            );
        }
    }
    for k in KERNELS {
        let indices: Vec<u32> = k.bindings().map(|b| b.index).collect();
        assert!(
            indices.windows(2).all(|w| w[0] < w[1]),
            "{}: {indices:?}",
            k.entry
        );
        assert!(
            SHADERS.iter().any(|s| std::ptr::eq(*s, k.shader)),
            "{}",
            k.entry
        );
    }
}

/// With every paged array in several pages, each kernel's layout ([`layout_slots`]) is
/// exactly what its entry point uses: the extra pages of the arrays it reads included.
#[test]
fn paged_layouts_match_the_shaders() {
    let mut paging = Paging::default();
    for (i, a) in paging.arrays.iter_mut().enumerate() {
        *a = (2 + i % 7, 12);
    }
    for s in SHADERS {
        let (module, info) = module(s.file, &paging);
        for (entry, globals) in used(s.file, &module, &info) {
            let kernel = KERNELS
                .iter()
                .find(|k| k.entry == entry)
                .expect("registered");
            let mut want: Vec<(u32, Access)> = globals.values().copied().collect();
            let mut got: Vec<(u32, Access)> = layout_slots(kernel, &paging)
                .into_iter()
                .map(|(i, a)| (i, declared(a)))
                .collect();
            want.sort_by_key(|s| s.0);
            got.sort_by_key(|s| s.0);
            assert_eq!(got, want, "{entry} ({}): paged layout", s.file);
        }
    }
}

/// A bind group's names are checked before any device call: each missing, repeated or
/// unknown binding is named with its kernel.
#[test]
fn check_names_the_kernel_and_the_binding() {
    let k = &PREPARE_TUMBLE;
    assert_eq!(k.check(&["counters", "args"]), Ok(()));
    assert_eq!(k.check(&["args", "counters"]), Ok(()));
    let missing = k.check(&["counters"]).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "prepare_tumble (front_prepare.wgsl): binding `args` (@binding(1)) not given"
    );
    let twice = k.check(&["counters", "args", "args"]);
    assert!(matches!(twice, Err(BindError::Twice { ref name, .. }) if name == "args"));
    let unknown = k.check(&["counters", "args", "level_sizes"]);
    assert!(
        matches!(unknown, Err(BindError::Unknown { entry: "prepare_tumble", ref name, .. }) if name == "level_sizes")
    );
    assert_eq!(REFIT_LEAVES.dynamic_offsets(), 1);
    assert_eq!(EXPAND.dynamic_offsets(), 0);
}

/// ARCHITECTURE.md's table of entry points: one row per registered kernel, with its shader
/// file, its bindings in order and its CPU twin's file (further columns are free); no
/// other row.
#[test]
fn architecture_table_lists_every_kernel() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/ARCHITECTURE.md");
    let text = std::fs::read_to_string(path).unwrap();
    let header = "| entry point | shader | bindings | CPU twin (`src/gpu/mirror/`) |";
    let start = text
        .lines()
        .position(|l| l.trim().starts_with(header))
        .unwrap_or_else(|| panic!("ARCHITECTURE.md: no table starting `{header}`"));
    let cell = |c: &str| c.trim().trim_matches('`').to_string();
    let mut rows: BTreeMap<String, (String, Vec<String>, String)> = BTreeMap::new();
    for line in text.lines().skip(start + 2) {
        let Some(row) = line.trim().strip_prefix('|') else {
            break;
        };
        let cells: Vec<&str> = row.trim_end_matches('|').split('|').collect();
        assert!(cells.len() >= 4, "ARCHITECTURE.md: row `{line}`");
        let bindings = cells[2].split(',').map(cell).collect();
        let entry = cell(cells[0]);
        let row = (cell(cells[1]), bindings, cell(cells[3]));
        assert!(rows.insert(entry.clone(), row).is_none(), "{entry} twice");
    }
    for k in KERNELS {
        let stem = k.shader.file.trim_end_matches(".wgsl");
        let want = (
            k.shader.file.to_string(),
            k.uses.iter().map(|u| u.to_string()).collect(),
            format!("{stem}.rs"),
        );
        let got = rows
            .remove(k.entry)
            .unwrap_or_else(|| panic!("ARCHITECTURE.md: no row for `{}`", k.entry));
        assert_eq!(got, want, "ARCHITECTURE.md: the row of `{}`", k.entry);
    }
    let extra: Vec<&String> = rows.keys().collect();
    assert!(
        extra.is_empty(),
        "ARCHITECTURE.md: rows of unregistered kernels {extra:?}"
    );
}

/// The text between the brackets that open at `open` (a `(` or `{`) and their match.
fn bracketed(text: &str, open: usize) -> &str {
    let mut depth = 0;
    for (i, c) in text[open..].char_indices() {
        match c {
            '(' | '{' | '<' | '[' => depth += 1,
            ')' | '}' | '>' | ']' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return &text[open + 1..open + i];
        }
    }
    panic!("unbalanced brackets")
}

/// `text` without its `//` comments.
fn code(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect();
    lines.join("\n")
}

/// Top-level `name: type` items of a parameter or field list without comments.
fn items(list: &str) -> Vec<(String, String)> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in list.char_indices().chain([(list.len(), ',')]) {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                if let Some((name, ty)) = list[start..i].split_once(':') {
                    let name = name.trim().trim_start_matches("pub ").trim();
                    out.push((name.to_string(), ty.trim().to_string()));
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    out
}

/// The binding names a twin takes: its arguments, a `…Bindings` argument's fields instead.
fn twin_names(twin: &str, entry: &str) -> Vec<String> {
    let at = twin
        .find(&format!("pub fn {entry}<"))
        .or_else(|| twin.find(&format!("pub fn {entry}(")))
        .unwrap_or_else(|| panic!("no twin of {entry}"));
    let params = bracketed(twin, at + twin[at..].find('(').unwrap());
    let mut names = Vec::new();
    for (name, ty) in items(params) {
        let Some(end) = ty.find("Bindings") else {
            names.push(name);
            continue;
        };
        let start = ty[..end]
            .rfind(|c: char| !c.is_alphanumeric())
            .map_or(0, |i| i + 1);
        let strukt = &ty[start..end + "Bindings".len()];
        let at = twin
            .find(&format!("pub struct {strukt}<"))
            .unwrap_or_else(|| panic!("{entry}: no `pub struct {strukt}` in its twin's file"));
        let fields = bracketed(twin, at + twin[at..].find('{').unwrap());
        names.extend(items(fields).into_iter().map(|(n, _)| n));
    }
    names
}

/// Each entry point's CPU twin (`src/gpu/mirror/<stem>.rs`) takes the bindings the registry
/// gives it, by their names: every binding the kernel uses is an argument of the twin or a
/// field of one of its `…Bindings` structs, and every such name is a binding of the shader
/// (the shared structs carry a binding or two some kernels do not use). The volume trees'
/// `env`, `fly` and `posed` stand for their `env_obbs`/`env_spheres`, `fly_obbs`/`fly_spheres`
/// and `posed_obbs`/`posed_spheres`.
#[test]
fn twins_take_the_registered_bindings() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let matches = |twin: &str, binding: &str| {
        twin == binding
            || (["env", "fly", "posed"].contains(&twin) && binding.starts_with(&format!("{twin}_")))
    };
    for k in KERNELS {
        let stem = k.shader.file.trim_end_matches(".wgsl");
        let path = root.join(format!("src/gpu/mirror/{stem}.rs"));
        let names = twin_names(&code(&std::fs::read_to_string(path).unwrap()), k.entry);
        for name in &names {
            assert!(
                k.shader.bindings.iter().any(|b| matches(name, b.name)),
                "{}: the twin's `{name}` is no binding of {}",
                k.entry,
                k.shader.file
            );
        }
        for b in k.bindings() {
            assert!(
                names.iter().any(|n| matches(n, b.name)),
                "{}: the twin takes no `{}` ({names:?})",
                k.entry,
                b.name
            );
        }
    }
}
