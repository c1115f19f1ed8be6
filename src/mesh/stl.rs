//! STL reader, binary and ASCII: one triangle per facet, its three vertices in facet order,
//! each facet with its own three positions (no welding). Our own parser rather than `stl_io`
//! so that errors name the facet (binary) or the line (ASCII), and `stl_io` welds vertices.
//!
//! Binary vs ASCII: some binary files start their 80-byte header with `solid`, so the length
//! decides: `84 + 50 * count == file length` means binary. Otherwise a file starting with
//! `solid` and free of NUL bytes is ASCII; anything else is a binary file of the wrong length.

use super::{Lines, parse_error, parse_f64, show};
use crate::MeshError;
use crate::error::Location;
use crate::mesh::Mesh;
use std::path::Path;

const HEADER: usize = 84;
const RECORD: usize = 50;

pub(super) fn parse(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let count = bytes
        .get(80..HEADER)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as u64);
    if count.is_some_and(|c| HEADER as u64 + RECORD as u64 * c == bytes.len() as u64) {
        return binary(path, bytes);
    }
    let text = bytes.trim_ascii_start();
    if text.len() >= 5 && text[..5].eq_ignore_ascii_case(b"solid") && !bytes.contains(&0) {
        return ascii(path, bytes);
    }
    // Neither: report it as a binary file of the wrong size, naming the first facet that is
    // incomplete (truncated file) or the one after the last declared (trailing bytes).
    let Some(count) = count else {
        return Err(parse_error(
            path,
            Location::Face(0),
            format!(
                "{} bytes: too short for a binary STL (84-byte header) and not ASCII (`solid …`)",
                bytes.len()
            ),
        ));
    };
    let complete = (bytes.len() - HEADER) / RECORD;
    let message = if count > complete as u64 {
        format!(
            "truncated binary STL: header declares {count} facets, the file ends inside facet \
             {complete} ({} bytes)",
            bytes.len()
        )
    } else {
        format!(
            "binary STL has {} bytes after its {count} declared facets (or is not an STL file)",
            bytes.len() - HEADER - RECORD * count as usize
        )
    };
    Err(parse_error(
        path,
        Location::Face(complete.min(count as usize)),
        message,
    ))
}

/// Reads a binary STL whose length has been checked against its facet count.
fn binary(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let records = bytes[HEADER..].chunks_exact(RECORD);
    if records.len() > u32::MAX as usize / 3 {
        return Err(parse_error(path, Location::Face(0), "too many facets"));
    }
    let mut positions = Vec::with_capacity(3 * records.len());
    let mut triangles = Vec::with_capacity(records.len());
    for (i, rec) in records.enumerate() {
        // Bytes 0..12 are the normal (ignored: the contract keeps the vertex order as stored),
        // 12..48 the three vertices, 48..50 the attribute count.
        let f = |k: usize| {
            let o = 12 + 4 * k;
            f64::from(f32::from_le_bytes([
                rec[o],
                rec[o + 1],
                rec[o + 2],
                rec[o + 3],
            ]))
        };
        for v in 0..3 {
            let p = [f(3 * v), f(3 * v + 1), f(3 * v + 2)];
            crate::mesh::check_vertex(&p, path, Location::Face(i))?;
            positions.push(p);
        }
        let b = 3 * i as u32;
        triangles.push([b, b + 1, b + 2]);
    }
    Ok(Mesh {
        positions,
        triangles,
    })
}

/// Whitespace-separated tokens of a text, with the line each one sits on.
struct Tokens<'a> {
    lines: Lines<'a>,
    rest: &'a [u8],
}

impl<'a> Tokens<'a> {
    fn next(&mut self) -> Option<&'a [u8]> {
        loop {
            self.rest = self.rest.trim_ascii_start();
            if !self.rest.is_empty() {
                let end = self
                    .rest
                    .iter()
                    .position(|b| b.is_ascii_whitespace())
                    .unwrap_or(self.rest.len());
                let (tok, rest) = self.rest.split_at(end);
                self.rest = rest;
                return Some(tok);
            }
            self.rest = self.lines.next()?.1;
        }
    }

    /// Line of the token last returned (or the last line at the end of the text).
    fn at(&self) -> Location {
        Location::Line(self.lines.line.max(1))
    }

    /// Skips the rest of the current line (a solid's name).
    fn skip_line(&mut self) {
        self.rest = b"";
    }
}

/// Reads an ASCII STL: `solid name`, then facets
/// `facet normal n n n / outer loop / vertex x y z ×3 / endloop / endfacet`, then
/// `endsolid name`. Several solids in one file are read one after another.
fn ascii(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let mut t = Tokens {
        lines: Lines::new(bytes),
        rest: b"",
    };
    let mut positions: Vec<[f64; 3]> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let is = |tok: &[u8], word: &str| tok.eq_ignore_ascii_case(word.as_bytes());

    // Expects the keyword `word` as the next token.
    fn expect(t: &mut Tokens, path: &Path, word: &str) -> Result<(), MeshError> {
        match t.next() {
            Some(tok) if tok.eq_ignore_ascii_case(word.as_bytes()) => Ok(()),
            Some(tok) => Err(parse_error(
                path,
                t.at(),
                format!("expected `{word}`, found `{}`", show(tok)),
            )),
            None => Err(parse_error(
                path,
                t.at(),
                format!("file ends where `{word}` was expected"),
            )),
        }
    }

    while let Some(tok) = t.next() {
        if !is(tok, "solid") {
            return Err(parse_error(
                path,
                t.at(),
                format!("expected `solid`, found `{}`", show(tok)),
            ));
        }
        t.skip_line();
        loop {
            match t.next() {
                Some(tok) if is(tok, "endsolid") => {
                    t.skip_line();
                    break;
                }
                Some(tok) if is(tok, "facet") => {}
                Some(tok) => {
                    return Err(parse_error(
                        path,
                        t.at(),
                        format!("expected `facet` or `endsolid`, found `{}`", show(tok)),
                    ));
                }
                None => return Err(parse_error(path, t.at(), "file ends inside a solid")),
            }
            expect(&mut t, path, "normal")?;
            for _ in 0..3 {
                // The normal is not used, so its value is not checked.
                t.next()
                    .ok_or_else(|| parse_error(path, t.at(), "file ends inside a normal"))?;
            }
            expect(&mut t, path, "outer")?;
            expect(&mut t, path, "loop")?;
            let first = positions.len();
            loop {
                match t.next() {
                    Some(tok) if is(tok, "vertex") => {}
                    Some(tok) if is(tok, "endloop") => break,
                    Some(tok) => {
                        return Err(parse_error(
                            path,
                            t.at(),
                            format!("expected `vertex` or `endloop`, found `{}`", show(tok)),
                        ));
                    }
                    None => return Err(parse_error(path, t.at(), "file ends inside a facet")),
                }
                let mut p = [0f64; 3];
                for c in &mut p {
                    let tok = t.next().unwrap_or(b"");
                    *c = parse_f64(tok).ok_or_else(|| {
                        parse_error(path, t.at(), format!("bad coordinate `{}`", show(tok)))
                    })?;
                }
                crate::mesh::check_vertex(&p, path, t.at())?;
                positions.push(p);
            }
            let n = positions.len() - first;
            if n != 3 {
                return Err(parse_error(
                    path,
                    t.at(),
                    format!("facet has {n} vertices (STL facets are triangles)"),
                ));
            }
            if positions.len() > u32::MAX as usize {
                return Err(parse_error(path, t.at(), "more than 2^32 vertices"));
            }
            let b = first as u32;
            triangles.push([b, b + 1, b + 2]);
            expect(&mut t, path, "endfacet")?;
        }
    }
    Ok(Mesh {
        positions,
        triangles,
    })
}
