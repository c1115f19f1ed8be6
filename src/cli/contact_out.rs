//! `query --contact-geometry`: for each pair the query writes to pairs.csv, where the two
//! triangles meet ([`crate::tri::contact::contact_geometry`]), written to `segments.csv`
//! (`pose,tri_a,tri_b,x0,y0,z0,x1,y1,z1`; `docs/FORMATS.md`, "Contact geometry").
//!
//! The rows follow the query's pose by pose (the query's sink hands each pose's pairs and
//! its pose over), so they come in pairs.csv's order and memory stays bounded: pairs are
//! held only until [`BLOCK`] of them are pending, then computed in parallel and written.
//! Each pair is computed on the triangles the query decided it on: A's as written, B's
//! moved by [`Pose::apply`], the same f64 bits.

use super::Failure;
use super::output::AtomicFile;
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::tri::contact::contact_geometry;
use rayon::prelude::*;
use std::fmt::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// Pairs held before their contacts are computed and written.
const BLOCK: usize = 1 << 14;

/// The header of `segments.csv`.
pub const SEGMENTS_HEADER: &str = "pose,tri_a,tri_b,x0,y0,z0,x1,y1,z1";

/// `segments.csv` being written (an [`AtomicFile`]: whole or not at all).
pub struct ContactOut<'a> {
    file: AtomicFile,
    a: &'a Mesh,
    b: &'a Mesh,
    /// `(pose number, pose, tri_a, tri_b)` not yet written (no pose: B as written).
    pending: Vec<(usize, Option<Pose>, u32, u32)>,
    rows: usize,
    /// Time spent computing and writing (the query's time excludes it).
    time: Duration,
}

impl<'a> ContactOut<'a> {
    /// Creates the temporary file at `path` and writes the header.
    pub fn create(path: &Path, a: &'a Mesh, b: &'a Mesh) -> Result<ContactOut<'a>, Failure> {
        let mut file = AtomicFile::create(path)?;
        file.write_all(format!("{SEGMENTS_HEADER}\n").as_bytes())?;
        Ok(ContactOut {
            file,
            a,
            b,
            pending: Vec::with_capacity(BLOCK),
            rows: 0,
            time: Duration::ZERO,
        })
    }

    /// The pairs of pose number `i` (sorted, as pairs.csv writes them), B moved by `pose`
    /// (`None`: B as written, as `meshcollide self` has it).
    pub fn push(
        &mut self,
        i: usize,
        pose: Option<&Pose>,
        pairs: &[(u32, u32)],
    ) -> Result<(), Failure> {
        self.pending
            .extend(pairs.iter().map(|&(ta, tb)| (i, pose.copied(), ta, tb)));
        if self.pending.len() >= BLOCK {
            self.flush()?;
        }
        Ok(())
    }

    /// Computes the pending pairs' rows in parallel and writes them in order.
    fn flush(&mut self) -> Result<(), Failure> {
        let t = Instant::now();
        let (a, b) = (self.a, self.b);
        let rows: Vec<Result<(String, usize), Failure>> = self
            .pending
            .par_iter()
            .map(|&(i, ref pose, ta, tb)| rows_of(a, b, i, pose.as_ref(), ta, tb))
            .collect();
        let mut text = String::new();
        for r in rows {
            let (s, n) = r?;
            text += &s;
            self.rows += n;
        }
        self.pending.clear();
        let written = self.file.write_all(text.as_bytes());
        self.time += t.elapsed();
        written
    }

    /// Time spent on contacts so far.
    pub fn time(&self) -> Duration {
        self.time
    }

    /// Writes what is pending and renames the file into place; the number of rows.
    pub fn commit(mut self) -> Result<usize, Failure> {
        self.flush()?;
        let rows = self.rows;
        self.file.commit()?;
        Ok(rows)
    }
}

/// The rows of one pair, and how many. A reported pair always meets (the query decided it
/// with the same exact predicate on the same coordinates); a pair that does not is an
/// internal error rather than a missing row.
fn rows_of(
    a: &Mesh,
    b: &Mesh,
    i: usize,
    pose: Option<&Pose>,
    ta: u32,
    tb: u32,
) -> Result<(String, usize), Failure> {
    let (ka, kb) = (ta as usize, tb as usize);
    if ka >= a.triangle_count() || kb >= b.triangle_count() {
        return Err(Failure::Internal(format!(
            "pose {i}: pair ({ta}, {tb}) names a triangle beyond the meshes"
        )));
    }
    let tri_a = a.triangle(ka);
    let tri_b = match pose {
        Some(pose) => b.triangle(kb).map(|p| pose.apply(p)),
        None => b.triangle(kb),
    };
    let Some(c) = contact_geometry(&tri_a, &tri_b) else {
        return Err(Failure::Internal(format!(
            "pose {i}: triangles {ta} and {tb} were reported intersecting but do not meet"
        )));
    };
    let mut s = String::new();
    let edges = c.edges();
    for (p, q) in &edges {
        let _ = writeln!(
            s,
            "{i},{ta},{tb},{},{},{},{},{},{}",
            p[0], p[1], p[2], q[0], q[1], q[2]
        );
    }
    Ok((s, edges.len()))
}
