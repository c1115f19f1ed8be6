//! `Collider.iter_query`: the poses run a chunk at a time, so that a run's pairs need not
//! fit in memory at once (each chunk's pairs are handed to Python and may be written out
//! and dropped before the next chunk runs).

use crate::collider::{Backend, Collider};
use meshcollide::{Mode, Pose};
use numpy::PyArray2;
use pyo3::prelude::*;

/// The iterator `iter_query` returns: `(first, pairs)` per chunk of poses.
#[pyclass(module = "meshcollide")]
pub struct QueryChunks {
    collider: Py<Collider>,
    /// Every pose, checked when `iter_query` was called.
    poses: Vec<Pose>,
    /// The index in `poses` of the next chunk's first pose.
    next: usize,
    chunk: usize,
    mode: Mode,
    tolerance: meshcollide::proximity::Tolerance,
    backend: Backend,
    /// The pose number of `poses[0]`.
    first_pose: usize,
}

impl QueryChunks {
    pub(crate) fn new(
        collider: Py<Collider>,
        poses: Vec<Pose>,
        chunk: usize,
        mode: Mode,
        tolerance: meshcollide::proximity::Tolerance,
        backend: Backend,
        first_pose: usize,
    ) -> Self {
        QueryChunks {
            collider,
            poses,
            next: 0,
            chunk,
            mode,
            tolerance,
            backend,
            first_pose,
        }
    }
}

#[pymethods]
impl QueryChunks {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next chunk's `(first, pairs)`; a failed chunk raises, and the iterator stops
    /// there (a later chunk's pairs without the failed one's would read as complete).
    fn __next__<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<Option<(usize, Bound<'py, PyArray2<i64>>)>> {
        let start = self.next;
        if start >= self.poses.len() {
            return Ok(None);
        }
        let end = start.saturating_add(self.chunk).min(self.poses.len());
        // Past the end whatever happens, so that an error ends the iteration.
        self.next = self.poses.len();
        let first = self.first_pose + start;
        let poses = self.poses[start..end].to_vec();
        let pairs =
            self.collider
                .get()
                .pairs(py, poses, self.mode, self.tolerance, self.backend, first)?;
        self.next = end;
        Ok(Some((first, pairs)))
    }
}
