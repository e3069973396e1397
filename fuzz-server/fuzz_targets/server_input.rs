//! Arbitrary bytes into the game server: the first byte picks the harness, the rest is its
//! input — actions applied to Go and Wall Go rooms in every phase, request bodies through the
//! real router on a SQLite store under /dev/shm (in memory), or review uploads (set-up heavy
//! SGF). The harness is the one the seeded test
//! `crates/server/tests/fuzz_server.rs` runs in CI.
#![no_main]

#[path = "../../crates/server/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

use libfuzzer_sys::fuzz_target;
use std::sync::Mutex;

static API: Mutex<Option<fuzz_harness::Api>> = Mutex::new(None);

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    match which & 3 {
        0 | 2 => fuzz_harness::room_actions(rest),
        1 => api().as_mut().expect("the API is made").request(rest),
        _ => match rest.split_first() {
            Some((&k, more)) if k & 3 == 0 => fuzz_harness::bot_options(more),
            Some((&k, more)) if k & 3 == 2 => api()
                .as_mut()
                .expect("the API is made")
                .player_request(more),
            Some((&k, more)) if k & 3 == 3 => api()
                .as_mut()
                .expect("the API is made")
                .review_upload(more),
            Some((_, more)) => api()
                .as_mut()
                .expect("the API is made")
                .socket_messages(more),
            None => {}
        },
    }
});

fn api() -> std::sync::MutexGuard<'static, Option<fuzz_harness::Api>> {
    let mut api = API.lock().unwrap_or_else(|e| e.into_inner());
    if api.is_none() {
        *api = Some(fuzz_harness::Api::new(&fuzz_harness::scratch_database("server")));
    }
    api
}
