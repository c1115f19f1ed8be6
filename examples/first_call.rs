//! One library's first query after its build, against its warm queries, for
//! `benches/peers/first_call.py` (which runs the Python peers the same way): in a fresh
//! process, a query on two one-triangle meshes (as the side-by-side warms every Python
//! peer up, untimed), then A and B loaded and built (untimed), then one call per pose:
//! the first pose of `poses.csv` (the first call), the same pose 20 times more, and every
//! other pose of the file once. Prints one JSON line of microseconds: `first_us`, `same_us`
//! (the median of the 20), `others_us` (their mean), `build_us` (A's and B's build), and
//! the first call's `pairs`.
//!
//! `cargo run --release --example first_call -- ours|ours-cold|parry A B poses.csv`
//!
//! `ours` is `Collider::collide` with the default volume (`auto`) and build (which ends
//! with `Collider::warm_up`), `ours-cold` the same built with `warm_up(WarmUp::Off)`, `parry` is
//! parry3d-f64 as in `examples/parry_peer.rs` (its build: the two `TriMesh`es); all on one
//! thread, this one.

#[path = "common/parry.rs"]
mod parry;
use meshcollide::mesh::load;
use meshcollide::pose::read_poses;
use meshcollide::{Collider, Mesh, Pose, WarmUp};
use parry::{parry_collide, parry_pose, to_parry};
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: first_call ours|ours-cold|parry A B poses.csv";

/// A query run `f(pose)` returning its pairs: the first call, the same pose 20 times, the
/// others once each (µs).
fn measure(poses: &[Pose], mut f: impl FnMut(&Pose) -> usize) -> (f64, f64, f64, usize) {
    // The clock's first read maps its pages (two page faults): not the query's.
    std::hint::black_box(Instant::now());
    let t = Instant::now();
    let pairs = f(&poses[0]);
    let first = t.elapsed().as_secs_f64() * 1e6;
    let mut same: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f(&poses[0]));
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    same.sort_by(f64::total_cmp);
    let t = Instant::now();
    for p in &poses[1..] {
        std::hint::black_box(f(p));
    }
    let others = t.elapsed().as_secs_f64() * 1e6 / (poses.len() - 1).max(1) as f64;
    (first, same[same.len() / 2], others, pairs)
}

fn run(args: &[String]) -> Result<(), String> {
    let [lib, a, b, poses] = args else {
        return Err(USAGE.into());
    };
    let ma = load::load(a.as_ref()).map_err(|e| e.to_string())?;
    let mb = load::load(b.as_ref()).map_err(|e| e.to_string())?;
    let poses = read_poses(poses.as_ref()).map_err(|e| e.to_string())?;
    if poses.is_empty() {
        return Err("poses.csv holds no pose".into());
    }
    let tiny = Mesh::new(
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
        vec![[0, 1, 2]],
    )
    .map_err(|e| e.to_string())?;
    let (first, same, others, pairs, build) = match lib.as_str() {
        "ours" | "ours-cold" => {
            let warm = if lib == "ours" {
                WarmUp::default()
            } else {
                WarmUp::Off
            };
            let w = Collider::builder(&tiny, &tiny)
                .warm_up(warm)
                .build()
                .map_err(|e| e.to_string())?;
            std::hint::black_box(w.collide(&Pose::IDENTITY));
            let t = Instant::now();
            let c = Collider::builder(&ma, &mb)
                .warm_up(warm)
                .build()
                .map_err(|e| e.to_string())?;
            let build = t.elapsed();
            let (first, same, others, pairs) = measure(&poses, |p| c.collide(p).pairs.len());
            (first, same, others, pairs, build)
        }
        "parry" => {
            let tp = to_parry(&tiny)?;
            std::hint::black_box(parry_collide(&tp, &tp, &parry_pose(&Pose::IDENTITY)));
            let t = Instant::now();
            let (pa, pb) = (to_parry(&ma)?, to_parry(&mb)?);
            let build = t.elapsed();
            let (first, same, others, pairs) =
                measure(&poses, |p| parry_collide(&pa, &pb, &parry_pose(p)).len());
            (first, same, others, pairs, build)
        }
        _ => return Err(USAGE.into()),
    };
    let build_us = build.as_secs_f64() * 1e6;
    println!(
        "{{\"first_us\": {first}, \"same_us\": {same}, \"others_us\": {others}, \"pairs\": {pairs}, \"build_us\": {build_us}}}"
    );
    Ok(())
}

fn main() -> ExitCode {
    // One thread, this one, as `meshcollide query --threads 1` sets it up.
    if let Err(e) = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .use_current_thread()
        .build_global()
    {
        eprintln!("first_call: {e}");
        return ExitCode::FAILURE;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("first_call: {e}");
            ExitCode::FAILURE
        }
    }
}
