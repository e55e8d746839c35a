//! A codec's configuration as metadata states it, read by the codec's own file.
//!
//! zinto-core parses no JSON: the std crate hands each codec a [`Config`] view of its
//! configuration object (v3 `configuration`, or a v2 numcodecs object minus its `id`), and the
//! codec reads the keys it knows, so adding a codec needs no edits in the metadata parser.

use super::{ChainError, CodecName};

/// One configuration value, as far as a codec needs to tell values apart.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum ConfigValue<'a> {
    /// A whole number that fits an `i64`.
    Int(i64),
    /// A whole number above `i64::MAX`.
    UInt(u64),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(&'a str),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
    /// A list of this many entries (read through `key/0`, `key/1`, ...).
    List(usize),
    /// An object of this many entries (read through `key/name`).
    Object(usize),
}

impl ConfigValue<'_> {
    /// What kind of value this is, for errors.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Int(_) | Self::UInt(_) => "an integer",
            Self::Float(_) => "a number",
            Self::Str(_) => "a string",
            Self::Bool(_) => "a boolean",
            Self::Null => "null",
            Self::List(_) => "a list",
            Self::Object(_) => "an object",
        }
    }
}

/// A codec configuration: values by key.
///
/// A key with `/` in it addresses into lists and objects, as a JSON Pointer does without its
/// leading `/`: `filters/0/id` is the `id` of the first entry of the list `filters`.
pub trait Config {
    /// The value at `key`, or `None` if the key (or a step of its path) is absent.
    fn get(&self, key: &str) -> Option<ConfigValue<'_>>;
}

/// No configuration at all (a codec named without one).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoConfig;

impl Config for NoConfig {
    fn get(&self, _: &str) -> Option<ConfigValue<'_>> {
        None
    }
}

impl Config for [(&str, ConfigValue<'_>)] {
    fn get(&self, key: &str) -> Option<ConfigValue<'_>> {
        self.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

/// Typed reads of a [`Config`] for one codec: absence is `None`, a value of the wrong kind is
/// [`ChainError::Config`] naming the codec and key (never read as absent, which would pick
/// the default silently).
pub(crate) struct Reader<'c, C: Config + ?Sized> {
    pub(crate) codec: CodecName,
    pub(crate) config: &'c C,
}

impl<C: Config + ?Sized> Reader<'_, C> {
    /// The value at `key` (a path, as [`Config::get`] takes it).
    pub(crate) fn get(&self, key: &str) -> Option<ConfigValue<'_>> {
        self.config.get(key)
    }

    /// The length of the list at `key`, `None` if absent or `null`.
    pub(crate) fn list(&self, key: &'static str) -> Result<Option<usize>, ChainError> {
        match self.config.get(key) {
            None | Some(ConfigValue::Null) => Ok(None),
            Some(ConfigValue::List(n)) => Ok(Some(n)),
            Some(_) => Err(self.error(key, "must be a list")),
        }
    }

    /// Whether the object at `key` is there (`false` if absent or `null`), refusing one with
    /// an entry not named in `known`: its entries are counted, and each known one looked for.
    pub(crate) fn object(&self, key: &'static str, known: &[&str]) -> Result<bool, ChainError> {
        let n = match self.config.get(key) {
            None | Some(ConfigValue::Null) => return Ok(false),
            Some(ConfigValue::Object(n)) => n,
            Some(_) => return Err(self.error(key, "must be an object")),
        };
        let mut path = heapless::String::<64>::new();
        let mut found = 0usize;
        for name in known {
            path.clear();
            core::fmt::write(&mut path, format_args!("{key}/{name}"))
                .map_err(|_| self.error(key, "has an entry name too long to look up"))?;
            found += usize::from(self.config.get(&path).is_some());
        }
        if found != n {
            return Err(self.error(key, "has an entry zinto does not know"));
        }
        Ok(true)
    }

    pub(crate) fn error(&self, key: &'static str, what: &'static str) -> ChainError {
        ChainError::Config {
            codec: self.codec,
            key,
            what,
        }
    }

    /// A string, `None` if absent or `null`.
    pub(crate) fn str(&self, key: &'static str) -> Result<Option<&str>, ChainError> {
        match self.config.get(key) {
            None | Some(ConfigValue::Null) => Ok(None),
            Some(ConfigValue::Str(s)) => Ok(Some(s)),
            Some(_) => Err(self.error(key, "must be a string")),
        }
    }

    /// An integer, `None` if absent or `null`.
    pub(crate) fn int(&self, key: &'static str) -> Result<Option<i64>, ChainError> {
        match self.config.get(key) {
            None | Some(ConfigValue::Null) => Ok(None),
            Some(ConfigValue::Int(i)) => Ok(Some(i)),
            // A whole number written as a float (JSON `5.0`): exact below 2^53.
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            Some(ConfigValue::Float(f)) if f.abs() < 9.0e15 && (f as i64) as f64 == f => {
                Ok(Some(f as i64))
            }
            Some(_) => Err(self.error(key, "must be an integer")),
        }
    }

    /// An integer in `min..=max`, `None` if absent or `null`.
    pub(crate) fn int_in(
        &self,
        key: &'static str,
        min: i64,
        max: i64,
    ) -> Result<Option<i64>, ChainError> {
        match self.int(key)? {
            Some(v) if v < min || v > max => Err(self.error(key, "is out of range")),
            v => Ok(v),
        }
    }

    /// A number, `None` if absent or `null`.
    pub(crate) fn float(&self, key: &'static str) -> Result<Option<f64>, ChainError> {
        match self.config.get(key) {
            None | Some(ConfigValue::Null) => Ok(None),
            Some(ConfigValue::Float(f)) => Ok(Some(f)),
            #[allow(clippy::cast_precision_loss)]
            Some(ConfigValue::Int(i)) => Ok(Some(i as f64)),
            #[allow(clippy::cast_precision_loss)]
            Some(ConfigValue::UInt(u)) => Ok(Some(u as f64)),
            Some(_) => Err(self.error(key, "must be a number")),
        }
    }

    /// A boolean, `None` if absent or `null`.
    pub(crate) fn bool(&self, key: &'static str) -> Result<Option<bool>, ChainError> {
        match self.config.get(key) {
            None | Some(ConfigValue::Null) => Ok(None),
            Some(ConfigValue::Bool(b)) => Ok(Some(b)),
            Some(_) => Err(self.error(key, "must be a boolean")),
        }
    }
}
