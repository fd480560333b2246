//! Fuzz target `heaptrack`: arbitrary bytes through [`gclab_fuzz::heaptrack`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::heaptrack("fuzz.heaptrack", data);
});
