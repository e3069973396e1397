//! Arbitrary bytes as review uploads alone (the `server_input` target's review harness without
//! its selector bytes), so a whole run goes to the SGF reader's bounds: byte 0 even builds a
//! set-up heavy SGF from the rest, odd sends the raw bytes; the reader's counted work must stay
//! within `sgf::WORK_PER_BYTE` a byte, and the upload is a 201 or a 4xx that reads back.
#![no_main]

#[path = "../../crates/server/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

use libfuzzer_sys::fuzz_target;
use std::sync::Mutex;

static API: Mutex<Option<fuzz_harness::Api>> = Mutex::new(None);

fuzz_target!(|data: &[u8]| {
    let mut api = API.lock().unwrap_or_else(|e| e.into_inner());
    api.get_or_insert_with(|| fuzz_harness::Api::new(&fuzz_harness::scratch_database("review")))
        .review_upload(data);
});
