//! `baduk go gtp`: its help names options, not internal types, and it speaks GTP on stdin.

use std::io::Write;
use std::process::{Command, Stdio};

#[test]
fn go_gtp_help_names_the_options() {
    let o = Command::new(env!("CARGO_BIN_EXE_baduk"))
        .args(["go", "gtp", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0));
    for word in [
        "--bot <OPTIONS>",
        "threads=N",
        "playouts=N",
        "time=SECONDS",
        "--rules <RULES>",
    ] {
        assert!(help.contains(word), "{word} missing:\n{help}");
    }
    for internal in ["BotConfig", "GtpArgs", "Rules::"] {
        assert!(!help.contains(internal), "{internal} in:\n{help}");
    }
}

#[test]
fn go_gtp_answers_on_stdin_with_any_komi() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_baduk"))
        .args(["go", "gtp", "--bot", "playouts=50"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"1 version\n2 boardsize 9\n3 komi 3.75\n4 printsgf\n5 play b z1\nquit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("=1 {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert!(text.contains("=3 \n"), "{text}");
    assert!(
        text.contains("KM[3.75]") && text.contains("SZ[9]"),
        "{text}"
    );
    assert!(text.contains("?5 invalid coordinate"), "{text}");
}
