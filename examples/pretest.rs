//! The k-DOP pose pretest (B's posed box against A's box in f64, `src/kdop/pretest.rs`) on
//! and off, in one run, one thread: mean µs per pose, Nv/Np/Nu per pose, and the pairs
//! compared (they must be equal; the example stops if not).
//!
//! `cargo run --release --example pretest [path/to/stanford-bunny.obj]`
//!
//! Scenes: wavy grids (152 × 152 vertices on the unit square, z = 0.02·sin 12x·sin 12y,
//! 45,602 triangles each) with B lifted by 0.1 and 0.2 (separated: every pose misses) and
//! by 0 (touching), poses turning about z by up to ±0.01 rad and shifted by up to ±0.05 in
//! x and y; 300 and 9,000 poses. With a bunny path, also bunny × bunny, 500 tumbling poses
//! at centres 0.5 and 2.0 extents apart (the latter: boxes overlap, no pair).

use meshcollide::mesh::generate;
use meshcollide::rng::Rng;
use meshcollide::*;
use std::time::Instant;

fn wavy_grid() -> Mesh {
    let n = 151;
    generate::grid(n, n, 1.0 / n as f64, 0.0)
        .map_positions(|[x, y, _]| [x, y, 0.02 * (12.0 * x).sin() * (12.0 * y).sin()])
}

/// Small turns about z and shifts in x, y around a lift of `z`.
fn grid_poses(z: f64, n: usize, seed: u64) -> Vec<Pose> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let th = 0.01 * (2.0 * rng.f64() - 1.0);
            let (dx, dy) = (
                0.05 * (2.0 * rng.f64() - 1.0),
                0.05 * (2.0 * rng.f64() - 1.0),
            );
            Pose::new([(th / 2.0).cos(), 0.0, 0.0, (th / 2.0).sin()], [dx, dy, z])
        })
        .collect()
}

struct Run {
    us: f64,
    counters: [f64; 3],
    pairs: Vec<Vec<(u32, u32)>>,
}

fn run(a: &Mesh, b: &Mesh, poses: &[Pose], pretest: bool) -> Run {
    let col = Collider::builder(a, b)
        .kdop(KdopOptions {
            pretest,
            ..KdopOptions::default()
        })
        .build()
        .expect("a collider");
    // Warm the collider once, as a batch after the first would be.
    std::hint::black_box(col.collide_batch(&poses[..1]));
    let t = Instant::now();
    let r = col.collide_batch(poses);
    let us = t.elapsed().as_secs_f64() * 1e6 / poses.len() as f64;
    let n = poses.len() as f64;
    let c = meshcollide::formats::total_counters(&r);
    Run {
        us,
        counters: [
            c.bv_tests as f64 / n,
            c.tri_tests as f64 / n,
            c.bv_updates as f64 / n,
        ],
        pairs: r.into_iter().map(|c| c.pairs).collect(),
    }
}

fn main() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("one thread");
    let grid = wavy_grid();
    let mut scenes: Vec<(String, Mesh, Mesh, Vec<Pose>)> = Vec::new();
    for (z, n) in [(0.1, 300), (0.2, 300), (0.1, 9000), (0.2, 9000), (0.0, 300)] {
        let name = format!("wavy grids 46k × 46k, lifted {z}, {n} poses");
        scenes.push((name, grid.clone(), grid.clone(), grid_poses(z, n, 7)));
    }
    if let Some(path) = std::env::args().nth(1) {
        let bunny = meshcollide::mesh::load(std::path::Path::new(&path)).expect("the bunny");
        let (lo, hi) = bunny.bounds();
        let c = [0, 1, 2].map(|k| (lo[k] + hi[k]) / 2.0);
        let extent = (0..3).map(|k| hi[k] - lo[k]).fold(0.0, f64::max);
        for d in [0.5, 2.0] {
            let poses = meshcollide::pose::tumbling_poses(500, c, [d * extent, 0.0, 0.0]);
            scenes.push((
                format!("bunny × bunny, 500 poses, {d} extents"),
                bunny.clone(),
                bunny.clone(),
                poses,
            ));
        }
    }
    println!(
        "| scene | pretest off: µs/pose | on: µs/pose | off ÷ on | Nv / Np / Nu per pose, off | on | pairs |"
    );
    println!("|---|---:|---:|---:|---|---|---:|");
    for (name, a, b, poses) in &scenes {
        let off = run(a, b, poses, false);
        let on = run(a, b, poses, true);
        assert_eq!(off.pairs, on.pairs, "{name}: the pretest changed the pairs");
        let pairs: usize = on.pairs.iter().map(Vec::len).sum();
        let f = |c: [f64; 3]| format!("{:.1} / {:.1} / {:.1}", c[0], c[1], c[2]);
        println!(
            "| {name} | {:.2} | {:.2} | {:.1} | {} | {} | {pairs} |",
            off.us,
            on.us,
            off.us / on.us,
            f(off.counters),
            f(on.counters)
        );
    }
}
