//! Printers: a tree written back out as libconfig text or as JSON.

use super::{Group, Value, ValueKind};
use std::fmt::Write as _;

pub(super) fn format_float(x: f64) -> String {
    if x.is_nan() {
        "nan".to_string() // not representable in libconfig
    } else if x.is_infinite() {
        if x > 0.0 { "1e999" } else { "-1e999" }.to_string()
    } else {
        // Debug is the shortest text that reads back to the same f64, and always has
        // a `.` or an exponent, so it reads back as a float.
        format!("{x:?}")
    }
}

pub(super) fn quote_into(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0c' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn write_value(out: &mut String, v: &Value, level: usize) {
    match &v.kind {
        ValueKind::Str(s) => quote_into(out, s),
        ValueKind::Array(items) | ValueKind::List(items) => {
            let (open, close) =
                if matches!(v.kind, ValueKind::Array(_)) { ('[', ']') } else { ('(', ')') };
            out.push(open);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item, level);
            }
            out.push(close);
        }
        ValueKind::Group(g) => {
            out.push_str("{\n");
            write_settings(out, g, level + 1);
            indent(out, level);
            out.push('}');
        }
        _ => out.push_str(&v.describe()),
    }
}

fn write_settings(out: &mut String, g: &Group, level: usize) {
    for s in &g.settings {
        indent(out, level);
        out.push_str(&s.name);
        out.push_str(" = ");
        write_value(out, &s.value, level);
        out.push_str(";\n");
    }
}

/// Prints a tree in libconfig syntax; [`parse`](super::parse) reads it back to an equal tree (for
/// any tree whose names are valid libconfig names, unique within each group, and
/// whose floats are not NaN).
pub fn to_libconfig_string(root: &Group) -> String {
    let mut out = String::new();
    write_settings(&mut out, root, 0);
    out
}

fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json_value(out: &mut String, v: &Value) {
    match &v.kind {
        ValueKind::Int(i) => {
            let _ = write!(out, "{{\"int\":{i}}}");
        }
        ValueKind::Int64(i) => {
            let _ = write!(out, "{{\"int\":{i}}}");
        }
        ValueKind::Float(x) => {
            let text = if x.is_nan() {
                "NaN".to_string()
            } else if x.is_infinite() {
                if *x > 0.0 { "Infinity" } else { "-Infinity" }.to_string()
            } else {
                format!("{x:?}")
            };
            let _ = write!(out, "{{\"float\":{text}}}");
        }
        ValueKind::Bool(b) => {
            let _ = write!(out, "{{\"bool\":{b}}}");
        }
        ValueKind::Str(s) => {
            out.push_str("{\"str\":");
            json_string(out, s);
            out.push('}');
        }
        ValueKind::Array(items) | ValueKind::List(items) => {
            let tag = if matches!(v.kind, ValueKind::Array(_)) { "array" } else { "list" };
            let _ = write!(out, "{{\"{tag}\":[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_value(out, item);
            }
            out.push_str("]}");
        }
        ValueKind::Group(g) => json_group(out, g),
    }
}

fn json_group(out: &mut String, g: &Group) {
    out.push_str("{\"group\":[");
    for (i, s) in g.settings.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        json_string(out, &s.name);
        out.push(',');
        json_value(out, &s.value);
        out.push(']');
    }
    out.push_str("]}");
}

/// The tree as tagged JSON, for debugging and for comparing with other parsers:
/// `{"group":[["name",V],...]}`, `{"list":[V,...]}`, `{"array":[V,...]}`,
/// `{"int":N}` (both widths), `{"float":X}`, `{"bool":B}`, `{"str":"..."}`.
/// Infinite floats are written `Infinity` / `-Infinity` (as Python's `json` does).
pub fn to_json_string(root: &Group) -> String {
    let mut out = String::new();
    json_group(&mut out, root);
    out
}
