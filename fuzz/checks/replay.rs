// Replays a fuzz target's committed corpus through its check on stable Rust, with
// inputs derived from every file (each prefix up to 64 bytes shorter, and 64 single-
// byte changes from a fixed-seed generator): seconds, not a campaign. Included by the
// `fuzz_corpus` tests of the crates whose decoders are fuzzed.

/// Runs `check` on every file of `dir` (which must hold at least one) and on inputs
/// derived from them; returns how many inputs ran.
pub fn replay(dir: &std::path::Path, check: fn(&[u8])) -> usize {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("fuzz corpus {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "fuzz corpus {} is empty", dir.display());
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut n = 0;
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let run = |input: &[u8], what: &str| {
            if std::panic::catch_unwind(|| check(input)).is_err() {
                panic!("{} ({what}, {} bytes: {:02x?}) fails its fuzz check", f.display(), input.len(), &input[..input.len().min(256)]);
            }
        };
        run(&data, "as committed");
        for cut in 1..=data.len().min(64) {
            run(&data[..data.len() - cut], "a prefix");
        }
        let mut changed = data.clone();
        for _ in 0..64 {
            if changed.is_empty() {
                break;
            }
            let at = (next() as usize) % changed.len();
            changed[at] ^= (next() as u8) | 1;
            run(&changed, "changed bytes");
        }
        n += 2 + data.len().min(64) + 64;
    }
    n
}
