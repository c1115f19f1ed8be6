//! `stats.json` assembled in one place for every front end (the command line's `query` and
//! the Python package's `Collider.last_stats`), so their fields cannot drift apart.

use super::{AutoStatsJson, DualStatsJson, GpuStatsJson, Stats};
use crate::{
    boxtree::BoxTest, bvh::BuildOptions, collider::AnySub, collider::Collider, collider::Contacts,
    dual::DualOptions, kdop::Descent, kind::BvKind, scene::Counters, scene::Mode,
    tumble::TumbleMethod,
};

/// What `stats.json` sums over the poses, added up as they stream by.
#[derive(Debug, Default, Clone)]
pub struct Totals {
    /// Poses answered.
    pub poses: usize,
    /// Triangle pairs reported.
    pub pairs: usize,
    /// Poses with at least one pair.
    pub in_contact: usize,
    /// Nv, Np, Nu and the hierarchy's sub-counters.
    pub counters: Counters<AnySub>,
}

impl Totals {
    /// Adds one pose's result.
    pub fn add(&mut self, r: &Contacts) {
        self.poses += 1;
        self.pairs += r.pairs.len();
        self.in_contact += !r.pairs.is_empty() as usize;
        self.counters += r.counters;
    }
}

/// A query's settings and timings that the collider does not hold.
#[derive(Debug, Clone)]
pub struct RunFacts {
    /// `cpu`, or `gpu: ADAPTER`.
    pub backend: String,
    /// The build options of A and B (`leaf_size` may differ).
    pub build: [BuildOptions; 2],
    /// `--box-test` (reported for the boxtree only).
    pub box_test: BoxTest,
    /// The dual hierarchy's options (reported for `dual*` only).
    pub dual: DualOptions,
    /// The k-DOPs' descent rule as asked.
    pub descent: Descent,
    /// Whether the run used coherence (asked, and a k-DOP scene on the CPU in all mode).
    pub coherence: bool,
    /// All pairs or the first per pose.
    pub mode: Mode,
    /// How B's volumes follow the pose.
    pub tumble: TumbleMethod,
    /// Triangles of A and B.
    pub triangles: [usize; 2],
    /// Reading the mesh files.
    pub load_ms: f64,
    /// Probing the GPU adapter (`--backend auto|gpu`; `None` on `--backend cpu`).
    pub gpu_probe_ms: Option<f64>,
    /// Building (or loading from `.mch`) both hierarchies.
    pub build_ms: f64,
    /// Answering the poses.
    pub query_ms: f64,
    /// `--pose-range START:END`, when given.
    pub pose_range: Option<[usize; 2]>,
    /// The `.mch` files A's and B's hierarchies were loaded from, if they were.
    pub saved: [Option<String>; 2],
    /// What the GPU did (GPU backend only).
    pub gpu: Option<GpuStatsJson>,
}

/// The descent rule the query really used: the k-DOPs follow `--descent` (`auto` reports
/// its kdop18 tree's rule; its OBB tree always descends the larger volume), the dual
/// hierarchy always descends by Algorithm 1 of Klosowski et al. (`env`), the boxtree and the R-tree have
/// traversals of their own (`own`).
pub fn descent_used(bv: BvKind, descent: Descent) -> &'static str {
    if BvKind::ALL.contains(&bv.concrete()) {
        descent.name()
    } else if bv.is_dual() {
        Descent::Environment.name()
    } else {
        "own"
    }
}

impl Stats {
    /// The statistics of a finished query over `collider`.
    pub fn new(collider: &Collider, run: RunFacts, totals: &Totals) -> Stats {
        Stats::of_hierarchies(
            collider.kind(),
            collider.hierarchy_sizes(),
            collider.depths(),
            run,
            totals,
        )
    }

    /// The statistics of a finished query over hierarchies of kind `bv` with these node
    /// counts and bytes (`sizes`) and depths (A, B).
    pub fn of_hierarchies(
        bv: BvKind,
        sizes: [(usize, usize); 2],
        depths: [u32; 2],
        run: RunFacts,
        totals: &Totals,
    ) -> Stats {
        let c = totals.counters;
        let [(nodes_a, bytes_a), (nodes_b, bytes_b)] = sizes;
        let [depth_a, depth_b] = depths;
        let [oa, ob] = run.build;
        let [saved_a, saved_b] = run.saved;
        let auto = c.sub.auto();
        let bv_ran = match auto {
            Some(a) => [(BvKind::Kdop18, a.kdop18_poses), (BvKind::Obb, a.obb_poses)]
                .into_iter()
                .filter(|&(_, n)| n > 0)
                .map(|(k, n)| (k.name().to_string(), n))
                .collect(),
            // No pose reached `auto`'s choice (an empty run): nothing ran.
            None if bv == BvKind::Auto => Default::default(),
            None => [(bv.name().to_string(), totals.poses as u64)].into(),
        };
        Stats {
            backend: run.backend,
            bv: bv.name().into(),
            bv_ran,
            box_test: (bv == BvKind::Boxtree).then(|| run.box_test.name().into()),
            poses: totals.poses,
            pose_range: run.pose_range,
            saved_a,
            saved_b,
            build_ms: run.build_ms,
            query_ms: run.query_ms,
            pairs: totals.pairs,
            bv_tests: c.bv_tests,
            tri_tests: c.tri_tests,
            bv_updates: c.bv_updates,
            mode: run.mode.name().into(),
            split: oa.rule.name().into(),
            split_point: oa.point.name().into(),
            leaf_size_a: oa.leaf_size,
            leaf_size_b: ob.leaf_size,
            tumble: run.tumble.name().into(),
            descent: descent_used(bv, run.descent).into(),
            coherence: run.coherence,
            threads: rayon::current_num_threads(),
            triangles_a: run.triangles[0],
            triangles_b: run.triangles[1],
            nodes_a,
            nodes_b,
            node_bytes: bytes_a / nodes_a.max(1),
            hierarchy_bytes_a: bytes_a,
            hierarchy_bytes_b: bytes_b,
            depth_a,
            depth_b,
            poses_in_contact: totals.in_contact,
            load_ms: run.load_ms,
            gpu_probe_ms: run.gpu_probe_ms,
            dual: bv.is_dual().then(|| DualStatsJson {
                symmetric: run.dual.symmetric,
                slab_order: run.dual.order.name().into(),
                sphere_rejects: c.dual().sphere_rejects,
                slab_rejects: c.dual().slab_rejects,
                accepted: c.bv_tests - c.dual().sphere_rejects - c.dual().slab_rejects,
                slab_tests: c.dual().slab_tests,
            }),
            auto: auto.map(|a| AutoStatsJson {
                kdop18_poses: a.kdop18_poses,
                obb_poses: a.obb_poses,
                probes: a.probes,
                probe_lost_tests: a.probe_lost_tests,
            }),
            gpu: run.gpu,
            deform: None,
            tolerance: None,
            budget: None,
        }
    }
}

#[cfg(feature = "gpu")]
impl From<crate::gpu::collide::GpuStats> for GpuStatsJson {
    fn from(g: crate::gpu::collide::GpuStats) -> Self {
        GpuStatsJson {
            dispatches: g.dispatches,
            bytes_uploaded: g.bytes_uploaded,
            submissions: g.submissions,
            reruns: g.reruns,
            resumes: g.resumes,
            splits: g.splits,
            unsure_pairs: g.unsure,
            readbacks: g.readbacks,
            bytes_read_back: g.bytes_read_back,
            peak_buffer_bytes: g.peak_buffer_bytes,
            front_sizes_per_level: g.level_sizes,
            seeded_poses: g.seeded_poses,
            coherence_off: g.coherence_off,
            rerooted_poses: g.rerooted_poses,
            batches: g.batches,
        }
    }
}
