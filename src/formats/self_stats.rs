//! `stats.json` of `meshcollide self`: the fields `docs/FORMATS.md` requires of every run
//! (`backend`, `bv`, `poses`, `build_ms`, `query_ms`, `pairs`, `bv_tests`, `tri_tests`,
//! `bv_updates`), with `poses` the number of frames, then the self-query's own.

use crate::{bvh::BuildOptions, scene::Counters, scene::Mode, self_collide::SelfCollider};

/// The statistics object of `meshcollide self --stats`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SelfStats {
    /// `cpu`, or `gpu: <adapter>` (set by the command line when the GPU ran the query).
    pub backend: String,
    pub bv: String,
    /// Frames answered (1 without `--frames-a`).
    pub poses: usize,
    /// Building the hierarchy (once, from the base mesh).
    pub build_ms: f64,
    /// All frames' queries, refits included, without file I/O.
    pub query_ms: f64,
    /// Refitting the hierarchy to the frames (part of `query_ms`).
    pub refit_ms: f64,
    pub pairs: usize,
    /// Nv: k-DOP overlap tests of distinct nodes (a node against itself needs none).
    pub bv_tests: u64,
    /// Np: triangle pairs decided.
    pub tri_tests: u64,
    /// Nu: always 0 (nothing is tumbled: one hierarchy in its own frame).
    pub bv_updates: u64,
    pub mode: String,
    pub split: String,
    pub split_point: String,
    pub leaf_size: u32,
    pub threads: usize,
    pub triangles: usize,
    pub nodes: usize,
    pub node_bytes: usize,
    pub hierarchy_bytes: usize,
    pub depth: u32,
    /// Frames with at least one pair.
    pub poses_in_contact: usize,
    /// Reading the mesh files (the base mesh and every frame).
    pub load_ms: f64,
    /// Probing the GPU adapter (`--backend auto|gpu`), apart from `build_ms`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_probe_ms: Option<f64>,
}

impl SelfStats {
    /// The statistics of a finished self-query over `collider`.
    #[allow(clippy::too_many_arguments)] // one value per measured quantity
    pub fn new(
        collider: &SelfCollider,
        mode: Mode,
        frames: usize,
        in_contact: usize,
        pairs: usize,
        counters: Counters,
        [load_ms, build_ms, query_ms, refit_ms]: [f64; 4],
        triangles: usize,
    ) -> SelfStats {
        let (nodes, bytes) = collider.hierarchy_size();
        let o: BuildOptions = collider.build_options();
        SelfStats {
            backend: "cpu".into(),
            bv: collider.kind().name().into(),
            poses: frames,
            build_ms,
            query_ms,
            refit_ms,
            pairs,
            bv_tests: counters.bv_tests,
            tri_tests: counters.tri_tests,
            bv_updates: counters.bv_updates,
            mode: mode.name().into(),
            split: o.rule.name().into(),
            split_point: o.point.name().into(),
            leaf_size: o.leaf_size,
            threads: rayon::current_num_threads(),
            triangles,
            nodes,
            node_bytes: bytes / nodes.max(1),
            hierarchy_bytes: bytes,
            depth: collider.depth(),
            poses_in_contact: in_contact,
            load_ms,
            gpu_probe_ms: None,
        }
    }
}
