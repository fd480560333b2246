//! Paper reproductions: the published numbers ([`paper_kvm`]) and the runs that are compared with them
//! ([`kvm`]). Used by `gclab reproduce` (which writes `docs/reproduction.md`) and by the reproduction tests.

pub mod kvm;
pub mod paper_kvm;
