//! The keys of `corpus.toml`, listed from the config's own types: a probe deserializer walks
//! each table's `Deserialize` impl and records every field it asks for, with the kind of value
//! it takes. A key added to a type is listed without anyone listing it; the property test of
//! incremental builds changes every key this lists.

use std::cell::RefCell;

use serde::de::value::{BorrowedStrDeserializer, Error, U64Deserializer};
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, Visitor};

use super::raw;

/// What a key takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyKind {
    Bool,
    Int,
    Float,
    Str,
    /// One of these names.
    Enum(Vec<&'static str>),
    /// Several shapes (a bool or a list, a string or a list).
    Any,
}

/// One key of `corpus.toml`: its path (`library.records.id_match.pattern`; `[]` an element of
/// an array, `*` a name of the user's: `env.*.libraries[]`) and what it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    pub path: String,
    pub kind: KeyKind,
}

/// Every key of `corpus.toml`, in the order the types declare them.
pub fn keys() -> Vec<Key> {
    let out = RefCell::new(Vec::new());
    for table in raw::KEYS {
        match *table {
            "corpus" => probe::<raw::RawCorpus>(table, &out),
            "chunking" => probe::<raw::RawChunking>(table, &out),
            "normalize" => probe::<crate::normalize::Rules>(table, &out),
            "aliases" => probe::<raw::RawAliases>(table, &out),
            "alias" => probe::<crate::normalize::aliases::Alias>(table, &out),
            "glossary" => probe::<raw::RawGlossaryTerm>(table, &out),
            "collision" => probe::<super::Collision>(table, &out),
            "embedding" => probe::<raw::RawEmbedding>(table, &out),
            "retrieval" => probe::<crate::retrieve::RetrievalSettings>(table, &out),
            "library" => probe::<raw::RawLibrary>(table, &out),
            "env" => probe::<std::collections::BTreeMap<String, raw::RawEnv>>(table, &out),
            "inspect" => probe::<raw::RawInspect>(table, &out),
            "deploy" => probe::<std::collections::BTreeMap<String, raw::RawDeploy>>(table, &out),
            other => panic!("top-level key `{other}` has no type in config::keys"),
        }
    }
    out.into_inner()
}

fn probe<T: DeserializeOwned>(path: &str, out: &RefCell<Vec<Key>>) {
    if let Err(e) = T::deserialize(Probe {
        path: path.to_string(),
        out,
    }) {
        panic!("probing the keys of `{path}`: {e}");
    }
}

/// The deserializer that answers every request with a value of the kind asked for, recording
/// the request's path and kind.
struct Probe<'a> {
    path: String,
    out: &'a RefCell<Vec<Key>>,
}

const SPANNED: &str = "$__serde_spanned_private_Spanned";
const SPANNED_VALUE: &str = "$__serde_spanned_private_value";

impl Probe<'_> {
    fn record(&self, kind: KeyKind) {
        self.out.borrow_mut().push(Key {
            path: self.path.clone(),
            kind,
        });
    }

    fn at(&self, step: &str) -> Self {
        Probe {
            path: format!("{}.{step}", self.path),
            out: self.out,
        }
    }
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        // An untagged choice of shapes: an empty list fits each one askzico has.
        self.record(KeyKind::Any);
        v.visit_seq(Items::<Probe<'_>>(Vec::new()))
    }
    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.record(KeyKind::Bool);
        v.visit_bool(false)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_u64(v)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_u64(v)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_u64(v)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_u64(v)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_u64(v)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_u64(v)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_u64(v)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.record(KeyKind::Int);
        v.visit_u64(1)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_f64(v)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.record(KeyKind::Float);
        v.visit_f64(1.0)
    }
    fn deserialize_char<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.record(KeyKind::Str);
        v.visit_char('x')
    }
    fn deserialize_str<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.record(KeyKind::Str);
        v.visit_str("x")
    }
    fn deserialize_string<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_str(v)
    }
    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_str(v)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_str(v)
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_some(self)
    }
    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_unit()
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let item = Probe {
            path: format!("{}[]", self.path),
            out: self.out,
        };
        v.visit_seq(Items(vec![item]))
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, v: V) -> Result<V::Value, Error> {
        let items = (0..len)
            .map(|i| Probe {
                path: format!("{}[{i}]", self.path),
                out: self.out,
            })
            .collect();
        v.visit_seq(Items(items))
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        len: usize,
        v: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_tuple(len, v)
    }
    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        // One entry, named by the user (`[env.NAME]`): its value's keys are listed under `*`.
        v.visit_map(Fields(vec![("*", Value::Probe(self.at("*")))]))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        let entries = fields
            .iter()
            .map(|f| {
                let value = if name != SPANNED {
                    Value::Probe(self.at(f))
                } else if *f == SPANNED_VALUE {
                    // A span is the value's own, at the value's path.
                    Value::Probe(Probe {
                        path: self.path.clone(),
                        out: self.out,
                    })
                } else {
                    Value::Zero
                };
                (*f, value)
            })
            .collect();
        v.visit_map(Fields(entries))
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.record(KeyKind::Enum(variants.to_vec()));
        v.visit_enum(FirstVariant(variants.first().copied().unwrap_or_default()))
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_str("")
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_unit()
    }
}

/// A field's value: probed, or a span's bound (zero).
enum Value<'a> {
    Probe(Probe<'a>),
    Zero,
}

/// The entries of a probed table, in order.
struct Fields<'a>(Vec<(&'static str, Value<'a>)>);

impl<'de, 'a> de::MapAccess<'de> for Fields<'a> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.0.first() {
            None => Ok(None),
            Some((name, _)) => seed
                .deserialize(BorrowedStrDeserializer::<'de, Error>::new(name))
                .map(Some),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let (_, value) = self.0.remove(0);
        match value {
            Value::Probe(p) => seed.deserialize(p),
            Value::Zero => seed.deserialize(U64Deserializer::<Error>::new(0)),
        }
    }
}

/// The items of a probed array.
struct Items<P>(Vec<P>);

impl<'de, 'a> de::SeqAccess<'de> for Items<Probe<'a>> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        if self.0.is_empty() {
            return Ok(None);
        }
        seed.deserialize(self.0.remove(0)).map(Some)
    }
}

/// An enum's first variant, as a unit variant.
struct FirstVariant(&'static str);

impl<'de> de::EnumAccess<'de> for FirstVariant {
    type Error = Error;
    type Variant = FirstVariant;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let name: de::value::StrDeserializer<'_, Error> = self.0.into_deserializer();
        Ok((seed.deserialize(name)?, self))
    }
}

impl<'de> de::VariantAccess<'de> for FirstVariant {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }
    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, _: S) -> Result<S::Value, Error> {
        Err(de::Error::custom("the key probe takes unit variants only"))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, Error> {
        Err(de::Error::custom("the key probe takes unit variants only"))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Error> {
        Err(de::Error::custom("the key probe takes unit variants only"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_is_listed_down_to_its_leaves() {
        let keys = keys();
        let has = |p: &str| keys.iter().find(|k| k.path == p).map(|k| k.kind.clone());
        assert_eq!(has("corpus.id_width"), Some(KeyKind::Int));
        assert_eq!(has("corpus.strict_ids"), Some(KeyKind::Bool));
        assert_eq!(has("library.records.id_match.pattern"), Some(KeyKind::Str));
        assert_eq!(has("library.records.id_match.field"), Some(KeyKind::Str));
        assert_eq!(has("library.include[]"), Some(KeyKind::Str));
        assert_eq!(has("library.url_index"), Some(KeyKind::Any));
        assert_eq!(has("env.*.libraries[]"), Some(KeyKind::Str));
        assert_eq!(has("normalize.fold_alef_hamza"), Some(KeyKind::Bool));
        assert_eq!(
            has("library.format"),
            Some(KeyKind::Enum(vec!["markdown", "mdx", "html", "json"]))
        );
        assert_eq!(has("retrieval.lexical_weight"), Some(KeyKind::Float));
        // No key twice.
        let mut paths: Vec<&str> = keys.iter().map(|k| k.path.as_str()).collect();
        paths.sort_unstable();
        let n = paths.len();
        paths.dedup();
        assert_eq!(paths.len(), n, "{paths:?}");
    }
}
