//! Times loading, hierarchy construction (single-threaded, every k, repeated: minimum and
//! median) and flying-hierarchy preparation, and reports memory per triangle.
//! `cargo run --release --example build_time [mesh] [leaf_size] [repeats]` (default: a
//! generated torus of 32,000 triangles).
use meshcollide::mesh::{generate, load};
use meshcollide::tumble::FlyingHierarchy;
use meshcollide::{BuildOptions, Bvh, Mesh};
use std::time::Instant;

fn main() -> Result<(), meshcollide::Error> {
    let args: Vec<String> = std::env::args().collect();
    let t = Instant::now();
    let m = match args.get(1) {
        Some(p) => load(p.as_ref())?,
        None => generate::torus([0.0; 3], 1.0, 0.3, 200, 80),
    };
    let leaf_size = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let repeats: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(5);
    println!(
        "load {} tris: {:.1} ms",
        m.triangle_count(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let o = BuildOptions {
        leaf_size,
        ..Default::default()
    };
    time_build::<3>(&m, &o, repeats);
    time_build::<7>(&m, &o, repeats);
    time_build::<9>(&m, &o, repeats);
    time_build::<13>(&m, &o, repeats);
    every_hierarchy(&m, &o);
    let b = Bvh::<9>::build(&m, &o);
    let t = Instant::now();
    let f = FlyingHierarchy::new(b);
    let fly_ms = t.elapsed().as_secs_f64() * 1e3;
    let extra = std::mem::size_of_val(f.points.as_slice()) + 4 * f.offsets.len();
    println!(
        "kdop18 flying preparation ({} threads): {fly_ms:.1} ms, {} bounding points ({:.1} B/triangle more)",
        rayon::current_num_threads(),
        f.points.len(),
        extra as f64 / m.triangle_count() as f64
    );
    Ok(())
}

/// Every hierarchy behind `--bv`, A = B = the mesh, on one thread: the whole scene build
/// (both hierarchies and B's per-hierarchy preparation) and A's node bytes per triangle.
fn every_hierarchy(m: &Mesh, o: &BuildOptions) {
    use meshcollide::{BvKind, Collider};
    let kinds = BvKind::ALL
        .into_iter()
        .chain(BvKind::DUAL)
        .chain([BvKind::Boxtree, BvKind::Rtree]);
    let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(1).build() else {
        return;
    };
    println!(
        "| --bv | scene build, 1 thread (ms) | A nodes | A node bytes | B/node | B/triangle |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for k in kinds {
        let t = Instant::now();
        let Ok(c) = pool.install(|| Collider::builder(m, m).bv(k).build_options(*o).build()) else {
            println!("| {} | build failed | | | | |", k.name());
            continue;
        };
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let [(nodes, bytes), _] = c.hierarchy_sizes();
        println!(
            "| {} | {ms:.0} | {nodes} | {bytes} | {:.1} | {:.1} |",
            k.name(),
            bytes as f64 / nodes.max(1) as f64,
            bytes as f64 / m.triangle_count() as f64
        );
    }
}

/// Nanoseconds this thread has run on a CPU (`/proc/thread-self/schedstat`, Linux only).
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Builds `repeats` times on this thread; prints min and median, throughput and memory.
fn time_build<const H: usize>(m: &Mesh, o: &BuildOptions, repeats: usize) {
    let mut ms = Vec::new();
    let mut last = None;
    for _ in 0..repeats.max(1) {
        let (t, cpu) = (Instant::now(), cpu_ns());
        let b = Bvh::<H>::build(m, o);
        // On-CPU time of this thread where Linux reports it (robust on a loaded machine).
        ms.push(match (cpu, cpu_ns()) {
            (Some(a), Some(b)) => (b - a) as f64 / 1e6,
            _ => t.elapsed().as_secs_f64() * 1e3,
        });
        last = Some(b);
    }
    ms.sort_by(f64::total_cmp);
    let b = last.expect("at least one build");
    let n = m.triangle_count() as f64;
    let bytes = b.node_bytes() + std::mem::size_of_val(b.tri_index.as_slice()) + b.tris.bytes();
    println!(
        "kdop{:<2} build (thread CPU time): min {:.1} ms, median {:.1} ms ({:.2} M triangles/s at the median), {} nodes, depth {}, {:.1} B/triangle ({:.1} nodes + {:.1} triangles)",
        2 * H,
        ms[0],
        ms[ms.len() / 2],
        n / ms[ms.len() / 2] / 1e3,
        b.nodes.len(),
        b.depth,
        bytes as f64 / n,
        b.node_bytes() as f64 / n,
        (bytes - b.node_bytes()) as f64 / n,
    );
}
