//! The heap as an address space: [`free_list`] (first-fit over free chunks) and [`banks`] (SRAM banks with
//! power states and leakage). Platforms combine them with a collector.

pub mod banks;
pub mod config;
pub mod free_list;

pub use banks::{BankSpan, BankState, Banks};
pub use free_list::FreeList;
