//! `Collider.last_stats`: the `stats.json` object of `meshcollide query --stats`
//! (`meshcollide::formats::Stats`, FORMATS.md), built from the same values.

use crate::options::Options;
use meshcollide::formats::{DualStatsJson, GpuStatsJson, Stats};
use meshcollide::gpu::collide::GpuStats;
use meshcollide::{AnySub, BvKind, Contacts, Counters, Descent, Mode, TumbleMethod};

/// What `stats.json` sums over the poses.
#[derive(Default)]
pub struct Totals {
    pub poses: usize,
    pub pairs: usize,
    pub in_contact: usize,
    pub counters: Counters<AnySub>,
}

impl Totals {
    pub fn add(&mut self, r: &Contacts) {
        self.poses += 1;
        self.pairs += r.pairs.len();
        self.in_contact += !r.pairs.is_empty() as usize;
        self.counters += r.counters;
    }
}

/// One query's facts beyond the collider's.
pub struct Run {
    pub backend: String,
    /// Why `backend="auto"` chose the CPU, if it did for want of a hardware GPU.
    pub note: Option<String>,
    pub mode: Mode,
    pub tumble: TumbleMethod,
    pub query_ms: f64,
    pub load_ms: f64,
    pub build_ms: f64,
    pub triangles: [usize; 2],
    pub totals: Totals,
    pub gpu: Option<GpuStats>,
}

/// The descent rule used (as the command line reports it): the k-DOPs' option, `env` for
/// the dual hierarchy (Algorithm 1), `own` for the boxtree and the R-tree.
fn descent_used(bv: BvKind, descent: Descent) -> &'static str {
    if BvKind::ALL.contains(&bv) {
        descent.name()
    } else if bv.is_dual() {
        Descent::Environment.name()
    } else {
        "own"
    }
}

impl Run {
    /// The `stats.json` object, serialized (plus `note` when there is one).
    pub fn stats_json(self, collider: &meshcollide::Collider, o: &Options) -> String {
        let bv = collider.kind();
        let c = self.totals.counters;
        let [(nodes_a, bytes_a), (nodes_b, bytes_b)] = collider.hierarchy_sizes();
        let [depth_a, depth_b] = collider.depths();
        let [oa, ob] = o.build_options();
        let stats = Stats {
            backend: self.backend,
            bv: bv.name().into(),
            box_test: (bv == BvKind::Boxtree).then(|| o.box_test.name().into()),
            poses: self.totals.poses,
            build_ms: self.build_ms,
            query_ms: self.query_ms,
            pairs: self.totals.pairs,
            bv_tests: c.bv_tests,
            tri_tests: c.tri_tests,
            bv_updates: c.bv_updates,
            mode: self.mode.name().into(),
            split: o.split.name().into(),
            split_point: o.split_point.name().into(),
            leaf_size_a: oa.leaf_size,
            leaf_size_b: ob.leaf_size,
            tumble: self.tumble.name().into(),
            descent: descent_used(bv, o.descent.unwrap_or_default()).into(),
            threads: rayon_threads(),
            triangles_a: self.triangles[0],
            triangles_b: self.triangles[1],
            nodes_a,
            nodes_b,
            node_bytes: bytes_a / nodes_a.max(1),
            hierarchy_bytes_a: bytes_a,
            hierarchy_bytes_b: bytes_b,
            depth_a,
            depth_b,
            poses_in_contact: self.totals.in_contact,
            load_ms: self.load_ms,
            dual: bv.is_dual().then(|| DualStatsJson {
                symmetric: o.dual_symmetric,
                slab_order: o.dual_order.name().into(),
                sphere_rejects: c.dual().sphere_rejects,
                slab_rejects: c.dual().slab_rejects,
                accepted: c.bv_tests - c.dual().sphere_rejects - c.dual().slab_rejects,
                slab_tests: c.dual().slab_tests,
            }),
            gpu: self.gpu.map(|g| GpuStatsJson {
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
                batches: g.batches,
            }),
        };
        let mut v = serde_json::to_value(&stats).unwrap_or_default();
        if let (Some(note), Some(m)) = (self.note, v.as_object_mut()) {
            m.insert("note".into(), note.into());
        }
        v.to_string()
    }
}

/// The worker threads of the queries (rayon's global pool, as the command line reports).
fn rayon_threads() -> usize {
    rayon::current_num_threads()
}
