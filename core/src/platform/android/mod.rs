//! The android-krait platform (SYSTOR'15): Dalvik heap sizing and triggers, the CMS collector and its variants,
//! mutator threads and the GC daemon scheduled on the Krait cores of [`crate::cpu`]. Built up in issue #3; so far
//! [`heap_sizing`] (Eq. (1) and the Dalvik-source form).

pub mod heap_sizing;
