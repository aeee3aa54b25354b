//! Finding and reading the `-x` PER table.
//!
//! Mininet-WiFi passes `-x …/mn_wifi/data/signal_table_ieee80211`, a file that does not
//! exist: its wmediumd fork appends `ax` to the name it is given and reads
//! `signal_table_ieee80211ax`. Upstream wmediumd reads the name as given. Both forms
//! are accepted here: the path as given if it is a file, else the path with `ax`
//! appended.

use sdmac_phy::error_model::PerTable;
use std::path::{Path, PathBuf};

/// The file a `-x` argument names: `given` if it is a file, else `given` + "ax" if that
/// is; an error naming both when neither is.
pub fn resolve(given: &str) -> Result<PathBuf, String> {
    let exact = Path::new(given);
    if exact.is_file() {
        return Ok(exact.to_path_buf());
    }
    let with_ax = PathBuf::from(format!("{given}ax"));
    if with_ax.is_file() {
        return Ok(with_ax);
    }
    Err(format!("-x: no PER table at {given} nor at {} (the name with \"ax\" appended, as Mininet-WiFi's wmediumd reads it)", with_ax.display()))
}

/// Reads the PER table a `-x` argument names (see [`resolve`]); the table and the file
/// it was read from.
pub fn load(given: &str) -> Result<(PerTable, PathBuf), String> {
    let path = resolve(given)?;
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("-x {shown}: {e}"))?;
    let table = PerTable::parse(&text, &shown).map_err(|e| e.to_string())?;
    Ok((table, path))
}

/// One line saying which table was read and what it holds.
pub fn describe(table: &PerTable, path: &Path) -> String {
    format!(
        "PER table {}: {} rows ({} to {} dBm) x {} columns ({:?} layout){}",
        path.display(),
        table.rows(),
        table.min_signal_dbm(),
        table.max_signal_dbm(),
        table.columns(),
        table.layout(),
        if table.warnings().is_empty() {
            String::new()
        } else {
            format!(", {} values corrected", table.warnings().len())
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &str = "# bitrate\t1Mbps\n# RSSI [dBm]\t0\n-92\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\n-91\t0.5\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\t1.0\n";

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sdmac-per-file-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_exact_path_is_read_when_it_exists() {
        let d = dir("exact");
        let p = d.join("signal_table_ieee80211");
        std::fs::write(&p, TABLE).unwrap();
        // An "ax" file beside it is not read: the name as given wins.
        std::fs::write(d.join("signal_table_ieee80211ax"), "not a table").unwrap();
        let (t, read) = load(p.to_str().unwrap()).unwrap();
        assert_eq!(read, p);
        assert_eq!((t.rows(), t.columns(), t.min_signal_dbm()), (2, 12, -92));
    }

    #[test]
    fn the_name_with_ax_appended_is_read_as_mininet_wifi_s_fork_does() {
        let d = dir("ax");
        let given = d.join("signal_table_ieee80211");
        std::fs::write(d.join("signal_table_ieee80211ax"), TABLE).unwrap();
        let (t, read) = load(given.to_str().unwrap()).unwrap();
        assert_eq!(read, d.join("signal_table_ieee80211ax"));
        assert_eq!(t.per_at(-91.0, 0), 0.5);
        assert!(describe(&t, &read).contains("signal_table_ieee80211ax"));
    }

    #[test]
    fn neither_file_is_an_error_naming_both() {
        let d = dir("none");
        let given = d.join("signal_table_ieee80211");
        let e = load(given.to_str().unwrap()).unwrap_err();
        assert!(e.contains(&format!("{}", given.display())), "{e}");
        assert!(e.contains(&format!("{}ax", given.display())), "{e}");
    }

    #[test]
    fn a_directory_is_not_a_table() {
        let d = dir("dir");
        std::fs::create_dir_all(d.join("tableax")).unwrap();
        assert!(resolve(d.join("table").to_str().unwrap()).is_err());
    }

    #[test]
    fn a_malformed_table_names_the_file_read() {
        let d = dir("bad");
        std::fs::write(d.join("tax"), "-91 x\n").unwrap();
        let e = load(d.join("t").to_str().unwrap()).unwrap_err();
        assert!(e.contains("tax"), "{e}");
    }
}
