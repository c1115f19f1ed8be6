// Stand-in until the certified f32 filter lands: every pair is UNSURE, so the host decides
// it with the exact test (slow but exact).
const MISS: u32 = 0u;
const HIT: u32 = 1u;
const UNSURE: u32 = 2u;

fn transform_f32(r: array<f32, 9>, t: vec3<f32>, p: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(
        (r[0] * p.x + r[1] * p.y) + r[2] * p.z + t.x,
        (r[3] * p.x + r[4] * p.y) + r[5] * p.z + t.y,
        (r[6] * p.x + r[7] * p.y) + r[8] * p.z + t.z,
    );
}

fn transform_error_bound(p: vec3<f32>, t: vec3<f32>) -> f32 {
    return 0.0;
}

fn tri_tri_filter(a0: vec3<f32>, a1: vec3<f32>, a2: vec3<f32>, q0: vec3<f32>, q1: vec3<f32>, q2: vec3<f32>, eps_q: f32) -> u32 {
    return UNSURE;
}
