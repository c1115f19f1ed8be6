//! `Collider.last_stats`: the `stats.json` object of `meshcollide query --stats`
//! (`docs/FORMATS.md`), assembled by the library's [`Stats::new`] as the command line does.

use crate::options::Options;
use meshcollide::formats::{RunFacts, Stats, Totals};
use meshcollide::gpu::collide::GpuStats;
use meshcollide::{Mode, TumbleMethod};

/// One query's facts beyond the collider's.
pub struct Run {
    pub backend: String,
    /// Why `backend="auto"` chose the CPU, if it did for want of a hardware GPU.
    pub note: Option<String>,
    /// Milliseconds this call spent probing the GPU adapter (`None`: the process's device was
    /// kept from an earlier call, or the CPU was asked for).
    pub probe_ms: Option<f64>,
    pub mode: Mode,
    pub tumble: TumbleMethod,
    pub query_ms: f64,
    pub load_ms: f64,
    pub build_ms: f64,
    pub triangles: [usize; 2],
    /// The `.mch` files the hierarchies were loaded from.
    pub saved: [Option<String>; 2],
    pub totals: Totals,
    pub gpu: Option<GpuStats>,
    /// Whether the query ran with coherence on (`coherence=`, resolved for its poses).
    pub coherence: bool,
    /// `tolerance=` (0: the ordinary query, and no `tolerance` field).
    pub tolerance: f64,
    /// `budget=`: the budget and what it left undecided.
    pub budget: Option<meshcollide::formats::BudgetStatsJson>,
}

impl Run {
    /// The `stats.json` object, serialized (plus `note` when there is one).
    pub fn stats_json(self, collider: &meshcollide::Collider, o: &Options) -> String {
        let gpu = self.backend.starts_with("gpu");
        let facts = RunFacts {
            backend: self.backend,
            build: o.build_options(),
            box_test: o.box_test,
            dual: o.dual(),
            descent: o.descent.unwrap_or_default(),
            coherence: self.coherence && collider.kind().coherent(gpu),
            mode: self.mode,
            tumble: self.tumble,
            triangles: self.triangles,
            load_ms: self.load_ms,
            // Reported apart, as `last_stats["gpu_probe_ms"]`, on the call that probed.
            gpu_probe_ms: None,
            build_ms: self.build_ms,
            query_ms: self.query_ms,
            pose_range: None,
            saved: self.saved,
            gpu: self.gpu.map(Into::into),
        };
        let mut stats = Stats::new(collider, facts, &self.totals);
        stats.tolerance = (self.tolerance != 0.0).then_some(self.tolerance);
        stats.budget = self.budget;
        let mut v = serde_json::to_value(&stats).unwrap_or_default();
        if let Some(m) = v.as_object_mut() {
            if let Some(note) = self.note {
                m.insert("note".into(), note.into());
            }
            // Apart from `build_ms`: the adapter probe, once per process.
            if let Some(ms) = self.probe_ms {
                m.insert("gpu_probe_ms".into(), ms.into());
            }
        }
        v.to_string()
    }
}
