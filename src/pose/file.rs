//! `poses.csv` (`docs/FORMATS.md`, "Poses"): its three header forms ([`PoseColumns`]), a
//! streaming reader whose errors name the file, line and pose row ([`PoseReader`]), and
//! the writer.

use super::*;

/// The header of `poses.csv` that this crate writes (the scalar-first quaternion); the
/// reader accepts every [`PoseColumns`] form.
pub const POSES_HEADER: &str = "qw,qx,qy,qz,tx,ty,tz";

/// The column orders of `poses.csv`, named by its header (`docs/FORMATS.md`, "Poses").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoseColumns {
    /// `qw,qx,qy,qz,tx,ty,tz`: scalar-first quaternion ([`Pose::new`]).
    Wxyz,
    /// `qx,qy,qz,qw,tx,ty,tz`: scalar-last quaternion (SciPy's `as_quat()` order), the
    /// same pose as `Wxyz` with the quaternion's fields moved.
    Xyzw,
    /// `r00,r01,r02,r10,r11,r12,r20,r21,r22,tx,ty,tz`: a rotation matrix by rows, applied
    /// as written ([`Pose::from_rows`]).
    Matrix,
}

impl PoseColumns {
    /// Every form, in the order the docs list them.
    pub const ALL: [PoseColumns; 3] = [PoseColumns::Wxyz, PoseColumns::Xyzw, PoseColumns::Matrix];

    /// The header line of this form.
    pub fn header(self) -> &'static str {
        match self {
            PoseColumns::Wxyz => POSES_HEADER,
            PoseColumns::Xyzw => "qx,qy,qz,qw,tx,ty,tz",
            PoseColumns::Matrix => "r00,r01,r02,r10,r11,r12,r20,r21,r22,tx,ty,tz",
        }
    }

    /// The form a header names (whitespace and a byte-order mark ignored), if any.
    pub fn of_header(header: &str) -> Option<PoseColumns> {
        let h: String = header.chars().filter(|c| !c.is_whitespace()).collect();
        let h = h.trim_start_matches('\u{feff}');
        PoseColumns::ALL.into_iter().find(|c| c.header() == h)
    }

    /// Fields per row.
    pub fn fields(self) -> usize {
        self.header().split(',').count()
    }

    /// The numbers of a data row (trimmed, not blank) in this form, as written: as many
    /// fields as the header names, each a finite number; the error names the field.
    pub fn parse_fields(self, row: &str) -> Result<Vec<f64>, String> {
        let names = self.header().split(',');
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        if fields.len() != self.fields() {
            return Err(format!(
                "expected {} fields, found {}",
                self.fields(),
                fields.len()
            ));
        }
        fields
            .iter()
            .zip(names)
            .map(|(f, name)| {
                let x = f.parse::<f64>().map_err(|_| {
                    let shown = crate::error::shown(f.as_bytes());
                    format!("field {name} (`{shown}`) is not a number")
                })?;
                if x.is_finite() {
                    Ok(x)
                } else {
                    Err(format!("field {name} is not finite"))
                }
            })
            .collect()
    }

    /// The pose of one row's numbers (as many as [`PoseColumns::fields`]), checked as the
    /// file's rows are; the error says what is wrong (the caller says where).
    pub fn pose(self, v: &[f64]) -> Result<Pose, String> {
        match self {
            PoseColumns::Wxyz => pose_from_row([v[0], v[1], v[2], v[3], v[4], v[5], v[6]]),
            PoseColumns::Xyzw => pose_from_row([v[3], v[0], v[1], v[2], v[4], v[5], v[6]])
                .map_err(|m| m.replace("field qw", "field qw (4th)")),
            PoseColumns::Matrix => {
                let r = [[v[0], v[1], v[2]], [v[3], v[4], v[5]], [v[6], v[7], v[8]]];
                Pose::from_rows(r, [v[9], v[10], v[11]])
            }
        }
    }
}

/// Reads `poses.csv` one row at a time, so memory does not grow with the pose count: an
/// iterator of poses in file order. Errors name the file, the line and the pose row; after
/// an error the iterator ends.
#[derive(Debug)]
pub struct PoseReader<R> {
    path: PathBuf,
    reader: R,
    /// The current line's bytes (reused).
    line: Vec<u8>,
    /// Lines read so far (the header is line 1).
    line_no: usize,
    /// Poses returned so far.
    poses: usize,
    done: bool,
    /// The form the header named.
    columns: PoseColumns,
}

/// The longest line of `poses.csv` read (1 MiB; a row of seven shortest round-trip f64 is
/// under 200 bytes): a longer one is [`PoseError::LineTooLong`], found after reading at most
/// this many bytes of it, so a file without line breaks (`/dev/zero`) costs no memory.
pub const MAX_LINE: usize = 1 << 20;

impl PoseReader<BufReader<File>> {
    /// Opens a `poses.csv` file and checks its header.
    pub fn open(path: &Path) -> Result<Self, PoseError> {
        PoseReader::open_as(path, path)
    }

    /// Opens the file at `file` and names it `name` in errors (a copy of a pipe's poses
    /// is named after the pipe).
    pub fn open_as(file: &Path, name: &Path) -> Result<Self, PoseError> {
        let f = File::open(file).map_err(|source| PoseError::Io {
            path: name.to_path_buf(),
            source,
        })?;
        PoseReader::new(name, BufReader::new(f))
    }
}

impl<R: BufRead> PoseReader<R> {
    /// Reads `poses.csv` text from `reader` (`path` names it in errors) and checks the header.
    pub fn new(path: &Path, reader: R) -> Result<Self, PoseError> {
        let mut r = PoseReader {
            path: path.to_path_buf(),
            reader,
            line: Vec::new(),
            line_no: 0,
            poses: 0,
            done: false,
            columns: PoseColumns::Wxyz,
        };
        let header = r.next_line()?.unwrap_or_default();
        let header = header.trim();
        match PoseColumns::of_header(header) {
            Some(c) => r.columns = c,
            None => {
                return Err(PoseError::Header {
                    path: r.path,
                    found: crate::error::shown(header.as_bytes()),
                });
            }
        }
        Ok(r)
    }

    /// The form the header named.
    pub fn columns(&self) -> PoseColumns {
        self.columns
    }

    /// The next line without its line break, or `None` at the end of the file. Bytes that
    /// are not UTF-8 become U+FFFD, so the row's parse error names the line.
    fn next_line(&mut self) -> Result<Option<String>, PoseError> {
        self.line.clear();
        let n = (&mut self.reader)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut self.line)
            .map_err(|source| PoseError::Io {
                path: self.path.clone(),
                source,
            })?;
        if n == 0 {
            return Ok(None);
        }
        self.line_no += 1;
        if self.line.len() > MAX_LINE && self.line.last() != Some(&b'\n') {
            return Err(PoseError::LineTooLong {
                path: self.path.clone(),
                line: self.line_no,
                limit: MAX_LINE,
            });
        }
        Ok(Some(String::from_utf8_lossy(&self.line).into_owned()))
    }

    /// The next pose row, skipping blank lines.
    fn next_pose(&mut self) -> Result<Option<Pose>, PoseError> {
        while let Some(line) = self.next_line()? {
            let trimmed = line.trim();
            if trimmed.is_empty() {
                continue;
            }
            let pose = parse_row(trimmed, self.columns).map_err(|message| PoseError::Row {
                path: self.path.clone(),
                line: self.line_no,
                pose: self.poses,
                message,
            })?;
            self.poses += 1;
            return Ok(Some(pose));
        }
        Ok(None)
    }
}

impl<R: BufRead> Iterator for PoseReader<R> {
    type Item = Result<Pose, PoseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_pose().transpose();
        self.done = !matches!(r, Some(Ok(_)));
        r
    }
}

/// One data row (trimmed, not blank) of `poses.csv` in the form `columns`; the error says
/// what is wrong.
fn parse_row(row: &str, columns: PoseColumns) -> Result<Pose, String> {
    columns.pose(&columns.parse_fields(row)?)
}

/// The seven numbers of a data row (trimmed, not blank) of `poses.csv`, as written (the
/// quaternion not yet checked nor normalized: [`pose_from_row`] does that).
pub fn parse_fields(row: &str) -> Result<[f64; 7], String> {
    let v = PoseColumns::Wxyz.parse_fields(row)?;
    Ok(std::array::from_fn(|k| v[k]))
}

/// A pose from the seven numbers of a `poses.csv` row (`qw,qx,qy,qz,tx,ty,tz`), checked as
/// the file's rows are: finite, translation in the supported range, quaternion norm within
/// [`QUAT_NORM_TOLERANCE`] of 1. The error says what is wrong (the caller says where).
pub fn pose_from_row(v: [f64; 7]) -> Result<Pose, String> {
    let field = |k: usize| POSES_HEADER.split(',').nth(k).unwrap_or("?");
    if let Some(k) = (0..7).find(|&k| !v[k].is_finite()) {
        return Err(format!("field {} is not finite", field(k)));
    }
    check_translation(&[v[4], v[5], v[6]], &["tx", "ty", "tz"])?;
    let norm = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]).sqrt();
    if (norm - 1.0).abs() > QUAT_NORM_TOLERANCE {
        return Err(format!(
            "quaternion norm {norm} differs from 1 by more than {QUAT_NORM_TOLERANCE}"
        ));
    }
    Ok(Pose::new([v[0], v[1], v[2], v[3]], [v[4], v[5], v[6]]))
}

/// Parses `poses.csv` text. Errors name the file, the line and the pose row.
pub fn parse_poses(path: &Path, text: &str) -> Result<Vec<Pose>, PoseError> {
    PoseReader::new(path, text.as_bytes())?.collect()
}

/// Reads and parses a `poses.csv` file (all poses in memory; [`PoseReader`] streams them).
pub fn read_poses(path: &Path) -> Result<Vec<Pose>, PoseError> {
    PoseReader::open(path)?.collect()
}

/// Checks a whole `poses.csv` file and counts its poses, storing none: bad input is
/// reported (with its line) before any work, then [`PoseReader`] streams the poses.
pub fn count_poses(path: &Path) -> Result<usize, PoseError> {
    count_poses_as(path, path)
}

/// [`count_poses`] of the file at `file`, named `name` in errors.
pub fn count_poses_as(file: &Path, name: &Path) -> Result<usize, PoseError> {
    PoseReader::open_as(file, name)?.try_fold(0, |n, p| p.map(|_| n + 1))
}

/// Formats poses as `poses.csv` text.
pub fn format_poses(poses: &[Pose]) -> String {
    let mut s = String::from(POSES_HEADER);
    s.push('\n');
    for p in poses {
        s.push_str(&p.to_csv_row());
        s.push('\n');
    }
    s
}
