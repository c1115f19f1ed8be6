//! The `meshcollide` command line (`src/cli/`, built with the `cli` feature). No algorithm
//! lives there; everything goes through the library.

fn main() -> std::process::ExitCode {
    meshcollide::cli::run()
}
