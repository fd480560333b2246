//! Fuzz target `trace_text`: arbitrary bytes through [`gclab_fuzz::trace_text`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::trace_text("fuzz.gctrace.txt", data);
});
