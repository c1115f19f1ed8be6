//! CPU twins of the WGSL shaders, found by name: `shaders/<stem>.wgsl` ↔
//! `src/gpu/mirror/<stem>.rs`. A kernel file's twin has one `pub fn` per entry point, named
//! like it, doing on the CPU what one dispatch of that entry point does over its whole grid:
//! the same buffer contents as slices of the `gpu::layout` structs in, the same outputs
//! written (invocations as loops in index order, atomics as plain increments). Its arguments
//! (or the fields of its `*Bindings` structs) are the bindings `gpu::kernels` registers for
//! the entry point, under their names (a test there checks). A library
//! file's twin (`kdop`, `front`, `dual`, `tri_filter`) re-exports or thinly wraps, under the
//! WGSL names, the CPU functions it twins. The twins are built from the primitives the CPU
//! reference runs (`bv::slab`, `tumble`, `dual`, `tri::filter`), never copies of them; a test
//! fails if a shader file or an entry point has no twin.
//!
//! [`collide_batch_mirror`] composes the twins into the batch pipeline of `gpu::collide`
//! (tumble → per level: expand with its hand-over → tri_test), for debugging and for
//! per-level parity with the GPU (`level_sizes`); the reference for pairs and Nv remains the
//! depth-first traversal of [`crate::traverse`].

pub mod dual;
pub mod front;
pub mod front_coherent;
pub mod front_expand;
pub mod front_prepare;
pub mod kdop;
pub mod kdop_refit;
pub mod kdop_tumble;
pub mod obb;
pub mod tri_filter;
pub mod tri_tri;

use super::collide::{
    BatchOutput, GpuPairScene, GpuStats, GpuVolumes, HostRoots, Resume, Screen, Stage, Tumbling,
    finish, stages,
};
use super::layout::{FrontPair, GpuCounters, NO_SLOT, SliceParams};
use crate::bv::Kdop;
use crate::dual::{DualOptions, SlabOrder, Sphere};
use crate::pose::Pose;
use crate::scene::Mode;
use crate::scene::PoseResult;
use crate::tumble::TumbleMethod;
use front_expand::{DualBindings, ExpandBindings, VolumeBindings};
use obb::PosedObb;
use tri_tri::TriTestBindings;

/// Runs every pose as one batch with the approximation method's tumbling; returns the
/// results and the front size per level. See [`collide_batch_mirror_with`].
pub fn collide_batch_mirror<const H: usize, S: GpuPairScene<H>>(
    scene: &S,
    poses: &[Pose],
    mode: Mode,
) -> (Vec<PoseResult<S::Sub>>, GpuStats) {
    collide_batch_mirror_with(scene, poses, mode, TumbleMethod::Approximate)
}

/// `GpuScene::collide_batch` on the CPU, dispatch by dispatch through the kernel twins, for
/// a k-DOP or a dual scene and either tumbling method. One batch: the capacities grow
/// between dispatches to what the next one can append, so nothing overflows (the GPU
/// re-runs the batch instead). Only `level_sizes` and `unsure` of the stats are filled.
pub fn collide_batch_mirror_with<const H: usize, S: GpuPairScene<H>>(
    scene: &S,
    poses: &[Pose],
    mode: Mode,
    tumble: TumbleMethod,
) -> (Vec<PoseResult<S::Sub>>, GpuStats) {
    // The host's pretest, as every GPU driver runs it (`collide::Screen`): separated poses
    // stay off the device, every pose counts the test.
    let screen = Screen::of(scene);
    let screened = screen.batch(poses);
    let (ran, stats) = if screened.kept.is_empty() {
        let levels = (scene.env().depth + scene.fly_bvh().depth - 1) as usize;
        let stats = GpuStats {
            level_sizes: vec![0; levels],
            ..Default::default()
        };
        (Vec::new(), stats)
    } else {
        mirror_batch(scene, &screened.kept, mode, tumble)
    };
    let results = screened.splice(screen, ran).collect();
    (results, stats)
}

fn mirror_batch<const H: usize, S: GpuPairScene<H>>(
    scene: &S,
    poses: &[Pose],
    mode: Mode,
    tumble: TumbleMethod,
) -> (Vec<PoseResult<S::Sub>>, GpuStats) {
    let env = scene.env();
    let fly_bvh = scene.fly_bvh();
    let frames = scene.pose_frames(poses);
    let p = poses.len() as u32;
    let n_fly = fly_bvh.nodes.len() as u32;
    let levels = (env.depth + fly_bvh.depth - 1) as usize;
    let env_tris = env.tris.all_corners_f32();
    let fly_tris = fly_bvh.tris.all_corners_f32();
    let volumes = scene.volumes();
    // The volume trees tumble nothing (their pairs carry no slot), as `gpu::collide`.
    let tumbling = scene.fly().filter(|_| volumes.is_none());

    let lazy = tumble == TumbleMethod::Approximate || tumbling.is_none();
    // Lazy: a table with room for every (pose, node), so it never fills.
    let table = if lazy {
        (2 * p as usize * n_fly as usize).next_power_of_two()
    } else {
        p as usize * n_fly as usize
    };
    let mut tumbled = vec![Kdop::<H>::EMPTY; table];
    // The volume trees' table of posed boxes or spheres (keys in `hash_keys`).
    let mut posed = Posed::default();
    match volumes {
        Some(GpuVolumes::Obb(..)) => posed.obbs.resize(table, Default::default()),
        Some(GpuVolumes::Sphere(..)) => posed.spheres.resize(table, Default::default()),
        None => {}
    }
    let mut hash_keys = vec![0u32; if lazy { table } else { 0 }];
    let mut fresh = vec![0u32; hash_keys.len()];
    let exact = tumbling
        .filter(|_| !lazy)
        .map(|fly| kdop_tumble::exact_dispatch_order(&fly.bvh));
    let kind = match (tumbling, &exact) {
        (None, _) => Tumbling::None,
        (Some(_), None) => Tumbling::Lazy,
        (Some(_), Some((_, slices))) => Tumbling::Exact {
            slices: slices.len(),
        },
    };

    let dual = scene.dual();
    let mut c = GpuCounters {
        n_in: p,
        n_fly,
        mode_first: (mode == Mode::First) as u32,
        // As `gpu::collide` sets them.
        dual_flags: dual.map_or(0, |(_, _, o)| {
            (o.order == SlabOrder::PerPair) as u32 | (o.symmetric as u32) << 1
        }),
        descent_larger: scene.descent_larger() as u32,
        lazy: lazy as u32,
        hash_mask: if lazy { table as u32 - 1 } else { 0 },
        ..Default::default()
    };
    let zero = FrontPair::new(0, 0, 0);
    let per_pose = vec![0u32; p as usize];
    let (mut nv, mut np, mut nu, mut done) = (
        per_pose.clone(),
        per_pose.clone(),
        per_pose.clone(),
        per_pose,
    );
    let mut dual_counts = vec![0u32; if dual.is_some() { 3 * p as usize } else { 0 }];
    let (mut contacts, mut unsure) = (Vec::new(), Vec::new());
    let mut level_sizes = vec![0u32; levels];
    let (mut next_args, mut tri_args, mut fresh_args) = ([0u32; 3], [0u32; 3], [0u32; 3]);
    // The volume trees' roots are tested on the host, as `gpu::collide` does.
    let mut level_one = HostRoots::of(scene).map(|r| r.level_one(&frames));
    let mut front_in: Vec<FrontPair> = match &mut level_one {
        Some(l) => {
            c.level = 1;
            c.n_in = l.pairs.len() as u32;
            std::mem::take(&mut l.pairs)
        }
        None => (0..p)
            .map(|pose| FrontPair {
                slot: if lazy { NO_SLOT } else { pose * n_fly },
                ..FrontPair::new(pose, 0, 0)
            })
            .collect(),
    };
    let mut leaves = Vec::new();
    let fly = || tumbling.expect("a tumbling stage tumbles B's k-DOPs");
    // The device's sequence of dispatches, one twin call each (`collide::stages`).
    for (_, stage) in stages(levels as u32, kind, Resume::Start) {
        match stage {
            Stage::TumbleExact(k) => {
                let (node_list, slices) = exact.as_ref().expect("exact tumbling's order");
                let (start, count) = slices[k];
                let slice = SliceParams {
                    start,
                    count,
                    n_poses: p,
                    n_fly,
                };
                let nodes = &fly().bvh.nodes;
                if k == 0 {
                    kdop_tumble::tumble_exact_leaves(
                        &frames,
                        &mut tumbled,
                        nodes,
                        &fly_tris,
                        node_list,
                        &slice,
                    );
                } else {
                    kdop_tumble::tumble_exact_merge(&mut tumbled, nodes, node_list, &slice);
                }
            }
            Stage::TumbleFront => kdop_tumble::tumble_front(
                &mut front_in,
                &mut c,
                &mut hash_keys,
                &mut nu,
                &mut fresh,
            ),
            Stage::PrepareTumble => front_prepare::prepare_tumble(&mut c, &mut fresh_args),
            Stage::TumbleFresh => kdop_tumble::tumble_fresh(
                &frames,
                &fly().offsets,
                &fly().points,
                &mut tumbled,
                &c,
                &hash_keys,
                &fresh,
            ),
            Stage::Expand => {
                // Each input pair appends at most two children or one leaf pair; the leaf
                // list keeps the pairs of the levels before.
                let mut front_out = vec![zero; 2 * c.n_in as usize];
                leaves.resize(c.n_leaf as usize + c.n_in as usize, zero);
                c.cap_front = front_out.len() as u32;
                c.cap_leaf = leaves.len() as u32;
                let (fly_offsets, fly_points) =
                    tumbling.map_or((&[][..], &[][..]), |f| (&f.offsets[..], &f.points[..]));
                let mut b = ExpandBindings {
                    env_nodes: &env.nodes,
                    fly_nodes: &fly_bvh.nodes,
                    tumbled: &mut tumbled,
                    front_in: &front_in,
                    front_out: &mut front_out,
                    leaves: &mut leaves,
                    counters: &mut c,
                    nv: &mut nv,
                    done: &done,
                    next_args: &mut next_args,
                    tri_args: &mut tri_args,
                    level_sizes: &mut level_sizes,
                    frames: &frames,
                    hash_keys: &mut hash_keys,
                    nu: &mut nu,
                    fly_offsets,
                    fly_points,
                    budget_state: &mut [],
                };
                expand(&mut b, volumes, &mut posed, dual, &mut dual_counts);
                // The hand-over made the output the next level's input.
                front_out.truncate(c.n_in as usize);
                front_in = front_out;
            }
            Stage::TriTest => {
                // Room for every triangle pair of the leaf pairs.
                let need: usize = leaves[..c.n_leaf as usize]
                    .iter()
                    .map(|l| {
                        (env.nodes[l.a as usize].count * fly_bvh.nodes[l.b as usize].count) as usize
                    })
                    .sum();
                contacts.resize(c.n_contact as usize + need, zero);
                unsure.resize(c.n_unsure as usize + need, zero);
                c.cap_contact = contacts.len() as u32;
                c.cap_unsure = unsure.len() as u32;
                tri_tri::tri_test(&mut TriTestBindings {
                    env_nodes: &env.nodes,
                    fly_nodes: &fly_bvh.nodes,
                    env_tris: &env_tris,
                    fly_tris: &fly_tris,
                    frames: &frames,
                    leaves: &leaves,
                    counters: &mut c,
                    np: &mut np,
                    done: &mut done,
                    contacts: &mut contacts,
                    unsure: &mut unsure,
                    env_tri_index: &env.tri_index,
                    fly_tri_index: &fly_bvh.tri_index,
                });
            }
            Stage::Rehash | Stage::Reslot => unreachable!("the mirror's table never fills"),
        }
    }
    assert_eq!(c.overflow, 0, "the mirror's capacities never run out");
    contacts.truncate(c.n_contact as usize);
    unsure.truncate(c.n_unsure as usize);
    let mut stats = GpuStats {
        level_sizes: level_sizes.iter().map(|&s| s as u64).collect(),
        ..Default::default()
    };
    let mut out = BatchOutput {
        level_sizes,
        nv,
        np,
        nu,
        contacts,
        unsure,
        dual: dual_counts,
    };
    if let Some(l) = &level_one {
        l.count(&mut out, &mut c);
    }
    stats.level_sizes = out.level_sizes.iter().map(|&s| s as u64).collect();
    let results = finish(
        scene,
        poses,
        out,
        mode,
        !lazy,
        &vec![0.0; poses.len()],
        &mut stats,
    );
    (results.into_iter().map(|(r, _)| r).collect(), stats)
}

/// The volume trees' lazy tables of B's posed volumes (one of them is used).
#[derive(Default)]
struct Posed {
    obbs: Vec<PosedObb>,
    spheres: Vec<Sphere>,
}

/// The scene's expansion twin over the bindings every expansion shares (and, for the
/// volume trees, their table of posed volumes).
fn expand<const H: usize>(
    b: &mut ExpandBindings<'_, H>,
    volumes: Option<GpuVolumes<'_>>,
    posed: &mut Posed,
    dual: Option<(&[Sphere], &[Sphere], DualOptions)>,
    dual_counts: &mut [u32],
) {
    match (volumes, dual) {
        (Some(GpuVolumes::Obb(env, fly)), _) => front_expand::expand_obb(
            b,
            &mut VolumeBindings {
                env,
                fly,
                posed: &mut posed.obbs,
            },
        ),
        (Some(GpuVolumes::Sphere(env, fly)), _) => front_expand::expand_sphere(
            b,
            &mut VolumeBindings {
                env,
                fly,
                posed: &mut posed.spheres,
            },
        ),
        (None, Some((env_spheres, fly_spheres, _))) => front_expand::expand_dual(
            b,
            &mut DualBindings {
                env_spheres,
                fly_spheres,
                dual_counts,
            },
        ),
        (None, None) => front_expand::expand(b),
    }
}

#[cfg(test)]
mod tests {
    use crate::gpu::shader::{KERNEL_FILES, SHARED, source};
    use std::path::Path;

    /// `fn <name>(` definitions of a WGSL text, in order.
    fn wgsl_functions(src: &str) -> Vec<String> {
        src.lines()
            .filter_map(|l| l.strip_prefix("fn "))
            .map(|l| {
                l.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            })
            .collect()
    }

    /// Whether the twin text defines `pub fn name` or re-exports something as `name` (one
    /// `pub use` per line; `x as name` counts, `name as x` does not).
    fn twin_has(twin: &str, name: &str) -> bool {
        let defines = [format!("pub fn {name}<"), format!("pub fn {name}(")];
        defines.iter().any(|d| twin.contains(d.as_str()))
            || twin.lines().filter(|l| l.starts_with("pub use ")).any(|l| {
                let words: Vec<&str> = l
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .filter(|w| !w.is_empty())
                    .collect();
                words
                    .iter()
                    .enumerate()
                    .any(|(i, &w)| w == name && words.get(i + 1) != Some(&"as"))
            })
    }

    /// Every `shaders/*.wgsl` file (kernels) and `shaders/shared/*.wgsl` file (libraries),
    /// listed at run time, is assembled by `gpu::shader` as what its folder says and has a
    /// twin `src/gpu/mirror/<stem>.rs` naming its path; every entry point (naga, on the
    /// assembled source) has a `pub fn` of its name there and a `CPU twin:` comment in the
    /// shader; every function of a library file (but the filter's private `tf_*`) has its
    /// twin too.
    #[test]
    fn every_shader_and_entry_point_has_a_twin() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let list = |dir: &str| {
            let mut files: Vec<String> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.ends_with(".wgsl"))
                .map(|n| format!("{dir}/{n}"))
                .collect();
            files.sort();
            files
        };
        let mut files = list("shaders");
        files.extend(list("shaders/shared"));
        assert!(files.len() >= 11, "{files:?}");
        let mut entry_points = 0;
        for path in &files {
            let (dir, file) = path.rsplit_once('/').unwrap();
            let stem = file.strip_suffix(".wgsl").unwrap();
            let wgsl = std::fs::read_to_string(root.join(path)).unwrap();
            let twin_path = root.join(format!("src/gpu/mirror/{stem}.rs"));
            let twin = std::fs::read_to_string(&twin_path)
                .unwrap_or_else(|e| panic!("{file} has no twin {}: {e}", twin_path.display()));
            assert!(
                twin.contains(&format!("`{path}`")),
                "{}: the twin's docs must name `{path}`",
                twin_path.display()
            );
            let kernel = KERNEL_FILES.iter().any(|(n, _)| *n == file);
            let shared = SHARED.iter().any(|(n, _)| *n == file);
            assert_eq!(
                (kernel, shared),
                (dir == "shaders", dir == "shaders/shared"),
                "{path}: a kernel file of gpu::shader in shaders/, a shared piece in shaders/shared/"
            );
            if kernel {
                let src = source(file, 9);
                let module = naga::front::wgsl::parse_str(&src)
                    .unwrap_or_else(|e| panic!("{file}: {}", e.emit_to_string(&src)));
                assert!(
                    !module.entry_points.is_empty(),
                    "{file}: a kernel without entry point"
                );
                for ep in &module.entry_points {
                    let name = &ep.name;
                    assert!(
                        twin.contains(&format!("pub fn {name}<"))
                            || twin.contains(&format!("pub fn {name}(")),
                        "{file}: entry point {name} has no `pub fn {name}` in src/gpu/mirror/{stem}.rs"
                    );
                    let pointer = format!("// CPU twin: src/gpu/mirror/{stem}.rs::{name}");
                    assert!(wgsl.contains(&pointer), "{file}: no `{pointer}` comment");
                    entry_points += 1;
                }
            } else {
                assert!(
                    !wgsl.contains("@compute"),
                    "{file}: a shared piece with an entry point"
                );
                for name in wgsl_functions(&wgsl) {
                    if stem == "tri_filter" && name.starts_with("tf_") {
                        continue;
                    }
                    assert!(
                        twin_has(&twin, &name),
                        "{file}: fn {name} has no twin of its name in src/gpu/mirror/{stem}.rs"
                    );
                    let pointer = format!("// CPU twin: src/gpu/mirror/{stem}.rs::{name}");
                    assert!(wgsl.contains(&pointer), "{file}: no `{pointer}` comment");
                }
            }
        }
        assert!(entry_points >= 10, "{entry_points} entry points");
    }
}
