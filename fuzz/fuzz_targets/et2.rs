//! Fuzz target `et2`: arbitrary bytes through [`gclab_fuzz::et2`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::et2("fuzz.et2", data);
});
