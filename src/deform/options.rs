//! What a deforming query is asked ([`DeformOptions`]: the [`UpdateMethod`] and the
//! rebuild trigger) and what it answers ([`FrameResult`], [`UpdateCounters`]).

use super::*;

/// How a hierarchy follows a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UpdateMethod {
    /// Full bottom-up refit of every node.
    Refit,
    /// Larsson and Akenine-Möller's hybrid update: the upper half of the levels each frame,
    /// deeper nodes lazily where the traversal reaches them (the default: see
    /// [`DEFAULT_UPDATE`]).
    #[default]
    Hybrid,
    /// A fresh build per frame.
    Rebuild,
}

option_names! {
    UpdateMethod, kind "update method", all ALL {
        Refit => "refit": "Full bottom-up refit of every node per frame",
        Hybrid => "hybrid": "Larsson and Akenine-Möller's hybrid update: the upper half of the levels per frame, deeper nodes where the traversal reaches them (default)",
        Rebuild => "rebuild": "A fresh hierarchy per frame",
    }
}

/// The default update, [`UpdateMethod::Hybrid`]: on the 100k-triangle cloth of
/// `meshcollide bench deform` (`docs/notebook/deforming-meshes.md`) it costs 12.0 ms per
/// frame (update and query) against 14.4 ms for the full refit and 51.9 ms for a rebuild,
/// and it is also the fastest on a folding sheet: a query near contact reaches few of the
/// deep nodes, so refitting the lower half eagerly is mostly wasted. Its traversal is
/// slower (2.0 ms against 0.9: a lazy node rescans its subtree's corners), so for queries
/// that reach most of the tree the full refit is the better choice.
pub const DEFAULT_UPDATE: UpdateMethod = UpdateMethod::Hybrid;

/// Rebuild when the degradation measure (module docs) exceeds this many times its value
/// after the last build. Measured with `meshcollide bench deform`
/// (`docs/notebook/deforming-meshes.md`): the measure peaks at 1.09 on the draping cloth
/// and at 1.30 on a sheet folding onto itself (`--scene fold`), where the refitted tree
/// tests 5% more node pairs than a fresh one at the same query time, while a rebuild costs
/// 50× such a query: rebuilding there would not pay. So the threshold sits above every
/// measured scene, with room (2, not 1.3): it guards against sequences that carry
/// neighbouring triangles far apart (tearing, scrambling), where the measure grows without
/// bound.
pub const DEFAULT_REBUILD_RATIO: f64 = 2.0;

/// Options of the update.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeformOptions {
    /// How the hierarchies follow a frame.
    pub method: UpdateMethod,
    /// Rebuild a refitted hierarchy when its degradation measure exceeds this many times
    /// its value after the last build (`None`: never; ignored by `Rebuild`).
    pub rebuild_ratio: Option<f64>,
}

impl Default for DeformOptions {
    fn default() -> Self {
        DeformOptions {
            method: DEFAULT_UPDATE,
            rebuild_ratio: Some(DEFAULT_REBUILD_RATIO),
        }
    }
}

/// What the updates of one frame (or, summed, of a run) did.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UpdateCounters {
    /// Milliseconds spent updating before the traversal: A's refit, the upper levels of the
    /// hybrid update, rebuilds, B's posed refit or upper levels, the box pretest. The lazy
    /// part of the hybrid update runs inside the traversal and counts as query time.
    pub update_ms: f64,
    /// A's node volumes recomputed from a frame (eagerly or lazily). B's are counted in Nu
    /// ([`Counters::bv_updates`]) as every tumbled node is.
    pub refit_nodes: u64,
    /// Hierarchies rebuilt (every frame's with `Rebuild`; by the trigger otherwise).
    pub rebuilds: u64,
}

impl std::ops::AddAssign for UpdateCounters {
    fn add_assign(&mut self, o: UpdateCounters) {
        self.update_ms += o.update_ms;
        self.refit_nodes += o.refit_nodes;
        self.rebuilds += o.rebuilds;
    }
}

/// The contacts of one frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FrameResult {
    /// `(tri_a, tri_b)` in file numbering, sorted, without duplicates.
    pub pairs: Vec<(u32, u32)>,
    /// Nv, Np, Nu of the query (the traversal's, as a rigid query counts them).
    pub counters: Counters,
    /// What the update did.
    pub update: UpdateCounters,
    /// The degradation measure (module docs) of A's and B's refitted hierarchies over its
    /// value after their last build, where this frame computed it (`None`: not refitted in
    /// this frame, or B's reference not yet taken), before any rebuild it triggered.
    pub degradation: [Option<f64>; 2],
}
