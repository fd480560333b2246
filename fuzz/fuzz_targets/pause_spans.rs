//! Fuzz target `pause_spans`: arbitrary bytes through [`gclab_fuzz::pause_spans`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::pause_spans("fuzz.gc", data);
});
