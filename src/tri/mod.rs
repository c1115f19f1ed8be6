//! Exact triangle–triangle intersection (placeholder; being written).
