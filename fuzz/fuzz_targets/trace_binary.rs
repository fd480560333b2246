//! Fuzz target `trace_binary`: arbitrary bytes through [`gclab_fuzz::trace_binary`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::trace_binary("fuzz.gctrace", data);
});
