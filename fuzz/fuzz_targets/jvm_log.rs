//! Fuzz target `jvm_log`: arbitrary bytes through [`gclab_fuzz::jvm_log`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::jvm_log("fuzz.log", data);
});
