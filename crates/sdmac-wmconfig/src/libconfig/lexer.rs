//! The lexer: libconfig text into names, punctuation and scalar literals, each with
//! its position; comments and string escapes are handled here.

use super::{Pos, Value, ValueKind};

#[derive(Debug)]
pub(super) enum Tok<'a> {
    Name(&'a str),
    Scalar(ValueKind),
    Str(String),
    Punct(u8),
    Eof,
}

pub(super) struct Token<'a> {
    pub(super) tok: Tok<'a>,
    pub(super) pos: Pos,
}

pub(super) fn describe_tok(tok: &Tok<'_>) -> String {
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

pub(super) struct LexError {
    pub(super) pos: Pos,
    pub(super) message: String,
}

#[derive(Clone)]
pub(super) struct Lexer<'a> {
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
    pub(super) fn new(src: &'a str) -> Lexer<'a> {
        Lexer { src, i: 0, line: 1, col: 1 }
    }

    pub(super) fn pos(&self) -> Pos {
        Pos::new(self.line, self.col)
    }

    pub(super) fn byte(&self, j: usize) -> u8 {
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

    pub(super) fn err<T>(&self, pos: Pos, message: impl Into<String>) -> Result<T, LexError> {
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

    pub(super) fn next_token(&mut self) -> Result<Token<'a>, LexError> {
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

    pub(super) fn number(&mut self) -> Result<ValueKind, LexError> {
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
    pub(super) fn suffix(&self, k: &mut usize) -> bool {
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

    pub(super) fn string(&mut self) -> Result<String, LexError> {
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
