//! PLY reader (ASCII, binary little and big endian) on `ply_rs_bw`: its header parser, and
//! its per-record readers with small typed `PropertyAccess` structs (the HashMap-based
//! `DefaultElement` is too slow for the 871k-face dragon).
//!
//! We drive the record loop ourselves instead of `read_payload`, for two reasons: each record
//! becomes triangles at once (no `Vec` of all records), and we always know the exact location
//! of an error. ASCII: `Line(n)`, the 1-based file line (header lines + row, one row per line).
//! Binary: `Vertex(i)` / `Face(i)`, the 0-based record of the `vertex` / `face` element; a
//! broken record of any other element is reported as `Line(header lines + 1 + records before
//! it)`, the convention `ply_rs_bw` itself uses, and the message names the element and record.

use super::{Lines, parse_error, push_fan};
use crate::MeshError;
use crate::error::Location;
use crate::mesh::Mesh;
use ply_rs_bw::parser::{ParseError, Parser, Reader};
use ply_rs_bw::ply::{
    ElementDef, Encoding, Property, PropertyAccess, PropertyAccessResult, PropertyType, ScalarType,
};
use std::path::Path;

/// The two property names in use for a face's vertex list.
const INDEX_NAMES: [&str; 2] = ["vertex_indices", "vertex_index"];

/// A `vertex` record: x, y, z of any numeric type, converted exactly to f64; the rest ignored.
struct PlyVertex([f64; 3]);

impl PropertyAccess for PlyVertex {
    fn new() -> Self {
        PlyVertex([0.0; 3])
    }
    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        let k = match name {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return PropertyAccessResult::Ignored,
        };
        match scalar_f64(&property) {
            Some(v) => {
                self.0[k] = v;
                PropertyAccessResult::Set
            }
            None => PropertyAccessResult::Ignored,
        }
    }
}

/// A `face` record: its vertex list, kept in the file's integer type (converting here would
/// cost a second allocation per face).
struct PlyFace(Option<Property>);

impl PropertyAccess for PlyFace {
    fn new() -> Self {
        PlyFace(None)
    }
    fn set_property(&mut self, name: &str, property: Property) -> PropertyAccessResult {
        if INDEX_NAMES.contains(&name) {
            self.0 = Some(property);
            PropertyAccessResult::Set
        } else {
            PropertyAccessResult::Ignored
        }
    }
}

/// Any other element (edges, materials, …): read past and dropped.
struct PlyIgnored;

impl PropertyAccess for PlyIgnored {
    fn new() -> Self {
        PlyIgnored
    }
}

/// Which of our record types an element is read into.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Vertex,
    Face,
    Other,
}

pub(super) fn parse(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let mut reader = Reader::new(bytes);
    let mut header = Parser::<PlyIgnored>::new()
        .read_header(&mut reader)
        .map_err(|e| {
            let line = e.line().unwrap_or(reader.line()).max(1);
            parse_error(path, Location::Line(line), tidy(&e))
        })?;
    // In an ASCII file the coordinates are decimal text: read `float` ones as `double`, so
    // each is rounded once, to the nearest f64, like OBJ and ASCII STL (the type only tells
    // how a writer stored them; the text is what the file says). Binary floats convert
    // exactly either way.
    if header.encoding == Encoding::Ascii
        && let Some(def) = header.elements.get_mut("vertex")
    {
        for axis in ["x", "y", "z"] {
            if let Some(p) = def.properties.get_mut(axis)
                && p.data_type == PropertyType::Scalar(ScalarType::Float)
            {
                p.data_type = PropertyType::Scalar(ScalarType::Double);
            }
        }
    }
    // After the header the reader stands on the first payload row.
    let first_row = reader.line();
    let mut rest: &[u8] = reader.into_inner();
    let element_line = |name: &str| Location::Line(header_line_of(bytes, name));

    // Check the header's promises before reading any record, so errors name the header line.
    let vertex_count = header.elements.get("vertex").map_or(0, |e| e.count);
    if let Some(def) = header.elements.get("vertex") {
        for axis in ["x", "y", "z"] {
            match def.properties.get(axis).map(|p| &p.data_type) {
                Some(PropertyType::Scalar(_)) => {}
                _ => {
                    return Err(parse_error(
                        path,
                        element_line("vertex"),
                        format!("element `vertex` has no numeric property `{axis}`"),
                    ));
                }
            }
        }
    }
    if let Some(def) = header.elements.get("face") {
        let list = INDEX_NAMES
            .iter()
            .find_map(|n| def.properties.get(*n))
            .map(|p| &p.data_type);
        match list {
            Some(PropertyType::List(_, item)) if is_integer(item) => {}
            _ => {
                return Err(parse_error(
                    path,
                    element_line("face"),
                    "element `face` has no integer list `vertex_indices` or `vertex_index`",
                ));
            }
        }
    }

    let mut positions: Vec<[f64; 3]> = Vec::new();
    let mut triangles: Vec<[u32; 3]> = Vec::new();
    let mut poly: Vec<u32> = Vec::new();
    let mut records_before = 0usize;
    let mut lines = Lines::new(rest);

    for (name, def) in &header.elements {
        let kind = match name.as_str() {
            "vertex" => Kind::Vertex,
            "face" => Kind::Face,
            _ => Kind::Other,
        };
        for i in 0..def.count {
            let row_line = first_row + records_before + i;
            let at = match (header.encoding, kind) {
                (Encoding::Ascii, _) | (_, Kind::Other) => Location::Line(row_line),
                (_, Kind::Vertex) => Location::Vertex(i),
                (_, Kind::Face) => Location::Face(i),
            };
            let read_error = |e: RecordError| match e {
                RecordError::Eof => parse_error(
                    path,
                    at,
                    format!("file ends after {i} of the {} `{name}` rows", def.count),
                ),
                RecordError::NonFinite => MeshError::NonFinite {
                    path: path.to_path_buf(),
                    location: at,
                },
                RecordError::Ply(e) => {
                    let what = if e.kind() == std::io::ErrorKind::UnexpectedEof {
                        "file ends inside the record".to_string()
                    } else {
                        tidy(&e)
                    };
                    parse_error(path, at, format!("element `{name}` record {i}: {what}"))
                }
            };
            match kind {
                Kind::Vertex => {
                    let PlyVertex(p) = read_record(&header.encoding, &mut rest, &mut lines, def)
                        .map_err(read_error)?;
                    crate::mesh::check_vertex(&p, path, at)?;
                    positions.push(p);
                }
                Kind::Face => {
                    let PlyFace(list) = read_record(&header.encoding, &mut rest, &mut lines, def)
                        .map_err(read_error)?;
                    poly.clear();
                    for index in list.iter().flat_map(indices) {
                        match u32::try_from(index) {
                            Ok(v) if (v as usize) < vertex_count => poly.push(v),
                            _ => {
                                return Err(MeshError::MissingVertex {
                                    path: path.to_path_buf(),
                                    location: at,
                                    index,
                                    count: vertex_count,
                                });
                            }
                        }
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
                Kind::Other => {
                    read_record::<PlyIgnored>(&header.encoding, &mut rest, &mut lines, def)
                        .map_err(read_error)?;
                }
            }
        }
        records_before += def.count;
    }
    Ok(Mesh {
        positions,
        triangles,
    })
}

/// Why a record could not be read.
enum RecordError {
    /// The ASCII text ended before the row.
    Eof,
    /// An ASCII row holds `nan` or `inf`, which `ply_rs_bw`'s row grammar rejects; reported
    /// as `NonFinite` like a binary NaN, not as a parse error.
    NonFinite,
    Ply(ParseError),
}

/// Reads one record.
fn read_record<E: PropertyAccess>(
    encoding: &Encoding,
    rest: &mut &[u8],
    lines: &mut Lines,
    def: &ElementDef,
) -> Result<E, RecordError> {
    let parser = Parser::<E>::new();
    match encoding {
        Encoding::Ascii => {
            let (_, row) = lines.next().ok_or(RecordError::Eof)?;
            // `ply_rs_bw` parses rows as text; a row that is not UTF-8 is garbage anyway.
            let row = std::str::from_utf8(row).map_err(|_| {
                RecordError::Ply(ParseError::from(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "row is not text (invalid UTF-8)",
                )))
            })?;
            parser.read_ascii_element(row, def).map_err(|e| {
                let non_finite = row
                    .split_ascii_whitespace()
                    .any(|t| t.parse::<f64>().is_ok_and(|v| !v.is_finite()));
                if non_finite {
                    RecordError::NonFinite
                } else {
                    RecordError::Ply(e)
                }
            })
        }
        Encoding::BinaryLittleEndian => parser
            .read_little_endian_element(rest, def)
            .map_err(RecordError::Ply),
        Encoding::BinaryBigEndian => parser
            .read_big_endian_element(rest, def)
            .map_err(RecordError::Ply),
    }
}

fn is_integer(t: &ScalarType) -> bool {
    !matches!(t, ScalarType::Float | ScalarType::Double)
}

/// The vertex indices of a face list of any integer type, widened to i64.
fn indices(list: &Property) -> Box<dyn Iterator<Item = i64> + '_> {
    match list {
        Property::ListChar(v) => Box::new(v.iter().map(|&x| x.into())),
        Property::ListUChar(v) => Box::new(v.iter().map(|&x| x.into())),
        Property::ListShort(v) => Box::new(v.iter().map(|&x| x.into())),
        Property::ListUShort(v) => Box::new(v.iter().map(|&x| x.into())),
        Property::ListInt(v) => Box::new(v.iter().map(|&x| x.into())),
        Property::ListUInt(v) => Box::new(v.iter().map(|&x| x.into())),
        // Excluded by the header check.
        _ => Box::new(std::iter::empty()),
    }
}

/// 1-based header line of `element <name>` (line 1 if not found), for header-level errors.
fn header_line_of(bytes: &[u8], name: &str) -> usize {
    Lines::new(bytes)
        .take_while(|(_, l)| !l.starts_with(b"end_header"))
        .find(|(_, l)| {
            let mut t = super::tokens(l);
            t.next() == Some(&b"element"[..]) && t.next() == Some(name.as_bytes())
        })
        .map_or(1, |(n, _)| n)
}

/// `ply_rs_bw`'s message on one line, without its own "Line n:" prefix (we add the location).
fn tidy(e: &ParseError) -> String {
    let s = e.to_string();
    let s = match s.strip_prefix("Line ") {
        Some(r) => r.split_once(": ").map_or(r, |(_, m)| m),
        None => &s,
    };
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A scalar property as f64: every PLY scalar type (8- to 32-bit integers, f32, f64)
/// converts exactly. Lists give `None`.
fn scalar_f64(p: &Property) -> Option<f64> {
    Some(match *p {
        Property::Char(v) => f64::from(v),
        Property::UChar(v) => f64::from(v),
        Property::Short(v) => f64::from(v),
        Property::UShort(v) => f64::from(v),
        Property::Int(v) => f64::from(v),
        Property::UInt(v) => f64::from(v),
        Property::Float(v) => f64::from(v),
        Property::Double(v) => v,
        _ => return None,
    })
}
