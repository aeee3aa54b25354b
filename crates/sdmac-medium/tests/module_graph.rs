//! No module imports itself in a circle: for every crate under `crates/`, the modules
//! of `src/**/*.rs` and their `use crate::…`, `crate::x::…` and `super::…` references
//! form a graph without cycles. A reference to a name a module imports (such as
//! `crate::Medium`, re-exported at the crate root by `pub use medium::Medium`) counts as
//! a reference to the module the import names, followed through further imports. A module that needs something from a module that
//! needs it back shares a type or function that belongs lower down: move it into a
//! module both can import and that imports neither.
//!
//! A cycle that must stay for a while goes on [`ALLOWED`] with the reason; any other
//! cycle, or an allowed one that grows, fails the test with its modules named. None is
//! allowed today.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Known cycles: (crate, the modules of the cycle, sorted). Each entry says which
/// modules import each other; remove it when the cycle is gone.
const ALLOWED: &[(&str, &[&str])] = &[];

/// The modules of one crate and which modules each refers to.
#[derive(Default)]
struct Graph {
    /// Module path ("" for the crate root, "a::b" for src/a/b.rs) -> modules it uses.
    edges: BTreeMap<String, BTreeSet<String>>,
}

/// The module path of a source file under `src/` ("" for lib.rs; main.rs is "main"
/// beside a lib.rs, since it is a crate of its own that uses the library by name).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).ok()?;
    let parts: Vec<String> =
        rel.iter().map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string()).collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let parts: Vec<&str> = match parts.split_last() {
        Some((last, rest)) if last == "mod" || (rest.is_empty() && last == "lib") => {
            rest.iter().map(|s| s.as_str()).collect()
        }
        _ => parts.iter().map(|s| s.as_str()).collect(),
    };
    Some(parts.join("::"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The source with comments, strings and character literals blanked out, so that only
/// code is scanned.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&b, i) {
            // Raw string: r"…" or r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            'raw: while j < b.len() {
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break 'raw;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn ident_before(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Star,
    Other,
}

fn tokens(code: &str) -> Vec<Tok> {
    let b: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_alphabetic() || c == '_' {
            let s = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(b[s..i].iter().collect()));
            continue;
        }
        out.push(match c {
            ':' if b.get(i + 1) == Some(&':') => {
                i += 1;
                Tok::PathSep
            }
            '{' => Tok::Open,
            '}' => Tok::Close,
            ',' => Tok::Comma,
            '*' => Tok::Star,
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            _ => Tok::Other,
        });
        i += 1;
    }
    out
}

/// The full path a path tree names, with the name it binds in a `use` (its last
/// segment, or the alias after `as`; None for a glob `*`).
type Emit<'a> = dyn FnMut(&[String], Option<&str>) + 'a;

/// Reads a path tree after `crate::` / `super::` at `t[i]` (segments, `{a, b::c}`
/// groups, `*`, `x as y`), calling `emit` with each full path; returns the index after it.
fn path_tree(t: &[Tok], mut i: usize, prefix: &[String], emit: &mut Emit) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match t.get(i) {
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                i += 1;
                if t.get(i) == Some(&Tok::PathSep) {
                    i += 1;
                    continue;
                }
                if path.last().is_some_and(|l| l == "self") {
                    path.pop();
                }
                let mut name = path.last().cloned().unwrap_or_default();
                if t.get(i) == Some(&Tok::Ident("as".into())) {
                    if let Some(Tok::Ident(alias)) = t.get(i + 1) {
                        name = alias.clone();
                        i += 2;
                    }
                }
                emit(&path, Some(&name));
                return i;
            }
            Some(Tok::Open) => {
                i += 1;
                loop {
                    match t.get(i) {
                        Some(Tok::Close) => return i + 1,
                        Some(Tok::Comma) => i += 1,
                        None => return i,
                        _ => {
                            let before = i;
                            i = path_tree(t, i, &path, emit);
                            if i == before {
                                i += 1;
                            }
                        }
                    }
                }
            }
            Some(Tok::Star) => {
                emit(&path, None);
                return i + 1;
            }
            _ => {
                emit(&path, None);
                return i;
            }
        }
    }
}

/// One reference: (module path of the scope it appears in, absolute path it names).
type Reference = (Vec<String>, Vec<String>);

/// One name a `use` binds: (module path of the scope it is in, the name, the absolute
/// path it stands for).
type Binding = (Vec<String>, String, Vec<String>);

/// The references of one file's code: (module path of the scope they appear in,
/// absolute path they name).
fn references(module: &[String], code: &str) -> Vec<Reference> {
    scan(module, code, &BTreeSet::new()).0
}

/// The references of one file's code (as [`references`]) and the names its `use`
/// items bind to paths inside the crate: `crate::`, `self::` and `super::` paths, and
/// relative paths whose first segment is a module of the crate (`modules`; any other
/// is an external crate).
fn scan(
    module: &[String],
    code: &str,
    modules: &BTreeSet<String>,
) -> (Vec<Reference>, Vec<Binding>) {
    let t = tokens(code);
    let mut out = Vec::new();
    let mut bindings = Vec::new();
    // Inline modules (`mod tests { … }`): their names and the brace depth they opened at.
    let mut scope: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < t.len() {
        let here: Vec<String> =
            module.iter().cloned().chain(scope.iter().map(|s| s.0.clone())).collect();
        match &t[i] {
            Tok::Open => depth += 1,
            Tok::Close => {
                depth = depth.saturating_sub(1);
                if scope.last().is_some_and(|s| s.1 == depth) {
                    scope.pop();
                }
            }
            Tok::Ident(k) if k == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Open)) = (t.get(i + 1), t.get(i + 2)) {
                    scope.push((name.clone(), depth));
                    depth += 1;
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(k) if k == "use" => {
                // A `use` item: its crate/super paths are references as anywhere else
                // (the arm below reads them); a relative or `self::` one is not, but
                // the names it binds are kept.
                let (base, j) = match (t.get(i + 1), t.get(i + 2)) {
                    (Some(Tok::Ident(f)), Some(Tok::PathSep)) if f == "self" => {
                        (Some(here.clone()), i + 3)
                    }
                    (Some(Tok::Ident(f)), _) if f != "crate" && f != "super" => {
                        let child: Vec<String> = here.iter().cloned().chain([f.clone()]).collect();
                        (modules.contains(&child.join("::")).then_some(here.clone()), i + 1)
                    }
                    _ => (None, i + 1),
                };
                if let Some(base) = base {
                    let mut found = Vec::new();
                    let end = path_tree(&t, j, &base, &mut |p, n| {
                        if let Some(n) = n {
                            found.push((here.clone(), n.to_string(), p.to_vec()));
                        }
                    });
                    bindings.extend(found);
                    i = end;
                    continue;
                }
            }
            Tok::Ident(k)
                if (k == "crate" || k == "super") && t.get(i + 1) == Some(&Tok::PathSep) =>
            {
                // Not the tail of a longer path (`a::crate` does not occur; `$crate::` does).
                let mut base: Vec<String> = if k == "crate" { Vec::new() } else { here.clone() };
                if k == "super" {
                    base.pop();
                }
                let mut j = i + 2;
                while t.get(j) == Some(&Tok::Ident("super".into()))
                    && t.get(j + 1) == Some(&Tok::PathSep)
                {
                    base.pop();
                    j += 2;
                }
                let mut found = Vec::new();
                let in_use = i > 0 && t[i - 1] == Tok::Ident("use".into());
                j = path_tree(&t, j, &base, &mut |p, n| {
                    found.push((p.to_vec(), n.map(String::from)))
                });
                for (p, n) in found {
                    if let (true, Some(n)) = (in_use, n) {
                        bindings.push((here.clone(), n, p.clone()));
                    }
                    out.push((here.clone(), p));
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    (out, bindings)
}

/// The longest prefix of `path` that is a module of the crate.
fn resolve(modules: &BTreeSet<String>, path: &[String]) -> String {
    module_prefix(modules, path).0
}

/// The longest prefix of `path` that is a module of the crate, and its length.
fn module_prefix(modules: &BTreeSet<String>, path: &[String]) -> (String, usize) {
    (0..=path.len())
        .rev()
        .map(|n| (path[..n].join("::"), n))
        .find(|(m, _)| modules.contains(m))
        .unwrap_or_default()
}

/// The module `path` refers to, following the names modules import (`bindings`: the
/// module and name -> the path it stands for): `crate::Medium` is the module that
/// defines `Medium`, if the crate root imports it from there.
fn resolve_through(
    modules: &BTreeSet<String>,
    bindings: &BTreeMap<(String, String), Vec<String>>,
    path: &[String],
) -> String {
    let mut path = path.to_vec();
    // A bound: `use` items that name each other in a circle do not compile anyway.
    for _ in 0..16 {
        let (m, n) = module_prefix(modules, &path);
        let Some(target) = path.get(n).and_then(|name| bindings.get(&(m.clone(), name.clone())))
        else {
            return m;
        };
        path = target.iter().chain(&path[n + 1..]).cloned().collect();
    }
    module_prefix(modules, &path).0
}

fn crate_graph(dir: &Path) -> Graph {
    let src = dir.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let files: Vec<(String, PathBuf)> =
        files.into_iter().filter_map(|f| module_of(&src, &f).map(|m| (m, f))).collect();
    let sources: Vec<(String, String)> = files
        .into_iter()
        .map(|(m, f)| (m, std::fs::read_to_string(f).expect("readable source")))
        .collect();
    graph_of(&sources)
}

/// The graph of a crate given as (module path, source text) pairs.
fn graph_of(sources: &[(String, String)]) -> Graph {
    let modules: BTreeSet<String> = sources.iter().map(|(m, _)| m.clone()).collect();
    let mut refs = Vec::new();
    let mut bindings = BTreeMap::new();
    for (m, text) in sources {
        let segs: Vec<String> =
            if m.is_empty() { Vec::new() } else { m.split("::").map(String::from).collect() };
        let (r, b) = scan(&segs, &code_only(text), &modules);
        refs.push((m.clone(), r));
        for (scope, name, target) in b {
            bindings.entry((scope.join("::"), name)).or_insert(target);
        }
    }
    let mut g = Graph::default();
    for (m, r) in refs {
        let entry = g.edges.entry(m.clone()).or_default();
        for (_, target) in r {
            let to = resolve_through(&modules, &bindings, &target);
            if to != m {
                entry.insert(to);
            }
        }
    }
    g
}

/// Strongly connected components of more than one module (Tarjan), each sorted.
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(next) = s.g.edges.get(v) {
            for w in next {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(lw);
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).expect("visited");
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in g.edges.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

fn name(m: &str) -> &str {
    if m.is_empty() {
        "(crate root)"
    } else {
        m
    }
}

#[test]
fn no_crate_has_a_module_cycle() {
    let crates_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&crates_dir)
        .expect("crates/ is readable")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("Cargo.toml").is_file() && p.join("src").is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() > 5, "found only {dirs:?} under {}", crates_dir.display());
    let mut failures = Vec::new();
    for dir in &dirs {
        let krate = dir.file_name().expect("crate directory").to_string_lossy().to_string();
        let g = crate_graph(dir);
        for c in cycles(&g) {
            let allowed = ALLOWED.iter().any(|(k, ms)| {
                *k == krate && ms.len() == c.len() && ms.iter().zip(&c).all(|(a, b)| a == b)
            });
            if !allowed {
                let edges: Vec<String> = c
                    .iter()
                    .flat_map(|m| {
                        g.edges[m]
                            .iter()
                            .filter(|t| c.contains(t))
                            .map(move |t| format!("{} -> {}", name(m), name(t)))
                    })
                    .collect();
                failures.push(format!(
                    "{krate}: modules {:?} import each other in a circle ({})",
                    c.iter().map(|m| name(m)).collect::<Vec<_>>(),
                    edges.join(", ")
                ));
            }
        }
    }
    assert!(failures.is_empty(), "module cycles:\n{}", failures.join("\n"));
}

#[test]
fn the_scanner_sees_use_trees_inline_paths_and_super() {
    let code = code_only(
        "use crate::{a::X, b::{c::Y, Z}};\n// use crate::comment::X;\nlet s = \"crate::str\";\n\
         fn f() { crate::d::g(); }\nmod tests { use super::*; use super::super::e::W; }\n",
    );
    let refs = references(&["m".to_string()], &code);
    let paths: Vec<String> = refs.iter().map(|(_, p)| p.join("::")).collect();
    assert_eq!(paths, ["a::X", "b::c::Y", "b::Z", "d::g", "m", "e::W"]);
    let modules: BTreeSet<String> =
        ["", "a", "b", "b::c", "d", "e", "m"].iter().map(|s| s.to_string()).collect();
    let segs = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    assert_eq!(resolve(&modules, &segs("b::c::Y")), "b::c");
    assert_eq!(resolve(&modules, &segs("Medium")), "");
    let mut g = Graph::default();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        g.edges.entry(a.into()).or_default().insert(b.into());
    }
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".into(), "c".into()]]);
}

#[test]
fn a_name_imported_at_the_root_leads_to_the_module_that_defines_it() {
    let src = |m: &str, code: &str| (m.to_string(), code.to_string());
    let g = graph_of(&[
        src(
            "",
            "mod a; mod b; mod c; mod d;\npub use a::X;\npub use b::{W as Z};\nuse std::fmt;\n",
        ),
        // crate::Z is b::W, which b imports from c.
        src("a", "pub struct X;\nfn f() { crate::Z::new(); }\n"),
        src("b", "pub use crate::c::W;\nfn g() -> crate::X { todo!() }\n"),
        src("c", "pub struct W;\nfn h() { let _ = crate::a::X; }\n"),
        // std is no module of the crate: crate::fmt stays at the root.
        src("d", "fn k(_: &dyn crate::fmt::Debug) {}\n"),
    ]);
    let edges = |m: &str| g.edges[m].iter().cloned().collect::<Vec<_>>();
    assert_eq!(edges("a"), ["c"]);
    assert_eq!(edges("b"), ["a", "c"]);
    assert_eq!(edges("c"), ["a"]);
    assert_eq!(edges("d"), [""]);
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "c".into()]]);
}
