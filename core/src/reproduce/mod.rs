//! Paper reproductions: the published numbers ([`paper_kvm`], [`paper_android`]) and the runs that are compared
//! with them ([`kvm`], [`android`]). Used by `gclab reproduce` (which writes `docs/reproduction.md`) and by the reproduction tests.

pub mod android;
pub mod kvm;
pub mod kvm_report;
pub mod kvm_trials;
pub mod marks;
pub mod paper_android;
pub mod paper_kvm;
