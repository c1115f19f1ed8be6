//! The distance query's oracle: every triangle pair measured exactly (tests compare the
//! search, every backend and every tree against it).

use super::{PoseDistance, Witness};
use crate::pose::Pose;
use crate::scene::Counters;
use crate::tri::distance::{TriDistance, tri_tri_distance};
use std::cmp::Ordering;

/// The oracle: every triangle pair measured, the first in `(exact distance, tri_a, tri_b)`
/// order kept; the same answer [`super::distance_pose`] must give, field for field.
pub fn brute_force_distance(
    a: &crate::mesh::Mesh,
    b: &crate::mesh::Mesh,
    pose: &Pose,
    upto: Option<f64>,
) -> PoseDistance {
    let tb: Vec<[[f64; 3]; 3]> = (0..b.triangle_count())
        .map(|j| b.triangle(j).map(|p| pose.apply(p)))
        .collect();
    let mut best: Option<(TriDistance, (u32, u32))> = None;
    for i in 0..a.triangle_count() {
        let ta = a.triangle(i);
        for (j, t) in tb.iter().enumerate() {
            let d = tri_tri_distance(&ta, t);
            let tri = (i as u32, j as u32);
            let better = match &best {
                None => true,
                Some((bd, bt)) => match d.cmp_exact(bd) {
                    Ordering::Less => true,
                    Ordering::Equal => tri < *bt,
                    Ordering::Greater => false,
                },
            };
            if better {
                best = Some((d, tri));
            }
        }
    }
    let c = Counters::default();
    let Some((d, (i, j))) = best else {
        return PoseDistance::none(c);
    };
    if let Some(lim) = upto
        && !crate::proximity::tri_tri_within(&a.triangle(i as usize), &tb[j as usize], lim)
    {
        return PoseDistance::none(c);
    }
    let (pa, pb) = d.points();
    PoseDistance {
        distance: d.value(),
        witness: Some(Witness {
            tri_a: i,
            tri_b: j,
            a: pa,
            b: pb,
        }),
        counters: c,
    }
}
