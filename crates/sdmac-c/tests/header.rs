//! include/sdmac.h is what cbindgen generates from this crate: a stale checked-in
//! header fails here, with the command that regenerates it.

use std::path::PathBuf;

#[test]
fn header_is_up_to_date() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let generated = String::from_utf8(generated).expect("UTF-8");
    let path = dir.join("include/sdmac.h");
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != generated {
        if std::env::var_os("SDMAC_UPDATE_HEADER").is_some() {
            std::fs::write(&path, &generated).expect("write include/sdmac.h");
            return;
        }
        panic!(
            "crates/sdmac-c/include/sdmac.h is stale (it is not what cbindgen generates from the crate).\n\
             Regenerate it with:\n    SDMAC_UPDATE_HEADER=1 cargo test -p sdmac-c --test header\n\
             and commit it."
        );
    }
}
