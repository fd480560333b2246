//! Fuzz target `jvm_log`: arbitrary bytes through [`gclab_fuzz::jvm_log`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gclab_fuzz::jvm_log(data));
