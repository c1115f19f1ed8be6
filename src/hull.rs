//! Convex hull for hill climbing (temporary brute-force stand-in with the final API).

#[derive(Debug)]
pub struct ConvexHull {
    points: Vec<[f64; 3]>,
    orig: Vec<u32>,
    neighbors: Vec<Vec<u32>>,
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl ConvexHull {
    pub fn new(points: &[[f64; 3]]) -> ConvexHull {
        let n = points.len();
        ConvexHull {
            points: points.to_vec(),
            orig: (0..n as u32).collect(),
            neighbors: (0..n)
                .map(|i| (0..n as u32).filter(|&j| j as usize != i).collect())
                .collect(),
        }
    }
    pub fn vertices(&self) -> &[[f64; 3]] {
        &self.points
    }
    pub fn original_index(&self, v: u32) -> u32 {
        self.orig[v as usize]
    }
    pub fn neighbors(&self, v: u32) -> &[u32] {
        &self.neighbors[v as usize]
    }
    pub fn faces(&self) -> &[[u32; 3]] {
        &[]
    }
    pub fn climb(&self, d: [f64; 3], start: u32) -> (u32, u32) {
        let mut cur = start;
        let mut moves = 0;
        loop {
            let mut best = (dot(d, self.points[cur as usize]), cur);
            for &nb in self.neighbors(cur) {
                let v = dot(d, self.points[nb as usize]);
                if v > best.0 {
                    best = (v, nb);
                }
            }
            if best.1 == cur {
                return (cur, moves);
            }
            cur = best.1;
            moves += 1;
        }
    }
    pub fn extreme(&self, d: [f64; 3]) -> u32 {
        self.climb(d, 0).0
    }
}
