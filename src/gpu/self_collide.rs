//! Self-collision on the GPU: one k-DOP hierarchy against itself in its own frame
//! ([`crate::self_collide`]), as a breadth-first, stackless front like [`super::collide`]'s
//! batch pipeline, for one pose (the mesh as it is; nothing tumbled or posed).
//!
//! One submission records `expand_self` (`shaders/front_expand.wgsl`) per level, the last
//! workgroup of each writing the next one's dispatch size on the GPU, then `tri_test_self`
//! (`shaders/tri_tri.wgsl`) once over every level's leaf pairs; the host reads the counters
//! once at the end. The kernels follow
//! the CPU traversal's rule (a pair `(n, n)` descends to its three child pairs untested,
//! distinct nodes get the k-DOP slab test and descend the larger k-DOP) on the same f32
//! k-DOPs with the same f32 arithmetic, so the node pairs tested (Nv) and the triangle pairs
//! tested (Np) are the CPU's in [`Mode::All`]. In [`Mode::First`] both stop at a contact they
//! find first, which may differ: the pair is one of the all-pairs answer, the counters may
//! differ from run to run (as the CPU's do).
//!
//! Triangle pairs sharing a vertex index are never decided on the GPU: they go to the
//! UNSURE list, and the host applies the exact adjacency rule
//! ([`crate::self_collide::adjacency::self_pair_intersects`]). Every other pair's rule is
//! plain intersection ([`crate::tri::tri_tri_intersect`]), which the certified f32 filter
//! decides when it can (the margin for the identity pose is proved in `shaders/tri_tri.wgsl`
//! above `tri_test_self`: the filter's `eps_q` for an untransformed local corner); its
//! UNSURE pairs go to the same exact rule. So the pairs equal [`crate::brute_force_self`].
//!
//! Frames of a deforming mesh: the hierarchy is refitted on the CPU
//! ([`crate::SelfCollider::refit`]) and [`GpuSelf::refit`] writes the new node k-DOPs and
//! f32 corners over the old ones (same sizes: the tree and the triangles are kept).
//!
//! Overflow: every append checks its capacity; on overflow the hand-overs freeze the
//! traversal and the host grows what ran out (to twice what the counters asked for) and
//! runs the traversal again from the root (no partial resume: one pose makes a rerun
//! cheap, and the capacities are kept for the next frame). A buffer beyond the device's
//! binding limit is [`GpuError::TooLarge`]. Nv and Np are counted in u32 on the device
//! (per frame).

use super::collide::Capacities;
use super::context::{GpuContext, GpuError};
use super::kernels::{self, Pipeline, pipeline};
use super::layout::{FrontPair, GpuCounters, NO_SLOT};
use super::paged::{PagedArray, Paging};
mod mirror;
pub use mirror::{collide_mirror, collide_mirror_within};

use crate::bvh::Bvh;
use crate::kind::for_each_k;
use crate::scene::{Counters, Mode, PoseResult};
use crate::self_collide::self_pair_within;
use crate::self_collide::{SelfCollider, SelfHierarchy};
use rayon::prelude::*;
use wgpu::BufferUsages as U;

const PAIR: u64 = std::mem::size_of::<FrontPair>() as u64;

/// What one self-collision run on the GPU did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GpuSelfStats {
    /// Traversals run again after an overflow.
    pub reruns: u64,
    /// Triangle pairs the GPU left to the host's exact rule (vertex neighbours and pairs
    /// the f32 filter could not decide).
    pub unsure: u64,
    /// Triangle pairs the filter proved intersecting.
    pub contacts: u64,
    /// Largest front of one level (node pairs).
    pub max_front: u64,
}

/// The pipelines of the traversal.
struct Pipelines {
    expand: Pipeline,
    tri_test: Pipeline,
}

/// The buffers of one run, kept while the capacities do not change.
struct Buffers {
    caps: Capacities,
    front_a: wgpu::Buffer,
    front_b: wgpu::Buffer,
    leaves: wgpu::Buffer,
    contacts: wgpu::Buffer,
    unsure: wgpu::Buffer,
    counters: wgpu::Buffer,
    nv: wgpu::Buffer,
    np: wgpu::Buffer,
    done: wgpu::Buffer,
    /// Level `L`'s dispatch size in `level_args[L % 2]`, the triangle tests' in `tri_args`.
    level_args: [wgpu::Buffer; 2],
    tri_args: wgpu::Buffer,
    level_sizes: wgpu::Buffer,
    budget_state: wgpu::Buffer,
}

/// One hierarchy on the device, for `H` slabs: nodes, local f32 corners, file numbers and
/// local vertex slots (static arrays, paged beyond the binding limit), the pipelines and
/// the run's buffers.
pub struct GpuSelfScene<const H: usize> {
    nodes: PagedArray,
    tris: PagedArray,
    tri_index: PagedArray,
    slots: PagedArray,
    pipelines: Pipelines,
    levels: u32,
    /// Nodes and triangles of the hierarchy uploaded: a hierarchy of other sizes is refused
    /// (its positions would index past the uploaded arrays).
    sizes: (usize, usize),
    buffers: Option<Buffers>,
    /// Capacities of the next run (tests shrink them to force overflow); afterwards they
    /// follow what the runs needed.
    pub capacities: Capacities,
}

/// First capacities for a mesh of `n` triangles (clamped to the binding limit when the run
/// starts; they grow on overflow and are kept for the next frame). A mesh's own surface
/// meets itself everywhere, so the front and the leaf pairs grow with `n`: on folded
/// sheets and tori the largest front is about 3·n node pairs and the vertex neighbours
/// (UNSURE by design) about 6·n pairs at leaf size 1; starting there avoids reruns.
fn initial_capacities(n: usize) -> Capacities {
    let n = n.min(u32::MAX as usize / 8) as u32;
    Capacities {
        front: (4 * n).max(1 << 12),
        leaf: (2 * n).max(1 << 12),
        contact: (n / 4).max(1 << 10),
        unsure: (8 * n).max(1 << 12),
        tumbled: 1,
    }
}

impl<const H: usize> GpuSelfScene<H> {
    /// Uploads `bvh` and compiles the pipelines.
    pub fn new(ctx: &GpuContext, bvh: &Bvh<H>) -> Result<Self, GpuError> {
        let limit = ctx.binding_limit;
        let kdop = std::mem::size_of::<crate::bv::KdopNode<H>>() as u64;
        let nodes = PagedArray::upload(
            ctx,
            "env_nodes",
            bytemuck::cast_slice(&bvh.nodes),
            kdop,
            limit,
        )?;
        let corners = bvh.tris.all_corners_f32();
        let tris = PagedArray::upload(ctx, "env_tris", bytemuck::cast_slice(&corners), 4, limit)?;
        let tri_index = PagedArray::upload(
            ctx,
            "env_tri_index",
            bytemuck::cast_slice(&bvh.tri_index),
            4,
            limit,
        )?;
        let slots = PagedArray::upload(
            ctx,
            "env_slots",
            bytemuck::cast_slice(&bvh.tris.corners),
            4,
            limit,
        )?;
        let mut paging = Paging::default();
        for a in [&nodes, &tris, &tri_index, &slots] {
            paging.arrays[a.id()] = a.layout();
        }
        let pipeline = |kernel: &'static kernels::Kernel| pipeline(ctx, kernel, H, &paging);
        let pipelines = Pipelines {
            expand: pipeline(&kernels::EXPAND_SELF),
            tri_test: pipeline(&kernels::TRI_TEST_SELF),
        };
        ctx.check()?;
        Ok(GpuSelfScene {
            nodes,
            tris,
            tri_index,
            slots,
            pipelines,
            // Each level adds at least one to the sum of the two nodes' depths (2 at the
            // root pair, at most 2·depth at a leaf pair).
            levels: 2 * bvh.depth - 1,
            sizes: (bvh.nodes.len(), bvh.tris.len()),
            buffers: None,
            capacities: initial_capacities(bvh.tris.len()),
        })
    }

    /// Writes the refitted node k-DOPs and f32 corners of `bvh` (the hierarchy uploaded by
    /// [`GpuSelfScene::new`], refitted: same nodes, same triangles).
    pub fn refit(&mut self, ctx: &GpuContext, bvh: &Bvh<H>) -> Result<(), GpuError> {
        self.check(bvh)?;
        let corners = bvh.tris.all_corners_f32();
        let kdop = std::mem::size_of::<crate::bv::KdopNode<H>>() as u64;
        write_pages(ctx, &self.nodes, bytemuck::cast_slice(&bvh.nodes), kdop)?;
        write_pages(ctx, &self.tris, bytemuck::cast_slice(&corners), 4)
    }

    /// The self-intersecting pairs of `bvh` (the hierarchy uploaded, or last
    /// [`GpuSelfScene::refit`]), like [`crate::self_collide::collide_bvh`].
    pub fn collide(
        &mut self,
        ctx: &GpuContext,
        bvh: &Bvh<H>,
        mode: Mode,
    ) -> Result<(PoseResult, GpuSelfStats), GpuError> {
        self.collide_within(ctx, bvh, mode, 0.0)
    }

    /// The pairs within `eps` (finite, at least 0; 0: [`GpuSelfScene::collide`]), like
    /// [`crate::self_collide::collide_bvh_within`]: the slab test grown by the CPU's f32
    /// margins ([`crate::proximity::slab_margins_f32`]), every triangle pair of the leaf
    /// pairs decided by the host's exact rule ([`crate::self_collide::self_pair_within`]).
    pub fn collide_within(
        &mut self,
        ctx: &GpuContext,
        bvh: &Bvh<H>,
        mode: Mode,
        eps: f64,
    ) -> Result<(PoseResult, GpuSelfStats), GpuError> {
        self.check(bvh)?;
        let mut stats = GpuSelfStats::default();
        loop {
            match self.run(ctx, mode, eps)? {
                Ok((c, nv, np, contacts, unsure)) => {
                    let pairs = decide(bvh, &contacts, &unsure, mode, eps);
                    stats.unsure = unsure.len() as u64;
                    stats.contacts = contacts.len() as u64;
                    stats.max_front = c.max_front as u64;
                    let counters = Counters {
                        bv_tests: nv as u64,
                        tri_tests: np as u64,
                        ..Default::default()
                    };
                    return Ok((PoseResult { pairs, counters }, stats));
                }
                Err(caps) => {
                    stats.reruns += 1;
                    self.capacities = caps;
                }
            }
        }
    }

    /// [`GpuError::InvalidInput`] unless `bvh` has the uploaded hierarchy's sizes.
    fn check(&self, bvh: &Bvh<H>) -> Result<(), GpuError> {
        if (bvh.nodes.len(), bvh.tris.len()) != self.sizes {
            return Err(mismatch());
        }
        Ok(())
    }

    /// The run's buffers for the current capacities.
    fn buffers(&mut self, ctx: &GpuContext) -> Result<&Buffers, GpuError> {
        let caps = clamped(self.capacities, ctx.binding_limit);
        self.capacities = caps;
        if self.buffers.as_ref().is_none_or(|b| b.caps != caps) {
            self.buffers = None;
            let make = |name: &str, n: u64, extra: U| ctx.storage_empty(name, n, extra);
            self.buffers = Some(Buffers {
                caps,
                front_a: make("front_a", caps.front as u64 * PAIR, U::empty())?,
                front_b: make("front_b", caps.front as u64 * PAIR, U::empty())?,
                leaves: make("leaves", caps.leaf as u64 * PAIR, U::empty())?,
                contacts: make("contacts", caps.contact as u64 * PAIR, U::empty())?,
                unsure: make("unsure", caps.unsure as u64 * PAIR, U::empty())?,
                counters: make(
                    "counters",
                    std::mem::size_of::<GpuCounters>() as u64,
                    U::empty(),
                )?,
                nv: make("nv", 4, U::empty())?,
                np: make("np", 4, U::empty())?,
                done: make("done", 4, U::empty())?,
                level_args: [
                    make("level_args_0", 12, U::INDIRECT)?,
                    make("level_args_1", 12, U::INDIRECT)?,
                ],
                tri_args: make("tri_args", 12, U::INDIRECT)?,
                level_sizes: make("level_sizes", self.levels as u64 * 4, U::empty())?,
                // Bound, never read: no budget here.
                budget_state: make("budget_state", 8, U::empty())?,
            });
        }
        Ok(self.buffers.as_ref().expect("made above"))
    }

    /// One traversal from the root: `Ok` with the counters, Nv, Np, the contacts and the
    /// UNSURE pairs, or `Err` with capacities large enough for what ran out.
    #[allow(clippy::type_complexity)]
    fn run(
        &mut self,
        ctx: &GpuContext,
        mode: Mode,
        eps: f64,
    ) -> Result<Result<(GpuCounters, u32, u32, Vec<FrontPair>, Vec<FrontPair>), Capacities>, GpuError>
    {
        self.buffers(ctx)?;
        let caps = self.capacities;
        let bb = self.buffers.as_ref().expect("made above");
        let pl = &self.pipelines;
        let expand = |side: usize| {
            let fronts = [&bb.front_a, &bb.front_b];
            pl.expand.bind(
                ctx,
                &[
                    ("env_nodes", &self.nodes),
                    ("front_in", fronts[side]),
                    ("front_out", fronts[1 - side]),
                    ("leaves", &bb.leaves),
                    ("counters", &bb.counters),
                    ("nv", &bb.nv),
                    ("done", &bb.done),
                    ("next_args", &bb.level_args[1 - side]),
                    ("tri_args", &bb.tri_args),
                    ("level_sizes", &bb.level_sizes),
                    ("budget_state", &bb.budget_state),
                ],
            )
        };
        let bg_expand = [expand(0), expand(1)];
        let bg_tri = pl.tri_test.bind(
            ctx,
            &[
                ("env_nodes", &self.nodes),
                ("env_tris", &self.tris),
                ("leaves", &bb.leaves),
                ("counters", &bb.counters),
                ("np", &bb.np),
                ("done", &bb.done),
                ("contacts", &bb.contacts),
                ("unsure", &bb.unsure),
                ("env_tri_index", &self.tri_index),
                ("env_slots", &self.slots),
            ],
        );

        let counters0 = GpuCounters {
            n_in: 1,
            cap_front: caps.front,
            cap_leaf: caps.leaf,
            cap_contact: caps.contact,
            cap_unsure: caps.unsure,
            mode_first: (mode == Mode::First) as u32,
            ..within_counters::<H>(eps)
        };
        let q = &ctx.queue;
        q.write_buffer(
            &bb.front_a,
            0,
            bytemuck::bytes_of(&FrontPair {
                pose: 0,
                a: 0,
                b: 0,
                slot: NO_SLOT,
            }),
        );
        q.write_buffer(&bb.counters, 0, bytemuck::bytes_of(&counters0));
        q.write_buffer(&bb.level_args[0], 0, bytemuck::cast_slice(&[1u32, 1, 1]));
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        for b in [&bb.nv, &bb.np, &bb.done, &bb.level_sizes] {
            enc.clear_buffer(b, 0, None);
        }
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pl.expand);
            for level in 0..self.levels as usize {
                pass.set_bind_group(0, &bg_expand[level % 2], &[]);
                pass.dispatch_workgroups_indirect(&bb.level_args[level % 2], 0);
            }
            pass.set_pipeline(&pl.tri_test);
            pass.set_bind_group(0, &bg_tri, &[]);
            pass.dispatch_workgroups_indirect(&bb.tri_args, 0);
        }
        let counters_bytes = std::mem::size_of::<GpuCounters>() as u64;
        let staging = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("self summary"),
            size: counters_bytes + 8,
            usage: U::MAP_READ | U::COPY_DST,
            mapped_at_creation: false,
        });
        enc.copy_buffer_to_buffer(&bb.counters, 0, &staging, 0, counters_bytes);
        enc.copy_buffer_to_buffer(&bb.nv, 0, &staging, counters_bytes, 4);
        enc.copy_buffer_to_buffer(&bb.np, 0, &staging, counters_bytes + 4, 4);
        q.submit([enc.finish()]);
        let summary = ctx.map_read(&staging)?;
        let c: GpuCounters = bytemuck::pod_read_unaligned(&summary[..counters_bytes as usize]);
        let word = |at: u64| {
            let at = at as usize;
            u32::from_le_bytes([
                summary[at],
                summary[at + 1],
                summary[at + 2],
                summary[at + 3],
            ])
        };
        let (nv, np) = (word(counters_bytes), word(counters_bytes + 4));
        if c.overflow != 0 {
            return Ok(Err(grown(caps, &c, ctx.binding_limit)?));
        }
        let (n_c, n_u) = (c.n_contact as u64 * PAIR, c.n_unsure as u64 * PAIR);
        let (contacts, unsure) =
            ctx.read_two("self pairs", (&bb.contacts, n_c), (&bb.unsure, n_u))?;
        Ok(Ok((c, nv, np, contacts, unsure)))
    }
}

/// Capacities for a run again after the overflow `c`: what ran out, twice what was asked
/// (at most what one binding of `limit` bytes holds). [`GpuError::TooLarge`] when what was
/// asked does not fit in one binding.
fn grown(caps: Capacities, c: &GpuCounters, limit: u64) -> Result<Capacities, GpuError> {
    let most = (limit / PAIR).min(u32::MAX as u64) as u32;
    let mut too_large = None;
    let mut grow = |cap: u32, need: u32| {
        if need > most {
            too_large = Some(need as u64 * PAIR);
        }
        need.max(cap).saturating_mul(2).min(most)
    };
    let mut n = caps;
    if c.overflow & 1 != 0 {
        n.front = grow(caps.front, c.n_out);
    }
    if c.overflow & 2 != 0 {
        n.leaf = grow(caps.leaf, c.n_leaf);
    }
    if c.overflow & 4 != 0 {
        n.contact = grow(caps.contact, c.n_contact);
    }
    if c.overflow & 8 != 0 {
        n.unsure = grow(caps.unsure, c.n_unsure);
    }
    match too_large {
        Some(needed) => Err(GpuError::TooLarge { needed, limit }),
        None => Ok(n),
    }
}

/// `caps` within one binding of `limit` bytes each.
fn clamped(caps: Capacities, limit: u64) -> Capacities {
    let most = (limit / PAIR).clamp(2, u32::MAX as u64) as u32;
    Capacities {
        front: caps.front.clamp(2, most),
        leaf: caps.leaf.clamp(1, most),
        contact: caps.contact.clamp(1, most),
        unsure: caps.unsure.clamp(1, most),
        tumbled: caps.tumbled,
    }
}

/// Writes `data` over a paged array of the same size, page by page.
fn write_pages(
    ctx: &GpuContext,
    array: &PagedArray,
    data: &[u8],
    elem: u64,
) -> Result<(), GpuError> {
    if data.len() as u64 != array.bytes {
        return Err(GpuError::InvalidInput(format!(
            "refit: {} bytes for an array of {}",
            data.len(),
            array.bytes
        )));
    }
    let per_page = if array.pages.len() == 1 {
        data.len().max(1)
    } else {
        (elem << array.shift) as usize
    };
    for (page, part) in array.pages.iter().zip(data.chunks(per_page)) {
        ctx.queue.write_buffer(page, 0, part);
    }
    Ok(())
}

/// The counters' `within` flag and slab margins of a tolerance `eps` (zeros for 0).
fn within_counters<const H: usize>(eps: f64) -> GpuCounters {
    let mut c = GpuCounters::default();
    if eps != 0.0 {
        c.within = 1;
        let m = crate::proximity::slab_margins_f32::<H>(eps);
        for (b, m) in c.margins.iter_mut().zip(m) {
            *b = m.to_bits();
        }
    }
    c
}

/// The contacts, and the UNSURE pairs decided by the exact self-collision rule at tolerance
/// `eps` ([`self_pair_within`]), as sorted `(min, max)` file numbers (at most one in
/// [`Mode::First`]).
pub fn decide<const H: usize>(
    bvh: &Bvh<H>,
    contacts: &[FrontPair],
    unsure: &[FrontPair],
    mode: Mode,
    eps: f64,
) -> Vec<(u32, u32)> {
    let tris = &bvh.tris;
    let mut pairs: Vec<(u32, u32)> = unsure
        .par_iter()
        .filter_map(|u| {
            let (p, q) = (u.a as usize, u.b as usize);
            self_pair_within(
                tris.corners[p],
                &tris.corners_f64(p),
                tris.corners[q],
                &tris.corners_f64(q),
                eps,
            )
            .then(|| {
                let (a, b) = (bvh.tri_index[p], bvh.tri_index[q]);
                (a.min(b), a.max(b))
            })
        })
        .collect();
    pairs.extend(contacts.iter().map(|c| (c.a, c.b)));
    pairs.sort_unstable();
    pairs.dedup();
    if mode == Mode::First {
        pairs.truncate(1);
    }
    pairs
}

/// A [`SelfCollider`]'s hierarchy on the GPU, whatever its k.
#[allow(missing_docs)] // The variants are named after the collider's.
pub enum GpuSelf {
    Kdop6(GpuSelfScene<3>),
    Kdop14(GpuSelfScene<7>),
    Kdop18(GpuSelfScene<9>),
    Kdop26(GpuSelfScene<13>),
}

impl GpuSelf {
    /// Uploads `collider`'s hierarchy and compiles the pipelines.
    pub fn new(ctx: &GpuContext, collider: &SelfCollider) -> Result<GpuSelf, GpuError> {
        Ok(for_each_k!(map collider.hierarchy(),
            SelfHierarchy(h) => GpuSelf(GpuSelfScene::new(ctx, h)?)))
    }

    /// After [`SelfCollider::refit`]: writes the refitted hierarchy over the uploaded one.
    /// [`GpuError::InvalidInput`] for another collider's hierarchy.
    pub fn refit(&mut self, ctx: &GpuContext, collider: &SelfCollider) -> Result<(), GpuError> {
        for_each_k!((self, collider.hierarchy()), (GpuSelf(g), SelfHierarchy(h)) => g.refit(ctx, h),
            _ => Err(mismatch()),
        )
    }

    /// [`SelfCollider::collide_with`] on the GPU: the same pairs, and in [`Mode::All`] the
    /// same Nv and Np. `collider` must be the one uploaded (refitted alike).
    pub fn collide(
        &mut self,
        ctx: &GpuContext,
        collider: &SelfCollider,
        mode: Mode,
    ) -> Result<(PoseResult, GpuSelfStats), GpuError> {
        self.collide_within(ctx, collider, mode, Default::default())
    }

    /// [`SelfCollider::collide_within`] on the GPU: the same pairs, and in [`Mode::All`] the
    /// same Nv and Np ([`GpuSelfScene::collide_within`]).
    pub fn collide_within(
        &mut self,
        ctx: &GpuContext,
        collider: &SelfCollider,
        mode: Mode,
        tolerance: crate::proximity::Tolerance,
    ) -> Result<(PoseResult, GpuSelfStats), GpuError> {
        let eps = tolerance.get();
        for_each_k!((self, collider.hierarchy()), (GpuSelf(g), SelfHierarchy(h)) => g.collide_within(ctx, h, mode, eps),
            _ => Err(mismatch()),
        )
    }

    /// The capacities of the next run (tests shrink them to force reruns).
    pub fn capacities_mut(&mut self) -> &mut Capacities {
        for_each_k!(self, GpuSelf(g) => &mut g.capacities)
    }
}

fn mismatch() -> GpuError {
    GpuError::InvalidInput("the self-collider's hierarchy is not the one on the GPU".into())
}
