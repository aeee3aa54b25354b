// What the `wmconfig` fuzz target runs on each input; included (`include!`) by the
// target and by `crates/sdmac-wmconfig/tests/fuzz_corpus.rs`, which replays the corpus
// on stable Rust.
//
// Any bytes: the libconfig parser and the wmediumd/yawmd interpretation must not
// panic, every error has a position, and every tree that parses prints back (in
// libconfig syntax) to an equal tree.

use sdmac_wmconfig::libconfig::{parse, to_libconfig_string};
use sdmac_wmconfig::wmediumd::from_tree;

/// Parses and interprets `data`; panics on a broken round trip or an error without a
/// position.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    match parse(&text, "fuzz.cfg") {
        Ok(tree) => {
            let printed = to_libconfig_string(&tree);
            match parse(&printed, "printed.cfg") {
                Ok(again) => assert!(again == tree, "round trip changed the tree:\n{printed}"),
                Err(e) => panic!("printed tree does not parse: {e}\n{printed}"),
            }
            if let Err(e) = from_tree(&tree, "fuzz.cfg") {
                assert!(e.line >= 1 && e.column >= 1, "error without a position: {e}");
            }
        }
        Err(e) => assert!(e.line >= 1 && e.column >= 1, "error without a position: {e}"),
    }
}
