//! parry3d-f64 as a peer of `meshcollide query`, for `benches/peers/peers.py`: the same
//! inputs (meshes read by meshcollide's own loader, `poses.csv`) and the same output
//! (`pairs.csv`), one thread, so the two can be compared line by line.
//!
//! `cargo run --release --example parry_peer -- A B --poses poses.csv --out pairs.csv
//! [--stats stats.json]`
//!
//! parry side as in `examples/vs_parry.rs`: `TriMesh::with_flags(.., TriMeshFlags::empty())`
//! (no welding, no deletion: the BVH leaf index is the file's triangle index), then per pose
//! `Bvh::leaf_pairs` with parry's AABB test under the pose of B (as parry's own
//! `intersect_meshes` does), then `query::intersection_test` (GJK on two `Triangle`s) on each
//! candidate pair. Only these calls are timed (the hierarchies are built before, as
//! `meshcollide query`'s `query_ms` excludes its build). Prints the mean milliseconds per
//! query on stdout (`mean_ms_per_query <ms>`); `--stats` also writes them as JSON.
//!
//! With `--distance`, the peer of `meshcollide distance` instead: per pose
//! `query::distance` on the two `TriMesh` shapes (parry's composite–composite distance,
//! best-first over its BVHs, GJK on each triangle pair it reaches), written as
//! `pose,distance,tri_a,tri_b` (the sub-shapes parry reports) to `--out`.

#[path = "common/parry.rs"]
mod parry;
use meshcollide::mesh::load;
use meshcollide::pose::read_poses;
use parry::{parry_collide, parry_pose, to_parry};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

struct Args {
    a: PathBuf,
    b: PathBuf,
    poses: PathBuf,
    out: PathBuf,
    stats: Option<PathBuf>,
    distance: bool,
}

const USAGE: &str = "usage: parry_peer A B --poses poses.csv --out pairs.csv|distance.csv [--stats stats.json] [--distance]";

fn parse_args() -> Result<Args, String> {
    let mut positional = Vec::new();
    let (mut poses, mut out, mut stats, mut distance) = (None, None, None, false);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .map(PathBuf::from)
                .ok_or(format!("{a} needs a value"))
        };
        match a.as_str() {
            "--poses" => poses = Some(value()?),
            "--out" => out = Some(value()?),
            "--stats" => stats = Some(value()?),
            "--distance" => distance = true,
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            _ => positional.push(PathBuf::from(a)),
        }
    }
    let [a, b]: [PathBuf; 2] = positional
        .try_into()
        .map_err(|_| "two meshes, A and B, are required".to_string())?;
    Ok(Args {
        a,
        b,
        poses: poses.ok_or("--poses is required")?,
        out: out.ok_or("--out is required")?,
        stats,
        distance,
    })
}

fn run(args: &Args) -> Result<(), String> {
    let ma = load(&args.a).map_err(|e| e.to_string())?;
    let mb = load(&args.b).map_err(|e| e.to_string())?;
    let poses = read_poses(&args.poses).map_err(|e| e.to_string())?;
    let t = Instant::now();
    let pa = to_parry(&ma)?;
    let pb = to_parry(&mb)?;
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    if args.distance {
        return run_distance(args, &pa, &pb, &poses, build_ms);
    }

    let mut results = Vec::with_capacity(poses.len());
    let mut query_ms = 0.0;
    for p in &poses {
        let pp = parry_pose(p);
        let t = Instant::now();
        let pairs = parry_collide(&pa, &pb, &pp);
        query_ms += t.elapsed().as_secs_f64() * 1e3;
        results.push(pairs);
    }

    let io = |e: std::io::Error| format!("{}: {e}", args.out.display());
    let mut w = std::io::BufWriter::new(std::fs::File::create(&args.out).map_err(io)?);
    // pairs.csv (`docs/FORMATS.md`): sorted by pose, tri_a, tri_b, no duplicates.
    writeln!(w, "pose,tri_a,tri_b").map_err(io)?;
    for (i, pairs) in results.iter().enumerate() {
        for (a, b) in pairs {
            writeln!(w, "{i},{a},{b}").map_err(io)?;
        }
    }
    w.flush().map_err(io)?;

    let n_pairs: usize = results.iter().map(Vec::len).sum();
    let mean = query_ms / poses.len().max(1) as f64;
    if let Some(s) = &args.stats {
        let json = format!(
            "{{\"peer\": \"parry3d-f64\", \"poses\": {}, \"pairs\": {n_pairs}, \"build_ms\": {build_ms}, \"query_ms\": {query_ms}, \"mean_ms_per_query\": {mean}}}\n",
            poses.len()
        );
        std::fs::write(s, json).map_err(|e| format!("{}: {e}", s.display()))?;
    }
    println!(
        "parry3d-f64: {} poses, {n_pairs} pairs, build {build_ms:.1} ms, query {query_ms:.1} ms",
        poses.len()
    );
    println!("mean_ms_per_query {mean}");
    Ok(())
}

/// `--distance`: `query::distance` per pose, only the calls timed.
fn run_distance(
    args: &Args,
    pa: &parry3d_f64::shape::TriMesh,
    pb: &parry3d_f64::shape::TriMesh,
    poses: &[meshcollide::Pose],
    build_ms: f64,
) -> Result<(), String> {
    use parry3d_f64::math::Pose as PPose;
    let mut results = Vec::with_capacity(poses.len());
    let mut query_ms = 0.0;
    for p in poses {
        let pp = parry_pose(p);
        let t = Instant::now();
        let d = parry3d_f64::query::distance(&PPose::IDENTITY, pa, &pp, pb)
            .map_err(|e| format!("parry distance: {e:?}"))?;
        query_ms += t.elapsed().as_secs_f64() * 1e3;
        results.push(d);
    }
    let io = |e: std::io::Error| format!("{}: {e}", args.out.display());
    let mut w = std::io::BufWriter::new(std::fs::File::create(&args.out).map_err(io)?);
    writeln!(w, "pose,distance,tri_a,tri_b").map_err(io)?;
    for (i, d) in results.iter().enumerate() {
        writeln!(w, "{i},{:?},{},{}", d.distance, d.subshape1, d.subshape2).map_err(io)?;
    }
    w.flush().map_err(io)?;
    let mean = query_ms / poses.len().max(1) as f64;
    if let Some(s) = &args.stats {
        let json = format!(
            "{{\"peer\": \"parry3d-f64\", \"poses\": {}, \"build_ms\": {build_ms}, \"query_ms\": {query_ms}, \"mean_ms_per_query\": {mean}}}\n",
            poses.len()
        );
        std::fs::write(s, json).map_err(|e| format!("{}: {e}", s.display()))?;
    }
    println!(
        "parry3d-f64 distance: {} poses, build {build_ms:.1} ms, query {query_ms:.1} ms",
        poses.len()
    );
    println!("mean_ms_per_query {mean}");
    Ok(())
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("parry_peer: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parry_peer: {e}");
            ExitCode::from(2)
        }
    }
}
