//! The command line's output files (`docs/FORMATS.md`): `pairs.csv` and `stats.json`.

use crate::scene::PoseResult;
use std::io::Write;

mod self_stats;
mod stats;
pub use self_stats::SelfStats;
pub use stats::{RunFacts, Totals, descent_used};

/// The header of `pairs.csv`.
pub const PAIRS_HEADER: &str = "pose,tri_a,tri_b";

/// Writes `pairs.csv`: sorted by pose, then tri_a, then tri_b (each pose's pairs already are).
pub fn write_pairs<S>(w: &mut impl Write, results: &[PoseResult<S>]) -> std::io::Result<()> {
    writeln!(w, "{PAIRS_HEADER}")?;
    for (pose, r) in results.iter().enumerate() {
        write_pose_pairs(w, pose, &r.pairs)?;
    }
    Ok(())
}

/// Writes the `pairs.csv` rows of one pose (no header): the one place the row format is.
pub fn write_pose_pairs(
    w: &mut impl Write,
    pose: usize,
    pairs: &[(u32, u32)],
) -> std::io::Result<()> {
    // Each row assembled on the stack by `itoa` (the same decimal digits as `{}`): a pose
    // of many contacts spent 3–4 % of its query in `core::fmt`'s row formatting. A pose
    // without pairs costs nothing here (a call of separated poses is 65 ns a pose).
    if pairs.is_empty() {
        return Ok(());
    }
    let mut digits = itoa::Buffer::new();
    // At most 20 + 1 + 10 + 1 + 10 + 1 bytes: a usize, two u32, two commas, a newline.
    let mut row = [0u8; 48];
    let prefix = put(&mut row, 0, digits.format(pose).as_bytes());
    let prefix = put(&mut row, prefix, b",");
    for &(a, b) in pairs {
        let end = put(&mut row, prefix, digits.format(a).as_bytes());
        let end = put(&mut row, end, b",");
        let end = put(&mut row, end, digits.format(b).as_bytes());
        let end = put(&mut row, end, b"\n");
        w.write_all(&row[..end])?;
    }
    Ok(())
}

/// Copies `bytes` into `row` at `at`; the end.
#[inline(always)]
fn put(row: &mut [u8], at: usize, bytes: &[u8]) -> usize {
    row[at..at + bytes.len()].copy_from_slice(bytes);
    at + bytes.len()
}

/// Parses `pairs.csv` text back into `(pose, tri_a, tri_b)` triples (for tests and tools).
pub fn parse_pairs(text: &str) -> Result<Vec<(u32, u32, u32)>, String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(PAIRS_HEADER) {
        return Err(format!("missing header `{PAIRS_HEADER}`"));
    }
    lines
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let v: Vec<u32> = l
                .split(',')
                .map(|f| f.trim().parse::<u32>())
                .collect::<Result<_, _>>()
                .map_err(|e| format!("line {}: {e}", i + 2))?;
            match v[..] {
                [p, a, b] => Ok((p, a, b)),
                _ => Err(format!("line {}: expected 3 fields", i + 2)),
            }
        })
        .collect()
}

/// The statistics object of `--stats` (the fields `docs/FORMATS.md` requires, then ours).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Stats {
    pub backend: String,
    /// The hierarchy asked for (`--bv`; `auto` stays `auto`: it picks per call, so a run
    /// may use both trees). What ran is `bv_ran`.
    pub bv: String,
    /// The hierarchies that answered the poses, each with its number of poses: the one of
    /// `bv` with every pose; under `auto`, `kdop18` and `obb` with the poses each traversed
    /// past the posed-box pretest (`auto.kdop18_poses`, `auto.obb_poses`; a tree with none
    /// left out, so an empty object when the pretest answered every pose).
    pub bv_ran: std::collections::BTreeMap<String, u64>,
    /// `--box-test` (boxtree only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub box_test: Option<String>,
    pub poses: usize,
    /// `--pose-range START:END`, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pose_range: Option<[usize; 2]>,
    /// The `.mch` file A's (B's) hierarchy was loaded from instead of built (`build_ms` is
    /// then its load).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_a: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved_b: Option<String>,
    pub build_ms: f64,
    pub query_ms: f64,
    pub pairs: usize,
    pub bv_tests: u64,
    pub tri_tests: u64,
    pub bv_updates: u64,
    pub mode: String,
    pub split: String,
    pub split_point: String,
    pub leaf_size_a: u32,
    pub leaf_size_b: u32,
    pub tumble: String,
    /// The descent rule used: `larger` or `env` for the k-DOPs, `env` for the dual
    /// hierarchy (always Algorithm 1 of Klosowski et al.), `own` for the boxtree and the
    /// R-tree.
    pub descent: String,
    /// Whether poses started from the previous pose's front (`--coherence`, k-DOPs on the
    /// CPU in all-contacts mode): Nv then counts fewer tests for the same pairs.
    #[serde(default)]
    pub coherence: bool,
    pub threads: usize,
    pub triangles_a: usize,
    pub triangles_b: usize,
    pub nodes_a: usize,
    pub nodes_b: usize,
    pub node_bytes: usize,
    pub hierarchy_bytes_a: usize,
    pub hierarchy_bytes_b: usize,
    pub depth_a: u32,
    pub depth_b: u32,
    pub poses_in_contact: usize,
    pub load_ms: f64,
    /// Probing the GPU adapter and opening its device (`--backend auto|gpu`), apart from
    /// `build_ms`: tens of milliseconds, hundreds on a software adapter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_probe_ms: Option<f64>,
    /// Sub-tests of the dual k-DOP–sphere hierarchy (`--bv dual*` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dual: Option<DualStatsJson>,
    /// Which tree answered (`--bv auto` only; `crate::auto`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto: Option<AutoStatsJson>,
    /// What the GPU did (GPU backend only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu: Option<GpuStatsJson>,
    /// With frames (`--frames-a`, `--frames-b`): what the updates did.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub deform: Option<DeformStatsJson>,
    /// `--tolerance EPS` when not 0 (absent for the ordinary query, so that `--tolerance 0`
    /// writes the ordinary query's fields).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// `--budget N`: the budget and what it left undecided (absent without a budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetStatsJson>,
}

/// The budgeted query's part of `stats.json` (`crate::budget`).
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct BudgetStatsJson {
    /// Node tests per pose (`--budget`).
    pub nodes: u64,
    /// The frontier's order (`--budget-order`).
    pub order: String,
    /// Wall-clock budget per pose in microseconds (`--budget-us`), if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub micros: Option<u64>,
    /// Poses answered `maybe`.
    pub maybe: usize,
    /// Poses whose search did not finish (`maybe`, and `contact` with pairs left).
    pub incomplete: usize,
    /// The largest `depth_bound` of the run (0 when every pose finished).
    pub max_depth_bound: f64,
}

/// The header of `status.csv` (`docs/FORMATS.md`, "Budgeted queries").
pub const STATUS_HEADER: &str = "pose,answer,complete,depth_bound,bv_tests";

/// Appends the `status.csv` row of pose `pose`: the bound as the shortest decimal that
/// reads back as the same f64 (the f64 is itself an upper bound: rounded up).
pub fn write_status_row(buf: &mut Vec<u8>, pose: usize, s: &crate::budget::PoseStatus) {
    use std::io::Write;
    // Writing to a Vec cannot fail.
    let _ = writeln!(
        buf,
        "{pose},{},{},{},{}",
        s.answer.name(),
        u8::from(s.complete),
        s.depth_bound,
        s.bv_tests
    );
}

/// The deforming meshes' part of `stats.json` (`crate::deform`), at the top level.
#[derive(Debug, Clone, serde::Serialize)]
pub struct DeformStatsJson {
    /// Frames queried (equal to `poses`).
    pub frames: usize,
    /// `--update`: `refit`, `hybrid` or `rebuild`.
    pub update: String,
    /// Which meshes deform: `"A"`, `"B"` or `"AB"`.
    pub deforming: String,
    /// `--rebuild-ratio` (0: never).
    pub rebuild_ratio: f64,
    /// Updating the hierarchies before each traversal, summed over frames (the lazy part of
    /// the hybrid update runs in the traversal: `query_ms` includes it and `update_ms`).
    pub update_ms: f64,
    /// A's node volumes recomputed from frames (B's are in `bv_updates`).
    pub refit_nodes: u64,
    /// Hierarchies rebuilt (every frame's with `rebuild`; by the trigger otherwise).
    pub rebuilds: u64,
    /// Loading the frame files (in a second thread, one frame ahead of the query).
    pub frame_load_ms: f64,
}

/// The dual hierarchy's part of `stats.json` (`src/dual/mod.rs`): how the Nv node tests
/// were decided, summed over poses (`sphere_rejects + slab_rejects + accepted = bv_tests`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct DualStatsJson {
    pub symmetric: bool,
    /// `pair` (smallest Minkowski-sum extent first) or `fixed`.
    pub slab_order: String,
    /// Node pairs rejected by the sphere pretest.
    pub sphere_rejects: u64,
    /// Node pairs whose spheres overlapped, rejected by a k-DOP slab.
    pub slab_rejects: u64,
    /// Node pairs that passed both (descended, or leaf pairs triangle-tested).
    pub accepted: u64,
    /// Slab interval tests made (sub-tests, not in Nv).
    pub slab_tests: u64,
}

/// `--bv auto`'s part of `stats.json` (`src/auto.rs`), summed over poses.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AutoStatsJson {
    /// Poses past the pretest answered by the kdop18 tree.
    pub kdop18_poses: u64,
    /// Poses past the pretest answered by the OBB tree.
    pub obb_poses: u64,
    /// Probes run (one per chunk of 16 poses on the CPU, one per run on the GPU).
    pub probes: u64,
    /// Node tests the probes spent on the tree they did not pick (included in `bv_tests`).
    pub probe_lost_tests: u64,
}

/// The GPU part of `stats.json`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GpuStatsJson {
    pub dispatches: u64,
    pub bytes_uploaded: u64,
    pub submissions: u64,
    pub reruns: u64,
    /// Overflows handled by growing buffers and resuming the batch at the level it reached.
    pub resumes: u64,
    /// Batches split because a buffer would exceed the device's limit.
    pub splits: u64,
    /// Triangle pairs the f32 filter left to the exact CPU test.
    pub unsure_pairs: u64,
    /// Readbacks (waits for the device), all batches.
    pub readbacks: u64,
    /// Bytes copied back to the host, all batches.
    pub bytes_read_back: u64,
    /// Largest total of one batch's buffers (bytes; the uploaded hierarchies excluded).
    pub peak_buffer_bytes: u64,
    /// Node pairs entering each level of the breadth-first front, summed over poses.
    pub front_sizes_per_level: Vec<u64>,
    /// With coherence: poses started from the previous pose's front instead of the roots.
    pub seeded_poses: u64,
    /// With coherence: runs of consecutive poses where a pose from a front tested more node
    /// pairs than the run's descent from the roots, so the rest of the run started at the roots.
    pub coherence_off: u64,
    /// With coherence: poses started at the roots again because the run's front had grown
    /// past 5/4 of the front its last descent from the roots recorded.
    pub rerooted_poses: u64,
    /// Per batch: poses, node pairs tested, nodes tumbled, triangle pairs, bytes read from
    /// node arrays, atomics, dispatches, bytes up and back, readbacks, submissions.
    #[cfg(feature = "gpu")]
    pub batches: Vec<crate::gpu::collide::BatchWork>,
}

pub use crate::scene::total_counters;

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows `itoa` assembles are `{pose},{a},{b}` as `format!` writes them, at the
    /// edges of each field's digits and range, and parse back to the same triples.
    #[test]
    fn rows_are_the_decimal_format() {
        let edges = [
            0u32,
            1,
            9,
            10,
            99,
            100,
            65_535,
            1 << 24,
            u32::MAX - 1,
            u32::MAX,
        ];
        let pairs: Vec<(u32, u32)> = edges
            .iter()
            .flat_map(|&a| edges.iter().map(move |&b| (a, b)))
            .collect();
        for pose in [0usize, 7, 10, 123_456, u32::MAX as usize + 1, usize::MAX] {
            let mut got = Vec::new();
            write_pose_pairs(&mut got, pose, &pairs).unwrap();
            let want: String = pairs
                .iter()
                .map(|(a, b)| format!("{pose},{a},{b}\n"))
                .collect();
            assert_eq!(String::from_utf8(got).unwrap(), want, "pose {pose}");
        }
        let mut text = format!("{PAIRS_HEADER}\n").into_bytes();
        write_pose_pairs(&mut text, 3, &pairs).unwrap();
        let back = parse_pairs(std::str::from_utf8(&text).unwrap()).unwrap();
        let want: Vec<_> = pairs.iter().map(|&(a, b)| (3, a, b)).collect();
        assert_eq!(back, want);
        // One pair, one row; no pairs, no rows.
        let mut one = Vec::new();
        write_pose_pairs(&mut one, 5, &[(12, 0)]).unwrap();
        assert_eq!(one, b"5,12,0\n");
        let mut none = Vec::new();
        write_pose_pairs(&mut none, 5, &[]).unwrap();
        assert!(none.is_empty());
    }
}
