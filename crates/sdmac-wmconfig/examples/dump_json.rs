//! Prints a libconfig file's tree as tagged JSON (see
//! `sdmac_wmconfig::libconfig::to_json_string`), or with `--config` the interpreted
//! wmediumd / yawmd configuration (Rust debug format) and its warnings.
//!
//! ```text
//! cargo run -p sdmac-wmconfig --example dump_json -- file.cfg [--config]
//! ```
//! Exits with status 1 and the error (`file:line:column: key: message`) on stderr when
//! the file is rejected, 2 on bad usage.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config_mode = args.iter().any(|a| a == "--config");
    let files: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    if files.is_empty() {
        eprintln!("usage: dump_json FILE.cfg... [--config]");
        return ExitCode::from(2);
    }
    let mut status = ExitCode::SUCCESS;
    for file in files {
        if config_mode {
            match sdmac_wmconfig::wmediumd::load_file(file) {
                Ok(config) => {
                    for w in &config.warnings {
                        eprintln!("warning: {w}");
                    }
                    println!("{config:#?}");
                }
                Err(e) => {
                    eprintln!("{e}");
                    status = ExitCode::from(1);
                }
            }
            continue;
        }
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("{file}: cannot read: {e}");
                status = ExitCode::from(1);
                continue;
            }
        };
        match sdmac_wmconfig::libconfig::parse(&text, file) {
            Ok(tree) => println!("{}", sdmac_wmconfig::libconfig::to_json_string(&tree)),
            Err(e) => {
                eprintln!("{e}");
                status = ExitCode::from(1);
            }
        }
    }
    status
}
