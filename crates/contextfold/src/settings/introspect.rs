//! The field names of a settings struct, read from its `Deserialize` impl: the one list
//! that unknown-key errors (with the nearest name) and the key lists of the bindings use,
//! so that adding a field to the struct is all it takes.

use serde::de::{self, Deserialize, Deserializer, Visitor};

/// A deserializer that only records the field names a struct asks for.
struct Fields(Option<&'static [&'static str]>);

#[derive(Debug)]
struct Done;

impl std::fmt::Display for Done {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field names read")
    }
}

impl std::error::Error for Done {}

impl de::Error for Done {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Done
    }
}

impl<'de> Deserializer<'de> for &mut Fields {
    type Error = Done;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Done> {
        Err(Done)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Done> {
        self.0 = Some(fields);
        Err(Done)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// The serialized field names of struct `T` (after `rename`s), in declaration order.
pub fn field_names<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut fields = Fields(None);
    let _ = T::deserialize(&mut fields);
    fields.0.unwrap_or_default()
}
