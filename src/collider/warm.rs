//! The first query after a build, warmed: [`ColliderBuilder::build`] ends with
//! [`Collider::warm_up`], a few queries on a small generated scene of the same volume, so
//! that the caller's first query finds the query's code in the CPU's caches.
//!
//! Why: a query runs a few hundred lines of machine code (the probe, the level loop with
//! its inlined node test, the triangle tests, the pools) that nothing before it in the
//! process ran. On a light pose that costs more than the query: the first call after the
//! build on two 8k tori in a near miss (about 90 node tests) took several times what the
//! same pose took again, and callgrind counted a few hundred lines of code read from memory
//! in it, one in the second call (measured in
//! `docs/notebook/cpu-speed-3-first-calls-warm-up-obb-fit.md`, "The first call of every
//! library"; the latest figures in `docs/RESULTS.md`, "What does the first query after a
//! build cost?").
//!
//! The warm-up runs those lines first on data of its own, then reads the top of the
//! caller's trees ([`descend_top`]: B laid on A, a few levels breadth first, bounded) and
//! queries the caller's collider once at a pose that A's box pretest separates ([`apart`]:
//! one node test, which brings the collider's entry and pooled workspace into the caches).
//! None of it changes what the collider's later queries find or count: every call starts
//! its own chunk of poses from the roots (tested below, on every volume, with coherence on
//! and off). The scene is built once per process and volume; its poses run at each build
//! (the costs: `docs/notebook/cpu-speed-3-first-calls-warm-up-obb-fit.md`, "The first query
//! warmed up by the build").
//!
//! What is left of the first query's extra cost is the pose's own: its path through the
//! trees and its branches, which no other pose trains (on the tori, one near miss of the
//! kind run before the first shortened it further, as measured in the sitting above;
//! nothing general knows the pose).
//!
//! It moves that cost into the build, it does not remove it: a process that runs much
//! other code between the build and a latency-critical query can call
//! [`Collider::warm_up`] again just before it; a build that needs none turns it off
//! ([`ColliderBuilder::warm_up`]).

use super::builder::ColliderBuilder;
use super::{AnyScene, Collider};
use crate::kind::{BvKind, for_each_k};
use crate::mesh::{Mesh, generate};
use crate::pose::Pose;
use crate::scene::QueryOptions;
use crate::traverse::LevelScene;
use std::sync::OnceLock;

/// Each volume's warm-up scene, built on its first use (`None` if it could not be, which
/// leaves warm-ups of that volume doing nothing).
static SCENES: [OnceLock<Option<Collider>>; BvKind::EVERY.len()] =
    [const { OnceLock::new() }; BvKind::EVERY.len()];

/// Segments of the warm-up tori around their major and minor circles: 256 triangles each,
/// deep enough (an OBB tree of 9 levels) for the poses below to run every stage of a
/// query, small enough to build in about 1.5 ms (`auto`, both trees).
const SEGMENTS: (u32, u32) = (16, 8);

/// The warm-up scene's A and B: two tori of major radius 1 and minor radius 0.3, B in the
/// xz-plane (A's vertices with y and z swapped), so that at the identity B's ring passes
/// through A's tube and at `x = 1` through A's hole.
pub(crate) fn tori() -> (Mesh, Mesh) {
    let a = generate::torus([0.0; 3], 1.0, 0.3, SEGMENTS.0, SEGMENTS.1);
    let b = a.map_positions(|[x, y, z]| [x, z, y]);
    (a, b)
}

/// The warm-up's poses of B, each a kind of pose a caller's first query may be, and each
/// light (at most about 400 node tests): separated by the root pretest; near misses, B's
/// ring through A's hole (straight and turned) and beside A: the descent with every axis of
/// the node tests, no contact; and B's tube grazing A's outside: the triangle tests and 14
/// contacts.
pub(crate) fn poses() -> [Pose; 5] {
    let turn =
        |axis: [f64; 3], angle: f64, x: f64| Pose::from_axis_angle(axis, angle, [x, 0.0, 0.0]);
    [
        Pose::translation([5.0, 0.0, 0.0]),
        Pose::translation([1.0, 0.0, 0.0]),
        turn([0.0, 1.0, 0.0], 0.3, 1.0),
        turn([1.0, 1.0, 1.0], 0.5, 2.6),
        Pose::translation([2.5, 0.0, 0.0]),
    ]
}

/// The poses of the caller's own scene that [`Collider::warm_up`] runs, from the meshes'
/// boxes at the build.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OwnPoses {
    /// [`apart`].
    pub apart: Option<Pose>,
    /// [`centred`].
    pub centred: Option<Pose>,
}

impl OwnPoses {
    /// Both poses of A and B.
    pub fn of(a: &Mesh, b: &Mesh) -> Self {
        OwnPoses {
            apart: apart(a, b),
            centred: centred(a, b),
        }
    }
}

/// B's box centred on A's box, not turned: where the tops of the two trees overlap, whatever
/// the meshes, for [`descend_top`]; `None` where the translation would leave the supported
/// range.
pub(crate) fn centred(a: &Mesh, b: &Mesh) -> Option<Pose> {
    let ((alo, ahi), (blo, bhi)) = (a.bounds(), b.bounds());
    let t: [f64; 3] = std::array::from_fn(|k| 0.5 * (alo[k] + ahi[k]) - 0.5 * (blo[k] + bhi[k]));
    t.iter()
        .all(|x| x.abs() <= crate::mesh::MAX_COORDINATE / 4.0)
        .then(|| Pose::translation(t))
}

/// Fronts of at most this many node pairs are expanded by [`descend_top`].
const TOP_FRONT: usize = 32;

/// The top of the caller's trees brought into the caches: `pose` begun, then its front
/// expanded breadth first from the root pair while it holds fewer than [`TOP_FRONT`] pairs
/// (the leaf pairs found are not tested). So it tests fewer than `TOP_FRONT` pairs a level,
/// at most `TOP_FRONT` times the trees' depth in all (a narrow front can follow a path to
/// the leaves), and usually a few dozen. The workspace is the scene's pooled one, which
/// the next call begins afresh.
fn descend_top<S: LevelScene>(s: &S, pose: &Pose, opts: &QueryOptions) {
    let mut ws = match s.pool() {
        Some(pool) => pool.lend(s),
        None => Box::new(s.workspace()),
    };
    if s.level_begin(pose, opts, &mut ws) {
        let (mut front, mut next, mut leaves) = (vec![(0u32, 0u32)], Vec::new(), Vec::new());
        while !front.is_empty() && front.len() < TOP_FRONT {
            next.clear();
            std::hint::black_box(s.level_expand(pose, &mut ws, &front, &mut next, &mut leaves));
            std::mem::swap(&mut front, &mut next);
        }
    }
    if let Some(pool) = s.pool() {
        pool.put(ws);
    }
}

/// A pose that moves B beyond A's bounding box along x, by at least its own extent, 1 and
/// `2^-20` of the largest coordinate (so that A's box pretest, whose margins are below
/// `2^-30` of the coordinates, separates it, [`crate::kdop::pretest::BoxPretest::separated`]);
/// `None` where that translation would leave the supported range.
pub(crate) fn apart(a: &Mesh, b: &Mesh) -> Option<Pose> {
    let ((alo, ahi), (blo, bhi)) = (a.bounds(), b.bounds());
    let largest = [alo, ahi, blo, bhi]
        .iter()
        .flatten()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let gap = [
        1.0,
        ahi[0] - alo[0],
        bhi[0] - blo[0],
        largest / (1u64 << 20) as f64,
    ]
    .into_iter()
    .fold(0.0f64, f64::max);
    let t = ahi[0] - blo[0] + gap;
    (t.abs() <= crate::mesh::MAX_COORDINATE / 4.0).then(|| Pose::translation([t, 0.0, 0.0]))
}

/// What [`ColliderBuilder::build`] warms up before it returns ([`ColliderBuilder::warm_up`];
/// the parts: [`Collider::warm_up`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WarmUp {
    /// Nothing: the first query runs its code for the first time.
    Off,
    /// The collider's own trees and workspace only: a few microseconds, nothing built.
    /// For a process that builds and queries once (the command line): a generated scene
    /// would cost it more than the first query saves.
    Own,
    /// The collider's own part and the generated scene of its volume.
    Full,
    /// [`WarmUp::Full`] from [`WarmUp::SCENE_MIN_TRIANGLES`], [`WarmUp::Own`] below (the default).
    #[default]
    Auto,
}

impl WarmUp {
    /// Triangles (A's and B's together) from which [`WarmUp::Auto`] runs the generated
    /// scene too: its one-time cost in a process (building it and its first queries:
    /// 0.2–1.8 ms by volume, `auto` 1.8 ms) then stays within about 5 % of the first build
    /// that runs it (a build of A and B of 10,000 triangles takes 10–35 ms), and its 15–90
    /// µs at each later build are a fraction of a percent
    /// (`docs/notebook/cpu-speed-3-first-calls-warm-up-obb-fit.md`, "The first query warmed
    /// up by the build").
    pub const SCENE_MIN_TRIANGLES: usize = 10_000;
}

/// The warm-up scene of `kind`, built with that volume's default options and no warm-up
/// of its own; none for the boxtree, whose node test leaves the poses heavy (8,063 node
/// tests on the near miss: 1 ms a build).
fn scene(kind: BvKind) -> Option<&'static Collider> {
    if kind == BvKind::Boxtree {
        return None;
    }
    SCENES[kind as usize]
        .get_or_init(|| {
            let (a, b) = tori();
            Collider::builder(&a, &b)
                .bv(kind)
                .warm_up(WarmUp::Off)
                .build()
                .ok()
        })
        .as_ref()
}

impl<'m> ColliderBuilder<'m> {
    /// What [`ColliderBuilder::build`] warms up ([`WarmUp`], by default [`WarmUp::Auto`]).
    /// With [`WarmUp::Off`] the first query after the build pays for running its code for
    /// the first time (10.5–12.7 µs instead of about 3 µs on a near miss of 1.5 µs warm:
    /// `docs/notebook/cpu-speed-3-first-calls-warm-up-obb-fit.md`), and the build saves the
    /// warm-up.
    pub fn warm_up(mut self, warm: WarmUp) -> Self {
        self.warm = warm;
        self
    }
}

impl Collider {
    /// Runs this collider's kind of query ([`Collider::collide_with`] with its query
    /// options, and a short [`Collider::collide_stream`]) on a small generated scene of the
    /// same volume (two tori of 256 triangles, built once per process: a separated pose,
    /// three near misses, a grazing contact), then reads the top of this collider's trees
    /// (B's box laid on A's, a few levels breadth first) and queries it once at a pose that
    /// puts B's box beyond A's. Results are dropped: what it leaves is the next query's code
    /// and the collider's workspace in the CPU's caches. This collider's later results and
    /// counters are those it would have had without.
    ///
    /// The build calls it ([`ColliderBuilder::warm_up`]: by default without the generated
    /// scene when A and B have fewer than [`WarmUp::SCENE_MIN_TRIANGLES`] together). Call it again
    /// before a query whose latency matters when other work ran since the build.
    pub fn warm_up(&self) {
        self.warm(true);
    }

    /// [`Collider::warm_up`], the generated scene's part only if `with_scene`.
    pub(super) fn warm(&self, with_scene: bool) {
        if let Some(w) = with_scene.then(|| scene(self.kind())).flatten() {
            let poses = poses();
            for p in &poses {
                std::hint::black_box(w.collide_with(p, &self.query));
            }
            // The command line's path: one pose, then two.
            for n in [1, 2] {
                w.run_stream(&poses[..n], &self.query);
            }
        }
        let own = self.own;
        if let Some(p) = own.centred {
            for_each_k!(&self.scene, AnyScene(s) => descend_top(s, &p, &self.query),
                AnyScene::Obb(s) => descend_top(s, &p, &self.query),
                AnyScene::Sphere(s) => descend_top(s, &p, &self.query),
                AnyScene::Auto(s) => descend_top(&s.obb, &p, &self.query),
                _ => {}
            )
        }
        if let Some(p) = own.apart {
            std::hint::black_box(self.collide_with(&p, &self.query));
            self.run_stream(&[p], &self.query);
        }
    }

    /// [`Collider::collide_stream`] of `poses`, results dropped.
    fn run_stream(&self, poses: &[Pose], opts: &QueryOptions) {
        let run = self.collide_stream(poses.iter().copied(), opts, |_, r| {
            std::hint::black_box(r);
            Ok(())
        });
        std::hint::black_box(run.is_ok());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kdop::KdopOptions;
    use crate::scene::brute_force;

    /// A scene the warm-up never saw (a sphere and a torus through it) and poses of every
    /// kind: overlapping, near, apart, and a run that repeats (what coherence reuses).
    fn other_scene() -> (Mesh, Mesh, Vec<Pose>) {
        let a = generate::uv_sphere([0.1, 0.0, 0.0], 1.0, 10, 20);
        let b = generate::torus([0.0; 3], 1.0, 0.25, 20, 8);
        let mut poses = vec![Pose::IDENTITY, Pose::translation([2.2, 0.0, 0.0])];
        for k in 0..6 {
            let p = Pose::from_axis_angle([0.2, 1.0, 0.3], 0.05 * k as f64, [0.1, 0.0, 0.3]);
            poses.extend([p, p]);
        }
        poses.push(Pose::translation([9.0, 0.0, 0.0]));
        (a, b, poses)
    }

    #[test]
    fn warm_up_leaves_results_and_counters_alone() {
        let (a, b, poses) = other_scene();
        for kind in BvKind::EVERY {
            for coherence in [false, true] {
                let build = |warm: WarmUp| {
                    let kdop = KdopOptions {
                        coherence,
                        ..Default::default()
                    };
                    Collider::builder(&a, &b)
                        .bv(kind)
                        .kdop(kdop)
                        .warm_up(warm)
                        .build()
                };
                let (cold, warm) = (build(WarmUp::Off).unwrap(), build(WarmUp::Full).unwrap());
                let at = format!("{} coherence {coherence}", kind.name());
                for p in &poses {
                    assert_eq!(cold.collide(p), warm.collide(p), "{at}, one pose");
                }
                warm.warm_up();
                let expected = cold.collide_batch(&poses);
                assert_eq!(expected, warm.collide_batch(&poses), "{at}, batch");
                warm.warm_up();
                let mut streamed = Vec::new();
                let opts = warm.query_options();
                warm.collide_stream(poses.iter().copied(), &opts, |_, r| {
                    streamed.push(r);
                    Ok(())
                })
                .unwrap();
                assert_eq!(expected, streamed, "{at}, stream");
            }
        }
    }

    /// The poses are what [`poses`] says of them, against the oracle, on every volume:
    /// the first separated by the pretest where there is one, the next three near misses
    /// that descend, the last with contacts, all light.
    #[test]
    fn warm_up_poses_run_every_stage() {
        let (a, b) = tori();
        let poses = poses();
        for kind in BvKind::EVERY {
            let c = Collider::builder(&a, &b)
                .bv(kind)
                .warm_up(WarmUp::Off)
                .build()
                .unwrap();
            let rs: Vec<_> = poses.iter().map(|p| c.collide(p)).collect();
            for (p, r) in poses.iter().zip(&rs) {
                assert_eq!(r.pairs, brute_force(&a, &b, p), "{}", kind.name());
            }
            assert!(
                rs[0].pairs.is_empty() && rs[0].counters.bv_tests == 1,
                "{}",
                kind.name()
            );
            for r in &rs[1..3] {
                assert!(
                    r.pairs.is_empty() && r.counters.bv_tests >= 20,
                    "{}: {r:?}",
                    kind.name()
                );
            }
            assert!(
                rs[4].pairs.len() >= 10 && rs[4].counters.tri_tests > 0,
                "{}",
                kind.name()
            );
            if matches!(kind, BvKind::Auto | BvKind::Obb) {
                assert!(
                    rs[3].counters.bv_tests >= 20,
                    "{}: {:?}",
                    kind.name(),
                    rs[3]
                );
                let most = rs.iter().map(|r| r.counters.bv_tests).max();
                assert!(most <= Some(500), "{}: {most:?}", kind.name());
            }
        }
    }

    /// [`apart`] puts B where A's box pretest separates it (one node test, no contact, and
    /// the oracle agrees), near the origin, far from it with 17-digit coordinates, and
    /// for a small B far out; it gives up only where the translation would leave the
    /// supported range.
    #[test]
    fn apart_is_separated_by_the_pretest() {
        let torus = generate::torus([0.0; 3], 1.0, 0.3, 12, 6);
        let far = torus
            .map_positions(|p| p.map(|c| c * 1.234_567_890_123_456_7 + 9.876_543_210_987_654e8));
        let speck = generate::uv_sphere([1.0e12, -3.0e11, 7.0], 1.0e-3, 4, 8);
        let big = generate::uv_sphere([0.0; 3], 1.0e6, 6, 12);
        for (a, b) in [
            (&torus, &torus),
            (&far, &far),
            (&speck, &big),
            (&big, &speck),
            (&far, &speck),
        ] {
            let p = apart(a, b).unwrap();
            let c = Collider::builder(a, b)
                .bv(BvKind::Kdop18)
                .warm_up(WarmUp::Off)
                .build()
                .unwrap();
            let r = c.collide(&p);
            assert!(r.pairs.is_empty() && r.counters.bv_tests == 1, "{r:?}");
            assert!(brute_force(a, b, &p).is_empty());
        }
        let edge =
            torus.map_positions(|p| p.map(|c| c * 1.0e29 + 0.9 * crate::mesh::MAX_COORDINATE));
        assert!(apart(&edge, &edge).is_none());
    }

    /// [`centred`] lays B's box on A's: a copy of A moved far away comes back onto A (each
    /// vertex within rounding of its twin), wherever the two are written.
    #[test]
    fn centred_lays_b_on_a() {
        let a = generate::torus([0.0; 3], 1.0, 0.3, 12, 6);
        let far = a.map_positions(|p| p.map(|c| c + 9.876_543_210_987_654e8));
        for (a, b) in [(&a, &far), (&far, &a), (&far, &far)] {
            let p = centred(a, b).unwrap();
            for (u, v) in a.positions.iter().zip(&b.positions) {
                let w = p.apply(*v);
                assert!((0..3).all(|k| (w[k] - u[k]).abs() < 1e-6), "{u:?} {w:?}");
            }
        }
    }
}
