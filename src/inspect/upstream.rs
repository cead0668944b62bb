//! upstream: whether what a syntax check found is what the source itself shows on purpose,
//! rather than syntax the extractor let through. A source shows a text as written when it
//! escapes it for display (a Markdown backslash, or an HTML character reference for its first
//! character: `\{{#include}}`, `\[\[Wikilinks\]\]`, `&lt;em&gt;`, `&amp;quot;`), or, in a JSON
//! records file, when it holds it at all (a record's text is its field's value). The published
//! page shows such a text too: a check counts it apart, as a warning, and never fails on it.
//! Damaged characters (mojibake, U+FFFD) are never exempt: they are never good evidence.
//! Pure: the command that runs the checks reads the sources (`cli::inspect`).

/// The token a check found at byte `at` of `text`: up to 16 characters, to the next space.
pub(crate) fn token_at(text: &str, at: usize) -> &str {
    let rest = &text[at.min(text.len())..];
    let end = rest
        .char_indices()
        .take(16)
        .find(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .unwrap_or_else(|| rest.char_indices().nth(16).map_or(rest.len(), |(i, _)| i));
    &rest[..end]
}

/// Whether `source` shows `token` as written: escaped for display, or anywhere when `literal`
/// (a JSON records file).
pub(crate) fn shown_as_written(source: &str, token: &str, literal: bool) -> bool {
    if token.is_empty() {
        return false;
    }
    if literal {
        return source.contains(token);
    }
    // The token's syntax and first word (`[[Wikilinks` of `[[Wikilinks]].`): what follows the
    // word may be written otherwise in the source (`\]\]**.`).
    let lead = token
        .find(|c: char| !c.is_ascii_punctuation())
        .unwrap_or(token.len());
    let word_end = token[lead..]
        .find(|c: char| !c.is_alphanumeric())
        .map_or(token.len(), |i| lead + i);
    let token = &token[..word_end];
    let first = token.chars().next().expect("not empty");
    let rest = &token[first.len_utf8()..];
    let code = first as u32;
    let named: &[&str] = match first {
        '<' => &["&lt;"],
        '>' => &["&gt;"],
        '&' => &["&amp;"],
        '{' => &["&lbrace;", "&lcub;"],
        '[' => &["&lsqb;", "&lbrack;"],
        '!' => &["&excl;"],
        ':' => &["&colon;"],
        '%' => &["&percnt;"],
        _ => &[],
    };
    let mut references = vec![
        format!("&#{code};"),
        format!("&#x{code:x};"),
        format!("&#x{code:X};"),
    ];
    references.extend(named.iter().map(|n| n.to_string()));
    // The token as written, after a backslash or a reference that escapes the run of its first
    // character it starts in (`\{{#` escapes `{#` too).
    let escaped_at = |k: usize| {
        let mut j = k;
        while source[..j].ends_with(first) {
            j -= first.len_utf8();
        }
        let before = &source[..j];
        before.ends_with('\\') || references.iter().any(|r| before.ends_with(r.as_str()))
    };
    // Or its first character as a reference, then the token's word (`&lt;em` for `<em>`: the
    // characters after it may be references too).
    let word = rest
        .find(|c: char| !c.is_alphanumeric())
        .map_or(rest, |i| &rest[..i]);
    let word = if word.is_empty() { rest } else { word };
    // Or every punctuation character of it escaped (`\[\[Wikilinks` for `[[Wikilinks`).
    let all_escaped: String = token
        .chars()
        .map(|c| match c.is_ascii_punctuation() {
            true => format!("\\{c}"),
            false => c.to_string(),
        })
        .collect();
    source.match_indices(token).any(|(k, _)| escaped_at(k))
        || source.contains(all_escaped.as_str())
        || references
            .iter()
            .any(|r| source.contains(format!("{r}{word}").as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_text_is_shown_as_written_and_raw_syntax_is_not() {
        assert!(shown_as_written(
            "اكتب \\{{#include f.rs}}",
            "{{#include",
            false
        ));
        assert!(!shown_as_written("{{#include f.rs}}", "{{#include", false));
        assert!(shown_as_written("x &lt;em&gt; y", "<em>", false));
        assert!(shown_as_written("x &#60;em> y", "<em>", false));
        assert!(!shown_as_written("x <em> y", "<em>", false));
        assert!(shown_as_written("say &amp;quot;hi", "&quot;", false));
        assert!(shown_as_written("{\"t\": \"<b>x\"}", "<b>x", true));
        assert!(!shown_as_written("anything", "", true));
        assert_eq!(token_at("أ <em>بعد</em> ج", 3), "<em>بعد</em>");
        assert_eq!(token_at("{{#include", 0), "{{#include");
        // A token inside an escaped run of its first character.
        assert!(shown_as_written(
            "اكتب \\{{#include f.rs}}",
            "{#include",
            false
        ));
        assert!(!shown_as_written(
            "اكتب {{#include f.rs}}",
            "{#include",
            false
        ));
        assert!(shown_as_written(
            "use **\\[\\[Wikilinks\\]\\]**.",
            "[[Wikilinks]].",
            false
        ));
        // An escaped brace elsewhere escapes no other.
        assert!(!shown_as_written("&lbrace; {#x}", "{#x}", false));
    }
}
