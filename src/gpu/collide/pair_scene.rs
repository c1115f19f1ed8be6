//! What the batch pipeline needs of each kind of scene ([`GpuPairScene`]): the k-DOP and
//! dual hierarchies, and the OBB and sphere trees with their node volumes.

use super::*;

/// What the batch pipeline needs of a scene: A's hierarchy, B's hierarchy and, for the
/// k-DOPs, what tumbling needs of it, the descent rule and, for the dual k-DOP–sphere
/// hierarchy, the node spheres and the options of its node test, or for the OBB and sphere
/// trees, their volumes.
pub trait GpuPairScene<const H: usize> {
    /// The scene's sub-counters, made from the device's three per-pose sub-counters.
    type Sub: SubCounters;
    /// The sub-counters of one pose from the device's `(sphere rejects, slab rejects, slab
    /// tests)` (zeros for the k-DOPs).
    fn sub(c: [u64; 3]) -> Self::Sub;
    /// A's hierarchy.
    fn env(&self) -> &Bvh<H>;
    /// B's hierarchy: topology and triangles.
    fn fly_bvh(&self) -> &Bvh<H>;
    /// B's flying hierarchy (tumbling's bounding points); `None` when nothing is tumbled
    /// (the OBB and sphere trees).
    fn fly(&self) -> Option<&FlyingHierarchy<H>>;
    /// What the kernels need of each pose.
    fn pose_frames(&self, poses: &[Pose]) -> Vec<PoseFrame<H>>;
    /// `(A's spheres, B's spheres, options)` of the dual hierarchy; `None` for the k-DOPs.
    fn dual(&self) -> Option<(&[Sphere], &[Sphere], DualOptions)> {
        None
    }
    /// The node volumes of the OBB or sphere tree; `None` for the k-DOP hierarchies.
    fn volumes(&self) -> Option<GpuVolumes<'_>> {
        None
    }
    /// Whether the descent prefers the node with the larger k-DOP (`Descent::Larger`);
    /// false: Algorithm 1 of Klosowski et al.
    fn descent_larger(&self) -> bool {
        false
    }
    /// The host's pose-level pretest ([`crate::kdop::pretest`]), if the scene runs one:
    /// rejected poses are left out of the batch, and every pose that ran it counts it in Nv.
    fn pretest(&self) -> Option<&BoxPretest> {
        None
    }
    /// Whether all-contacts runs start each pose from the front its chunk's previous pose
    /// recorded ([`crate::kdop::KdopOptions::coherence`]; the k-DOP scene only).
    fn coherence(&self) -> bool {
        false
    }
}

/// The node volumes of a volume tree, A's then B's, indexed like the nodes.
#[derive(Debug, Clone, Copy)]
pub enum GpuVolumes<'a> {
    /// The OBB tree (`expand_obb`).
    Obb(&'a [Obb32], &'a [Obb32]),
    /// The sphere tree (`expand_sphere`).
    Sphere(&'a [Sphere], &'a [Sphere]),
}

impl<const H: usize> GpuPairScene<H> for KdopScene<H> {
    type Sub = NoSub;
    fn sub(_: [u64; 3]) -> NoSub {
        NoSub
    }
    fn env(&self) -> &Bvh<H> {
        &self.env
    }
    fn fly_bvh(&self) -> &Bvh<H> {
        &self.fly.bvh
    }
    fn fly(&self) -> Option<&FlyingHierarchy<H>> {
        Some(&self.fly)
    }
    fn pose_frames(&self, poses: &[Pose]) -> Vec<PoseFrame<H>> {
        self.fly.pose_frames(self.env.frame(), poses)
    }
    fn descent_larger(&self) -> bool {
        self.options.descent == Descent::Larger
    }
    fn pretest(&self) -> Option<&BoxPretest> {
        KdopScene::pretest(self)
    }
    fn coherence(&self) -> bool {
        self.options.coherence
    }
}

impl<const H: usize> GpuPairScene<H> for DualScene<H> {
    type Sub = DualCounters;
    fn sub([sphere_rejects, slab_rejects, slab_tests]: [u64; 3]) -> DualCounters {
        DualCounters {
            sphere_rejects,
            slab_rejects,
            slab_tests,
        }
    }
    fn env(&self) -> &Bvh<H> {
        &self.env
    }
    fn fly_bvh(&self) -> &Bvh<H> {
        &self.fly.bvh
    }
    fn fly(&self) -> Option<&FlyingHierarchy<H>> {
        Some(&self.fly)
    }
    fn pose_frames(&self, poses: &[Pose]) -> Vec<PoseFrame<H>> {
        self.fly.pose_frames(self.env.frame(), poses)
    }
    fn dual(&self) -> Option<(&[Sphere], &[Sphere], DualOptions)> {
        Some((&self.env_spheres, &self.fly_spheres, self.options))
    }
}

/// A volume tree's node volume as the GPU has it.
pub trait GpuVolume: Volume {
    /// The scene's volumes for the pipeline.
    fn gpu<'a>(env: &'a [Self], fly: &'a [Self]) -> GpuVolumes<'a>;
}

impl GpuVolume for Obb32 {
    fn gpu<'a>(env: &'a [Obb32], fly: &'a [Obb32]) -> GpuVolumes<'a> {
        GpuVolumes::Obb(env, fly)
    }
}

impl GpuVolume for Sphere {
    fn gpu<'a>(env: &'a [Sphere], fly: &'a [Sphere]) -> GpuVolumes<'a> {
        GpuVolumes::Sphere(env, fly)
    }
}

impl<V: GpuVolume> GpuPairScene<3> for VolumeScene<V> {
    type Sub = NoSub;
    fn sub(_: [u64; 3]) -> NoSub {
        NoSub
    }
    fn env(&self) -> &Bvh<3> {
        &self.env
    }
    fn fly_bvh(&self) -> &Bvh<3> {
        &self.fly
    }
    fn fly(&self) -> Option<&FlyingHierarchy<3>> {
        None
    }
    /// The f32 pose of [`PoseCheck`] (the CPU traversal's), the rest of the frame unused.
    fn pose_frames(&self, poses: &[Pose]) -> Vec<PoseFrame<3>> {
        use rayon::prelude::*;
        let (env, fly) = (self.env.frame(), self.fly.frame());
        poses
            .par_iter()
            .map(|p| {
                let pc = PoseCheck::new(LocalPose::new(p, env, fly));
                let mut f: PoseFrame<3> = bytemuck::Zeroable::zeroed();
                (f.r, f.t, f.t_err) = (pc.r, pc.t, pc.t_err);
                f.eps_t2 = f32::INFINITY;
                f
            })
            .collect()
    }
    fn volumes(&self) -> Option<GpuVolumes<'_>> {
        Some(V::gpu(&self.env_bv, &self.fly_bv))
    }
    /// The volume trees descend the larger volume (Gottschalk's rule, as [`crate::obb`]).
    fn descent_larger(&self) -> bool {
        true
    }
    fn pretest(&self) -> Option<&BoxPretest> {
        VolumeScene::pretest(self)
    }
}
