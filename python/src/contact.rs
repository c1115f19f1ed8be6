//! `Collider.contact_geometry`'s rows: per intersecting pair the intersection set's edges
//! (`meshcollide query --contact-geometry`'s `segments.csv`, `meshcollide::tri::contact`).

use meshcollide::tri::contact::contact_geometry;
use meshcollide::{Mesh, Pose};

/// The rows of `segments.csv` for the pairs `pairs` (`(pose, tri_a, tri_b)` triples, pose
/// numbers relative to `poses`): `(pose + first_pose, tri_a, tri_b)` per edge and the
/// edge's two points (B's triangle as posed), each coordinate rounded once. A reported pair
/// always meets (the query decided it with the same exact predicate on the same
/// coordinates); one that does not is an internal error, not a missing row.
pub fn segments(
    a: &Mesh,
    b: &Mesh,
    poses: &[Pose],
    pairs: &[i64],
    first_pose: usize,
) -> Result<(Vec<i64>, Vec<f64>), String> {
    let (mut rows, mut points) = (Vec::new(), Vec::new());
    for r in pairs.chunks_exact(3) {
        let (i, ta, tb) = (r[0] as usize, r[1] as usize, r[2] as usize);
        let tri_a = a.triangle(ta);
        let tri_b = b.triangle(tb).map(|p| poses[i].apply(p));
        let c = contact_geometry(&tri_a, &tri_b).ok_or_else(|| {
            format!("pose {i}: triangles {ta} and {tb} were reported intersecting but do not meet")
        })?;
        for (p, q) in c.edges() {
            rows.extend([(first_pose + i) as i64, r[1], r[2]]);
            points.extend(p.iter().chain(&q));
        }
    }
    Ok((rows, points))
}
