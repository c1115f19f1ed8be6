//! Generated meshes (placeholder; being written).
