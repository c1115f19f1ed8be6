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
    let mut scenes: Vec<(String, Mesh, Mesh, Pose)> = [0.1, 0.01, 0.001]
        .into_iter()
        .map(|alpha| {
            let b = sphere.map_positions(|p| p.map(|c| c * (1.0 - alpha)));
            (
                format!("nested spheres 20k, α = {alpha}"),
                sphere.clone(),
                b,
                Pose::IDENTITY,
            )
        })
        .collect();
    scenes.push((
        "interlocked tori 8k".into(),
        torus.clone(),
        torus.map_positions(|[x, y, z]| [x, z, y]),
        Pose::new([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ));
    println!(
        "| scene | first pose (ms) | warm pose (ms) | first ÷ warm | warm from the roots (ms) | first ÷ it | a later call's first pose (ms) | it ÷ warm from the roots |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (name, a, b, pose) in &scenes {
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
}
