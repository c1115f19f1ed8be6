//! The bind groups of one batch submission ([`GpuScene::bind_groups`]): every kernel of the
//! pipeline over the scene's static arrays and the batch buffers, each binding by its name
//! in [`crate::gpu::kernels`].

use super::GpuScene;
use crate::gpu::context::GpuContext;
use crate::gpu::kernels::{Bindable, Bound, Pipeline};

impl<const H: usize> GpuScene<H> {
    /// The bind groups of every kernel over the current batch buffers (made again when a
    /// resume grows them), each binding by its name in [`crate::gpu::kernels`].
    pub(super) fn bind_groups(&self, ctx: &GpuContext, dense: bool) -> BindGroups<'_> {
        let bb = self.buffers.as_ref().expect("buffers before bind groups");
        let pl = &self.pipelines;
        let slot = Self::slice_slot(ctx);
        let mut tumble = Vec::new();
        if dense {
            for (k, &(_, count)) in self.fly_slices.iter().enumerate() {
                let slice = Bound::Range {
                    buffer: &bb.slices,
                    offset: k as u64 * slot,
                    size: 16,
                };
                let mut named: Vec<(&str, &dyn Bindable)> = vec![
                    ("tumbled", &bb.tumbled),
                    ("fly_nodes", &self.fly_nodes),
                    ("fly_node_list", &self.fly_node_list),
                    ("slice", &slice),
                ];
                // The leaves are bounded from the posed corners; a merge reads the children.
                let pipe = if k == 0 {
                    named.extend([
                        ("frames", &bb.frames as &dyn Bindable),
                        ("fly_tris", &self.fly_tris),
                    ]);
                    &pl.tumble_exact_leaves
                } else {
                    &pl.tumble_exact_merge
                };
                tumble.push((pipe, pipe.bind(ctx, &named), count));
            }
        }
        let front_bg = |front: &wgpu::Buffer| {
            pl.tumble_front.bind(
                ctx,
                &[
                    ("front", front),
                    ("counters", &bb.counters),
                    ("hash_keys", &bb.hash_keys),
                    ("nu", &bb.nu),
                    ("fresh", &bb.fresh),
                ],
            )
        };
        let bg_front = if dense || self.volumes.is_some() {
            None
        } else {
            Some(LazyGroups {
                front: [front_bg(&bb.front_a), front_bg(&bb.front_b)],
                prepare: pl
                    .prepare_tumble
                    .bind(ctx, &[("counters", &bb.counters), ("args", &bb.fresh_args)]),
                fresh: pl.tumble_fresh.bind(
                    ctx,
                    &[
                        ("frames", &bb.frames),
                        ("fly_offsets", &self.fly_offsets),
                        ("fly_points", &self.fly_points),
                        ("tumbled", &bb.tumbled),
                        ("counters", &bb.counters),
                        ("hash_keys", &bb.hash_keys),
                        ("fresh", &bb.fresh),
                    ],
                ),
            })
        };
        let expand_pipe = match (&pl.expand_volume, &pl.expand_dual) {
            (Some(pipe), _) | (None, Some(pipe)) => pipe,
            (None, None) => &pl.expand,
        };
        // Coherence: `expand_record` and its two buffers instead.
        let recording = self.coherent.recording(&pl.expand_record);
        let expand_pipe = recording.map_or(expand_pipe, |(pipe, _)| pipe);
        // Level `L` (side `L % 2`) reads front `L % 2` and hands over into the other side.
        let expand_bg = |side: usize| {
            let fronts = [&bb.front_a, &bb.front_b];
            let mut named: Vec<(&str, &dyn Bindable)> = vec![
                ("env_nodes", &self.env_nodes),
                ("fly_nodes", &self.fly_nodes),
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
            ];
            match &self.volumes {
                // Nothing tumbled: B's volumes are posed from the frame into the lazy table
                // (`tumbled` holds posed boxes or spheres).
                Some(v) => {
                    let (env, fly, posed) = if v.obb {
                        ("env_obbs", "fly_obbs", "posed_obbs")
                    } else {
                        ("env_spheres", "fly_spheres", "posed_spheres")
                    };
                    named.extend([
                        ("frames", &bb.frames as &dyn Bindable),
                        (env, &v.env),
                        (fly, &v.fly),
                        ("hash_keys", &bb.hash_keys),
                        (posed, &bb.tumbled),
                        ("nu", &bb.nu),
                    ]);
                }
                // B's tumbled k-DOPs, and for lazy tumbling what the expansion needs to
                // tumble the children it claims.
                None => named.extend([
                    ("tumbled", &bb.tumbled as &dyn Bindable),
                    ("frames", &bb.frames),
                    ("hash_keys", &bb.hash_keys),
                    ("nu", &bb.nu),
                    ("fly_offsets", &self.fly_offsets),
                    ("fly_points", &self.fly_points),
                ]),
            }
            if let Some((_, (record, count))) = recording {
                named.extend([
                    ("front_record", record as &dyn Bindable),
                    ("record_count", count),
                ]);
            }
            if let Some(d) = &self.dual {
                named.extend([
                    ("dual_counts", &bb.dual_counts as &dyn Bindable),
                    ("env_spheres", &d.env_spheres),
                    ("fly_spheres", &d.fly_spheres),
                ]);
            }
            expand_pipe.bind(ctx, &named)
        };
        let bg_expand = [expand_bg(0), expand_bg(1)];
        let bg_tri = pl.tri_test.bind(
            ctx,
            &[
                ("env_nodes", &self.env_nodes),
                ("fly_nodes", &self.fly_nodes),
                ("env_tris", &self.env_tris),
                ("fly_tris", &self.fly_tris),
                ("frames", &bb.frames),
                ("leaves", &bb.leaves),
                ("counters", &bb.counters),
                ("np", &bb.np),
                ("done", &bb.done),
                ("contacts", &bb.contacts),
                ("unsure", &bb.unsure),
                ("env_tri_index", &self.env_tri_index),
                ("fly_tri_index", &self.fly_tri_index),
            ],
        );
        let rehash = bb.old_table.as_ref().map(|(old_tumbled, old_keys, slots)| {
            // The old keys bound to the table's size: `rehash` runs over `arrayLength`.
            let old_keys = Bound::Range {
                buffer: old_keys,
                offset: 0,
                size: *slots as u64 * 4,
            };
            let g = pl.rehash.bind(
                ctx,
                &[
                    ("tumbled", &bb.tumbled),
                    ("counters", &bb.counters),
                    ("hash_keys", &bb.hash_keys),
                    ("old_keys", &old_keys),
                    ("old_tumbled", old_tumbled),
                ],
            );
            (g, *slots)
        });
        let reslot = if rehash.is_some() {
            [&bb.front_a, &bb.front_b]
                .map(|front| {
                    pl.reslot.bind(
                        ctx,
                        &[
                            ("front", front),
                            ("counters", &bb.counters),
                            ("hash_keys", &bb.hash_keys),
                        ],
                    )
                })
                .into()
        } else {
            Vec::new()
        };
        BindGroups {
            tumble,
            front: bg_front,
            rehash,
            reslot,
            expand_pipe,
            expand: bg_expand,
            tri: bg_tri,
        }
    }
}

/// Lazy tumbling's bind groups.
pub(super) struct LazyGroups {
    /// `tumble_front` over front A or B.
    pub(super) front: [wgpu::BindGroup; 2],
    pub(super) prepare: wgpu::BindGroup,
    pub(super) fresh: wgpu::BindGroup,
}

/// The bind groups of one submission.
pub(super) struct BindGroups<'a> {
    /// Exact tumbling: pipeline, bind group and nodes per pose of each level's dispatch.
    pub(super) tumble: Vec<(&'a Pipeline, wgpu::BindGroup, u32)>,
    /// Lazy tumbling.
    pub(super) front: Option<LazyGroups>,
    /// Moving a full table: the bind group and the old table's slots.
    pub(super) rehash: Option<(wgpu::BindGroup, u32)>,
    /// New slots for the pairs of front A or B (empty unless a table moves).
    pub(super) reslot: Vec<wgpu::BindGroup>,
    pub(super) expand_pipe: &'a Pipeline,
    /// Expansion from A to B, and from B to A.
    pub(super) expand: [wgpu::BindGroup; 2],
    pub(super) tri: wgpu::BindGroup,
}
