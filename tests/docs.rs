//! The command reference held against the binary: docs/commands.md has a section for every
//! command `askzico --help` lists (and for each subcommand of a command that has them), every
//! flag a command's `--help` prints appears in its section, and every flag a section's table
//! names is one the command takes.

mod common;

use std::collections::BTreeSet;

use common::*;

fn help(path: &[&str]) -> String {
    let o = run(bin().args(path).arg("--help"));
    assert!(o.status.success(), "{path:?} --help: {}", stderr(&o));
    stdout(&o)
}

/// The names listed under `Commands:` of a help text (`help` left out).
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The long flags of a help text's options (`--help` left out).
fn flags(help: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"^\s+(?:-\w, )?(--[a-z][a-z-]*)").unwrap();
    help.lines()
        .filter_map(|l| re.captures(l).map(|c| c[1].to_string()))
        .filter(|f| f != "--help")
        .collect()
}

/// Every command path of the binary: `build`, …, `rules check`, `worker init`.
fn command_paths() -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    for c in commands(&help(&[])) {
        let subs = commands(&help(&[c.as_str()]));
        if subs.is_empty() {
            paths.push(vec![c]);
        } else {
            paths.extend(subs.into_iter().map(|s| vec![c.clone(), s]));
        }
    }
    paths
}

/// The section of docs/commands.md about `askzico <path>`: from its heading to the next one.
fn section<'d>(doc: &'d str, path: &str) -> Option<&'d str> {
    let heading = format!("\n## `askzico {path}");
    let start = doc.find(&heading)? + 1;
    let end = doc[start + 3..]
        .find("\n## ")
        .map_or(doc.len(), |e| start + 3 + e);
    Some(&doc[start..end])
}

#[test]
fn every_command_and_flag_is_in_the_command_reference() {
    let doc = std::fs::read_to_string(repo().join("docs/commands.md")).unwrap();
    let paths = command_paths();
    assert!(paths.len() >= 13, "{paths:?}");
    let mut missing = Vec::new();
    for path in &paths {
        let words: Vec<&str> = path.iter().map(String::as_str).collect();
        let name = words.join(" ");
        let Some(text) = section(&doc, &name) else {
            missing.push(format!("no section `askzico {name}`"));
            continue;
        };
        let takes = flags(&help(&words));
        for f in &takes {
            if !text.contains(&format!("`{f}")) {
                missing.push(format!("askzico {name} {f}: not in its section"));
            }
        }
        // The flags a section's table names (its rows' first cells) are the command's.
        for row in text.lines().filter(|l| l.starts_with("| `--")) {
            let cell = row.split('|').nth(1).unwrap_or_default();
            for f in flags(&format!(
                "  {}",
                cell.replace(['`', ','], " ")
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join("\n  ")
            )) {
                if !takes.contains(&f) {
                    missing.push(format!(
                        "askzico {name}: its section names {f}, which it does not take"
                    ));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/commands.md and --help differ:\n{}",
        missing.join("\n")
    );
}
