//! What each filter's file answers ([`FilterCodec`]), how a filter reads its configuration
//! ([`FromFilterConfig`]), and the [`Filter`] value the registry makes of them.
//!
//! Adding a filter is one file under `codec/filter/` (its names, configuration and decode) and
//! one line in the registry's `filters`.

use super::super::config::{Config, Reader};
use super::super::{ChainError, CodecName, DecodeError, Endian};
use super::{Elem, FilterError, Value};

/// What a filter's decode may use besides the chunk, both the caller's.
#[derive(Debug)]
pub struct FilterAux<'a> {
    /// A spare buffer of the bytes being decoded (`shuffle`'s copy, [`Filter::needs_spare`](crate::codec::Filter::needs_spare));
    /// empty for the other filters.
    pub spare: &'a mut [u8],
    /// The filter's table, laid out from metadata once per array (`categorize`'s labels,
    /// [`Categorize::write_label`](super::Categorize::write_label)); empty for the others.
    pub table: &'a [u8],
}

/// Reads a filter's configuration.
pub(crate) trait FromFilterConfig: Sized {
    /// The configuration `r` holds, checked. `decoded` is the element type it decodes to (the
    /// array's, for the first filter), used where a v3 configuration leaves its `dtype` out.
    fn from_config<C: Config + ?Sized>(
        r: &Reader<'_, C>,
        decoded: Option<Elem>,
    ) -> Result<Self, ChainError>;
}

/// What each filter's file answers. Every method is required.
pub(crate) trait FilterCodec: core::fmt::Debug {
    /// The elements it decodes to and stores (`(decoded, stored)`), when it has types.
    fn elems(&self) -> Option<(Elem, Elem)>;

    /// The same, to set their byte order.
    fn elems_mut(&mut self) -> Option<(&mut Elem, &mut Elem)>;

    /// Bytes it stores for `n` elements that take `decoded` bytes before it: `n` of its stored
    /// element, or as many bytes as it was given, or (packbits) a byte and `decoded` bits.
    fn encoded_len(&self, n: usize, decoded: usize) -> Option<usize>;

    /// Whether what it stores is still whole elements, which a filter after it (in encoding
    /// order) may work on; packbits' bits are not.
    fn keeps_elements(&self) -> bool;

    /// Whether it works on bytes whatever their type, so that it may also stand after the
    /// array-to-bytes codec in a v3 chain.
    fn is_bytes_to_bytes(&self) -> bool;

    /// Whether decoding needs a spare buffer of one chunk besides the chunk.
    fn needs_spare(&self) -> bool;

    /// Undoes the filter over `n` elements at the start of `buf`, in place (see
    /// [`Filter::decode`]).
    fn decode(&self, buf: &mut [u8], n: usize, aux: &mut FilterAux<'_>) -> Result<(), DecodeError>;

    /// Whether it encodes, or why not: asked before a write touches the store.
    fn encodes(&self) -> Result<(), &'static str>;

    /// Applies the filter to the whole elements of `src` (read as `from`, which must be of its
    /// decoded type), writing as many of its stored elements at the start of `dst` (see
    /// [`Filter::encode`]).
    fn encode(
        &self,
        run: &mut EncodeRun,
        src: &[u8],
        from: Elem,
        dst: &mut [u8],
    ) -> Result<usize, FilterError>;

    /// Its configuration as the CLI shows it.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result;
}

/// What a filter's encoder carries from one run of a chunk's elements to the next: a chunk
/// is encoded window by window, and `delta` needs the element before each window.
#[derive(Debug, Clone, Copy, Default)]
pub struct EncodeRun {
    /// Elements of the chunk encoded so far (an error names the element by it).
    pub done: u64,
    /// The last element encoded, as read (`delta`'s).
    pub prev: Option<Value>,
    /// An element value stored even where NumPy's cast of its encoding is undefined (as
    /// [`Value::cast`] gives it) instead of refused: the array's fill value, which pads edge
    /// chunks, and which zarr-python stores whatever the machine's cast makes of it.
    pub exempt: Option<Value>,
}

fn filter_error(codec: CodecName, error: FilterError) -> ChainError {
    match error {
        FilterError::UnsupportedDtype { .. } => ChainError::Config {
            codec,
            key: "dtype",
            what: "is a type the filters do not decode (complex, bool)",
        },
        _ => ChainError::Config {
            codec,
            key: "dtype",
            what: "is not a NumPy type string",
        },
    }
}

/// The element type configuration key `key` names (any NumPy spelling,
/// [`Elem::parse_numpy`]), or `default` when the key is absent.
pub(crate) fn read_elem<C: Config + ?Sized>(
    r: &Reader<'_, C>,
    key: &'static str,
    default: Option<Elem>,
) -> Result<Elem, ChainError> {
    match r.str(key)? {
        Some(s) => Elem::parse_numpy(s, Endian::NATIVE).map_err(|e| filter_error(r.codec, e)),
        None => default.ok_or(r.error(key, "is missing (and the array's type is not numeric)")),
    }
}

/// A [`FilterError`] of `codec` as a [`DecodeError`].
pub(crate) fn decode_error(codec: CodecName) -> impl Fn(FilterError) -> DecodeError {
    move |error| DecodeError::Filter { codec, error }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::ConfigValue;
    use crate::codec::Filter;
    use crate::codec::registry::TABLE;

    /// Walks the registry: every filter reads the configuration numcodecs writes, decodes to
    /// the element it says, displays its name, and keeps its types when it has them.
    #[test]
    fn every_filter_in_the_registry_reads_its_configuration_and_states_its_facts() {
        use ConfigValue::{Float, Int, Str};
        let config: &[(&str, ConfigValue<'_>)] = &[
            ("dtype", Str("<f8")),
            ("astype", Str("<f4")),
            ("decode_dtype", Str("<f8")),
            ("encode_dtype", Str("<f4")),
            ("scale", Float(10.0)),
            ("offset", Int(0)),
            ("elementsize", Int(8)),
            ("data_type", Str("int16")),
        ];
        // categorize's own: strings, with labels.
        let labelled: &[(&str, ConfigValue<'_>)] = &[
            ("dtype", Str("<U4")),
            ("astype", Str("|u1")),
            ("labels", ConfigValue::List(1)),
            ("labels/0", Str("a")),
        ];
        let f8 = Elem::parse_numpy("<f8", Endian::Little).ok();
        let mut filters = 0;
        for &(codec, ..) in TABLE {
            let config = if codec == CodecName::Categorize {
                labelled
            } else {
                config
            };
            let Some(mut f) = Filter::from_config(codec, config, f8).unwrap() else {
                continue;
            };
            filters += 1;
            assert_eq!(f.name(), codec);
            let mut s = heapless::String::<96>::new();
            core::fmt::write(&mut s, format_args!("{f}")).unwrap();
            assert!(s.starts_with(codec.name()), "{s}");
            // A typed filter decodes to the array's element; an untyped one works on bytes or
            // changes nothing.
            match (f.decoded_elem(), f.encoded_elem()) {
                (Some(dec), Some(_)) => assert_eq!(Some(dec), f8, "{codec:?}"),
                (None, None) => {}
                other => panic!("{codec:?}: {other:?}"),
            }
            assert!(!f.needs_spare() || f.is_bytes_to_bytes(), "{codec:?}");
            f.set_endian(Endian::Big);
            if let Some(dec) = f.decoded_elem() {
                assert_eq!(dec.endian, Endian::Big, "{codec:?}");
            }
        }
        assert_eq!(filters, 10);
    }

    /// numcodecs stores elements of 0 or 1 bytes unshuffled: such a shuffle decodes to its
    /// input and needs no spare chunk; a 2-byte one does move bytes.
    #[test]
    fn a_shuffle_of_elements_under_two_bytes_changes_nothing() {
        for size in [0, 1] {
            let config: &[(&str, ConfigValue<'_>)] = &[("elementsize", ConfigValue::Int(size))];
            let f = Filter::from_config(CodecName::Shuffle, config, None)
                .unwrap()
                .unwrap();
            assert!(!f.needs_spare(), "{size}");
            let mut buf = [1, 2, 3, 4, 5];
            let mut aux = FilterAux {
                spare: &mut [],
                table: &[],
            };
            f.decode(&mut buf, 5, &mut aux).unwrap();
            assert_eq!(buf, [1, 2, 3, 4, 5]);
        }
        let config: &[(&str, ConfigValue<'_>)] = &[("elementsize", ConfigValue::Int(2))];
        let f = Filter::from_config(CodecName::Shuffle, config, None)
            .unwrap()
            .unwrap();
        let (mut buf, mut spare) = ([1, 3, 2, 4], [0; 4]);
        let mut aux = FilterAux {
            spare: &mut spare,
            table: &[],
        };
        f.decode(&mut buf, 2, &mut aux).unwrap();
        assert_eq!(buf, [1, 2, 3, 4]);
        let config: &[(&str, ConfigValue<'_>)] = &[("elementsize", ConfigValue::Int(-1))];
        assert!(Filter::from_config(CodecName::Shuffle, config, None).is_err());
    }
}
