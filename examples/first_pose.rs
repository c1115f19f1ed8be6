//! Single queries: what the first pose of a fresh [`Collider`] costs against a warm pose
//! (the mean pose of a batch of 20 copies of it on the same collider). Nested spheres (B = A scaled by
//! 1 − α, one query, as in the CPU-speed issue) and interlocked tori, one thread.
//!
//! A warm pose repeated may reuse the front of the pose before (coherence), which no first
//! pose can; the last columns give the same warm batch with coherence off (each pose descends
//! from the roots) and the ratio to it, to tell that apart from what a call costs.
//!
//! The first pose right after the build pays for the query's code and branch history being
//! cold (the build's own code ran last) as well as for its data; the last two columns give
//! the first pose of a later call on the same collider (coherence off, a one-pose call right
//! after the batches) against the warm pose from the roots: what a call itself costs.
//!
//! A pose repeated is also a pose whose branches the CPU has seen: the traversal's
//! data-dependent branches take the same turns each time, and the branch predictor learns
//! them (nested spheres, α = 0.1: the same 2,200 node tests a pose cost 23 µs repeated and
//! 36 µs over 20 different poses). The second table is a batch as users send it: a fresh
//! collider's first pose (one call), then 20 other poses of the same kind (B turned about
//! the shared centre: the same gap, other triangles facing each other) in the next call,
//! with the node tests (Nv) of each, so that the work is seen to be alike, and the build
//! (timed here only) that comes before any first pose.
//!
//! `cargo run --release --example first_pose [rounds]` prints, per scene, the median over
//! `rounds` fresh colliders of the first pose, the median warm pose, and their ratios.
//! The collider's build is the same call for every column; none of it is timed.

use meshcollide::mesh::generate;
use meshcollide::*;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("rounds: a number"))
        .unwrap_or(15);
    // One thread, this one, as `meshcollide query --threads 1` sets it up: a pool worker
    // would build the colliders and then spin for a while (rayon's idle wait), taking turns
    // with the first pose when the process is pinned to one core.
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global()
        .expect("one thread");
    let sphere = generate::sphere_with_triangles([0.0; 3], 1.0, 20_000);
    let torus = generate::torus([0.0; 3], 1.0, 0.3, 100, 40);
    // Per scene: the single query's pose, and 21 others of its kind (B turned about the
    // centre it shares with A, or for the tori about B's own axis).
    let mut rng = meshcollide::rng::Rng::new(7);
    let mut scenes: Vec<(String, Mesh, Mesh, Pose, Vec<Pose>)> = [0.1, 0.01, 0.001]
        .into_iter()
        .map(|alpha| {
            let b = sphere.map_positions(|p| p.map(|c| c * (1.0 - alpha)));
            let others = (0..21)
                .map(|_| Pose::new(rng.unit_quaternion(), [0.0; 3]))
                .collect();
            (
                format!("nested spheres 20k, α = {alpha}"),
                sphere.clone(),
                b,
                Pose::IDENTITY,
                others,
            )
        })
        .collect();
    scenes.push((
        "interlocked tori 8k".into(),
        torus.clone(),
        torus.map_positions(|[x, y, z]| [x, z, y]),
        Pose::new([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
        (0..21)
            .map(|k| {
                Pose::from_axis_angle([0.0, 1.0, 0.0], 0.0137 * (k + 1) as f64, [1.0, 0.0, 0.0])
            })
            .collect(),
    ));
    println!(
        "| scene | first pose (ms) | warm pose (ms) | first ÷ warm | warm from the roots (ms) | first ÷ it | a later call's first pose (ms) | it ÷ warm from the roots |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, a, b, pose, _) in &scenes {
        let mut first = Vec::new();
        let mut warm = Vec::new();
        let mut roots = Vec::new();
        let mut later = Vec::new();
        for _ in 0..rounds {
            let mut col = Collider::builder(a, b).build().expect("a collider");
            let t = Instant::now();
            let r = col.collide_batch(std::slice::from_ref(pose));
            first.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(r);
            let batch = vec![*pose; 20];
            let t = Instant::now();
            let r = col.collide_batch(&batch);
            warm.push(t.elapsed().as_secs_f64() * 1e3 / batch.len() as f64);
            std::hint::black_box(r);
            col.set_coherence(false);
            let t = Instant::now();
            let r = col.collide_batch(&batch);
            roots.push(t.elapsed().as_secs_f64() * 1e3 / batch.len() as f64);
            std::hint::black_box(r);
            let t = Instant::now();
            let r = col.collide_batch(std::slice::from_ref(pose));
            later.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(r);
        }
        let (f, w, r, l) = (median(first), median(warm), median(roots), median(later));
        println!(
            "| {name} | {f:.3} | {w:.3} | {:.2} | {r:.3} | {:.2} | {l:.3} | {:.2} |",
            f / w,
            f / r,
            l / r
        );
    }
    println!();
    println!(
        "| scene | build (ms) | first pose of other poses (ms) | its Nv | warm pose of the 20 after it (ms) | their Nv a pose | first ÷ warm |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, a, b, _, others) in &scenes {
        let (mut build, mut first, mut warm, mut nv) = (Vec::new(), Vec::new(), Vec::new(), (0, 0));
        for _ in 0..rounds {
            let t = Instant::now();
            let col = Collider::builder(a, b).build().expect("a collider");
            build.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let r = col.collide_batch(&others[..1]);
            first.push(t.elapsed().as_secs_f64() * 1e3);
            nv.0 = r[0].counters.bv_tests;
            let t = Instant::now();
            let r = col.collide_batch(&others[1..]);
            warm.push(t.elapsed().as_secs_f64() * 1e3 / r.len() as f64);
            nv.1 = r.iter().map(|c| c.counters.bv_tests).sum::<u64>() / r.len() as u64;
        }
        let (f, w) = (median(first), median(warm));
        println!(
            "| {name} | {:.1} | {f:.3} | {} | {w:.3} | {} | {:.2} |",
            median(build),
            nv.0,
            nv.1,
            f / w
        );
    }
}
