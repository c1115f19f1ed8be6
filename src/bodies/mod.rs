//! Scenes of many bodies: every intersecting pair of triangles of any two bodies, frame by
//! frame, as bodies move, arrive and leave (`docs/FORMATS.md`, "Scenes of many bodies";
//! Klosowski et al., "Efficient Collision Detection Using Bounding Volume Hierarchies of
//! k-DOPs", 1998, 6.1: "multiple flying objects" and "dynamic environments").
//!
//! A [`Scene`] holds its bodies ([`Body`]: a shared mesh and whether it is static). Bodies
//! naming the same mesh (the same [`Arc`]) share one k-DOP hierarchy, built once. Each
//! [`Scene::step`] applies a frame's motions ([`Motion`]: a new world pose, or removal),
//! then finds the contacts in two phases:
//!
//! - **Broad phase**: sweep and prune ([`sweep`]) over each present body's world box, the
//!   sorted endpoint lists and the overlapping pairs kept across frames. Static pairs are
//!   never made.
//! - **Narrow phase**: each overlapping pair is one pose of the two-mesh machinery
//!   ([`crate::Collider`] with the shared hierarchies, one per mesh pair, each frame's pairs
//!   of a mesh pair in one batch, in parallel), decided exactly on both bodies' world
//!   coordinates ([`narrow`]).
//!
//! The contacts of a frame are sorted by body pair, then triangle pair; they equal
//! [`brute_force`] over all body pairs and triangle pairs, whatever the thread count or the
//! backend ([`Scene::step_gpu`] with the feature `gpu`).
//!
//! ```
//! use meshcollide::bodies::{Body, Motion, Scene, SceneOptions};
//! use meshcollide::{Pose, mesh::generate};
//! use std::sync::Arc;
//!
//! let ball = Arc::new(generate::uv_sphere([0.0; 3], 1.0, 8, 16));
//! let floor = Arc::new(generate::grid(8, 8, 1.0, 0.0));
//! let mut scene = Scene::new(
//!     vec![Body::fixed(floor), Body::moving(ball.clone()), Body::moving(ball)],
//!     SceneOptions::default(),
//! )?;
//! let at = |x: f64, z: f64| Motion::Place(Pose::new([1.0, 0.0, 0.0, 0.0], [x, 3.0, z]));
//! // Frame 0: the floor, one ball resting on it, one in the air.
//! let f0 = scene.step(&[(0, Motion::Place(Pose::IDENTITY)), (1, at(3.0, 0.9)), (2, at(5.0, 4.0))])?;
//! assert!(f0.contacts.iter().all(|c| (c.body_a, c.body_b) == (0, 1)));
//! assert!(!f0.contacts.is_empty());
//! // Frame 1: the second ball comes down on the first; the first leaves.
//! let f1 = scene.step(&[(2, at(3.0, 2.5)), (1, Motion::Remove)])?;
//! assert!(f1.contacts.is_empty());
//! # Ok::<(), meshcollide::Error>(())
//! ```

pub mod files;
pub mod narrow;
mod self_pairs;
pub mod sweep;

pub use narrow::brute_force;

use crate::bvh::BuildOptions;
use crate::collider::{Collider, Contacts, WarmUp};
use crate::error::SceneError;
use crate::kind::BvKind;
use crate::mesh::Mesh;
use crate::pose::Pose;
use crate::saved::KdopHierarchy;
use crate::scene::{Counters, Mode, QueryOptions};
use crate::self_collide::SelfCollider;
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use sweep::SweepAndPrune;

/// Whether a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// Part of the environment: placed once, never moved; two static bodies are never
    /// paired.
    Static,
    /// Moves from frame to frame.
    Moving,
}

/// A body of a scene: its mesh (bodies with the same `Arc` share one hierarchy) and kind.
#[derive(Debug, Clone)]
pub struct Body {
    /// The mesh, in the body's own coordinates.
    pub mesh: Arc<Mesh>,
    /// Static or moving.
    pub kind: BodyKind,
}

impl Body {
    /// A moving body.
    pub fn moving(mesh: Arc<Mesh>) -> Body {
        Body {
            mesh,
            kind: BodyKind::Moving,
        }
    }

    /// A static body (the environment).
    pub fn fixed(mesh: Arc<Mesh>) -> Body {
        Body {
            mesh,
            kind: BodyKind::Static,
        }
    }
}

/// What happens to a body in a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Motion {
    /// The body is at this world pose from now on (it enters the scene if absent).
    Place(Pose),
    /// The body leaves the scene (a later `Place` puts it back, if it is moving).
    Remove,
}

/// How a scene answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SceneOptions {
    /// The hierarchy: a k-DOP (`kdop6`, `kdop14`, `kdop18`, `kdop26`); `auto` is kdop18.
    pub bv: BvKind,
    /// How the hierarchies are built.
    pub build: BuildOptions,
    /// All contacts, or at most one per pair of bodies ([`Mode::First`]).
    pub mode: Mode,
    /// Also the pairs inside each moving body (the self-collision rule).
    pub self_pairs: bool,
}

impl Default for SceneOptions {
    fn default() -> Self {
        SceneOptions {
            bv: BvKind::Kdop18,
            build: BuildOptions::default(),
            mode: Mode::All,
            self_pairs: false,
        }
    }
}

/// One intersecting pair of triangles of two bodies (`body_a < body_b`), or of one body
/// (`body_a = body_b`, `tri_a < tri_b`, with [`SceneOptions::self_pairs`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SceneContact {
    /// The first body.
    pub body_a: u32,
    /// The second body.
    pub body_b: u32,
    /// A triangle of `body_a` (file numbering).
    pub tri_a: u32,
    /// A triangle of `body_b`.
    pub tri_b: u32,
}

/// What one frame found and cost.
#[derive(Debug, Clone, Default)]
pub struct StepReport {
    /// The contacts, sorted by `(body_a, body_b, tri_a, tri_b)`, without duplicates.
    pub contacts: Vec<SceneContact>,
    /// Pairs of bodies whose world boxes overlap (at least one moving).
    pub broad_pairs: usize,
    /// Endpoint swaps of the sweep and prune in this frame.
    pub swaps: u64,
    /// Time in the broad phase.
    pub broad: Duration,
    /// Time in the narrow phase (and the self pairs).
    pub narrow: Duration,
    /// The narrow phase's node pair tests, triangle tests and volumes moved, summed.
    pub counters: Counters,
    /// Body pairs asked as a tolerance query (neither body at the identity, [`narrow`]).
    pub relative_pairs: usize,
}

/// One mesh of the scene: the mesh, its bounds and radius, its hierarchy.
#[derive(Debug)]
struct MeshEntry {
    mesh: Arc<Mesh>,
    bounds: ([f64; 3], [f64; 3]),
    l1_radius: f64,
    hierarchy: KdopHierarchy,
    self_collider: OnceLock<SelfCollider>,
}

/// A body's state.
#[derive(Debug, Clone)]
struct BodyState {
    mesh: usize,
    kind: BodyKind,
    pose: Option<Pose>,
    /// Whether a static body was ever placed (it cannot be placed again).
    placed: bool,
    /// The last self pairs and the pose they were found at.
    self_cache: Option<(Pose, Vec<(u32, u32)>)>,
}

/// A scene of many bodies (module docs).
#[derive(Debug)]
pub struct Scene {
    options: SceneOptions,
    meshes: Vec<MeshEntry>,
    bodies: Vec<BodyState>,
    /// A collider per ordered pair of meshes (A's, B's), built on first use.
    colliders: HashMap<(usize, usize), Collider>,
    broad: SweepAndPrune,
}

impl Scene {
    /// A scene of `bodies` (numbered from 0 in order), none present yet: each enters with
    /// its first [`Motion::Place`]. Builds one hierarchy per distinct mesh, in parallel.
    ///
    /// Errors: a hierarchy that is not a k-DOP, a mesh without triangles or with a bad
    /// vertex (naming the body).
    pub fn new(bodies: Vec<Body>, options: SceneOptions) -> crate::error::Result<Scene> {
        let mut options = options;
        if options.bv == BvKind::Auto {
            options.bv = BvKind::Kdop18;
        }
        if !BvKind::ALL.contains(&options.bv) {
            return Err(crate::error::Error::InvalidOption(format!(
                "a scene runs on the k-DOP hierarchies (kdop6, kdop14, kdop18, kdop26), not {}",
                options.bv.name()
            )));
        }
        let mut scene = Scene {
            options,
            meshes: vec![],
            bodies: vec![],
            colliders: HashMap::new(),
            broad: SweepAndPrune::default(),
        };
        scene.add_bodies(bodies)?;
        Ok(scene)
    }

    /// Adds bodies to the scene (numbered after the existing ones), absent until placed;
    /// returns the number of the first.
    pub fn add_bodies(&mut self, bodies: Vec<Body>) -> crate::error::Result<u32> {
        let first = self.bodies.len() as u32;
        let mut new_meshes: Vec<(usize, Arc<Mesh>)> = vec![];
        let mut index = Vec::with_capacity(bodies.len());
        for (k, b) in bodies.iter().enumerate() {
            let known = self.meshes.iter().map(|m| &m.mesh);
            let found = known
                .chain(new_meshes.iter().map(|(_, m)| m))
                .position(|m| Arc::ptr_eq(m, &b.mesh));
            index.push(match found {
                Some(i) => i,
                None => {
                    let name = format!("the mesh of body {}", first as usize + k);
                    b.mesh.validate(std::path::Path::new(&name))?;
                    new_meshes.push((self.meshes.len() + new_meshes.len(), b.mesh.clone()));
                    self.meshes.len() + new_meshes.len() - 1
                }
            });
        }
        let (bv, build) = (self.options.bv, self.options.build);
        let built: Vec<MeshEntry> = new_meshes
            .into_par_iter()
            .map(|(_, mesh)| MeshEntry {
                bounds: mesh.bounds(),
                l1_radius: narrow::l1_radius(&mesh),
                hierarchy: KdopHierarchy::build(&mesh, bv, &build).expect("a k-DOP kind"),
                self_collider: OnceLock::new(),
                mesh,
            })
            .collect();
        self.meshes.extend(built);
        for (b, mesh) in bodies.iter().zip(index) {
            self.broad.add_body(b.kind == BodyKind::Static);
            self.bodies.push(BodyState {
                mesh,
                kind: b.kind,
                pose: None,
                placed: false,
                self_cache: None,
            });
        }
        Ok(first)
    }

    /// The options.
    pub fn options(&self) -> SceneOptions {
        self.options
    }

    /// Number of bodies (present or not).
    pub fn body_count(&self) -> usize {
        self.bodies.len()
    }

    /// Number of distinct meshes, hence hierarchies built.
    pub fn mesh_count(&self) -> usize {
        self.meshes.len()
    }

    /// Body `i`'s world pose, `None` while it is absent (or unknown).
    pub fn pose(&self, i: u32) -> Option<Pose> {
        self.bodies.get(i as usize).and_then(|b| b.pose)
    }

    /// Puts body `i` in the scene at `pose`, or moves it there ([`Scene::apply`]).
    pub fn insert(&mut self, i: u32, pose: Pose) -> crate::error::Result<()> {
        self.apply(&[(i, Motion::Place(pose))])
    }

    /// Takes body `i` out of the scene ([`Scene::apply`]).
    pub fn remove(&mut self, i: u32) -> crate::error::Result<()> {
        self.apply(&[(i, Motion::Remove)])
    }

    /// Applies a frame's motions, all or none: an unknown body, a body named twice, a
    /// static body placed a second time, or a body removed that is not present is an error
    /// ([`SceneError::Motion`]) and changes nothing.
    pub fn apply(&mut self, motions: &[(u32, Motion)]) -> crate::error::Result<()> {
        self.apply_timed(motions).map(|_| ())
    }

    /// [`Scene::apply`], returning the broad phase's time and swaps.
    fn apply_timed(&mut self, motions: &[(u32, Motion)]) -> crate::error::Result<(Duration, u64)> {
        let mut seen = std::collections::HashSet::new();
        for &(i, m) in motions {
            let Some(b) = self.bodies.get(i as usize) else {
                return Err(motion_error(format!(
                    "body {i} is not in the scene (it has {} bodies)",
                    self.bodies.len()
                )));
            };
            if !seen.insert(i) {
                return Err(motion_error(format!(
                    "body {i} has two motions in one frame"
                )));
            }
            match m {
                Motion::Place(_) if b.kind == BodyKind::Static && b.placed => {
                    return Err(motion_error(format!(
                        "body {i} is static: it is placed once and never moved"
                    )));
                }
                Motion::Remove if b.pose.is_none() => {
                    return Err(motion_error(format!(
                        "body {i} is removed, but it is not in the scene"
                    )));
                }
                _ => {}
            }
        }
        let t = Instant::now();
        let swaps = self.broad.swaps();
        let mut moved = Vec::with_capacity(motions.len());
        let mut removed = vec![];
        for &(i, m) in motions {
            let b = &mut self.bodies[i as usize];
            match m {
                Motion::Place(p) => {
                    b.pose = Some(p);
                    b.placed = true;
                    moved.push((i, narrow::world_box(&self.meshes[b.mesh].bounds, &p)));
                }
                Motion::Remove => {
                    b.pose = None;
                    removed.push(i);
                }
            }
        }
        self.broad.step(&moved, &removed);
        Ok((t.elapsed(), self.broad.swaps() - swaps))
    }

    /// Applies a frame's motions ([`Scene::apply`]) and returns the frame's contacts, on
    /// the CPU.
    pub fn step(&mut self, motions: &[(u32, Motion)]) -> crate::error::Result<StepReport> {
        let (broad, swaps) = self.apply_timed(motions)?;
        let mut r = self.contacts_with(&mut narrow::cpu_batch)?;
        r.broad += broad;
        r.swaps = swaps;
        Ok(r)
    }

    /// [`Scene::step`] with the narrow phase's node pairs on the GPU (the same contacts).
    #[cfg(feature = "gpu")]
    pub fn step_gpu(
        &mut self,
        ctx: &crate::gpu::GpuContext,
        motions: &[(u32, Motion)],
    ) -> crate::error::Result<(StepReport, crate::gpu::collide::GpuStats)> {
        let (broad, swaps) = self.apply_timed(motions)?;
        let mut stats = crate::gpu::collide::GpuStats::default();
        let mut r = self.contacts_with(&mut |c, poses, opts| {
            let (r, s) = c.collide_batch_gpu(ctx, poses, opts, None)?;
            stats += s;
            Ok(r)
        })?;
        r.broad += broad;
        r.swaps = swaps;
        Ok((r, stats))
    }

    /// The contacts of the present bodies as they stand, on the CPU.
    pub fn contacts(&mut self) -> StepReport {
        self.contacts_with(&mut narrow::cpu_batch)
            .expect("the CPU batch does not fail")
    }

    /// The narrow phase (module docs), with `batch` answering one mesh pair's poses.
    fn contacts_with(&mut self, batch: &mut Batch<'_>) -> crate::error::Result<StepReport> {
        let t = Instant::now();
        let pairs = self.broad.pairs();
        let mut report = StepReport {
            broad_pairs: pairs.len(),
            ..Default::default()
        };
        // Each body pair as (A, B, B's pose in A's frame, ε), grouped by mesh pair.
        let mut groups: HashMap<(usize, usize), Vec<Asked>> = HashMap::new();
        for &(i, j) in &pairs {
            let asked = self.ask(i, j)?;
            report.relative_pairs += (asked.eps > 0.0) as usize;
            let key = (
                self.bodies[asked.a as usize].mesh,
                self.bodies[asked.b as usize].mesh,
            );
            groups.entry(key).or_default().push(asked);
        }
        let mut keys: Vec<(usize, usize)> = groups.keys().copied().collect();
        keys.sort_unstable();
        for &key in &keys {
            self.build_collider(key)?;
        }
        let mut contacts = vec![];
        for key in keys {
            let asked = &groups[&key];
            let collider = &self.colliders[&key];
            for exact in [true, false] {
                let part: Vec<&Asked> = asked.iter().filter(|q| (q.eps == 0.0) == exact).collect();
                if part.is_empty() {
                    continue;
                }
                let eps = part.iter().map(|q| q.eps).fold(0.0, f64::max);
                let opts = QueryOptions {
                    // A tolerance query's candidates are confirmed on the world
                    // coordinates: all of them are needed to find a first one.
                    mode: if exact { self.options.mode } else { Mode::All },
                    tolerance: crate::scene::Tolerance::new(eps, "the scene's tolerance")?,
                    ..Default::default()
                };
                let poses: Vec<Pose> = part.iter().map(|q| q.pose).collect();
                let results = batch(collider, &poses, &opts)?;
                for r in &results {
                    report.counters += r.counters.cost();
                }
                let found: Vec<Vec<SceneContact>> = part
                    .par_iter()
                    .zip(results.par_iter())
                    .map(|(q, r)| self.confirm(q, r))
                    .collect();
                contacts.extend(found.into_iter().flatten());
            }
        }
        if self.options.self_pairs {
            contacts.extend(self.self_contacts()?);
        }
        contacts.sort_unstable_by_key(|c| (c.body_a, c.body_b, c.tri_a, c.tri_b));
        report.contacts = contacts;
        report.narrow = t.elapsed();
        Ok(report)
    }

    /// How body pair `(i, j)` is asked of the pair machinery ([`narrow`]).
    fn ask(&self, i: u32, j: u32) -> crate::error::Result<Asked> {
        let (pi, pj) = (
            self.pose(i).expect("present"),
            self.pose(j).expect("present"),
        );
        let (a, b, pa, pb) = if narrow::is_identity(&pj) && !narrow::is_identity(&pi) {
            (j, i, pj, pi)
        } else {
            (i, j, pi, pj)
        };
        if narrow::is_identity(&pa) {
            return Ok(Asked {
                a,
                b,
                pose: pb,
                eps: 0.0,
            });
        }
        let (ma, mb) = (
            &self.meshes[self.bodies[a as usize].mesh],
            &self.meshes[self.bodies[b as usize].mesh],
        );
        match narrow::relative(&pa, &pb, ma.l1_radius, mb.l1_radius) {
            Some((pose, eps)) => Ok(Asked { a, b, pose, eps }),
            // Beyond any pose `Pose::new` or `Pose::from_rows` makes (`narrow::MAX_DEFECT`).
            None => Err(motion_error(format!(
                "body {a}'s pose is not a rotation (its matrix is off orthonormal by more than 2^-10)"
            ))),
        }
    }

    /// The contacts of one asked body pair from its pair query's result: as they are for
    /// an exact query, confirmed on the world coordinates for a tolerance query.
    fn confirm(&self, q: &Asked, r: &Contacts) -> Vec<SceneContact> {
        let swapped = q.a > q.b;
        let (ba, bb) = (&self.bodies[q.a as usize], &self.bodies[q.b as usize]);
        let (ma, mb) = (&self.meshes[ba.mesh].mesh, &self.meshes[bb.mesh].mesh);
        let (pa, pb) = (ba.pose.expect("present"), bb.pose.expect("present"));
        let mut out = vec![];
        for &(ta, tb) in &r.pairs {
            if q.eps > 0.0 && !narrow::world_intersect((ma, &pa, ta), (mb, &pb, tb)) {
                continue;
            }
            out.push(if swapped {
                SceneContact {
                    body_a: q.b,
                    body_b: q.a,
                    tri_a: tb,
                    tri_b: ta,
                }
            } else {
                SceneContact {
                    body_a: q.a,
                    body_b: q.b,
                    tri_a: ta,
                    tri_b: tb,
                }
            });
            if q.eps > 0.0 && self.options.mode == Mode::First {
                break;
            }
        }
        out
    }

    /// The collider of a mesh pair, built on first use from the shared hierarchies.
    fn build_collider(&mut self, key: (usize, usize)) -> crate::error::Result<()> {
        if !self.colliders.contains_key(&key) {
            let (ea, eb) = (&self.meshes[key.0], &self.meshes[key.1]);
            let mut c = Collider::builder(&ea.mesh, &eb.mesh)
                .bv(self.options.bv)
                .hierarchy_a(ea.hierarchy.clone())
                .hierarchy_b(eb.hierarchy.clone())
                .warm_up(WarmUp::Off)
                .build()?;
            // Consecutive poses of a batch are other body pairs, not a motion path.
            c.set_coherence(false);
            self.colliders.insert(key, c);
        }
        Ok(())
    }
}

/// One mesh pair's batch: the collider, the poses and options, the results per pose.
type Batch<'a> =
    dyn FnMut(&Collider, &[Pose], &QueryOptions) -> crate::error::Result<Vec<Contacts>> + 'a;

/// A body pair as asked of the pair machinery: A as written, B at `pose` in A's frame,
/// within `eps` (0: exact as asked).
#[derive(Debug, Clone, Copy)]
struct Asked {
    a: u32,
    b: u32,
    pose: Pose,
    eps: f64,
}

fn motion_error(m: String) -> crate::error::Error {
    SceneError::Motion(m).into()
}
