//! Triangle meshes: the in-memory form, loading (OBJ, STL, PLY, optionally gzipped) and
//! generated test meshes. Positions are kept exactly as read (f64: every decimal a file
//! writes is rounded once, to the nearest f64, as `str::parse` does; binary f32 and integer
//! values convert exactly), with no welding and no removal of degenerate triangles; triangle `i` is the i-th triangle of the file after fan
//! triangulation (`docs/FORMATS.md`).

pub mod frames;
pub mod generate;
pub mod load;

pub use load::load;

/// Largest coordinate magnitude accepted, `2^100`: posed coordinates stay below `2^102`,
/// so the orientation predicates' degree-3 products of differences stay far below f64's
/// overflow threshold, the condition under which they are exact.
pub const MAX_COORDINATE: f64 = (1u128 << 100) as f64;
/// Smallest nonzero coordinate magnitude accepted, `2^-200`: every coordinate (as written,
/// and as posed, see [`crate::Pose::new`]) is then a multiple of `2^-312`, so every product
/// the predicates form is a multiple of `2^-936`, above f64's underflow threshold `2^-1074`.
pub const MIN_COORDINATE: f64 = 1.0 / MAX_COORDINATE / MAX_COORDINATE;

/// Whether a coordinate is in the range the exact predicates support (zero included).
#[inline]
pub fn in_supported_range(x: f64) -> bool {
    x == 0.0 || (MIN_COORDINATE..=MAX_COORDINATE).contains(&x.abs())
}

/// Checks one vertex as read: every coordinate finite ([`crate::MeshError::NonFinite`])
/// and in the supported range ([`crate::MeshError::OutOfRange`]), located for the message.
pub(crate) fn check_vertex(
    p: &[f64; 3],
    path: &std::path::Path,
    location: crate::error::Location,
) -> Result<(), crate::error::MeshError> {
    if !p.iter().all(|c| c.is_finite()) {
        return Err(crate::error::MeshError::NonFinite {
            path: path.to_path_buf(),
            location,
        });
    }
    match p.iter().find(|&&c| !in_supported_range(c)) {
        Some(&value) => Err(crate::error::MeshError::OutOfRange {
            path: path.to_path_buf(),
            location,
            value,
        }),
        None => Ok(()),
    }
}

/// A triangle mesh: vertex positions and triangles as vertex index triples.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions, exactly as read (file order).
    pub positions: Vec<[f64; 3]>,
    /// Triangles as 0-based indices into `positions`; triangle `i` is the file's i-th
    /// after fan triangulation.
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// Builds a mesh and checks the invariants every later stage relies on.
    /// Errors name "(generated)" as the file; loaders produce their own located errors.
    pub fn new(
        positions: Vec<[f64; 3]>,
        triangles: Vec<[u32; 3]>,
    ) -> Result<Self, crate::error::MeshError> {
        let mesh = Mesh {
            positions,
            triangles,
        };
        mesh.validate(std::path::Path::new("(generated)"))?;
        Ok(mesh)
    }

    /// Checks: at least one triangle, every index in range, every coordinate finite and in
    /// the supported range ([`in_supported_range`]).
    pub fn validate(&self, path: &std::path::Path) -> Result<(), crate::error::MeshError> {
        use crate::error::Location;
        if self.triangles.is_empty() {
            return Err(crate::error::MeshError::Empty {
                path: path.to_path_buf(),
            });
        }
        for (i, p) in self.positions.iter().enumerate() {
            check_vertex(p, path, Location::Vertex(i))?;
        }
        let n = self.positions.len();
        for (i, t) in self.triangles.iter().enumerate() {
            if let Some(&bad) = t.iter().find(|&&v| v as usize >= n) {
                return Err(crate::error::MeshError::MissingVertex {
                    path: path.to_path_buf(),
                    location: Location::Face(i),
                    index: bad as i64,
                    count: n,
                });
            }
        }
        Ok(())
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// The three corners of triangle `i`, as written (f64).
    #[inline]
    pub fn triangle(&self, i: usize) -> [[f64; 3]; 3] {
        let t = self.triangles[i];
        [
            self.positions[t[0] as usize],
            self.positions[t[1] as usize],
            self.positions[t[2] as usize],
        ]
    }

    /// Axis-aligned bounds `(min, max)` of all vertices that triangles use.
    pub fn bounds(&self) -> ([f64; 3], [f64; 3]) {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
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
    pub fn map_positions(&self, f: impl Fn([f64; 3]) -> [f64; 3]) -> Mesh {
        Mesh {
            positions: self.positions.iter().map(|&p| f(p)).collect(),
            triangles: self.triangles.clone(),
        }
    }
}
