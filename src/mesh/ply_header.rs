//! The header of a PLY file, read a line at a time: `ply`, `format <encoding> <version>`,
//! `comment …` and `obj_info …` lines, `element <name> <count>`, `property <type> <name>`
//! and `property list <count type> <item type> <name>`, `end_header`. The grammar is
//! `ply_rs_bw`'s, which this crate used before it streamed (types `char`/`int8` …
//! `double`/`float64`, names `[A-Za-z_][A-Za-z0-9_-]*`, counts of decimal digits), with
//! two differences on files that were broken anyway: a name defined twice (element, or
//! property of one element) is an error rather than a silent replacement, and comments
//! need not be UTF-8.

use super::input::Input;
use super::parse_error;
use crate::error::MeshError;
use crate::error::{Location, shown};

/// How the records after the header are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Encoding {
    Ascii,
    BinaryLittleEndian,
    BinaryBigEndian,
}

/// A PLY scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scalar {
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Float,
    Double,
}

impl Scalar {
    fn from_name(name: &[u8]) -> Option<Scalar> {
        Some(match name {
            b"char" | b"int8" => Scalar::Char,
            b"uchar" | b"uint8" => Scalar::UChar,
            b"short" | b"int16" => Scalar::Short,
            b"ushort" | b"uint16" => Scalar::UShort,
            b"int" | b"int32" => Scalar::Int,
            b"uint" | b"uint32" => Scalar::UInt,
            b"float" | b"float32" => Scalar::Float,
            b"double" | b"float64" => Scalar::Double,
            _ => return None,
        })
    }

    /// Bytes of one value in a binary file.
    pub fn size(self) -> usize {
        match self {
            Scalar::Char | Scalar::UChar => 1,
            Scalar::Short | Scalar::UShort => 2,
            Scalar::Int | Scalar::UInt | Scalar::Float => 4,
            Scalar::Double => 8,
        }
    }

    pub fn is_integer(self) -> bool {
        !matches!(self, Scalar::Float | Scalar::Double)
    }

    /// The type's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Char => "char",
            Scalar::UChar => "uchar",
            Scalar::Short => "short",
            Scalar::UShort => "ushort",
            Scalar::Int => "int",
            Scalar::UInt => "uint",
            Scalar::Float => "float",
            Scalar::Double => "double",
        }
    }
}

/// A property's type: one value, or a list of values preceded by their count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Type {
    Scalar(Scalar),
    List { count: Scalar, item: Scalar },
}

/// `property <type> <name>`.
#[derive(Debug)]
pub(super) struct Property {
    pub name: String,
    pub ty: Type,
}

/// `element <name> <count>` and its properties, in file order.
#[derive(Debug)]
pub(super) struct Element {
    pub name: String,
    pub count: u64,
    /// The header line of `element <name>`, which errors about the element name.
    pub line: usize,
    pub properties: Vec<Property>,
}

impl Element {
    /// The property named `name`.
    pub fn property(&self, name: &str) -> Option<(usize, &Property)> {
        self.properties
            .iter()
            .enumerate()
            .find(|(_, p)| p.name == name)
    }
}

/// A PLY header.
#[derive(Debug)]
pub(super) struct Header {
    pub encoding: Encoding,
    pub elements: Vec<Element>,
    /// The number of header lines (`end_header` included): the first record's line is one
    /// more.
    pub lines: usize,
}

impl Header {
    /// The element named `name`.
    pub fn element(&self, name: &str) -> Option<&Element> {
        self.elements.iter().find(|e| e.name == name)
    }
}

/// The most properties a header may define, all elements together, and the most bytes of
/// names: the definitions are held while the records are read, and real headers define a
/// few dozen (comments, which may be long, are not held).
const MAX_PROPERTIES: usize = 1 << 16;
const MAX_NAME_BYTES: usize = 1 << 20;

/// Reads the header, leaving `input` on the first byte after the `end_header` line.
pub(super) fn read(input: &mut Input) -> Result<Header, MeshError> {
    let path = input.path();
    // Before reading a line: `/dev/zero` or a binary file is refused from its first bytes,
    // not after a megabyte of "line".
    let magic = input.peek(4)?;
    if !magic.starts_with(b"ply") || magic.get(3).is_some_and(|&b| !b" \t\r\n".contains(&b)) {
        return Err(parse_error(
            path,
            Location::Line(1),
            format!(
                "not a PLY file: it starts with `{}`, not `ply`",
                shown(magic)
            ),
        ));
    }
    let mut format: Option<(Encoding, (u16, u8))> = None;
    let mut elements: Vec<Element> = Vec::new();
    let (mut properties, mut name_bytes) = (0usize, 0usize);
    // Names defined so far: elements, and the properties of the last element (a set, so
    // that a header of many properties is not read in quadratic time).
    let mut element_names = std::collections::HashSet::new();
    let mut property_names = std::collections::HashSet::new();
    loop {
        let line_no = input.line() + 1;
        let Some(line) = input.next_line()? else {
            return Err(parse_error(
                path,
                Location::Line(line_no),
                "the file ends in the header (no `end_header` line)",
            ));
        };
        let at = Location::Line(line_no);
        let error = |message: String| Err(parse_error(path, at, message));
        let mut words = line
            .split(|&b| b == b' ' || b == b'\t')
            .filter(|w| !w.is_empty());
        let keyword = words.next().unwrap_or(b"");
        if at == Location::Line(1) {
            if keyword != b"ply" || words.next().is_some() {
                return error(format!("expected `ply`, found `{}`", shown(line)));
            }
            continue;
        }
        let words: Vec<&[u8]> = match keyword {
            // Free text, any bytes.
            b"comment" | b"obj_info" => continue,
            _ => words.collect(),
        };
        if keyword == b"element" || keyword == b"property" {
            properties += 1;
            name_bytes += words.iter().map(|w| w.len()).sum::<usize>();
            if properties > MAX_PROPERTIES || name_bytes > MAX_NAME_BYTES {
                return error(format!(
                    "the header defines more than {MAX_PROPERTIES} elements and properties \
                     or {MAX_NAME_BYTES} bytes of names"
                ));
            }
        }
        match (keyword, &words[..]) {
            (b"end_header", []) => break,
            (b"format", [encoding, version]) => {
                let encoding = match *encoding {
                    b"ascii" => Encoding::Ascii,
                    b"binary_little_endian" => Encoding::BinaryLittleEndian,
                    b"binary_big_endian" => Encoding::BinaryBigEndian,
                    other => {
                        return error(format!("unknown PLY format `{}`", shown(other)));
                    }
                };
                let Some(version) = version_of(version) else {
                    return error(format!("bad PLY version `{}`", shown(version)));
                };
                match format {
                    Some(f) if f != (encoding, version) => {
                        return error("a second `format` line that contradicts the first".into());
                    }
                    _ => format = Some((encoding, version)),
                }
            }
            (b"element", [name, count]) => {
                let name = ident(name).ok_or_else(|| {
                    parse_error(path, at, format!("bad element name `{}`", shown(name)))
                })?;
                let count = digits(count).ok_or_else(|| {
                    parse_error(path, at, format!("bad element count `{}`", shown(count)))
                })?;
                if !element_names.insert(name.clone()) {
                    return error(format!("element `{name}` is defined twice"));
                }
                property_names.clear();
                elements.push(Element {
                    name,
                    count,
                    line: line_no,
                    properties: Vec::new(),
                });
            }
            (b"property", [types @ .., name]) if !types.is_empty() => {
                let ty = match *types {
                    [t] => Scalar::from_name(t).map(Type::Scalar),
                    [b"list", count, item] => Scalar::from_name(count)
                        .zip(Scalar::from_name(item))
                        .map(|(count, item)| Type::List { count, item }),
                    _ => None,
                };
                let Some(ty) = ty else {
                    return error(format!("bad property line `{}`", shown(line)));
                };
                let Some(name) = ident(name) else {
                    return error(format!("bad property name `{}`", shown(name)));
                };
                let Some(element) = elements.last_mut() else {
                    return error(format!("property `{name}` before any element"));
                };
                if !property_names.insert(name.clone()) {
                    return error(format!(
                        "property `{name}` of element `{}` is defined twice",
                        element.name
                    ));
                }
                element.properties.push(Property { name, ty });
            }
            (b"ply", _) => return error("a second `ply` line".into()),
            _ => {
                return error(format!("`{}` is not a PLY header line", shown(line)));
            }
        }
    }
    let Some((encoding, _)) = format else {
        return Err(parse_error(
            path,
            Location::Line(input.line()),
            "no `format` line in the header",
        ));
    };
    Ok(Header {
        encoding,
        elements,
        lines: input.line(),
    })
}

/// `major.minor` with a 16-bit major and an 8-bit minor, as `ply_rs_bw` accepted.
fn version_of(word: &[u8]) -> Option<(u16, u8)> {
    let s = std::str::from_utf8(word).ok()?;
    let (major, minor) = s.split_once('.')?;
    let all_digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !all_digits(major) || !all_digits(minor) {
        return None;
    }
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// A name: `[A-Za-z_][A-Za-z0-9_-]*`.
fn ident(word: &[u8]) -> Option<String> {
    let (&first, rest) = word.split_first()?;
    let ok = (first.is_ascii_alphabetic() || first == b'_')
        && rest
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ok.then(|| String::from_utf8_lossy(word).into_owned())
}

/// A count of decimal digits only.
fn digits(word: &[u8]) -> Option<u64> {
    if word.is_empty() || !word.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(word).ok()?.parse().ok()
}
