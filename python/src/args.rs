//! Integer arguments (`leaf_size`, `first_pose`, `gpu_memory`, …), each checked against its
//! range before any work, so that no value wraps and no value reaches the library where it
//! would overflow or panic: a refusal names the argument and the range it takes.

use crate::errors;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBool;
use std::fmt;

/// An integer argument as the caller gave it, not yet checked. Extracting one never fails,
/// so that [`IntArg::check`] words every refusal: pyo3's own extraction into a Rust integer
/// raises an `OverflowError` that names neither the argument nor its range, and an unsigned
/// parameter took `2**64-10` only to wrap it to `-10` when cast to int64.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntArg {
    /// A Python int, or anything with `__index__` (a NumPy integer), within i128.
    Int(i128),
    /// An int beyond i128 (`true`: negative): outside every range an argument has.
    Huge(bool),
    /// Not an integer: a float (even a whole one: `2.0` is no count), a string, a bool
    /// (Python's `True` is an int, but `leaf_size=True` is a mistake, not a 1), `None`, …:
    /// its type's name.
    NotInt(String),
}

impl<'a, 'py> FromPyObject<'a, 'py> for IntArg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        let type_name = || {
            obj.get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string())
        };
        // NumPy's bool has no `__index__` in NumPy 2 but had one (deprecated) before.
        let numpy_bool = obj
            .getattr("dtype")
            .and_then(|d| d.getattr("kind")?.extract::<String>())
            .is_ok_and(|k| k == "b");
        if obj.is_instance_of::<PyBool>() || numpy_bool {
            return Ok(IntArg::NotInt(type_name()));
        }
        let index = match py.import("operator")?.call_method1("index", (obj,)) {
            Ok(i) => i,
            Err(e) if e.is_instance_of::<PyTypeError>(py) => {
                return Ok(IntArg::NotInt(type_name()));
            }
            Err(e) => return Err(e),
        };
        Ok(match index.extract::<i128>() {
            Ok(v) => IntArg::Int(v),
            Err(_) => IntArg::Huge(index.lt(0)?),
        })
    }
}

impl fmt::Display for IntArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntArg::Int(v) => write!(f, "{v}"),
            IntArg::Huge(false) => f.write_str("an integer of 2**127 or more"),
            IntArg::Huge(true) => f.write_str("an integer below -2**127"),
            IntArg::NotInt(t) => write!(f, "a {t}"),
        }
    }
}

impl IntArg {
    /// The value if it lies in `lo..=hi`; else an `InputError` (a `ValueError`) naming the
    /// argument, its value and the range, `why` added (for a range that depends on other
    /// arguments), or a `TypeError` for what is no integer, as Python raises one.
    pub fn check(&self, name: &str, lo: i128, hi: i128, why: &str) -> PyResult<i128> {
        match self {
            &IntArg::Int(v) if (lo..=hi).contains(&v) => Ok(v),
            IntArg::NotInt(t) => Err(PyTypeError::new_err(format!(
                "{name}: expected an integer from {lo} to {hi}{why}, found {t}"
            ))),
            _ => Err(errors::input(format!(
                "{name} = {self} is out of range: expected an integer from {lo} to {hi}{why}"
            ))),
        }
    }

    /// [`IntArg::check`] into a `u32` (every value of `lo..=hi` fits one).
    pub fn u32_in(&self, name: &str, lo: u32, hi: u32) -> PyResult<u32> {
        let v = self.check(name, lo.into(), hi.into(), "")?;
        u32::try_from(v).map_err(|_| errors::internal(format!("{name}: {v} passed its check")))
    }

    /// [`IntArg::check`] into a `u64` (every value of `lo..=hi` fits one).
    pub fn u64_in(&self, name: &str, lo: u64, hi: u64) -> PyResult<u64> {
        let v = self.check(name, lo.into(), hi.into(), "")?;
        u64::try_from(v).map_err(|_| errors::internal(format!("{name}: {v} passed its check")))
    }
}
