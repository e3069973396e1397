//! The GTP v2 line protocol: preprocessing, command parsing and response formatting.

/// One parsed command line: optional numeric id, command name (lower-cased) and arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The numeric id to echo, if the line had one.
    pub id: Option<u64>,
    /// The command name, lower-cased.
    pub name: String,
    /// The whitespace-separated arguments.
    pub args: Vec<String>,
}

/// Applies GTP §2.2 preprocessing: drop control characters other than HT and LF, turn HT into
/// a space, cut `#` comments, trim. Returns the cleaned line (possibly empty).
pub fn preprocess(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for ch in line.chars() {
        match ch {
            '#' => break,
            '\t' | '\u{feff}' => out.push(' '),
            '\n' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.trim().to_string()
}

/// Parses one input line; `None` for lines that are empty after preprocessing (GTP ignores them).
pub fn parse_line(line: &str) -> Option<Command> {
    let clean = preprocess(line);
    let mut words = clean.split_whitespace();
    let first = words.next()?;
    let (id, name) = if first.bytes().all(|b| b.is_ascii_digit()) {
        match first.parse::<u64>() {
            Ok(id) => (Some(id), words.next().unwrap_or("").to_string()),
            Err(_) => (None, first.to_string()),
        }
    } else {
        (None, first.to_string())
    };
    Some(Command {
        id,
        name: name.to_ascii_lowercase(),
        args: words.map(str::to_string).collect(),
    })
}

/// Formats a response: `=id text` or `?id text` followed by the blank line that ends it.
pub fn format_response(id: Option<u64>, result: &Result<String, String>) -> String {
    let (mark, text) = match result {
        Ok(t) => ('=', t.as_str()),
        Err(t) => ('?', t.as_str()),
    };
    let id = id.map(|i| i.to_string()).unwrap_or_default();
    // A response never contains an empty line inside it (that would end it early).
    let body: String = text
        .trim_end()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    format!("{mark}{id} {body}\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_2_2_preprocessing_drops_comments_and_control_characters() {
        assert_eq!(preprocess("  play\tb d4 # a comment\r"), "play b d4");
        assert_eq!(preprocess("\u{1}name\u{7f}"), "name");
        assert_eq!(preprocess("# only a comment"), "");
    }

    #[test]
    fn gtp_2_4_ids_are_parsed_and_names_lower_cased() {
        let c = parse_line("12 GenMove B").unwrap();
        assert_eq!(c.id, Some(12));
        assert_eq!(c.name, "genmove");
        assert_eq!(c.args, vec!["B"]);
        assert_eq!(parse_line("   ").map(|c| c.name), None);
        let c = parse_line("7").unwrap();
        assert_eq!((c.id, c.name.as_str()), (Some(7), ""));
    }

    #[test]
    fn gtp_2_5_responses_echo_the_id_and_end_with_a_blank_line() {
        assert_eq!(format_response(Some(3), &Ok("2".into())), "=3 2\n\n");
        assert_eq!(format_response(None, &Ok(String::new())), "= \n\n");
        assert_eq!(
            format_response(None, &Err("unknown command".into())),
            "? unknown command\n\n"
        );
        assert_eq!(format_response(None, &Ok("a\n\nb\n".into())), "= a\nb\n\n");
    }
}
