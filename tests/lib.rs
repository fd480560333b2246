//! Shared helpers for the integration tests (paths to the built CLI and to `../shared/`).
