//! Integration and conformance tests for zinto live in `tests/`; this library holds helpers.
