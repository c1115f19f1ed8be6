//! The tree's shape: child indices, one parent per node, leaf ranges, nested ranges, depth.

use super::Violation;
use crate::bv::KdopNode;
use crate::saved::invariants as inv;

/// Checks the tree's shape against `n_tris` triangles, the header's `leaf_size` and
/// `depth` (invariants [`inv::COUNTS`], [`inv::CHILD_INDICES`], [`inv::ONE_PARENT`],
/// [`inv::LEAF_RANGE`], [`inv::RANGES_NEST`], [`inv::DEPTH`]); returns each node's range of
/// triangle positions.
pub(in crate::saved) fn tree<const H: usize>(
    nodes: &[KdopNode<H>],
    n_tris: usize,
    leaf_size: u32,
    depth: u32,
) -> Result<Vec<(u32, u32)>, Violation> {
    let n = nodes.len();
    if n == 0 || n > (2 * n_tris).saturating_sub(1) {
        return Err(Violation::global(
            inv::COUNTS,
            format!("{n} nodes for {n_tris} triangles (a tree has 1 to 2T - 1)"),
        ));
    }
    // Forward: parents come before their children, so a node's level is final when it is
    // reached and each child is claimed once.
    let mut level = vec![0u32; n];
    let mut has_parent = vec![false; n];
    level[0] = 1;
    for (i, node) in nodes.iter().enumerate() {
        if node.is_leaf() {
            let end = node.first as u64 + node.count as u64;
            if node.count > leaf_size || end > n_tris as u64 {
                return Err(Violation::at(
                    inv::LEAF_RANGE,
                    i,
                    format!(
                        "leaf of {} triangles from position {}: beyond the leaf size {leaf_size} or the {n_tris} triangles",
                        node.count, node.first
                    ),
                ));
            }
            continue;
        }
        let c = node.first as usize;
        if c <= i || c + 1 >= n {
            return Err(Violation::at(
                inv::CHILD_INDICES,
                i,
                format!(
                    "children {c} and {} (must follow it, below {n})",
                    c as u64 + 1
                ),
            ));
        }
        for child in [c, c + 1] {
            if std::mem::replace(&mut has_parent[child], true) {
                return Err(Violation::at(
                    inv::ONE_PARENT,
                    child,
                    format!("a child of node {i} and of an earlier node"),
                ));
            }
            level[child] = level[i] + 1;
        }
    }
    if let Some(j) = (1..n).find(|&j| !has_parent[j]) {
        return Err(Violation::at(
            inv::ONE_PARENT,
            j,
            "no node has it as a child",
        ));
    }
    let levels = level.iter().copied().max().unwrap_or(1);
    if levels != depth {
        return Err(Violation::global(
            inv::DEPTH,
            format!("the header says {depth} levels, the tree has {levels}"),
        ));
    }
    drop((level, has_parent));
    // Backward: children before parents.
    let mut range = vec![(0u32, 0u32); n];
    for i in (0..n).rev() {
        let node = &nodes[i];
        range[i] = if node.is_leaf() {
            (node.first, node.first + node.count)
        } else {
            let c = node.first as usize;
            let (l, r) = (range[c], range[c + 1]);
            if l.1 != r.0 {
                return Err(Violation::at(
                    inv::RANGES_NEST,
                    i,
                    format!(
                        "its children cover positions {}..{} and {}..{}, not adjacent in order",
                        l.0, l.1, r.0, r.1
                    ),
                ));
            }
            (l.0, r.1)
        };
    }
    if range[0] != (0, n_tris as u32) {
        let (s, e) = range[0];
        return Err(Violation::at(
            inv::RANGES_NEST,
            0,
            format!("the root covers positions {s}..{e}, not all {n_tris} triangles"),
        ));
    }
    Ok(range)
}
