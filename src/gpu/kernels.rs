//! The registry of compute kernels: every entry point of `shaders/` declared once, with its
//! shader file and the bindings it uses, by name.
//!
//! The WGSL declares each binding as `@group(0) @binding(N) var<…> name`; here each kernel
//! file has one table of those declarations ([`Shader`], the numbers written once in Rust)
//! and each entry point lists, by name, the ones it uses ([`Kernel`]). Everything else
//! speaks names: [`pipeline`] builds a kernel's bind group layout from its table (so a
//! layout is never derived from a shader behind our back), [`Pipeline::bind`] builds a bind
//! group from named buffers and refuses one that does not supply every binding of the
//! kernel exactly once ([`BindError`], naming the kernel and the binding), and the tests
//! of `tests/gpu_mirror/` run each entry point alone through the same two functions. A unit
//! test parses every shader with naga and checks the registry against it both ways (every
//! `@compute` entry point registered; every binding it uses registered with its number and
//! access; nothing registered that it does not use), and another checks ARCHITECTURE.md's
//! kernel table against the registry.

mod bind;
#[cfg(test)]
mod tests;

pub use bind::{BindError, Bindable, Bound, Named, Pipeline, pipeline};

/// How a shader declares a binding (and so how its bind group layout entry reads).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `var<storage, read>`.
    Read,
    /// `var<storage, read_write>`.
    ReadWrite,
    /// `var<uniform>`, one slot per bind group.
    Uniform,
    /// `var<uniform>` bound with a dynamic offset: one buffer of slots, the slot chosen per
    /// dispatch (`set_bind_group`'s offsets), so one bind group serves every dispatch.
    DynamicUniform,
}

/// One `@group(0) @binding(index) var<…> name` declaration of a kernel file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The WGSL variable's name: what the host and the tests bind buffers to.
    pub name: &'static str,
    /// Its `@binding` number.
    pub index: u32,
    /// Its address space and access.
    pub access: Access,
}

/// A kernel file of `shaders/` and every binding it declares.
#[derive(Debug)]
pub struct Shader {
    /// File name in `shaders/` (a key of [`super::shader::KERNEL_FILES`]).
    pub file: &'static str,
    /// Its declarations, by increasing number.
    pub bindings: &'static [Binding],
}

/// One `@compute` entry point: its shader, its name and the bindings it uses (names of
/// its shader's table), in increasing number.
#[derive(Debug)]
pub struct Kernel {
    /// The file it is in.
    pub shader: &'static Shader,
    /// The entry point's name.
    pub entry: &'static str,
    /// The bindings it uses: exactly these make its layout and its bind groups.
    pub uses: &'static [&'static str],
}

impl Kernel {
    /// The declaration of the binding `name` if this kernel uses it.
    pub fn binding(&self, name: &str) -> Option<&'static Binding> {
        if !self.uses.contains(&name) {
            return None;
        }
        self.shader.bindings.iter().find(|b| b.name == name)
    }

    /// The declarations of the bindings it uses, in the order of [`Kernel::uses`].
    /// Panics if a use names no declaration of its shader (a unit test checks none does).
    pub fn bindings(&self) -> impl Iterator<Item = &'static Binding> + '_ {
        self.uses.iter().map(|name| {
            self.binding(name).unwrap_or_else(|| {
                panic!(
                    "{}: `{name}` is not declared in {}",
                    self.entry, self.shader.file
                )
            })
        })
    }

    /// Checks that `names` supply every binding of this kernel exactly once and nothing
    /// else (what [`Pipeline::bind`] checks before making a bind group).
    pub fn check(&self, names: &[&str]) -> Result<(), BindError> {
        let err = |name: &str| (self.shader.file, self.entry, name.to_string());
        for (i, name) in names.iter().enumerate() {
            if self.binding(name).is_none() {
                let (file, entry, name) = err(name);
                return Err(BindError::Unknown { file, entry, name });
            }
            if names[..i].contains(name) {
                let (file, entry, name) = err(name);
                return Err(BindError::Twice { file, entry, name });
            }
        }
        match self.bindings().find(|b| !names.contains(&b.name)) {
            Some(b) => Err(BindError::Missing {
                file: self.shader.file,
                entry: self.entry,
                name: b.name,
                index: b.index,
            }),
            None => Ok(()),
        }
    }

    /// How many of its bindings take a dynamic offset (as many offsets per
    /// `set_bind_group`, in binding order).
    pub fn dynamic_offsets(&self) -> usize {
        self.bindings()
            .filter(|b| b.access == Access::DynamicUniform)
            .count()
    }
}

const fn read(name: &'static str, index: u32) -> Binding {
    Binding {
        name,
        index,
        access: Access::Read,
    }
}

const fn read_write(name: &'static str, index: u32) -> Binding {
    Binding {
        name,
        index,
        access: Access::ReadWrite,
    }
}

const fn uniform(name: &'static str, index: u32) -> Binding {
    Binding {
        name,
        index,
        access: Access::Uniform,
    }
}

const fn dynamic_uniform(name: &'static str, index: u32) -> Binding {
    Binding {
        name,
        index,
        access: Access::DynamicUniform,
    }
}

/// `shaders/kdop_refit.wgsl`: the bottom-up refit of a hierarchy ([`super::refit`]).
pub const KDOP_REFIT_WGSL: Shader = Shader {
    file: "kdop_refit.wgsl",
    bindings: &[
        read_write("nodes", 0),
        read("positions", 1),
        read("tri_verts", 2),
        read("node_list", 3),
        dynamic_uniform("range", 4),
    ],
};

/// `shaders/kdop_tumble.wgsl`: B's k-DOPs tumbled per pose, densely (exact method) or
/// lazily through a hash table (approximation method).
pub const KDOP_TUMBLE_WGSL: Shader = Shader {
    file: "kdop_tumble.wgsl",
    bindings: &[
        read("frames", 0),
        read("fly_offsets", 1),
        read("fly_points", 2),
        read_write("tumbled", 3),
        read("fly_nodes", 5),
        read("fly_tris", 6),
        read("fly_node_list", 7),
        uniform("slice", 8),
        read_write("front", 9),
        read_write("counters", 10),
        read_write("hash_keys", 11),
        read_write("nu", 12),
        read("old_keys", 13),
        read("old_tumbled", 14),
        read_write("fresh", 15),
    ],
};

/// `shaders/front_expand.wgsl`: one level of the breadth-first front, per kind of node test.
pub const FRONT_EXPAND_WGSL: Shader = Shader {
    file: "front_expand.wgsl",
    bindings: &[
        read("env_nodes", 0),
        read("fly_nodes", 1),
        read_write("tumbled", 2),
        read("front_in", 3),
        read_write("front_out", 4),
        read_write("leaves", 5),
        read_write("counters", 6),
        read_write("nv", 7),
        read_write("done", 8),
        read("env_spheres", 9),
        read("fly_spheres", 10),
        read("frames", 11),
        read_write("dual_counts", 12),
        read("env_obbs", 13),
        read("fly_obbs", 14),
        read_write("hash_keys", 15),
        read_write("front_record", 16),
        read_write("record_count", 17),
        read_write("posed_obbs", 18),
        read_write("posed_spheres", 19),
        read_write("nu", 20),
        read_write("next_args", 21),
        read_write("tri_args", 22),
        read_write("level_sizes", 23),
        read("fly_offsets", 24),
        read("fly_points", 25),
        read_write("budget_state", 26),
    ],
};

/// `shaders/front_prepare.wgsl`: one-invocation kernels writing the next dispatch sizes.
pub const FRONT_PREPARE_WGSL: Shader = Shader {
    file: "front_prepare.wgsl",
    bindings: &[read_write("counters", 0), read_write("args", 1)],
};

/// `shaders/tri_tri.wgsl`: the triangle tests of every level's leaf pairs.
pub const TRI_TRI_WGSL: Shader = Shader {
    file: "tri_tri.wgsl",
    bindings: &[
        read("env_nodes", 0),
        read("fly_nodes", 1),
        read("env_tris", 2),
        read("fly_tris", 3),
        read("frames", 4),
        read("leaves", 5),
        read_write("counters", 6),
        read_write("np", 7),
        read_write("done", 8),
        read_write("contacts", 9),
        read_write("unsure", 10),
        read("env_tri_index", 11),
        read("fly_tri_index", 12),
        read("env_slots", 13),
    ],
};

/// `shaders/front_coherent.wgsl`: temporal coherence's hand-over of recorded fronts.
pub const FRONT_COHERENT_WGSL: Shader = Shader {
    file: "front_coherent.wgsl",
    bindings: &[
        read("front_record", 0),
        read("params", 1),
        read_write("lanes", 2),
        read("hand", 3),
        read_write("cursor", 4),
        read_write("seeds", 5),
    ],
};

/// Every kernel file.
pub const SHADERS: &[&Shader] = &[
    &KDOP_REFIT_WGSL,
    &KDOP_TUMBLE_WGSL,
    &FRONT_EXPAND_WGSL,
    &FRONT_PREPARE_WGSL,
    &TRI_TRI_WGSL,
    &FRONT_COHERENT_WGSL,
];

/// A registered entry point of `shader` using `uses`.
const fn kernel(
    shader: &'static Shader,
    entry: &'static str,
    uses: &'static [&'static str],
) -> Kernel {
    Kernel {
        shader,
        entry,
        uses,
    }
}

/// The leaves' k-DOPs from their vertices (one dispatch).
pub const REFIT_LEAVES: Kernel = kernel(
    &KDOP_REFIT_WGSL,
    "refit_leaves",
    &["nodes", "positions", "tri_verts", "node_list", "range"],
);
/// One internal level's k-DOPs from their children.
pub const REFIT_INTERNAL: Kernel = kernel(
    &KDOP_REFIT_WGSL,
    "refit_internal",
    &["nodes", "node_list", "range"],
);

/// Exact tumbling: B's leaves bounded from their posed corners, per pose.
pub const TUMBLE_EXACT_LEAVES: Kernel = kernel(
    &KDOP_TUMBLE_WGSL,
    "tumble_exact_leaves",
    &[
        "frames",
        "tumbled",
        "fly_nodes",
        "fly_tris",
        "fly_node_list",
        "slice",
    ],
);
/// Exact tumbling: one internal level of B merged from its children, per pose.
pub const TUMBLE_EXACT_MERGE: Kernel = kernel(
    &KDOP_TUMBLE_WGSL,
    "tumble_exact_merge",
    &["tumbled", "fly_nodes", "fly_node_list", "slice"],
);
/// Lazy tumbling: each front pair's (pose, B node) claimed in the table.
pub const TUMBLE_FRONT: Kernel = kernel(
    &KDOP_TUMBLE_WGSL,
    "tumble_front",
    &["front", "counters", "hash_keys", "nu", "fresh"],
);
/// Lazy tumbling: the nodes `tumble_front` inserted, tumbled.
pub const TUMBLE_FRESH: Kernel = kernel(
    &KDOP_TUMBLE_WGSL,
    "tumble_fresh",
    &[
        "frames",
        "fly_offsets",
        "fly_points",
        "tumbled",
        "counters",
        "hash_keys",
        "fresh",
    ],
);
/// A full table moved into one twice as large.
pub const REHASH: Kernel = kernel(
    &KDOP_TUMBLE_WGSL,
    "rehash",
    &[
        "tumbled",
        "counters",
        "hash_keys",
        "old_keys",
        "old_tumbled",
    ],
);
/// The frozen level's pairs pointed at their keys' new slots.
pub const RESLOT: Kernel = kernel(
    &KDOP_TUMBLE_WGSL,
    "reslot",
    &["front", "counters", "hash_keys"],
);

/// One level of the front with the k-DOP slab test.
pub const EXPAND: Kernel = kernel(
    &FRONT_EXPAND_WGSL,
    "expand",
    &[
        "env_nodes",
        "fly_nodes",
        "tumbled",
        "front_in",
        "front_out",
        "leaves",
        "counters",
        "nv",
        "done",
        "frames",
        "hash_keys",
        "nu",
        "next_args",
        "tri_args",
        "level_sizes",
        "fly_offsets",
        "fly_points",
        "budget_state",
    ],
);
/// One level of the dual hierarchy (sphere test, then slabs).
pub const EXPAND_DUAL: Kernel = kernel(
    &FRONT_EXPAND_WGSL,
    "expand_dual",
    &[
        "env_nodes",
        "fly_nodes",
        "tumbled",
        "front_in",
        "front_out",
        "leaves",
        "counters",
        "nv",
        "done",
        "env_spheres",
        "fly_spheres",
        "frames",
        "dual_counts",
        "hash_keys",
        "nu",
        "next_args",
        "tri_args",
        "level_sizes",
        "fly_offsets",
        "fly_points",
        "budget_state",
    ],
);
/// One level of the OBB tree.
pub const EXPAND_OBB: Kernel = kernel(
    &FRONT_EXPAND_WGSL,
    "expand_obb",
    &[
        "env_nodes",
        "fly_nodes",
        "front_in",
        "front_out",
        "leaves",
        "counters",
        "nv",
        "done",
        "frames",
        "env_obbs",
        "fly_obbs",
        "hash_keys",
        "posed_obbs",
        "nu",
        "next_args",
        "tri_args",
        "level_sizes",
        "budget_state",
    ],
);
/// One level of the sphere tree.
pub const EXPAND_SPHERE: Kernel = kernel(
    &FRONT_EXPAND_WGSL,
    "expand_sphere",
    &[
        "env_nodes",
        "fly_nodes",
        "front_in",
        "front_out",
        "leaves",
        "counters",
        "nv",
        "done",
        "env_spheres",
        "fly_spheres",
        "frames",
        "hash_keys",
        "posed_spheres",
        "nu",
        "next_args",
        "tri_args",
        "level_sizes",
        "budget_state",
    ],
);
/// One level of self-collision (one hierarchy, `env_nodes`, against itself).
pub const EXPAND_SELF: Kernel = kernel(
    &FRONT_EXPAND_WGSL,
    "expand_self",
    &[
        "env_nodes",
        "front_in",
        "front_out",
        "leaves",
        "counters",
        "nv",
        "done",
        "next_args",
        "tri_args",
        "level_sizes",
        "budget_state",
    ],
);
/// [`EXPAND`] that also records the front (temporal coherence).
pub const EXPAND_RECORD: Kernel = kernel(
    &FRONT_EXPAND_WGSL,
    "expand_record",
    &[
        "env_nodes",
        "fly_nodes",
        "tumbled",
        "front_in",
        "front_out",
        "leaves",
        "counters",
        "nv",
        "done",
        "frames",
        "hash_keys",
        "front_record",
        "record_count",
        "nu",
        "next_args",
        "tri_args",
        "level_sizes",
        "fly_offsets",
        "fly_points",
        "budget_state",
    ],
);

/// Sizes `tumble_fresh`'s dispatch.
pub const PREPARE_TUMBLE: Kernel =
    kernel(&FRONT_PREPARE_WGSL, "prepare_tumble", &["counters", "args"]);

/// The triangle tests of rigid poses.
pub const TRI_TEST: Kernel = kernel(
    &TRI_TRI_WGSL,
    "tri_test",
    &[
        "env_nodes",
        "fly_nodes",
        "env_tris",
        "fly_tris",
        "frames",
        "leaves",
        "counters",
        "np",
        "done",
        "contacts",
        "unsure",
        "env_tri_index",
        "fly_tri_index",
    ],
);
/// The triangle tests of self-collision (vertex neighbours left UNSURE).
pub const TRI_TEST_SELF: Kernel = kernel(
    &TRI_TRI_WGSL,
    "tri_test_self",
    &[
        "env_nodes",
        "env_tris",
        "leaves",
        "counters",
        "np",
        "done",
        "contacts",
        "unsure",
        "env_tri_index",
        "env_slots",
    ],
);

/// Each lane's recorded pairs counted, B's root flagged.
pub const RECORD_COUNTS: Kernel = kernel(
    &FRONT_COHERENT_WGSL,
    "record_counts",
    &["front_record", "params", "lanes"],
);
/// The next step's seeds gathered from a held record.
pub const GATHER_SEEDS: Kernel = kernel(
    &FRONT_COHERENT_WGSL,
    "gather_seeds",
    &["front_record", "params", "hand", "cursor", "seeds"],
);

/// Every registered entry point.
pub const KERNELS: &[&Kernel] = &[
    &REFIT_LEAVES,
    &REFIT_INTERNAL,
    &TUMBLE_EXACT_LEAVES,
    &TUMBLE_EXACT_MERGE,
    &TUMBLE_FRONT,
    &TUMBLE_FRESH,
    &REHASH,
    &RESLOT,
    &EXPAND,
    &EXPAND_DUAL,
    &EXPAND_OBB,
    &EXPAND_SPHERE,
    &EXPAND_SELF,
    &EXPAND_RECORD,
    &PREPARE_TUMBLE,
    &TRI_TEST,
    &TRI_TEST_SELF,
    &RECORD_COUNTS,
    &GATHER_SEEDS,
];
