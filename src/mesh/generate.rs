//! Deterministic generated meshes for tests and benchmarks. Closed generators (sphere, torus,
//! box, tetrahedron) are consistently oriented with outward normals (counter-clockwise seen
//! from outside). Random ones take a seed and use [`Rng`], so every case is reproducible.
//! Positions are computed in f64 and kept in f64 (no rounding to f32).

use super::Mesh;
use crate::rng::Rng;
use std::f64::consts::{PI, TAU};

fn at(center: [f64; 3], offset: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|k| center[k] + offset[k])
}

/// UV sphere: two poles and `stacks − 1` rings of `slices` vertices; `2·slices·(stacks−1)`
/// triangles (`stacks ≥ 2`, `slices ≥ 3` are enforced by clamping).
pub fn uv_sphere(center: [f64; 3], radius: f64, stacks: u32, slices: u32) -> Mesh {
    let (stacks, slices) = (stacks.max(2), slices.max(3));
    let r = radius;
    let mut positions = vec![at(center, [0.0, 0.0, r])];
    for k in 1..stacks {
        let theta = PI * f64::from(k) / f64::from(stacks);
        for j in 0..slices {
            let phi = TAU * f64::from(j) / f64::from(slices);
            let (s, c) = (theta.sin(), theta.cos());
            positions.push(at(center, [r * s * phi.cos(), r * s * phi.sin(), r * c]));
        }
    }
    let south = positions.len() as u32;
    positions.push(at(center, [0.0, 0.0, -r]));

    let ring = |k: u32, j: u32| 1 + (k - 1) * slices + j % slices;
    let mut triangles = Vec::with_capacity(2 * (slices * (stacks - 1)) as usize);
    for j in 0..slices {
        triangles.push([0, ring(1, j), ring(1, j + 1)]);
    }
    for k in 1..stacks - 1 {
        for j in 0..slices {
            let (a, b, c, d) = (
                ring(k, j),
                ring(k + 1, j),
                ring(k + 1, j + 1),
                ring(k, j + 1),
            );
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    for j in 0..slices {
        triangles.push([south, ring(stacks - 1, j + 1), ring(stacks - 1, j)]);
    }
    Mesh {
        positions,
        triangles,
    }
}

/// UV sphere with about `approx_tris` triangles (`slices ≈ 2·stacks`, so cells are
/// square-ish), at least the 6 of `uv_sphere(…, 2, 3)`.
pub fn sphere_with_triangles(center: [f64; 3], radius: f64, approx_tris: usize) -> Mesh {
    // 2·slices·(stacks − 1) = approx with slices ≈ 2·stacks; slices then absorbs the rounding.
    let t = approx_tris as f64;
    let stacks = ((t / 4.0).sqrt() + 0.5).round().max(2.0);
    let slices = (t / (2.0 * (stacks - 1.0))).round().max(3.0);
    uv_sphere(center, radius, stacks as u32, slices as u32)
}

/// Torus around the z axis: `n_major × n_minor` vertices, `2·n_major·n_minor` triangles
/// (each count clamped to ≥ 3).
pub fn torus(center: [f64; 3], major_r: f64, minor_r: f64, n_major: u32, n_minor: u32) -> Mesh {
    let (nu, nv) = (n_major.max(3), n_minor.max(3));
    let (big, small) = (major_r, minor_r);
    let mut positions = Vec::with_capacity((nu * nv) as usize);
    for i in 0..nu {
        let u = TAU * f64::from(i) / f64::from(nu);
        for j in 0..nv {
            let v = TAU * f64::from(j) / f64::from(nv);
            let w = big + small * v.cos();
            positions.push(at(center, [w * u.cos(), w * u.sin(), small * v.sin()]));
        }
    }
    let id = |i: u32, j: u32| (i % nu) * nv + j % nv;
    let mut triangles = Vec::with_capacity(2 * (nu * nv) as usize);
    for i in 0..nu {
        for j in 0..nv {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    Mesh {
        positions,
        triangles,
    }
}

/// Flat square grid in the plane `z`, lower-left corner at the origin, `nx × ny` cells of
/// side `cell`, two triangles per cell (`2·nx·ny`), normals +z, cells row by row.
pub fn grid(nx: u32, ny: u32, cell: f64, z: f64) -> Mesh {
    let mut positions = Vec::with_capacity(((nx + 1) * (ny + 1)) as usize);
    for j in 0..=ny {
        for i in 0..=nx {
            positions.push([f64::from(i) * cell, f64::from(j) * cell, z]);
        }
    }
    let id = |i: u32, j: u32| j * (nx + 1) + i;
    let mut triangles = Vec::with_capacity(2 * (nx * ny) as usize);
    for j in 0..ny {
        for i in 0..nx {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    Mesh {
        positions,
        triangles,
    }
}

/// A strip that passes through itself (self-collision tests): `nx × ny` cells, two
/// triangles each (`2·nx·ny`, welded), swept along y over `[0, width]` by the nodal cubic
/// `(x, z) = (t² − 1, t·(t² − 1))`, `t ∈ [−1.5, 1.5]`, which crosses itself at `t = ±1`: the
/// sheet's two ends cut through each other along the y axis.
pub fn folded_sheet(nx: u32, ny: u32, width: f64) -> Mesh {
    let (nx, ny) = (nx.max(2), ny.max(1));
    let mut positions = Vec::with_capacity(((nx + 1) * (ny + 1)) as usize);
    for j in 0..=ny {
        let y = width * f64::from(j) / f64::from(ny);
        for i in 0..=nx {
            let t = -1.5 + 3.0 * f64::from(i) / f64::from(nx);
            positions.push([t * t - 1.0, y, t * (t * t - 1.0)]);
        }
    }
    let id = |i: u32, j: u32| j * (nx + 1) + i;
    let mut triangles = Vec::with_capacity(2 * (nx * ny) as usize);
    for j in 0..ny {
        for i in 0..nx {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    Mesh {
        positions,
        triangles,
    }
}

/// Axis-aligned box: 8 corners (corner `x + 2y + 4z` for bits x, y, z), 12 triangles.
pub fn box_mesh(min: [f64; 3], max: [f64; 3]) -> Mesh {
    let positions = (0..8)
        .map(|c| std::array::from_fn(|k| if c >> k & 1 == 0 { min[k] } else { max[k] }))
        .collect();
    let triangles = vec![
        // −z
        [0, 2, 3],
        [0, 3, 1],
        // +z
        [4, 5, 7],
        [4, 7, 6],
        // −y
        [0, 1, 5],
        [0, 5, 4],
        // +y
        [2, 6, 7],
        [2, 7, 3],
        // −x
        [0, 4, 6],
        [0, 6, 2],
        // +x
        [1, 3, 7],
        [1, 7, 5],
    ];
    Mesh {
        positions,
        triangles,
    }
}

/// Regular tetrahedron whose four vertices lie at distance `size` from `center`.
pub fn tetrahedron(center: [f64; 3], size: f64) -> Mesh {
    let s = size / 3f64.sqrt();
    let corners = [[1., 1., 1.], [1., -1., -1.], [-1., 1., -1.], [-1., -1., 1.]];
    Mesh {
        positions: corners
            .iter()
            .map(|c: &[f64; 3]| at(center, c.map(|x| x * s)))
            .collect(),
        triangles: vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
    }
}

/// `n_tris` independent triangles (3 own vertices each) in the cube `[0, extent]³`, every
/// edge at most `max_edge` long.
pub fn random_soup(seed: u64, n_tris: usize, extent: f64, max_edge: f64) -> Mesh {
    let mut rng = Rng::new(seed);
    let e = extent;
    // Each corner lies within max_edge/2 of an anchor (a cube of half-diagonal max_edge/2),
    // so every edge is ≤ max_edge; clamping to the cube cannot lengthen an edge.
    let h = max_edge / (2.0 * 3f64.sqrt());
    let mut positions = Vec::with_capacity(3 * n_tris);
    for _ in 0..n_tris {
        let anchor: [f64; 3] = std::array::from_fn(|_| rng.range(0.0, e));
        for _ in 0..3 {
            positions.push(std::array::from_fn(|k| {
                (anchor[k] + rng.range(-h, h)).clamp(0.0, e)
            }));
        }
    }
    Mesh {
        positions,
        triangles: soup_triangles(n_tris),
    }
}

fn soup_triangles(n: usize) -> Vec<[u32; 3]> {
    (0..n as u32)
        .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
        .collect()
}

/// `n_tris` triangles in `[0, extent]³` cycling through five kinds: exactly collinear
/// (zero area), point (3 equal positions), repeated index (`[k, k, m]` and rotations),
/// sliver (third corner 1e-5·extent off an edge's midpoint) and ordinary.
pub fn degenerate_soup(seed: u64, n_tris: usize, extent: f64) -> Mesh {
    let mut rng = Rng::new(seed);
    let e = extent;
    // Collinear triangles sit on a lattice of power-of-two spacing, so that `a`, `a + d`,
    // `a + 2d` are exact and their area is exactly zero, not just nearly.
    let step = if e > 0.0 && e.is_finite() {
        2f64.powi((e / 256.0).log2().floor() as i32)
    } else {
        1.0 / 256.0
    };
    let mut positions: Vec<[f64; 3]> = Vec::with_capacity(3 * n_tris);
    let mut triangles = Vec::with_capacity(n_tris);
    let point = |rng: &mut Rng| -> [f64; 3] { std::array::from_fn(|_| rng.range(0.0, e)) };
    for i in 0..n_tris {
        let b = positions.len() as u32;
        match i % 5 {
            0 => {
                let a: [i64; 3] = std::array::from_fn(|_| 16 + rng.below(224) as i64);
                let d: [i64; 3] = loop {
                    let d = std::array::from_fn(|_| rng.below(17) as i64 - 8);
                    if d != [0, 0, 0] {
                        break d;
                    }
                };
                // Middle point first or last, so the zero-area corner order varies.
                let ks = if rng.below(2) == 0 {
                    [0, 1, 2]
                } else {
                    [1, -1, 0]
                };
                for k in ks {
                    positions.push(std::array::from_fn(|c| (a[c] + k * d[c]) as f64 * step));
                }
                triangles.push([b, b + 1, b + 2]);
            }
            1 => {
                let p = point(&mut rng);
                positions.extend([p, p, p]);
                triangles.push([b, b + 1, b + 2]);
            }
            2 => {
                positions.push(point(&mut rng));
                positions.push(point(&mut rng));
                triangles.push(match rng.below(3) {
                    0 => [b, b, b + 1],
                    1 => [b, b + 1, b],
                    _ => [b + 1, b, b],
                });
            }
            3 => {
                let (p, q) = (point(&mut rng), point(&mut rng));
                let off = 1e-5 * e;
                let m: [f64; 3] = std::array::from_fn(|k| {
                    ((p[k] + q[k]) / 2.0 + rng.range(-off, off)).clamp(0.0, e)
                });
                positions.extend([p, q, m]);
                triangles.push([b, b + 1, b + 2]);
            }
            _ => {
                let [p, q, r] = [(); 3].map(|_| point(&mut rng));
                positions.extend([p, q, r]);
                triangles.push([b, b + 1, b + 2]);
            }
        }
    }
    Mesh {
        positions,
        triangles,
    }
}

/// `n` independent triangles on the half-integer grid: each picks a base point in
/// `{0, …, span − 1}³`, and each corner is the base moved by −1, 0 or +1 per coordinate,
/// all times ½. Small spans make coplanar, touching, shared-edge and degenerate contacts
/// common, and every coordinate is exact, so contacts stay exact under half-turns and
/// half-integer shifts. Draws from `rng` (the test threads one generator through a case).
pub fn grid_soup(rng: &mut Rng, n: usize, span: u64) -> Mesh {
    let mut positions = Vec::with_capacity(3 * n);
    for _ in 0..n {
        let base = [0; 3].map(|_| rng.below(span) as i64);
        for _ in 0..3 {
            positions.push([0, 1, 2].map(|k| (base[k] + rng.below(3) as i64 - 1) as f64 * 0.5));
        }
    }
    Mesh {
        positions,
        triangles: soup_triangles(n),
    }
}

/// [`grid_soup`] with shared corners too: then every third triangle from the second takes
/// a uniformly drawn vertex of the soup (any index) as its first corner.
pub fn grid_soup_shared(rng: &mut Rng, n: usize, span: u64) -> Mesh {
    let mut m = grid_soup(rng, n, span);
    let nv = m.positions.len() as u64;
    for t in m.triangles.iter_mut().skip(1).step_by(3) {
        t[0] = rng.below(nv) as u32;
    }
    m
}

/// `n` independent triangles around centres uniform in `[0, 1)³`, each corner its centre
/// plus a uniform offset in `[−0.3, 0.3)` per coordinate (not clamped, unlike
/// [`random_soup`]). Draws from `rng`.
pub fn cube_soup(rng: &mut Rng, n: usize) -> Mesh {
    let mut positions = Vec::with_capacity(3 * n);
    for _ in 0..n {
        let c = [rng.f64(), rng.f64(), rng.f64()];
        for _ in 0..3 {
            positions.push([0, 1, 2].map(|k| c[k] + rng.range(-0.3, 0.3)));
        }
    }
    Mesh {
        positions,
        triangles: soup_triangles(n),
    }
}

/// All meshes in one, in order: positions concatenated, indices offset accordingly.
pub fn merge(meshes: &[Mesh]) -> Mesh {
    let mut out = Mesh::default();
    for m in meshes {
        let base = out.positions.len() as u32;
        out.positions.extend_from_slice(&m.positions);
        out.triangles
            .extend(m.triangles.iter().map(|t| t.map(|v| v + base)));
    }
    out
}

/// The grid scene of Figueiredo's R-tree paper (*An R-Tree Collision Detection Algorithm
/// for Polygonal Models*, 2009, section 4, Figure 5): "a synthetic model of a grid with
/// 46 080 triangles". The text gives only the triangle count and the word grid (the figure is
/// not in the text), so this is our reading: a flat square-celled grid of 160 × 144 cells
/// (2 triangles each = 46 080) in the plane z = 0, 1.0 wide in x (the benchmark's unit of
/// distance is the object's size).
pub fn figueiredo_grid() -> Mesh {
    grid(160, 144, 1.0 / 160.0, 0.0)
}

// Deforming meshes: each generator gives the mesh at time `t` (usually 0 ≤ t ≤ 1) with the
// same vertex count and triangles for every `t`, so `f(0)` is the base mesh and `f(t)`
// its frames (`crate::deform`).

/// A square sheet of `n × n` cells (`2n²` triangles) of side `size`, centred at `center`,
/// folding onto itself: the half `x > 0` turns about the line `x = 0` (parallel to y) by
/// the angle `t·π`, so at `t = 1` it lies on the other half.
pub fn folding_sheet(center: [f64; 3], n: u32, size: f64, t: f64) -> Mesh {
    let cell = size / f64::from(n.max(1));
    let h = size / 2.0;
    let a = t * std::f64::consts::PI;
    grid(n.max(1), n.max(1), cell, 0.0).map_positions(|p| {
        let (x, y) = (p[0] - h, p[1] - h);
        let (x, z) = if x > 0.0 {
            (x * a.cos(), x * a.sin())
        } else {
            (x, 0.0)
        };
        at(center, [x, y, z])
    })
}

/// A cloth-like square sheet of `n × n` cells (`2n²` triangles) of side `size`, centred
/// above `center`, draping over a ball of radius `radius` there as `t` goes from 0 to 1: it
/// sinks, its border droops, and travelling waves ripple it.
pub fn draping_sheet(center: [f64; 3], radius: f64, n: u32, size: f64, t: f64) -> Mesh {
    let cell = size / f64::from(n.max(1));
    let h = size / 2.0;
    grid(n.max(1), n.max(1), cell, 0.0).map_positions(|p| {
        let (x, y) = (p[0] - h, p[1] - h);
        let r2 = (x * x + y * y) / (h * h);
        let z = radius * (1.3 - 0.5 * t) - radius * 0.9 * t * r2
            + 0.04 * radius * ((6.0 * x / h + 9.0 * t).sin() + (5.0 * y / h - 7.0 * t).cos());
        at(center, [x, y, z])
    })
}

/// A square tube (bar) along x of length `length` and half-width `w`, `n` segments long
/// (`16n` triangles: four sides of two triangles per segment and side, each side split in
/// two), centred at `center`, twisted about its axis by `turns` full turns from end to end.
pub fn twisted_bar(center: [f64; 3], length: f64, w: f64, n: u32, turns: f64) -> Mesh {
    let n = n.max(1);
    // Eight points around a square cross-section (corners and side midpoints).
    let ring = [
        [-w, -w],
        [0.0, -w],
        [w, -w],
        [w, 0.0],
        [w, w],
        [0.0, w],
        [-w, w],
        [-w, 0.0],
    ];
    let mut positions = Vec::new();
    for i in 0..=n {
        let s = f64::from(i) / f64::from(n);
        let x = (s - 0.5) * length;
        let a = turns * TAU * (s - 0.5);
        for [y, z] in ring {
            positions.push(at(
                center,
                [x, y * a.cos() - z * a.sin(), y * a.sin() + z * a.cos()],
            ));
        }
    }
    let id = |i: u32, j: u32| i * 8 + j % 8;
    let mut triangles = Vec::new();
    for i in 0..n {
        for j in 0..8 {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    Mesh {
        positions,
        triangles,
    }
}

/// A torus breathing in and out: [`torus`] with the minor radius `minor_r·(1 + ½·sin 2πt)`.
pub fn breathing_torus(
    center: [f64; 3],
    major_r: f64,
    minor_r: f64,
    n_major: u32,
    n_minor: u32,
    t: f64,
) -> Mesh {
    torus(
        center,
        major_r,
        minor_r * (1.0 + 0.5 * (TAU * t).sin()),
        n_major,
        n_minor,
    )
}

/// A smooth deformation field for tests and benchmarks: `p` moved by a sum of sines of
/// amplitude `amp` (relative to the scale `scale` of the mesh) at time `t`.
pub fn smooth_field(p: [f64; 3], scale: f64, amp: f64, t: f64) -> [f64; 3] {
    let k = TAU / scale;
    let a = amp * scale;
    [
        p[0] + a * (k * p[1] + 3.0 * t).sin(),
        p[1] + a * (k * p[2] + 2.0 * t).sin(),
        p[2] + a * (k * p[0] + 5.0 * t).sin(),
    ]
}

#[cfg(test)]
mod tests;
