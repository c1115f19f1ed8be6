//! The batch pipeline's sequence of dispatches, written once. The device records it
//! (`GpuScene::record`, one compute pass per submission) and the CPU mirror
//! ([`crate::gpu::mirror::collide_batch_mirror_with`]) runs it, each walking [`stages`]
//! and matching on the [`Stage`]: a stage added, dropped or moved here moves in both, and
//! the mirror's per-level parity with the device (`level_sizes`, pairs, Nv, Np, Nu) tests
//! the order.

use super::resume::Resume;
use crate::gpu::kernels::{self, Kernel};

/// How B's k-DOPs follow the poses in a batch: which tumbling stages run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tumbling {
    /// Nothing tumbled: the OBB and sphere trees pose B's volumes from the frame. The host
    /// tests their root pairs (`roots::HostRoots`), so a batch of two levels or more starts
    /// at level 1.
    None,
    /// The approximation method, lazily: the (pose, node) pairs the front reaches, the
    /// first level's (the roots, or a coherent step's seeds) by `tumble_front`,
    /// `prepare_tumble`, `tumble_fresh`, every later level's by the expansion that pushes
    /// them.
    Lazy,
    /// The exact method: every node of B per pose before the descent, in `slices`
    /// dispatches (the leaves, then each internal level, deepest first).
    Exact { slices: usize },
}

/// One dispatch of the batch pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Exact tumbling, slice `k` of B's nodes (0: the leaves from the posed corners, then
    /// merges from the children).
    TumbleExact(usize),
    /// A full tumbling table moved into a larger one (a resume, [`Resume::Table`]).
    Rehash,
    /// The frozen level's pairs pointed at the moved table's slots.
    Reslot,
    /// The level's front claims the (pose, node) pairs it reaches.
    TumbleFront,
    /// The dispatch size of `tumble_fresh`, written on the device.
    PrepareTumble,
    /// The nodes `tumble_front` claimed, tumbled.
    TumbleFresh,
    /// The level's node pairs tested, children and leaf pairs appended (the scene's
    /// expansion kernel: k-DOP, dual, OBB, sphere, or k-DOP recording the front); its last
    /// workgroup hands the level over (the next level's input and dispatch size, the
    /// level's size recorded, the triangle tests' dispatch size).
    Expand,
    /// The triangle pairs of every level's leaf pairs, once after the last level.
    TriTest,
}

impl Stage {
    /// The kernel the stage dispatches (for [`Stage::Expand`], the k-DOP scene's; the
    /// scene picks its own expansion) and the label of its timestamp.
    pub(crate) fn kernel(self) -> &'static Kernel {
        match self {
            Stage::TumbleExact(0) => &kernels::TUMBLE_EXACT_LEAVES,
            Stage::TumbleExact(_) => &kernels::TUMBLE_EXACT_MERGE,
            Stage::Rehash => &kernels::REHASH,
            Stage::Reslot => &kernels::RESLOT,
            Stage::TumbleFront => &kernels::TUMBLE_FRONT,
            Stage::PrepareTumble => &kernels::PREPARE_TUMBLE,
            Stage::TumbleFresh => &kernels::TUMBLE_FRESH,
            Stage::Expand => &kernels::EXPAND,
            Stage::TriTest => &kernels::TRI_TEST,
        }
    }

    /// The timestamp label of the kernel clock (`MESHCOLLIDE_GPU_PROFILE`): the entry
    /// point, with exact tumbling's two kernels counted as one.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Stage::TumbleExact(_) => "tumble_exact",
            s => s.kernel().entry,
        }
    }
}

/// The dispatches of one submission of a batch of `levels` levels, from `from` to the last
/// level, each with its level: exact tumbling first, or lazily the tumbling of the first
/// level's front, then each level's expansion, then the triangle tests of every level's
/// leaf pairs (tagged with the last level). A resume starts inside a level: a moved table
/// ([`Resume::Table`]) rehashes and reslots, then tumbles the level's front (what has no
/// slot yet) and expands it; a frozen expansion ([`Resume::Expand`]) runs the level's
/// expansion again; frozen triangle tests ([`Resume::Tri`]) run only those.
pub(crate) fn stages(levels: u32, tumbling: Tumbling, from: Resume) -> Vec<(u32, Stage)> {
    let mut out = Vec::new();
    let lazy = tumbling == Tumbling::Lazy;
    let last = levels.saturating_sub(1);
    let first = match from {
        Resume::Start if tumbling == Tumbling::None && levels > 1 => 1,
        Resume::Start => {
            if let Tumbling::Exact { slices } = tumbling {
                out.extend((0..slices).map(|k| (0, Stage::TumbleExact(k))));
            }
            0
        }
        Resume::Table(level) => {
            out.extend([(level, Stage::Rehash), (level, Stage::Reslot)]);
            level
        }
        Resume::Expand(level) => level,
        Resume::Tri(_) => levels,
    };
    for level in first..levels {
        let tumble_front = level == first && matches!(from, Resume::Start | Resume::Table(_));
        if lazy && tumble_front {
            out.extend(
                [Stage::TumbleFront, Stage::PrepareTumble, Stage::TumbleFresh].map(|s| (level, s)),
            );
        }
        out.push((level, Stage::Expand));
    }
    out.push((last, Stage::TriTest));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From the start, lazily: the tumbling of the first level's front, then one
    /// expansion per level (each tumbles what it pushes) and the triangle tests once at
    /// the end. The count is what `GpuStats::dispatches` counts per submission (3, one
    /// per level, 1).
    #[test]
    fn a_lazy_batch_tumbles_the_first_front_then_expands_each_level() {
        let s = stages(3, Tumbling::Lazy, Resume::Start);
        assert_eq!(
            s,
            [
                (0, Stage::TumbleFront),
                (0, Stage::PrepareTumble),
                (0, Stage::TumbleFresh),
                (0, Stage::Expand),
                (1, Stage::Expand),
                (2, Stage::Expand),
                (2, Stage::TriTest),
            ]
        );
    }

    /// Exact tumbling runs its slices once, before level 0, and no lazy stage.
    #[test]
    fn an_exact_batch_tumbles_every_slice_first() {
        let s = stages(2, Tumbling::Exact { slices: 4 }, Resume::Start);
        let kinds: Vec<Stage> = s.iter().map(|&(_, k)| k).collect();
        assert_eq!(
            kinds[..4],
            [0, 1, 2, 3].map(Stage::TumbleExact),
            "the leaves first, then the merges"
        );
        assert_eq!(kinds[4..], [Stage::Expand, Stage::Expand, Stage::TriTest]);
        assert!(!kinds.contains(&Stage::TumbleFront));
        // The volume trees: level 0 is the host's.
        assert_eq!(
            stages(3, Tumbling::None, Resume::Start),
            [(1, Stage::Expand), (2, Stage::Expand), (2, Stage::TriTest)]
        );
        assert_eq!(
            stages(1, Tumbling::None, Resume::Start),
            [(0, Stage::Expand), (0, Stage::TriTest)]
        );
    }

    /// A resume runs a suffix: the triangle tests only, the frozen level's expansion again
    /// (not its tumbling), or a moved table then the level's tumbling again.
    #[test]
    fn a_resume_runs_the_rest_of_the_frozen_level_then_the_later_levels() {
        let full = stages(4, Tumbling::Lazy, Resume::Start);
        let from = |level: u32, stage: Stage| {
            let at = full.iter().position(|&s| s == (level, stage)).unwrap();
            full[at..].to_vec()
        };
        assert_eq!(
            stages(4, Tumbling::Lazy, Resume::Tri(3)),
            from(3, Stage::TriTest)
        );
        assert_eq!(
            stages(4, Tumbling::Lazy, Resume::Expand(1)),
            from(1, Stage::Expand)
        );
        let table = stages(4, Tumbling::Lazy, Resume::Table(2));
        assert_eq!(table[..2], [(2, Stage::Rehash), (2, Stage::Reslot)]);
        assert_eq!(
            table[2..5],
            [Stage::TumbleFront, Stage::PrepareTumble, Stage::TumbleFresh].map(|s| (2, s))
        );
        assert_eq!(table[5..], from(2, Stage::Expand)[..]);
        for s in [Stage::TumbleExact(0), Stage::TumbleExact(5), Stage::Expand] {
            assert!(!s.label().is_empty());
        }
        assert_eq!(Stage::TumbleExact(0).kernel().entry, "tumble_exact_leaves");
        assert_eq!(Stage::TumbleExact(1).kernel().entry, "tumble_exact_merge");
    }
}
