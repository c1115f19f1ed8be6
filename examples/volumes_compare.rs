//! The lecture's comparison of volumes (issue 13) with every hierarchy at its CPU default:
//! kdop6 (the AABB) and kdop18 with their default descent (larger k-DOP first) and pose
//! pretest, against the OBB tree and the sphere tree (larger volume first, nothing
//! tumbled). Scenes: `bench hierarchies`' tumbling copies (the Stanford bunny from
//! `../shared/meshes`, the generated linked tori) at centre distances 0.4 and 1.2, and
//! Klosowski's nested spheres (20,000 triangles, α = 0.1, 0.01, 0.001) at the identity. One
//! thread, one run; prints a Markdown table (`docs/notebook/hierarchies-compared.md`, "OBB
//! and sphere trees").
//!
//! `cargo run --release --example volumes_compare`
use meshcollide::experiments as ex;
use meshcollide::*;
use std::time::Instant;

fn run(name: &str, a: &Mesh, b: &Mesh, poses: &[Pose]) {
    for bv in [BvKind::Kdop6, BvKind::Kdop18, BvKind::Obb, BvKind::Sphere] {
        let c = Collider::builder(a, b).bv(bv).build().unwrap();
        c.collide(&Pose::translation([1e3, 0.0, 0.0]));
        let (mut nv, mut np, mut nu, mut pairs) = (0u64, 0u64, 0u64, 0usize);
        let t = Instant::now();
        for p in poses {
            let r = c.collide(p);
            nv += r.counters.bv_tests;
            np += r.counters.tri_tests;
            nu += r.counters.bv_updates;
            pairs += r.pairs.len();
        }
        let ms = t.elapsed().as_secs_f64() * 1e3 / poses.len() as f64;
        let n = poses.len() as u64;
        println!(
            "| {name} | {} | {:.3} | {} | {} | {} | {} |",
            bv.name(),
            ms,
            nv / n,
            np / n,
            nu / n,
            pairs
        );
    }
}

fn main() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .unwrap();
    println!(
        "| scene | bv | avg ms | avg Nv | avg Np | avg Nu | pairs |\n|---|---|---|---|---|---|---|"
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes");
    let mut scenes = vec![("tori", ex::default_model(20_000))];
    match mesh::load(&dir.join("stanford-bunny.obj")) {
        Ok(m) => scenes.insert(0, ("bunny", ex::fit_cube(&m))),
        Err(e) => eprintln!("SKIP bunny: {e}"),
    }
    for (name, m) in &scenes {
        for d in [0.4, 1.2] {
            run(&format!("{name} d={d}"), m, m, &ex::tumble_poses(100, d));
        }
    }
    for alpha in [0.1, 0.01, 0.001] {
        let (o, i) = ex::nested_spheres(20_000, alpha);
        run(&format!("nested α={alpha}"), &o, &i, &[Pose::IDENTITY; 5]);
    }
}
