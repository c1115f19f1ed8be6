//! Mesh loaders (placeholder; being written).
use super::Mesh;
use crate::MeshError;
use std::path::Path;

/// Loads a mesh file chosen by extension.
pub fn load(path: &Path) -> Result<Mesh, MeshError> {
    Err(MeshError::UnknownExtension {
        path: path.to_path_buf(),
    })
}
