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
//! preparation time.
//!
//! Nothing read is trusted: after the lengths (before any allocation) and the checksums,
//! [`decode`] checks every invariant of `invariants.rs` (header fields here, the tree, the
//! volumes and the bounding points in `verify/`) and reports the first that fails as
//! [`SavedError::Invariant`].

use super::verify::{self, Violation};
use super::{KdopHierarchy, SavedHierarchy, invariants as inv};
use crate::bv::KdopNode;
use crate::bvh::{BuildOptions, Bvh, SplitPoint, SplitRule};
use crate::error::SavedError;
use crate::kind::for_each_k;
use crate::mesh::Mesh;
use crate::ordered::OrderedTriangles;
use crate::tumble::BoundingPoints;
use std::path::Path;

/// The first bytes of every `.mch` file.
pub const MAGIC: [u8; 8] = *b"\x89MCH\r\n\x1a\n";
/// The version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes of the header: everything a reader needs to know the file's length.
pub(super) const HEADER: usize = 72;
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
    let k = 2 * for_each_k!(h, KdopHierarchy(b, _) => b.nodes[0].bv.min.len()) as u32;
    let rule = SplitRule::ALL
        .iter()
        .position(|&r| r == o.rule)
        .unwrap_or(0) as u32;
    let point = SplitPoint::ALL
        .iter()
        .position(|&p| p == o.point)
        .unwrap_or(0) as u32;
    let (depth, n_nodes) = for_each_k!(h, KdopHierarchy(b, _) => (b.depth, b.nodes.len()));
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
    for_each_k!(h, KdopHierarchy(b, _) => {
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

/// Checks what a file's first bytes can tell before its length is known: the magic bytes
/// (needs 8 bytes), the version (12) and a whole header (72). `head` is the file's start,
/// up to [`HEADER`] bytes; `len` is the file's length where known (for the error), else
/// `head`'s.
pub(super) fn check_start(path: &Path, head: &[u8], len: u64) -> Result<(), SavedError> {
    if head.len() < MAGIC.len() || head[..MAGIC.len()] != MAGIC {
        return Err(SavedError::Magic {
            path: path.to_path_buf(),
        });
    }
    if head.len() >= 12 {
        let version = u32_at(head, 8);
        if version != FORMAT_VERSION {
            return Err(SavedError::Version {
                path: path.to_path_buf(),
                found: version,
                supported: FORMAT_VERSION,
            });
        }
    }
    if head.len() < HEADER {
        return Err(length_error(path, len, HEADER as u64));
    }
    Ok(())
}

/// The error of a file of `len` bytes whose header describes `expected`.
pub(super) fn length_error(path: &Path, len: u64, expected: u64) -> SavedError {
    SavedError::Length {
        path: path.to_path_buf(),
        len,
        expected,
        what: if len < expected {
            "truncated"
        } else {
            "trailing bytes"
        },
    }
}

/// The bytes of each part after the header, as the header's k and counts describe them
/// (`None` where a size overflows u64): vertices, triangles, leaf order, nodes, point
/// offsets, points.
fn part_sizes(header: &[u8]) -> [Option<u64>; 6] {
    let k = u32_at(header, 12) as u64;
    let [n_pos, n_tri, n_nodes, n_points] = [32, 40, 48, 56].map(|at| u64_at(header, at));
    [
        n_pos.checked_mul(24),
        n_tri.checked_mul(12),
        n_tri.checked_mul(4),
        n_nodes.checked_mul(4 * (k + 2)),
        n_nodes.checked_add(1).and_then(|n| n.checked_mul(4)),
        n_points.checked_mul(12),
    ]
}

/// The length of the file a checked header ([`check_start`]) describes, saturated at
/// `u64::MAX` on overflow; an error if its k is not one of the four (the node size depends
/// on it).
pub(super) fn expected_len(path: &Path, header: &[u8]) -> Result<u64, SavedError> {
    let k = u32_at(header, 12);
    if !matches!(k, 6 | 14 | 18 | 26) {
        let v = Violation::global(inv::KIND, format!("k = {k} (expected 6, 14, 18 or 26)"));
        return Err(violation(path, v));
    }
    Ok(part_sizes(header)
        .iter()
        .try_fold(HEADER as u64, |acc, s| acc.checked_add((*s)?))
        .unwrap_or(u64::MAX))
}

/// The error of `v` in the file at `path`.
fn violation(path: &Path, v: Violation) -> SavedError {
    SavedError::Invariant {
        path: path.to_path_buf(),
        invariant: v.invariant,
        node: v.node.map(|n| n as u64),
        message: v.message,
    }
}

/// Checks and decodes a whole file: lengths, checksums, then every invariant.
pub(super) fn decode(path: &Path, bytes: &[u8]) -> Result<SavedHierarchy, SavedError> {
    let len = bytes.len() as u64;
    check_start(path, &bytes[..bytes.len().min(HEADER)], len)?;
    // Checked sizes first: nothing is allocated for counts the file cannot hold.
    let expected = expected_len(path, bytes)?;
    if expected != len {
        return Err(length_error(path, len, expected));
    }
    let [pos_b, tri_b, order_b, nodes_b, offsets_b, _] =
        part_sizes(bytes).map(|s| s.unwrap_or(0) as usize);
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

    let invalid = |v: Violation| violation(path, v);
    let (rule, point, leaf_size) = (u32_at(bytes, 16), u32_at(bytes, 20), u32_at(bytes, 24));
    let (Some(&r), Some(&p), true) = (
        SplitRule::ALL.get(rule as usize),
        SplitPoint::ALL.get(point as usize),
        leaf_size >= 1,
    ) else {
        return Err(invalid(Violation::global(
            inv::OPTIONS,
            format!(
                "split rule {rule} (of {}), split point {point} (of {}), leaf size {leaf_size} (at least 1)",
                SplitRule::ALL.len(),
                SplitPoint::ALL.len()
            ),
        )));
    };
    let options = BuildOptions {
        rule: r,
        point: p,
        leaf_size,
    };
    let depth = u32_at(bytes, 28);
    let [n_pos, n_tri] = [32, 40].map(|at| u64_at(bytes, at));
    if n_tri > u32::MAX as u64 || n_pos > u32::MAX as u64 + 1 {
        return Err(invalid(Violation::global(
            inv::COUNTS,
            format!("{n_tri} triangles, {n_pos} vertices (at most 2^32 each)"),
        )));
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
    let d = Decoded {
        mesh: &mesh,
        tri_index: order,
        node_bytes: nodes,
        options,
        depth,
    };
    let hierarchy = match u32_at(bytes, 12) {
        6 => d.checked::<3>(bp).map(KdopHierarchy::from),
        14 => d.checked::<7>(bp).map(KdopHierarchy::from),
        18 => d.checked::<9>(bp).map(KdopHierarchy::from),
        _ => d.checked::<13>(bp).map(KdopHierarchy::from),
    }
    .map_err(invalid)?;
    Ok(SavedHierarchy { mesh, hierarchy })
}

/// A hierarchy's parts as read, before they are checked.
struct Decoded<'a> {
    mesh: &'a Mesh,
    tri_index: Vec<u32>,
    node_bytes: &'a [u8],
    options: BuildOptions,
    depth: u32,
}

impl Decoded<'_> {
    /// The hierarchy of `H` slabs with its bounding points `bp`, every invariant checked:
    /// the leaf order, then the tree, then its volumes, then its bounding points (each
    /// check relies on the ones before it).
    fn checked<const H: usize>(
        self,
        bp: BoundingPoints,
    ) -> Result<(Bvh<H>, BoundingPoints), Violation> {
        let nodes: Vec<KdopNode<H>> = self
            .node_bytes
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
        let n = self.mesh.triangle_count();
        // A permutation before the ordered triangles index the mesh by it.
        let mut seen = vec![false; n];
        for (p, &t) in self.tri_index.iter().enumerate() {
            if t as usize >= n || std::mem::replace(&mut seen[t as usize], true) {
                return Err(Violation::global(
                    inv::LEAF_ORDER,
                    format!(
                        "position {p} holds triangle {t}, out of range or already placed (of {n})"
                    ),
                ));
            }
        }
        drop(seen);
        let ranges = verify::tree(&nodes, n, self.options.leaf_size, self.depth)?;
        let tris = OrderedTriangles::new(self.mesh, &self.tri_index);
        let bvh = Bvh {
            nodes,
            tri_index: self.tri_index,
            tris,
            depth: self.depth,
            options: self.options,
        };
        verify::volumes(&bvh)?;
        verify::points(&bvh, &ranges, &bp)?;
        Ok((bvh, bp))
    }
}
