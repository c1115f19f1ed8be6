//! Rigid poses of the flying mesh B in the frame of A, and the `poses.csv` format of
//! `docs/FORMATS.md`.
//!
//! Every stage that needs B's vertices in A's frame (tumbling, the triangle tests, the brute
//! force oracle) goes through [`Pose::apply`], so the same input gives the same f64 bits
//! everywhere and the reference and the oracle decide every borderline pair identically.

use crate::error::PoseError;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// A rigid transform `p ↦ R(q)·p + t`, with `q` normalized and `R` precomputed in f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Unit quaternion `(w, x, y, z)`.
    pub q: [f64; 4],
    /// Translation, in A's frame.
    pub t: [f64; 3],
    /// Row-major rotation matrix of `q`.
    pub r: [[f64; 3]; 3],
}

/// Rotation entries below this magnitude (`2^-60`) are set to 0 ([`Pose::new`]).
pub const ROTATION_FLUSH: f64 = 1.0 / (1u64 << 60) as f64;

/// Largest accepted deviation of a quaternion's norm from 1 (`docs/FORMATS.md`).
pub const QUAT_NORM_TOLERANCE: f64 = 1e-3;

impl Pose {
    /// The identity pose: B where its file puts it.
    pub const IDENTITY: Pose = Pose {
        q: [1.0, 0.0, 0.0, 0.0],
        t: [0.0; 3],
        r: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    };

    /// Builds a pose from a quaternion `(w, x, y, z)` (normalized here; it must not be zero or
    /// non-finite) and a translation.
    ///
    /// `R` is computed in f64 from the normalized quaternion by the formulas below, and every
    /// entry of magnitude below [`ROTATION_FLUSH`] (`2^-60`, far below the formulas' own
    /// rounding) is set to 0: so a posed coordinate of vertices and translations in the
    /// supported range ([`crate::mesh::in_supported_range`]) is a multiple of `2^-312`, and
    /// the exact predicates never underflow.
    pub fn new(q: [f64; 4], t: [f64; 3]) -> Pose {
        let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
        let [w, x, y, z] = q.map(|c| c / n);
        let r = [
            [
                1.0 - 2.0 * (y * y + z * z),
                2.0 * (x * y - w * z),
                2.0 * (x * z + w * y),
            ],
            [
                2.0 * (x * y + w * z),
                1.0 - 2.0 * (x * x + z * z),
                2.0 * (y * z - w * x),
            ],
            [
                2.0 * (x * z - w * y),
                2.0 * (y * z + w * x),
                1.0 - 2.0 * (x * x + y * y),
            ],
        ];
        Pose {
            q: [w, x, y, z],
            t,
            r: r.map(|row| row.map(|e| if e.abs() < ROTATION_FLUSH { 0.0 } else { e })),
        }
    }

    /// A pure translation.
    pub fn translation(t: [f64; 3]) -> Pose {
        Pose {
            t,
            ..Pose::IDENTITY
        }
    }

    /// Rotation by `angle` radians about the unit `axis`, then translation by `t`.
    pub fn from_axis_angle(axis: [f64; 3], angle: f64, t: [f64; 3]) -> Pose {
        let (s, c) = (angle * 0.5).sin_cos();
        Pose::new([c, axis[0] * s, axis[1] * s, axis[2] * s], t)
    }

    /// Maps a point of B into A's frame: `R·p + t` in f64, per coordinate
    /// `((r_i0·p_0 + r_i1·p_1) + r_i2·p_2) + t_i`, each operation rounded to nearest (no
    /// fused multiply-add). The one place this arithmetic is written: its result is the
    /// truth the exact test decides on.
    #[inline]
    pub fn apply(&self, p: [f64; 3]) -> [f64; 3] {
        let r = &self.r;
        [
            r[0][0] * p[0] + r[0][1] * p[1] + r[0][2] * p[2] + self.t[0],
            r[1][0] * p[0] + r[1][1] * p[1] + r[1][2] * p[2] + self.t[1],
            r[2][0] * p[0] + r[2][1] * p[1] + r[2][2] * p[2] + self.t[2],
        ]
    }

    /// Applies `R^T` to a direction: the direction in B's frame whose dot product with B's
    /// points equals `dir`'s dot product with the rotated points (hill climbing uses it).
    #[inline]
    pub fn rotate_inverse(&self, d: [f64; 3]) -> [f64; 3] {
        let r = &self.r;
        [
            r[0][0] * d[0] + r[1][0] * d[1] + r[2][0] * d[2],
            r[0][1] * d[0] + r[1][1] * d[1] + r[2][1] * d[2],
            r[0][2] * d[0] + r[1][2] * d[1] + r[2][2] * d[2],
        ]
    }

    /// Writes the pose as a `poses.csv` row (shortest round-trip formatting).
    pub fn to_csv_row(&self) -> String {
        let [w, x, y, z] = self.q;
        let [a, b, c] = self.t;
        format!("{w},{x},{y},{z},{a},{b},{c}")
    }
}

/// The required header of `poses.csv`.
pub const POSES_HEADER: &str = "qw,qx,qy,qz,tx,ty,tz";

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
        };
        let header = r.next_line()?.unwrap_or_default();
        let header = header.trim();
        let header_norm: String = header.chars().filter(|c| !c.is_whitespace()).collect();
        if header_norm.trim_start_matches('\u{feff}') != POSES_HEADER {
            return Err(PoseError::Header {
                path: r.path,
                found: crate::error::shown(header.as_bytes()),
            });
        }
        Ok(r)
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
            let pose = parse_row(trimmed).map_err(|message| PoseError::Row {
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

/// One data row (trimmed, not blank) of `poses.csv`; the error says what is wrong.
fn parse_row(row: &str) -> Result<Pose, String> {
    pose_from_row(parse_fields(row)?)
}

/// The seven numbers of a data row (trimmed, not blank) of `poses.csv`, as written (the
/// quaternion not yet checked nor normalized: [`pose_from_row`] does that).
pub fn parse_fields(row: &str) -> Result<[f64; 7], String> {
    let field = |k: usize| POSES_HEADER.split(',').nth(k).unwrap_or("?");
    let fields: Vec<&str> = row.split(',').map(str::trim).collect();
    if fields.len() != 7 {
        return Err(format!("expected 7 fields, found {}", fields.len()));
    }
    let mut v = [0.0f64; 7];
    for (k, f) in fields.iter().enumerate() {
        v[k] = f.parse::<f64>().map_err(|_| {
            let shown = crate::error::shown(f.as_bytes());
            format!("field {} (`{shown}`) is not a number", field(k))
        })?;
        if !v[k].is_finite() {
            return Err(format!("field {} is not finite", field(k)));
        }
    }
    Ok(v)
}

/// A pose from the seven numbers of a `poses.csv` row (`qw,qx,qy,qz,tx,ty,tz`), checked as
/// the file's rows are: finite, translation in the supported range, quaternion norm within
/// [`QUAT_NORM_TOLERANCE`] of 1. The error says what is wrong (the caller says where).
pub fn pose_from_row(v: [f64; 7]) -> Result<Pose, String> {
    let field = |k: usize| POSES_HEADER.split(',').nth(k).unwrap_or("?");
    if let Some(k) = (0..7).find(|&k| !v[k].is_finite()) {
        return Err(format!("field {} is not finite", field(k)));
    }
    if let Some(k) = (4..7).find(|&k| !crate::mesh::in_supported_range(v[k])) {
        return Err(format!(
            "field {} = {:e} is outside the range the exact predicates support (0, or a \
             magnitude from 2^-200 ≈ 6.2e-61 to 2^100 ≈ 1.3e30)",
            field(k),
            v[k]
        ));
    }
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

/// Poses [`coherent_path`] looks at: the first this many of a run.
pub const COHERENT_PROBE: usize = 64;
/// The largest step, as a fraction of B's bounding-box half-diagonal, between consecutive
/// poses of a path [`coherent_path`] calls coherent: about a 2° turn. Measured with
/// `--coherence` (`docs/notebook/coherence.md`, "Coherence by default"): nested spheres 1 %
/// apart on the OBB tree saved 50 / 37 / 16 / 4.5 % of the time at 0.4 / 1 / 2 / 4° steps,
/// interlocked tori ±2 %, and unrelated poses cost up to 2.5 % more (one pose per run of 16
/// from a front that does not fit, before the off-switch).
pub const COHERENT_STEP: f64 = 0.05;

/// Whether `poses` (their first [`COHERENT_PROBE`]) look like a motion path, where temporal
/// coherence pays: every step between consecutive poses moves every point of B's bounding
/// box `lo..hi` by at most [`COHERENT_STEP`] times its half-diagonal `r`. A step from
/// `(R0, t0)` to `(R1, t1)` moves a point `c + d` (`c` the box centre, `|d| ≤ r`) by
/// `|(R1 − R0)·c + t1 − t0 + (R1 − R0)·d| ≤ |P1(c) − P0(c)| + ‖R1 − R0‖_F·r`. A heuristic
/// for a default (pairs do not depend on it); fewer than two poses are not a path.
pub fn coherent_path(poses: &[Pose], lo: [f64; 3], hi: [f64; 3]) -> bool {
    let c: [f64; 3] = std::array::from_fn(|k| 0.5 * (lo[k] + hi[k]));
    let r = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt() * 0.5;
    let probe = &poses[..poses.len().min(COHERENT_PROBE)];
    probe.len() >= 2
        && r > 0.0
        && probe.windows(2).all(|w| {
            let (p0, p1) = (w[0].apply(c), w[1].apply(c));
            let moved = (0..3).map(|k| (p1[k] - p0[k]).powi(2)).sum::<f64>().sqrt();
            let turned = (0..3)
                .flat_map(|i| (0..3).map(move |j| (i, j)))
                .map(|(i, j)| (w[1].r[i][j] - w[0].r[i][j]).powi(2))
                .sum::<f64>()
                .sqrt();
            moved + turned * r <= COHERENT_STEP * r
        })
}

/// Zachmann's tumbling protocol (*Minimal Hierarchical Collision Detection*, 2002,
/// section 5): one full turn of B about z and about x together in `n` steps (pose `i`
/// rotates by `2πi/n` about both: first x, then z), about B's point `center`, which is
/// moved to `center + t`.
pub fn tumbling_poses(n: usize, center: [f64; 3], t: [f64; 3]) -> Vec<Pose> {
    (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / n.max(1) as f64;
            let (s, c) = (a * 0.5).sin_cos();
            // q = q_z(a) · q_x(a)
            let (qz, qx) = ([c, 0.0, 0.0, s], [c, s, 0.0, 0.0]);
            let rot = Pose::new(quat_mul(qz, qx), [0.0; 3]);
            let rc = rot.apply(center);
            Pose::new(rot.q, [0, 1, 2].map(|k| center[k] + t[k] - rc[k]))
        })
        .collect()
}

/// Hamilton product of quaternions `(w, x, y, z)`.
pub fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_normalizes() {
        let p = parse_poses(
            Path::new("p.csv"),
            "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0.5,0,0\n0.7071068,0,0,0.7071068,0.5,0,0\n",
        )
        .unwrap();
        assert_eq!(p.len(), 2);
        let q = p[1].apply([1.0, 0.0, 0.0]);
        assert!((q[0] - 0.5).abs() < 1e-12 && (q[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn errors_name_the_row() {
        let e = parse_poses(
            Path::new("p.csv"),
            "qw,qx,qy,qz,tx,ty,tz\n1,0,0,0,0,0,0\n2,0,0,0,0,0,0\n",
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("line 3") && s.contains("pose 1"), "{s}");
        let e = parse_poses(Path::new("p.csv"), "a,b\n").unwrap_err();
        assert!(e.to_string().contains("header"));
        let e =
            parse_poses(Path::new("p.csv"), "qw,qx,qy,qz,tx,ty,tz\n1,0,0,x,0,0,0\n").unwrap_err();
        assert!(e.to_string().contains("qz"));
    }

    #[test]
    fn translations_outside_the_supported_range_are_row_errors() {
        let h = "qw,qx,qy,qz,tx,ty,tz\n";
        for bad in ["1e31", "-1e-70"] {
            let e = parse_poses(
                Path::new("p.csv"),
                &format!("{h}1,0,0,0,0,0,0\n1,0,0,0,0,{bad},0\n"),
            )
            .unwrap_err()
            .to_string();
            assert!(
                e.contains("line 3") && e.contains("pose 1") && e.contains("ty"),
                "{e}"
            );
        }
        assert!(parse_poses(Path::new("p.csv"), &format!("{h}1,0,0,0,1e30,0,-1e-60\n")).is_ok());
    }

    #[test]
    fn tiny_rotation_entries_are_flushed_to_zero() {
        // A turn by 2·10⁻²⁰ rad: its off-diagonal entries (≈ 2·10⁻²⁰) are below 2⁻⁶⁰.
        let p = Pose::new([1.0, 1e-20, 0.0, 0.0], [0.0; 3]);
        assert_eq!(p.r, Pose::IDENTITY.r);
        // 10⁻¹⁶ stays.
        let p = Pose::new([1.0, 1e-16, 0.0, 0.0], [0.0; 3]);
        assert!(p.r[2][1] > 0.0);
    }

    #[test]
    fn rotation_is_orthonormal_and_inverse_matches() {
        let p = Pose::new([0.3, -0.5, 0.2, 0.7], [1.0, 2.0, 3.0]);
        let d = [0.2, -0.4, 0.9];
        let x = [0.7f64, -1.5, 2.25];
        let lhs: f64 = (0..3).map(|k| d[k] * (p.apply(x)[k] - p.t[k])).sum();
        let di = p.rotate_inverse(d);
        let rhs: f64 = (0..3).map(|k| di[k] * x[k]).sum();
        assert!((lhs - rhs).abs() < 1e-12);
    }

    #[test]
    fn tumbling_turns_about_the_centre() {
        let c = [0.5, -1.0, 2.0];
        let t = [0.1, 0.2, 0.3];
        let poses = tumbling_poses(8, c, t);
        for p in &poses {
            let m = p.apply(c);
            for k in 0..3 {
                assert!((m[k] - c[k] - t[k]).abs() < 1e-12);
            }
        }
        // Half way round: a half-turn about z after one about x is a half-turn about y.
        let h = poses[4].apply([c[0] + 1.0, c[1] + 2.0, c[2] + 3.0]);
        let want = [c[0] - 1.0 + t[0], c[1] + 2.0 + t[1], c[2] - 3.0 + t[2]];
        for k in 0..3 {
            assert!((h[k] - want[k]).abs() < 1e-12, "{h:?} vs {want:?}");
        }
    }
}

#[cfg(test)]
mod coherent_path_tests {
    use super::*;

    #[test]
    fn small_steps_are_a_path_large_steps_and_unrelated_poses_are_not() {
        let (lo, hi) = ([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]);
        // A turn in 900 steps (0.4°) is a path, in 90 (4°) it is not.
        assert!(coherent_path(
            &tumbling_poses(900, [0.0; 3], [1.0, 0.0, 0.0]),
            lo,
            hi
        ));
        assert!(!coherent_path(
            &tumbling_poses(90, [0.0; 3], [1.0, 0.0, 0.0]),
            lo,
            hi
        ));
        // Translations: the bound is |Δt| / r against COHERENT_STEP (r = √3 here).
        let r = 3f64.sqrt();
        let slide = |step: f64| -> Vec<Pose> {
            (0..10)
                .map(|i| Pose::translation([i as f64 * step * r, 0.0, 0.0]))
                .collect()
        };
        assert!(coherent_path(&slide(0.99 * COHERENT_STEP), lo, hi));
        assert!(!coherent_path(&slide(1.01 * COHERENT_STEP), lo, hi));
        // Only the first COHERENT_PROBE poses count; one pose is not a path.
        let mut poses = slide(0.5 * COHERENT_STEP);
        poses.resize(COHERENT_PROBE, poses[9]);
        poses.push(Pose::translation([1e3, 0.0, 0.0]));
        assert!(coherent_path(&poses, lo, hi));
        assert!(!coherent_path(&poses[..1], lo, hi));
        // Unrelated poses.
        let mut rng = crate::rng::Rng::new(7);
        let random: Vec<Pose> = (0..20)
            .map(|_| Pose::new(rng.unit_quaternion(), [0.0; 3]))
            .collect();
        assert!(!coherent_path(&random, lo, hi));
        // Far from the origin: the same path about a centre at 1e9 is still a path.
        let far = [1e9, -1e9, 5e8];
        let (flo, fhi) = (far.map(|x| x - 1.0), far.map(|x| x + 1.0));
        assert!(coherent_path(
            &tumbling_poses(900, far, [1.0, 0.0, 0.0]),
            flo,
            fhi
        ));
    }
}
