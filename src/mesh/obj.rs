//! Wavefront OBJ reader. Our own small parser rather than `tobj`, because `tobj` re-indexes
//! vertices per group and reports no line numbers, both of which the contract forbids.
//!
//! Reads `v x y z [w …]` (extra values such as w or colors ignored) and `f` with `v`, `v/vt`,
//! `v//vn`, `v/vt/vn` corners, 1-based or negative (relative) indices, global across groups.
//! Other statements (`vt`, `vn`, `g`, `o`, `s`, `usemtl`, `mtllib`, `l`, …) and comments are
//! skipped; a line ending in `\` continues on the next one. A "statement" that is not a word
//! (garbage bytes) is a parse error, so binary junk is not silently read as an empty mesh.

use super::{Lines, parse_error, parse_f64, push_fan, show, tokens};
use crate::MeshError;
use crate::error::Location;
use crate::mesh::Mesh;
use std::path::Path;

pub(super) fn parse(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let mut positions: Vec<[f64; 3]> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut poly: Vec<u32> = Vec::new();
    // Positive indices beyond the vertices read so far (legal if a later `v` defines them);
    // checked at the end. Rare, so this stays tiny.
    let mut forward: Vec<(usize, i64)> = Vec::new();
    let mut joined: Vec<u8> = Vec::new();
    let mut lines = Lines::new(bytes);

    while let Some((line_no, first)) = lines.next() {
        let line: &[u8] = if first.ends_with(b"\\") {
            joined.clear();
            let mut part = first;
            while let Some(head) = part.strip_suffix(b"\\") {
                joined.extend_from_slice(head);
                joined.push(b' ');
                match lines.next() {
                    Some((_, next)) => part = next,
                    None => {
                        part = b"";
                        break;
                    }
                }
            }
            joined.extend_from_slice(part);
            &joined
        } else {
            first
        };
        let at = Location::Line(line_no);
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
                        parse_error(path, at, format!("bad coordinate `{}`", show(tok)))
                    })?;
                }
                crate::mesh::check_vertex(&p, path, at)?;
                if positions.len() > u32::MAX as usize {
                    return Err(parse_error(path, at, "more than 2^32 vertices"));
                }
                positions.push(p);
            }
            b"f" => {
                poly.clear();
                for tok in toks {
                    let v = tok.split(|&b| b == b'/').next().unwrap_or(tok);
                    let written: i64 = std::str::from_utf8(v)
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| {
                            parse_error(path, at, format!("bad face corner `{}`", show(tok)))
                        })?;
                    let count = positions.len();
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
                                forward.push((line_no, written));
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
                push_fan(&mut triangles, &poly);
            }
            k if k[0] == b'#' => {}
            k if k[0].is_ascii_alphabetic()
                && k.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'_') => {}
            k => {
                return Err(parse_error(
                    path,
                    at,
                    format!("`{}` is not an OBJ statement", show(k)),
                ));
            }
        }
    }

    if let Some(&(line, index)) = forward.iter().find(|&&(_, i)| i as usize > positions.len()) {
        return Err(MeshError::MissingVertex {
            path: path.to_path_buf(),
            location: Location::Line(line),
            index,
            count: positions.len(),
        });
    }
    Ok(Mesh {
        positions,
        triangles,
    })
}
