//! From a codec's name and JSON configuration to a core [`Codec`], through the one name table:
//! shared by v2 (`compressor`, `filters`) and v3 (`codecs`).

use std::cell::RefCell;

use serde_json::{Map, Value};
use zinto_core::codec::filter::{Elem, NumType};
use zinto_core::codec::{
    ChecksumSpec, Codec, CodecName, Compressor, Config, ConfigValue, Endian, Filter,
};
use zinto_core::dtype::Number;

use super::DataType;
use super::MetadataError;

/// A JSON object seen as a codec [`Config`], noting which of its fields the codec asked for:
/// a field it never asked for is one zinto does not understand ([`JsonConfig::unread`]).
pub(crate) struct JsonConfig<'a> {
    object: &'a Map<String, Value>,
    asked: RefCell<Vec<&'a str>>,
}

impl<'a> JsonConfig<'a> {
    pub(crate) fn new(object: &'a Map<String, Value>) -> Self {
        Self {
            object,
            asked: RefCell::new(Vec::new()),
        }
    }

    /// The first field of the object, in its order, that the codec never asked for and that
    /// is not one of `also_known` (v2's `id`).
    pub(crate) fn unread(&self, also_known: &[&str]) -> Option<&'a str> {
        let asked = self.asked.borrow();
        self.object
            .keys()
            .map(String::as_str)
            .find(|k| !asked.contains(k) && !also_known.contains(k))
    }
}

impl Config for JsonConfig<'_> {
    fn get(&self, key: &str) -> Option<ConfigValue<'_>> {
        let first = key.split_once('/').map_or(key, |(first, _)| first);
        if let Some((name, _)) = self.object.get_key_value(first) {
            let mut asked = self.asked.borrow_mut();
            if !asked.contains(&name.as_str()) {
                asked.push(name.as_str());
            }
        }
        let value = match key.split_once('/') {
            Some((first, rest)) => self.object.get(first)?.pointer(&format!("/{rest}"))?,
            None => self.object.get(key)?,
        };
        Some(match value {
            Value::Null => ConfigValue::Null,
            Value::Bool(b) => ConfigValue::Bool(*b),
            Value::String(s) => ConfigValue::Str(s),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => ConfigValue::Int(i),
                (None, Some(u), _) => ConfigValue::UInt(u),
                (_, _, Some(f)) => ConfigValue::Float(f),
                // serde_json (without `arbitrary_precision`, which zinto does not enable) holds
                // every number as an i64, a u64 or an f64: this arm is never taken.
                _ => {
                    debug_assert!(false, "a JSON number that is no i64, u64 or f64: {n}");
                    ConfigValue::Float(f64::NAN)
                }
            },
            Value::Array(a) => ConfigValue::List(a.len()),
            Value::Object(o) => ConfigValue::Object(o.len()),
        })
    }
}

/// The element type filters see for an array of `dtype` stored in `endian` order, if numeric.
pub(crate) fn filter_elem(dtype: DataType, endian: Option<Endian>) -> Option<Elem> {
    let number = match dtype {
        // Counts of a unit, stored as int64.
        DataType::DateTime64(_) | DataType::TimeDelta64(_) => Number::Int64,
        _ => dtype.number()?,
    };
    let ty = NumType::from_number(number)?;
    Some(Elem::new(ty, endian.unwrap_or(Endian::NATIVE)))
}

/// The codec `name` configured by `config`: a compressor, a checksum or a filter. `decoded` is
/// the element type a filter here decodes to. `Ok(None)` if the name is one of the structural
/// codecs (`bytes`, `transpose`, `sharding_indexed`), which the caller handles. A field the
/// codec does not read is refused by name ([`MetadataError::UnknownField`]), but those in
/// `also_known` (a v2 object's `id`): ignoring it could read the data wrong.
pub(crate) fn configured(
    name: CodecName,
    config: &Map<String, Value>,
    decoded: Option<Elem>,
    also_known: &[&str],
) -> Result<Option<Codec>, MetadataError> {
    let cfg = JsonConfig::new(config);
    let chain = MetadataError::Chain;
    let codec = if let Some(c) = Compressor::from_config(name, &cfg).map_err(chain)? {
        Codec::Compressor(c)
    } else if let Some(c) = ChecksumSpec::from_config(name, &cfg).map_err(chain)? {
        Codec::Checksum(c)
    } else if let Some(f) = Filter::from_config(name, &cfg, decoded).map_err(chain)? {
        Codec::Filter(f)
    } else {
        return Ok(None);
    };
    match cfg.unread(also_known) {
        Some(field) => Err(MetadataError::UnknownField {
            codec: name.name().to_owned(),
            field: field.to_owned(),
        }),
        None => Ok(Some(codec)),
    }
}

/// Refuses a field of `config` (the codec `codec`'s) other than `known`: the structural codecs
/// and grids, whose fields the metadata parser reads itself.
pub(crate) fn only_fields(
    codec: &str,
    config: &Map<String, Value>,
    known: &[&str],
) -> Result<(), MetadataError> {
    match config.keys().find(|k| !known.contains(&k.as_str())) {
        Some(field) => Err(MetadataError::UnknownField {
            codec: codec.to_owned(),
            field: field.clone(),
        }),
        None => Ok(()),
    }
}

/// The element type after `codec` (for the next filter), given the one before it.
pub(crate) fn elem_after(codec: &Codec, before: Option<Elem>) -> Option<Elem> {
    match codec {
        Codec::Filter(f) => f.encoded_elem().or(before),
        _ => before,
    }
}

/// The table `codec` decodes with, laid out from its configuration: `categorize`'s labels for
/// an array of `elem_size`-byte elements (its first filter, as numcodecs requires); empty for
/// every other codec.
pub(crate) fn filter_table(
    codec: &Codec,
    config: &Map<String, Value>,
    elem_size: usize,
    first: bool,
) -> Result<Vec<u8>, MetadataError> {
    let Codec::Filter(Filter::Categorize(c)) = codec else {
        return Ok(Vec::new());
    };
    if !first || c.width() != elem_size {
        return Err(MetadataError::Invalid(format!(
            "categorize decodes to <U{} ({} bytes), but it must be the first filter and the \
             array's elements are {elem_size} bytes",
            c.chars,
            c.width()
        )));
    }
    let labels = config.get("labels").and_then(Value::as_array);
    // zinto-core counted them, all strings, and bounded the table (MAX_LABEL_TABLE).
    let labels = labels
        .filter(|l| l.len() == c.labels)
        .ok_or_else(|| MetadataError::Invalid("categorize labels".into()))?;
    let mut table = vec![0u8; c.table_len()];
    if c.width() > 0 {
        for (entry, label) in table.chunks_exact_mut(c.width()).zip(labels) {
            let label = label
                .as_str()
                .ok_or_else(|| MetadataError::Invalid("categorize label".into()))?;
            c.write_label(label, entry);
        }
    }
    Ok(table)
}
