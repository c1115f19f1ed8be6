//! What the batch pipeline did: per batch ([`BatchWork`], for a work model of real GPUs)
//! and per call ([`GpuStats`]).

use super::finish::BatchOutput;
use super::{GpuScene, PAIR};
use crate::bv::KdopNode;
use crate::gpu::layout::GpuCounters;

/// The work of one submitted batch, counted for a work model of real hardware
/// (`docs/notebook/gpu-vs-cpu.md`, "Work model for real GPUs"). Reads are counted as the
/// kernels issue them.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct BatchWork {
    /// Poses in the batch.
    pub poses: u64,
    /// Node pairs tested (Nv, all poses).
    pub node_pairs: u64,
    /// Flying nodes tumbled (Nu, all poses).
    pub nodes_tumbled: u64,
    /// Triangle pairs tested (Np, all poses).
    pub tri_pairs: u64,
    /// Bytes the kernels read from node arrays, tumbled k-DOPs and bounding points.
    pub node_bytes_read: u64,
    /// Atomic operations issued by the kernels (appends, counters, table inserts).
    pub atomics: u64,
    /// Compute dispatches recorded.
    pub dispatches: u64,
    /// Those of them sized on the device (`dispatch_workgroups_indirect`): the ones a
    /// driver may cost more for (wgpu's own validation of them is off, `gpu::context`).
    pub indirect_dispatches: u64,
    /// Tree levels the batch descends (depth of A + depth of B − 1): dispatches per level
    /// is `dispatches / levels` for a batch that did not resume.
    pub levels: u64,
    /// Bytes written to the device for this batch.
    pub bytes_uploaded: u64,
    /// Bytes copied back to the host.
    pub bytes_read_back: u64,
    /// Readbacks (each one a wait for the device).
    pub readbacks: u64,
    /// Submissions, re-runs and resumes included.
    pub submissions: u64,
    /// Overflows handled by growing the buffers and resuming at the frozen level.
    pub resumes: u64,
    /// Whole-batch re-runs before this batch completed, those of attempts that were then
    /// split into smaller batches included (they sum to `reruns` of `stats.json`).
    pub reruns: u64,
    /// Bytes of the batch buffers at the time.
    pub buffer_bytes: u64,
    /// Device time per kernel (nanoseconds, every submission of the batch) when the kernel
    /// clock ran (`MESHCOLLIDE_GPU_PROFILE=1` on an adapter with timestamps; see
    /// [`super::profile`]); empty, and absent from `stats.json`, otherwise.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub kernel_ns: std::collections::BTreeMap<String, u64>,
}

/// What one batch call did, for stats and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct GpuStats {
    /// Front size (node pairs entering each level), summed over batches.
    pub level_sizes: Vec<u64>,
    /// Compute dispatches recorded (indirect ones included).
    pub dispatches: u64,
    /// Bytes written to the device (static arrays once, then per batch).
    pub bytes_uploaded: u64,
    /// Triangle pairs the f32 filter left to the exact CPU test.
    pub unsure: u64,
    /// Submissions (batches plus re-runs after overflow).
    pub submissions: u64,
    /// Re-runs caused by exhausted capacity.
    pub reruns: u64,
    /// Overflows handled by growing buffers and resuming the batch where it stopped.
    pub resumes: u64,
    /// Batches cut to fewer poses because a buffer would exceed the device's limit.
    pub splits: u64,
    /// Readbacks (waits for the device).
    pub readbacks: u64,
    /// Bytes copied back to the host.
    pub bytes_read_back: u64,
    /// Largest total of the batch buffers (bytes), static arrays excluded.
    pub peak_buffer_bytes: u64,
    /// Per batch that completed: its work.
    pub batches: Vec<BatchWork>,
    /// Temporal coherence: poses that started from their chunk's previous front.
    pub seeded_poses: u64,
    /// Temporal coherence: chunks where a pose from a front tested more node pairs than
    /// the chunk's descent from the roots, which turned coherence off for the chunk's rest.
    pub coherence_off: u64,
    /// Temporal coherence: poses started at the roots again because their chunk's front
    /// had grown past 5/4 of the front its last descent from the roots recorded
    /// (`traverse::regrown`).
    pub rerooted_poses: u64,
    /// Temporal coherence: batches whose fronts stayed on the device for the next step
    /// (only per-lane counts read back, the next seeds gathered there).
    pub fronts_on_device: u64,
    /// Temporal coherence: batches whose fronts were read back for the next step (the
    /// fallback: a step split over batches, or a resume, whose duplicates the host drops).
    pub fronts_on_host: u64,
}

impl GpuStats {
    /// Device time per kernel over all batches (nanoseconds; empty unless the kernel clock
    /// ran, see [`super::profile`]).
    pub fn kernel_ns(&self) -> std::collections::BTreeMap<String, u64> {
        let mut sum = std::collections::BTreeMap::new();
        for (k, ns) in self.batches.iter().flat_map(|b| &b.kernel_ns) {
            *sum.entry(k.clone()).or_default() += ns;
        }
        sum
    }
}

impl GpuStats {
    /// A completed batch's work and level sizes added to the call's stats; the one place a
    /// batch is folded in, whichever driver ran it (re-runs are counted where they happen).
    pub(super) fn add_batch(&mut self, work: BatchWork, out: &BatchOutput) {
        for (s, v) in self.level_sizes.iter_mut().zip(&out.level_sizes) {
            *s += *v as u64;
        }
        self.dispatches += work.dispatches;
        self.bytes_uploaded += work.bytes_uploaded;
        self.submissions += work.submissions;
        self.resumes += work.resumes;
        self.readbacks += work.readbacks;
        self.bytes_read_back += work.bytes_read_back;
        self.peak_buffer_bytes = self.peak_buffer_bytes.max(work.buffer_bytes);
        self.batches.push(work);
    }
}

/// A whole call's stats added to a total (a deforming collider's frames; `add_batch` folds
/// one batch into its call): counts summed, level sizes summed level by level, the peak
/// buffer the larger, batches kept in order.
impl std::ops::AddAssign for GpuStats {
    fn add_assign(&mut self, s: GpuStats) {
        let total = self;
        if total.level_sizes.len() < s.level_sizes.len() {
            total.level_sizes.resize(s.level_sizes.len(), 0);
        }
        for (t, v) in total.level_sizes.iter_mut().zip(&s.level_sizes) {
            *t += v;
        }
        total.dispatches += s.dispatches;
        total.bytes_uploaded += s.bytes_uploaded;
        total.unsure += s.unsure;
        total.submissions += s.submissions;
        total.reruns += s.reruns;
        total.resumes += s.resumes;
        total.splits += s.splits;
        total.readbacks += s.readbacks;
        total.bytes_read_back += s.bytes_read_back;
        total.peak_buffer_bytes = total.peak_buffer_bytes.max(s.peak_buffer_bytes);
        total.seeded_poses += s.seeded_poses;
        total.coherence_off += s.coherence_off;
        total.rerooted_poses += s.rerooted_poses;
        total.fronts_on_device += s.fronts_on_device;
        total.fronts_on_host += s.fronts_on_host;
        total.batches.extend(s.batches);
    }
}

impl<const H: usize> GpuScene<H> {
    /// A completed batch's counts in its work: node and triangle pairs from the output,
    /// nodes tumbled (every flying node per pose when `dense`), then the work model
    /// ([`GpuScene::count_work`]).
    pub(super) fn account(
        &self,
        work: &mut BatchWork,
        out: &BatchOutput,
        c: &GpuCounters,
        dense: bool,
    ) {
        work.node_pairs = out.nv.iter().map(|&v| v as u64).sum();
        work.tri_pairs = out.np.iter().map(|&v| v as u64).sum();
        work.nodes_tumbled = if dense {
            work.poses * self.n_fly as u64
        } else {
            c.n_tumbled as u64
        };
        self.count_work(work, c, dense);
    }

    /// The work model's reads and atomics of a finished batch, from its counters (see
    /// [`BatchWork`]): per node pair tested, A's node and B's tumbled k-DOP (and B's node
    /// when descending); per tumbled node, its bounding points and, lazily, the table probe
    /// and the `fresh` list; per leaf pair, both nodes; atomics: one per node pair (Nv), one
    /// per two children appended, three per tumbled node (the insert, its list entry, Nu),
    /// one per leaf pair (Np) and one per contact or unsure pair.
    pub(super) fn count_work(&self, w: &mut BatchWork, c: &GpuCounters, dense: bool) {
        let node = std::mem::size_of::<KdopNode<H>>() as u64;
        let appended: u64 = w.node_pairs.saturating_sub(w.poses); // every pair but the roots was appended
        let leaves = c.max_leaf as u64; // every level's leaf pairs (the list keeps them all)
        let point_bytes = (self.points_per_node * 12.0) as u64;
        w.node_bytes_read = w.node_pairs * (node + self.slot + PAIR)
            + appended * 8
            + w.nodes_tumbled * (point_bytes + if dense { 0 } else { 12 + PAIR })
            + leaves * 2 * 8;
        w.atomics = w.node_pairs
            + appended / 2
            + 3 * w.nodes_tumbled
            + leaves
            + c.n_contact as u64
            + c.n_unsure as u64;
    }
}
