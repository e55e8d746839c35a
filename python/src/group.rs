//! `RsGroup`: an opened group, its attributes and members.

use pyo3::prelude::*;
use zinto::{Group, NodeKind};

use crate::array::{AnyStore, RsArray};
use crate::errors;

/// A group, as `zinto.open` found it.
#[pyclass(frozen, module = "zinto._zinto")]
pub struct RsGroup {
    inner: Group<AnyStore>,
}

impl RsGroup {
    pub fn new(inner: Group<AnyStore>) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl RsGroup {
    /// `(name, "array" | "group")` of each direct member, sorted by name.
    fn members(&self, py: Python<'_>) -> PyResult<Vec<(String, String)>> {
        // Without the GIL, as every call that may wait on a store.
        let members = py.detach(|| self.inner.members()).map_err(errors::to_py)?;
        Ok(members
            .into_iter()
            .map(|m| {
                let kind = match m.kind {
                    NodeKind::Array => "array",
                    NodeKind::Group => "group",
                };
                (m.name, kind.to_owned())
            })
            .collect())
    }

    /// The member array `name` (or a deeper path).
    fn array(&self, py: Python<'_>, name: &str) -> PyResult<RsArray> {
        py.detach(|| self.inner.array(name))
            .map(RsArray::new)
            .map_err(errors::to_py)
    }

    /// The member group `name` (or a deeper path).
    fn group(&self, py: Python<'_>, name: &str) -> PyResult<RsGroup> {
        py.detach(|| self.inner.group(name))
            .map(RsGroup::new)
            .map_err(errors::to_py)
    }

    /// The attributes as JSON text.
    fn attrs_json(&self) -> PyResult<String> {
        let attrs = self.inner.attributes().map_err(errors::to_py)?;
        serde_json::to_string(attrs)
            .map_err(|e| errors::ZintoError::new_err(format!("attributes: {e}")))
    }

    /// Whether members come from consolidated metadata.
    #[getter]
    fn consolidated(&self) -> bool {
        self.inner.is_consolidated()
    }

    /// The group's path in its store.
    #[getter]
    fn path(&self) -> String {
        self.inner.path().to_owned()
    }
}
