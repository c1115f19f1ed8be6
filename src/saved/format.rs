//! The `.mch` layout, little endian throughout. Version 1:
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `\x89MCH\r\n\x1a\n` (binary-safe: a text transfer that rewrites line ends breaks it) |
//! | 8..12 | format version (u32) |
//! | 12..16 | k of the k-DOPs: 6, 14, 18 or 26 |
//! | 16..28 | build options: split rule, split point (indices in their `ALL` lists), leaf size |
//! | 28..32 | depth of the hierarchy |
//! | 32..64 | counts (u64): vertices `V`, triangles `T`, nodes `N`, bounding points `P` |
//! | 64..68 | CRC-32 of the mesh bytes (vertices and triangles) |
//! | 68..72 | CRC-32 of every other byte of the file (header and payload) |
//! | 72.. | vertices `V × 3 × f64`, triangles `T × 3 × u32`, leaf order `T × u32` (position → mesh triangle), nodes `N × (k + 2) × 4` bytes (`KdopNode`: k-DOP min, max as f32, then `first`, `count`), bounding point offsets `(N + 1) × u32`, bounding points `P × 3 × f32` |
//!
//! The local frame and the ordered triangles are not stored: they follow from the mesh and
//! the leaf order exactly as the build derives them. The bounding points (B's tumbling
//! input, `crate::tumble::BoundingPoints`) are: they take most of a flying hierarchy's
//! preparation time. They are checked for layout and finiteness, and otherwise trusted
//! under the checksum (checking that they bound each node would cost what computing them does).

use super::{KdopHierarchy, SavedHierarchy, with_bvh};
use crate::bv::KdopNode;
use crate::bvh::{BuildOptions, Bvh, SplitPoint, SplitRule};
use crate::error::SavedError;
use crate::mesh::Mesh;
use crate::ordered::OrderedTriangles;
use crate::tumble::BoundingPoints;
use std::path::Path;

/// The first bytes of every `.mch` file.
pub const MAGIC: [u8; 8] = *b"\x89MCH\r\n\x1a\n";
/// The version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
const HEADER: usize = 72;
/// Where the mesh checksum sits.
const MESH_CRC: usize = 64;
/// Where the payload checksum sits (excluded from its own computation).
const PAYLOAD_CRC: usize = 68;

fn crc(parts: &[&[u8]]) -> u32 {
    let mut c = flate2::Crc::new();
    for p in parts {
        c.update(p);
    }
    c.sum()
}

pub(super) fn encode(s: &SavedHierarchy) -> Vec<u8> {
    let h = &s.hierarchy;
    let o = h.options();
    let k = 2 * with_bvh!(h, b => b.nodes[0].bv.min.len()) as u32;
    let rule = SplitRule::ALL
        .iter()
        .position(|&r| r == o.rule)
        .unwrap_or(0) as u32;
    let point = SplitPoint::ALL
        .iter()
        .position(|&p| p == o.point)
        .unwrap_or(0) as u32;
    let (depth, n_nodes) = with_bvh!(h, b => (b.depth, b.nodes.len()));
    let bp = h.points();
    let mut out = Vec::with_capacity(HEADER);
    out.extend_from_slice(&MAGIC);
    for v in [FORMAT_VERSION, k, rule, point, o.leaf_size, depth] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [
        s.mesh.positions.len(),
        s.mesh.triangles.len(),
        n_nodes,
        bp.points.len(),
    ] {
        out.extend_from_slice(&(v as u64).to_le_bytes());
    }
    out.extend_from_slice(&[0; 8]); // checksums, below
    for c in s.mesh.positions.iter().flatten() {
        out.extend_from_slice(&c.to_le_bytes());
    }
    for v in s.mesh.triangles.iter().flatten() {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let mesh_end = out.len();
    with_bvh!(h, b => {
        for t in &b.tri_index {
            out.extend_from_slice(&t.to_le_bytes());
        }
        for n in &b.nodes {
            for v in n.bv.min.iter().chain(&n.bv.max) {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&n.first.to_le_bytes());
            out.extend_from_slice(&n.count.to_le_bytes());
        }
    });
    for o in &bp.offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    for c in bp.points.iter().flatten() {
        out.extend_from_slice(&c.to_le_bytes());
    }
    let mesh_crc = crc(&[&out[HEADER..mesh_end]]);
    out[MESH_CRC..PAYLOAD_CRC].copy_from_slice(&mesh_crc.to_le_bytes());
    let all = crc(&[&out[..PAYLOAD_CRC], &out[HEADER..]]);
    out[PAYLOAD_CRC..HEADER].copy_from_slice(&all.to_le_bytes());
    out
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(std::array::from_fn(|i| b[at + i]))
}

/// Little-endian words of `bytes` (whose length is a multiple of 4 and 8 as used).
fn words_u32(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

pub(super) fn decode(path: &Path, bytes: &[u8]) -> Result<SavedHierarchy, SavedError> {
    let invalid = |message: String| SavedError::Invalid {
        path: path.to_path_buf(),
        message,
    };
    if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
        return Err(SavedError::Magic {
            path: path.to_path_buf(),
        });
    }
    let len = bytes.len() as u64;
    let length = |expected: u64| SavedError::Length {
        path: path.to_path_buf(),
        len,
        expected,
        what: if len < expected {
            "truncated"
        } else {
            "trailing bytes"
        },
    };
    if bytes.len() < 12 {
        return Err(length(HEADER as u64));
    }
    let version = u32_at(bytes, 8);
    if version != FORMAT_VERSION {
        return Err(SavedError::Version {
            path: path.to_path_buf(),
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if bytes.len() < HEADER {
        return Err(length(HEADER as u64));
    }
    let k = u32_at(bytes, 12);
    let [n_pos, n_tri, n_nodes, n_points] = [32, 40, 48, 56].map(|at| u64_at(bytes, at));
    let node_bytes = match k {
        6 | 14 | 18 | 26 => 4 * (k as u64 + 2),
        _ => return Err(invalid(format!("k = {k} (expected 6, 14, 18 or 26)"))),
    };
    // Checked sizes first: nothing is allocated for counts the file cannot hold.
    let sizes = [
        n_pos.checked_mul(24),
        n_tri.checked_mul(12),
        n_tri.checked_mul(4),
        n_nodes.checked_mul(node_bytes),
        n_nodes.checked_add(1).and_then(|n| n.checked_mul(4)),
        n_points.checked_mul(12),
    ];
    let expected = sizes
        .iter()
        .try_fold(HEADER as u64, |acc, s| acc.checked_add((*s)?))
        .unwrap_or(u64::MAX);
    if expected != len {
        return Err(length(expected));
    }
    let [pos_b, tri_b, order_b, nodes_b, offsets_b, _] = sizes.map(|s| s.unwrap_or(0) as usize);
    let mesh_end = HEADER + pos_b + tri_b;
    let checksum = |what, stored: u32, computed: u32| {
        if stored == computed {
            Ok(())
        } else {
            Err(SavedError::Checksum {
                path: path.to_path_buf(),
                what,
                stored,
                computed,
            })
        }
    };
    checksum(
        "mesh",
        u32_at(bytes, MESH_CRC),
        crc(&[&bytes[HEADER..mesh_end]]),
    )?;
    checksum(
        "payload",
        u32_at(bytes, PAYLOAD_CRC),
        crc(&[&bytes[..PAYLOAD_CRC], &bytes[HEADER..]]),
    )?;

    let rule = SplitRule::ALL.get(u32_at(bytes, 16) as usize);
    let point = SplitPoint::ALL.get(u32_at(bytes, 20) as usize);
    let leaf_size = u32_at(bytes, 24);
    let (Some(&rule), Some(&point), true) = (rule, point, leaf_size >= 1) else {
        return Err(invalid("bad build options in the header".into()));
    };
    let options = BuildOptions {
        rule,
        point,
        leaf_size,
    };
    let depth = u32_at(bytes, 28);
    if n_tri > u32::MAX as u64 || n_pos > u32::MAX as u64 + 1 {
        return Err(invalid("more than 2^32 triangles or vertices".into()));
    }
    let positions: Vec<[f64; 3]> = bytes[HEADER..HEADER + pos_b]
        .chunks_exact(24)
        .map(|c| std::array::from_fn(|i| f64::from_le_bytes(std::array::from_fn(|j| c[8 * i + j]))))
        .collect();
    let tri_words: Vec<u32> = words_u32(&bytes[HEADER + pos_b..mesh_end]).collect();
    let triangles: Vec<[u32; 3]> = tri_words
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    drop(tri_words);
    let mesh = Mesh {
        positions,
        triangles,
    };
    mesh.validate(path)?;
    let order: Vec<u32> = words_u32(&bytes[mesh_end..mesh_end + order_b]).collect();
    let nodes_at = mesh_end + order_b;
    let nodes = &bytes[nodes_at..nodes_at + nodes_b];
    let offsets_at = nodes_at + nodes_b;
    let offsets: Vec<u32> = words_u32(&bytes[offsets_at..offsets_at + offsets_b]).collect();
    let points: Vec<[f32; 3]> = bytes[offsets_at + offsets_b..]
        .chunks_exact(12)
        .map(|c| std::array::from_fn(|i| f32::from_le_bytes(std::array::from_fn(|j| c[4 * i + j]))))
        .collect();
    let bp = BoundingPoints { offsets, points };
    bp.check(n_nodes as usize).map_err(invalid)?;
    let hierarchy = match k {
        6 => decode_bvh::<3>(&mesh, order, nodes, options, depth).map(|b| (b, bp).into()),
        14 => decode_bvh::<7>(&mesh, order, nodes, options, depth).map(|b| (b, bp).into()),
        18 => decode_bvh::<9>(&mesh, order, nodes, options, depth).map(|b| (b, bp).into()),
        _ => decode_bvh::<13>(&mesh, order, nodes, options, depth).map(|b| (b, bp).into()),
    }
    .map_err(invalid)?;
    Ok(SavedHierarchy { mesh, hierarchy })
}

/// The hierarchy of `H` slabs over `mesh` from its leaf order and node bytes, checked.
fn decode_bvh<const H: usize>(
    mesh: &Mesh,
    tri_index: Vec<u32>,
    node_bytes: &[u8],
    options: BuildOptions,
    depth: u32,
) -> Result<Bvh<H>, String> {
    let nodes: Vec<KdopNode<H>> = node_bytes
        .chunks_exact(8 * H + 8)
        .map(|c| {
            let w = |i: usize| u32_at(c, 4 * i);
            KdopNode {
                bv: crate::bv::Kdop {
                    min: std::array::from_fn(|i| f32::from_bits(w(i))),
                    max: std::array::from_fn(|i| f32::from_bits(w(H + i))),
                },
                first: w(2 * H),
                count: w(2 * H + 1),
            }
        })
        .collect();
    let n = mesh.triangle_count();
    if nodes.is_empty() || nodes.len() > 2 * n {
        return Err(format!("{} nodes for {n} triangles", nodes.len()));
    }
    // The leaf order must be a permutation before the ordered triangles index the mesh by it.
    let mut seen = vec![false; n];
    for &t in &tri_index {
        if t as usize >= n || std::mem::replace(&mut seen[t as usize], true) {
            return Err(format!("leaf order is not a permutation (at triangle {t})"));
        }
    }
    drop(seen);
    let tris = OrderedTriangles::new(mesh, &tri_index);
    let bvh = Bvh {
        nodes,
        tri_index,
        tris,
        depth,
        options,
    };
    bvh.validate()?;
    let real = tree_depth(&bvh.nodes);
    if real != depth {
        return Err(format!("header depth {depth}, the tree has {real} levels"));
    }
    Ok(bvh)
}

/// Levels of a validated tree (a single leaf has depth 1).
fn tree_depth<const H: usize>(nodes: &[KdopNode<H>]) -> u32 {
    // Children follow their parents: one forward sweep assigns levels.
    let mut level = vec![0u32; nodes.len()];
    level[0] = 1;
    let mut depth = 1;
    for i in 0..nodes.len() {
        depth = depth.max(level[i]);
        if !nodes[i].is_leaf() {
            let c = nodes[i].first as usize;
            level[c] = level[i] + 1;
            level[c + 1] = level[i] + 1;
        }
    }
    depth
}
