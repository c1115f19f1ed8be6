//! The build options of `Collider(...)` and `Collider.from_files(...)`: the keyword
//! arguments of the command line's `query` (`--bv`, `--leaf-size`, …, same names with `_`),
//! option enums parsed from their command-line names.

use crate::args::IntArg;
use crate::errors;
use meshcollide::dual::SlabOrder;
use meshcollide::error::escape_controls;
use meshcollide::rtree::RtreeCollide;
use meshcollide::saved::{KdopHierarchy, LoadedInput, load_mesh_or_saved};
use meshcollide::{
    BoxTest, BoxtreeOptions, BuildOptions, BvKind, Collider, Descent, DualOptions, KdopOptions,
    Mesh, QueryOptions, RtreeOptions, SplitPoint, SplitRule, TumbleMethod,
};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::Path;

/// `coherence=`: on, off, or on for a motion path ([`meshcollide::pose::coherent_path`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coherence {
    Auto,
    On,
    Off,
}

impl Coherence {
    /// From `True`/`False` or `"auto"`/`"on"`/`"off"`.
    fn from_py(v: &Bound<'_, PyAny>) -> PyResult<Coherence> {
        if let Ok(b) = v.extract::<bool>() {
            return Ok(if b { Coherence::On } else { Coherence::Off });
        }
        match v.extract::<String>()?.as_str() {
            "auto" => Ok(Coherence::Auto),
            "on" => Ok(Coherence::On),
            "off" => Ok(Coherence::Off),
            s => Err(errors::input(format!(
                "unknown coherence `{s}` (expected True, False, \"auto\", \"on\" or \"off\")"
            ))),
        }
    }

    /// Whether a query of `poses` runs coherently (`b`: B's bounds; `gpu`: the backend).
    pub fn resolve(
        self,
        poses: &[meshcollide::Pose],
        b: ([f64; 3], [f64; 3]),
        gpu: bool,
        mode: meshcollide::Mode,
    ) -> bool {
        mode == meshcollide::Mode::All
            && match self {
                Coherence::On => true,
                Coherence::Off => false,
                Coherence::Auto => !gpu && meshcollide::pose::coherent_path(poses, b.0, b.1),
            }
    }
}

/// Every keyword argument, with the command line's defaults.
#[derive(Debug, Clone)]
pub struct Options {
    pub bv: BvKind,
    pub box_test: BoxTest,
    pub dual_symmetric: bool,
    pub dual_order: SlabOrder,
    pub split: SplitRule,
    pub split_point: SplitPoint,
    pub leaf_size: u32,
    pub leaf_size_b: Option<u32>,
    pub tumble: TumbleMethod,
    pub descent: Option<Descent>,
    /// `coherence`: start each pose at the previous pose's front (every tree on the CPU,
    /// the k-DOPs on the GPU, where `auto` is then kdop18): `True`/`"on"`, `False`/`"off"`,
    /// or `"auto"` (the default, as `meshcollide query`): on for a query whose poses are a
    /// motion path, on the CPU in all-contacts mode.
    pub coherence: Coherence,
    pub gpu_memory: Option<u64>,
    pub rtree_collide: RtreeCollide,
    pub rtree_min: u32,
    pub rtree_max: u32,
    pub chunk_poses: Option<usize>,
    /// `threads`: the collider's own pool of this many threads ([`crate::pool`]), or the
    /// global pool.
    pub threads: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            bv: BvKind::Auto,
            box_test: BoxTest::SatLite,
            dual_symmetric: false,
            dual_order: SlabOrder::PerPair,
            split: SplitRule::Splatter,
            split_point: SplitPoint::Mean,
            leaf_size: 1,
            leaf_size_b: None,
            tumble: TumbleMethod::Approximate,
            descent: None,
            coherence: Coherence::Auto,
            gpu_memory: None,
            rtree_collide: RtreeCollide::V2,
            rtree_min: 4,
            rtree_max: 8,
            chunk_poses: None,
            threads: None,
        }
    }
}

/// An option enum from its command-line name; an unknown name is an `InputError` listing
/// the valid ones.
pub fn name<T: std::str::FromStr<Err = meshcollide::option_names::UnknownName>>(
    v: &Bound<'_, PyAny>,
) -> PyResult<T> {
    let s: String = v.extract()?;
    s.parse::<T>().map_err(|e| errors::input(e.to_string()))
}

/// The most poses `chunk_poses` holds at once: each chunk's poses and results are held in
/// memory together (the library allocates the chunk up front, so a huge value would abort
/// the process when the allocation fails), and 2^20 is 64 times the GPU's default batch.
pub const MAX_CHUNK_POSES: u64 = 1 << 20;

/// The most MiB `gpu_memory` takes: the bytes (`MiB << 20`) must fit a u64.
pub const MAX_GPU_MEMORY_MIB: u64 = u64::MAX >> 20;

/// An integer option as given ([`IntArg`]), for its range check.
fn int(v: &Bound<'_, PyAny>) -> PyResult<IntArg> {
    v.extract()
}

impl Options {
    /// Reads the keyword arguments; an unknown keyword is a `TypeError`, as in Python, and so
    /// is an integer option given as no integer; one out of its range is an `InputError`
    /// naming it and the range ([`IntArg::check`]).
    pub fn from_kwargs(kw: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
        let mut o = Options::default();
        let Some(kw) = kw else { return Ok(o) };
        for (k, v) in kw.iter() {
            let key: String = k.extract()?;
            if v.is_none()
                && matches!(
                    key.as_str(),
                    "leaf_size_b" | "descent" | "gpu_memory" | "chunk_poses" | "threads"
                )
            {
                continue;
            }
            match key.as_str() {
                "bv" => o.bv = name(&v)?,
                "box_test" => o.box_test = name(&v)?,
                "dual_symmetric" => o.dual_symmetric = v.extract()?,
                "dual_order" => o.dual_order = name(&v)?,
                "split" => o.split = name(&v)?,
                "split_point" => o.split_point = name(&v)?,
                "leaf_size" => o.leaf_size = int(&v)?.u32_in(&key, 1, u32::MAX)?,
                "leaf_size_b" => o.leaf_size_b = Some(int(&v)?.u32_in(&key, 1, u32::MAX)?),
                "tumble" => {
                    let s: String = v.extract()?;
                    o.tumble = match s.as_str() {
                        "auto" => TumbleMethod::Approximate,
                        _ => name(&v)?,
                    }
                }
                "descent" => o.descent = Some(name(&v)?),
                "coherence" => o.coherence = Coherence::from_py(&v)?,
                "gpu_memory" => {
                    o.gpu_memory = Some(int(&v)?.u64_in(&key, 1, MAX_GPU_MEMORY_MIB)?)
                }
                "rtree_collide" => o.rtree_collide = name(&v)?,
                "rtree_min" => o.rtree_min = int(&v)?.u32_in(&key, 0, u32::MAX)?,
                "rtree_max" => o.rtree_max = int(&v)?.u32_in(&key, 0, u32::MAX)?,
                "chunk_poses" => {
                    let n = int(&v)?.u64_in(&key, 1, MAX_CHUNK_POSES)?;
                    o.chunk_poses = Some(n as usize);
                }
                "threads" => o.threads = crate::pool::threads(Some(&int(&v)?))?,
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "Collider() got an unexpected keyword argument '{}'",
                        escape_controls(&key)
                    )));
                }
            }
        }
        // Checked whatever the bv, as `meshcollide query` checks them: a wrong value is
        // reported where it is given, not once a later call asks for an R-tree.
        o.rtree().validate().map_err(errors::to_py)?;
        Ok(o)
    }

    /// A's and B's build options.
    pub fn build_options(&self) -> [BuildOptions; 2] {
        let a = BuildOptions {
            rule: self.split,
            point: self.split_point,
            leaf_size: self.leaf_size,
        };
        let b = BuildOptions {
            leaf_size: self.leaf_size_b.unwrap_or(self.leaf_size),
            ..a
        };
        [a, b]
    }

    /// A mesh file, or a saved hierarchy (`.mch`, by its magic bytes) with its mesh, for side
    /// `side` (0 = A, 1 = B): a `.mch` built with other options than these is an input error
    /// naming the file and each difference by its keyword, never rebuilt silently.
    pub fn load_input(
        &self,
        path: &Path,
        side: usize,
    ) -> meshcollide::Result<(Mesh, Option<KdopHierarchy>)> {
        // Opened once: the path may be a pipe.
        let saved = match load_mesh_or_saved(path)? {
            LoadedInput::Mesh(m) => return Ok((m, None)),
            LoadedInput::Saved(s) => s,
        };
        let diff: Vec<String> = saved
            .differences(self.bv.concrete(), &self.build_options()[side])
            .into_iter()
            .map(|(flag, was, asked)| {
                let mut key = flag.replace('-', "_");
                if key == "leaf_size" && side == 1 {
                    key.push_str("_b");
                }
                format!("{key}={was} (the query asks for {asked})")
            })
            .collect();
        if !diff.is_empty() {
            return Err(meshcollide::Error::InvalidOption(format!(
                "{}: the saved hierarchy was built with {}; pass the same options or rebuild it with `meshcollide build`",
                path.display(),
                diff.join(", ")
            )));
        }
        let (mesh, h) = saved.into_parts();
        Ok((mesh, Some(h)))
    }

    /// The R-tree's options.
    pub fn rtree(&self) -> RtreeOptions {
        RtreeOptions {
            min_children: self.rtree_min,
            max_children: self.rtree_max,
            collide: self.rtree_collide,
        }
    }

    /// The dual hierarchy's options.
    pub fn dual(&self) -> DualOptions {
        DualOptions {
            symmetric: self.dual_symmetric,
            order: self.dual_order,
        }
    }

    /// Builds the collider as `meshcollide query` does.
    pub fn build(
        &self,
        a: &Mesh,
        b: &Mesh,
        saved: [Option<KdopHierarchy>; 2],
    ) -> meshcollide::Result<Collider> {
        let [oa, ob] = self.build_options();
        let mut builder = Collider::builder(a, b);
        let [ha, hb] = saved;
        if let Some(h) = ha {
            builder = builder.hierarchy_a(h);
        }
        if let Some(h) = hb {
            builder = builder.hierarchy_b(h);
        }
        if let Some(n) = self.chunk_poses {
            builder = builder.stream_chunk(n);
        }
        builder
            .bv(self.bv)
            .build_options_a(oa)
            .build_options_b(ob)
            .kdop(KdopOptions {
                coherence: self.coherence == Coherence::On,
                ..KdopOptions::with_descent(self.descent.unwrap_or_default())
            })
            .boxtree(BoxtreeOptions {
                test: self.box_test,
            })
            .rtree(self.rtree())
            .dual(self.dual())
            .query(QueryOptions {
                mode: meshcollide::Mode::All,
                tumble: self.tumble,
                ..Default::default()
            })
            .build()
    }
}
