//! Step 1 of [`super::valid::parse`]: text → [`Value`], duplicate keys rejected (serde_json would
//! silently keep the last one, and the contract says a typo must never be ignored).

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Number, Value};

use super::error::{Res, ScenarioError};

/// A `Value` built by a visitor that refuses a key seen twice in one object.
struct StrictValue(Value);

impl<'de> Deserialize<'de> for StrictValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = StrictValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, b: bool) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(n)))
    }
    fn visit_u64<E>(self, n: u64) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::from(n)))
    }
    fn visit_f64<E>(self, x: f64) -> Result<StrictValue, E> {
        Ok(StrictValue(
            Number::from_f64(x).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_str<E>(self, s: &str) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::String(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::String(s)))
    }
    fn visit_unit<E>(self) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Null))
    }
    fn visit_none<E>(self) -> Result<StrictValue, E> {
        Ok(StrictValue(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<StrictValue, D::Error> {
        StrictValue::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrictValue, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(StrictValue(Value::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrictValue, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!("duplicate field `{key}`")));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(StrictValue(Value::Object(out)))
    }
}

pub(crate) fn parse_json(text: &str) -> Res<Value> {
    serde_json::from_str::<StrictValue>(text)
        .map(|v| v.0)
        .map_err(|e| {
            let (line, column) = (e.line(), e.column());
            let full = e.to_string();
            let what = full
                .strip_suffix(&format!(" at line {line} column {column}"))
                .unwrap_or(&full);
            let hint = match e.classify() {
                serde_json::error::Category::Eof => {
                    "the document ends too early: close every `{` and `[`"
                }
                serde_json::error::Category::Data if what.starts_with("duplicate field") => {
                    "a key may appear once per object: remove one of them"
                }
                _ => "fix the JSON syntax there (a missing comma or quote, a trailing comma?)",
            };
            ScenarioError::new(
                "",
                format!("invalid JSON at line {line}, column {column}: {what}"),
                hint,
            )
        })
}
