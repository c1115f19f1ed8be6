//! CPU reference: hierarchy build per k and one tumbling turn of interlocked tori per k.
//! `cargo bench --bench cpu_query`. Counters (Nv, Np, Nu) are printed beside the times.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use meshcollide::mesh::generate;
use meshcollide::pose::tumbling_poses;
use meshcollide::*;

fn tori() -> (Mesh, Mesh) {
    let a = generate::torus([0.0; 3], 1.0, 0.3, 100, 40);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    (a, b)
}

fn build(c: &mut Criterion) {
    let (a, _) = tori();
    let mut g = c.benchmark_group("build");
    g.sample_size(10);
    for rule in SplitRule::ALL {
        let o = BuildOptions {
            rule,
            ..Default::default()
        };
        g.bench_with_input(BenchmarkId::new("kdop18", rule.name()), &o, |bch, o| {
            bch.iter(|| meshcollide::bvh::Bvh::<9>::build(&a, o))
        });
    }
    g.finish();
}

fn query(c: &mut Criterion) {
    let (a, b) = tori();
    let poses = tumbling_poses(64, [0.0; 3], [1.0, 0.0, 0.0]);
    let o = BuildOptions::default();
    let mut g = c.benchmark_group("query_64_poses");
    g.sample_size(10);
    for bv in BvKind::ALL {
        let col = Collider::builder(&a, &b)
            .bv(bv)
            .build_options(o)
            .build()
            .unwrap();
        let r = col.collide_batch_with(&poses, &QueryOptions::default(), None);
        let n = formats::total_counters(&r);
        eprintln!(
            "{}: Nv {} Np {} Nu {}",
            bv.name(),
            n.bv_tests,
            n.tri_tests,
            n.bv_updates
        );
        g.bench_function(bv.name(), |bch| {
            bch.iter(|| col.collide_batch_with(&poses, &QueryOptions::default(), None))
        });
    }
    g.finish();
}

criterion_group!(benches, build, query);
criterion_main!(benches);
