//! `query --solid`: after the query, the poses without pairs tested for one closed mesh
//! inside the other ([`crate::solid::inside`]), written to `inside.csv` (`pose,inner`).

use super::Failure;
use super::inputs::PosesFile;
use super::output::AtomicFile;
use crate::mesh::Mesh;
use crate::pose::{Pose, PoseReader};
use crate::solid::{Solid, inside};
use rayon::prelude::*;
use std::path::Path;

/// Poses re-read and tested at a time (memory stays bounded whatever the pose count).
const BLOCK: usize = 4096;

/// Both closed meshes with their solids.
pub struct Solids<'a> {
    pub a: (&'a Solid, &'a Mesh),
    pub b: (&'a Solid, &'a Mesh),
}

impl Solids<'_> {
    /// Reads the poses again (rows from `start`, `n` of them) and writes a row for each pose
    /// marked in `empty` (bit `k` for pose `start + k`: no pair, so the surfaces do not
    /// meet) where one mesh lies inside the other; the number of rows.
    pub fn write(
        &self,
        path: &Path,
        poses: &PosesFile,
        start: usize,
        n: usize,
        empty: &[u64],
    ) -> Result<usize, Failure> {
        let mut file = AtomicFile::create(path)?;
        file.write_all(b"pose,inner\n")?;
        let reader =
            PoseReader::open_as(&poses.read, &poses.name).map_err(crate::error::Error::from)?;
        let mut rows = 0;
        let mut block: Vec<(usize, Pose)> = Vec::with_capacity(BLOCK);
        let mut flush = |block: &mut Vec<(usize, Pose)>| -> Result<(), Failure> {
            let found: Vec<Option<&str>> = block
                .par_iter()
                .map(|(_, p)| inside(self.a.0, self.a.1, self.b.0, self.b.1, p).map(|i| i.as_str()))
                .collect();
            let mut text = String::new();
            for ((i, _), f) in block.iter().zip(found) {
                if let Some(inner) = f {
                    text += &format!("{i},{inner}\n");
                    rows += 1;
                }
            }
            block.clear();
            file.write_all(text.as_bytes())
        };
        for (k, p) in reader.skip(start).take(n).enumerate() {
            let p = p.map_err(crate::error::Error::from)?;
            if empty[k / 64] >> (k % 64) & 1 == 1 {
                block.push((start + k, p));
                if block.len() == BLOCK {
                    flush(&mut block)?;
                }
            }
        }
        flush(&mut block)?;
        file.commit()?;
        Ok(rows)
    }
}
