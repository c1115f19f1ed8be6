//! The hybrid update of Larsson and Akenine-Möller (*Collision Detection for Continuously
//! Deforming Objects*, Eurographics 2001, as the Freiburg lecture's "Hybrid Hierarchy
//! Update" slide gives it; the choices are in the module docs above): the topology-derived arrays of
//! a hierarchy and its cut ([`Shape`]), A's node volumes refitted lazily below the cut when
//! a node test first needs them ([`LazyEnv`]), and the slab test that reads them
//! ([`DeformTest`]).

use super::*;

/// Per node, its depth (root 0): children are stored after their parents.
fn node_depths<const H: usize>(bvh: &Bvh<H>) -> Vec<u32> {
    let mut d = vec![0u32; bvh.nodes.len()];
    for i in 0..bvh.nodes.len() {
        let n = &bvh.nodes[i];
        if !n.is_leaf() {
            d[n.first as usize] = d[i] + 1;
            d[n.first as usize + 1] = d[i] + 1;
        }
    }
    d
}

/// The topology-derived arrays of one hierarchy, for the hybrid update and the trigger.
#[derive(Debug, Clone, Default)]
pub(super) struct Shape {
    pub(super) depth: Vec<u32>,
    pub(super) ranges: Vec<(u32, u32)>,
    /// The hybrid cut: nodes of depth `<= cut` are updated every frame.
    pub(super) cut: u32,
    /// The degradation measure after the last build.
    pub(super) fresh: Option<f64>,
}

impl Shape {
    pub(super) fn of<const H: usize>(bvh: &Bvh<H>) -> Shape {
        Shape {
            depth: node_depths(bvh),
            ranges: bvh.node_ranges(),
            cut: bvh.depth / 2,
            fresh: None,
        }
    }

    /// Sum of the sizes of the nodes down to the cut over the root's size.
    pub(super) fn measure<const H: usize>(&self, bv: impl Fn(usize) -> Kdop<H>) -> f64 {
        let root = bv(0).size() as f64;
        let sum: f64 = (0..self.depth.len())
            .filter(|&i| self.depth[i] <= self.cut)
            .map(|i| bv(i).size() as f64)
            .sum();
        if root > 0.0 { sum / root } else { 1.0 }
    }
}

/// A's lazily refitted node volumes of the current frame (hybrid update).
#[derive(Debug, Default)]
pub(super) struct LazyEnv<const H: usize> {
    pub(super) stamp: Vec<u32>,
    pub(super) bv: Vec<Kdop<H>>,
    pub(super) cur: u32,
    /// Per vertex, its k-DOP in this frame ([`Bvh::vertex_kdops`]).
    pub(super) vertex: Vec<Kdop<H>>,
    pub(super) refit: u64,
}

impl<const H: usize> LazyEnv<H> {
    pub(super) fn new(nodes: usize) -> Self {
        LazyEnv {
            stamp: vec![0; nodes],
            bv: vec![Kdop::EMPTY; nodes],
            cur: 0,
            vertex: Vec::new(),
            refit: 0,
        }
    }

    /// Starts a frame: forgets every node (O(1) by stamping).
    pub(super) fn next_frame(&mut self) {
        self.cur = self.cur.wrapping_add(1);
        if self.cur == 0 {
            self.stamp.fill(0);
            self.cur = 1;
        }
        self.refit = 0;
    }

    /// The k-DOP of the corners of node `i`'s triangles, from the current positions.
    pub(super) fn bound_from_corners(
        &mut self,
        env: &Bvh<H>,
        range: (u32, u32),
        i: usize,
    ) -> Kdop<H> {
        let k = env.corners_kdop(&self.vertex, range.0 as usize..range.1 as usize);
        self.bv[i] = k;
        self.stamp[i] = self.cur;
        self.refit += 1;
        k
    }

    /// The upper levels: nodes at the cut (and leaves above it) from their corners, the
    /// others merged bottom-up.
    pub(super) fn update_top(&mut self, env: &Bvh<H>, shape: &Shape) {
        self.next_frame();
        self.vertex = env.vertex_kdops();
        for i in (0..env.nodes.len()).rev() {
            let d = shape.depth[i];
            if d > shape.cut {
                continue;
            }
            let n = &env.nodes[i];
            if d == shape.cut || n.is_leaf() {
                self.bound_from_corners(env, shape.ranges[i], i);
            } else {
                let c = n.first as usize;
                self.bv[i] = self.bv[c].merge(&self.bv[c + 1]);
                self.stamp[i] = self.cur;
                self.refit += 1;
            }
        }
    }

    #[inline]
    pub(super) fn get(&mut self, env: &Bvh<H>, shape: &Shape, i: usize) -> Kdop<H> {
        if self.stamp[i] == self.cur {
            self.bv[i]
        } else {
            self.bound_from_corners(env, shape.ranges[i], i)
        }
    }
}

/// The slab test with A's volumes read from the lazy hybrid update, or from the tree.
pub(super) struct DeformTest<'s, const H: usize> {
    pub(super) env: &'s Bvh<H>,
    pub(super) fly: &'s FlyingHierarchy<H>,
    pub(super) lazy: Option<(&'s mut LazyEnv<H>, &'s Shape)>,
    pub(super) descent: Descent,
    /// A tolerance query's `ε` (0: intersection) and its slab margins
    /// ([`crate::proximity::slab_margins_f32`]).
    pub(super) eps: f64,
    pub(super) margins: [f32; H],
}

impl<const H: usize> DeformTest<'_, H> {
    #[inline]
    pub(super) fn env_bv(&mut self, e: usize) -> Kdop<H> {
        match &mut self.lazy {
            None => self.env.nodes[e].bv,
            Some((l, shape)) => l.get(self.env, shape, e),
        }
    }
}

impl<const H: usize> NodeTest<H> for DeformTest<'_, H> {
    type Sub = NoSub;

    #[inline]
    fn overlaps(&mut self, t: &mut TumbleWorkspace<H>, e: usize, f: usize, _: &mut NoSub) -> bool {
        let a = self.env_bv(e);
        if self.eps == 0.0 {
            a.overlaps(t.node_bv(self.fly, f))
        } else {
            crate::proximity::kdops_within(&a, t.node_bv(self.fly, f), &self.margins)
        }
    }

    #[inline]
    fn prefer_a(&mut self, t: &mut TumbleWorkspace<H>, e: usize, f: usize) -> bool {
        self.descent == Descent::Environment
            || self.env_bv(e).size() >= t.node_bv(self.fly, f).size()
    }

    #[inline(always)]
    fn tri_hit(&self, a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> bool {
        if self.eps == 0.0 {
            crate::tri::tri_tri_intersect(a, b)
        } else {
            crate::proximity::tri_tri_within(a, b, self.eps)
        }
    }
}
