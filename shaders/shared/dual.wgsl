// The dual k-DOP–sphere node test (Fang, Jiang and Xu, *Efficient Collision Detection Using
// a Dual k-DOP-Sphere Bounding Volume Hierarchy*, section III): sphere pretest, then the
// k-DOP slabs in order of smallest Minkowski-sum extent. Rust twins, operation for
// operation: Sphere ↔ dual::Sphere, sphere_posed ↔ Sphere::posed_f32, sphere_disjoint ↔
// sphere::disjoint_f32, kdop_symmetrize ↔ slabs::symmetrize_f32, kdop_overlaps_dual ↔
// slabs::minkowski_order + slabs::overlaps_in_order (wrapped under the WGSL names in
// src/gpu/mirror/dual.rs). Every product and sum that feeds a decision is flushed (`ftz`),
// so a device that flushes subnormals or fuses a product into a later sum still gives the
// CPU's bits. INV_NORM comes from the generated preamble.

struct Sphere {
    c: array<f32, 3>,
    r: f32,
}

const SPHERE_GROW: f32 = 1.00000095367431640625; // 1 + 2^-20
const SPHERE_TEST_GROW: f32 = 1.000003814697265625; // 1 + 2^-18

// B's sphere at a pose: the centre moved by the triangle filter's transform, the radius
// widened by twice its error bound (see Sphere::posed_f32 for the proof).
// CPU twin: src/gpu/mirror/dual.rs::sphere_posed
fn sphere_posed(s: Sphere, r: array<f32, 9>, t: array<f32, 3>, t_err: f32) -> Sphere {
    let c = TfV3(s.c[0], s.c[1], s.c[2]);
    let tt = TfV3(t[0], t[1], t[2]);
    let q = transform_f32(r, tt, c);
    let e = transform_error_bound(c, tt, t_err);
    let w = ftz(ftz(s.r * SPHERE_GROW) + ftz(e + e));
    return Sphere(array<f32, 3>(q[0], q[1], q[2]), w);
}

// Whether two closed balls are certainly disjoint (touching balls are not).
// CPU twin: src/gpu/mirror/dual.rs::sphere_disjoint
fn sphere_disjoint(a: Sphere, b: Sphere) -> bool {
    let dx = ftz(a.c[0] - b.c[0]);
    let dy = ftz(a.c[1] - b.c[1]);
    let dz = ftz(a.c[2] - b.c[2]);
    let d2 = ftz(ftz(ftz(dx * dx) + ftz(dy * dy)) + ftz(dz * dz));
    let s = ftz(a.r + b.r);
    let ss = ftz(ftz(s * s) * SPHERE_TEST_GROW);
    return d2 > max(ss, SLAB_ABS_MARGIN) && d2 <= F32_MAX;
}

// A centrally symmetric k-DOP about the centre of k's x, y, z box that contains k.
// CPU twin: src/gpu/mirror/dual.rs::kdop_symmetrize
fn kdop_symmetrize(k: Kdop) -> Kdop {
    var s = k;
    let cx = ftz(ftz(k.min[0] + k.max[0]) * 0.5);
    let cy = ftz(ftz(k.min[1] + k.max[1]) * 0.5);
    let cz = ftz(ftz(k.min[2] + k.max[2]) * 0.5);
    for (var i = 3u; i < H; i = i + 1u) {
        let a = AXES[i];
        let ac = ftz(ftz(ftz(a.x * cx) + ftz(a.y * cy)) + ftz(a.z * cz));
        let r = max(ftz(k.max[i] - ac), ftz(ac - k.min[i]));
        s.min[i] = min(ftz(ac - r), k.min[i]);
        s.max[i] = max(ftz(ac + r), k.max[i]);
    }
    return s;
}

// The k-DOP test of the dual hierarchy: the slabs sorted by the width of the Minkowski sum
// of a and b (stable insertion sort) when `per_pair`, else in table order. Returns
// (1 if they overlap else 0, slabs tested).
// CPU twin: src/gpu/mirror/dual.rs::kdop_overlaps_dual
fn kdop_overlaps_dual(a: Kdop, b: Kdop, per_pair: bool) -> vec2<u32> {
    var order: array<u32, H>;
    var w: array<f32, H>;
    for (var i = 0u; i < H; i = i + 1u) {
        order[i] = i;
        w[i] = ((a.max[i] - a.min[i]) + (b.max[i] - b.min[i])) * INV_NORM[i];
    }
    if (per_pair) {
        for (var i = 1u; i < H; i = i + 1u) {
            let x = order[i];
            var j = i;
            while (j > 0u && w[order[j - 1u]] > w[x]) {
                order[j] = order[j - 1u];
                j = j - 1u;
            }
            order[j] = x;
        }
    }
    for (var n = 0u; n < H; n = n + 1u) {
        let i = order[n];
        if (a.min[i] > b.max[i] || b.min[i] > a.max[i]) {
            return vec2<u32>(0u, n + 1u);
        }
    }
    return vec2<u32>(1u, H);
}
