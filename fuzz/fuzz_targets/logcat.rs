//! Fuzz target `logcat`: arbitrary bytes through [`gclab_fuzz::logcat`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::logcat("fuzz.logcat", data);
});
