//! Wavefront OBJ reader. Our own small parser rather than `tobj`, because `tobj` re-indexes
//! vertices per group and reports no line numbers, both of which the contract forbids.
//!
//! Reads `v x y z [w …]` (extra values such as w or colors ignored) and `f` with `v`, `v/vt`,
//! `v//vn`, `v/vt/vn` corners, 1-based or negative (relative) indices, global across groups.
//! Other statements (`vt`, `vn`, `g`, `o`, `s`, `usemtl`, `mtllib`, `l`, …) and comments are
//! skipped; a line ending in `\` continues on the next one. A "statement" that is not a word
//! (garbage bytes) is a parse error, so binary junk is not silently read as an empty mesh.
//!
//! The file is read a line at a time ([`Input`]); a statement continued over several lines
//! is joined in a buffer of at most [`MAX_LINE`] bytes.

use super::builder::MeshBuilder;
use super::input::Input;
use super::{MAX_LINE, parse_error, parse_f64, tokens};
use crate::error::MeshError;
use crate::error::{Location, shown};
use std::collections::VecDeque;

pub(super) fn parse(input: &mut Input, mesh: &mut MeshBuilder) -> Result<(), MeshError> {
    let path = input.path();
    let mut poly: Vec<u32> = Vec::new();
    let mut forward = ForwardRefs::default();
    let mut joined: Vec<u8> = Vec::new();

    while let Some((start, end)) = input.next_line_span()? {
        let line_no = input.line();
        let at = Location::Line(line_no);
        let line: &[u8] = if input.held()[start..end].ends_with(b"\\") {
            join_continued(input, start, end, &mut joined)?;
            &joined
        } else {
            &input.held()[start..end]
        };
        let mut toks = tokens(line);
        let Some(key) = toks.next() else { continue };
        match key {
            b"v" => {
                let mut p = [0f64; 3];
                for c in &mut p {
                    let tok = toks.next().ok_or_else(|| {
                        parse_error(path, at, "vertex needs three coordinates `v x y z`")
                    })?;
                    *c = parse_f64(tok).ok_or_else(|| {
                        parse_error(path, at, format!("bad coordinate `{}`", shown(tok)))
                    })?;
                }
                mesh.push_vertex(p, at)?;
                if forward.reached(mesh.vertex_count()) {
                    mesh.set_extra(forward.bytes());
                }
            }
            b"f" => {
                poly.clear();
                let count = mesh.vertex_count();
                for tok in toks {
                    let v = tok.split(|&b| b == b'/').next().unwrap_or(tok);
                    let written: i64 = std::str::from_utf8(v)
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| {
                            parse_error(path, at, format!("bad face corner `{}`", shown(tok)))
                        })?;
                    let missing = || MeshError::MissingVertex {
                        path: path.to_path_buf(),
                        location: at,
                        index: written,
                        count,
                    };
                    let index = match written {
                        0 => {
                            return Err(parse_error(
                                path,
                                at,
                                "vertex index 0 (OBJ counts from 1)",
                            ));
                        }
                        i if i < 0 => {
                            // -1 is the last vertex read so far.
                            let i = count as i64 + i;
                            if i < 0 {
                                return Err(missing());
                            }
                            i as u32
                        }
                        i => {
                            let i = u32::try_from(i - 1).map_err(|_| missing())?;
                            if i as usize >= count {
                                forward.note(line_no, i);
                                mesh.set_extra(forward.bytes());
                            }
                            i
                        }
                    };
                    poly.push(index);
                }
                if poly.len() < 3 {
                    return Err(parse_error(
                        path,
                        at,
                        format!("face with {} vertices (at least 3 needed)", poly.len()),
                    ));
                }
                mesh.push_fan(&poly, at)?;
            }
            k if k[0] == b'#' => {}
            k if k[0].is_ascii_alphabetic()
                && k.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_') => {}
            k => {
                return Err(parse_error(
                    path,
                    at,
                    format!("`{}` is not an OBJ statement", shown(k)),
                ));
            }
        }
    }

    if let Some((line, index)) = forward.first_missing(mesh.vertex_count()) {
        return Err(MeshError::MissingVertex {
            path: path.to_path_buf(),
            location: Location::Line(line),
            index: i64::from(index) + 1,
            count: mesh.vertex_count(),
        });
    }
    Ok(())
}

/// Joins the statement whose first line is `start..end` of the input's buffer (it ends in
/// `\`) with the lines that continue it, each `\` becoming a space, into `joined`. The
/// statement may not pass [`MAX_LINE`] bytes: it is named by its first line.
fn join_continued(
    input: &mut Input,
    start: usize,
    end: usize,
    joined: &mut Vec<u8>,
) -> Result<(), MeshError> {
    let first_line = input.line();
    joined.clear();
    joined.extend_from_slice(&input.held()[start..end]);
    while joined.last() == Some(&b'\\') {
        joined.pop();
        joined.push(b' ');
        match input.next_line()? {
            Some(next) => {
                if joined.len() + next.len() > MAX_LINE {
                    return Err(MeshError::LineTooLong {
                        path: input.path().to_path_buf(),
                        location: Location::Line(first_line),
                        max: MAX_LINE,
                        start: shown(joined),
                    });
                }
                joined.extend_from_slice(next);
            }
            None => break,
        }
    }
    Ok(())
}

/// The positive face indices beyond the vertices read so far: legal if a later `v` defines
/// them, an error naming the first such line otherwise, which only the end of the file
/// tells. Only what can still be that first line is kept: a reference whose index is above
/// every earlier one still pending (an index at most an earlier one's is missing only if
/// the earlier one is, and that one comes first), until the vertex count passes it. So the
/// list holds increasing indices of vertices not yet read: at most one entry per vertex,
/// 12 bytes each, and none at all in a file whose vertices come before their faces.
#[derive(Default)]
struct ForwardRefs {
    /// `[index, line low 32 bits, line high 32 bits]`, increasing in index and line.
    pending: VecDeque<[u32; 3]>,
}

impl ForwardRefs {
    /// A face on line `line` names vertex `index` (0-based), not read yet.
    fn note(&mut self, line: usize, index: u32) {
        if self.pending.back().is_none_or(|e| index > e[0]) {
            let line = line as u64;
            self.pending
                .push_back([index, line as u32, (line >> 32) as u32]);
        }
    }

    /// `count` vertices are read: the references below are fine. Whether any was pending.
    fn reached(&mut self, count: usize) -> bool {
        let before = self.pending.len();
        while self
            .pending
            .front()
            .is_some_and(|e| (e[0] as usize) < count)
        {
            self.pending.pop_front();
        }
        self.pending.len() != before
    }

    /// Bytes held, counted against the memory limit.
    fn bytes(&self) -> u64 {
        12 * self.pending.len() as u64
    }

    /// The first reference (line, 0-based index) to a vertex the file does not have, when it
    /// has `count`.
    fn first_missing(&mut self, count: usize) -> Option<(usize, u32)> {
        self.reached(count);
        self.pending
            .front()
            .map(|e| ((u64::from(e[2]) << 32 | u64::from(e[1])) as usize, e[0]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first missing reference in file order, whatever the order of indices.
    #[test]
    fn forward_references_name_the_first_missing_line() {
        let mut f = ForwardRefs::default();
        f.note(1, 5);
        f.note(2, 3); // below a pending one: never the first missing
        f.note(3, 9);
        f.note(4, 7);
        assert_eq!(f.pending.len(), 2);
        assert_eq!(f.clone_first(6), Some((3, 9)));
        assert_eq!(f.clone_first(5), Some((1, 5)));
        assert_eq!(f.clone_first(10), None);
        f.reached(6);
        assert_eq!(f.pending.len(), 1);
        f.note(5, 6); // above the vertices read, below the pending 9
        f.reached(10);
        assert_eq!(f.first_missing(10), None);
        f.note(usize::MAX, 11);
        assert_eq!(f.first_missing(11), Some((usize::MAX, 11)));
    }

    impl ForwardRefs {
        fn clone_first(&self, count: usize) -> Option<(usize, u32)> {
            ForwardRefs {
                pending: self.pending.clone(),
            }
            .first_missing(count)
        }
    }
}
