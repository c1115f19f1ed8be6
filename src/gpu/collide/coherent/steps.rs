//! What a coherent step leaves for the next: the CPU's rule after a step ([`after_step`]:
//! the off-switch, the fronts, the pretest's test), the state a step updates ([`Step`]),
//! and a chunk held across single-pose calls ([`FrameChunk`], deforming frames).

use super::*;

/// The CPU's rule after a step (`KdopScene::collide_coherent`): the off-switch from Nv, the
/// fronts for the next step, the pretest's test added to Nv.
pub(in crate::gpu::collide) fn after_step<Sub>(
    lane: &[usize],
    fronts: Vec<Front>,
    screen: Screen<'_>,
    out: &mut Step<'_, Sub>,
) {
    for (&i, front) in lane.iter().zip(fronts) {
        let chunk = &mut out.chunks[i / out.chunk_len];
        let r = out.results[i].as_mut().expect("just run");
        let nv = r.counters.bv_tests;
        if !chunk.off {
            if chunk.seed().is_none() {
                out.stats.rerooted_poses += !chunk.front.is_empty() as u64;
                chunk.root_nv = nv;
                chunk.root_front = front.len();
            } else {
                out.stats.seeded_poses += 1;
                if nv > chunk.root_nv {
                    chunk.off = true;
                    out.stats.coherence_off += 1;
                }
            }
        }
        chunk.front = if chunk.off { Front::default() } else { front };
        r.counters.bv_tests += screen.nv();
    }
}

/// What a step updates: the chunks (pose `i` in chunk `i / chunk_len`), the results (by
/// pose), the call's stats and its split ([`GpuScene::run_step`]).
pub(in crate::gpu::collide) struct Step<'a, Sub> {
    pub(in crate::gpu::collide) chunks: &'a mut [Chunk],
    /// Poses per chunk: [`POSE_CHUNK`] with coherence, else 1.
    pub(in crate::gpu::collide) chunk_len: usize,
    pub(in crate::gpu::collide) results: &'a mut [Option<PoseResult<Sub>>],
    /// A budgeted run's frontier by pose: the child pairs the device did not test
    /// ([`super::super::budget`]); empty lists otherwise.
    pub(in crate::gpu::collide) unresolved: &'a mut [Unresolved],
    pub(in crate::gpu::collide) stats: &'a mut GpuStats,
    /// Most poses of the next batch after one did not fit (`None`: as planned).
    pub(in crate::gpu::collide) cut: &'a mut Option<usize>,
}

/// One chunk held across calls of one pose each ([`GpuScene::collide_frame`]): the CPU's
/// `FrontTrack` with its frame counter (`DeformingScene::query_frame`'s `frames`), the
/// front kept on the device.
#[derive(Default)]
pub(crate) struct FrameChunk {
    pub(super) chunk: Chunk,
    /// Frames traversed: every [`POSE_CHUNK`]-th starts a new chunk at the roots.
    frames: u64,
}

impl FrameChunk {
    /// New trees (a rebuild): the roots, coherence on (`FrontTrack::restart`).
    pub(crate) fn restart(&mut self) {
        self.chunk = Chunk::default();
    }

    /// A frame the pretest separated: the next starts at the roots (`FrontTrack::forget`).
    pub(crate) fn forget(&mut self) {
        self.chunk.front = Front::default();
    }

    /// Counts a traversed frame, coherent or not (a chunk restarts at every
    /// [`POSE_CHUNK`]-th, as on the CPU); true when the chunk's next frame follows it.
    pub(crate) fn tick(&mut self) -> bool {
        if self.frames.is_multiple_of(POSE_CHUNK as u64) {
            self.restart();
        }
        self.frames += 1;
        !self.frames.is_multiple_of(POSE_CHUNK as u64)
    }
}
