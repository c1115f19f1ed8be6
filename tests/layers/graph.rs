//! The file-level import graph of `src/`, read from the source without compiling it: a small
//! lexer (comments, strings and char literals dropped), the module tree from `mod` items
//! (with `#[path]` and inline modules), each module's items and `use` bindings, and every
//! path in code resolved to the file that *defines* the item it names (through re-exports,
//! which are recorded as hops).
//!
//! Left out, as not code the library runs: items under `#[cfg(test)]` or `#[cfg(doc)]`
//! (test modules, doc-link imports) and `src/main.rs` (a separate crate that only calls
//! `meshcollide::cli::run`). Macros reached by textual scope (`#[macro_use]`) have no path
//! and make no arrow; `crate::isa_variants!` and `$crate::…` do.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    Punct(char),
    Str(String),
    Other,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Tokens of `src`, comments dropped, string and char literals as single tokens.
pub fn lex(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let (mut i, mut line, mut out) = (0, 1, Vec::new());
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    while i < c.len() {
        let ch = c[i];
        let start_line = line;
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if is_ident_char(ch) && !ch.is_ascii_digit() {
            let s = i;
            while i < c.len() && is_ident_char(c[i]) {
                i += 1;
            }
            let word: String = c[s..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if raw && (at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '#' | '"'))) {
                let mut hashes = 0;
                while at(i) == '#' {
                    hashes += 1;
                    i += 1;
                }
                i += 1; // the opening quote
                let body = i;
                loop {
                    if i >= c.len() {
                        break;
                    }
                    if c[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                        break;
                    }
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
                let text: String = c[body..i.min(c.len())].iter().collect();
                i += 1 + hashes;
                out.push(Token {
                    tok: Tok::Str(text),
                    line: start_line,
                });
            } else if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                let (text, next, nl) = string_at(&c, i);
                (i, line) = (next, line + nl);
                out.push(Token {
                    tok: Tok::Str(text),
                    line: start_line,
                });
            } else if word == "b" && at(i) == '\'' {
                i = char_end(&c, i);
                out.push(Token {
                    tok: Tok::Other,
                    line: start_line,
                });
            } else if word == "r" && at(i) == '#' && is_ident_char(at(i + 1)) {
                let s = i + 1;
                i = s;
                while i < c.len() && is_ident_char(c[i]) {
                    i += 1;
                }
                let word: String = c[s..i].iter().collect();
                out.push(Token {
                    tok: Tok::Ident(word),
                    line: start_line,
                });
            } else {
                out.push(Token {
                    tok: Tok::Ident(word),
                    line: start_line,
                });
            }
        } else if ch.is_ascii_digit() {
            while i < c.len()
                && (is_ident_char(c[i]) || (c[i] == '.' && at(i + 1).is_ascii_digit()))
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Other,
                line: start_line,
            });
        } else if ch == '"' {
            let (text, next, nl) = string_at(&c, i);
            (i, line) = (next, line + nl);
            out.push(Token {
                tok: Tok::Str(text),
                line: start_line,
            });
        } else if ch == '\'' {
            if at(i + 1) == '\\' || at(i + 2) == '\'' {
                i = char_end(&c, i);
            } else {
                i += 1; // a lifetime or a label
                while i < c.len() && is_ident_char(c[i]) {
                    i += 1;
                }
            }
            out.push(Token {
                tok: Tok::Other,
                line: start_line,
            });
        } else {
            out.push(Token {
                tok: Tok::Punct(ch),
                line: start_line,
            });
            i += 1;
        }
    }
    out
}

/// The string literal whose opening quote is at `i`: its text, the index after it, newlines.
fn string_at(c: &[char], mut i: usize) -> (String, usize, usize) {
    let (s, mut nl) = (i + 1, 0);
    i += 1;
    while i < c.len() && c[i] != '"' {
        if c[i] == '\\' {
            i += 1;
        }
        nl += usize::from(c.get(i) == Some(&'\n'));
        i += 1;
    }
    (c[s..i.min(c.len())].iter().collect(), i + 1, nl)
}

/// The index after the char literal whose opening quote is at `i`.
fn char_end(c: &[char], mut i: usize) -> usize {
    i += 1;
    if c.get(i) == Some(&'\\') {
        i += 2;
    } else {
        i += 1;
    }
    while i < c.len() && c[i] != '\'' {
        i += 1;
    }
    i + 1
}

fn is_ident(t: &Token, s: &str) -> bool {
    matches!(&t.tok, Tok::Ident(w) if w == s)
}

fn is_punct(t: &Token, p: char) -> bool {
    t.tok == Tok::Punct(p)
}

fn ident(t: &Token) -> Option<&str> {
    match &t.tok {
        Tok::Ident(w) => Some(w),
        _ => None,
    }
}

/// The index after the attribute `#[…]` starting at `i`, if one does.
fn attribute_end(t: &[Token], i: usize) -> Option<usize> {
    if !(is_punct(&t[i], '#') && t.get(i + 1).is_some_and(|x| is_punct(x, '['))) {
        return None;
    }
    let mut depth = 0;
    for (k, x) in t.iter().enumerate().skip(i + 1) {
        match x.tok {
            Tok::Punct('[') => depth += 1,
            Tok::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    Some(t.len())
}

/// The index after the item starting at `i`: its `;` at depth 0 or its closing brace.
fn item_end(t: &[Token], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < t.len() {
        match t[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']') => depth -= 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index after the `;` of the `use` item at `i`.
fn use_end(t: &[Token], mut i: usize) -> usize {
    while i < t.len() && !is_punct(&t[i], ';') {
        i += 1;
    }
    i + 1
}

/// The tokens without the items under `#[cfg(test)]` or `#[cfg(doc)]`.
pub fn strip_cfg_test(t: Vec<Token>) -> Vec<Token> {
    let words = |a: usize, b: usize| -> Vec<String> {
        t[a..b]
            .iter()
            .map(|x| match &x.tok {
                Tok::Ident(w) => w.clone(),
                Tok::Punct(p) => p.to_string(),
                _ => "?".into(),
            })
            .collect()
    };
    let (mut out, mut i) = (Vec::new(), 0);
    while i < t.len() {
        if let Some(end) = attribute_end(&t, i) {
            let w = words(i, end).concat();
            if w == "#[cfg(test)]" || w == "#[cfg(doc)]" {
                let mut k = end;
                while let Some(e) = attribute_end(&t, k) {
                    k = e;
                }
                i = item_end(&t, k);
                continue;
            }
        }
        out.push(t[i].clone());
        i += 1;
    }
    out
}

/// Whether the `use` at `i` is `pub`, `pub(crate)`, `pub(super)` or `pub(in …)`.
fn is_pub_before(t: &[Token], i: usize) -> bool {
    if i == 0 {
        return false;
    }
    let mut k = i - 1;
    if is_punct(&t[k], ')') {
        while k > 0 && !is_punct(&t[k], '(') {
            k -= 1;
        }
        k = k.saturating_sub(1);
    }
    is_ident(&t[k], "pub")
}

/// One `use` leaf: the path as written (`*` last for a glob) and the name it binds.
#[derive(Clone, Debug)]
pub struct UseLeaf {
    pub path: Vec<String>,
    pub name: Option<String>,
    pub line: usize,
}

/// The leaves of the use tree in `t` (the tokens between `use` and `;`).
fn use_leaves(t: &[Token], prefix: Vec<String>, out: &mut Vec<UseLeaf>) {
    let mut path = prefix;
    let mut i = 0;
    while i < t.len() {
        match &t[i].tok {
            Tok::Punct(':') => i += 1,
            Tok::Punct('*') => {
                path.push("*".into());
                out.push(UseLeaf {
                    path,
                    name: None,
                    line: t[i].line,
                });
                return;
            }
            Tok::Punct('{') => {
                // Split the group at its top-level commas.
                let (mut depth, mut s) = (0, i + 1);
                for k in i..t.len() {
                    match t[k].tok {
                        Tok::Punct('{') => depth += 1,
                        Tok::Punct('}') => {
                            depth -= 1;
                            if depth == 0 {
                                if s < k {
                                    use_leaves(&t[s..k], path.clone(), out);
                                }
                                return;
                            }
                        }
                        Tok::Punct(',') if depth == 1 => {
                            if s < k {
                                use_leaves(&t[s..k], path.clone(), out);
                            }
                            s = k + 1;
                        }
                        _ => {}
                    }
                }
                return;
            }
            Tok::Ident(w) if w == "as" => {
                let name = t.get(i + 1).and_then(ident).map(str::to_string);
                out.push(UseLeaf {
                    path,
                    name,
                    line: t[i].line,
                });
                return;
            }
            Tok::Ident(w) => {
                if w == "self" && !path.is_empty() {
                    // `a::{self}` binds `a`
                } else {
                    path.push(w.clone());
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    if let Some(last) = path.last().cloned() {
        let line = t.last().map_or(0, |x| x.line);
        out.push(UseLeaf {
            path,
            name: Some(last),
            line,
        });
    }
}

pub struct Module {
    pub path: Vec<String>,
    pub file: usize,
    pub parent: Option<usize>,
    pub children: BTreeMap<String, usize>,
    /// Items defined here, and the file that defines them.
    pub items: BTreeMap<String, usize>,
    /// Names bound by this module's `use` items, with the leaf and whether it is `pub`.
    pub bindings: BTreeMap<String, (UseLeaf, bool)>,
    pub globs: Vec<UseLeaf>,
}

pub struct File {
    /// Relative to `src/`, with `/` separators.
    pub rel: String,
    /// The module whose body the file is (its outermost module).
    pub module: usize,
    pub tokens: Vec<Token>,
    /// The module each token belongs to.
    pub token_module: Vec<usize>,
    pub lines: Vec<String>,
    pub paths: Vec<PathUse>,
}

/// A path found in a file: a `use` leaf, or a path in code.
pub struct PathUse {
    pub token: usize,
    /// As written, with a name bound by a `use` inside a block replaced by its path.
    pub segs: Vec<String>,
    /// The module it is written in.
    pub module: usize,
    pub is_use: bool,
    pub public: bool,
    /// In code, the length of the prefix that a `use` bound (0 if none): a path through an
    /// imported item (`Kind::Variant`) is the `use`'s arrow, one through an imported module
    /// (`generate::torus`) its own.
    pub bound: usize,
}

pub struct Crate {
    pub modules: Vec<Module>,
    pub files: Vec<File>,
}

const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "union", "trait", "type", "const", "static",
];

impl Crate {
    /// Reads the crate rooted at `src/lib.rs`.
    pub fn read(src: &Path) -> Crate {
        let mut c = Crate {
            modules: Vec::new(),
            files: Vec::new(),
        };
        c.load_file(src, &src.join("lib.rs"), true, Vec::new(), None);
        c
    }

    fn new_module(&mut self, path: Vec<String>, file: usize, parent: Option<usize>) -> usize {
        self.modules.push(Module {
            path,
            file,
            parent,
            children: BTreeMap::new(),
            items: BTreeMap::new(),
            bindings: BTreeMap::new(),
            globs: Vec::new(),
        });
        self.modules.len() - 1
    }

    fn load_file(
        &mut self,
        src: &Path,
        file: &Path,
        mod_rs: bool,
        path: Vec<String>,
        parent: Option<usize>,
    ) -> usize {
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let tokens = strip_cfg_test(lex(&text));
        let rel = file
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let fi = self.files.len();
        let m = self.new_module(path, fi, parent);
        if let Some(p) = parent {
            let name = self.modules[m].path.last().unwrap().clone();
            self.modules[p].children.insert(name, m);
        }
        let n = tokens.len();
        self.files.push(File {
            rel,
            module: m,
            tokens,
            token_module: vec![m; n],
            lines: text.lines().map(str::to_string).collect(),
            paths: Vec::new(),
        });
        // Where `mod x;` finds its file: beside a mod.rs/lib.rs, else in a folder named
        // after the file.
        let dir = file.parent().unwrap().to_path_buf();
        let child_dir = if mod_rs {
            dir.clone()
        } else {
            dir.join(file.file_stem().unwrap())
        };
        self.scan(src, fi, m, 0, n, &dir, &child_dir);
        self.find_paths(fi);
        m
    }

    /// Reads the items of module `m`, whose body is tokens `a..b` of file `fi`.
    #[allow(clippy::too_many_arguments)]
    fn scan(
        &mut self,
        src: &Path,
        fi: usize,
        m: usize,
        a: usize,
        b: usize,
        dir: &Path,
        child_dir: &Path,
    ) {
        let t = self.files[fi].tokens.clone();
        let mut i = a;
        let mut path_attr: Option<String> = None;
        let mut macro_export = false;
        while i < b {
            if let Some(end) = attribute_end(&t, i) {
                let words: Vec<&Tok> = t[i..end].iter().map(|x| &x.tok).collect();
                if words.len() >= 5
                    && *words[2] == Tok::Ident("path".into())
                    && let Tok::Str(s) = words[4]
                {
                    path_attr = Some(s.clone());
                }
                macro_export |= *words[2] == Tok::Ident("macro_export".into());
                i = end;
                continue;
            }
            let tok = t[i].clone();
            if !matches!(tok.tok, Tok::Ident(_) | Tok::Punct('(' | ')')) {
                path_attr = None;
                macro_export = false;
            }
            match &tok.tok {
                Tok::Punct('{') if i > 0 && is_punct(&t[i - 1], '!') => {
                    // A macro called where items go (`crate::isa_variants! { … }`): its items.
                    let end = item_end(&t, i);
                    self.scan(src, fi, m, i + 1, end - 1, dir, child_dir);
                    i = end;
                }
                Tok::Punct('{') => {
                    // A block that is not an inline module (fn body, impl, struct fields).
                    i = item_end(&t, i);
                }
                Tok::Ident(w) if w == "mod" => {
                    let name = ident(&t[i + 1]).unwrap().to_string();
                    let mut path = self.modules[m].path.clone();
                    path.push(name.clone());
                    if is_punct(&t[i + 2], ';') {
                        let f = match path_attr.take() {
                            Some(p) => dir.join(p),
                            None => {
                                let flat = child_dir.join(format!("{name}.rs"));
                                if flat.exists() {
                                    flat
                                } else {
                                    child_dir.join(&name).join("mod.rs")
                                }
                            }
                        };
                        let is_mod_rs = f.file_name().unwrap() == "mod.rs";
                        self.load_file(src, &f, is_mod_rs, path, Some(m));
                        i += 3;
                    } else {
                        let end = item_end(&t, i);
                        let inner = self.new_module(path, fi, Some(m));
                        self.modules[m].children.insert(name.clone(), inner);
                        for k in i..end {
                            self.files[fi].token_module[k] = inner;
                        }
                        let (d, cd) = (child_dir.to_path_buf(), child_dir.join(&name));
                        self.scan(src, fi, inner, i + 3, end - 1, &d, &cd);
                        i = end;
                    }
                }
                Tok::Ident(w) if w == "use" => {
                    let public = is_pub_before(&t, i);
                    let end = use_end(&t, i);
                    let mut leaves = Vec::new();
                    use_leaves(&t[i + 1..end - 1], Vec::new(), &mut leaves);
                    for l in leaves {
                        if l.path.last().is_some_and(|s| s == "*") {
                            self.modules[m].globs.push(l);
                        } else if let Some(name) = l.name.clone() {
                            self.modules[m].bindings.insert(name, (l, public));
                        }
                    }
                    i = end;
                }
                Tok::Ident(w) if w == "macro_rules" => {
                    if let Some(name) = t.get(i + 2).and_then(ident) {
                        let name = name.to_string();
                        self.modules[m].items.insert(name.clone(), fi);
                        if macro_export {
                            self.modules[0].items.insert(name, fi);
                        }
                        macro_export = false;
                    }
                    i += 3;
                }
                Tok::Ident(w) if ITEM_KEYWORDS.contains(&w.as_str()) => {
                    let after_generic =
                        i > 0 && (is_punct(&t[i - 1], '<') || is_punct(&t[i - 1], ','));
                    if let Some(name) = t.get(i + 1).and_then(ident)
                        && !after_generic
                        && name != "_"
                        && name != "fn"
                        && name != "unsafe"
                    {
                        self.modules[m].items.insert(name.to_string(), fi);
                    }
                    i += 1;
                }
                _ => i += 1,
            }
        }
    }

    /// Collects the paths of file `fi`: `use` leaves, and in code the paths that start at
    /// `crate`, `$crate`, `super`, `self`, a child module or a name a `use` bound.
    fn find_paths(&mut self, fi: usize) {
        let t = std::mem::take(&mut self.files[fi].tokens);
        let mut paths = Vec::new();
        // Names bound by `use` inside blocks (fn bodies), to the paths they stand for.
        let mut local: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut i = 0;
        while i < t.len() {
            let m = self.files[fi].token_module[i];
            if is_ident(&t[i], "use") && !(i > 0 && is_punct(&t[i - 1], ':')) {
                let public = is_pub_before(&t, i);
                let end = use_end(&t, i);
                let mut leaves = Vec::new();
                use_leaves(&t[i + 1..end - 1], Vec::new(), &mut leaves);
                for l in leaves {
                    let k = (i..end).find(|&k| t[k].line == l.line).unwrap_or(i);
                    if let Some(name) = &l.name {
                        let module_level = self.modules[m]
                            .bindings
                            .get(name)
                            .is_some_and(|b| b.0.line == l.line);
                        if !module_level {
                            local.insert(name.clone(), l.path.clone());
                        }
                    }
                    paths.push(PathUse {
                        token: k,
                        segs: l.path,
                        module: m,
                        is_use: true,
                        public,
                        bound: 0,
                    });
                }
                i = end;
                continue;
            }
            let starts_path =
                i + 2 < t.len() && is_punct(&t[i + 1], ':') && is_punct(&t[i + 2], ':');
            let mid_path = i >= 2 && is_punct(&t[i - 1], ':') && is_punct(&t[i - 2], ':');
            let dollar = i > 0 && is_punct(&t[i - 1], '$');
            if let (Some(w), true, false) = (ident(&t[i]), starts_path, mid_path) {
                let known = matches!(w, "crate" | "super" | "self")
                    || self.modules[m].children.contains_key(w)
                    || self.modules[m].bindings.contains_key(w)
                    || local.contains_key(w);
                if known || (dollar && w == "crate") {
                    let mut segs = match local.get(w) {
                        Some(p) if !self.modules[m].bindings.contains_key(w) => p.clone(),
                        _ => vec![w.to_string()],
                    };
                    let bound = if matches!(w, "crate" | "super" | "self")
                        || self.modules[m].children.contains_key(w)
                    {
                        0
                    } else {
                        segs.len()
                    };
                    let mut k = i + 1;
                    while k + 2 < t.len() && is_punct(&t[k], ':') && is_punct(&t[k + 1], ':') {
                        match ident(&t[k + 2]) {
                            Some(s) => segs.push(s.to_string()),
                            None => break,
                        }
                        k += 3;
                    }
                    paths.push(PathUse {
                        token: i,
                        segs,
                        module: m,
                        is_use: false,
                        public: false,
                        bound,
                    });
                    i = k;
                    continue;
                }
            }
            i += 1;
        }
        self.files[fi].tokens = t;
        self.files[fi].paths = paths;
    }

    pub fn file_of(&self, rel: &str) -> Option<usize> {
        self.files.iter().position(|f| f.rel == rel)
    }
}

/// What a path names.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    /// An item, and the file that defines it.
    Item(usize),
    Module(usize),
    /// Outside the crate (std, a dependency).
    External,
    Unresolved(String),
}

impl Crate {
    /// Resolves `segs` written in module `ctx`; `via` gets the files of the `use` bindings
    /// passed through (re-exports and imports), in order.
    pub fn resolve(
        &self,
        ctx: usize,
        segs: &[String],
        via: &mut Vec<usize>,
        depth: usize,
    ) -> Target {
        if depth > 32 {
            return Target::Unresolved(format!("{} (a loop)", segs.join("::")));
        }
        let (mut cur, mut i) = match segs[0].as_str() {
            "crate" => (0, 1),
            "self" => (ctx, 1),
            "super" => (self.modules[ctx].parent.unwrap(), 1),
            s if self.modules[ctx].children.contains_key(s)
                || self.modules[ctx].bindings.contains_key(s) =>
            {
                (ctx, 0)
            }
            _ => return Target::External,
        };
        while segs.get(i).is_some_and(|s| s == "super") {
            cur = self.modules[cur].parent.unwrap();
            i += 1;
        }
        while i < segs.len() {
            let s = &segs[i];
            let m = &self.modules[cur];
            if s == "*" {
                return Target::Module(cur);
            }
            if let Some(&c) = m.children.get(s) {
                cur = c;
                i += 1;
                continue;
            }
            if let Some(&f) = m.items.get(s) {
                return Target::Item(f);
            }
            if let Some((leaf, _)) = m.bindings.get(s) {
                let mut next = leaf.path.clone();
                next.extend_from_slice(&segs[i + 1..]);
                via.push(m.file);
                return self.resolve(cur, &next, via, depth + 1);
            }
            for g in &m.globs {
                let mut next = g.path[..g.path.len() - 1].to_vec();
                next.extend_from_slice(&segs[i..]);
                let mut v = via.clone();
                v.push(m.file);
                if let t @ Target::Item(_) = self.resolve(cur, &next, &mut v, depth + 1) {
                    *via = v;
                    return t;
                }
            }
            return Target::Unresolved(format!(
                "`{}` is not in crate::{}",
                s,
                self.modules[cur].path.join("::")
            ));
        }
        Target::Module(cur)
    }
}

/// An arrow of the graph: file `from` imports file `to`.
#[derive(Clone, Debug)]
pub struct Arrow {
    pub from: usize,
    pub to: usize,
    /// The line (1-based) of the path in `from`.
    pub line: usize,
    pub path: String,
    /// `to` is a file the path passed through (a re-export), not the defining file.
    pub through: bool,
}

/// The arrows of the crate, and the paths that could not be resolved.
///
/// Each path makes an arrow to the file that defines what it names and one to each file
/// whose `use` it passed through. A `pub use` in the root file of a module (lib.rs, mod.rs,
/// or a file with child modules) that re-exports an item of that module's own descendants
/// makes none: the façade points into its own module and is not an import.
pub fn arrows(c: &Crate) -> (Vec<Arrow>, Vec<String>) {
    let mut out = Vec::new();
    let mut unresolved = Vec::new();
    for (fi, f) in c.files.iter().enumerate() {
        for p in &f.paths {
            let (segs, m) = (&p.segs, &p.module);
            if p.bound > 0
                && !matches!(
                    c.resolve(*m, &segs[..p.bound], &mut Vec::new(), 0),
                    Target::Module(_)
                )
            {
                continue; // counted at its `use`
            }
            let mut via = Vec::new();
            let target = c.resolve(*m, segs, &mut via, 0);
            let line = f.tokens[p.token].line;
            let to = match target {
                Target::Item(file) => Some(file),
                Target::Module(_) | Target::External => None,
                Target::Unresolved(why) => {
                    unresolved.push(format!("src/{}:{line}: {}: {why}", f.rel, segs.join("::")));
                    None
                }
            };
            let path = segs.join("::");
            if p.is_use
                && p.public
                && let Some(to) = to
            {
                let own = &c.modules[*m].path;
                let below = c.modules[c.files[to].module].path.starts_with(own);
                if below
                    && via
                        .iter()
                        .all(|&v| c.modules[c.files[v].module].path.starts_with(own))
                {
                    continue;
                }
            }
            for &v in &via {
                if v != fi {
                    out.push(Arrow {
                        from: fi,
                        to: v,
                        line,
                        path: path.clone(),
                        through: true,
                    });
                }
            }
            if let Some(to) = to.filter(|&t| t != fi) {
                out.push(Arrow {
                    from: fi,
                    to,
                    line,
                    path,
                    through: false,
                });
            }
        }
    }
    (out, unresolved)
}

/// The strongly connected components with more than one file (Tarjan's algorithm).
pub fn circles(n: usize, arrows: &[Arrow]) -> Vec<Vec<usize>> {
    let mut next = vec![Vec::new(); n];
    for a in arrows {
        next[a.from].push(a.to);
    }
    struct S<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on: Vec<bool>,
        stack: Vec<usize>,
        count: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut S, v: usize) {
        s.index[v] = Some(s.count);
        s.low[v] = s.count;
        s.count += 1;
        s.stack.push(v);
        s.on[v] = true;
        for &w in &s.next[v].clone() {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on[w] => s.low[v] = s.low[v].min(iw),
                _ => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = S {
        next: &next,
        index: vec![None; n],
        low: vec![0; n],
        on: vec![false; n],
        stack: Vec::new(),
        count: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}

pub fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}
