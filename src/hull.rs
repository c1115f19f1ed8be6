//! Exact 3D convex hull and hill climbing (placeholder; being written).
