//! The leaf pairs of a k-DOP scene whose k-DOPs, grown by `ε`, overlap: a superset of the
//! triangle pairs within `ε`, for a caller that decides each pair itself. A scene of many
//! bodies does (`crate::bodies::narrow`): it decides on the world coordinates of both
//! bodies, which are not the coordinates this scene's leaves see, so a leaf test here
//! would be work thrown away.
//!
//! The node test is the tolerance query's ([`crate::proximity::kdops_within`], whose proof
//! covers B's k-DOPs as tumbled and A's as built), so every pair of triangles within `ε` in
//! this scene's frame is among the candidates: their leaves' k-DOPs hold them, and each
//! ancestor pair's k-DOPs hold the leaves'.

use super::*;

/// A k-DOP scene asked for its candidates within `eps` (module docs): each pose's "pairs"
/// are the leaf pairs reached, Np counts them. Any [`crate::scene::collide_batch`] runs it,
/// with the scene's own workspaces. The query options' mode and tolerance are not used
/// (all candidates, at `eps`).
#[derive(Debug)]
pub struct Candidates<'s, const H: usize> {
    /// The scene.
    pub scene: &'s KdopScene<H>,
    /// The tolerance, finite and at least 0.
    pub eps: f64,
}

impl<const H: usize> PairScene for Candidates<'_, H> {
    type Workspace = KdopWorkspace<H>;
    type Sub = NoSub;

    fn workspace(&self) -> KdopWorkspace<H> {
        self.scene.workspace()
    }

    fn prefault(&self, ws: &mut KdopWorkspace<H>) {
        self.scene.prefault(ws);
    }

    fn begin_chunk(&self, ws: &mut KdopWorkspace<H>) {
        self.scene.begin_chunk(ws);
    }

    fn collide_into(
        &self,
        pose: &Pose,
        opts: &QueryOptions,
        ws: &mut KdopWorkspace<H>,
        out: &mut Vec<(u32, u32)>,
    ) -> Counters {
        self.scene.grown_into(pose, opts, self.eps, false, ws, out)
    }

    fn hierarchy_sizes(&self) -> [(usize, usize); 2] {
        self.scene.hierarchy_sizes()
    }

    fn depths(&self) -> [u32; 2] {
        self.scene.depths()
    }

    fn pool(&self) -> Option<&WorkspacePool<KdopWorkspace<H>>> {
        self.scene.pool()
    }
}
