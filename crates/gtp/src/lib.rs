//! The Go Text Protocol (GTP version 2): the engine side that exposes baduk's rules and bot to
//! GUIs, and a client that drives other engines (GNU Go) over a child process.
