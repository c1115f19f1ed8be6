//! Scenes of many bodies (`meshcollide::bodies`): every frame's contacts equal brute force
//! over all body pairs and triangle pairs on the world f64 coordinates (random scenes with
//! touching and coplanar bodies, far from the origin, with insertions and removals, self
//! pairs and the first-contact mode), whatever the thread count; the motions the scene
//! refuses; and, with a GPU, the same contacts from `step_gpu`.

mod common;

use common::scenes::{exact_pose, float_pose, grid_soup};
use meshcollide::bodies::{Body, BodyKind, Motion, Scene, SceneOptions, brute_force};
use meshcollide::rng::Rng;
use meshcollide::scene::Mode;
use meshcollide::{BvKind, Mesh, Pose, mesh::generate};
use std::sync::Arc;

/// A random scene: meshes of grid soups (exact coordinates: touching, coplanar and shared
/// faces), float soups and a small torus; `n` bodies over them, every fifth static.
fn bodies(rng: &mut Rng, n: usize) -> Vec<Body> {
    let meshes: Vec<Arc<Mesh>> = vec![
        Arc::new(grid_soup(rng, 24)),
        Arc::new(common::scenes::float_soup(rng, 30)),
        Arc::new(generate::torus([0.0; 3], 0.6, 0.2, 10, 6)),
        Arc::new(generate::box_mesh([-0.5; 3], [0.5; 3])),
    ];
    (0..n)
        .map(|i| {
            let mesh = meshes[rng.below(meshes.len() as u64) as usize].clone();
            if i % 5 == 0 {
                Body::fixed(mesh)
            } else {
                Body::moving(mesh)
            }
        })
        .collect()
}

/// A pose for a body: exact (half-integer shifts, axis half-turns) or float, shifted by
/// `far`, or the identity now and then (the narrow phase's exact case).
fn pose(rng: &mut Rng, exact: bool, far: f64) -> Pose {
    if rng.below(6) == 0 && far == 0.0 {
        return Pose::IDENTITY;
    }
    let p = if exact {
        exact_pose(rng)
    } else {
        float_pose(rng, 1.2)
    };
    Pose::new(p.q, [p.t[0] + far, p.t[1] - far, p.t[2] + 0.5 * far])
}

/// Runs `frames` random frames of a scene against brute force; returns every frame's
/// contacts. Each frame places some bodies, moves moving ones, removes some and puts some
/// back; static bodies are placed once.
fn run(
    seed: u64,
    options: SceneOptions,
    exact: bool,
    far: f64,
    frames: usize,
) -> Vec<Vec<meshcollide::SceneContact>> {
    let mut rng = Rng::new(seed);
    let bodies = bodies(&mut rng, 12);
    let mut scene = Scene::new(bodies.clone(), options).unwrap();
    let mut poses: Vec<Option<Pose>> = vec![None; bodies.len()];
    let mut placed = vec![false; bodies.len()];
    let mut all = vec![];
    let mut nonempty = 0;
    for frame in 0..frames {
        let mut motions = vec![];
        for i in 0..bodies.len() {
            let r = rng.below(10);
            let fixed = bodies[i].kind == BodyKind::Static;
            let m = match (poses[i].is_some(), r) {
                (true, 0) => Some(Motion::Remove),
                (false, 0..=4) if !(fixed && placed[i]) => {
                    Some(Motion::Place(pose(&mut rng, exact, far)))
                }
                (true, 1..=6) if !fixed => Some(Motion::Place(pose(&mut rng, exact, far))),
                _ => None,
            };
            if let Some(m) = m {
                match m {
                    Motion::Place(p) => {
                        poses[i] = Some(p);
                        placed[i] = true;
                    }
                    Motion::Remove => poses[i] = None,
                }
                motions.push((i as u32, m));
            }
        }
        let r = scene.step(&motions).unwrap();
        let want = brute_force(&bodies, &poses, options.self_pairs);
        match options.mode {
            Mode::All => assert_eq!(r.contacts, want, "seed {seed}, frame {frame}"),
            Mode::First => {
                // One real pair per pair of bodies that has any.
                let key = |c: &meshcollide::SceneContact| (c.body_a, c.body_b);
                let mut got_pairs: Vec<_> = r.contacts.iter().map(key).collect();
                let mut want_pairs: Vec<_> = want.iter().map(key).collect();
                want_pairs.dedup();
                assert!(r.contacts.iter().all(|c| want.contains(c)), "seed {seed}");
                got_pairs.dedup();
                assert_eq!(
                    got_pairs.len(),
                    r.contacts.len(),
                    "one row per pair of bodies"
                );
                assert_eq!(got_pairs, want_pairs, "seed {seed}, frame {frame}");
            }
        }
        nonempty += !want.is_empty() as usize;
        all.push(r.contacts);
    }
    assert!(
        nonempty * 3 >= frames,
        "seed {seed}: only {nonempty} frames with contacts"
    );
    all
}

#[test]
fn contacts_equal_brute_force_on_touching_and_coplanar_scenes() {
    for seed in 0..common::cases(6) as u64 {
        let bv = BvKind::ALL[seed as usize % 4];
        run(
            seed,
            SceneOptions {
                bv,
                ..Default::default()
            },
            true,
            0.0,
            8,
        );
    }
}

#[test]
fn contacts_equal_brute_force_on_float_scenes_near_and_far_from_the_origin() {
    for seed in 0..common::cases(6) as u64 {
        let far = [0.0, 1e7, 3.0e9][seed as usize % 3];
        run(100 + seed, SceneOptions::default(), false, far, 8);
    }
}

#[test]
fn self_pairs_and_first_mode_follow_the_oracle() {
    for seed in 0..common::cases(4) as u64 {
        let exact = seed % 2 == 0;
        let self_pairs = SceneOptions {
            self_pairs: true,
            ..Default::default()
        };
        run(200 + seed, self_pairs, exact, 0.0, 6);
        let first = SceneOptions {
            mode: Mode::First,
            ..Default::default()
        };
        run(300 + seed, first, exact, 0.0, 6);
    }
}

#[test]
fn contacts_do_not_depend_on_the_thread_count() {
    let with = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(41, SceneOptions::default(), false, 0.0, 6))
    };
    assert_eq!(with(1), with(3));
}

#[test]
fn bodies_sharing_a_mesh_share_one_hierarchy() {
    let ball = Arc::new(generate::uv_sphere([0.0; 3], 1.0, 6, 8));
    let floor = Arc::new(generate::grid(4, 4, 1.0, 0.0));
    let mut bodies = vec![Body::fixed(floor)];
    bodies.extend((0..50).map(|_| Body::moving(ball.clone())));
    let scene = Scene::new(bodies, SceneOptions::default()).unwrap();
    assert_eq!(scene.mesh_count(), 2);
    assert_eq!(scene.body_count(), 51);
}

#[test]
fn refused_motions_name_the_body_and_change_nothing() {
    let ball = Arc::new(generate::box_mesh([-0.5; 3], [0.5; 3]));
    let mut scene = Scene::new(
        vec![Body::fixed(ball.clone()), Body::moving(ball.clone())],
        SceneOptions::default(),
    )
    .unwrap();
    let at = |x: f64| Motion::Place(Pose::new([1.0, 0.0, 0.0, 0.0], [x, 0.0, 0.0]));
    scene.step(&[(0, at(0.0)), (1, at(1.5))]).unwrap();
    let err = |r: meshcollide::Result<meshcollide::StepReport>| r.unwrap_err().to_string();
    assert!(err(scene.step(&[(2, at(0.0))])).contains("body 2 is not in the scene"));
    assert!(err(scene.step(&[(0, at(0.5))])).contains("body 0 is static"));
    assert!(err(scene.step(&[(1, at(0.5)), (1, at(0.7))])).contains("two motions"));
    // All or nothing: body 1's good motion before the bad one is not applied.
    assert!(err(scene.step(&[(1, at(9.0)), (0, at(0.5))])).contains("static"));
    assert_eq!(scene.pose(1).unwrap().t, [1.5, 0.0, 0.0]);
    scene.remove(1).unwrap();
    assert!(err(scene.step(&[(1, Motion::Remove)])).contains("not in the scene"));
    // Back in, touching the static cube face to face (unit cubes 1 apart).
    scene
        .insert(1, Pose::new([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0]))
        .unwrap();
    let r = scene.contacts();
    let bodies = [Body::fixed(ball.clone()), Body::moving(ball)];
    let poses = [scene.pose(0), scene.pose(1)];
    assert_eq!(r.contacts, brute_force(&bodies, &poses, false));
    assert!(!r.contacts.is_empty());
    let e = Scene::new(
        vec![],
        SceneOptions {
            bv: BvKind::Obb,
            ..Default::default()
        },
    );
    assert!(e.unwrap_err().to_string().contains("k-DOP"));
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_steps_equal_the_cpu_steps() {
    let Some(ctx) = common::gpu() else { return };
    // Each mesh pair's first GPU batch compiles its pipelines (about a second each on
    // lavapipe): one seed by default, both kinds of poses over its frames.
    for seed in 0..common::cases(1) as u64 {
        let mut rng = Rng::new(500 + seed);
        let bodies = bodies(&mut rng, 10);
        let options = SceneOptions::default();
        let mut cpu = Scene::new(bodies.clone(), options).unwrap();
        let mut gpu = Scene::new(bodies.clone(), options).unwrap();
        let mut present = vec![false; bodies.len()];
        let mut total = 0;
        for frame in 0..5 {
            let mut motions = vec![];
            for (i, b) in bodies.iter().enumerate() {
                if b.kind == BodyKind::Moving || !present[i] {
                    present[i] = true;
                    let exact = (seed + frame) % 2 == 0;
                    motions.push((i as u32, Motion::Place(pose(&mut rng, exact, 0.0))));
                }
            }
            let want = cpu.step(&motions).unwrap();
            let (got, _) = gpu.step_gpu(&ctx, &motions).unwrap();
            assert_eq!(got.contacts, want.contacts, "seed {seed}");
            assert_eq!(got.broad_pairs, want.broad_pairs);
            total += want.contacts.len();
        }
        assert!(total > 0);
    }
}

/// Two bodies, neither at the identity, `2^-44` apart in the world: within the narrow
/// phase's tolerance in A's frame (so a candidate), but not touching, which the exact
/// decision on the world coordinates must see; at distance 0 they touch.
#[test]
fn candidates_within_the_bound_are_decided_on_the_world_coordinates() {
    let tri = |x: f64| {
        Arc::new(Mesh {
            positions: vec![[x, 0.0, 0.0], [x, 1.0, 0.0], [x, 0.0, 1.0]],
            triangles: vec![[0, 1, 2]],
        })
    };
    for (gap, touch) in [(2f64.powi(-44), false), (0.0, true)] {
        let bodies = vec![Body::moving(tri(0.0)), Body::moving(tri(gap))];
        let mut scene = Scene::new(bodies.clone(), SceneOptions::default()).unwrap();
        let p = Pose::new([1.0, 0.0, 0.0, 0.0], [1.0, 0.25, -0.5]);
        let r = scene
            .step(&[(0, Motion::Place(p)), (1, Motion::Place(p))])
            .unwrap();
        assert_eq!(r.relative_pairs, 1, "asked as a tolerance query");
        assert_eq!(r.contacts, brute_force(&bodies, &[Some(p), Some(p)], false));
        assert_eq!(r.contacts.len(), touch as usize, "gap {gap}");
    }
}
