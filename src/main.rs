//! The `meshcollide` command line: argument parsing, file formats and reporting. No
//! algorithm lives here; everything goes through the library.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run()
}
