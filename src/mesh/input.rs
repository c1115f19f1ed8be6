//! The bytes of a mesh file as its parser reads them: streamed from any reader (a file, a
//! pipe, a gzip decoder, bytes in memory) through one buffer, so that no input is ever held
//! whole. Text comes as lines of at most [`MAX_LINE`] bytes, binary as short records; the
//! bytes taken from the reader are counted against the limit of the load
//! ([`super::input_limit`]), which stops a gzip bomb or an endless device.

use super::MAX_LINE;
use crate::error::MeshError;
use crate::error::{FIELD_SHOWN, Location, shown};
use std::io::Read;
use std::path::Path;

/// The buffer's first size, and the most bytes asked of the reader at a time until a
/// longer line needs more.
const CHUNK: usize = 256 << 10;
/// The largest buffer: a line of [`MAX_LINE`] bytes and its newline.
const MAX_BUFFER: usize = MAX_LINE + 1;

/// A mesh file being read (see the module docs).
pub(super) struct Input<'a> {
    path: &'a Path,
    reader: Box<dyn Read + 'a>,
    /// Bytes `start..end` are read and not yet consumed.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Bytes from `start` on known to hold no newline, so that a long line read in several
    /// fills is searched once.
    scanned: usize,
    eof: bool,
    /// Bytes taken from the reader so far, and the most it may give.
    read: u64,
    limit: u64,
    /// Whether `reader` unzips (for the message of the limit).
    gz: bool,
    /// The number of the last line returned (0 before the first).
    line: usize,
    /// The input's length where it is known before reading: a regular file, bytes in memory.
    len: Option<u64>,
}

impl<'a> Input<'a> {
    /// Reads `reader`, the contents of `path` (`len` bytes where known), refusing to take
    /// more than `limit` bytes from it.
    pub fn new(
        path: &'a Path,
        reader: impl Read + 'a,
        len: Option<u64>,
        limit: u64,
        gz: bool,
    ) -> Self {
        // A small input gets a small buffer: the fuzz suite loads thousands of them.
        let size = len.map_or(CHUNK, |n| (n as usize).saturating_add(1).clamp(4096, CHUNK));
        Input {
            path,
            reader: Box::new(reader),
            buf: vec![0; size],
            start: 0,
            end: 0,
            scanned: 0,
            eof: false,
            read: 0,
            limit,
            gz,
            line: 0,
            len,
        }
    }

    /// The file, for messages.
    pub fn path(&self) -> &'a Path {
        self.path
    }

    /// The number of the last line returned by [`Input::next_line`] (0 before the first).
    pub fn line(&self) -> usize {
        self.line
    }

    /// The input's length where it was known before reading (a regular file that is not
    /// gzipped, bytes in memory): binary STL is recognized by it.
    pub fn known_len(&self) -> Option<u64> {
        self.len
    }

    /// Bytes consumed so far (the offset of the next byte).
    pub fn position(&self) -> u64 {
        self.read - (self.end - self.start) as u64
    }

    /// Reads more bytes after those held, making room for at least `want` held bytes
    /// (at most [`MAX_BUFFER`]). `false` at the end of the input.
    fn fill(&mut self, want: usize) -> Result<bool, MeshError> {
        if self.eof {
            return Ok(false);
        }
        let held = self.end - self.start;
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.start = 0;
            self.end = held;
        }
        if self.end == self.buf.len() || self.buf.len() < want {
            // Doubling, but straight to the largest size rather than one byte short of it.
            let double = 2 * self.buf.len();
            let size = if double >= MAX_LINE {
                MAX_BUFFER
            } else {
                double.max(want).min(MAX_BUFFER)
            };
            debug_assert!(size > self.end, "no room to read into");
            self.buf.reserve_exact(size - self.buf.len());
            self.buf.resize(size, 0);
        }
        // One byte beyond the limit tells a longer input from one of exactly `limit` bytes.
        let allowed = self.limit.saturating_add(1).saturating_sub(self.read);
        let room = (self.buf.len() - self.end).min(usize::try_from(allowed).unwrap_or(usize::MAX));
        loop {
            match self.reader.read(&mut self.buf[self.end..self.end + room]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end += n;
                    self.read += n as u64;
                    if self.read > self.limit {
                        return Err(MeshError::TooLarge {
                            path: self.path.to_path_buf(),
                            limit: self.limit,
                            gz: self.gz,
                        });
                    }
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // A corrupt or truncated gzip stream has no line to name, so it is an Io
                // error ("cannot read: …") rather than a Parse error.
                Err(source) => {
                    return Err(MeshError::Io {
                        path: self.path.to_path_buf(),
                        source,
                    });
                }
            }
        }
    }

    /// The next line as `start..end` of [`Input::held`] (valid until the next read), without
    /// its `\n` or `\r\n`; `None` at the end. A line longer than [`MAX_LINE`] bytes is a
    /// [`MeshError::LineTooLong`], found after reading at most `MAX_LINE + 1` bytes of it.
    pub fn next_line_span(&mut self) -> Result<Option<(usize, usize)>, MeshError> {
        loop {
            let from = self.start + self.scanned;
            if let Some(i) = find_newline(&self.buf[from..self.end]) {
                let start = self.start;
                self.start = from + i + 1;
                self.scanned = 0;
                self.line += 1;
                return Ok(Some(self.without_cr(start, from + i)));
            }
            self.scanned = self.end - self.start;
            if self.scanned > MAX_LINE {
                return Err(self.line_too_long(self.line + 1, self.start));
            }
            if !self.fill(self.scanned + 1)? {
                if self.start == self.end {
                    return Ok(None);
                }
                let (start, end) = (self.start, self.end);
                self.start = end;
                self.scanned = 0;
                self.line += 1;
                return Ok(Some(self.without_cr(start, end)));
            }
        }
    }

    /// The next line (see [`Input::next_line_span`]).
    pub fn next_line(&mut self) -> Result<Option<&[u8]>, MeshError> {
        Ok(self.next_line_span()?.map(|(s, e)| &self.buf[s..e]))
    }

    /// The buffer that [`Input::next_line_span`]'s spans index.
    pub fn held(&self) -> &[u8] {
        &self.buf
    }

    fn without_cr(&self, start: usize, end: usize) -> (usize, usize) {
        if end > start && self.buf[end - 1] == b'\r' {
            (start, end - 1)
        } else {
            (start, end)
        }
    }

    /// A [`MeshError::LineTooLong`] for line `line`, which starts at `start` of the buffer.
    pub fn line_too_long(&self, line: usize, start: usize) -> MeshError {
        // Enough bytes for `FIELD_SHOWN` characters of up to 4 bytes each.
        let head = &self.buf[start..self.end.min(start + 4 * FIELD_SHOWN + 4)];
        MeshError::LineTooLong {
            path: self.path.to_path_buf(),
            location: Location::Line(line),
            max: MAX_LINE,
            start: shown(head),
        }
    }

    /// The next `n` bytes (at most [`MAX_LINE`]) without consuming them; fewer only at the
    /// end of the input.
    pub fn peek(&mut self, n: usize) -> Result<&[u8], MeshError> {
        debug_assert!(n <= MAX_LINE);
        while self.end - self.start < n && self.fill(n)? {}
        Ok(&self.buf[self.start..self.end.min(self.start + n)])
    }

    /// Consumes and returns the next `n` bytes (at most [`MAX_LINE`]); fewer only at the end
    /// of the input.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&[u8], MeshError> {
        debug_assert!(n <= MAX_LINE);
        while self.end - self.start < n && self.fill(n)? {}
        let start = self.start;
        self.start = self.end.min(start + n);
        self.scanned = 0;
        Ok(&self.buf[start..self.start])
    }

    /// Consumes up to `n` bytes; the count consumed (fewer only at the end of the input).
    pub fn skip(&mut self, mut n: u64) -> Result<u64, MeshError> {
        let wanted = n;
        while n > 0 {
            let k = self.bytes(n.min(CHUNK as u64) as usize)?.len();
            if k == 0 {
                break;
            }
            n -= k as u64;
        }
        Ok(wanted - n)
    }
}

/// The index of the first `\n` of `bytes`, eight bytes at a time (a `position` loop does
/// one, and line search is a good part of reading a text mesh).
#[inline]
fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NL: u64 = ONES * b'\n' as u64;
    let mut chunks = bytes.chunks_exact(8);
    for (k, chunk) in chunks.by_ref().enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().unwrap()) ^ NL;
        // A zero byte of `word` sets its high bit here (the lowest such byte is exact).
        let zero = word.wrapping_sub(ONES) & !word & HIGHS;
        if zero != 0 {
            return Some(8 * k + (zero.trailing_zeros() / 8) as usize);
        }
    }
    let rest = chunks.remainder();
    rest.iter()
        .position(|&b| b == b'\n')
        .map(|i| bytes.len() - rest.len() + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(bytes: &[u8]) -> Input<'_> {
        Input::new(Path::new("t.obj"), bytes, None, u64::MAX, false)
    }

    #[test]
    fn newline_search_agrees_with_position() {
        let mut bytes = vec![b'a'; 40];
        assert_eq!(find_newline(&bytes), None);
        for i in 0..40 {
            bytes[i] = b'\n';
            for start in 0..=i {
                assert_eq!(
                    find_newline(&bytes[start..]),
                    Some(i - start),
                    "{i} {start}"
                );
            }
            // Bytes that differ from '\n' in one bit, after the newline, change nothing.
            bytes[i] = b'\n' ^ 0x80;
        }
    }

    #[test]
    fn lines_count_and_strip_cr() {
        let mut r = input(b"a\r\n\nb");
        let mut lines = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            lines.push(l.to_vec());
            assert_eq!(r.line(), lines.len());
        }
        assert_eq!(lines, vec![b"a".to_vec(), b"".to_vec(), b"b".to_vec()]);
    }

    /// Lines across many fills of a reader that gives a few bytes at a time.
    #[test]
    fn lines_cross_reads() {
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(3);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let text: Vec<u8> = (0..1000)
            .flat_map(|i| format!("line {i} {}\n", "x".repeat(i % 50)).into_bytes())
            .collect();
        let mut r = Input::new(Path::new("t.obj"), Trickle(&text), None, u64::MAX, false);
        let mut n = 0;
        while let Some(l) = r.next_line().unwrap() {
            assert_eq!(l, format!("line {n} {}", "x".repeat(n % 50)).as_bytes());
            n += 1;
        }
        assert_eq!(n, 1000);
    }

    /// A line of `MAX_LINE` bytes reads; one byte more is refused after reading about that
    /// much, also from an endless reader.
    #[test]
    fn long_lines_are_refused_early() {
        let mut ok = vec![b'x'; MAX_LINE];
        ok.push(b'\n');
        ok.extend_from_slice(b"next");
        let mut r = input(&ok);
        assert_eq!(r.next_line().unwrap().unwrap().len(), MAX_LINE);
        assert_eq!(r.next_line().unwrap().unwrap(), b"next");
        let mut r = Input::new(
            Path::new("zero.obj"),
            std::io::repeat(0),
            None,
            u64::MAX,
            false,
        );
        match r.next_line() {
            Err(MeshError::LineTooLong { location, .. }) => {
                assert_eq!(location, Location::Line(1))
            }
            other => panic!("{other:?}"),
        }
        assert!(r.position() <= MAX_BUFFER as u64 + CHUNK as u64);
    }

    #[test]
    fn the_limit_counts_bytes_read() {
        let text = vec![b'\n'; 1000];
        let mut r = Input::new(Path::new("t.obj"), &text[..], None, 999, true);
        let e = loop {
            match r.next_line() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("read past the limit"),
                Err(e) => break e,
            }
        };
        assert!(
            matches!(
                e,
                MeshError::TooLarge {
                    limit: 999,
                    gz: true,
                    ..
                }
            ),
            "{e:?}"
        );
        let mut r = Input::new(Path::new("t.obj"), &text[..], None, 1000, true);
        let mut n = 0;
        while r.next_line().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, 1000);
    }

    #[test]
    fn bytes_and_peek() {
        let data: Vec<u8> = (0..=255).collect();
        let mut r = input(&data);
        assert_eq!(r.peek(4).unwrap(), &[0, 1, 2, 3]);
        assert_eq!(r.bytes(3).unwrap(), &[0, 1, 2]);
        assert_eq!(r.position(), 3);
        assert_eq!(r.skip(250).unwrap(), 250);
        assert_eq!(r.bytes(10).unwrap(), &[253, 254, 255]);
        assert_eq!(r.bytes(1).unwrap(), &[] as &[u8]);
    }
}
