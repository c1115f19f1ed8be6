//! Times hierarchy construction and flying-hierarchy preparation on a generated torus.
use meshcollide::mesh::generate;
use meshcollide::tumble::FlyingHierarchy;
use meshcollide::{BuildOptions, Bvh};
use std::time::Instant;

fn main() {
    let m = generate::torus([0.0; 3], 1.0, 0.3, 200, 80);
    let t = Instant::now();
    let b = Bvh::<9>::build(&m, &BuildOptions::default());
    println!("build {} tris: {:.1} ms", m.triangle_count(), t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let f = FlyingHierarchy::new(b);
    println!("flying prep: {:.1} ms, {} points", t.elapsed().as_secs_f64() * 1e3, f.points.len());
}
