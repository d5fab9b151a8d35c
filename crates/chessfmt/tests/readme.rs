//! The README's command list against the tool's own `--help`: every verb of every format is
//! listed, and every option the README shows for a verb exists.

mod common;

use common::chessfmt;

fn section(help: &str, title: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with(title))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Every `--name` in `text` (inside brackets, alternatives and all).
fn long_options(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("--") {
        let name: String = rest[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if !name.is_empty() {
            out.push(format!("--{name}"));
        }
        rest = &rest[i + 2 + name.len()..];
    }
    out
}

/// Checks that `readme` lists every verb with real options; returns the number of verbs.
fn lists_every_verb_with_real_options(readme: &str) -> usize {
    let block: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("chessfmt "))
        .collect();
    let (_, top, _) = chessfmt(&["--help"]);
    let formats: Vec<String> = section(&top, "Commands:")
        .into_iter()
        .filter(|c| c != "help" && c != "info")
        .collect();
    assert!(formats.len() >= 5, "{top}");
    assert!(block.iter().any(|l| l.starts_with("chessfmt info ")));
    let mut verbs = 0;
    for format in &formats {
        let (code, help, _) = chessfmt(&[format, "--help"]);
        assert_eq!(code, 0);
        // A command that runs itself besides its verbs (`chessfmt tally GAMES... -o …`).
        let usage = help
            .lines()
            .find(|l| l.starts_with("Usage: "))
            .unwrap_or("");
        if !usage.ends_with("<COMMAND>") {
            verbs += 1;
            let prefix = format!("chessfmt {format} ");
            let real = long_options(&help);
            let lines: Vec<&&str> = block
                .iter()
                .filter(|l| {
                    l.starts_with(&prefix)
                        && !section(&help, "Commands:")
                            .iter()
                            .any(|v| l.starts_with(&format!("{prefix}{v} ")))
                })
                .collect();
            assert!(
                !lines.is_empty(),
                "README does not list `chessfmt {format} …`"
            );
            for line in lines {
                for opt in long_options(line.split('#').next().unwrap()) {
                    assert!(
                        real.contains(&opt),
                        "README shows {opt} for `{format}`, which has {real:?}"
                    );
                }
            }
        }
        for verb in section(&help, "Commands:")
            .into_iter()
            .filter(|v| v != "help")
        {
            verbs += 1;
            let prefix = format!("chessfmt {format} {verb} ");
            let lines: Vec<&&str> = block
                .iter()
                .filter(|l| l.starts_with(&prefix) || **l == prefix.trim_end())
                .collect();
            assert!(
                !lines.is_empty(),
                "README does not list `{}`",
                prefix.trim_end()
            );
            let (_, verb_help, _) = chessfmt(&[format, &verb, "--help"]);
            let real = long_options(&verb_help);
            for line in lines {
                for opt in long_options(line.split('#').next().unwrap()) {
                    assert!(
                        real.contains(&opt),
                        "README shows {opt} for `{format} {verb}`, which has {real:?}"
                    );
                }
            }
        }
    }
    assert!(verbs >= 36, "{verbs} verbs");
    verbs
}

#[test]
fn readme_lists_every_verb_with_real_options() {
    // The formats' verbs and `chessfmt info`.
    let verbs = lists_every_verb_with_real_options(include_str!("../../../README.md")) + 1;
    // The count the README's crate table states.
    assert!(
        include_str!("../../../README.md").contains(&format!("| {verbs} verbs, listed below |")),
        "the README's crate table does not say {verbs} verbs"
    );
}

/// The CLI crate's own README (what its package page shows) lists them all too.
#[test]
fn cli_readme_lists_every_verb_with_real_options() {
    lists_every_verb_with_real_options(include_str!("../README.md"));
}
