//! The sphere tree (`--bv sphere`), the first volume of the University of Freiburg's
//! lecture *Collision Detection* ("Bounding Volumes"): one smallest enclosing sphere per
//! node, the dual hierarchy's ([`crate::dual::node_spheres`], radius proved to contain
//! the real corners), posed by [`Sphere::posed_f32`] and tested by
//! [`crate::dual::sphere::disjoint_f32`], the dual hierarchy's GPU test (both proved there).
//!
//! The tree is a [`VolumeScene`] of spheres: it shares the OBB tree's topology, pretest,
//! descent and GPU kernel plumbing ([`crate::obb`]), and only its volume differs, which is
//! all this module says.

use crate::bvh::Bvh;
use crate::dual::node_spheres;
use crate::dual::sphere::{self, Sphere};
use crate::obb::{PoseCheck, Volume, VolumeScene};

/// The sphere tree scene (`--bv sphere`).
pub type SphereScene = VolumeScene<Sphere>;

impl Volume for Sphere {
    fn fit_nodes(bvh: &Bvh<3>) -> Vec<Sphere> {
        node_spheres(bvh)
    }

    /// The dual hierarchy's f32 sphere test, the one its GPU path makes: B's sphere posed
    /// with the f32 pose's error ([`Sphere::posed_f32`]), then [`sphere::disjoint_f32`]
    /// (both proved there, for a rotation; [`PoseCheck`] widens every sphere past any
    /// model when the matrix is not one).
    type Posed = Sphere;

    #[inline]
    fn pose(b: &Sphere, pose: &PoseCheck) -> Sphere {
        b.posed_f32(&pose.r, &pose.t, pose.t_err)
    }

    #[inline]
    fn disjoint(a: &Sphere, b: &Sphere, _: &PoseCheck) -> bool {
        sphere::disjoint_f32(a, b)
    }

    #[inline]
    fn size(&self) -> f64 {
        self.r as f64
    }

    /// [`Sphere::widened`].
    fn widened(&self, eps: f64) -> Sphere {
        Sphere::widened(self, eps)
    }
}
