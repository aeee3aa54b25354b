//! The API sits above the shared vocabulary (`sdmac-types`) and below every backend:
//! it must link no simulator, so that a backend for a real adapter links none either.
//! This asks cargo for the resolved dependency graph and walks it from the crate.

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::process::Command;

/// Crates that simulate a medium: none of them may be below the API.
const ENGINE: [&str; 4] = ["sdmac-medium", "sdmac-sim", "sdmac-emu", "sdmac-mediumd"];

fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let out = Command::new(&cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--manifest-path", manifest])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cargo} metadata: {e}"));
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("cargo metadata printed JSON")
}

/// Every package `name` depends on through normal and build dependencies (not
/// dev-dependencies: tests may use anything), transitively.
fn linked_below(meta: &Value, name: &str) -> BTreeSet<String> {
    let names: HashMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let nodes: HashMap<&str, &Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["id"].as_str().unwrap(), n))
        .collect();
    let root = *names
        .iter()
        .find(|(_, n)| **n == name)
        .unwrap_or_else(|| panic!("{name} is not in the workspace"))
        .0;
    let mut seen = BTreeSet::new();
    let mut todo = vec![root];
    while let Some(id) = todo.pop() {
        for d in nodes[id]["deps"].as_array().unwrap() {
            let linked = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].as_str() != Some("dev"));
            let pkg = d["pkg"].as_str().unwrap();
            if linked && seen.insert(names[pkg].to_string()) {
                todo.push(pkg);
            }
        }
    }
    seen
}

#[test]
fn the_api_links_no_medium_engine() {
    let below = linked_below(&metadata(), "sdmac-api");
    assert!(
        below.contains("sdmac-types"),
        "sdmac-api should name things with sdmac-types; it links {below:?}"
    );
    let engine: Vec<&str> = ENGINE.into_iter().filter(|e| below.contains(*e)).collect();
    assert!(engine.is_empty(), "sdmac-api links {engine:?}: the API must not depend on a simulator (move the shared type into sdmac-types)");
}

#[test]
fn the_vocabulary_links_only_the_phy_formulas() {
    let below = linked_below(&metadata(), "sdmac-types");
    let expected: BTreeSet<String> = ["sdmac-phy".to_string()].into();
    assert_eq!(below, expected, "sdmac-types may depend on sdmac-phy and nothing else");
}

#[test]
fn the_linux_backend_the_probe_and_the_overlays_link_no_medium_engine() {
    let meta = metadata();
    // The overlays run on every backend, so they link no simulator either.
    for name in ["sdmac-linux", "sdmac-probe", "sdmac-overlay"] {
        let below = linked_below(&meta, name);
        let engine: Vec<&str> = ENGINE.into_iter().filter(|e| below.contains(*e)).collect();
        assert!(
            engine.is_empty(),
            "{name} links {engine:?}: the real-adapter side must not depend on a simulator"
        );
    }
}

#[test]
fn the_overlays_sit_on_the_api_and_link_no_medium_engine() {
    let below = linked_below(&metadata(), "sdmac-overlay");
    assert!(below.contains("sdmac-api"), "sdmac-overlay is written on the API; it links {below:?}");
    let engine: Vec<&str> = ENGINE.into_iter().filter(|e| below.contains(*e)).collect();
    assert!(
        engine.is_empty(),
        "sdmac-overlay links {engine:?}: overlays run on every backend, so they may not depend on a simulator"
    );
}
