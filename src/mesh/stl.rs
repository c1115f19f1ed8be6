//! STL reader, binary and ASCII: one triangle per facet, its three vertices in facet order,
//! each facet with its own three positions (no welding). Our own parser rather than `stl_io`
//! so that errors name the facet (binary) or the line (ASCII), and `stl_io` welds vertices.
//!
//! Binary vs ASCII: some binary files start their 80-byte header with `solid`. Where the
//! length of the input is known before reading (a regular file, bytes in memory) it decides:
//! `84 + 50 * count == length` means binary; otherwise a file starting with `solid` (after
//! white space) is read as ASCII, and a NUL byte in it makes it a binary file of the wrong
//! length after all, as does anything else. From a pipe or a gzip stream the length is
//! unknown until the end: a file whose first [`HEAD`] bytes start with `solid` and hold no
//! NUL byte is ASCII, anything else binary, read by its facet count (a binary header starting
//! with `solid` is almost always followed by a count or a normal with a zero byte).

use super::builder::MeshBuilder;
use super::input::Input;
use super::{parse_error, parse_f64};
use crate::error::MeshError;
use crate::error::{Location, shown};
use std::path::Path;

const HEADER: usize = 84;
const RECORD: usize = 50;
/// Binary facets read from the input at a time.
const RECORDS_AT_ONCE: usize = 1024;
/// Bytes looked at to tell ASCII from binary when the length is unknown.
const HEAD: usize = 1024;
/// Bytes after the last declared facet that a stream of unknown length is read on for, to
/// say how many there are (more are reported as "more than").
const TRAILING_COUNTED: u64 = 1 << 16;

pub(super) fn parse(input: &mut Input, mesh: &mut MeshBuilder) -> Result<(), MeshError> {
    let path = input.path();
    let head = input.peek(HEAD)?;
    let head_len = head.len();
    let count = head
        .get(80..HEADER)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
    let text = head.trim_ascii_start();
    let ascii = !head.contains(&0)
        && (text.len() >= 5 && text[..5].eq_ignore_ascii_case(b"solid")
            // White space beyond the head: the tokenizer finds what follows.
            || text.is_empty() && head_len == HEAD);
    // Text that is no ASCII STL: said as such, not as a binary STL of the wrong size.
    let text = if ascii {
        None
    } else {
        text_not_stl(path, head)
    };
    match input.known_len() {
        Some(len) => {
            if let Some(c) = count
                && HEADER as u64 + RECORD as u64 * u64::from(c) == len
            {
                return binary(input, mesh, c, true);
            }
            if ascii {
                return self::ascii(input, mesh, Some((len, count)));
            }
            if let Some(e) = text {
                return Err(e);
            }
            // A binary STL of the wrong length is read as a stream of unknown length reads it
            // (its first bad facet, or the truncation or trailing bytes at its end, is the
            // error), so a file and the same bytes through a pipe fail alike
            // (`tests/fuzz_streams.rs`).
            match count {
                Some(c) => binary(input, mesh, c, false),
                None => Err(wrong_size(path, len, count)),
            }
        }
        None if ascii => self::ascii(input, mesh, None),
        None => match (text, count) {
            (Some(e), _) => Err(e),
            (None, Some(c)) => binary(input, mesh, c, false),
            // The input ended within the header: its length is known after all.
            (None, None) => Err(wrong_size(path, head_len as u64, None)),
        },
    }
}

/// The error for a `head` that is text (UTF-8 without control characters but white space)
/// yet does not start with `solid`, as every ASCII STL does: an ASCII STL that lost its
/// `solid` line (it has `facet` or `vertex` words), or another text file named `.stl`.
/// `None` for anything else, which is read as a binary STL. A binary STL's header may be
/// text, but its facet count and coordinates are not (a count of four printable bytes
/// declares over 500 million facets), so a head that is text throughout is no binary STL.
fn text_not_stl(path: &Path, head: &[u8]) -> Option<MeshError> {
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        // A character cut at the end of the head.
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
        Err(_) => return None,
    };
    if text
        .chars()
        .any(|c| c.is_control() && !c.is_ascii_whitespace())
    {
        return None;
    }
    let (i, first) = text
        .lines()
        .enumerate()
        .find(|(_, l)| !l.trim().is_empty())?;
    let stl_words = text.split_ascii_whitespace().any(|w| {
        ["facet", "vertex", "endfacet", "outer"]
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k))
    });
    let what = if stl_words {
        "an ASCII STL without its `solid` line (ASCII STL is read, starting `solid <name>`)"
    } else {
        "a text file but no STL: an ASCII STL (which is read) starts with `solid`, and a binary \
         STL is not text"
    };
    let start = shown(first.trim().as_bytes());
    Some(parse_error(
        path,
        Location::Line(i + 1),
        format!("{what}; it starts `{start}`"),
    ))
}

/// The error for a file of `len` bytes with facet count `count` (none if shorter than the
/// header) that is neither a binary STL of that length nor ASCII: it names the first facet
/// that is incomplete (truncated file) or the one after the last declared (trailing bytes).
fn wrong_size(path: &Path, len: u64, count: Option<u32>) -> MeshError {
    let Some(count) = count.map(u64::from) else {
        return parse_error(
            path,
            Location::Face(0),
            format!(
                "{len} bytes: too short for a binary STL (84-byte header) and not ASCII (`solid …`)"
            ),
        );
    };
    let complete = (len - HEADER as u64) / RECORD as u64;
    let message = if count > complete {
        format!(
            "truncated binary STL: header declares {count} facets, the file ends inside facet \
             {complete} ({len} bytes)"
        )
    } else {
        format!(
            "binary STL has {} bytes after its {count} declared facets (or is not an STL file)",
            len - HEADER as u64 - RECORD as u64 * count
        )
    };
    parse_error(path, Location::Face(complete.min(count) as usize), message)
}

/// Reads a binary STL of `count` facets; `confirmed`: the input's length has been checked
/// against the count, so the arrays are allocated whole at once.
fn binary(
    input: &mut Input,
    mesh: &mut MeshBuilder,
    count: u32,
    confirmed: bool,
) -> Result<(), MeshError> {
    let path = input.path();
    let n = u64::from(count);
    mesh.check_declared(3 * n, n, Location::Face(0), || format!("{count} facets"))?;
    if n > u64::from(u32::MAX / 3) {
        return Err(parse_error(path, Location::Face(0), "too many facets"));
    }
    mesh.reserve(3 * n, n, confirmed);
    input.bytes(HEADER)?;
    let mut done = 0usize;
    while done < count as usize {
        let k = (count as usize - done).min(RECORDS_AT_ONCE);
        let batch = input.bytes(RECORD * k)?;
        let complete = batch.len() / RECORD;
        for (j, rec) in batch.chunks_exact(RECORD).enumerate() {
            let at = Location::Face(done + j);
            // Bytes 0..12 are the normal (ignored: the contract keeps the vertex order as
            // stored), 12..48 the three vertices, 48..50 the attribute count.
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
                mesh.push_vertex([f(3 * v), f(3 * v + 1), f(3 * v + 2)], at)?;
            }
            let b = (mesh.vertex_count() - 3) as u32;
            mesh.push_triangle([b, b + 1, b + 2], at)?;
        }
        if complete < k {
            let i = done + complete;
            return Err(parse_error(
                path,
                Location::Face(i),
                format!(
                    "truncated binary STL: header declares {count} facets, the file ends inside \
                     facet {i} ({} bytes)",
                    input.position()
                ),
            ));
        }
        done += k;
    }
    if !confirmed {
        let extra = input.skip(TRAILING_COUNTED + 1)?;
        if extra > 0 {
            let bytes = if extra > TRAILING_COUNTED {
                format!("more than {TRAILING_COUNTED}")
            } else {
                extra.to_string()
            };
            return Err(parse_error(
                path,
                Location::Face(count as usize),
                format!(
                    "binary STL has {bytes} bytes after its {count} declared facets (or is not \
                     an STL file)"
                ),
            ));
        }
    }
    Ok(())
}

/// Whitespace-separated tokens of the input, with the line each one sits on.
struct Tokens<'i, 'a> {
    input: &'i mut Input<'a>,
    /// The rest of the current line: `pos..end` of the input's buffer.
    pos: usize,
    end: usize,
    /// The input's known length and facet count: a NUL byte then makes it a binary file of
    /// the wrong size rather than a bad ASCII one.
    sized: Option<(u64, Option<u32>)>,
}

impl Tokens<'_, '_> {
    fn next(&mut self) -> Result<Option<(&[u8], Location)>, MeshError> {
        loop {
            let held = self.input.held();
            let mut s = self.pos;
            while s < self.end && held[s].is_ascii_whitespace() {
                s += 1;
            }
            let mut e = s;
            while e < self.end && !held[e].is_ascii_whitespace() {
                e += 1;
            }
            self.pos = e;
            if s < e {
                let at = self.at();
                return Ok(Some((&self.input.held()[s..e], at)));
            }
            let Some((s, e)) = self.input.next_line_span()? else {
                return Ok(None);
            };
            if self.input.held()[s..e].contains(&0) {
                let path = self.input.path();
                return Err(match self.sized {
                    Some((len, count)) => wrong_size(path, len, count),
                    None => parse_error(
                        path,
                        self.at(),
                        "a NUL byte in an ASCII STL (a binary STL whose header starts with \
                         `solid`? from a pipe or a gzip stream, its first bytes decide)",
                    ),
                });
            }
            (self.pos, self.end) = (s, e);
        }
    }

    /// Line of the token last returned (or the last line at the end of the text).
    fn at(&self) -> Location {
        Location::Line(self.input.line().max(1))
    }

    /// Skips the rest of the current line (a solid's name).
    fn skip_line(&mut self) {
        self.pos = self.end;
    }

    /// Expects the keyword `word` as the next token.
    fn expect(&mut self, word: &str) -> Result<(), MeshError> {
        let path = self.input.path();
        match self.next()? {
            Some((tok, _)) if tok.eq_ignore_ascii_case(word.as_bytes()) => Ok(()),
            Some((tok, at)) => Err(parse_error(
                path,
                at,
                format!("expected `{word}`, found `{}`", shown(tok)),
            )),
            None => Err(parse_error(
                path,
                self.at(),
                format!("file ends where `{word}` was expected"),
            )),
        }
    }
}

fn is(tok: &[u8], word: &str) -> bool {
    tok.eq_ignore_ascii_case(word.as_bytes())
}

/// Reads an ASCII STL: `solid name`, then facets
/// `facet normal n n n / outer loop / vertex x y z ×3 / endloop / endfacet`, then
/// `endsolid name`. Several solids in one file are read one after another. `sized`: the
/// input's known length and facet count (see [`Tokens`]).
fn ascii(
    input: &mut Input,
    mesh: &mut MeshBuilder,
    sized: Option<(u64, Option<u32>)>,
) -> Result<(), MeshError> {
    let path = input.path();
    let mut t = Tokens {
        input,
        pos: 0,
        end: 0,
        sized,
    };

    while let Some((tok, at)) = t.next()? {
        if !is(tok, "solid") {
            return Err(parse_error(
                path,
                at,
                format!("expected `solid`, found `{}`", shown(tok)),
            ));
        }
        t.skip_line();
        loop {
            match t.next()? {
                Some((tok, _)) if is(tok, "endsolid") => {
                    t.skip_line();
                    break;
                }
                Some((tok, _)) if is(tok, "facet") => {}
                Some((tok, at)) => {
                    return Err(parse_error(
                        path,
                        at,
                        format!("expected `facet` or `endsolid`, found `{}`", shown(tok)),
                    ));
                }
                None => return Err(parse_error(path, t.at(), "file ends inside a solid")),
            }
            t.expect("normal")?;
            for _ in 0..3 {
                // The normal is not used, so its value is not checked.
                if t.next()?.is_none() {
                    return Err(parse_error(path, t.at(), "file ends inside a normal"));
                }
            }
            t.expect("outer")?;
            t.expect("loop")?;
            let first = mesh.vertex_count();
            loop {
                match t.next()? {
                    Some((tok, _)) if is(tok, "vertex") => {}
                    Some((tok, _)) if is(tok, "endloop") => break,
                    Some((tok, at)) => {
                        return Err(parse_error(
                            path,
                            at,
                            format!("expected `vertex` or `endloop`, found `{}`", shown(tok)),
                        ));
                    }
                    None => return Err(parse_error(path, t.at(), "file ends inside a facet")),
                }
                let mut p = [0f64; 3];
                for c in &mut p {
                    *c = match t.next()? {
                        Some((tok, at)) => parse_f64(tok).ok_or_else(|| {
                            parse_error(path, at, format!("bad coordinate `{}`", shown(tok)))
                        })?,
                        None => return Err(parse_error(path, t.at(), "bad coordinate ``")),
                    };
                }
                mesh.push_vertex(p, t.at())?;
            }
            let n = mesh.vertex_count() - first;
            if n != 3 {
                return Err(parse_error(
                    path,
                    t.at(),
                    format!("facet has {n} vertices (STL facets are triangles)"),
                ));
            }
            let b = first as u32;
            mesh.push_triangle([b, b + 1, b + 2], t.at())?;
            t.expect("endfacet")?;
        }
    }
    Ok(())
}
