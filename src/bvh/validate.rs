//! Well-formedness of a built or refitted hierarchy (run after every build in the tests).

use super::Bvh;
use crate::bv::Kdop;

/// Checks: child indices in range and after their parent; every node reached exactly once;
/// each parent's k-DOP contains its children's; each leaf's k-DOP contains its triangles'
/// corners (local frame); the leaf ranges cover every triangle position exactly once; `tri_index` is a
/// permutation.
pub fn validate<const H: usize>(bvh: &Bvh<H>) -> Result<(), String> {
    let n_nodes = bvh.nodes.len();
    let n_tris = bvh.tri_index.len();
    if bvh.tris.len() != n_tris {
        return Err("tris and tri_index differ in length".into());
    }
    let mut seen_node = vec![false; n_nodes];
    let mut seen_tri = vec![false; n_tris];
    let mut stack = vec![0usize];
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen_node[i], true) {
            return Err(format!("node {i} reached twice"));
        }
        let node = &bvh.nodes[i];
        if node.is_leaf() {
            let (a, b) = (
                node.first as usize,
                node.first as usize + node.count as usize,
            );
            if b > n_tris {
                return Err(format!("leaf {i} range {a}..{b} beyond {n_tris} triangles"));
            }
            for (p, seen) in seen_tri.iter_mut().enumerate().take(b).skip(a) {
                if std::mem::replace(seen, true) {
                    return Err(format!("triangle position {p} in two leaves"));
                }
                for c in bvh.tris.corners_local_f64(p) {
                    if !node.bv.contains_point(c) {
                        return Err(format!("leaf {i} does not contain corner {c:?}"));
                    }
                }
            }
        } else {
            let c = node.first as usize;
            if c <= i || c + 1 >= n_nodes {
                return Err(format!("node {i} has children {c}, {} out of order", c + 1));
            }
            let merged: Kdop<H> = bvh.nodes[c].bv.merge(&bvh.nodes[c + 1].bv);
            if !node.bv.contains(&merged) {
                return Err(format!("node {i} does not contain its children"));
            }
            stack.extend([c, c + 1]);
        }
    }
    if let Some(i) = seen_node.iter().position(|s| !s) {
        return Err(format!("node {i} unreachable"));
    }
    if let Some(p) = seen_tri.iter().position(|s| !s) {
        return Err(format!("triangle position {p} in no leaf"));
    }
    let mut perm = vec![false; n_tris];
    for &t in &bvh.tri_index {
        if t as usize >= n_tris || std::mem::replace(&mut perm[t as usize], true) {
            return Err(format!("tri_index is not a permutation (at {t})"));
        }
    }
    Ok(())
}
