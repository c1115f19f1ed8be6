//! Static arrays larger than one storage binding: split into pages of a power-of-two number
//! of elements, each its own buffer and binding, read in WGSL through a generated accessor
//! `NAME_at(i)` (page `i >> shift`, element `i & (2^shift − 1)`).
//!
//! Many devices cap one storage binding at 128 MiB (lavapipe among them) while a k-DOP node
//! array of a model of 871k triangles needs 139 MB. Every kernel reads the arrays listed in
//! [`PAGED`] through their accessors; with one page the accessor is a plain index, so the
//! unpaged pipeline pays nothing. Kernels and their CPU twins see one logical array: paging
//! is a binding detail, tested by forcing a tiny binding limit
//! ([`crate::gpu::GpuContext::with_binding_limit`]) against the CPU reference.

use super::context::{GpuContext, GpuError};

/// The arrays that may be paged: `(WGSL name, element type)`. Their index here fixes the
/// bindings of their extra pages ([`extra_binding`]).
pub const PAGED: &[(&str, &str)] = &[
    ("env_nodes", "KdopNode"),
    ("fly_nodes", "KdopNode"),
    ("env_tris", "f32"),
    ("fly_tris", "f32"),
    ("fly_points", "f32"),
    ("fly_offsets", "u32"),
    ("env_tri_index", "u32"),
    ("fly_tri_index", "u32"),
    ("fly_node_list", "u32"),
    ("env_spheres", "Sphere"),
    ("fly_spheres", "Sphere"),
    ("env_obbs", "Obb32"),
    ("fly_obbs", "Obb32"),
    // Self-collision: the three local vertex slots of each triangle position.
    ("env_slots", "u32"),
];

/// Most pages of one array: 8 × the binding limit (1 GiB per array at 128 MiB).
pub const MAX_PAGES: usize = 8;

/// First binding of the extra pages; kernels keep their own bindings below it.
const EXTRA_BASE: u32 = 32;

/// Binding of page `k ≥ 1` of the array at `id` in [`PAGED`] (page 0 keeps the binding the
/// kernel declares).
pub fn extra_binding(id: usize, k: usize) -> u32 {
    debug_assert!((1..MAX_PAGES).contains(&k));
    EXTRA_BASE + (MAX_PAGES * id + k) as u32
}

/// How many pages of how many elements each array has, for the shader generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paging {
    /// Per entry of [`PAGED`]: `(pages, log2 of elements per page)`.
    pub arrays: [(usize, u32); PAGED.len()],
}

impl Default for Paging {
    /// One page each: the accessors are plain indexing.
    fn default() -> Self {
        Paging {
            arrays: [(1, 31); PAGED.len()],
        }
    }
}

impl Paging {
    /// Whether any array has more than one page.
    pub fn is_paged(&self) -> bool {
        self.arrays.iter().any(|&(n, _)| n > 1)
    }
}

/// One static array on the device, in pages.
#[derive(Debug)]
pub struct PagedArray {
    id: usize,
    pub pages: Vec<wgpu::Buffer>,
    /// Elements per page: `1 << shift`.
    pub shift: u32,
    /// Bytes of the whole array.
    pub bytes: u64,
}

impl PagedArray {
    /// Uploads `data` (elements of `elem` bytes) as array `name` of [`PAGED`], in pages of at
    /// most `limit` bytes. [`GpuError::TooLarge`] beyond [`MAX_PAGES`] pages.
    pub fn upload(
        ctx: &GpuContext,
        name: &str,
        data: &[u8],
        elem: u64,
        limit: u64,
    ) -> Result<PagedArray, GpuError> {
        let id = PAGED
            .iter()
            .position(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{name} is not a paged array"));
        let bytes = data.len() as u64;
        let (pages, shift) = page_split(bytes / elem, elem, limit).ok_or(GpuError::TooLarge {
            needed: bytes,
            limit: limit.saturating_mul(MAX_PAGES as u64),
        })?;
        let per_page = (elem << shift) as usize;
        let buffers = (0..pages)
            .map(|k| {
                let part =
                    &data[(k * per_page).min(data.len())..((k + 1) * per_page).min(data.len())];
                ctx.storage(&format!("{name}[{k}]"), part, wgpu::BufferUsages::empty())
            })
            .collect();
        Ok(PagedArray {
            id,
            pages: buffers,
            shift,
            bytes,
        })
    }

    /// Bind-group entries: page 0 at `binding` (the kernel's declaration), the others at
    /// their [`extra_binding`]s.
    pub fn entries(&self, binding: u32) -> impl Iterator<Item = (u32, &wgpu::Buffer)> {
        self.pages.iter().enumerate().map(move |(k, b)| {
            let at = if k == 0 {
                binding
            } else {
                extra_binding(self.id, k)
            };
            (at, b)
        })
    }

    /// This array's entry of [`Paging`].
    pub fn layout(&self) -> (usize, u32) {
        (self.pages.len(), self.shift)
    }

    /// Its index in [`PAGED`].
    pub fn id(&self) -> usize {
        self.id
    }
}

/// Pages and log2(elements per page) for `n` elements of `elem` bytes under a binding limit
/// of `limit` bytes: one page when everything fits, else pages of the largest power of two
/// of elements that fits. `None` beyond [`MAX_PAGES`] pages.
pub fn page_split(n: u64, elem: u64, limit: u64) -> Option<(usize, u32)> {
    if n * elem <= limit {
        return Some((1, 31));
    }
    if elem > limit {
        return None;
    }
    let fit = (limit / elem).max(1);
    let shift = 63 - fit.leading_zeros();
    let pages = n.div_ceil(1 << shift);
    (pages <= MAX_PAGES as u64).then_some((pages as usize, shift))
}

/// Rewrites the declarations of the arrays of [`PAGED`] in `src` for `paging`: each
/// `@group(0) @binding(B) var<storage, read> NAME: array<T>;` line becomes its pages and the
/// accessor `fn NAME_at(i: u32) -> T`. Kernels index these arrays only through accessors.
pub fn rewrite(src: &str, paging: &Paging) -> String {
    let mut out = String::with_capacity(src.len() + 1024);
    for line in src.lines() {
        match paged_declaration(line) {
            Some(id) => {
                let (name, ty) = PAGED[id];
                let (pages, shift) = paging.arrays[id];
                out += line;
                out += "\n";
                for k in 1..pages {
                    out += &format!(
                        "@group(0) @binding({}) var<storage, read> {name}_p{k}: array<{ty}>;\n",
                        extra_binding(id, k)
                    );
                }
                out += &accessor(name, ty, pages, shift);
            }
            None => {
                out += line;
                out += "\n";
            }
        }
    }
    out
}

/// The accessor of a paged array: plain indexing for one page, else a switch on the page.
fn accessor(name: &str, ty: &str, pages: usize, shift: u32) -> String {
    if pages == 1 {
        return format!("fn {name}_at(i: u32) -> {ty} {{\n    return {name}[i];\n}}\n");
    }
    let mask = (1u64 << shift) - 1;
    let mut s = format!(
        "fn {name}_at(i: u32) -> {ty} {{\n    let j = i & {mask}u;\n    switch (i >> {shift}u) {{\n        case 0u: {{ return {name}[j]; }}\n"
    );
    for k in 1..pages - 1 {
        s += &format!("        case {k}u: {{ return {name}_p{k}[j]; }}\n");
    }
    s += &format!(
        "        default: {{ return {name}_p{}[j]; }}\n    }}\n}}\n",
        pages - 1
    );
    s
}

/// The index in [`PAGED`] of a read-only storage declaration of a paged array.
fn paged_declaration(line: &str) -> Option<usize> {
    let rest = line.trim().strip_prefix("@group(0) @binding(")?;
    let (binding, rest) = rest.split_once(')')?;
    binding.parse::<u32>().ok()?;
    let rest = rest.trim().strip_prefix("var<storage, read>")?.trim();
    let (name, ty) = rest.split_once(':')?;
    let id = PAGED.iter().position(|(n, _)| *n == name.trim())?;
    let want = format!("array<{}>;", PAGED[id].1);
    (ty.trim() == want).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_hold_every_element_and_fit_the_limit() {
        for (n, elem, limit) in [
            (10u64, 80u64, 800u64),
            (11, 80, 800),
            (1_742_000, 80, 128 << 20),
            (1000, 4, 512),
            (30, 4, 16),
        ] {
            let (pages, shift) = page_split(n, elem, limit).expect("fits in eight pages");
            if pages == 1 {
                assert!(n * elem <= limit);
                continue;
            }
            let per = 1u64 << shift;
            assert!(per * elem <= limit || per == 1, "page too large");
            assert!(2 * per * elem > limit, "page not the largest power of two");
            assert!(pages as u64 * per >= n && (pages as u64 - 1) * per < n);
        }
        assert_eq!(page_split(9 * 8, 1, 8), None, "nine pages are too many");
        assert_eq!(page_split(8 * 8, 1, 8), Some((8, 3)), "eight pages are not");
        assert_eq!(page_split(2, 80, 16), None, "an element beyond the limit");
    }

    #[test]
    fn rewrite_declares_pages_and_accessors() {
        let src = "@group(0) @binding(0) var<storage, read> env_nodes: array<KdopNode>;\n\
                   @group(0) @binding(3) var<storage, read> front: array<FrontPair>;\n";
        let mut paging = Paging::default();
        paging.arrays[0] = (3, 10);
        let out = rewrite(src, &paging);
        assert!(out.contains("@group(0) @binding(33) var<storage, read> env_nodes_p1"));
        assert!(out.contains("@group(0) @binding(34) var<storage, read> env_nodes_p2"));
        assert!(out.contains("let j = i & 1023u;"));
        assert!(out.contains("default: { return env_nodes_p2[j]; }"));
        assert!(
            !out.contains("front_at"),
            "only listed arrays get accessors"
        );
        let one = rewrite(src, &Paging::default());
        assert!(one.contains("fn env_nodes_at(i: u32) -> KdopNode {\n    return env_nodes[i];"));
    }
}
