//! The parser: tokens into a tree of settings, checking array element types,
//! repeated names and nesting depth as it goes.

use super::{describe_tok, Group, Lexer, Pos, Setting, Tok, Token, Value, ValueKind, MAX_DEPTH};
use crate::ConfigError;
use std::collections::HashMap;
use std::fmt::Write as _;

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

    pub(super) fn next(&mut self) -> Result<Token<'a>, ConfigError> {
        self.peek()?;
        Ok(self.peeked.take().expect("peeked token"))
    }

    fn peek_punct(&mut self, c: u8) -> Result<bool, ConfigError> {
        Ok(matches!(self.peek()?.tok, Tok::Punct(p) if p == c))
    }

    /// Settings up to the end of the file (`close == None`) or a `}` (not consumed).
    pub(super) fn settings(&mut self, close: Option<(u8, Pos)>) -> Result<Group, ConfigError> {
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
    pub(super) fn setting(
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

    pub(super) fn value(&mut self) -> Result<Value, ConfigError> {
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
    pub(super) fn strings(&mut self, first: String, pos: Pos) -> Result<Value, ConfigError> {
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
