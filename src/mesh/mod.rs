//! Triangle meshes: the in-memory form, loading (OBJ, STL, PLY, optionally gzipped) and
//! generated test meshes. Positions are kept exactly as read (f32, no welding, no removal of
//! degenerate triangles); triangle `i` is the i-th triangle of the file after fan
//! triangulation (`../shared/FORMATS.md`).

pub mod generate;
pub mod load;

pub use load::load;

/// A triangle mesh: vertex positions and triangles as vertex index triples.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    pub positions: Vec<[f32; 3]>,
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// Builds a mesh and checks the invariants every later stage relies on.
    /// Errors name "(generated)" as the file; loaders produce their own located errors.
    pub fn new(
        positions: Vec<[f32; 3]>,
        triangles: Vec<[u32; 3]>,
    ) -> Result<Self, crate::MeshError> {
        let mesh = Mesh {
            positions,
            triangles,
        };
        mesh.validate(std::path::Path::new("(generated)"))?;
        Ok(mesh)
    }

    /// Checks: at least one triangle, every index in range, every coordinate finite.
    pub fn validate(&self, path: &std::path::Path) -> Result<(), crate::MeshError> {
        use crate::error::Location;
        if self.triangles.is_empty() {
            return Err(crate::MeshError::Empty {
                path: path.to_path_buf(),
            });
        }
        for (i, p) in self.positions.iter().enumerate() {
            if !p.iter().all(|c| c.is_finite()) {
                return Err(crate::MeshError::NonFinite {
                    path: path.to_path_buf(),
                    location: Location::Vertex(i),
                });
            }
        }
        let n = self.positions.len();
        for (i, t) in self.triangles.iter().enumerate() {
            if let Some(&bad) = t.iter().find(|&&v| v as usize >= n) {
                return Err(crate::MeshError::MissingVertex {
                    path: path.to_path_buf(),
                    location: Location::Face(i),
                    index: bad as i64,
                    count: n,
                });
            }
        }
        Ok(())
    }

    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// The three corners of triangle `i`.
    #[inline]
    pub fn triangle(&self, i: usize) -> [[f32; 3]; 3] {
        let t = self.triangles[i];
        [
            self.positions[t[0] as usize],
            self.positions[t[1] as usize],
            self.positions[t[2] as usize],
        ]
    }

    /// The three corners of triangle `i`, widened exactly to f64.
    #[inline]
    pub fn triangle_f64(&self, i: usize) -> [[f64; 3]; 3] {
        self.triangle(i).map(|p| p.map(f64::from))
    }

    /// Axis-aligned bounds `(min, max)` of all vertices that triangles use.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for t in &self.triangles {
            for &v in t {
                let p = self.positions[v as usize];
                for k in 0..3 {
                    lo[k] = lo[k].min(p[k]);
                    hi[k] = hi[k].max(p[k]);
                }
            }
        }
        (lo, hi)
    }

    /// Returns a copy with every vertex mapped by `f` (used by generators and tests).
    pub fn map_positions(&self, f: impl Fn([f32; 3]) -> [f32; 3]) -> Mesh {
        Mesh {
            positions: self.positions.iter().map(|&p| f(p)).collect(),
            triangles: self.triangles.clone(),
        }
    }
}
