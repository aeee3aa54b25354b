//! Tests of the libconfig lexer, parser and printers.

use super::*;
use crate::ConfigError;

fn p(text: &str) -> Group {
    match parse(text, "t.cfg") {
        Ok(g) => g,
        Err(e) => panic!("{e}"),
    }
}

fn e(text: &str) -> ConfigError {
    match parse(text, "t.cfg") {
        Ok(g) => panic!("accepted: {g:?}"),
        Err(e) => e,
    }
}

fn kind<'g>(g: &'g Group, name: &str) -> &'g ValueKind {
    &g.get(name).unwrap_or_else(|| panic!("no {name}")).value.kind
}

#[test]
fn settings_with_both_separators_and_optional_terminators() {
    let g = p("a = 1; b : 2, c = 3\nd=4");
    assert_eq!(g.len(), 4);
    assert_eq!(kind(&g, "a"), &ValueKind::Int(1));
    assert_eq!(kind(&g, "b"), &ValueKind::Int(2));
    assert_eq!(kind(&g, "c"), &ValueKind::Int(3));
    assert_eq!(kind(&g, "d"), &ValueKind::Int(4));
    assert_eq!(g.get("d").unwrap().pos, Pos::new(2, 1));
    assert!(p("").is_empty());
    assert!(p("  # only a comment\n").is_empty());
}

#[test]
fn integers_hex_and_long_suffix() {
    let g = p("a = 0x1F; b = 0XffL; c = 12L; d = 12LL; e = -2147483648; f = 2147483648; \
               g = -9223372036854775808L; h = 0xFFFFFFFFFFFFFFFFL; i = 0x80000000; j = +7; k = 007;");
    assert_eq!(kind(&g, "a"), &ValueKind::Int(31));
    assert_eq!(kind(&g, "b"), &ValueKind::Int64(255));
    assert_eq!(kind(&g, "c"), &ValueKind::Int64(12));
    assert_eq!(kind(&g, "d"), &ValueKind::Int64(12));
    assert_eq!(kind(&g, "e"), &ValueKind::Int(i32::MIN));
    assert_eq!(kind(&g, "f"), &ValueKind::Int64(2147483648));
    assert_eq!(kind(&g, "g"), &ValueKind::Int64(i64::MIN));
    assert_eq!(kind(&g, "h"), &ValueKind::Int64(-1));
    assert_eq!(kind(&g, "i"), &ValueKind::Int64(0x8000_0000));
    assert_eq!(kind(&g, "j"), &ValueKind::Int(7));
    assert_eq!(kind(&g, "k"), &ValueKind::Int(7));
    let err = e("x = 9223372036854775808;");
    assert_eq!((err.line, err.column), (1, 5));
    assert!(err.message.contains("does not fit in 64 bits"), "{err}");
    assert!(e("x = 0x10000000000000000;").message.contains("64 bits"));
    assert!(e("x = -0x10;").message.contains("sign"));
    assert!(e("x = 0x;").message.contains("hexadecimal digits"));
}

#[test]
fn floats() {
    let g = p("a = 1.5; b = .5; c = 1.; d = -2.5e-3; e = 1e9; f = 1.E+2; g = -0.0; h = 1e999;");
    assert_eq!(kind(&g, "a"), &ValueKind::Float(1.5));
    assert_eq!(kind(&g, "b"), &ValueKind::Float(0.5));
    assert_eq!(kind(&g, "c"), &ValueKind::Float(1.0));
    assert_eq!(kind(&g, "d"), &ValueKind::Float(-2.5e-3));
    assert_eq!(kind(&g, "e"), &ValueKind::Float(1e9));
    assert_eq!(kind(&g, "f"), &ValueKind::Float(100.0));
    assert_eq!(kind(&g, "g"), &ValueKind::Float(0.0));
    assert_eq!(kind(&g, "h"), &ValueKind::Float(f64::INFINITY));
    let err = e("x = .;");
    assert!(err.message.contains("malformed number"), "{err}");
    assert!(e("x = -;").message.contains("no digits"));
    // `1e` is the integer 1 followed by the name `e`, which needs `=`.
    assert!(e("x = 1e;").message.contains("after `e`"));
}

#[test]
fn booleans_any_case() {
    let g = p("a = true; b = FALSE; c = True; d = fAlSe;");
    assert_eq!(kind(&g, "a"), &ValueKind::Bool(true));
    assert_eq!(kind(&g, "b"), &ValueKind::Bool(false));
    assert_eq!(kind(&g, "c"), &ValueKind::Bool(true));
    assert_eq!(kind(&g, "d"), &ValueKind::Bool(false));
    // A name that is a boolean cannot be set.
    assert!(e("true = 1;").message.contains("expected a setting name"));
}

#[test]
fn strings_escapes_and_concatenation() {
    let g = p(r#"a = "x\"y\\z\n\t\x41\q"; b = "ab" /* c */ "cd" # e
                "ef"; c = ""; d = "é ü";"#);
    assert_eq!(kind(&g, "a"), &ValueKind::Str("x\"y\\z\n\tA\\q".into()));
    assert_eq!(kind(&g, "b"), &ValueKind::Str("abcdef".into()));
    assert_eq!(kind(&g, "c"), &ValueKind::Str(String::new()));
    assert_eq!(kind(&g, "d"), &ValueKind::Str("é ü".into()));
    let err = e("a = 1;\n  b = \"open\n");
    assert_eq!((err.line, err.column, err.key_path.as_deref()), (2, 7, Some("b")));
    assert!(err.message.contains("unterminated string"));
    let g = p(r#"s = "ab\xZZ\x4"; t = "\x4a\x0""#);
    assert_eq!(kind(&g, "s"), &ValueKind::Str("ab\\xZZ\\x4".into()));
    assert_eq!(kind(&g, "t"), &ValueKind::Str("J\\x0".into()));
    let err = e("s = \"ab\\\n\";");
    assert_eq!((err.line, err.column), (1, 8));
    assert!(err.message.contains("backslash at the end of a line"), "{err}");
}

#[test]
fn comments_of_all_three_kinds() {
    let g =
        p("# hash\na = 1; // slashes\n/* block\n spanning */ b = /* inline */ 2;\nc = 3; # end");
    assert_eq!(g.len(), 3);
    assert_eq!(g.get("b").unwrap().pos, Pos::new(4, 14));
    assert_eq!(g.get("c").unwrap().pos, Pos::new(5, 1));
    let err = e("a = 1;\n/* never closed\nb = 2;");
    assert_eq!((err.line, err.column), (2, 1));
    assert!(err.message.contains("unterminated comment"));
}

#[test]
fn nested_groups_lists_and_arrays() {
    let g = p("m : { n = { x = [1, 2, 3,]; l = ( (1, 2.0), \"s\", { k = true; }, [], () ); }; };");
    let m = g.get("m").unwrap().value.as_group().unwrap();
    let n = m.get("n").unwrap().value.as_group().unwrap();
    let x = n.get("x").unwrap();
    assert!(matches!(&x.value.kind, ValueKind::Array(v) if v.len() == 3));
    let l = n.get("l").unwrap().value.elements().unwrap();
    assert_eq!(l.len(), 5);
    assert!(matches!(&l[0].kind, ValueKind::List(v) if v[1].kind == ValueKind::Float(2.0)));
    assert_eq!(l[1].kind, ValueKind::Str("s".into()));
    assert_eq!(l[2].as_group().unwrap().get("k").unwrap().value.as_bool(), Some(true));
    assert_eq!(l[3].kind, ValueKind::Array(vec![]));
    assert_eq!(l[4].kind, ValueKind::List(vec![]));
    assert_eq!(l[2].pos, Pos::new(1, 50));
}

#[test]
fn errors_have_exact_line_column_and_key() {
    let err = e("model :\n{\n  links = (\n    (0, 1, 10),\n    (0, 2 20)\n  );\n};");
    assert_eq!((err.line, err.column), (5, 11));
    assert_eq!(err.key_path.as_deref(), Some("model.links[1]"));
    assert_eq!(
        err.to_string(),
        "t.cfg:5:11: model.links[1]: expected `,` or `)`, found integer (20)"
    );
    let err = e("a = [1, 2.0];");
    assert_eq!((err.line, err.column, err.key_path.as_deref()), (1, 9, Some("a[1]")));
    assert!(err.message.contains("same type"), "{err}");
    let err = e("a = [(1)];");
    assert!(err.message.contains("only scalars"), "{err}");
    let err = e("g = { a = 1; a = 2; };");
    assert_eq!((err.line, err.column, err.key_path.as_deref()), (1, 14, Some("g.a")));
    assert!(err.message.contains("set twice"));
    let err = e("a = 1;\nb = ;");
    assert_eq!(err.to_string(), "t.cfg:2:5: b: expected a value, found `;`");
    let err = e("a = { b = 1;");
    assert!(err.message.contains("has no `}`"), "{err}");
    let err = e("a = (1, 2");
    assert!(err.message.contains("has no `)`"), "{err}");
    let err = e("a 1;");
    assert_eq!(err.to_string(), "t.cfg:1:3: a: expected `=` or `:` after `a`, found integer (1)");
    let err = e("= 1;");
    assert_eq!(err.to_string(), "t.cfg:1:1: expected a setting name, found `=`");
    let err = e("a = 1;\n\n  @include \"other.cfg\"\n");
    assert_eq!((err.line, err.column), (3, 3));
    assert!(err.message.contains("@include"));
    let err = e("a = 1; $");
    assert_eq!((err.line, err.column), (1, 8));
    let err = e("a = [1,,2];");
    assert!(err.message.contains("expected a value"));
}

#[test]
fn columns_count_characters_not_bytes() {
    let err = e("s = \"ééé\"; !");
    assert_eq!((err.line, err.column), (1, 12));
}

#[test]
fn depth_is_limited() {
    let deep = format!("a = {}{};", "(".repeat(MAX_DEPTH + 1), ")".repeat(MAX_DEPTH + 1));
    assert!(e(&deep).message.contains("nesting deeper"));
    let ok = format!("a = {}{};", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    p(&ok);
}

#[test]
fn printer_round_trips() {
    let text = "a = 1; b = 5L; c = 1e-7; d = \"q\\\"\\x01é\"; e = [true, false]; \
                f = ({ g = (1, [2.5, 3.0]); }, \"x\"); h = -0.5; i = 1e300; j = 1e999;";
    let g = p(text);
    let printed = to_libconfig_string(&g);
    assert_eq!(p(&printed), g, "{printed}");
}

#[test]
fn json_is_tagged() {
    let g = p("a = (1, 2.5, \"s\", [true]); b = { c = 3L; };");
    assert_eq!(
        to_json_string(&g),
        r#"{"group":[["a",{"list":[{"int":1},{"float":2.5},{"str":"s"},{"array":[{"bool":true}]}]}],["b",{"group":[["c",{"int":3}]]}]]}"#
    );
}
