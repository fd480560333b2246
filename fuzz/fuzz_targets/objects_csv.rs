//! Fuzz target `objects_csv`: arbitrary bytes through [`gclab_fuzz::objects_csv`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::objects_csv("fuzz.csv", data);
});
