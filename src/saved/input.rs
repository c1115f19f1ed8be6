//! A mesh argument of the command line or of Python: a mesh file or a saved hierarchy
//! (`.mch`, recognized by its magic bytes whatever its extension), opened once.
//!
//! Once, because the argument may be a pipe (a FIFO, `/dev/stdin`): a first open to look at
//! the magic bytes and a second to read would leave the writer's data with the first
//! reader and the second blocked for good.

use super::SavedHierarchy;
use super::format::MAGIC;
use super::read::read_up_to;
use crate::mesh::Mesh;
use std::io::Read;
use std::path::Path;

/// What a mesh argument held.
#[derive(Debug)]
pub enum LoadedInput {
    /// A mesh file (OBJ, STL, PLY, optionally gzipped).
    Mesh(Mesh),
    /// A saved hierarchy with its mesh.
    Saved(Box<SavedHierarchy>),
}

impl LoadedInput {
    /// The mesh, either way.
    pub fn mesh(&self) -> &Mesh {
        match self {
            LoadedInput::Mesh(m) => m,
            LoadedInput::Saved(s) => &s.mesh,
        }
    }
}

/// Opens `path` once and loads what it holds: a saved hierarchy if it starts with [`MAGIC`],
/// else a mesh by its extension. Errors name the file.
pub fn load_mesh_or_saved(path: &Path) -> crate::error::Result<LoadedInput> {
    let io = |source| crate::error::MeshError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) => {
            // What cannot be opened is no `.mch`: an unknown extension is the clearer error.
            crate::mesh::load::check_extension(path)?;
            return Err(io(e).into());
        }
    };
    // The length counts only for a regular file: a device or a pipe reports 0.
    let len = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let mut head = [0u8; MAGIC.len()];
    let got = read_up_to(&mut file, &mut head).map_err(io)?;
    let reader = std::io::Cursor::new(&head[..got]).chain(file);
    if head[..got] == MAGIC {
        Ok(LoadedInput::Saved(Box::new(
            SavedHierarchy::read_from_sized(path, reader, len)?,
        )))
    } else {
        Ok(LoadedInput::Mesh(crate::mesh::load::load_reader_sized(
            path, reader, len,
        )?))
    }
}
