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

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::ConfigError;

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

// ---------------------------------------------------------------------------- lexer

#[derive(Debug)]
enum Tok<'a> {
    Name(&'a str),
    Scalar(ValueKind),
    Str(String),
    Punct(u8),
    Eof,
}

struct Token<'a> {
    tok: Tok<'a>,
    pos: Pos,
}

fn describe_tok(tok: &Tok<'_>) -> String {
    match tok {
        Tok::Name(n) => format!("name `{n}`"),
        Tok::Scalar(k) => {
            let v = Value::new(k.clone(), Pos::default());
            format!(
                "{} ({})",
                &v.type_name()[v.type_name().find(' ').map_or(0, |i| i + 1)..],
                v.describe()
            )
        }
        Tok::Str(s) => Value::new(ValueKind::Str(s.clone()), Pos::default()).describe(),
        Tok::Punct(c) => format!("`{}`", *c as char),
        Tok::Eof => "the end of the file".to_string(),
    }
}

struct LexError {
    pos: Pos,
    message: String,
}

#[derive(Clone)]
struct Lexer<'a> {
    src: &'a str,
    i: usize,
    line: u32,
    col: u32,
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'*'
}

fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'*')
}

impl<'a> Lexer<'a> {
    fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, i: 0, line: 1, col: 1 }
    }

    fn pos(&self) -> Pos {
        Pos::new(self.line, self.col)
    }

    fn byte(&self, j: usize) -> u8 {
        self.src.as_bytes().get(j).copied().unwrap_or(0)
    }

    /// Moves to byte offset `j` (≥ the current one), counting lines and columns.
    fn advance_to(&mut self, j: usize) {
        let j = j.min(self.src.len());
        for &b in &self.src.as_bytes()[self.i.min(j)..j] {
            if b == b'\n' {
                self.line = self.line.saturating_add(1);
                self.col = 1;
            } else if b & 0xC0 != 0x80 {
                self.col = self.col.saturating_add(1);
            }
        }
        self.i = j;
    }

    /// The position of byte offset `j` (≥ the current one).
    fn pos_at(&self, j: usize) -> Pos {
        let mut l = self.clone();
        l.advance_to(j);
        l.pos()
    }

    fn err<T>(&self, pos: Pos, message: impl Into<String>) -> Result<T, LexError> {
        Err(LexError { pos, message: message.into() })
    }

    fn skip_blanks(&mut self) -> Result<(), LexError> {
        let bytes = self.src.as_bytes();
        loop {
            match self.byte(self.i) {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c => self.advance_to(self.i + 1),
                b'#' => self.skip_line(),
                b'/' if self.byte(self.i + 1) == b'/' => self.skip_line(),
                b'/' if self.byte(self.i + 1) == b'*' => {
                    let start = self.pos();
                    match find(&bytes[self.i + 2..], b"*/") {
                        Some(k) => self.advance_to(self.i + 2 + k + 2),
                        None => return self.err(start, "unterminated comment: `/*` without `*/`"),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn skip_line(&mut self) {
        let rest = &self.src.as_bytes()[self.i..];
        let end = rest.iter().position(|&b| b == b'\n').map_or(self.src.len(), |k| self.i + k);
        self.advance_to(end);
    }

    fn next_token(&mut self) -> Result<Token<'a>, LexError> {
        self.skip_blanks()?;
        let pos = self.pos();
        if self.i >= self.src.len() {
            return Ok(Token { tok: Tok::Eof, pos });
        }
        let c = self.byte(self.i);
        let tok = match c {
            b'{' | b'}' | b'[' | b']' | b'(' | b')' | b',' | b';' | b'=' | b':' => {
                self.advance_to(self.i + 1);
                Tok::Punct(c)
            }
            b'"' => Tok::Str(self.string()?),
            b'0'..=b'9' | b'-' | b'+' | b'.' => Tok::Scalar(self.number()?),
            _ if is_name_start(c) => {
                let start = self.i;
                let mut j = start + 1;
                while is_name_char(self.byte(j)) {
                    j += 1;
                }
                let name = &self.src[start..j];
                self.advance_to(j);
                if name.eq_ignore_ascii_case("true") {
                    Tok::Scalar(ValueKind::Bool(true))
                } else if name.eq_ignore_ascii_case("false") {
                    Tok::Scalar(ValueKind::Bool(false))
                } else {
                    Tok::Name(name)
                }
            }
            b'@' if self.src[self.i..].starts_with("@include") => {
                return self.err(
                    pos,
                    "`@include` is not supported: put the included settings in this file",
                );
            }
            _ => {
                let ch = self.src[self.i..].chars().next().unwrap_or('?');
                return self.err(pos, format!("unexpected character {ch:?}"));
            }
        };
        Ok(Token { tok, pos })
    }

    fn number(&mut self) -> Result<ValueKind, LexError> {
        let start = self.i;
        let pos = self.pos();
        let mut j = start;
        let negative = self.byte(j) == b'-';
        let signed = matches!(self.byte(j), b'-' | b'+');
        if signed {
            j += 1;
        }
        if self.byte(j) == b'0' && matches!(self.byte(j + 1), b'x' | b'X') {
            if signed {
                return self.err(pos, "a hexadecimal number cannot have a sign");
            }
            let digits_start = j + 2;
            let mut k = digits_start;
            let mut value: u64 = 0;
            let mut overflow = false;
            while let Some(d) = (self.byte(k) as char).to_digit(16) {
                match value.checked_mul(16).and_then(|v| v.checked_add(u64::from(d))) {
                    Some(v) => value = v,
                    None => overflow = true,
                }
                k += 1;
            }
            if k == digits_start {
                return self.err(pos, "`0x` must be followed by hexadecimal digits");
            }
            if overflow {
                return self.err(pos, format!("{} does not fit in 64 bits", &self.src[start..k]));
            }
            let long = self.suffix(&mut k);
            self.advance_to(k);
            return Ok(if !long && value <= i32::MAX as u64 {
                ValueKind::Int(value as i32)
            } else {
                // Above i64::MAX: the bit pattern, as strtoull stored in a long long.
                ValueKind::Int64(value as i64)
            });
        }
        let d1 = j;
        while self.byte(j).is_ascii_digit() {
            j += 1;
        }
        let int_digits = &self.src[d1..j];
        let mut frac_digits = "";
        let has_dot = self.byte(j) == b'.';
        if has_dot {
            j += 1;
            let d2 = j;
            while self.byte(j).is_ascii_digit() {
                j += 1;
            }
            frac_digits = &self.src[d2..j];
        }
        let mut exponent = "";
        if matches!(self.byte(j), b'e' | b'E') && (has_dot || !int_digits.is_empty()) {
            let mut k = j + 1;
            if matches!(self.byte(k), b'-' | b'+') {
                k += 1;
            }
            if self.byte(k).is_ascii_digit() {
                while self.byte(k).is_ascii_digit() {
                    k += 1;
                }
                exponent = &self.src[j + 1..k];
                j = k;
            }
        }
        if int_digits.is_empty() && frac_digits.is_empty() {
            let text = &self.src[start..j.max(start + 1)];
            return self.err(pos, format!("malformed number `{text}`: no digits"));
        }
        if has_dot || !exponent.is_empty() {
            let mut normal = String::with_capacity(j - start + 4);
            if negative {
                normal.push('-');
            }
            normal.push_str(if int_digits.is_empty() { "0" } else { int_digits });
            normal.push('.');
            normal.push_str(if frac_digits.is_empty() { "0" } else { frac_digits });
            if !exponent.is_empty() {
                normal.push('e');
                normal.push_str(exponent);
            }
            let x: f64 = match normal.parse() {
                Ok(x) => x,
                Err(_) => {
                    return self.err(pos, format!("malformed float `{}`", &self.src[start..j]))
                }
            };
            self.advance_to(j);
            return Ok(ValueKind::Float(x));
        }
        // A decimal integer: magnitude up to 2^63 (for i64::MIN).
        let mut magnitude: u64 = 0;
        let mut overflow = false;
        for d in int_digits.bytes() {
            match magnitude.checked_mul(10).and_then(|v| v.checked_add(u64::from(d - b'0'))) {
                Some(v) => magnitude = v,
                None => overflow = true,
            }
        }
        let limit = if negative { 1u64 << 63 } else { i64::MAX as u64 };
        if overflow || magnitude > limit {
            return self
                .err(pos, format!("integer {} does not fit in 64 bits", &self.src[start..j]));
        }
        let value = if negative { (magnitude as i64).wrapping_neg() } else { magnitude as i64 };
        let long = self.suffix(&mut j);
        self.advance_to(j);
        Ok(match i32::try_from(value) {
            Ok(v) if !long => ValueKind::Int(v),
            _ => ValueKind::Int64(value),
        })
    }

    /// Consumes an `L` or `LL` suffix at byte `*k`.
    fn suffix(&self, k: &mut usize) -> bool {
        if self.byte(*k) == b'L' {
            *k += 1;
            if self.byte(*k) == b'L' {
                *k += 1;
            }
            true
        } else {
            false
        }
    }

    fn string(&mut self) -> Result<String, LexError> {
        let open = self.pos();
        let bytes = self.src.as_bytes();
        let mut out = String::new();
        let mut j = self.i + 1;
        loop {
            let Some(&b) = bytes.get(j) else {
                return self.err(open, "unterminated string: no closing `\"`");
            };
            match b {
                b'"' => {
                    j += 1;
                    break;
                }
                b'\\' => {
                    let Some(&e) = bytes.get(j + 1) else {
                        return self.err(open, "unterminated string: no closing `\"`");
                    };
                    let simple = match e {
                        b'\\' => Some('\\'),
                        b'"' => Some('"'),
                        b'\'' => Some('\''),
                        b'n' => Some('\n'),
                        b'r' => Some('\r'),
                        b't' => Some('\t'),
                        b'f' => Some('\x0c'),
                        b'a' => Some('\x07'),
                        b'b' => Some('\x08'),
                        b'v' => Some('\x0b'),
                        _ => None,
                    };
                    if let Some(ch) = simple {
                        out.push(ch);
                        j += 2;
                    } else if let (b'x', Some(h), Some(l)) = (
                        e,
                        (self.byte(j + 2) as char).to_digit(16),
                        (self.byte(j + 3) as char).to_digit(16),
                    ) {
                        out.push(char::from((h * 16 + l) as u8));
                        j += 4;
                    } else if e == b'\n' || e == b'\r' {
                        return self
                            .err(self.pos_at(j), "backslash at the end of a line inside a string");
                    } else {
                        // Not an escape: the backslash stays, the next character is read normally.
                        out.push('\\');
                        j += 1;
                    }
                }
                _ => {
                    let run = bytes[j..]
                        .iter()
                        .position(|&c| c == b'"' || c == b'\\')
                        .map_or(bytes.len(), |k| j + k);
                    out.push_str(&self.src[j..run]);
                    j = run;
                }
            }
        }
        self.advance_to(j);
        Ok(out)
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

// --------------------------------------------------------------------------- parser

enum Seg {
    Name(String),
    Index(usize),
}

struct Parser<'a> {
    lexer: Lexer<'a>,
    file: &'a str,
    peeked: Option<Token<'a>>,
    path: Vec<Seg>,
    depth: usize,
}

/// Formats a key path: names joined by `.`, indices as `[i]`.
fn path_string(path: &[Seg]) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    let mut s = String::new();
    for seg in path {
        match seg {
            Seg::Name(n) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(n);
            }
            Seg::Index(i) => {
                let _ = write!(s, "[{i}]");
            }
        }
    }
    Some(s)
}

impl<'a> Parser<'a> {
    fn error(&self, pos: Pos, message: impl Into<String>) -> ConfigError {
        ConfigError::new(self.file, pos, path_string(&self.path), message)
    }

    fn peek(&mut self) -> Result<&Token<'a>, ConfigError> {
        if self.peeked.is_none() {
            let t = self.lexer.next_token().map_err(|e| self.error(e.pos, e.message))?;
            self.peeked = Some(t);
        }
        // Just filled above.
        Ok(self.peeked.as_ref().expect("peeked token"))
    }

    fn next(&mut self) -> Result<Token<'a>, ConfigError> {
        self.peek()?;
        Ok(self.peeked.take().expect("peeked token"))
    }

    fn peek_punct(&mut self, c: u8) -> Result<bool, ConfigError> {
        Ok(matches!(self.peek()?.tok, Tok::Punct(p) if p == c))
    }

    /// Settings up to the end of the file (`close == None`) or a `}` (not consumed).
    fn settings(&mut self, close: Option<(u8, Pos)>) -> Result<Group, ConfigError> {
        let mut group = Group::default();
        // Name → line of its setting, to refuse a second one in linear time.
        let mut seen: HashMap<&'a str, u32> = HashMap::new();
        loop {
            let t = self.peek()?;
            let pos = t.pos;
            match t.tok {
                Tok::Eof if close.is_none() => return Ok(group),
                Tok::Eof => {
                    let open = close.map(|c| c.1).unwrap_or_default();
                    return Err(self.error(
                        pos,
                        format!(
                            "unexpected end of file: the group opened at line {} has no `}}`",
                            open.line
                        ),
                    ));
                }
                Tok::Punct(b'}') if close.is_some() => return Ok(group),
                Tok::Name(name) => {
                    let first = seen.get(name).copied();
                    let setting = self.setting(name, pos, first)?;
                    seen.insert(name, pos.line);
                    group.settings.push(setting);
                }
                ref other => {
                    let expected =
                        if close.is_some() { "a setting name or `}`" } else { "a setting name" };
                    let found = describe_tok(other);
                    return Err(self.error(pos, format!("expected {expected}, found {found}")));
                }
            }
        }
    }

    /// A setting; `first_line` is the line of an earlier setting of the same name.
    fn setting(
        &mut self,
        name: &'a str,
        pos: Pos,
        first_line: Option<u32>,
    ) -> Result<Setting, ConfigError> {
        self.next()?; // the name
        self.path.push(Seg::Name(name.to_string()));
        if let Some(line) = first_line {
            let msg = format!("`{name}` is set twice in the same group (first at line {line})");
            return Err(self.error(pos, msg));
        }
        let t = self.next()?;
        if !matches!(t.tok, Tok::Punct(b'=' | b':')) {
            let found = describe_tok(&t.tok);
            return Err(
                self.error(t.pos, format!("expected `=` or `:` after `{name}`, found {found}"))
            );
        }
        let value = self.value()?;
        if self.peek_punct(b';')? || self.peek_punct(b',')? {
            self.next()?;
        }
        self.path.pop();
        Ok(Setting { name: name.to_string(), value, pos })
    }

    fn value(&mut self) -> Result<Value, ConfigError> {
        let t = self.next()?;
        let pos = t.pos;
        match t.tok {
            Tok::Scalar(kind) => Ok(Value::new(kind, pos)),
            Tok::Str(s) => self.strings(s, pos),
            Tok::Punct(open @ (b'[' | b'(' | b'{')) => {
                if self.depth >= MAX_DEPTH {
                    return Err(self.error(pos, format!("nesting deeper than {MAX_DEPTH} levels")));
                }
                self.depth += 1;
                let kind = match open {
                    b'[' => ValueKind::Array(self.sequence(b']', pos, true)?),
                    b'(' => ValueKind::List(self.sequence(b')', pos, false)?),
                    _ => {
                        let g = self.settings(Some((b'}', pos)))?;
                        self.next()?; // `}`
                        ValueKind::Group(g)
                    }
                };
                self.depth -= 1;
                Ok(Value::new(kind, pos))
            }
            Tok::Eof => Err(self.error(pos, "unexpected end of file: expected a value")),
            ref other => {
                Err(self.error(pos, format!("expected a value, found {}", describe_tok(other))))
            }
        }
    }

    /// Concatenates adjacent string literals.
    fn strings(&mut self, first: String, pos: Pos) -> Result<Value, ConfigError> {
        let mut s = first;
        while let Tok::Str(_) = self.peek()?.tok {
            if let Tok::Str(more) = self.next()?.tok {
                s.push_str(&more);
            }
        }
        Ok(Value::new(ValueKind::Str(s), pos))
    }

    /// The elements of an array (`scalars_only`) or list, after the opening bracket.
    fn sequence(
        &mut self,
        close: u8,
        open: Pos,
        scalars_only: bool,
    ) -> Result<Vec<Value>, ConfigError> {
        let mut items: Vec<Value> = Vec::new();
        loop {
            if self.peek_punct(close)? {
                self.next()?;
                return Ok(items);
            }
            self.path.push(Seg::Index(items.len()));
            if let Tok::Eof = self.peek()?.tok {
                let pos = self.peek()?.pos;
                let what = if scalars_only { "array" } else { "list" };
                return Err(self.error(
                    pos,
                    format!(
                        "unexpected end of file: the {what} opened at line {} has no `{}`",
                        open.line, close as char
                    ),
                ));
            }
            let item = self.value()?;
            if scalars_only {
                if !item.is_scalar() {
                    return Err(self.error(
                        item.pos,
                        format!(
                            "an array holds only scalars, found {}; use a list `( ... )` for nested values",
                            item.type_name()
                        ),
                    ));
                }
                if let Some(first) = items.first() {
                    if scalar_class(first) != scalar_class(&item) {
                        return Err(self.error(
                            item.pos,
                            format!(
                                "array elements must all have the same type: element 0 is {}, this one is {}",
                                first.type_name(),
                                item.type_name()
                            ),
                        ));
                    }
                }
            }
            items.push(item);
            self.path.pop();
            let t = self.next()?;
            match t.tok {
                Tok::Punct(b',') => {}
                Tok::Punct(c) if c == close => return Ok(items),
                Tok::Eof => {
                    let what = if scalars_only { "array" } else { "list" };
                    let msg = format!(
                        "unexpected end of file: the {what} opened at line {} has no `{}`",
                        open.line, close as char
                    );
                    return Err(self.error(t.pos, msg));
                }
                ref other => {
                    let found = describe_tok(other);
                    let msg = format!("expected `,` or `{}`, found {found}", close as char);
                    return Err(self.error(t.pos, msg));
                }
            }
        }
    }
}

/// Array element classes: integers of both widths are one class.
fn scalar_class(v: &Value) -> u8 {
    match v.kind {
        ValueKind::Int(_) | ValueKind::Int64(_) => 0,
        ValueKind::Float(_) => 1,
        ValueKind::Bool(_) => 2,
        ValueKind::Str(_) => 3,
        _ => 4,
    }
}

/// Parses libconfig text; `file` is only used in errors.
pub fn parse(text: &str, file: &str) -> Result<Group, ConfigError> {
    let mut parser =
        Parser { lexer: Lexer::new(text), file, peeked: None, path: Vec::new(), depth: 0 };
    parser.settings(None)
}

// -------------------------------------------------------------------------- printers

fn format_float(x: f64) -> String {
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

fn quote_into(out: &mut String, s: &str) {
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

/// Prints a tree in libconfig syntax; [`parse`] reads it back to an equal tree (for
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let g = p(
            "# hash\na = 1; // slashes\n/* block\n spanning */ b = /* inline */ 2;\nc = 3; # end",
        );
        assert_eq!(g.len(), 3);
        assert_eq!(g.get("b").unwrap().pos, Pos::new(4, 14));
        assert_eq!(g.get("c").unwrap().pos, Pos::new(5, 1));
        let err = e("a = 1;\n/* never closed\nb = 2;");
        assert_eq!((err.line, err.column), (2, 1));
        assert!(err.message.contains("unterminated comment"));
    }

    #[test]
    fn nested_groups_lists_and_arrays() {
        let g =
            p("m : { n = { x = [1, 2, 3,]; l = ( (1, 2.0), \"s\", { k = true; }, [], () ); }; };");
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
        assert_eq!(
            err.to_string(),
            "t.cfg:1:3: a: expected `=` or `:` after `a`, found integer (1)"
        );
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
}
