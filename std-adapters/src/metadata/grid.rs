//! A v3 `chunk_grid` into a [`ChunkGrid`]: `regular` (`{"chunk_shape": [10, 10]}`) or
//! zarr-extensions' `rectilinear`, as zarr-python 3.4 writes it:
//!
//! ```text
//! {"name": "rectilinear", "configuration": {"kind": "inline",
//!  "chunk_shapes": [[10, 20, 30, 40], 25, [[100, 3], 50]]}}
//! ```
//!
//! Each dimension is a bare integer (chunks of that edge, as many as cover it), or a list of
//! edges, each an integer or a `[edge, count]` run. Runs stay runs ([`RunTable`]). Edges must be
//! at least 1, counts at least 1, and a list must cover the array's extent (it may pass it).

use std::num::NonZeroU64;

use serde_json::{Map, Value};
use zinto_core::{Axis, ChunkGrid, EdgeRun, RunTable};

use super::MetadataError;

fn invalid(what: String) -> MetadataError {
    MetadataError::Invalid(what)
}

/// The grid `name` with `configuration` over an array of `shape`.
pub(super) fn parse(
    name: &str,
    configuration: &Map<String, Value>,
    shape: &[u64],
) -> Result<ChunkGrid, MetadataError> {
    match name {
        "regular" => {
            super::codecs::only_fields("regular", configuration, &["chunk_shape"])?;
            let chunk_shape = shape_of(configuration.get("chunk_shape"), "chunk_shape")?;
            ChunkGrid::new(shape, &chunk_shape).map_err(MetadataError::Layout)
        }
        "rectilinear" => rectilinear(configuration, shape),
        other => Err(MetadataError::Unsupported(format!("chunk grid {other}"))),
    }
}

fn rectilinear(config: &Map<String, Value>, shape: &[u64]) -> Result<ChunkGrid, MetadataError> {
    match config.get("kind").and_then(Value::as_str) {
        Some("inline") => {}
        Some(kind) => {
            return Err(MetadataError::Unsupported(format!(
                "rectilinear chunk grid of kind {kind:?} (zinto reads \"inline\")"
            )));
        }
        None => return Err(invalid("rectilinear chunk grid without its kind".into())),
    }
    super::codecs::only_fields("rectilinear", config, &["kind", "chunk_shapes"])?;
    let dims = config
        .get("chunk_shapes")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            invalid("rectilinear chunk_shapes must be a list, one entry a dimension".into())
        })?;
    if dims.len() != shape.len() {
        return Err(invalid(format!(
            "rectilinear chunk_shapes has {} dimensions, the array {}",
            dims.len(),
            shape.len()
        )));
    }
    let axes = dims
        .iter()
        .enumerate()
        .map(|(dim, spec)| axis(spec, dim))
        .collect::<Result<Vec<_>, _>>()?;
    ChunkGrid::with_axes(shape, &axes).map_err(MetadataError::Layout)
}

/// A positive integer, or why not.
fn positive(v: &Value, what: &str, dim: usize) -> Result<NonZeroU64, MetadataError> {
    v.as_u64().and_then(NonZeroU64::new).ok_or_else(|| {
        invalid(format!(
            "rectilinear {what} along dimension {dim} must be an integer of 1 or more, not {v}"
        ))
    })
}

/// One dimension's edges: a bare integer, or a list of edges and `[edge, count]` runs.
fn axis(spec: &Value, dim: usize) -> Result<Axis, MetadataError> {
    let Some(items) = spec.as_array() else {
        return Ok(Axis::Regular(positive(spec, "edge", dim)?));
    };
    let runs = items
        .iter()
        .map(|item| match item.as_array().map(Vec::as_slice) {
            None => Ok(EdgeRun {
                edge: positive(item, "edge", dim)?,
                count: NonZeroU64::MIN,
            }),
            Some([edge, count]) => Ok(EdgeRun {
                edge: positive(edge, "edge", dim)?,
                count: positive(count, "run count", dim)?,
            }),
            Some(_) => Err(invalid(format!(
                "rectilinear run {item} along dimension {dim} is not [edge, count]"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if runs.is_empty() {
        return Err(invalid(format!(
            "rectilinear dimension {dim} lists no edges"
        )));
    }
    RunTable::new(&runs, dim)
        .map(Axis::Runs)
        .map_err(MetadataError::Layout)
}

/// A shape list in metadata (`what` names it in the error): non-negative integers.
pub(super) fn shape_of(v: Option<&Value>, what: &str) -> Result<Vec<u64>, MetadataError> {
    let bad = || MetadataError::Invalid(format!("{what} must be a list of non-negative integers"));
    v.and_then(Value::as_array)
        .ok_or_else(bad)?
        .iter()
        .map(|x| x.as_u64().ok_or_else(bad))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn grid(chunk_shapes: Value, shape: &[u64]) -> Result<ChunkGrid, MetadataError> {
        let config = json!({"kind": "inline", "chunk_shapes": chunk_shapes});
        parse("rectilinear", config.as_object().unwrap(), shape)
    }

    #[test]
    fn edges_runs_and_bare_integers_make_the_grid() {
        let g = grid(json!([[10, 20, 30, 40], 25, [[5, 3], 1]]), &[100, 60, 16]).unwrap();
        assert!(!g.is_regular());
        assert_eq!(g.grid_shape(), &[4, 3, 4]);
        assert_eq!(
            g.chunk_shape_at(&[2, 2, 3]).unwrap().as_slice(),
            &[30, 25, 1]
        );
        assert_eq!(g.chunk_shape(), &[40, 25, 5]);
        // 2^40 chunks of one element, as one run: a few bytes.
        let g = grid(json!([[[1, 1u64 << 40]]]), &[1 << 40]).unwrap();
        assert_eq!(g.num_chunks(), 1 << 40);
    }

    /// What zarr-python refuses is refused, each naming the dimension: edges that end before
    /// the array, zero or negative edges and counts, runs not of two, sums past u64.
    #[test]
    fn bad_edges_are_refused_by_dimension() {
        let refused = |spec: Value, shape: &[u64]| grid(spec, shape).unwrap_err().to_string();
        assert!(refused(json!([[10, 20]]), &[31]).contains("dimension 0"));
        assert!(refused(json!([5, [0, 3]]), &[5, 3]).contains("dimension 1"));
        assert!(refused(json!([[-3]]), &[3]).contains("dimension 0"));
        assert!(refused(json!([[[3, 0]]]), &[3]).contains("run count"));
        assert!(refused(json!([[[3, 1, 1]]]), &[3]).contains("[edge, count]"));
        assert!(refused(json!([[]]), &[0]).contains("no edges"));
        assert!(refused(json!([[[u64::MAX, 2]]]), &[3]).contains("overflow"));
        let kind = json!({"kind": "external", "chunk_shapes": [[3]]});
        let e = parse("rectilinear", kind.as_object().unwrap(), &[3]).unwrap_err();
        assert!(e.to_string().contains("external"), "{e}");
    }
}
