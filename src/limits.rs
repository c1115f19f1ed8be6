//! The input limit's variable, and how error messages say where a limit came from. Below
//! both the errors that cite the limit and the loaders that apply it
//! ([`crate::mesh::load::input_limit`]), so that the two read the variable alike.

/// The environment variable that sets the input limit in bytes.
pub const MAX_INPUT_ENV: &str = "MESHCOLLIDE_MAX_INPUT_BYTES";

/// Where an input limit of `limit` bytes came from, for the messages that cite it: the
/// variable when it is set to that number (the knob the user turned, so no advice to set
/// it), else half the available memory and how to change that (also when the variable
/// holds no number of bytes, which the limit ignores).
pub fn limit_from(limit: u64) -> String {
    match std::env::var(MAX_INPUT_ENV).map(|v| v.trim().parse::<u64>()) {
        Ok(Ok(n)) if n == limit => format!("the limit set by {MAX_INPUT_ENV}={n}"),
        Ok(_) => format!(
            "the limit is half the available memory: {MAX_INPUT_ENV} is set but is no number of bytes"
        ),
        Err(_) => {
            format!("the limit is half the available memory; set {MAX_INPUT_ENV} to change it")
        }
    }
}
