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

mod file;
pub use file::{
    MAX_LINE, POSES_HEADER, PoseColumns, PoseReader, count_poses, count_poses_as, format_poses,
    parse_fields, parse_poses, pose_from_row, read_poses,
};

/// A rigid transform `p ↦ R(q)·p + t`, with `q` normalized and `R` precomputed in f64.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// Unit quaternion `(w, x, y, z)` of the rotation. For a pose given as a matrix
    /// ([`Pose::from_rows`]) it is derived from the matrix for display and for writing
    /// `poses.csv`; `r` is what every query applies.
    pub q: [f64; 4],
    /// Translation, in A's frame.
    pub t: [f64; 3],
    /// Row-major rotation matrix: of `q` ([`Pose::new`]), or as written ([`Pose::from_rows`]).
    pub r: [[f64; 3]; 3],
}

/// Rotation entries below this magnitude (`2^-60`) are set to 0 ([`Pose::new`]).
pub const ROTATION_FLUSH: f64 = 1.0 / (1u64 << 60) as f64;

/// Largest accepted deviation of a quaternion's norm from 1 (`docs/FORMATS.md`).
pub const QUAT_NORM_TOLERANCE: f64 = 1e-3;

/// Largest accepted deviation of a rotation matrix's rows from orthonormal, per dot
/// product of two rows (`docs/FORMATS.md`).
pub const MATRIX_TOLERANCE: f64 = 1e-6;

/// The unit quaternion of an orthonormal matrix (Shepperd's method: the largest of `w, x,
/// y, z` from the diagonal first, the others from off-diagonal sums), `w ≥ 0`. For display
/// and `poses.csv` output only: a pose keeps its matrix.
fn quaternion_of(r: &[[f64; 3]; 3]) -> [f64; 4] {
    let tr = r[0][0] + r[1][1] + r[2][2];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        [
            0.25 * s,
            (r[2][1] - r[1][2]) / s,
            (r[0][2] - r[2][0]) / s,
            (r[1][0] - r[0][1]) / s,
        ]
    } else if r[0][0] > r[1][1] && r[0][0] > r[2][2] {
        let s = (1.0 + r[0][0] - r[1][1] - r[2][2]).sqrt() * 2.0;
        [
            (r[2][1] - r[1][2]) / s,
            0.25 * s,
            (r[0][1] + r[1][0]) / s,
            (r[0][2] + r[2][0]) / s,
        ]
    } else if r[1][1] > r[2][2] {
        let s = (1.0 + r[1][1] - r[0][0] - r[2][2]).sqrt() * 2.0;
        [
            (r[0][2] - r[2][0]) / s,
            (r[0][1] + r[1][0]) / s,
            0.25 * s,
            (r[1][2] + r[2][1]) / s,
        ]
    } else {
        let s = (1.0 + r[2][2] - r[0][0] - r[1][1]).sqrt() * 2.0;
        [
            (r[1][0] - r[0][1]) / s,
            (r[0][2] + r[2][0]) / s,
            (r[1][2] + r[2][1]) / s,
            0.25 * s,
        ]
    };
    let n = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    let q = q.map(|c| c / n);
    if q[0] < 0.0 { q.map(|c| -c) } else { q }
}

/// The translation's fields checked as `poses.csv`'s (`names` for the message).
fn check_translation(t: &[f64; 3], names: &[&str; 3]) -> Result<(), String> {
    for k in 0..3 {
        if !t[k].is_finite() {
            return Err(format!("field {} is not finite", names[k]));
        }
        if !crate::mesh::in_supported_range(t[k]) {
            return Err(format!(
                "field {} = {:e} is outside the range the exact predicates support (0, or a \
                 magnitude from 2^-200 ≈ 6.2e-61 to 2^100 ≈ 1.3e30)",
                names[k], t[k]
            ));
        }
    }
    Ok(())
}

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

    /// A pose from a rotation matrix by rows and a translation, applied as written:
    /// `p' = R·p + t` in f64 ([`Pose::apply`]), no entry changed. `R` must be orthonormal:
    /// every `|r_i·r_j − δ_ij| ≤` [`MATRIX_TOLERANCE`] (a reflection, determinant −1, is
    /// orthonormal too and is applied as written). Every entry must be finite and 0 or of
    /// magnitude at least [`ROTATION_FLUSH`] (`2^-60`): the bound the exact predicates'
    /// proof needs of any rotation entry, which [`Pose::new`] meets by flushing smaller
    /// ones to 0; here one below it is refused rather than changed. The translation is
    /// checked as `poses.csv`'s ([`crate::mesh::in_supported_range`]). The error says
    /// what is wrong.
    pub fn from_rows(r: [[f64; 3]; 3], t: [f64; 3]) -> Result<Pose, String> {
        for (i, row) in r.iter().enumerate() {
            for (j, &e) in row.iter().enumerate() {
                if !e.is_finite() {
                    return Err(format!("r{i}{j} is not finite"));
                }
                if e != 0.0 && e.abs() < ROTATION_FLUSH {
                    return Err(format!(
                        "r{i}{j} = {e:e} is nonzero but below 2^-60 ≈ 8.7e-19, which the exact \
                         predicates cannot apply as written: write 0"
                    ));
                }
            }
        }
        check_translation(&t, &["tx", "ty", "tz"])?;
        for i in 0..3 {
            for j in i..3 {
                let d: f64 = (0..3).map(|k| r[i][k] * r[j][k]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                if (d - want).abs() > MATRIX_TOLERANCE {
                    return Err(format!(
                        "the rotation's rows are not orthonormal within {MATRIX_TOLERANCE}: \
                         row {i} · row {j} = {d}"
                    ));
                }
            }
        }
        Ok(Pose {
            q: quaternion_of(&r),
            t,
            r,
        })
    }

    /// A pose whose matrix is taken as given, without [`Pose::from_rows`]'s checks: for a
    /// matrix the crate computed itself (a scene's relative pose, whose every entry is 0 or
    /// at least `2^-60`, and whose translation is in range), where a product of two
    /// orthonormal-within-`10^-6` matrices may miss that tolerance.
    pub(crate) fn from_rows_unchecked(r: [[f64; 3]; 3], t: [f64; 3]) -> Pose {
        Pose {
            q: quaternion_of(&r),
            t,
            r,
        }
    }

    /// [`Pose::from_rows`] from glam types: a rotation matrix (glam's matrices are stored
    /// by columns; the entries are taken as they are, `r_ij = m.col(j)[i]`) and a translation.
    pub fn from_rotation_translation(r: glam::DMat3, t: glam::DVec3) -> Result<Pose, String> {
        let rows = [0, 1, 2].map(|i| [0, 1, 2].map(|j| r.col(j)[i]));
        Pose::from_rows(rows, t.to_array())
    }

    /// [`Pose::from_rows`] from a 4×4 rigid transform (glam, by columns): its upper 3×3 the
    /// rotation, its last column's first three entries the translation. The last row must
    /// be `0 0 0 1` exactly.
    pub fn from_matrix(m: glam::DMat4) -> Result<Pose, String> {
        let last = m.row(3).to_array();
        if last != [0.0, 0.0, 0.0, 1.0] {
            return Err(format!("the last row is {last:?}, not [0, 0, 0, 1]"));
        }
        let rows = [0, 1, 2].map(|i| [0, 1, 2].map(|j| m.col(j)[i]));
        Pose::from_rows(rows, m.col(3).truncate().to_array())
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
    let probe = &poses[..poses.len().min(COHERENT_PROBE)];
    probe.len() >= 2
        && probe
            .windows(2)
            .all(|w| coherent_step(&w[0], &w[1], lo, hi))
}

/// Whether the step from `p0` to `p1` moves every point of B's bounding box `lo..hi` by at
/// most [`COHERENT_STEP`] times its half-diagonal `r` (the bound of [`coherent_path`]);
/// false for a box of no size.
pub fn coherent_step(p0: &Pose, p1: &Pose, lo: [f64; 3], hi: [f64; 3]) -> bool {
    let r = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt() * 0.5;
    r > 0.0 && step_reach(p0, p1, lo, hi) <= COHERENT_STEP * r
}

/// How far the step from `p0` to `p1` moves a point of B's bounding box `lo..hi`, at most
/// (up to rounding): the box centre's move plus the rotations' difference (Frobenius norm,
/// at least the spectral norm) times the box's half-diagonal.
pub fn step_reach(p0: &Pose, p1: &Pose, lo: [f64; 3], hi: [f64; 3]) -> f64 {
    let c: [f64; 3] = std::array::from_fn(|k| 0.5 * (lo[k] + hi[k]));
    let r = (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f64>().sqrt() * 0.5;
    let (a, b) = (p0.apply(c), p1.apply(c));
    let moved = (0..3).map(|k| (b[k] - a[k]).powi(2)).sum::<f64>().sqrt();
    let turned = (0..3)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .map(|(i, j)| (p1.r[i][j] - p0.r[i][j]).powi(2))
        .sum::<f64>()
        .sqrt();
    moved + turned * r
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
mod tests;
