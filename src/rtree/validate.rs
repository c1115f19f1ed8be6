//! Structural check of an [`Rtree`] (used by the tests): fan-out bounds, balance, every
//! triangle exactly once with its corners as written, its real local corners inside its
//! own box, and every box inside all of its ancestors' boxes.

use super::build::Rtree;
use crate::mesh::Mesh;

/// `Err` describes the first violated invariant.
pub fn validate(t: &Rtree, mesh: &Mesh) -> Result<(), String> {
    let (m, big_m) = (t.options.min_children, t.options.max_children);
    let n = mesh.triangle_count();
    if t.tri_index.len() != n || t.tri_lo.len() != n || t.tris.len() != n {
        return Err(format!("{} entries for {n} triangles", t.tri_index.len()));
    }
    let mut seen_tri = vec![false; n];
    let mut seen_node = vec![false; t.nodes.len()];
    let mut seen_entry = vec![false; n];
    // (node, level, ancestors' boxes)
    let mut stack = vec![(0usize, 1u32, Vec::<([f32; 3], [f32; 3])>::new())];
    seen_node[0] = true;
    while let Some((i, level, mut anc)) = stack.pop() {
        let nd = t.nodes[i];
        let count = nd.count;
        let root = i == 0;
        if count > big_m || count == 0 || (!root && count < m) {
            return Err(format!(
                "node {i} has {count} entries, outside {m}..={big_m}"
            ));
        }
        anc.push((nd.lo, nd.hi));
        let inside = |lo: [f32; 3], hi: [f32; 3], anc: &[([f32; 3], [f32; 3])]| {
            anc.iter()
                .all(|(a, b)| (0..3).all(|k| a[k] <= lo[k] && hi[k] <= b[k]))
        };
        let range = nd.first as usize..nd.first as usize + count as usize;
        if t.is_leaf(i) {
            if level != t.depth {
                return Err(format!("leaf {i} on level {level} of {}", t.depth));
            }
            for e in range {
                if e >= n || std::mem::replace(&mut seen_entry[e], true) {
                    return Err(format!("entry {e} out of range or referenced twice"));
                }
                let tri = t.tri_index[e] as usize;
                if tri >= n || std::mem::replace(&mut seen_tri[tri], true) {
                    return Err(format!("triangle {tri} out of range or stored twice"));
                }
                if t.tris.corners_f64(e) != mesh.triangle(tri) {
                    return Err(format!("entry {e}: corners differ from triangle {tri}"));
                }
                let own = super::aabb::Aabb::of_f32(t.tri_lo[e], t.tri_hi[e]);
                if !t
                    .tris
                    .corners_local_f64(e)
                    .iter()
                    .all(|&p| own.contains_real(p))
                {
                    return Err(format!("triangle {tri} sticks out of its own box"));
                }
                if !inside(t.tri_lo[e], t.tri_hi[e], &anc) {
                    return Err(format!("triangle {tri} sticks out of an ancestor's box"));
                }
            }
        } else {
            if root && count < 2 {
                return Err("inner root with one child".into());
            }
            for c in range {
                if c >= t.nodes.len() || c == 0 || std::mem::replace(&mut seen_node[c], true) {
                    return Err(format!("child {c} out of range or referenced twice"));
                }
                if !inside(t.nodes[c].lo, t.nodes[c].hi, &anc) {
                    return Err(format!("node {c} sticks out of an ancestor's box"));
                }
                stack.push((c, level + 1, anc.clone()));
            }
        }
    }
    if let Some(i) = seen_node.iter().position(|s| !s) {
        return Err(format!("node {i} is unreachable"));
    }
    if let Some(i) = seen_tri.iter().position(|s| !s) {
        return Err(format!("triangle {i} is missing"));
    }
    Ok(())
}
