//! Reading a `.mch` file's bytes with a bound: the header first, then exactly the length
//! it describes, refused above [`crate::mesh::load::input_limit`] before anything beyond
//! the header is read or allocated. A pipe or a FIFO has no length to check beforehand, so
//! a crafted header must not make the reader reserve what it claims: the buffer grows with
//! the bytes that arrive (at most twice them, as `Read::read_to_end` grows), and a stream
//! that ends early is a length error holding no more than it sent.

use super::format::{self, HEADER};
use crate::error::SavedError;
use std::io::Read;
use std::path::Path;

/// Trailing bytes counted for a length error beyond the byte that revealed them.
const TRAILING_COUNTED: u64 = 1 << 20;

/// Reads the whole file from `reader` and checks its length against its header. `file_len`
/// is the length of a regular file (metadata), if known: a file of the wrong length is then
/// refused before its body is read, and the buffer is allocated once, exactly.
pub(super) fn read_bounded(
    path: &Path,
    mut reader: impl Read,
    file_len: Option<u64>,
) -> Result<Vec<u8>, SavedError> {
    let io = |source| SavedError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut head = [0u8; HEADER];
    let got = read_up_to(&mut reader, &mut head).map_err(io)?;
    let len_so_far = file_len.unwrap_or(got as u64);
    format::check_start(path, &head[..got], len_so_far)?;
    let expected = format::expected_len(path, &head)?;
    let limit = crate::mesh::load::input_limit();
    if expected > limit {
        return Err(SavedError::TooLarge {
            path: path.to_path_buf(),
            expected,
            limit,
        });
    }
    if let Some(len) = file_len
        && len != expected
    {
        return Err(format::length_error(path, len, expected));
    }
    // `expected` is below the limit, so it fits in memory (and in usize).
    let total = expected as usize;
    let mut bytes = Vec::with_capacity(match file_len {
        Some(_) => total + 1,
        None => HEADER,
    });
    bytes.extend_from_slice(&head);
    // Fill the capacity, then double it (never past one byte more than the header
    // describes, which tells trailing bytes from the end): the buffer is at most twice what
    // has arrived. `take` stops each read at the capacity, so `read_to_end` never grows it.
    loop {
        let room = bytes.capacity() - bytes.len();
        let got = (&mut reader)
            .take(room as u64)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if got < room || bytes.len() > total {
            break;
        }
        bytes.reserve_exact(bytes.len().min(total + 1 - bytes.len()));
    }
    let read = bytes.len() as u64;
    if read < expected {
        return Err(format::length_error(path, read, expected));
    }
    if read > expected {
        // Count what follows (without keeping it) so the error says how long the file is,
        // up to 1 MiB more: an endless stream is not read to its end (the count is then a
        // lower bound).
        let rest =
            std::io::copy(&mut reader.take(TRAILING_COUNTED), &mut std::io::sink()).map_err(io)?;
        return Err(format::length_error(path, read + rest, expected));
    }
    Ok(bytes)
}

/// Reads until `buf` is full or the input ends (a pipe may deliver fewer bytes per read);
/// the count read.
pub(super) fn read_up_to(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
