//! The Go Text Protocol (GTP version 2): the engine side that exposes baduk's rules and bot to
//! GUIs, and a client that drives other engines (GNU Go) over a child process.
//!
//! It is an adapter: it parses lines, keeps the game and clocks and formats answers; the rules
//! and the search live in `baduk-go` and `baduk-search`.

pub mod analysis;
pub mod client;
pub mod engine;
pub mod protocol;
pub mod rules;
pub mod vertex;

pub use client::{parse_answer, ClientError, GtpClient};
pub use engine::{engine_with_options, Engine};
pub use protocol::{format_response, parse_line, Command};
