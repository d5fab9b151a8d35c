#![no_main]
//! Frames and decodes arbitrary bytes as self-play value data.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    selfplay_format::fuzzing::value(data);
});
