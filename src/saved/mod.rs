//! Saved hierarchies (`.mch` files): a mesh with its k-DOP hierarchy, so a large model is
//! built once and loaded many times without the top-down build.
//!
//! [`SavedHierarchy::build`] builds, [`SavedHierarchy::write_to`] writes the file (layout in
//! `format.rs`), [`SavedHierarchy::load`] / [`SavedHierarchy::read_from`] /
//! [`SavedHierarchy::from_bytes`] read it back: magic bytes, version, lengths against the
//! header (before any allocation; `read.rs` reads a stream with that bound), both checksums,
//! then every invariant a query relies on for exact pairs ([`invariants`], checked in
//! `verify/`: the tree's shape and ranges, every k-DOP containing its children and its
//! triangles, every node's bounding points including its corners or its polytope's
//! vertices). The checksums catch accidents; the invariants, a crafted file. The local frame
//! and the ordered triangles are derived from the mesh as the build derives them, so a
//! loaded [`Bvh`] of a file as the build writes it equals the built one and a query on it
//! gives the same pairs and counters. [`crate::Collider`] takes it through
//! [`crate::ColliderBuilder::hierarchy_a`] / [`crate::ColliderBuilder::hierarchy_b`], on
//! both backends.

mod format;
mod input;
// The checks behind `SavedError::Invariant`, public for the fuzz tests that break each one.
#[doc(hidden)]
pub mod invariants;
mod read;
mod verify;

use crate::bvh::{BuildOptions, Bvh};
use crate::error::SavedError;
use crate::kind::{BvKind, for_each_k};
use crate::mesh::Mesh;
use crate::tumble::BoundingPoints;
use std::path::Path;

pub use format::{FORMAT_VERSION, MAGIC};
pub use input::{LoadedInput, load_mesh_or_saved};

/// A k-DOP hierarchy of one of the four k, chosen at run time, with its nodes' bounding
/// points (what B's tumbling needs beyond the tree: most of its preparation time).
#[derive(Debug, Clone)]
#[allow(missing_docs)] // The variants are named after their `BvKind`.
pub enum KdopHierarchy {
    Kdop6(Bvh<3>, BoundingPoints),
    Kdop14(Bvh<7>, BoundingPoints),
    Kdop18(Bvh<9>, BoundingPoints),
    Kdop26(Bvh<13>, BoundingPoints),
}

impl KdopHierarchy {
    /// Builds the hierarchy of `mesh` for a k-DOP `bv` and its bounding points; `None` for
    /// the other kinds.
    pub fn build(mesh: &Mesh, bv: BvKind, options: &BuildOptions) -> Option<KdopHierarchy> {
        fn both<const H: usize>(m: &Mesh, o: &BuildOptions) -> (Bvh<H>, BoundingPoints) {
            let b = Bvh::build(m, o);
            let p = BoundingPoints::of(&b);
            (b, p)
        }
        Some(match bv {
            BvKind::Kdop6 => both::<3>(mesh, options).into(),
            BvKind::Kdop14 => both::<7>(mesh, options).into(),
            BvKind::Kdop18 => both::<9>(mesh, options).into(),
            BvKind::Kdop26 => both::<13>(mesh, options).into(),
            _ => return None,
        })
    }

    /// Its bounding volume.
    pub fn kind(&self) -> BvKind {
        match self {
            KdopHierarchy::Kdop6(_, _) => BvKind::Kdop6,
            KdopHierarchy::Kdop14(_, _) => BvKind::Kdop14,
            KdopHierarchy::Kdop18(_, _) => BvKind::Kdop18,
            KdopHierarchy::Kdop26(_, _) => BvKind::Kdop26,
        }
    }

    /// Its nodes' bounding points.
    pub fn points(&self) -> &BoundingPoints {
        match self {
            KdopHierarchy::Kdop6(_, p)
            | KdopHierarchy::Kdop14(_, p)
            | KdopHierarchy::Kdop18(_, p)
            | KdopHierarchy::Kdop26(_, p) => p,
        }
    }

    /// The options it was built with.
    pub fn options(&self) -> BuildOptions {
        for_each_k!(self, KdopHierarchy(b, _) => b.options)
    }

    /// The `Bvh` of `H` slabs and its bounding points, or `None` if it has another k.
    pub fn into_bvh<const H: usize>(self) -> Option<(Bvh<H>, BoundingPoints)> {
        let any: Box<dyn std::any::Any> = match self {
            KdopHierarchy::Kdop6(b, p) => Box::new((b, p)),
            KdopHierarchy::Kdop14(b, p) => Box::new((b, p)),
            KdopHierarchy::Kdop18(b, p) => Box::new((b, p)),
            KdopHierarchy::Kdop26(b, p) => Box::new((b, p)),
        };
        any.downcast::<(Bvh<H>, BoundingPoints)>().ok().map(|b| *b)
    }

    /// Whether it was built over `mesh`: the same triangles, each leaf position holding the
    /// corners of the mesh triangle it names (a hierarchy of another mesh would answer
    /// wrongly, so [`crate::Collider`] checks this before using one). `Err` says what differs.
    pub fn check_mesh(&self, mesh: &Mesh) -> Result<(), String> {
        for_each_k!(self, KdopHierarchy(b, _) => {
            if b.tri_index.len() != mesh.triangle_count() || b.tris.len() != b.tri_index.len() {
                return Err(format!(
                    "the hierarchy has {} triangles, the mesh {}",
                    b.tri_index.len(),
                    mesh.triangle_count()
                ));
            }
            for (p, &t) in b.tri_index.iter().enumerate() {
                if t as usize >= mesh.triangle_count() || b.tris.corners_f64(p) != mesh.triangle(t as usize) {
                    return Err(format!("leaf position {p} does not hold mesh triangle {t}"));
                }
            }
            Ok(())
        })
    }
}

macro_rules! from_pair {
    ($($h:literal => $v:ident),+) => {$(
        impl From<(Bvh<$h>, BoundingPoints)> for KdopHierarchy {
            fn from((b, p): (Bvh<$h>, BoundingPoints)) -> KdopHierarchy {
                KdopHierarchy::$v(b, p)
            }
        }
    )+};
}
from_pair!(3 => Kdop6, 7 => Kdop14, 9 => Kdop18, 13 => Kdop26);

/// A mesh with its k-DOP hierarchy, as a `.mch` file holds them.
#[derive(Debug, Clone)]
pub struct SavedHierarchy {
    /// The mesh as loaded (positions as written, triangles in file order).
    pub mesh: Mesh,
    /// Its hierarchy.
    pub hierarchy: KdopHierarchy,
}

impl SavedHierarchy {
    /// Validates `mesh` and builds its hierarchy. Errors: an invalid mesh, or a `bv` that is
    /// not a k-DOP ([`crate::Error::InvalidOption`]: the other hierarchies are not saved).
    pub fn build(
        mesh: Mesh,
        bv: BvKind,
        options: &BuildOptions,
    ) -> crate::error::Result<SavedHierarchy> {
        mesh.validate(Path::new("mesh"))?;
        let hierarchy = KdopHierarchy::build(&mesh, bv, options).ok_or_else(|| {
            crate::error::Error::InvalidOption(format!(
                "saved hierarchies hold k-DOPs (kdop6, kdop14, kdop18, kdop26), not {}",
                bv.name()
            ))
        })?;
        Ok(SavedHierarchy { mesh, hierarchy })
    }

    /// The file's bytes (see `format.rs`).
    pub fn to_bytes(&self) -> Vec<u8> {
        format::encode(self)
    }

    /// Writes the file's bytes to `w` (the command line writes through a temporary file
    /// renamed into place, so a path never holds half a file).
    pub fn write_to(&self, w: &mut impl std::io::Write) -> std::io::Result<()> {
        w.write_all(&self.to_bytes())
    }

    /// Reads and checks a `.mch` file, as [`SavedHierarchy::read_from`] does; a regular
    /// file of another length than its header describes is refused before its body is read.
    pub fn load(path: &Path) -> Result<SavedHierarchy, SavedError> {
        let io = |source| SavedError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        let len = meta.is_file().then_some(meta.len());
        SavedHierarchy::from_bytes(path, &read::read_bounded(path, file, len)?)
    }

    /// Reads and checks a `.mch` file from `reader` (a file already opened, a pipe);
    /// `path` names it in errors. Bounded: the 72-byte header is read first, a file whose
    /// header describes more than [`crate::mesh::load::input_limit`] bytes is refused
    /// ([`SavedError::TooLarge`]) before anything else is read, and then exactly the
    /// described length is read (the buffer growing with what arrives), with an error for a
    /// stream that ends early or goes on.
    pub fn read_from(
        path: &Path,
        reader: impl std::io::Read,
    ) -> Result<SavedHierarchy, SavedError> {
        SavedHierarchy::read_from_sized(path, reader, None)
    }

    /// [`SavedHierarchy::read_from`] of an input whose length is known (`len`: a regular
    /// file's size, as [`SavedHierarchy::load`] reads it): a file of another length than its
    /// header describes is refused before its body is read, and the buffer is allocated once.
    pub fn read_from_sized(
        path: &Path,
        reader: impl std::io::Read,
        len: Option<u64>,
    ) -> Result<SavedHierarchy, SavedError> {
        SavedHierarchy::from_bytes(path, &read::read_bounded(path, reader, len)?)
    }

    /// Checks and decodes a `.mch` file's bytes (every check of [`SavedHierarchy::load`] but
    /// the input limit: the bytes are already in memory); `path` names it in errors.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<SavedHierarchy, SavedError> {
        format::decode(path, bytes)
    }

    /// The build options in which this file differs from what a query asks for, as
    /// `(option, saved, asked)` with the option named as the command line's flag without
    /// dashes (`bv`, `split`, `split-point`, `leaf-size`). Empty when the file serves the
    /// query; a k-DOP tree also serves the dual hierarchy of the same k (its spheres are
    /// computed on load). Callers refuse a file that differs rather than rebuild silently.
    pub fn differences(
        &self,
        bv: BvKind,
        options: &BuildOptions,
    ) -> Vec<(&'static str, String, String)> {
        let (kind, o) = (self.hierarchy.kind(), self.hierarchy.options());
        let mut diff = Vec::new();
        if kind != bv && !(bv.is_dual() && kind.half_k() == bv.half_k()) {
            diff.push(("bv", kind.name().to_string(), bv.name().to_string()));
        }
        if o.rule != options.rule {
            let names = (o.rule.name().to_string(), options.rule.name().to_string());
            diff.push(("split", names.0, names.1));
        }
        if o.point != options.point {
            let names = (o.point.name().to_string(), options.point.name().to_string());
            diff.push(("split-point", names.0, names.1));
        }
        if o.leaf_size != options.leaf_size {
            let sizes = (o.leaf_size.to_string(), options.leaf_size.to_string());
            diff.push(("leaf-size", sizes.0, sizes.1));
        }
        diff
    }

    /// Splits into the mesh and the hierarchy (for [`crate::ColliderBuilder::hierarchy_a`]).
    pub fn into_parts(self) -> (Mesh, KdopHierarchy) {
        (self.mesh, self.hierarchy)
    }
}

/// Whether the file at `path` starts with the `.mch` magic bytes (`false` if it cannot be
/// read: the mesh loader then reports it).
pub fn is_saved_file(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; MAGIC.len()];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == MAGIC)
}
