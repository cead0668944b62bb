//! `{name}` templates for ids and URLs (`"https://ar.react.dev/{slug}"`, `"{month}-{day}-{n}"`).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(into = "String")]
pub struct Template {
    source: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Lit(String),
    Var(String),
}

impl From<Template> for String {
    fn from(t: Template) -> String {
        t.source
    }
}

/// Why a template's text is not a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("unclosed `{{`")]
    Unclosed,
    #[error("empty `{{}}`")]
    EmptyVariable,
    #[error("stray `}}` (write `}}}}` for a brace)")]
    StrayClose,
}

/// A variable a template needs that the lookup does not know (`{a|b}`: all of them, as written).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no value for `{variable}`")]
pub struct Missing {
    pub variable: String,
}

impl Template {
    pub fn parse(s: &str) -> Result<Template, TemplateError> {
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    lit.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    lit.push('}');
                }
                '{' => {
                    let mut name = String::new();
                    loop {
                        match chars.next() {
                            Some('}') => break,
                            Some(c) => name.push(c),
                            None => return Err(TemplateError::Unclosed),
                        }
                    }
                    let name = name.trim().to_string();
                    if name.is_empty() {
                        return Err(TemplateError::EmptyVariable);
                    }
                    if !lit.is_empty() {
                        parts.push(Part::Lit(std::mem::take(&mut lit)));
                    }
                    parts.push(Part::Var(name));
                }
                '}' => return Err(TemplateError::StrayClose),
                c => lit.push(c),
            }
        }
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        Ok(Template {
            source: s.to_string(),
            parts,
        })
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    pub fn vars(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(v) => Some(v.as_str()),
            Part::Lit(_) => None,
        })
    }

    /// Fills the template; `Err` names the first variable `lookup` does not know.
    ///
    /// `{a|b}` takes the first of `a`, `b` that `lookup` knows. A variable that is empty between
    /// two `/` leaves one (`/ar/{slug}/` with an empty slug is `/ar/`, never `/ar//`).
    pub fn render(
        &self,
        mut lookup: impl FnMut(&str) -> Option<String>,
    ) -> Result<String, Missing> {
        let mut out = String::new();
        let mut empty_after_slash = false;
        for p in &self.parts {
            match p {
                Part::Lit(s) => {
                    let s = match s.strip_prefix('/') {
                        Some(rest) if empty_after_slash => rest,
                        _ => s,
                    };
                    out.push_str(s);
                    empty_after_slash = false;
                }
                Part::Var(v) => {
                    let value = v
                        .split('|')
                        .find_map(|name| lookup(name.trim()))
                        .ok_or_else(|| Missing {
                            variable: v.clone(),
                        })?;
                    empty_after_slash =
                        value.is_empty() && (out.ends_with('/') || empty_after_slash);
                    out.push_str(&value);
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_vars_and_escapes() {
        let t = Template::parse("https://x/{slug}/{{raw}}").unwrap();
        let out = t
            .render(|v| (v == "slug").then(|| "a/b".to_string()))
            .unwrap();
        assert_eq!(out, "https://x/a/b/{raw}");
        assert_eq!(t.render(|_| None).unwrap_err().variable, "slug".to_string());
    }

    #[test]
    fn alternatives_and_empty_segments() {
        let t = Template::parse("/ar/{a|b}/{c}/x").unwrap();
        let vals = |a: Option<&str>, c: &str| {
            let (a, c) = (a.map(str::to_string), c.to_string());
            t.render(move |v| match v {
                "a" => a.clone(),
                "b" => Some("B".into()),
                "c" => Some(c.clone()),
                _ => None,
            })
            .unwrap()
        };
        assert_eq!(vals(Some("A"), "C"), "/ar/A/C/x");
        assert_eq!(vals(None, "C"), "/ar/B/C/x");
        assert_eq!(vals(Some(""), ""), "/ar/x");
        assert_eq!(t.render(|_| None).unwrap_err().variable, "a|b");
        let id = Template::parse("{m}-{d}").unwrap();
        assert_eq!(id.render(|_| Some(String::new())).unwrap(), "-");
    }

    #[test]
    fn rejects_unclosed() {
        assert_eq!(Template::parse("{slug"), Err(TemplateError::Unclosed));
        assert_eq!(Template::parse("a}b"), Err(TemplateError::StrayClose));
        assert_eq!(Template::parse("a{ }"), Err(TemplateError::EmptyVariable));
        // The words config shows under `bad template`.
        assert_eq!(TemplateError::Unclosed.to_string(), "unclosed `{`");
        assert_eq!(TemplateError::EmptyVariable.to_string(), "empty `{}`");
        assert_eq!(
            TemplateError::StrayClose.to_string(),
            "stray `}` (write `}}` for a brace)"
        );
    }
}
