//! `meshcollide demo`: the main job on generated meshes, with a self-check against brute
//! force on a coarser copy of the same scene.

use super::Failure;
use super::query_args::ms;
use crate::formats::{total_counters, write_pairs};
use crate::mesh::generate;
use crate::pose::tumbling_poses;
use crate::{
    bvh::BuildOptions, collider::Collider, kind::BvKind, mesh::Mesh, scene::QueryOptions,
    scene::brute_force,
};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Poses in the tumbling turn.
    #[arg(long, default_value_t = 1000)]
    pub poses: usize,
    /// Approximate triangles per torus.
    #[arg(long, default_value_t = 32_000)]
    pub triangles: usize,
    /// Bounding volume.
    #[arg(long, value_enum, default_value = "auto")]
    pub bv: BvKind,
    /// Temporal coherence, as `query --coherence`: `auto` (the default) turns it on for
    /// the turn's small steps.
    #[arg(long, value_enum, value_name = "WHEN", num_args = 0..=1, default_value = "auto", default_missing_value = "on")]
    pub coherence: super::CoherenceArg,
    /// Also write the contacts as pairs.csv here.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Two interlocked tori: A in the xy-plane, B in the xz-plane through A's hole, so B
/// touches A at some poses of the turn and not at others.
fn scene(triangles: usize) -> (Mesh, Mesh) {
    // n_major · n_minor · 2 triangles, with n_major = 2.5 · n_minor.
    let n_minor = ((triangles as f64 / 5.0).sqrt().round() as u32).max(3);
    let n_major = (n_minor as f64 * 2.5).round() as u32;
    let a = generate::torus([0.0; 3], 1.0, 0.3, n_major, n_minor);
    let b =
        generate::torus([0.0; 3], 1.0, 0.3, n_major, n_minor).map_positions(|[x, y, z]| [x, z, y]);
    (a, b)
}

/// The pose set: a full tumbling turn of B about its own centre, placed at (1, 0, 0).
fn poses(n: usize) -> Vec<crate::pose::Pose> {
    tumbling_poses(n, [0.0; 3], [1.0, 0.0, 0.0])
}

pub fn run(a: &DemoArgs) -> Result<(), Failure> {
    let bv = a.bv;
    let (ma, mb) = scene(a.triangles);
    let poses = poses(a.poses);
    println!(
        "scene: two interlocked tori, A {} and B {} triangles; {} tumbling poses of B; {}",
        ma.triangle_count(),
        mb.triangle_count(),
        poses.len(),
        bv.name()
    );
    let opts = BuildOptions::default();
    // As `query --coherence`: the tumbling turn in small steps is a motion path.
    let (lo, hi) = mb.bounds();
    let coherence = bv.coherent(false)
        && a.coherence
            .resolve(&poses, (lo, hi), false, crate::scene::Mode::All);
    let t = Instant::now();
    let collider = Collider::builder(&ma, &mb)
        .warm_up(crate::collider::WarmUp::Own)
        .bv(bv)
        .build_options(opts)
        .kdop(crate::kdop::KdopOptions {
            coherence,
            ..Default::default()
        })
        .build()?;
    let build_ms = ms(t);
    let t = Instant::now();
    let results = collider.collide_batch_with(&poses, &QueryOptions::default(), None);
    let query_ms = ms(t);
    let c = total_counters(&results);
    let in_contact = results.iter().filter(|r| !r.pairs.is_empty()).count();
    let pairs: usize = results.iter().map(|r| r.pairs.len()).sum();
    println!(
        "found: {pairs} intersecting triangle pairs; {in_contact} of {} poses in contact",
        poses.len()
    );
    if let Some((i, r)) = results
        .iter()
        .enumerate()
        .find(|(_, r)| !r.pairs.is_empty())
    {
        let (ta, tb) = r.pairs[0];
        println!("  e.g. pose {i}: triangle {ta} of A meets triangle {tb} of B");
    }
    println!(
        "time: build {build_ms:.1} ms, query {query_ms:.1} ms = {:.0} poses/s on {} threads",
        poses.len() as f64 / (query_ms / 1e3).max(1e-9),
        rayon::current_num_threads()
    );
    println!(
        "work: Nv {} node tests, Np {} triangle tests, Nu {} node updates{}",
        c.bv_tests,
        c.tri_tests,
        c.bv_updates,
        if coherence {
            " (coherence on: each pose starts at the previous pose's front)"
        } else {
            ""
        }
    );
    if let Some(s) = c.sub.auto() {
        println!(
            "auto: kdop18 answered {} poses, the OBB tree {} ({} probe, {} node tests on the tree not picked)",
            s.kdop18_poses, s.obb_poses, s.probes, s.probe_lost_tests
        );
    }
    if let Some(p) = &a.out {
        let mut text = Vec::new();
        write_pairs(&mut text, &results).map_err(|e| super::output::cannot_write(p, e))?;
        let mut f = super::output::AtomicFile::create(p)?;
        f.write_all(&text)?;
        f.commit()?;
        println!("wrote {}", p.display());
    }
    self_check(bv)
}

/// The same scene, coarse enough for brute force: every pose's pairs must be identical.
fn self_check(bv: BvKind) -> Result<(), Failure> {
    let (ma, mb) = scene(1_500);
    let poses = poses(24);
    let collider = Collider::builder(&ma, &mb)
        .warm_up(crate::collider::WarmUp::Own)
        .bv(bv)
        .build_options(BuildOptions::default())
        .build()?;
    let results = collider.collide_batch_with(&poses, &QueryOptions::default(), None);
    let mut pairs = 0;
    for (i, (p, r)) in poses.iter().zip(&results).enumerate() {
        let truth = brute_force(&ma, &mb, p);
        if truth != r.pairs {
            return Err(Failure::Internal(format!(
                "self-check failed at pose {i}: {} pairs, brute force {}",
                r.pairs.len(),
                truth.len()
            )));
        }
        pairs += truth.len();
    }
    println!(
        "check: {} poses of a {}+{}-triangle copy equal f64 brute force ({pairs} pairs)",
        poses.len(),
        ma.triangle_count(),
        mb.triangle_count()
    );
    Ok(())
}
