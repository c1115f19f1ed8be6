//! Rust ↔ WGSL layout checks: every Rust struct shared with WGSL names its twin, and a test
//! parses the WGSL with naga and compares size, alignment-free offsets and member names.

/// Size and member offsets of WGSL struct `name` in `source` (naga's layouter, std430-like
/// storage rules), or an error naming what is missing.
pub fn wgsl_struct_layout(source: &str, name: &str) -> Result<(u32, Vec<(String, u32)>), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    let mut layouter = naga::proc::Layouter::default();
    layouter
        .update(module.to_ctx())
        .map_err(|e| format!("layout: {e:?}"))?;
    for (handle, ty) in module.types.iter() {
        if ty.name.as_deref() == Some(name)
            && let naga::TypeInner::Struct { members, span } = &ty.inner
        {
            let _ = layouter[handle];
            return Ok((
                *span,
                members
                    .iter()
                    .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
                    .collect(),
            ));
        }
    }
    Err(format!("no struct {name}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bv::{Kdop, KdopNode};
    use std::mem::{offset_of, size_of};

    fn check_kdop<const H: usize>() {
        let src = crate::gpu::shader::source("kdop_refit.wgsl", H);
        let (size, m) = wgsl_struct_layout(&src, "Kdop").unwrap();
        assert_eq!(size as usize, size_of::<Kdop<H>>());
        assert_eq!(
            m,
            vec![
                ("min".into(), offset_of!(Kdop<H>, min) as u32),
                ("max".into(), offset_of!(Kdop<H>, max) as u32)
            ]
        );
        let (size, m) = wgsl_struct_layout(&src, "KdopNode").unwrap();
        assert_eq!(size as usize, size_of::<KdopNode<H>>());
        assert_eq!(
            m,
            vec![
                ("bv".into(), offset_of!(KdopNode<H>, bv) as u32),
                ("first".into(), offset_of!(KdopNode<H>, first) as u32),
                ("count".into(), offset_of!(KdopNode<H>, count) as u32),
            ]
        );
    }

    #[test]
    fn refit_range_matches_wgsl() {
        let src = crate::gpu::shader::source("kdop_refit.wgsl", 9);
        let (size, m) = wgsl_struct_layout(&src, "RefitRange").unwrap();
        assert_eq!(size as usize, size_of::<RefitRange>());
        assert_eq!(
            m,
            vec![
                ("start".into(), offset_of!(RefitRange, start) as u32),
                ("count".into(), offset_of!(RefitRange, count) as u32),
                ("pad0".into(), offset_of!(RefitRange, pad0) as u32),
                ("pad1".into(), offset_of!(RefitRange, pad1) as u32),
            ]
        );
    }

    #[test]
    fn kdop_layouts_match_wgsl() {
        check_kdop::<3>();
        check_kdop::<7>();
        check_kdop::<9>();
        check_kdop::<13>();
    }
}

/// A node pair (or triangle-position pair) of one pose. WGSL twin: `FrontPair` in
/// `shaders/shared/front.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FrontPair {
    pub pose: u32,
    pub a: u32,
    pub b: u32,
    /// Index of B's tumbled k-DOP of this pose in `tumbled`; [`NO_SLOT`] until
    /// `tumble_front` places it (lazy tumbling). Unused in leaf, contact and unsure lists.
    pub slot: u32,
}

/// `NO_SLOT` of `shaders/shared/front.wgsl`: a front pair whose B node is not tumbled yet.
pub const NO_SLOT: u32 = u32::MAX;

/// `UNRESOLVED_A` of `shaders/shared/front.wgsl`: an entry of the leaf and UNSURE lists that
/// is the first of two child pairs a budgeted pose could not afford to test, whose parent
/// (a pair of the pose's frontier) split A's node.
pub const UNRESOLVED_A: u32 = u32::MAX - 1;
/// `UNRESOLVED_B`: as [`UNRESOLVED_A`], the parent split B's node.
pub const UNRESOLVED_B: u32 = u32::MAX - 2;

impl FrontPair {
    /// A pair without a tumbled slot (leaf lists, contacts, unsure pairs, fresh children).
    pub fn new(pose: u32, a: u32, b: u32) -> FrontPair {
        FrontPair {
            pose,
            a,
            b,
            slot: NO_SLOT,
        }
    }
}

/// `GpuCounters::resumed` bit: the level's node tests were counted before a resume.
pub const RESUMED_EXPAND: u32 = 1;
/// `GpuCounters::resumed` bit: the level's triangle tests were counted before a resume.
pub const RESUMED_TRI: u32 = 2;
/// `GpuCounters::overflow` bit of a full lazy tumbling table.
pub const OVERFLOW_TABLE: u32 = 16;
/// `GpuCounters::overflow` bit (with [`OVERFLOW_TABLE`]) of a full table met by an
/// expansion's claim: the level's node tests were counted before the batch froze.
pub const OVERFLOW_CLAIM: u32 = 32;

/// Append counters, capacities and flags of the batch pipeline. WGSL twin: `Counters` in
/// `shaders/shared/front.wgsl` (atomics there are plain u32 here).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuCounters {
    pub n_in: u32,
    pub n_out: u32,
    pub n_leaf: u32,
    pub n_contact: u32,
    pub n_unsure: u32,
    /// Bit 1: front, 2: leaf pairs, 4: contacts, 8: unsure pairs ran out of room; 16: the
    /// lazy tumbling table was full.
    pub overflow: u32,
    pub cap_front: u32,
    pub cap_leaf: u32,
    pub cap_contact: u32,
    pub cap_unsure: u32,
    pub max_front: u32,
    pub max_leaf: u32,
    pub level: u32,
    pub n_fly: u32,
    pub mode_first: u32,
    /// The dual hierarchy's node test: bit 0 per-pair slab order, bit 1 symmetric k-DOPs.
    pub dual_flags: u32,
    /// 1: descend the node with the larger k-DOP (`Descent::Larger`); 0: Algorithm 1 of
    /// Klosowski et al.
    pub descent_larger: u32,
    /// 1: lazy tumbling (`tumbled` is a hash table of `hash_mask + 1` slots filled by
    /// `tumble_front`); 0: dense (`tumbled[pose · n_fly + node]`, every node tumbled).
    pub lazy: u32,
    /// Slots of the lazy table minus one (a power of two minus one).
    pub hash_mask: u32,
    /// (pose, node) pairs tumbled by `tumble_front` in this batch (Nu, summed).
    pub n_tumbled: u32,
    /// Bit 1: this level's node tests, bit 2: the triangle tests, were counted before an
    /// overflow froze the batch; the host resumed here, so they are not counted again.
    /// The level's hand-over (`next_level`) clears it.
    pub resumed: u32,
    /// `n_contact` and `n_unsure` before the triangle tests (set by each hand-over,
    /// `next_level`): where a resumed triangle stage appends again.
    pub contact_mark: u32,
    pub unsure_mark: u32,
    /// Appends of `tumble_front` to the `fresh` list: the slots whose keys it inserted, to
    /// be tumbled by `tumble_fresh` (lazy tumbling).
    pub n_fresh: u32,
    /// Entries of the `fresh` list `tumble_fresh` tumbles (`prepare_tumble` moves
    /// `n_fresh` here and clears it).
    pub fresh_in: u32,
    /// Workgroups of the current dispatch that have finished; the one that finishes last
    /// hands the level over (`hand_over` of `shaders/front_expand.wgsl`) and clears it.
    pub groups_done: u32,
    /// 1 once a hand-over saw an overflow: every later kernel of the submission skips its
    /// work (the host resumes the batch). The host clears it.
    pub frozen: u32,
    /// `n_leaf` at the start of this level (the leaf list keeps every level's pairs): where
    /// a resumed level appends its leaf pairs again.
    pub leaf_mark: u32,
    /// 1: a tolerance query: the expansion keeps the node pairs of
    /// [`crate::proximity::kdops_within`] with `margins`, and the triangle tests send every
    /// triangle pair of a leaf pair to the UNSURE list for the host's exact
    /// [`crate::proximity::tri_tri_within`]. 0: the intersection query.
    pub within: u32,
    /// 1: a budget of node tests per pose ([`crate::budget`], breadth first, whole
    /// levels): `budget_state` counts each pose's tests and stops it when a level does not
    /// fit. 0: no budget.
    pub budgeted: u32,
    /// The node tests a pose may spend below its root pair (the budget less the pretest,
    /// the root test and, when the host tests the roots, level 1's two tests).
    pub budget: u32,
    /// Poses of the batch: `budget_state` holds `2 · n_poses` entries (spent, then next).
    pub n_poses: u32,
    /// The f32 slab margins ([`crate::proximity::slab_margins_f32`]) as bits, slab by slab
    /// (the first `H` of them; zeros when `within` is 0).
    pub margins: [u32; MAX_SLABS],
}

/// Slabs of the largest k-DOP (kdop26): the length of [`GpuCounters::margins`].
pub const MAX_SLABS: usize = 13;

/// Which `node_list` slice a refit dispatch covers. WGSL twin: `struct RefitRange` in
/// `shaders/kdop_refit.wgsl` (16 bytes, a uniform-friendly size); bound with a dynamic offset.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RefitRange {
    pub start: u32,
    pub count: u32,
    pub pad0: u32,
    pub pad1: u32,
}

/// The `node_list` slice of one exact-tumbling dispatch, for every pose. WGSL twin:
/// `struct SliceParams` in `shaders/kdop_tumble.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SliceParams {
    pub start: u32,
    pub count: u32,
    pub n_poses: u32,
    pub n_fly: u32,
}

/// Per lane of a coherent step: its recorded front pairs and whether one holds B's root
/// (`record_counts`). WGSL twin: `struct LaneRecord` in `shaders/front_coherent.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LaneRecord {
    pub pairs: u32,
    /// 1 when a pair has `b == 0` (the root of B), else 0.
    pub root: u32,
}

/// Where a recorded lane's pairs (or a root lane's one pair) go in the next step's seeds
/// (`gather_seeds`). WGSL twin: `struct HandOver` in `shaders/front_coherent.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HandOver {
    /// The next step's lane, or [`NO_LANE`]: the pairs are dropped.
    pub lane: u32,
    /// Index of the lane's first seed.
    pub offset: u32,
}

/// `NO_LANE` of `shaders/front_coherent.wgsl`.
pub const NO_LANE: u32 = u32::MAX;

/// The sizes of a hand-over (`record_counts`, `gather_seeds`). WGSL twin: `struct
/// HandOverParams` in `shaders/front_coherent.wgsl`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct HandOverParams {
    /// Pairs in `front_record`.
    pub n_record: u32,
    /// Entries of `hand` for the recorded lanes; `n_roots` root lanes follow.
    pub n_src: u32,
    pub n_roots: u32,
    pub n_fly: u32,
    /// 1: exact tumbling (dense slots), 0: lazy ([`NO_SLOT`]).
    pub dense: u32,
    pub pad0: u32,
    pub pad1: u32,
    pub pad2: u32,
}

#[cfg(test)]
mod pipeline_layout_tests {
    use super::*;
    use crate::tumble::PoseFrame;
    use std::mem::{offset_of, size_of};

    fn names_offsets(src: &str, name: &str) -> (u32, Vec<(String, u32)>) {
        wgsl_struct_layout(src, name).unwrap()
    }

    #[test]
    fn front_pair_and_counters_match_wgsl() {
        let src = crate::gpu::shader::source("front_expand.wgsl", 9);
        let (size, m) = names_offsets(&src, "FrontPair");
        assert_eq!(size as usize, size_of::<FrontPair>());
        assert_eq!(
            m,
            vec![
                ("pose".into(), offset_of!(FrontPair, pose) as u32),
                ("a".into(), offset_of!(FrontPair, a) as u32),
                ("b".into(), offset_of!(FrontPair, b) as u32),
                ("slot".into(), offset_of!(FrontPair, slot) as u32),
            ]
        );
        let (size, m) = names_offsets(&src, "Counters");
        assert_eq!(size as usize, size_of::<GpuCounters>());
        let rust: Vec<(String, u32)> = [
            ("n_in", offset_of!(GpuCounters, n_in)),
            ("n_out", offset_of!(GpuCounters, n_out)),
            ("n_leaf", offset_of!(GpuCounters, n_leaf)),
            ("n_contact", offset_of!(GpuCounters, n_contact)),
            ("n_unsure", offset_of!(GpuCounters, n_unsure)),
            ("overflow", offset_of!(GpuCounters, overflow)),
            ("cap_front", offset_of!(GpuCounters, cap_front)),
            ("cap_leaf", offset_of!(GpuCounters, cap_leaf)),
            ("cap_contact", offset_of!(GpuCounters, cap_contact)),
            ("cap_unsure", offset_of!(GpuCounters, cap_unsure)),
            ("max_front", offset_of!(GpuCounters, max_front)),
            ("max_leaf", offset_of!(GpuCounters, max_leaf)),
            ("level", offset_of!(GpuCounters, level)),
            ("n_fly", offset_of!(GpuCounters, n_fly)),
            ("mode_first", offset_of!(GpuCounters, mode_first)),
            ("dual_flags", offset_of!(GpuCounters, dual_flags)),
            ("descent_larger", offset_of!(GpuCounters, descent_larger)),
            ("lazy", offset_of!(GpuCounters, lazy)),
            ("hash_mask", offset_of!(GpuCounters, hash_mask)),
            ("n_tumbled", offset_of!(GpuCounters, n_tumbled)),
            ("resumed", offset_of!(GpuCounters, resumed)),
            ("contact_mark", offset_of!(GpuCounters, contact_mark)),
            ("unsure_mark", offset_of!(GpuCounters, unsure_mark)),
            ("n_fresh", offset_of!(GpuCounters, n_fresh)),
            ("fresh_in", offset_of!(GpuCounters, fresh_in)),
            ("groups_done", offset_of!(GpuCounters, groups_done)),
            ("frozen", offset_of!(GpuCounters, frozen)),
            ("leaf_mark", offset_of!(GpuCounters, leaf_mark)),
            ("within", offset_of!(GpuCounters, within)),
            ("budgeted", offset_of!(GpuCounters, budgeted)),
            ("budget", offset_of!(GpuCounters, budget)),
            ("n_poses", offset_of!(GpuCounters, n_poses)),
            ("margins", offset_of!(GpuCounters, margins)),
        ]
        .iter()
        .map(|(n, o)| (n.to_string(), *o as u32))
        .collect();
        assert_eq!(m, rust);
    }

    fn check_frame<const H: usize>() {
        let src = crate::gpu::shader::source("kdop_tumble.wgsl", H);
        let (size, m) = names_offsets(&src, "PoseFrame");
        assert_eq!(size as usize, size_of::<PoseFrame<H>>(), "H={H}");
        let rust: Vec<(String, u32)> = [
            ("r", offset_of!(PoseFrame<H>, r)),
            ("t", offset_of!(PoseFrame<H>, t)),
            ("t_err", offset_of!(PoseFrame<H>, t_err)),
            ("dir", offset_of!(PoseFrame<H>, dir)),
            ("off_lo", offset_of!(PoseFrame<H>, off_lo)),
            ("off_hi", offset_of!(PoseFrame<H>, off_hi)),
            ("root", offset_of!(PoseFrame<H>, root)),
            ("eps_w", offset_of!(PoseFrame<H>, eps_w)),
            ("eps_t2", offset_of!(PoseFrame<H>, eps_t2)),
        ]
        .iter()
        .map(|(n, o)| (n.to_string(), *o as u32))
        .collect();
        assert_eq!(m, rust, "H={H}");
    }

    #[test]
    fn sphere_matches_wgsl() {
        use crate::dual::Sphere;
        let src = crate::gpu::shader::source("front_expand.wgsl", 9);
        let (size, m) = names_offsets(&src, "Sphere");
        assert_eq!(size as usize, size_of::<Sphere>());
        let rust: Vec<(String, u32)> = [("c", offset_of!(Sphere, c)), ("r", offset_of!(Sphere, r))]
            .iter()
            .map(|(n, o)| (n.to_string(), *o as u32))
            .collect();
        assert_eq!(m, rust);
    }

    #[test]
    fn obb_matches_wgsl() {
        use crate::obb::Obb32;
        let src = crate::gpu::shader::source("front_expand.wgsl", 3);
        let (size, m) = names_offsets(&src, "Obb32");
        assert_eq!(size as usize, size_of::<Obb32>());
        let rust: Vec<(String, u32)> = [
            ("c", offset_of!(Obb32, c)),
            ("e", offset_of!(Obb32, e)),
            ("h", offset_of!(Obb32, h)),
            ("size", offset_of!(Obb32, size)),
        ]
        .iter()
        .map(|(n, o)| (n.to_string(), *o as u32))
        .collect();
        assert_eq!(m, rust);
    }

    #[test]
    fn posed_obb_matches_wgsl() {
        use crate::obb::sat::PosedObb;
        let src = crate::gpu::shader::source("front_expand.wgsl", 3);
        let (size, m) = names_offsets(&src, "PosedObb");
        assert_eq!(size as usize, size_of::<PosedObb>());
        let rust: Vec<(String, u32)> = [
            ("f", offset_of!(PosedObb, f)),
            ("c", offset_of!(PosedObb, c)),
            ("h", offset_of!(PosedObb, h)),
            ("e", offset_of!(PosedObb, e)),
        ]
        .iter()
        .map(|(n, o)| (n.to_string(), *o as u32))
        .collect();
        assert_eq!(m, rust);
    }

    #[test]
    fn slice_params_match_wgsl() {
        let src = crate::gpu::shader::source("kdop_tumble.wgsl", 9);
        let (size, m) = names_offsets(&src, "SliceParams");
        assert_eq!(size as usize, size_of::<SliceParams>());
        let rust: Vec<(String, u32)> = [
            ("start", offset_of!(SliceParams, start)),
            ("count", offset_of!(SliceParams, count)),
            ("n_poses", offset_of!(SliceParams, n_poses)),
            ("n_fly", offset_of!(SliceParams, n_fly)),
        ]
        .iter()
        .map(|(n, o)| (n.to_string(), *o as u32))
        .collect();
        assert_eq!(m, rust);
    }

    #[test]
    fn hand_over_structs_match_wgsl() {
        let src = crate::gpu::shader::source("front_coherent.wgsl", 9);
        let check = |name: &str, size: usize, rust: &[(&str, usize)]| {
            let (s, m) = names_offsets(&src, name);
            assert_eq!(s as usize, size, "{name}");
            let rust: Vec<(String, u32)> = rust
                .iter()
                .map(|(n, o)| (n.to_string(), *o as u32))
                .collect();
            assert_eq!(m, rust, "{name}");
        };
        check(
            "LaneRecord",
            size_of::<LaneRecord>(),
            &[
                ("pairs", offset_of!(LaneRecord, pairs)),
                ("root", offset_of!(LaneRecord, root)),
            ],
        );
        check(
            "HandOver",
            size_of::<HandOver>(),
            &[
                ("lane", offset_of!(HandOver, lane)),
                ("offset", offset_of!(HandOver, offset)),
            ],
        );
        check(
            "HandOverParams",
            size_of::<HandOverParams>(),
            &[
                ("n_record", offset_of!(HandOverParams, n_record)),
                ("n_src", offset_of!(HandOverParams, n_src)),
                ("n_roots", offset_of!(HandOverParams, n_roots)),
                ("n_fly", offset_of!(HandOverParams, n_fly)),
                ("dense", offset_of!(HandOverParams, dense)),
                ("pad0", offset_of!(HandOverParams, pad0)),
                ("pad1", offset_of!(HandOverParams, pad1)),
                ("pad2", offset_of!(HandOverParams, pad2)),
            ],
        );
    }

    #[test]
    fn pose_frame_matches_wgsl() {
        check_frame::<3>();
        check_frame::<7>();
        check_frame::<9>();
        check_frame::<13>();
    }
}
