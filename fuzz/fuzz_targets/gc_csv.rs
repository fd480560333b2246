//! Fuzz target `gc_csv`: arbitrary bytes through [`gclab_fuzz::gc_csv`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::gc_csv("fuzz.csv", data);
});
