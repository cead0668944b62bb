//! Liquid (Jekyll, Eleventy): such a site's Markdown is a Liquid template, rendered before the
//! Markdown is. Its tags (`{% … %}`) and output (`{{ … }}`) outside code are template code, not
//! evidence: dropped. `{% highlight LANG %}…{% endhighlight %}` becomes fenced code of LANG,
//! `{% comment %}` blocks go, `{% raw %}` keeps its text as written; kramdown attribute lists
//! (`{: .class}`, `{:style="…"}`) go too. Code spans and fenced code are never touched
//! (`markdown::preprocess` hands over prose lines only).

/// Where a document's Liquid scan is between lines.
#[derive(Debug, Default)]
pub(super) struct Liquid {
    state: State,
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
    pub fn owns_line(&self) -> bool {
        !matches!(self.state, State::Prose | State::Raw)
    }

    /// One line of prose (with its `\n`, if any) as Markdown should read it. A line that was
    /// only a kramdown attribute list is dropped whole; one that was only Liquid tags becomes
    /// a blank line, as Jekyll leaves it.
    pub fn line(&mut self, line: &str) -> String {
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
                        out.push_str(&super::fenced(lang, code.trim_matches('\n')));
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
                b'`' => {
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
    pub fn finish(self) -> String {
        match self.state {
            State::Highlight { lang, code } => {
                let mut out = super::fenced(&lang, code.trim_matches('\n'));
                out.push('\n');
                out
            }
            _ => String::new(),
        }
    }
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
