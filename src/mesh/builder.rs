//! The vertex and triangle arrays of a mesh being read, grown within the memory limit of the
//! load ([`super::input_limit`]): 24 bytes per vertex and 12 per triangle, plus what a
//! parser keeps on the side (OBJ's forward references). A text format declares no counts,
//! so its growth is checked at every push; a binary header's counts are checked before any
//! allocation ([`MeshBuilder::check_declared`]).
//!
//! Every vertex is checked as it is pushed ([`crate::mesh::check_vertex`]), with the
//! location the parser gives, because only the parser still knows the line or record.

use super::parse_error;
use crate::error::Location;
use crate::error::MeshError;
use crate::mesh::Mesh;
use std::path::Path;

/// Bytes of one vertex of [`Mesh::positions`].
pub(super) const VERTEX_BYTES: u64 = 24;
/// Bytes of one triangle of [`Mesh::triangles`].
pub(super) const TRIANGLE_BYTES: u64 = 12;
/// The most capacity reserved ahead from a count nothing has confirmed yet (a header read
/// from a pipe or a gzip stream, whose length is unknown): the arrays grow from there.
const UNCONFIRMED_RESERVE: u64 = 1 << 16;

/// See the module docs.
pub(super) struct MeshBuilder<'a> {
    path: &'a Path,
    positions: Vec<[f64; 3]>,
    triangles: Vec<[u32; 3]>,
    limit: u64,
    /// Bytes a parser holds besides the arrays, counted against the limit.
    extra: u64,
    /// Bytes of the arrays (by length) and `extra`: kept as pushes go, so that a push
    /// checks the limit with one addition and one comparison.
    bytes: u64,
}

impl<'a> MeshBuilder<'a> {
    pub fn new(path: &'a Path, limit: u64) -> Self {
        MeshBuilder {
            path,
            positions: Vec::new(),
            triangles: Vec::new(),
            limit,
            extra: 0,
            bytes: 0,
        }
    }

    /// Vertices pushed so far.
    #[inline]
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Errs if `more` bytes would take the mesh past the limit.
    #[inline]
    fn check_growth(&self, more: u64, at: Location) -> Result<(), MeshError> {
        if self.bytes.saturating_add(more) > self.limit {
            return Err(MeshError::MeshTooLarge {
                path: self.path.to_path_buf(),
                location: at,
                vertices: self.positions.len() as u64,
                triangles: self.triangles.len() as u64,
                limit: self.limit,
            });
        }
        Ok(())
    }

    /// Sets the bytes a parser holds besides the arrays (checked with the next push).
    pub fn set_extra(&mut self, bytes: u64) {
        self.bytes = self.bytes - self.extra + bytes;
        self.extra = bytes;
    }

    /// Refuses a header that declares `vertices` and `triangles` (described for the user by
    /// `declared`) beyond the limit, before anything is allocated for them.
    pub fn check_declared(
        &self,
        vertices: u64,
        triangles: u64,
        at: Location,
        declared: impl FnOnce() -> String,
    ) -> Result<(), MeshError> {
        let bytes = VERTEX_BYTES
            .saturating_mul(vertices)
            .saturating_add(TRIANGLE_BYTES.saturating_mul(triangles));
        if bytes > self.limit {
            return Err(MeshError::DeclaredTooLarge {
                path: self.path.to_path_buf(),
                location: at,
                declared: declared(),
                bytes,
                limit: self.limit,
            });
        }
        Ok(())
    }

    /// Reserves room for `vertices` and `triangles` more, counts a header declared within
    /// the limit ([`MeshBuilder::check_declared`]): all of it where the input's length
    /// confirms the counts (`confirmed`), else a bounded start.
    pub fn reserve(&mut self, vertices: u64, triangles: u64, confirmed: bool) {
        let cap = |n: u64| {
            let n = if confirmed {
                n
            } else {
                n.min(UNCONFIRMED_RESERVE)
            };
            usize::try_from(n).unwrap_or(0)
        };
        self.positions.reserve_exact(cap(vertices));
        self.triangles.reserve_exact(cap(triangles));
    }

    /// Pushes a vertex as read at `at`, after checking it ([`crate::mesh::check_vertex`]),
    /// the vertex count (indices are `u32`) and the limit.
    #[inline]
    pub fn push_vertex(&mut self, p: [f64; 3], at: Location) -> Result<(), MeshError> {
        crate::mesh::check_vertex(&p, self.path, at)?;
        if self.positions.len() > u32::MAX as usize {
            return Err(parse_error(self.path, at, "more than 2^32 vertices"));
        }
        self.check_growth(VERTEX_BYTES, at)?;
        self.positions.push(p);
        self.bytes += VERTEX_BYTES;
        Ok(())
    }

    /// Pushes a triangle whose indices the parser has checked (or will check, for OBJ's
    /// forward references).
    #[inline]
    pub fn push_triangle(&mut self, t: [u32; 3], at: Location) -> Result<(), MeshError> {
        self.check_growth(TRIANGLE_BYTES, at)?;
        self.triangles.push(t);
        self.bytes += TRIANGLE_BYTES;
        Ok(())
    }

    /// Pushes the fan triangles of polygon `poly` (`(v0,v1,v2), (v0,v2,v3), …`,
    /// `docs/FORMATS.md`). The caller has checked `poly.len() >= 3`.
    pub fn push_fan(&mut self, poly: &[u32], at: Location) -> Result<(), MeshError> {
        let n = poly.len() - 2;
        self.check_growth(TRIANGLE_BYTES * n as u64, at)?;
        self.triangles.reserve(n);
        for w in poly[1..].windows(2) {
            self.triangles.push([poly[0], w[0], w[1]]);
        }
        self.bytes += TRIANGLE_BYTES * n as u64;
        Ok(())
    }

    /// Errs if a polygon of `corners` corners read at `at` could not be pushed as a fan:
    /// a binary PLY face list is read with this bound before it is held.
    pub fn check_polygon(&self, corners: u64, at: Location) -> Result<(), MeshError> {
        self.check_growth(TRIANGLE_BYTES.saturating_mul(corners.saturating_sub(2)), at)
    }

    /// The mesh, with no spare capacity (where the allocator grows in place, as glibc does
    /// for large blocks, this copies nothing).
    pub fn finish(mut self) -> Mesh {
        self.positions.shrink_to_fit();
        self.triangles.shrink_to_fit();
        Mesh {
            positions: self.positions,
            triangles: self.triangles,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fan_order() {
        let mut b = MeshBuilder::new(Path::new("t.obj"), u64::MAX);
        b.push_fan(&[0, 1, 2, 3, 4], Location::Line(1)).unwrap();
        assert_eq!(b.finish().triangles, vec![[0, 1, 2], [0, 2, 3], [0, 3, 4]]);
    }

    /// The limit counts 24 bytes per vertex, 12 per triangle and the side tables.
    #[test]
    fn growth_stops_at_the_limit() {
        let mut b = MeshBuilder::new(Path::new("t.obj"), 2 * 24 + 12);
        let at = Location::Line(7);
        b.push_vertex([0.0; 3], at).unwrap();
        b.push_vertex([1.0; 3], at).unwrap();
        b.push_triangle([0, 1, 1], at).unwrap();
        match b.push_vertex([2.0; 3], at) {
            Err(MeshError::MeshTooLarge {
                location,
                vertices: 2,
                triangles: 1,
                limit: 60,
                ..
            }) => assert_eq!(location, at),
            other => panic!("{other:?}"),
        }
        let mut b = MeshBuilder::new(Path::new("t.obj"), 100);
        b.set_extra(90);
        assert!(b.push_vertex([0.0; 3], at).is_err());
        assert!(
            b.check_declared(u64::MAX, u64::MAX, at, || "many".into())
                .is_err()
        );
        assert!(b.check_declared(4, 0, at, || "four".into()).is_ok());
    }
}
