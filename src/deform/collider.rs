//! The k-DOP width chosen at run time: [`AnyDeforming`] over the four [`DeformingScene`]s, and
//! [`DeformingCollider`], the API that the command line and the Python package drive.

use super::*;
use crate::kind::for_each_k;

/// A deforming scene for a k-DOP hierarchy chosen at run time.
#[derive(Debug)]
pub enum AnyDeforming {
    /// `kdop6`.
    Kdop6(DeformingScene<3>),
    /// `kdop14`.
    Kdop14(DeformingScene<7>),
    /// `kdop18`.
    Kdop18(DeformingScene<9>),
    /// `kdop26`.
    Kdop26(DeformingScene<13>),
}

/// Collision queries between two deforming meshes (either may also stay rigid): the k-DOP
/// hierarchies (`kdop6`, `kdop14`, `kdop18`, `kdop26`) built once and updated per frame.
///
/// ```
/// use meshcollide::deform::{DeformOptions, DeformingCollider};
/// use meshcollide::{mesh::generate, BvKind, Pose, QueryOptions};
/// let a = generate::torus([0.0; 3], 1.0, 0.3, 24, 12);
/// let b = generate::torus([1.0, 0.0, 0.0], 1.0, 0.3, 24, 12);
/// let mut c = DeformingCollider::new(&a, &b, BvKind::Kdop18, Default::default(),
///     Default::default(), DeformOptions::default())?;
/// let thinner = generate::torus([0.0; 3], 1.0, 0.1, 24, 12);
/// let r = c.query_frame(Some(&thinner.positions), None, &Pose::IDENTITY, &QueryOptions::default())?;
/// assert!(!r.pairs.is_empty());
/// # Ok::<(), meshcollide::Error>(())
/// ```
#[derive(Debug)]
pub struct DeformingCollider {
    scene: AnyDeforming,
    kind: BvKind,
}

impl DeformingCollider {
    /// The hierarchies that follow frames (the others are refused by
    /// [`DeformingCollider::new`]).
    pub const SUPPORTED: [BvKind; 4] = BvKind::ALL;

    /// Builds A's and B's hierarchies from the base meshes. `bv` must be one of
    /// [`DeformingCollider::SUPPORTED`] ([`Error::InvalidOption`] naming them otherwise).
    pub fn new(
        a: &Mesh,
        b: &Mesh,
        bv: BvKind,
        build: [BuildOptions; 2],
        kdop: KdopOptions,
        options: DeformOptions,
    ) -> Result<Self, Error> {
        a.validate(std::path::Path::new("(mesh A)"))?;
        b.validate(std::path::Path::new("(mesh B)"))?;
        let scene = match bv {
            BvKind::Kdop6 => AnyDeforming::Kdop6(DeformingScene::new(a, b, build, kdop, options)),
            BvKind::Kdop14 => AnyDeforming::Kdop14(DeformingScene::new(a, b, build, kdop, options)),
            BvKind::Kdop18 => AnyDeforming::Kdop18(DeformingScene::new(a, b, build, kdop, options)),
            BvKind::Kdop26 => AnyDeforming::Kdop26(DeformingScene::new(a, b, build, kdop, options)),
            other => return Err(unsupported(other)),
        };
        Ok(DeformingCollider { scene, kind: bv })
    }

    /// The hierarchy kind.
    pub fn kind(&self) -> BvKind {
        self.kind
    }

    /// The scene for its k.
    pub fn scene(&self) -> &AnyDeforming {
        &self.scene
    }

    /// The scene for its k, to update (the GPU backend).
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn scene_mut(&mut self) -> &mut AnyDeforming {
        &mut self.scene
    }

    /// Queries one frame; see [`DeformingScene::query_frame`].
    pub fn query_frame(
        &mut self,
        frame_a: Option<&[[f64; 3]]>,
        frame_b: Option<&[[f64; 3]]>,
        pose: &Pose,
        opts: &QueryOptions,
    ) -> Result<FrameResult, Error> {
        for_each_k!(&mut self.scene, AnyDeforming(s) => s.query_frame(frame_a, frame_b, pose, opts))
    }

    /// Brings every node volume up to date and runs the hierarchy validator on A and B.
    pub fn validate(&mut self) -> Result<(), Error> {
        for_each_k!(&mut self.scene, AnyDeforming(s) => {
            s.complete()?;
            s.env.validate().map_err(|e| Error::InvalidOption(format!("A's hierarchy: {e}")))?;
            s.fly.bvh.validate().map_err(|e| Error::InvalidOption(format!("B's hierarchy: {e}")))
        })
    }

    /// Node counts and bytes of A's and B's hierarchies.
    pub fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        for_each_k!(&self.scene, AnyDeforming(s) => s.hierarchy_sizes())
    }

    /// Depths of A's and B's hierarchies.
    pub fn depths(&self) -> [u32; 2] {
        for_each_k!(&self.scene, AnyDeforming(s) => s.depths())
    }
}

/// The error for a hierarchy that does not follow frames.
pub fn unsupported(bv: BvKind) -> Error {
    Error::InvalidOption(format!(
        "--bv {} does not follow deforming meshes (frames); supported: {}",
        bv.name(),
        DeformingCollider::SUPPORTED.map(|k| k.name()).join(", ")
    ))
}

/// The tumbling method reported for a query on frames (`stats.json`'s `tumble`).
pub fn tumble_name(b_deforms: bool, method: UpdateMethod, asked: TumbleMethod) -> &'static str {
    match (b_deforms, method) {
        (false, _) => asked.name(),
        (true, UpdateMethod::Hybrid) => "hybrid",
        (true, _) => TumbleMethod::Exact.name(),
    }
}
