//! A records file's JSON, read as serde_json reads it except that a key an object repeats is an
//! error (serde_json keeps the last value silently, and the first one's text would be lost).

use serde_json::{Map, Value};

/// Why a records file is not JSON askzico reads.
pub(super) enum Invalid {
    Syntax(serde_json::Error),
    /// A key an object holds twice (shown escaped, at most 80 characters), at the line of its
    /// second occurrence.
    Duplicate {
        key: String,
        line: usize,
    },
}

/// `serde_json::from_str::<Value>`, except that a key repeated within one object is an error:
/// serde_json keeps the last value silently, and the first one's text would be lost.
pub(super) fn parse_unique(text: &str) -> Result<Value, Invalid> {
    let dup = std::cell::RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = serde::de::DeserializeSeed::deserialize(Unique(&dup), &mut de)
        .and_then(|v| de.end().map(|()| v));
    parsed.map_err(|e| match dup.into_inner() {
        Some(key) => Invalid::Duplicate {
            key,
            line: e.line(),
        },
        None => Invalid::Syntax(e),
    })
}

/// Builds a `Value` as serde_json's own visitor does, refusing a repeated key; the key is left
/// in the cell so that the caller can tell this error from a syntax error. The error is raised
/// right after the key is read, so serde_json places it at the key's line.
#[derive(Clone, Copy)]
struct Unique<'a>(&'a std::cell::RefCell<Option<String>>);

impl<'de> serde::de::DeserializeSeed<'de> for Unique<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Unique<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        serde::de::DeserializeSeed::deserialize(self, d)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if m.contains_key(&key) {
                let shown: String = key.chars().take(80).flat_map(char::escape_debug).collect();
                *self.0.borrow_mut() = Some(shown);
                return Err(serde::de::Error::custom("duplicate key"));
            }
            let v = map.next_value_seed(self)?;
            m.insert(key, v);
        }
        Ok(Value::Object(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicate(text: &str) -> Option<(String, usize)> {
        match parse_unique(text) {
            Err(Invalid::Duplicate { key, line }) => Some((key, line)),
            _ => None,
        }
    }

    #[test]
    fn a_repeated_key_is_named_with_its_line_at_any_depth() {
        assert_eq!(
            duplicate("{\"c\": [1],\n \"c\": [2]}"),
            Some(("c".into(), 2))
        );
        let nested = "[\n {\"a\": {\"x\": 1,\n\n   \"y\": 2, \"x\": 3}}\n]";
        assert_eq!(duplicate(nested), Some(("x".into(), 4)));
        // The same key in two objects, or escaped differently but equal, is one key each.
        assert!(parse_unique("[{\"a\": 1}, {\"a\": 2}]").is_ok());
        assert_eq!(
            duplicate("{\"\\u0061\": 1, \"a\": 2}"),
            Some(("a".into(), 1))
        );
    }

    #[test]
    fn values_equal_serde_json_s_own() {
        let text = r#"{"n": [0, -1, 18446744073709551615, 1.5e300, -0.0, 3.25], "s": "a\"\u00e9\ud83d\ude00",
            "t": true, "f": false, "z": null, "o": {"k": {"deep": [[], {}]}}, "e": ""}"#;
        let ours = parse_unique(text).ok().expect("valid JSON");
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(
            serde_json::to_string(&ours).unwrap(),
            serde_json::to_string(&theirs).unwrap(),
            "key order kept"
        );
    }

    #[test]
    fn syntax_errors_stay_syntax_errors() {
        for bad in ["{\"a\": 1,}", "[1, 2", "{\"a\" 1}", "{} {}", ""] {
            assert!(
                matches!(parse_unique(bad), Err(Invalid::Syntax(_))),
                "{bad:?}"
            );
        }
        // serde_json's recursion limit still holds (no stack overflow on deep input).
        let deep = "[".repeat(100_000);
        assert!(matches!(parse_unique(&deep), Err(Invalid::Syntax(_))));
    }
}
