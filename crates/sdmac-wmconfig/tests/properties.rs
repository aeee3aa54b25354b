//! Properties of the parser: it never panics, and printing a tree in libconfig syntax
//! and parsing it again gives the same tree.

use proptest::prelude::*;
use sdmac_wmconfig::libconfig::{
    parse, to_libconfig_string, Group, Pos, Setting, Value, ValueKind,
};
use sdmac_wmconfig::wmediumd::parse_config;

fn v(kind: ValueKind) -> Value {
    Value::new(kind, Pos::default())
}

fn name() -> impl Strategy<Value = String> {
    "[A-Za-z*][-A-Za-z0-9_*]{0,8}".prop_filter("a boolean is not a name", |n| {
        !n.eq_ignore_ascii_case("true") && !n.eq_ignore_ascii_case("false")
    })
}

fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        8 => any::<f64>().prop_filter("finite", |x| x.is_finite()),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        1 => Just(-0.0),
        2 => (-1000i32..1000).prop_map(|i| f64::from(i) / 8.0),
    ]
}

fn integer() -> impl Strategy<Value = ValueKind> {
    prop_oneof![any::<i32>().prop_map(ValueKind::Int), any::<i64>().prop_map(ValueKind::Int64)]
}

fn scalar() -> impl Strategy<Value = ValueKind> {
    prop_oneof![
        integer(),
        float().prop_map(ValueKind::Float),
        any::<bool>().prop_map(ValueKind::Bool),
        any::<String>().prop_map(ValueKind::Str),
        "[ -~]{0,12}".prop_map(ValueKind::Str),
    ]
}

/// Arrays hold scalars of one class (integers of both widths are one class).
fn array() -> impl Strategy<Value = ValueKind> {
    let items = |s: BoxedStrategy<ValueKind>| {
        prop::collection::vec(s.prop_map(v), 0..5).prop_map(ValueKind::Array)
    };
    prop_oneof![
        items(integer().boxed()),
        items(float().prop_map(ValueKind::Float).boxed()),
        items(any::<bool>().prop_map(ValueKind::Bool).boxed()),
        items(any::<String>().prop_map(ValueKind::Str).boxed()),
    ]
}

fn unique(settings: Vec<(String, Value)>) -> Group {
    let mut g = Group::default();
    for (name, value) in settings {
        if g.get(&name).is_none() {
            g.settings.push(Setting { name, value, pos: Pos::default() });
        }
    }
    g
}

fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![3 => scalar(), 1 => array()].prop_map(v);
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(|items| v(ValueKind::List(items))),
            prop::collection::vec((name(), inner), 0..5)
                .prop_map(|s| v(ValueKind::Group(unique(s)))),
        ]
    })
}

fn tree() -> impl Strategy<Value = Group> {
    prop::collection::vec((name(), value()), 0..6).prop_map(unique)
}

/// Bits of libconfig, valid and not, to glue together into token soup.
const PIECES: &[&str] = &[
    "a",
    "ids",
    "model",
    " = ",
    ":",
    ";",
    ",",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "\"s\"",
    "\"",
    "\"02:00:00:00:00:00\"",
    "1",
    "-7",
    "0x1F",
    "0x",
    "12L",
    "1LL",
    "1.5",
    ".5",
    "1.",
    "-",
    "+",
    "e5",
    "1e",
    "true",
    "FALSE",
    "# c\n",
    "// c\n",
    "/*",
    "*/",
    "\\",
    "\\x4",
    "@include \"x\"",
    " ",
    "\n",
    "\t",
    "é",
    "\0",
    "type = \"snr\";",
    "links = ((0, 1, 2));",
    "ifaces",
    "medium",
    "interfaces",
    "type",
    "\"path_loss\"",
    "model_name",
    "positions",
    "tx_powers",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..60).prop_map(|p| p.concat())
}

const SAMPLE: &str = r#"ifaces : { ids = ["02:00:00:00:00:00", "02:00:00:00:01:00", "02:00:00:00:02:00"];
  enable_interference = true; medium_array = ((0, 1), (2)); };
model : { type = "path_loss"; positions = ((0.0, 0.0), (10.0, 0.0, 1.0), (5, 5));
  directions = ((0.0, 1.0), (0.0, 0.0), (1.0, 1.0)); tx_powers = (15, 15.0, 11);
  isnodeaps = (1, 0, 0); model_name = "itu"; nFLOORS = 1; lF = 5; pL = 0;
  noise_threshold = -91; fading_coefficient = 2; };
medium = ( { id = 1; interfaces = ["02:00:00:00:03:00"]; model = { type = "prob"; links = ((0, 0, 0.5)); }; } );
"#;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn print_then_parse_is_identity(g in tree()) {
        let text = to_libconfig_string(&g);
        match parse(&text, "gen.cfg") {
            Ok(back) => prop_assert_eq!(back, g, "{}", text),
            Err(e) => prop_assert!(false, "{}\n{}", e, text),
        }
    }

    #[test]
    fn never_panics_on_any_string(s in any::<String>()) {
        let _ = parse(&s, "any.cfg");
        let _ = parse_config(&s, "any.cfg");
    }

    #[test]
    fn never_panics_on_token_soup(s in soup()) {
        if let Ok(g) = parse(&s, "soup.cfg") {
            // Whatever parses prints back to the same tree.
            let text = to_libconfig_string(&g);
            prop_assert_eq!(parse(&text, "again.cfg").ok(), Some(g), "{:?} -> {}", s, text);
        }
        let _ = parse_config(&s, "soup.cfg");
    }

    #[test]
    fn never_panics_on_mutated_configs(
        cut in 0usize..SAMPLE.len(),
        len in 0usize..40,
        insert in prop::sample::select(PIECES),
    ) {
        // Delete a range and insert a piece: the interpretation layer sees near-valid trees.
        let bytes = SAMPLE.as_bytes();
        let end = (cut + len).min(bytes.len());
        let mut text = String::from_utf8_lossy(&bytes[..cut]).into_owned();
        text.push_str(insert);
        text.push_str(&String::from_utf8_lossy(&bytes[end..]));
        if let Err(e) = parse_config(&text, "m.cfg") {
            prop_assert!(e.line >= 1 && e.column >= 1, "{}", e);
        }
    }
}

#[test]
fn sample_is_valid() {
    // The mutation property starts from a configuration that loads (as wmediumd:
    // `medium` makes it yawmd, so drop it first).
    let wm = SAMPLE.split("medium =").next().unwrap_or(SAMPLE);
    let c = parse_config(wm, "sample.cfg").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.media[0].interfaces.len(), 3);
    let c = parse_config(SAMPLE, "sample.cfg").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(c.media.len(), 1);
}
