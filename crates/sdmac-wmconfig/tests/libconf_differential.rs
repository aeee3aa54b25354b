//! Differential test against Python's `libconf` (installed in the workspace's .venv).
//!
//! For every configuration in the shared test data and in `tests/corpus/`, this parser
//! and libconf must both accept the file and give equal trees, or both reject it.
//! Trees are compared as tagged JSON (`libconfig::to_json_string`): libconf's
//! AttrDict → group (in order), tuple → list, list → array, bool / int / float / str
//! → the same scalar; integers of 32 and 64 bits compare as integers.
//!
//! The known, deliberate differences (libconf is laxer or stricter than the C
//! libconfig that wmediumd uses, or than this parser) are checked too, so the list
//! below stays true.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sdmac_wmconfig::libconfig::{parse, to_json_string};

const PYTHON: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../.venv/bin/python");
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");
const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");

/// Reads JSON lines {"file", "rust" (tree or null), "error"} on stdin; loads each file
/// with libconf and prints one verdict line per file.
const SCRIPT: &str = r#"
import json, sys
import libconf

def tag(v):
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": int(v)}
    if isinstance(v, float):
        return {"float": v}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, tuple):
        return {"list": [tag(x) for x in v]}
    if isinstance(v, list):
        return {"array": [tag(x) for x in v]}
    if isinstance(v, dict):
        return {"group": [[k, tag(x)] for k, x in v.items()]}
    raise TypeError("unexpected %r" % type(v))

for line in sys.stdin:
    item = json.loads(line)
    path = item["file"]
    try:
        # newline="": the bytes C libconfig sees (text mode would turn CR LF inside a
        # string literal into LF).
        with open(path, encoding="utf-8", newline="") as f:
            theirs = tag(libconf.load(f))
        err = None
    except Exception as e:  # libconf raises ConfigParseError, and ValueError etc. on some inputs
        theirs, err = None, "%s: %s" % (type(e).__name__, str(e).replace("\n", " ")[:200])
    ours = item["rust"]
    if ours is None and theirs is None:
        verdict = "OK both-reject | %s | %s" % (item["error"], err)
    elif ours is None:
        verdict = "DIFF rust-rejects | %s" % item["error"]
    elif theirs is None:
        verdict = "DIFF libconf-rejects | %s" % err
    elif ours == theirs:
        verdict = "OK equal"
    else:
        verdict = "DIFF trees | libconf: %s" % json.dumps(theirs)[:400]
    print(path + "\t" + verdict)
    sys.stdout.flush()
"#;

/// Inputs on which this parser and libconf knowingly disagree, and how.
const KNOWN_DIFFERENCES: &[(&str, &str, &str)] = &[
    // libconfig: "duplicate setting name"; libconf keeps the last value.
    ("duplicate.cfg", "a = 1;\na = 2;\n", "DIFF rust-rejects"),
    // libconfig: arrays hold one type; libconf does not check.
    ("mixed_array.cfg", "a = [1, 2.0, \"x\"];\n", "DIFF rust-rejects"),
    // libconfig reads 007 as 7; libconf's int(text, 0) refuses leading zeros.
    ("leading_zero.cfg", "a = 007;\n", "DIFF libconf-rejects"),
    // Beyond 64 bits: libconfig fails; Python integers are unbounded.
    ("huge_int.cfg", "a = 99999999999999999999;\n", "DIFF rust-rejects"),
    // Above i64::MAX a hex64 is the two's complement bit pattern (-1) here, as in C;
    // libconf gives 18446744073709551615.
    ("hex_u64.cfg", "a = 0xFFFFFFFFFFFFFFFFL;\n", "DIFF trees"),
    // libconf's `true` token wins over a longer name (`\b` before `-`); libconfig's
    // scanner takes the longest match, the name `true-ish`.
    ("true_name.cfg", "true-ish = 1;\n", "DIFF libconf-rejects"),
    // Python's `\s` includes Unicode spaces (here U+00A0); libconfig's does not.
    ("nbsp.cfg", "a =\u{a0}1;\n", "DIFF rust-rejects"),
    // `\x` without two hex digits: libconfig keeps the backslash (so does this
    // parser); libconf hands `\xZZ` to Python's unicode-escape codec, which fails.
    ("bad_hex_escape.cfg", "a = \"\\xZZ\";\n", "DIFF libconf-rejects"),
    // A lone `.` is a float to libconf's tokenizer, which then fails in float(".")
    // — both reject, for different reasons; kept here to document it.
    ("lone_dot.cfg", "a = .;\n", "OK both-reject"),
];

/// The .venv's Python with libconf. Missing, the test fails saying why (`make deps`
/// installs both); set SDMAC_SKIP_LIBCONF=1 to skip it instead, which it says on stderr.
fn python_with_libconf() -> Option<PathBuf> {
    let py = PathBuf::from(PYTHON);
    let missing = if !py.exists() {
        Some(format!("{PYTHON} is absent (run `make deps` to create the virtualenv with libconf)"))
    } else if !Command::new(&py)
        .args(["-c", "import libconf"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
    {
        Some(format!("Python libconf is not installed in {PYTHON} (run `make deps`, or pip install 'libconf>=2')"))
    } else {
        None
    };
    match missing {
        None => Some(py),
        Some(why) if std::env::var_os("SDMAC_SKIP_LIBCONF").is_some() => {
            eprintln!("skipped (SDMAC_SKIP_LIBCONF): the libconf differential test: {why}");
            None
        }
        Some(why) => panic!(
            "the libconf differential test cannot run: {why}; set SDMAC_SKIP_LIBCONF=1 to skip it"
        ),
    }
}

fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Runs both parsers on `files`; returns (file, verdict) pairs.
fn compare(py: &Path, files: &[PathBuf]) -> Vec<(String, String)> {
    let mut input = String::new();
    for f in files {
        let name = f.display().to_string();
        let (tree, error) = match std::fs::read_to_string(f) {
            Ok(text) => match parse(&text, &name) {
                Ok(g) => (to_json_string(&g), "null".to_string()),
                Err(e) => ("null".to_string(), json_str(&e.to_string())),
            },
            Err(e) => ("null".to_string(), json_str(&format!("cannot read: {e}"))),
        };
        input.push_str(&format!(
            "{{\"file\":{},\"rust\":{tree},\"error\":{error}}}\n",
            json_str(&name)
        ));
    }
    let mut child = Command::new(py)
        .args(["-c", SCRIPT])
        .env("PYTHONIOENCODING", "utf-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", py.display()));
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("python output");
    writer.join().expect("writer thread").expect("write to python");
    assert!(out.status.success(), "python failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let verdicts: Vec<(String, String)> = text
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(f, v)| (f.to_string(), v.to_string()))
        .collect();
    assert_eq!(
        verdicts.len(),
        files.len(),
        "python answered {} of {} files:\n{text}",
        verdicts.len(),
        files.len()
    );
    verdicts
}

fn cfg_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "cfg"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

#[test]
fn same_trees_as_libconf() {
    let Some(py) = python_with_libconf() else {
        return;
    };
    let mut files = cfg_files(Path::new(CORPUS));
    assert!(files.len() >= 10, "the corpus has {} files", files.len());
    let data = Path::new(DATA);
    if data.is_dir() {
        for sub in ["wmediumd-configs", "yawmd-configs", "mininet-wifi-configs"] {
            files.extend(cfg_files(&data.join(sub)));
        }
    } else {
        panic!("the shared test data directory {DATA} is missing (the wmediumd, yawmd and Mininet-WiFi configurations)");
    }
    let verdicts = compare(&py, &files);
    let mut failures = Vec::new();
    let (mut equal, mut rejected) = (0, 0);
    for (file, verdict) in &verdicts {
        println!("{file}: {verdict}");
        if verdict.starts_with("OK equal") {
            equal += 1;
        } else if verdict.starts_with("OK both-reject") {
            rejected += 1;
        } else {
            failures.push(format!("{file}: {verdict}"));
        }
    }
    assert!(failures.is_empty(), "disagreements with libconf:\n{}", failures.join("\n"));
    println!("{equal} files give equal trees, {rejected} are rejected by both");
    assert!(equal >= 25 && rejected >= 4, "{equal} equal, {rejected} rejected");
}

#[test]
fn known_differences_stay_as_documented() {
    let Some(py) = python_with_libconf() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("sdmac-wmconfig-diff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let files: Vec<PathBuf> = KNOWN_DIFFERENCES
        .iter()
        .map(|(name, text, _)| {
            let p = dir.join(name);
            std::fs::write(&p, text).expect("write");
            p
        })
        .collect();
    let verdicts = compare(&py, &files);
    let _ = std::fs::remove_dir_all(&dir);
    for ((name, _, expected), (file, verdict)) in KNOWN_DIFFERENCES.iter().zip(&verdicts) {
        println!("{name}: {verdict}");
        assert!(file.ends_with(name), "{file}");
        assert!(verdict.starts_with(expected), "{name}: expected {expected}, got {verdict}");
    }
}
