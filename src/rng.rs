//! A tiny deterministic random generator (SplitMix64) for generated meshes, poses and tests,
//! so that every generated case is reproducible from its seed without another dependency.

#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f64()
    }

    /// Uniform integer in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A uniformly distributed unit quaternion `(w, x, y, z)` (Shoemake's method).
    pub fn unit_quaternion(&mut self) -> [f64; 4] {
        let (u1, u2, u3) = (self.f64(), self.f64(), self.f64());
        let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
        let (t2, t3) = (std::f64::consts::TAU * u2, std::f64::consts::TAU * u3);
        [b * t3.cos(), a * t2.sin(), a * t2.cos(), b * t3.sin()]
    }
}
