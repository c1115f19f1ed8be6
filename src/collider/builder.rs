//! [`ColliderBuilder`]: the hierarchy and its options, checked, then both sides built (or
//! taken ready-made from `.mch` files) in parallel.

use super::*;

/// Builds a [`Collider`]: the hierarchy and its options; every option has a default
/// (`auto`: the kdop18 and OBB trees, one picked per call by [`crate::auto`]'s probe;
/// splatter at the mean, leaf size 1, all contacts, approximation-method tumbling).
#[derive(Debug, Clone)]
#[must_use]
pub struct ColliderBuilder<'m> {
    a: &'m Mesh,
    b: &'m Mesh,
    bv: BvKind,
    build_a: BuildOptions,
    build_b: BuildOptions,
    kdop: KdopOptions,
    boxtree: BoxtreeOptions,
    rtree: RtreeOptions,
    dual: DualOptions,
    query: QueryOptions,
    chunk: Option<usize>,
    /// Hierarchies given ready-made (loaded from `.mch` files), used instead of a build.
    pre: [Option<KdopHierarchy>; 2],
    /// [`ColliderBuilder::warm_up`].
    pub(super) warm: WarmUp,
}

impl<'m> ColliderBuilder<'m> {
    /// Every option at its default ([`Collider::builder`]).
    pub(super) fn new(a: &'m Mesh, b: &'m Mesh) -> Self {
        ColliderBuilder {
            a,
            b,
            bv: BvKind::Auto,
            build_a: BuildOptions::default(),
            build_b: BuildOptions::default(),
            kdop: KdopOptions::default(),
            boxtree: BoxtreeOptions::default(),
            rtree: RtreeOptions::default(),
            dual: DualOptions::default(),
            query: QueryOptions::default(),
            chunk: None,
            pre: [None, None],
            warm: WarmUp::default(),
        }
    }

    /// A's hierarchy ready-made (for example [`crate::saved::SavedHierarchy`] of A), used
    /// instead of building one: [`ColliderBuilder::build`] checks that it was built over A
    /// and is of the chosen `bv`, and takes its build options.
    pub fn hierarchy_a(mut self, h: KdopHierarchy) -> Self {
        self.build_a = h.options();
        self.pre[0] = Some(h);
        self
    }
    /// B's hierarchy ready-made, as [`ColliderBuilder::hierarchy_a`].
    pub fn hierarchy_b(mut self, h: KdopHierarchy) -> Self {
        self.build_b = h.options();
        self.pre[1] = Some(h);
        self
    }
    /// The bounding volume and hierarchy.
    pub fn bv(mut self, bv: BvKind) -> Self {
        self.bv = bv;
        self
    }
    /// How both hierarchies are built (the boxtree reads only the leaf size; the R-tree none).
    pub fn build_options(mut self, o: BuildOptions) -> Self {
        self.build_a = o;
        self.build_b = o;
        self
    }
    /// How A's hierarchy is built.
    pub fn build_options_a(mut self, o: BuildOptions) -> Self {
        self.build_a = o;
        self
    }
    /// How B's hierarchy is built.
    pub fn build_options_b(mut self, o: BuildOptions) -> Self {
        self.build_b = o;
        self
    }
    /// The k-DOP traversal's options (kdop6…kdop26).
    pub fn kdop(mut self, o: KdopOptions) -> Self {
        self.kdop = o;
        self
    }
    /// The boxtree's options.
    pub fn boxtree(mut self, o: BoxtreeOptions) -> Self {
        self.boxtree = o;
        self
    }
    /// The R-tree's options (fan-out and traversal).
    pub fn rtree(mut self, o: RtreeOptions) -> Self {
        self.rtree = o;
        self
    }
    /// The dual hierarchy's options (dual6…dual26).
    pub fn dual(mut self, o: DualOptions) -> Self {
        self.dual = o;
        self
    }
    /// The query options [`Collider::collide`] and [`Collider::collide_batch`] use.
    pub fn query(mut self, o: QueryOptions) -> Self {
        self.query = o;
        self
    }

    /// Most poses whose results [`Collider::collide_stream`] holds at once (default
    /// [`STREAM_CHUNK`], rounded up to a multiple of [`crate::scene::POSE_CHUNK`]), and
    /// most poses of one batch of [`Collider::collide_stream_gpu`] (default
    /// [`crate::gpu::collide::MAX_BATCH_POSES`]). Smaller means less memory, and more
    /// chunk boundaries for tests to cross.
    pub fn stream_chunk(mut self, poses: usize) -> Self {
        self.chunk = Some(poses.max(1));
        self
    }

    /// The papers' traversal for every hierarchy: [`QueryOptions::PAPER`] and
    /// [`KdopOptions::PAPER`] (the descent of Klosowski et al.'s Algorithm 1, as the GPU
    /// runs it); the `bench` experiments use it so their counts compare with the papers'
    /// tables.
    pub fn paper(mut self) -> Self {
        self.query = QueryOptions::PAPER;
        self.kdop = KdopOptions::PAPER;
        self
    }

    /// Checks the meshes and options, builds both hierarchies (in parallel) and warms the
    /// query's code up ([`ColliderBuilder::warm_up`], [`Collider::warm_up`]).
    ///
    /// Errors: a mesh without triangles or with a triangle naming a missing vertex, a
    /// coordinate that is not finite or outside the supported range
    /// ([`crate::mesh::in_supported_range`]), or invalid R-tree options.
    pub fn build(mut self) -> crate::error::Result<Collider> {
        let (a, b) = (self.a, self.b);
        // `auto` is kdop18 where only a k-DOP serves (ready-made trees) and where the OBB
        // tree would cost too much to build (`crate::auto::MAX_TRIANGLES`).
        let large = a.triangle_count() + b.triangle_count() > crate::auto::MAX_TRIANGLES;
        if self.pre.iter().any(Option::is_some) || large {
            self.bv = self.bv.concrete();
        }
        a.validate(std::path::Path::new("mesh A"))?;
        b.validate(std::path::Path::new("mesh B"))?;
        let (oa, ob) = (&self.build_a, &self.build_b);
        // A saved k-DOP tree serves its k-DOP kind and the dual hierarchy of the same k.
        let fits = |h: &KdopHierarchy| {
            h.kind() == self.bv || (self.bv.is_dual() && h.kind().half_k() == self.bv.half_k())
        };
        if let Some(h) = self.pre.iter().flatten().find(|h| !fits(h)) {
            return Err(crate::error::Error::InvalidOption(format!(
                "a ready-made {} hierarchy cannot serve {} (saved hierarchies are used as they are)",
                h.kind().name(),
                self.bv.name()
            )));
        }
        for (h, m, name) in [(&self.pre[0], a, "A"), (&self.pre[1], b, "B")] {
            if let Some(h) = h {
                h.check_mesh(m).map_err(|e| {
                    crate::error::Error::InvalidOption(format!(
                        "the hierarchy given for mesh {name} was not built over it: {e}"
                    ))
                })?;
            }
        }
        let [pa, pb] = self.pre;
        let k = self.kdop;
        let scene = match self.bv {
            BvKind::Kdop6 => AnyScene::Kdop6(kdop_scene(a, b, oa, ob, pa, pb, k)),
            BvKind::Kdop14 => AnyScene::Kdop14(kdop_scene(a, b, oa, ob, pa, pb, k)),
            BvKind::Kdop18 => AnyScene::Kdop18(kdop_scene(a, b, oa, ob, pa, pb, k)),
            BvKind::Kdop26 => AnyScene::Kdop26(kdop_scene(a, b, oa, ob, pa, pb, k)),
            BvKind::Boxtree => {
                crate::boxtree::check_leaf_sizes(oa.leaf_size, ob.leaf_size)?;
                AnyScene::Boxtree(BoxtreeScene::build(a, b, oa, ob, self.boxtree))
            }
            BvKind::Rtree => {
                self.rtree.validate()?;
                AnyScene::Rtree(RtreeScene::build(a, b, &self.rtree)?)
            }
            BvKind::Dual6 => AnyScene::Dual6(dual_scene(a, b, oa, ob, pa, pb, &self.dual)),
            BvKind::Dual14 => AnyScene::Dual14(dual_scene(a, b, oa, ob, pa, pb, &self.dual)),
            BvKind::Dual18 => AnyScene::Dual18(dual_scene(a, b, oa, ob, pa, pb, &self.dual)),
            BvKind::Dual26 => AnyScene::Dual26(dual_scene(a, b, oa, ob, pa, pb, &self.dual)),
            BvKind::Obb => AnyScene::Obb(ObbScene::build(a, b, oa, ob).with_coherence(k.coherence)),
            BvKind::Sphere => {
                AnyScene::Sphere(SphereScene::build(a, b, oa, ob).with_coherence(k.coherence))
            }
            BvKind::Auto => AnyScene::Auto(Box::new(AutoScene::build(a, b, oa, ob, k))),
        };
        // One workspace now, so that the first query costs what a later one does.
        match &scene {
            AnyScene::Auto(s) => {
                prepare(&s.kdop);
                prepare(&s.obb);
                s.prepare();
            }
            s => with_scene!(s, s => prepare(s)),
        }
        let collider = Collider {
            scene,
            query: self.query,
            chunk: self.chunk,
            own: warm::OwnPoses::of(a, b),
            fly_box: b.bounds(),
            distance_volumes: Default::default(),
            #[cfg(feature = "gpu")]
            gpu: Default::default(),
        };
        let sized = a.triangle_count() + b.triangle_count() >= WarmUp::SCENE_MIN_TRIANGLES;
        match self.warm {
            WarmUp::Off => {}
            WarmUp::Own => collider.warm(false),
            WarmUp::Full => collider.warm(true),
            WarmUp::Auto => collider.warm(sized),
        }
        Ok(collider)
    }
}

/// A's k-DOP tree and B's flying hierarchy, each ready-made (its kind checked by the
/// caller) or built, in parallel.
fn sides<const H: usize>(
    a: &Mesh,
    b: &Mesh,
    oa: &BuildOptions,
    ob: &BuildOptions,
    pa: Option<KdopHierarchy>,
    pb: Option<KdopHierarchy>,
) -> (crate::bvh::Bvh<H>, crate::tumble::FlyingHierarchy<H>) {
    use crate::tumble::FlyingHierarchy;
    rayon::join(
        || match pa.and_then(KdopHierarchy::into_bvh) {
            Some((bvh, _)) => bvh,
            None => crate::bvh::Bvh::build(a, oa),
        },
        || match pb.and_then(KdopHierarchy::into_bvh) {
            Some((bvh, points)) => FlyingHierarchy::with_points(bvh, points),
            None => FlyingHierarchy::new(crate::bvh::Bvh::build(b, ob)),
        },
    )
}

/// The k-DOP scene of [`sides`].
fn kdop_scene<const H: usize>(
    a: &Mesh,
    b: &Mesh,
    oa: &BuildOptions,
    ob: &BuildOptions,
    pa: Option<KdopHierarchy>,
    pb: Option<KdopHierarchy>,
    options: KdopOptions,
) -> KdopScene<H> {
    let (env, fly) = sides(a, b, oa, ob, pa, pb);
    KdopScene::from_hierarchies(env, fly, options)
}

/// The dual k-DOP–sphere scene of [`sides`] (spheres computed, not saved).
fn dual_scene<const H: usize>(
    a: &Mesh,
    b: &Mesh,
    oa: &BuildOptions,
    ob: &BuildOptions,
    pa: Option<KdopHierarchy>,
    pb: Option<KdopHierarchy>,
    options: &DualOptions,
) -> DualScene<H> {
    let (env, fly) = sides(a, b, oa, ob, pa, pb);
    DualScene::from_hierarchies(env, fly, options)
}
