// The OBB tree's node test (src/obb/sat.rs, with the proofs): B's box posed by the pose's f32
// frame (PoseFrame r, t, t_err), then the 15-axis separating axis test of Gottschalk, Lin and
// Manocha with a proved slack. Every product and sum is flushed (`ftz`), so a device that
// fuses a product into a sum or flushes subnormals still gives the CPU's bits. Rust twins:
// Obb32 ↔ obb::Obb32, PosedObb ↔ obb::sat::PosedObb, each function ↔ its namesake in
// src/obb/sat.rs (re-exported in src/gpu/mirror/obb.rs), statement for statement.

struct Obb32 {
    c: array<f32, 3>,
    e: array<f32, 9>,
    h: array<f32, 3>,
    size: f32,
}

struct PosedObb {
    f: array<f32, 9>,
    c: array<f32, 3>,
    h: array<f32, 3>,
    e: f32,
}

// Unit roundoff of f32, 2^-24; the slack's relative factor 2^-14; its floor 2^-100.
const OBB_U: f32 = 1.0 / 16777216.0;
const OBB_SLACK_REL: f32 = 1.0 / 16384.0;
const OBB_FLOOR: f32 = OBB_U * OBB_U * OBB_U * OBB_U / 16.0;

// CPU twin: src/gpu/mirror/obb.rs::obb_mul
fn obb_mul(x: f32, y: f32) -> f32 {
    return ftz(x * y);
}

// CPU twin: src/gpu/mirror/obb.rs::obb_add
fn obb_add(x: f32, y: f32) -> f32 {
    return ftz(x + y);
}

// (x0 y0 + x1 y1) + x2 y2, every operation flushed.
// CPU twin: src/gpu/mirror/obb.rs::obb_dot3
fn obb_dot3(x0: f32, x1: f32, x2: f32, y0: f32, y1: f32, y2: f32) -> f32 {
    return obb_add(obb_add(obb_mul(x0, y0), obb_mul(x1, y1)), obb_mul(x2, y2));
}

// B's box posed by (r, t, t_err): axes r·b_j, centre r·c + t, half extents + t_err, and the
// centre's error bound e.
// CPU twin: src/gpu/mirror/obb.rs::obb_posed
fn obb_posed(b: Obb32, r: array<f32, 9>, t: array<f32, 3>, t_err: f32) -> PosedObb {
    var f: array<f32, 9>;
    for (var j = 0u; j < 3u; j = j + 1u) {
        for (var k = 0u; k < 3u; k = k + 1u) {
            f[3u * j + k] = obb_dot3(
                r[3u * k],
                r[3u * k + 1u],
                r[3u * k + 2u],
                b.e[3u * j],
                b.e[3u * j + 1u],
                b.e[3u * j + 2u],
            );
        }
    }
    var c: array<f32, 3>;
    for (var k = 0u; k < 3u; k = k + 1u) {
        c[k] = obb_add(obb_dot3(r[3u * k], r[3u * k + 1u], r[3u * k + 2u], b.c[0], b.c[1], b.c[2]), t[k]);
    }
    let sigma = obb_add(
        obb_add(obb_add(abs(b.c[0]), abs(b.c[1])), abs(b.c[2])),
        max(max(abs(t[0]), abs(t[1])), abs(t[2])),
    );
    let e = obb_add(obb_add(obb_mul(8.0 * OBB_U, sigma), OBB_FLOOR), t_err);
    let h = array<f32, 3>(obb_add(b.h[0], t_err), obb_add(b.h[1], t_err), obb_add(b.h[2], t_err));
    return PosedObb(f, c, h, e);
}

// Whether A's box and B's posed box are certainly disjoint (never for touching boxes).
// CPU twin: src/gpu/mirror/obb.rs::obb_disjoint
fn obb_disjoint(a: Obb32, b: PosedObb) -> bool {
    let ae = a.e;
    let bf = b.f;
    let d = array<f32, 3>(obb_add(b.c[0], -a.c[0]), obb_add(b.c[1], -a.c[1]), obb_add(b.c[2], -a.c[2]));
    var t: array<f32, 3>;
    var cm: array<f32, 9>;
    var ac: array<f32, 9>;
    for (var i = 0u; i < 3u; i = i + 1u) {
        t[i] = obb_dot3(ae[3u * i], ae[3u * i + 1u], ae[3u * i + 2u], d[0], d[1], d[2]);
        for (var j = 0u; j < 3u; j = j + 1u) {
            let c = obb_dot3(
                ae[3u * i],
                ae[3u * i + 1u],
                ae[3u * i + 2u],
                bf[3u * j],
                bf[3u * j + 1u],
                bf[3u * j + 2u],
            );
            cm[3u * i + j] = c;
            ac[3u * i + j] = abs(c);
        }
    }
    let dn = max(max(abs(d[0]), abs(d[1])), abs(d[2]));
    let sa = obb_add(obb_add(a.h[0], a.h[1]), a.h[2]);
    let sb = obb_add(obb_add(b.h[0], b.h[1]), b.h[2]);
    let k = obb_add(
        obb_add(obb_add(obb_mul(8.0, b.e), obb_mul(OBB_SLACK_REL, sb)), obb_mul(OBB_SLACK_REL, sa)),
        OBB_FLOOR,
    );
    let slack = obb_add(k, obb_mul(4.0 * OBB_SLACK_REL, dn));
    let ha = a.h;
    let hb = b.h;
    // A's axes.
    for (var i = 0u; i < 3u; i = i + 1u) {
        let rad = obb_add(ha[i], obb_dot3(hb[0], hb[1], hb[2], ac[3u * i], ac[3u * i + 1u], ac[3u * i + 2u]));
        if (abs(t[i]) > obb_add(rad, slack)) {
            return true;
        }
    }
    // B's axes.
    for (var j = 0u; j < 3u; j = j + 1u) {
        let proj = obb_dot3(t[0], t[1], t[2], cm[j], cm[3u + j], cm[6u + j]);
        let rad = obb_add(obb_dot3(ha[0], ha[1], ha[2], ac[j], ac[3u + j], ac[6u + j]), hb[j]);
        if (abs(proj) > obb_add(rad, slack)) {
            return true;
        }
    }
    // The nine cross products a_i × f_j.
    for (var i = 0u; i < 3u; i = i + 1u) {
        let i1 = (i + 1u) % 3u;
        let i2 = (i + 2u) % 3u;
        for (var j = 0u; j < 3u; j = j + 1u) {
            let j1 = (j + 1u) % 3u;
            let j2 = (j + 2u) % 3u;
            let proj = obb_add(obb_mul(t[i2], cm[3u * i1 + j]), -obb_mul(t[i1], cm[3u * i2 + j]));
            let rad = obb_add(
                obb_add(obb_mul(ha[i1], ac[3u * i2 + j]), obb_mul(ha[i2], ac[3u * i1 + j])),
                obb_add(obb_mul(hb[j1], ac[3u * i + j2]), obb_mul(hb[j2], ac[3u * i + j1])),
            );
            if (abs(proj) > obb_add(rad, slack)) {
                return true;
            }
        }
    }
    return false;
}
