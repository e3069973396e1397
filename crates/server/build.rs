//! Rebuilds the server when the embedded web UI (`web/`) changes: `include_dir!` alone does not
//! tell Cargo about the files it reads, so an edited page would otherwise ship stale.

fn main() {
    println!("cargo:rerun-if-changed=../../web");
}
