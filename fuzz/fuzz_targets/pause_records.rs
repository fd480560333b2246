//! Fuzz target `pause_records`: arbitrary bytes through [`gclab_fuzz::pause_records`]. See docs/fuzzing.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = gclab_fuzz::pause_records("fuzz.gc", data);
});
