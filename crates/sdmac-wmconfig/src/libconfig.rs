//! A parser of the libconfig file format (the syntax of wmediumd and yawmd
//! configurations), written for this crate from the format's documentation.
//!
//! # Grammar
//!
//! ```text
//! configuration = setting* EOF
//! setting       = name ( "=" | ":" ) value [ ";" | "," ]
//! value         = scalar | array | list | group
//! array         = "[" [ scalar ( "," scalar )* [ "," ] ] "]"   -- scalars of one type
//! list          = "(" [ value  ( "," value  )* [ "," ] ] ")"   -- any values
//! group         = "{" setting* "}"
//! scalar        = string+ | boolean | integer | integer64 | hex | hex64 | float
//! name          = [A-Za-z*][-A-Za-z0-9_*]*
//! ```
//!
//! - Integers: decimal with an optional sign (`-12`, `+3`), hexadecimal (`0x1F`, no
//!   sign); an `L` or `LL` suffix makes a 64-bit integer ([`ValueKind::Int64`]), and so
//!   does a value that does not fit 32 bits. Values outside 64 bits are errors, except
//!   that hexadecimal numbers up to `0xFFFFFFFFFFFFFFFF` are taken as the two's
//!   complement bit pattern (as C's `strtoull` stored into a `long long` does).
//! - Floats: `1.5`, `.5`, `1.`, `-2.5e-3`, `1e9` (a number with a `.` or an exponent).
//! - Booleans: `true` / `false` in any case.
//! - Strings: double-quoted, adjacent strings concatenated (`"ab" "cd"`, also across
//!   lines and comments); escapes `\\ \" \' \n \r \t \f \a \b \v \xHH`. `\xHH` gives the
//!   character U+00HH (strings are UTF-8 here; the C library stores the raw byte). Any
//!   other backslash (`\q`, `\x` without two hex digits) is kept as written, as
//!   libconfig does.
//! - Comments: `# ...`, `// ...` to the end of the line, `/* ... */`.
//! - `@include` is reported as unsupported (with its line), never followed.
//!
//! As in libconfig (and unlike Python's `libconf`): array elements must all have one
//! type (integers of 32 and 64 bits count as one), a name may not be set twice in a
//! group, and decimal integers may have leading zeros (`007` is 7).
//!
//! Every [`Setting`] and every [`Value`] carries its [`Pos`] (1-based line and column,
//! the column counted in characters). Positions are not part of equality: two trees
//! are equal when their names and values are.
//!
//! Nesting is limited to [`MAX_DEPTH`] levels, so no input can exhaust the stack; no
//! input makes the parser panic.

mod lexer;
mod parser;
mod printers;
#[cfg(test)]
mod tests;

use lexer::{describe_tok, Lexer, Tok, Token};
pub use parser::parse;

use printers::{format_float, quote_into};
pub use printers::{to_json_string, to_libconfig_string};

/// Deepest nesting of arrays, lists and groups the parser accepts.
pub const MAX_DEPTH: usize = 100;

/// A position in the text: 1-based line and column (characters, a tab counts as one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl Pos {
    /// The position at `line`, `column`.
    pub const fn new(line: u32, column: u32) -> Pos {
        Pos { line, column }
    }
}

/// A value and where it starts in the text.
#[derive(Clone, Debug)]
pub struct Value {
    /// What the value is.
    pub kind: ValueKind,
    /// Where its first character is.
    pub pos: Pos,
}

impl PartialEq for Value {
    /// Compares the values only, not their positions.
    fn eq(&self, other: &Value) -> bool {
        self.kind == other.kind
    }
}

/// The kinds of libconfig values.
#[derive(Clone, Debug, PartialEq)]
pub enum ValueKind {
    /// A 32-bit integer (decimal or hexadecimal, no `L` suffix).
    Int(i32),
    /// A 64-bit integer (`L` suffix, or too large for 32 bits).
    Int64(i64),
    /// A floating-point number.
    Float(f64),
    /// `true` or `false`.
    Bool(bool),
    /// A string (adjacent literals already concatenated, escapes decoded).
    Str(String),
    /// `[ ... ]`: scalars of one type.
    Array(Vec<Value>),
    /// `( ... )`: any values.
    List(Vec<Value>),
    /// `{ ... }`: named settings.
    Group(Group),
}

/// A named setting and where its name starts.
#[derive(Clone, Debug)]
pub struct Setting {
    /// The setting's name.
    pub name: String,
    /// Its value.
    pub value: Value,
    /// Where the name starts (the setting's line is `pos.line`).
    pub pos: Pos,
}

impl PartialEq for Setting {
    /// Compares names and values only, not positions.
    fn eq(&self, other: &Setting) -> bool {
        self.name == other.name && self.value == other.value
    }
}

/// An ordered set of settings with distinct names: a `{ ... }` group, or the whole file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    /// The settings, in file order.
    pub settings: Vec<Setting>,
}

impl Group {
    /// The setting called `name`.
    pub fn get(&self, name: &str) -> Option<&Setting> {
        self.settings.iter().find(|s| s.name == name)
    }

    /// The settings in file order.
    pub fn iter(&self) -> std::slice::Iter<'_, Setting> {
        self.settings.iter()
    }

    /// Number of settings.
    pub fn len(&self) -> usize {
        self.settings.len()
    }

    /// Whether there are no settings.
    pub fn is_empty(&self) -> bool {
        self.settings.is_empty()
    }
}

impl<'a> IntoIterator for &'a Group {
    type Item = &'a Setting;
    type IntoIter = std::slice::Iter<'a, Setting>;
    fn into_iter(self) -> Self::IntoIter {
        self.settings.iter()
    }
}

impl Value {
    /// A value at `pos`.
    pub fn new(kind: ValueKind, pos: Pos) -> Value {
        Value { kind, pos }
    }

    /// The type for messages: "an integer", "a float", "a list", ...
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            ValueKind::Int(_) => "an integer",
            ValueKind::Int64(_) => "a 64-bit integer",
            ValueKind::Float(_) => "a float",
            ValueKind::Bool(_) => "a boolean",
            ValueKind::Str(_) => "a string",
            ValueKind::Array(_) => "an array [ ... ]",
            ValueKind::List(_) => "a list ( ... )",
            ValueKind::Group(_) => "a group { ... }",
        }
    }

    /// A short rendering for messages: the scalar as written, `[...]`, `(...)`, `{...}`.
    pub fn describe(&self) -> String {
        match &self.kind {
            ValueKind::Int(i) => i.to_string(),
            ValueKind::Int64(i) => format!("{i}L"),
            ValueKind::Float(x) => format_float(*x),
            ValueKind::Bool(b) => b.to_string(),
            ValueKind::Str(s) => {
                let mut out = String::new();
                let short: String = s.chars().take(40).collect();
                quote_into(&mut out, &short);
                if short.len() < s.len() {
                    out.insert_str(out.len() - 1, "...");
                }
                out
            }
            ValueKind::Array(_) => "[...]".to_string(),
            ValueKind::List(_) => "(...)".to_string(),
            ValueKind::Group(_) => "{...}".to_string(),
        }
    }

    /// The integer, of 32 or 64 bits.
    pub fn as_i64(&self) -> Option<i64> {
        match self.kind {
            ValueKind::Int(i) => Some(i64::from(i)),
            ValueKind::Int64(i) => Some(i),
            _ => None,
        }
    }

    /// The number: a float, or an integer converted to one.
    pub fn as_f64(&self) -> Option<f64> {
        match self.kind {
            ValueKind::Float(x) => Some(x),
            ValueKind::Int(i) => Some(f64::from(i)),
            ValueKind::Int64(i) => Some(i as f64),
            _ => None,
        }
    }

    /// The boolean.
    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            ValueKind::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ValueKind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The group.
    pub fn as_group(&self) -> Option<&Group> {
        match &self.kind {
            ValueKind::Group(g) => Some(g),
            _ => None,
        }
    }

    /// The elements of an array or a list.
    pub fn elements(&self) -> Option<&[Value]> {
        match &self.kind {
            ValueKind::Array(v) | ValueKind::List(v) => Some(v),
            _ => None,
        }
    }

    /// Whether the value is a scalar (not an array, list or group).
    pub fn is_scalar(&self) -> bool {
        !matches!(self.kind, ValueKind::Array(_) | ValueKind::List(_) | ValueKind::Group(_))
    }
}
