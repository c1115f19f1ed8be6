//! Times loading, hierarchy construction and flying-hierarchy preparation.
//! `cargo run --release --example build_time [mesh] [leaf_size]` (default: a generated torus).
use meshcollide::mesh::{generate, load};
use meshcollide::tumble::FlyingHierarchy;
use meshcollide::{BuildOptions, Bvh};
use std::time::Instant;

fn main() -> Result<(), meshcollide::Error> {
    let args: Vec<String> = std::env::args().collect();
    let t = Instant::now();
    let m = match args.get(1) {
        Some(p) => load(p.as_ref())?,
        None => generate::torus([0.0; 3], 1.0, 0.3, 200, 80),
    };
    let leaf_size = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    println!(
        "load {} tris: {:.1} ms",
        m.triangle_count(),
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    let b = Bvh::<9>::build(
        &m,
        &BuildOptions {
            leaf_size,
            ..Default::default()
        },
    );
    println!(
        "build: {:.1} ms, {} nodes, depth {}",
        t.elapsed().as_secs_f64() * 1e3,
        b.nodes.len(),
        b.depth
    );
    let t = Instant::now();
    let f = FlyingHierarchy::new(b);
    println!(
        "flying preparation: {:.1} ms, {} bounding points, {} hull vertices",
        t.elapsed().as_secs_f64() * 1e3,
        f.points.len(),
        f.hull.vertices().len()
    );
    Ok(())
}
