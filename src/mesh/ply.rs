//! PLY reader (ASCII, binary little and big endian), streamed: the header
//! ([`super::ply_header`]), then the records of every element in file order, each `vertex`
//! record a vertex and each `face` record its fan triangles at once, other elements read
//! past; nothing is held per record but one face's vertex list. Our own record reader
//! rather than `ply_rs_bw`'s: its header reader has no line limit, and its lists are read
//! whole before anything could check their length against the memory limit.
//!
//! Locations: ASCII: `Line(n)`, the 1-based file line (header lines + row, one row per line).
//! Binary: `Vertex(i)` / `Face(i)`, the 0-based record of the `vertex` / `face` element; a
//! broken record of any other element is reported as `Line(header lines + 1 + records before
//! it)`, the convention `ply_rs_bw` used, and the message names the element and record.
//!
//! ASCII rows follow `ply_rs_bw`'s grammar: values separated by spaces or tabs, each of the
//! form `[-+]digits[.digits][(e|E)[-+]digits]` and valid for its property's type, extra
//! values ignored; `x`, `y`, `z` of type `float` are read as `double`, so that each is
//! rounded once, to the nearest f64, like OBJ and ASCII STL (the type only tells how a writer
//! stored them; the text is what the file says). Binary values of every type convert exactly.

use super::builder::MeshBuilder;
use super::input::Input;
use super::parse_error;
use super::ply_header::{self, Element, Encoding, Scalar, Type};
use crate::error::MeshError;
use crate::error::{Location, shown};

/// The two property names in use for a face's vertex list.
const INDEX_NAMES: [&str; 2] = ["vertex_indices", "vertex_index"];
/// List items read from a binary record at a time.
const ITEMS_AT_ONCE: u64 = 4096;

/// What a property's values become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Coordinate `k` of a `vertex`.
    Axis(usize),
    /// The vertex list of a `face`.
    Indices,
    /// Read past (checked for form in ASCII).
    Ignored,
}

/// One property of an element as the record reader needs it.
#[derive(Debug, Clone, Copy)]
struct Field {
    ty: Type,
    role: Role,
}

/// What one record gave.
struct Record {
    /// The vertex's coordinates.
    p: [f64; 3],
    /// The face's vertex indices in range.
    poly: Vec<u32>,
    /// The face's first index out of range (reported once the record is read whole).
    bad: Option<i64>,
}

/// Why a record could not be read.
enum RecordError {
    /// The ASCII text ended before the row.
    Eof,
    /// The binary data ended inside the record.
    Truncated,
    /// An ASCII row holds `nan` or `inf`: reported as `NonFinite` like a binary NaN, not as
    /// a parse error.
    NonFinite,
    /// Malformed: what is wrong, for the user.
    Bad(String),
    /// Reading failed (I/O, the byte limit, the memory limit).
    Mesh(MeshError),
}

impl From<MeshError> for RecordError {
    fn from(e: MeshError) -> Self {
        RecordError::Mesh(e)
    }
}

pub(super) fn parse(input: &mut Input, mesh: &mut MeshBuilder) -> Result<(), MeshError> {
    let path = input.path();
    let header = ply_header::read(input)?;

    // Check the header's promises before reading any record, so errors name the header line.
    let vertex_count = header.element("vertex").map_or(0, |e| e.count);
    if let Some(def) = header.element("vertex") {
        for axis in ["x", "y", "z"] {
            if !matches!(def.property(axis), Some((_, p)) if matches!(p.ty, Type::Scalar(_))) {
                return Err(parse_error(
                    path,
                    Location::Line(def.line),
                    format!("element `vertex` has no numeric property `{axis}`"),
                ));
            }
        }
    }
    let mut index_list = None;
    if let Some(def) = header.element("face") {
        let list = INDEX_NAMES.iter().find_map(|n| def.property(n));
        match list {
            Some((j, p)) if matches!(p.ty, Type::List { item, .. } if item.is_integer()) => {
                index_list = Some(j);
            }
            _ => {
                return Err(parse_error(
                    path,
                    Location::Line(def.line),
                    "element `face` has no integer list `vertex_indices` or `vertex_index`",
                ));
            }
        }
    }
    // A header that declares more than the memory limit holds is refused here, before
    // anything is allocated (each face is at least one triangle).
    let face_count = header.element("face").map_or(0, |e| e.count);
    if let Some(def) = header.element("vertex") {
        mesh.check_declared(vertex_count, 0, Location::Line(def.line), || {
            format!("{vertex_count} vertices")
        })?;
    }
    if let Some(def) = header.element("face") {
        mesh.check_declared(vertex_count, face_count, Location::Line(def.line), || {
            format!("{vertex_count} vertices and {face_count} faces")
        })?;
    }
    reserve(input, mesh, &header);

    let first_row = header.lines as u64 + 1;
    let mut records_before = 0u64;
    let mut record = Record {
        p: [0.0; 3],
        poly: Vec::new(),
        bad: None,
    };
    for def in &header.elements {
        let fields: Vec<Field> = def
            .properties
            .iter()
            .enumerate()
            .map(|(j, p)| Field {
                ty: p.ty,
                role: match def.name.as_str() {
                    "vertex" => ["x", "y", "z"]
                        .iter()
                        .position(|a| *a == p.name)
                        .map_or(Role::Ignored, Role::Axis),
                    "face" if Some(j) == index_list => Role::Indices,
                    _ => Role::Ignored,
                },
            })
            .collect();
        // A record of scalars only has one size: read at once.
        let fixed: Option<usize> = fields
            .iter()
            .map(|f| match f.ty {
                Type::Scalar(s) => Some(s.size()),
                Type::List { .. } => None,
            })
            .sum();
        for i in 0..def.count {
            let row_line = (first_row + records_before + i) as usize;
            let at = match (header.encoding, def.name.as_str()) {
                (Encoding::Ascii, _) => Location::Line(row_line),
                (_, "vertex") => Location::Vertex(i as usize),
                (_, "face") => Location::Face(i as usize),
                _ => Location::Line(row_line),
            };
            record.poly.clear();
            record.bad = None;
            let read = match header.encoding {
                Encoding::Ascii => read_ascii(input, &fields, vertex_count, &mut record),
                Encoding::BinaryLittleEndian | Encoding::BinaryBigEndian => {
                    let big = header.encoding == Encoding::BinaryBigEndian;
                    let ctx = Binary {
                        big,
                        vertex_count,
                        fixed,
                        mesh,
                        at,
                    };
                    read_binary(input, &ctx, &fields, &mut record)
                }
            };
            read.map_err(|e| record_error(path, at, def, i, e))?;
            match def.name.as_str() {
                "vertex" => mesh.push_vertex(record.p, at)?,
                "face" => {
                    if let Some(index) = record.bad {
                        return Err(MeshError::MissingVertex {
                            path: path.to_path_buf(),
                            location: at,
                            index,
                            count: vertex_count as usize,
                        });
                    }
                    if record.poly.len() < 3 {
                        return Err(parse_error(
                            path,
                            at,
                            format!(
                                "face with {} vertices (at least 3 needed)",
                                record.poly.len()
                            ),
                        ));
                    }
                    mesh.push_fan(&record.poly, at)?;
                }
                _ => {}
            }
        }
        records_before += def.count;
    }
    Ok(())
}

/// Reserves the vertex and triangle arrays for the header's counts: all of them where the
/// input's known length can hold that many records, else a bounded start.
fn reserve(input: &Input, mesh: &mut MeshBuilder, header: &ply_header::Header) {
    let count = |name| header.element(name).map_or(0, |e: &Element| e.count);
    let (vertices, faces) = (count("vertex"), count("face"));
    match input.known_len() {
        Some(len) => {
            let left = len.saturating_sub(input.position());
            let most = |name| {
                header
                    .element(name)
                    .map_or(0, |e| left / smallest_record(e, header.encoding).max(1))
            };
            mesh.reserve(vertices.min(most("vertex")), faces.min(most("face")), true);
        }
        None => mesh.reserve(vertices, faces, false),
    }
}

/// The fewest bytes a record of `element` takes: every value one digit and a separator in
/// ASCII, every list empty in binary.
fn smallest_record(element: &Element, encoding: Encoding) -> u64 {
    element
        .properties
        .iter()
        .map(|p| match (encoding, p.ty) {
            (Encoding::Ascii, _) => 2,
            (_, Type::Scalar(s) | Type::List { count: s, .. }) => s.size() as u64,
        })
        .sum()
}

/// The located error for record `i` of `def`.
fn record_error(
    path: &std::path::Path,
    at: Location,
    def: &Element,
    i: u64,
    e: RecordError,
) -> MeshError {
    let name = shown(def.name.as_bytes());
    match e {
        RecordError::Eof => parse_error(
            path,
            at,
            format!("file ends after {i} of the {} `{name}` rows", def.count),
        ),
        RecordError::Truncated => parse_error(
            path,
            at,
            format!("element `{name}` record {i}: file ends inside the record"),
        ),
        RecordError::NonFinite => MeshError::NonFinite {
            path: path.to_path_buf(),
            location: at,
        },
        RecordError::Bad(what) => {
            parse_error(path, at, format!("element `{name}` record {i}: {what}"))
        }
        RecordError::Mesh(e) => e,
    }
}

/// A face index as read: kept if it names a vertex, else the first bad one remembered.
#[inline]
fn note_index(record: &mut Record, index: i64, vertex_count: u64) {
    match u32::try_from(index) {
        Ok(v) if u64::from(v) < vertex_count => record.poly.push(v),
        _ => {
            record.bad.get_or_insert(index);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// ASCII

/// Reads one ASCII row into `record`.
fn read_ascii(
    input: &mut Input,
    fields: &[Field],
    vertex_count: u64,
    record: &mut Record,
) -> Result<(), RecordError> {
    let row = input.next_line()?.ok_or(RecordError::Eof)?;
    ascii_row(row, fields, vertex_count, record).map_err(|e| {
        // `nan` and `inf` are no numbers of the grammar, and a huge exponent reads as
        // infinity: either way the row holds a non-finite value.
        let non_finite = values(row).any(|t| {
            std::str::from_utf8(t)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .is_some_and(|v| !v.is_finite())
        });
        if non_finite {
            RecordError::NonFinite
        } else {
            e
        }
    })
}

/// The values of a row: separated by spaces or tabs.
fn values(row: &[u8]) -> impl Iterator<Item = &[u8]> {
    row.split(|&b| b == b' ' || b == b'\t')
        .filter(|t| !t.is_empty())
}

fn ascii_row(
    row: &[u8],
    fields: &[Field],
    vertex_count: u64,
    record: &mut Record,
) -> Result<(), RecordError> {
    let mut vals = values(row);
    let mut next = |ty: Scalar| -> Result<&[u8], RecordError> {
        let v = vals.next().ok_or_else(|| {
            RecordError::Bad(format!(
                "expected a {} value, found the end of the row",
                ty.name()
            ))
        })?;
        if !is_number(v) {
            return Err(RecordError::Bad(format!("`{}` is not a number", shown(v))));
        }
        Ok(v)
    };
    for field in fields {
        match (field.ty, field.role) {
            (Type::Scalar(ty), Role::Axis(k)) => {
                let v = next(ty)?;
                record.p[k] = if ty.is_integer() {
                    ascii_int(ty, v)? as f64
                } else {
                    // Decimal text: rounded once, to the nearest f64 (see the module docs).
                    ascii_value::<f64>(ty, v)?
                };
            }
            (Type::Scalar(ty), _) => check_ascii(ty, next(ty)?)?,
            (Type::List { count, item }, role) => {
                let n: u64 = ascii_value(count, next(count)?)?;
                for _ in 0..n {
                    let v = next(item)?;
                    if role == Role::Indices {
                        note_index(record, ascii_int(item, v)?, vertex_count);
                    } else {
                        check_ascii(item, v)?;
                    }
                }
            }
        }
    }
    // Values beyond the properties are ignored, but must be numbers all the same.
    match vals.find(|v| !is_number(v)) {
        Some(v) => Err(RecordError::Bad(format!("`{}` is not a number", shown(v)))),
        None => Ok(()),
    }
}

/// `[-+]digits[.digits][(e|E)[-+]digits]`: a number of `ply_rs_bw`'s grammar.
fn is_number(t: &[u8]) -> bool {
    let digits = |t: &[u8]| t.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut i = usize::from(matches!(t.first(), Some(b'-' | b'+')));
    let n = digits(&t[i..]);
    if n == 0 {
        return false;
    }
    i += n;
    if t.get(i) == Some(&b'.') {
        let n = digits(&t[i + 1..]);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        i += usize::from(matches!(t.get(i), Some(b'-' | b'+')));
        let n = digits(&t[i..]);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == t.len()
}

/// A value of the grammar (ASCII) parsed as `T` by `str::parse`.
fn ascii_value<T: std::str::FromStr>(ty: Scalar, v: &[u8]) -> Result<T, RecordError> {
    std::str::from_utf8(v)
        .ok()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| RecordError::Bad(format!("`{}` is not a {} value", shown(v), ty.name())))
}

/// An integer value of type `ty` (ASCII), widened to i64.
fn ascii_int(ty: Scalar, v: &[u8]) -> Result<i64, RecordError> {
    Ok(match ty {
        Scalar::Char => ascii_value::<i8>(ty, v)?.into(),
        Scalar::UChar => ascii_value::<u8>(ty, v)?.into(),
        Scalar::Short => ascii_value::<i16>(ty, v)?.into(),
        Scalar::UShort => ascii_value::<u16>(ty, v)?.into(),
        Scalar::Int => ascii_value::<i32>(ty, v)?.into(),
        Scalar::UInt => ascii_value::<u32>(ty, v)?.into(),
        Scalar::Float | Scalar::Double => {
            return Err(RecordError::Bad(format!(
                "`{}` is not an integer value",
                shown(v)
            )));
        }
    })
}

/// Checks that a value read past is valid for its type, as `ply_rs_bw` did.
fn check_ascii(ty: Scalar, v: &[u8]) -> Result<(), RecordError> {
    match ty {
        Scalar::Float => ascii_value::<f32>(ty, v).map(drop),
        Scalar::Double => ascii_value::<f64>(ty, v).map(drop),
        _ => ascii_int(ty, v).map(drop),
    }
}

// ---------------------------------------------------------------------------------------------
// Binary

/// What reading a binary record needs besides the input.
struct Binary<'m, 'a> {
    big: bool,
    vertex_count: u64,
    /// The record's size when it has no list.
    fixed: Option<usize>,
    /// For the memory limit on a face's list.
    mesh: &'m MeshBuilder<'a>,
    at: Location,
}

/// Reads one binary record into `record`.
fn read_binary(
    input: &mut Input,
    ctx: &Binary,
    fields: &[Field],
    record: &mut Record,
) -> Result<(), RecordError> {
    if let Some(size) = ctx.fixed {
        let bytes = input.bytes(size)?;
        if bytes.len() < size {
            return Err(RecordError::Truncated);
        }
        let mut offset = 0;
        for field in fields {
            let Type::Scalar(ty) = field.ty else {
                unreachable!("a fixed-size record has scalars only")
            };
            if let Role::Axis(k) = field.role {
                record.p[k] = binary_f64(ty, &bytes[offset..], ctx.big);
            }
            offset += ty.size();
        }
        return Ok(());
    }
    for field in fields {
        match field.ty {
            Type::Scalar(ty) => {
                let bytes = input.bytes(ty.size())?;
                if bytes.len() < ty.size() {
                    return Err(RecordError::Truncated);
                }
                if let Role::Axis(k) = field.role {
                    record.p[k] = binary_f64(ty, bytes, ctx.big);
                }
            }
            Type::List { count, item } => {
                let bytes = input.bytes(count.size())?;
                if bytes.len() < count.size() {
                    return Err(RecordError::Truncated);
                }
                let n = binary_count(count, bytes, ctx.big)?;
                if field.role != Role::Indices {
                    let len = n.saturating_mul(item.size() as u64);
                    if input.skip(len)? < len {
                        return Err(RecordError::Truncated);
                    }
                    continue;
                }
                // A list longer than the rest of a file of known length is cut short.
                let len = n.saturating_mul(item.size() as u64);
                if input
                    .known_len()
                    .is_some_and(|total| len > total.saturating_sub(input.position()))
                {
                    return Err(RecordError::Truncated);
                }
                // The list is held (4 bytes an index) before its fan is pushed: refuse one
                // whose fan could not be.
                ctx.mesh.check_polygon(n, ctx.at)?;
                let mut left = n;
                while left > 0 {
                    let k = left.min(ITEMS_AT_ONCE) as usize;
                    let bytes = input.bytes(k * item.size())?;
                    if bytes.len() < k * item.size() {
                        return Err(RecordError::Truncated);
                    }
                    for value in bytes.chunks_exact(item.size()) {
                        note_index(record, binary_int(item, value, ctx.big), ctx.vertex_count);
                    }
                    left -= k as u64;
                }
            }
        }
    }
    Ok(())
}

/// Reads a fixed-size number of type `$t` from the start of `$bytes` in the file's byte
/// order.
macro_rules! number {
    ($t:ty, $bytes:expr, $big:expr) => {{
        let a = $bytes[..std::mem::size_of::<$t>()].try_into().unwrap();
        if $big {
            <$t>::from_be_bytes(a)
        } else {
            <$t>::from_le_bytes(a)
        }
    }};
}

/// A binary value as f64: every PLY scalar type converts exactly.
#[inline]
fn binary_f64(ty: Scalar, bytes: &[u8], big: bool) -> f64 {
    match ty {
        Scalar::Char => f64::from(bytes[0] as i8),
        Scalar::UChar => f64::from(bytes[0]),
        Scalar::Short => f64::from(number!(i16, bytes, big)),
        Scalar::UShort => f64::from(number!(u16, bytes, big)),
        Scalar::Int => f64::from(number!(i32, bytes, big)),
        Scalar::UInt => f64::from(number!(u32, bytes, big)),
        Scalar::Float => f64::from(number!(f32, bytes, big)),
        Scalar::Double => number!(f64, bytes, big),
    }
}

/// A binary integer widened to i64 (the header check leaves no float face list).
#[inline]
fn binary_int(ty: Scalar, bytes: &[u8], big: bool) -> i64 {
    match ty {
        Scalar::Char => i64::from(bytes[0] as i8),
        Scalar::UChar => i64::from(bytes[0]),
        Scalar::Short => i64::from(number!(i16, bytes, big)),
        Scalar::UShort => i64::from(number!(u16, bytes, big)),
        Scalar::Int => i64::from(number!(i32, bytes, big)),
        Scalar::UInt => i64::from(number!(u32, bytes, big)),
        Scalar::Float | Scalar::Double => unreachable!("float face lists are refused"),
    }
}

/// A list's length: of an integer type, not negative.
fn binary_count(ty: Scalar, bytes: &[u8], big: bool) -> Result<u64, RecordError> {
    if !ty.is_integer() {
        return Err(RecordError::Bad(format!(
            "the length of a list is of type {}, not an integer type",
            ty.name()
        )));
    }
    u64::try_from(binary_int(ty, bytes, big))
        .map_err(|_| RecordError::Bad("negative list length".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_the_grammar() {
        for good in ["0", "-1", "+2.5", "3e5", "1.25E-7", "007"] {
            assert!(is_number(good.as_bytes()), "{good}");
        }
        for bad in [
            "", "-", ".5", "5.", "1e", "1e+", "nan", "inf", "1.2.3", "0x1", "1 ",
        ] {
            assert!(!is_number(bad.as_bytes()), "{bad}");
        }
    }
}
