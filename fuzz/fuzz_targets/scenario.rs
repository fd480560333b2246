//! Fuzz target `scenario`: arbitrary bytes through [`gclab_fuzz::scenario`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::scenario("fuzz.toml", data);
});
