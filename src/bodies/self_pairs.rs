//! A scene's self pairs ([`SceneOptions::self_pairs`]): each moving body's own
//! intersecting pairs by the self-collision rule, on its world coordinates.

use super::*;

impl Scene {
    /// The self pairs of every present moving body: its mesh's self-collision hierarchy
    /// refitted to the body's world coordinates (so decided exactly on them), reused while
    /// the body keeps its pose.
    pub(super) fn self_contacts(&mut self) -> crate::error::Result<Vec<SceneContact>> {
        let (bv, build, mode) = (self.options.bv, self.options.build, self.options.mode);
        let meshes = &self.meshes;
        let found: crate::error::Result<Vec<Vec<SceneContact>>> = self
            .bodies
            .par_iter_mut()
            .enumerate()
            .filter(|(_, b)| b.kind == BodyKind::Moving && b.pose.is_some())
            .map(|(i, b)| {
                let pose = b.pose.expect("present");
                let fresh = !matches!(&b.self_cache, Some((p, _)) if *p == pose);
                if fresh {
                    let e = &meshes[b.mesh];
                    let base = e.self_collider.get_or_init(|| {
                        SelfCollider::builder(&e.mesh)
                            .bv(bv)
                            .build_options(build)
                            .mode(mode)
                            .build()
                            .expect("the mesh was validated")
                    });
                    let world: Vec<[f64; 3]> =
                        e.mesh.positions.iter().map(|&p| pose.apply(p)).collect();
                    let mut c = base.clone();
                    // A world coordinate beyond the exact predicates' range is an error
                    // naming the body, not a silent miss.
                    c.refit(&world)
                        .map_err(|e| motion_error(format!("body {i} at its pose: {e}")))?;
                    b.self_cache = Some((pose, c.collide_with(mode).pairs));
                }
                let pairs = &b.self_cache.as_ref().expect("just set").1;
                let i = i as u32;
                Ok(pairs
                    .iter()
                    .map(|&(ta, tb)| SceneContact {
                        body_a: i,
                        body_b: i,
                        tri_a: ta,
                        tri_b: tb,
                    })
                    .collect())
            })
            .collect();
        Ok(found?.into_iter().flatten().collect())
    }
}
