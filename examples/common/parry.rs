//! parry3d-f64 as the examples run it (`vs_parry`, `parry_peer`): a `TriMesh` that keeps
//! the file's triangles in order, the pose converted, and all intersecting pairs per pose.

use meshcollide::{Mesh, Pose};
use parry3d_f64::bounding_volume::BoundingVolume;
use parry3d_f64::math::{Pose as PPose, Rotation, Vector};
use parry3d_f64::partitioning::BvhNode;
use parry3d_f64::query;
use parry3d_f64::shape::{TriMesh, TriMeshFlags};

/// `TriMesh::with_flags(.., TriMeshFlags::empty())`: no welding, no deletion, so the BVH
/// leaf index is the file's triangle index (checked).
pub fn to_parry(m: &Mesh) -> Result<TriMesh, String> {
    let v: Vec<Vector> = m
        .positions
        .iter()
        .map(|p| Vector::new(p[0], p[1], p[2]))
        .collect();
    let t = TriMesh::with_flags(v, m.triangles.clone(), TriMeshFlags::empty())
        .map_err(|e| format!("parry TriMesh: {e:?}"))?;
    if t.num_triangles() != m.triangle_count() || t.indices() != &m.triangles[..] {
        return Err("parry dropped or reordered triangles".into());
    }
    Ok(t)
}

/// Our pose (quaternion `w, x, y, z`, translation) as parry's.
pub fn parry_pose(p: &Pose) -> PPose {
    let [w, x, y, z] = p.q;
    PPose::from_parts(
        Vector::new(p.t[0], p.t[1], p.t[2]),
        Rotation::from_xyzw(x, y, z, w),
    )
}

/// All intersecting triangle pairs `(tri_a, tri_b)` by parry, sorted, without duplicates:
/// `Bvh::leaf_pairs` with the relative pose's AABB test (as parry's own `intersect_meshes`
/// does), then `query::intersection_test` (GJK on two `Triangle`s) on each candidate.
pub fn parry_collide(a: &TriMesh, b: &TriMesh, pos12: &PPose) -> Vec<(u32, u32)> {
    let mut pairs: Vec<(u32, u32)> = a
        .bvh()
        .leaf_pairs(b.bvh(), |n1: &BvhNode, n2: &BvhNode| {
            n1.aabb().intersects(&n2.aabb().transform_by(pos12))
        })
        .filter(|&(i, j)| {
            query::intersection_test(&PPose::IDENTITY, &a.triangle(i), pos12, &b.triangle(j))
                .expect("triangle-triangle supported")
                .intersecting
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}
