//! Typed access to a parsed tree: each value read as the type a key expects, with
//! errors and warnings that name file, position and key.

use super::{parse_mac, Interface, Link, MacAddress};
use crate::libconfig::{Group, Pos, Setting, Value, ValueKind};
use crate::ConfigError;
use std::collections::HashMap;

/// Reads values of one file, collecting its warnings.
pub(super) struct Cx<'f> {
    /// The file's name, for errors and warnings.
    pub(super) file: &'f str,
    /// (position, message), sorted by position at the end.
    pub(super) warnings: Vec<(Pos, String)>,
}

pub(super) fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

pub(super) fn index(prefix: &str, i: usize) -> String {
    format!("{prefix}[{i}]")
}

impl Cx<'_> {
    pub(super) fn err(&self, pos: Pos, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError::new(self.file, pos, Some(key.to_string()), message)
    }

    pub(super) fn warn(&mut self, pos: Pos, key: &str, message: impl AsRef<str>) {
        let text =
            format!("{}:{}:{}: {}: {}", self.file, pos.line, pos.column, key, message.as_ref());
        self.warnings.push((pos, text));
    }

    pub(super) fn wrong_type(&self, v: &Value, key: &str, expected: &str) -> ConfigError {
        self.err(
            v.pos,
            key,
            format!("expected {expected}, found {} ({})", v.type_name(), v.describe()),
        )
    }

    pub(super) fn int(&self, v: &Value, key: &str) -> Result<i64, ConfigError> {
        v.as_i64().ok_or_else(|| self.wrong_type(v, key, "an integer"))
    }

    pub(super) fn int32(&self, v: &Value, key: &str) -> Result<i32, ConfigError> {
        let i = self.int(v, key)?;
        i32::try_from(i)
            .map_err(|_| self.err(v.pos, key, format!("{i} is out of the 32-bit integer range")))
    }

    pub(super) fn float(&self, v: &Value, key: &str) -> Result<f64, ConfigError> {
        v.as_f64().ok_or_else(|| self.wrong_type(v, key, "a number"))
    }

    pub(super) fn boolean(&self, v: &Value, key: &str) -> Result<bool, ConfigError> {
        v.as_bool().ok_or_else(|| self.wrong_type(v, key, "a boolean (true or false)"))
    }

    pub(super) fn string<'v>(&self, v: &'v Value, key: &str) -> Result<&'v str, ConfigError> {
        v.as_str().ok_or_else(|| self.wrong_type(v, key, "a string"))
    }

    pub(super) fn group<'v>(&self, v: &'v Value, key: &str) -> Result<&'v Group, ConfigError> {
        v.as_group().ok_or_else(|| self.wrong_type(v, key, "a group { ... }"))
    }

    pub(super) fn seq<'v>(&self, v: &'v Value, key: &str) -> Result<&'v [Value], ConfigError> {
        v.elements().ok_or_else(|| self.wrong_type(v, key, "a list ( ... ) or an array [ ... ]"))
    }

    /// A list/array with one entry per interface.
    fn per_iface<'v>(
        &self,
        s: &'v Setting,
        key: &str,
        n: usize,
    ) -> Result<&'v [Value], ConfigError> {
        let items = self.seq(&s.value, key)?;
        if items.len() != n {
            return Err(self.err(
                s.value.pos,
                key,
                format!(
                    "has {} entries, but there are {n} interfaces (one entry per interface)",
                    items.len()
                ),
            ));
        }
        Ok(items)
    }

    pub(super) fn numbers(
        &self,
        s: &Setting,
        key: &str,
        n: usize,
    ) -> Result<Vec<f64>, ConfigError> {
        let items = self.per_iface(s, key, n)?;
        items.iter().enumerate().map(|(i, v)| self.float(v, &index(key, i))).collect()
    }

    /// Points (x, y) or (x, y, z), one per interface.
    pub(super) fn points(
        &self,
        s: &Setting,
        key: &str,
        n: usize,
    ) -> Result<Vec<[f64; 3]>, ConfigError> {
        let items = self.per_iface(s, key, n)?;
        let mut out = Vec::with_capacity(n);
        for (i, item) in items.iter().enumerate() {
            let k = index(key, i);
            let coords = self.seq(item, &k)?;
            if coords.len() != 2 && coords.len() != 3 {
                return Err(self.err(
                    item.pos,
                    &k,
                    format!("expected (x, y) or (x, y, z), found {} numbers", coords.len()),
                ));
            }
            let mut p = [0.0; 3];
            for (j, c) in coords.iter().enumerate() {
                p[j] = self.float(c, &index(&k, j))?;
                if !p[j].is_finite() {
                    return Err(self.err(c.pos, &index(&k, j), "must be finite"));
                }
            }
            out.push(p);
        }
        Ok(out)
    }

    pub(super) fn macs(&self, s: &Setting, key: &str) -> Result<Vec<Interface>, ConfigError> {
        let items = self.seq(&s.value, key)?;
        let mut out: Vec<Interface> = Vec::with_capacity(items.len());
        let mut seen: HashMap<MacAddress, usize> = HashMap::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let k = index(key, i);
            let text = self.string(item, &k)?;
            let mac = parse_mac(text).map_err(|m| self.err(item.pos, &k, m))?;
            if let Some(j) = seen.insert(mac, i) {
                return Err(self.err(
                    item.pos,
                    &k,
                    format!("MAC address {mac} is listed twice (also {key}[{j}])"),
                ));
            }
            out.push(Interface { mac, medium_id: 0, pos: item.pos });
        }
        Ok(out)
    }

    pub(super) fn warn_multicast(&mut self, ifaces: &[Interface], key: &str) {
        for (i, iface) in ifaces.iter().enumerate() {
            if iface.mac.0[0] & 1 == 1 {
                self.warn(
                    iface.pos,
                    &index(key, i),
                    format!("{} is a multicast address; no radio has it", iface.mac),
                );
            }
        }
    }

    pub(super) fn probability(&self, v: &Value, key: &str) -> Result<f64, ConfigError> {
        let p = self.float(v, key)?;
        if !(0.0..=1.0).contains(&p) {
            return Err(self.err(
                v.pos,
                key,
                format!("an error probability must be within [0, 1], found {}", v.describe()),
            ));
        }
        Ok(p)
    }

    /// `links = ((from, to, value), ...)`.
    pub(super) fn links<T: Copy>(
        &mut self,
        s: &Setting,
        key: &str,
        n: usize,
        mirror: bool,
        read: impl Fn(&Self, &Value, &str) -> Result<T, ConfigError>,
    ) -> Result<Vec<Link<T>>, ConfigError> {
        let items = self.seq(&s.value, key)?;
        let mut links: Vec<Link<T>> = Vec::with_capacity(items.len());
        // (from, to) → index of the last link given for the pair.
        let mut last: HashMap<(usize, usize), usize> = HashMap::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let k = index(key, i);
            let parts = self.seq(item, &k)?;
            if parts.len() != 3 {
                return Err(self.err(
                    item.pos,
                    &k,
                    format!("expected (from, to, value), found {} elements", parts.len()),
                ));
            }
            let mut ends = [0usize; 2];
            for (e, end) in ends.iter_mut().enumerate() {
                let kk = index(&k, e);
                let x = self.int(&parts[e], &kk)?;
                *end = usize::try_from(x).ok().filter(|&x| x < n).ok_or_else(|| {
                    self.err(parts[e].pos, &kk, format!("interface index {x} is out of range: there are {n} interfaces (0..={})", n.saturating_sub(1)))
                })?;
            }
            let value = read(self, &parts[2], &index(&k, 2))?;
            if ends[0] == ends[1] {
                self.warn(item.pos, &k, "a link from an interface to itself has no effect");
            }
            if let Some(&prev) = last.get(&(ends[0], ends[1])) {
                let line = links[prev].pos.line;
                self.warn(
                    item.pos,
                    &k,
                    format!("replaces the link {} -> {} given at line {line}", ends[0], ends[1]),
                );
            }
            last.insert((ends[0], ends[1]), links.len());
            links.push(Link { from: ends[0], to: ends[1], value, pos: item.pos, mirrored: false });
        }
        if mirror {
            // Pairs given in one direction only: the last link given for the pair is
            // mirrored (it is the one in force, as in wmediumd).
            let mut mirrored = Vec::new();
            for (i, l) in links.iter().enumerate() {
                let is_last = last.get(&(l.from, l.to)) == Some(&i);
                if is_last && l.from != l.to && !last.contains_key(&(l.to, l.from)) {
                    mirrored.push(Link {
                        from: l.to,
                        to: l.from,
                        value: l.value,
                        pos: l.pos,
                        mirrored: true,
                    });
                }
            }
            links.extend(mirrored);
        }
        Ok(links)
    }

    pub(super) fn fading(&self, s: &Setting, key: &str) -> Result<u32, ConfigError> {
        let f = self.int(&s.value, key)?;
        u32::try_from(f).map_err(|_| {
            self.err(s.value.pos, key, format!("must be 0 (no fading) or more, found {f}"))
        })
    }

    pub(super) fn is_ap(&self, s: &Setting, key: &str, n: usize) -> Result<Vec<bool>, ConfigError> {
        let items = self.per_iface(s, key, n)?;
        let mut out = Vec::with_capacity(n);
        for (i, v) in items.iter().enumerate() {
            let k = index(key, i);
            out.push(match (&v.kind, v.as_i64()) {
                (ValueKind::Bool(b), _) => *b,
                (_, Some(1)) => true,
                (_, Some(0)) => false,
                _ => return Err(self.wrong_type(v, &k, "1, 0, true or false")),
            });
        }
        Ok(out)
    }
}
