//! Liquid (Jekyll, Eleventy): such a site's Markdown is a Liquid template, rendered before the
//! Markdown is. Its tags (`{% … %}`) and output (`{{ … }}`) outside code are template code, not
//! evidence: dropped. `{% highlight LANG %}…{% endhighlight %}` becomes fenced code of LANG,
//! `{% comment %}` blocks go, `{% raw %}` keeps its text as written; kramdown attribute lists
//! (`{: .class}`, `{:style="…"}`) go too. Code spans and fenced code are never touched
//! (`markdown::preprocess` hands over prose lines only); in an HTML page (`strip_html`), the
//! content of `<pre>`, `<code>`, `<script>`, `<style>` and `<textarea>` is not.

/// Where a document's Liquid scan is between lines.
#[derive(Debug, Default)]
pub(super) struct Liquid {
    state: State,
    /// Reading an HTML page: backticks are text, a highlight block becomes `<pre><code>`.
    html: bool,
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Prose,
    /// Inside a tag or output that did not close on its line: dropped until `close`.
    Open(&'static str),
    /// Inside `{% comment %}`: dropped until `{% endcomment %}`.
    Comment,
    /// Inside `{% raw %}`: kept as written until `{% endraw %}`.
    Raw,
    /// Inside `{% highlight LANG %}`: the code so far, until `{% endhighlight %}`.
    Highlight { lang: String, code: String },
}

/// A `{% name … %}` tag at the start of `s`: its name and its length, or `None` when it does
/// not close in `s`.
fn tag_at(s: &str) -> Option<(&str, usize)> {
    // The close is looked for after the opening `{%` (`{%}` does not close itself).
    let end = s.get(2..)?.find("%}")? + 4;
    let inner = s[2..end - 2].trim_matches(|c: char| c == '-' || c.is_whitespace());
    let name = inner.split_whitespace().next().unwrap_or("");
    Some((name, end))
}

/// Where the next `{% name %}` tag of that name starts in `s`, and where it ends.
fn find_tag(s: &str, want: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(i) = s[from..].find("{%") {
        let at = from + i;
        match tag_at(&s[at..]) {
            Some((name, len)) if name == want => return Some((at, at + len)),
            Some((_, len)) => from = at + len,
            None => return None,
        }
    }
    None
}

impl Liquid {
    /// Whether lines are Liquid's own now (a highlight or comment block, an unclosed tag), so
    /// that Markdown must not read them (a fence line inside `{% highlight %}` is code).
    pub(super) fn owns_line(&self) -> bool {
        !matches!(self.state, State::Prose | State::Raw)
    }

    /// One line of prose (with its `\n`, if any) as Markdown should read it. A line that was
    /// only a kramdown attribute list is dropped whole; one that was only Liquid tags becomes
    /// a blank line, as Jekyll leaves it.
    pub(super) fn line(&mut self, line: &str) -> String {
        let (body, nl) = match line.strip_suffix('\n') {
            Some(b) => (b, "\n"),
            None => (line, ""),
        };
        if body.trim().is_empty() {
            match &mut self.state {
                State::Highlight { code, .. } => {
                    code.push('\n');
                    return String::new();
                }
                // Liquid refuses a tag left open; a stray `{{` in prose ends at its paragraph,
                // so it never takes the rest of the page with it.
                State::Open(_) => self.state = State::Prose,
                _ => {}
            }
        }
        let mut out = String::with_capacity(body.len());
        let mut rest = body;
        let mut dropped_ial = false;
        let mut dropped_liquid = false;
        while !rest.is_empty() {
            rest = match &mut self.state {
                State::Open(close) => match rest.find(*close) {
                    Some(i) => {
                        let rest = &rest[i + close.len()..];
                        self.state = State::Prose;
                        rest
                    }
                    None => "",
                },
                State::Comment => match find_tag(rest, "endcomment") {
                    Some((_, end)) => {
                        self.state = State::Prose;
                        &rest[end..]
                    }
                    None => "",
                },
                State::Raw => match find_tag(rest, "endraw") {
                    Some((start, end)) => {
                        out.push_str(&rest[..start]);
                        self.state = State::Prose;
                        &rest[end..]
                    }
                    None => {
                        out.push_str(rest);
                        ""
                    }
                },
                State::Highlight { lang, code } => match find_tag(rest, "endhighlight") {
                    Some((start, end)) => {
                        code.push_str(&rest[..start]);
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        out.push_str(&block(self.html, lang, code));
                        out.push('\n');
                        self.state = State::Prose;
                        &rest[end..]
                    }
                    None => {
                        code.push_str(rest);
                        code.push('\n');
                        ""
                    }
                },
                State::Prose => {
                    let (kept, next, what) = self.prose(rest);
                    out.push_str(kept);
                    match what {
                        Dropped::Nothing => {}
                        Dropped::Liquid => dropped_liquid = true,
                        Dropped::Attributes => dropped_ial = true,
                    }
                    // `على {{ x }} أو` reads `على أو`, one space.
                    if out.ends_with(' ') && matches!(self.state, State::Prose) {
                        next.trim_start_matches(' ')
                    } else {
                        next
                    }
                }
            };
        }
        if out.trim().is_empty() {
            // Lines inside a block or an unclosed tag, and attribute-list lines, go whole.
            if self.owns_line() || (dropped_ial && !dropped_liquid) {
                return String::new();
            }
            if dropped_liquid {
                return nl.to_string();
            }
        }
        out.push_str(nl);
        out
    }

    /// The prose at the start of `s` up to the next thing Liquid or kramdown owns, and the
    /// rest after that thing (its state set), with what was dropped.
    fn prose<'a>(&mut self, s: &'a str) -> (&'a str, &'a str, Dropped) {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'`' if !self.html => {
                    // A code span: copied through to its closing run of as many backticks.
                    let run = b[i..].iter().take_while(|&&c| c == b'`').count();
                    let after = i + run;
                    i = closing_run(&s[after..], run).map_or(after, |end| after + end);
                }
                b'{' if b.get(i + 1) == Some(&b'%') => {
                    let Some((name, len)) = tag_at(&s[i..]) else {
                        self.state = State::Open("%}");
                        return (&s[..i], "", Dropped::Liquid);
                    };
                    let inner = &s[i + 2..i + len - 2];
                    match name {
                        "comment" => self.state = State::Comment,
                        "raw" => self.state = State::Raw,
                        "highlight" => {
                            let lang = inner
                                .trim_matches(|c: char| c == '-' || c.is_whitespace())
                                .split_whitespace()
                                .nth(1)
                                .unwrap_or("")
                                .to_string();
                            self.state = State::Highlight {
                                lang,
                                code: String::new(),
                            };
                        }
                        _ => {}
                    }
                    return (&s[..i], &s[i + len..], Dropped::Liquid);
                }
                b'{' if b.get(i + 1) == Some(&b'{') => {
                    return match s[i..].find("}}") {
                        Some(end) => (&s[..i], &s[i + end + 2..], Dropped::Liquid),
                        None => {
                            self.state = State::Open("}}");
                            (&s[..i], "", Dropped::Liquid)
                        }
                    };
                }
                b'{' if b.get(i + 1) == Some(&b':') => {
                    if let Some(end) = s[i..].find('}') {
                        return (&s[..i], &s[i + end + 1..], Dropped::Attributes);
                    }
                    i += 2;
                }
                _ => i += 1,
            }
        }
        (s, "", Dropped::Nothing)
    }

    /// What is left of a document that ended inside a block: a highlight's code stays code.
    pub(super) fn finish(self) -> String {
        match self.state {
            State::Highlight { lang, code } => {
                let mut out = block(self.html, &lang, &code);
                out.push('\n');
                out
            }
            _ => String::new(),
        }
    }
}

/// A highlight block's code as the page's format writes code: fenced in Markdown, `<pre><code>`
/// in HTML.
fn block(html: bool, lang: &str, code: &str) -> String {
    let code = code.trim_matches('\n');
    if html {
        let class = html_escape::encode_double_quoted_attribute(lang);
        format!(
            "<pre><code class=\"language-{class}\">{}</code></pre>",
            html_escape::encode_text(code)
        )
    } else {
        super::fenced(lang, code)
    }
}

/// Elements whose content is code or not text: Liquid inside them is left as written.
const CODE_ELEMENTS: [&str; 5] = ["pre", "code", "script", "style", "textarea"];

/// The first code element that opens in `lower` (lowercased HTML): where, and its name.
fn code_open(lower: &str) -> Option<(usize, &'static str)> {
    let mut from = 0;
    while let Some(i) = lower[from..].find('<') {
        let at = from + i;
        for name in CODE_ELEMENTS {
            let rest = &lower[at + 1..];
            if rest.starts_with(name)
                && rest[name.len()..]
                    .starts_with(|c: char| c == '>' || c == '/' || c.is_ascii_whitespace())
            {
                return Some((at, name));
            }
        }
        from = at + 1;
    }
    None
}

/// An HTML page of a Liquid library with its template code dropped as in Markdown prose, the
/// content of code elements (`CODE_ELEMENTS`) kept as written.
pub(super) fn strip_html(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut liquid = Liquid {
        state: State::Prose,
        html: true,
    };
    let mut out = String::with_capacity(html.len());
    let mut pos = 0;
    while pos < html.len() {
        let line_end = html[pos..].find('\n').map_or(html.len(), |i| pos + i + 1);
        let open = matches!(liquid.state, State::Prose)
            .then(|| code_open(&lower[pos..line_end]))
            .flatten();
        let Some((at, name)) = open else {
            out.push_str(&liquid.line(&html[pos..line_end]));
            pos = line_end;
            continue;
        };
        let start = pos + at;
        out.push_str(&liquid.line(&html[pos..start]));
        if !matches!(liquid.state, State::Prose) {
            // The text before it opened a Liquid block: the element is the block's.
            pos = start;
            continue;
        }
        // The element, up to the end of its closing tag (or of the page), as written.
        let close = format!("</{name}");
        let end = lower[start..]
            .find(&close)
            .and_then(|c| lower[start + c..].find('>').map(|g| start + c + g + 1))
            .unwrap_or(html.len());
        out.push_str(&html[start..end]);
        pos = end;
    }
    out.push_str(&liquid.finish());
    out
}

/// What a stretch of a line lost.
enum Dropped {
    Nothing,
    Liquid,
    Attributes,
}

/// The end of the first run of exactly `n` backticks in `s`.
fn closing_run(s: &str, n: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'`' {
            let run = b[i..].iter().take_while(|&&c| c == b'`').count();
            if run == n {
                return Some(i + run);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any mix of Liquid and HTML punctuation is read without a panic.
        #[test]
        fn html_never_panics(s in "([{}%<>/\n -]|pre|code|highlight a|endhighlight|raw|endraw|ب){0,24}") {
            let _ = strip_html(&s);
        }
    }

    /// An HTML page loses its Liquid outside code elements; code keeps it, and a highlight
    /// block becomes `<pre><code>`.
    #[test]
    fn html_pages_lose_liquid_outside_code() {
        let page = "<p>كاتبها {{ site.author }}.</p>\n{% for p in site.posts %}<p>{{ p.title }}</p>{% endfor %}\n<pre>{{ x }}\n{% if a %}</pre><p>`{{ y }}`</p><code>{{ z }}</code>\n{% highlight js %}\nlet a = \"<b>\";\n{% endhighlight %}\n";
        assert_eq!(
            strip_html(page),
            "<p>كاتبها .</p>\n<p></p>\n<pre>{{ x }}\n{% if a %}</pre><p>``</p><code>{{ z }}</code>\n<pre><code class=\"language-js\">let a = \"&lt;b&gt;\";</code></pre>\n\n"
        );
    }
}
