//! `sdmac-sim`: the simulator as a plain binary (for benchmarks and scripts; the
//! user-facing CLI is `sdmac sim` in Python).
//!
//! ```text
//! sdmac-sim SCENARIO.toml [--json FILE] [--pcap FILE] [--threads]
//! sdmac-sim saturation [--standard 802.11a] [--rate 54] [--payload 1500]
//!                      [--stations 1,2,5,10,20,50] [--duration 10] [--seed 1] [--json FILE]
//! ```

#![warn(missing_docs)]

use sdmac_sim::{run_scenario_json, saturation_json, RunOptions, SaturationParams};
use std::process::ExitCode;

fn value<'a>(args: &'a [String], i: &mut usize, flag: &str) -> Result<&'a str, String> {
    *i += 1;
    args.get(*i).map(|s| s.as_str()).ok_or_else(|| format!("{flag} needs a value"))
}

fn main_inner() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args[0] == "-h" || args[0] == "--help" {
        println!("usage: sdmac-sim SCENARIO.toml [--json FILE] [--pcap FILE] [--threads]\n       sdmac-sim saturation [--standard S] [--rate R] [--payload B] [--stations LIST] [--duration S] [--seed N] [--json FILE]");
        return Ok(());
    }
    let mut json_out = None;
    let mut opts = RunOptions::default();
    let mut sat = SaturationParams {
        standard: "802.11a".into(),
        rate: "54".into(),
        payload: 1500,
        stations: vec![1, 2, 5, 10, 20, 50],
        duration_s: 10.0,
        seed: 1,
    };
    let mut i = 1;
    while i < args.len() {
        let flag = args[i].clone();
        match flag.as_str() {
            "--json" => json_out = Some(value(&args, &mut i, &flag)?.to_string()),
            "--pcap" => opts.pcap = Some(value(&args, &mut i, &flag)?.into()),
            "--threads" => opts.threads = true,
            "--standard" => sat.standard = value(&args, &mut i, &flag)?.to_string(),
            "--rate" => sat.rate = value(&args, &mut i, &flag)?.to_string(),
            "--payload" => {
                sat.payload =
                    value(&args, &mut i, &flag)?.parse().map_err(|e| format!("--payload: {e}"))?
            }
            "--duration" => {
                sat.duration_s =
                    value(&args, &mut i, &flag)?.parse().map_err(|e| format!("--duration: {e}"))?
            }
            "--seed" => {
                sat.seed =
                    value(&args, &mut i, &flag)?.parse().map_err(|e| format!("--seed: {e}"))?
            }
            "--stations" => {
                sat.stations = value(&args, &mut i, &flag)?
                    .split(',')
                    .map(|x| x.trim().parse::<u32>().map_err(|e| format!("--stations: {x:?}: {e}")))
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown option {other}")),
        }
        i += 1;
    }
    let text = if args[0] == "saturation" {
        saturation_json(&sat, &mut |_| true).map_err(|e| e.to_string())?
    } else {
        let toml = std::fs::read_to_string(&args[0]).map_err(|e| format!("{}: {e}", args[0]))?;
        run_scenario_json(&toml, &args[0], &opts, &mut |_| true).map_err(|e| e.to_string())?
    };
    match json_out {
        Some(path) => std::fs::write(&path, text).map_err(|e| format!("{path}: {e}"))?,
        None => println!("{text}"),
    }
    Ok(())
}

fn main() -> ExitCode {
    match main_inner() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sdmac-sim: {e}");
            ExitCode::from(2)
        }
    }
}
