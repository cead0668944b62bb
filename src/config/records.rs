//! `[library.records]`: the JSON records mapping, checked (templates parse, the pattern
//! compiles) and built into `extract::RecordMapping`.

use toml::Spanned;

use super::build::template_or_error;
use super::{Cx, RecordMapping, SectionMapping, raw};

fn path_steps(s: &str) -> Vec<String> {
    if s.is_empty() || s == "$" {
        return Vec::new();
    }
    s.split('.').map(str::to_string).collect()
}

pub(super) fn records(cx: &mut Cx, r: raw::RawRecords) -> Option<RecordMapping> {
    let id = r.id.and_then(|t| template_or_error(cx, t));
    let url = r.url.and_then(|t| template_or_error(cx, t));
    let id_match = match r.id_match {
        None => None,
        Some(m) => match regex::Regex::new(m.pattern.get_ref()) {
            Ok(pattern) => Some(crate::extract::IdMatch {
                field: m.field,
                pattern,
            }),
            Err(e) => {
                cx.error(
                    "regex",
                    m.pattern.span(),
                    format!("bad pattern: {e}"),
                    "id_match.pattern is a Rust regex with named groups (?<name>..)",
                );
                None
            }
        },
    };
    // A title with a `{` is a template like `id`; any other is the path of a field. The date's
    // value is checked per record: it comes from the data.
    let title_template = r
        .title
        .as_ref()
        .filter(|t| t.get_ref().contains('{'))
        .and_then(|t| template_or_error(cx, t.clone()));
    let item_anchor =
        |cx: &mut Cx, t: Option<Spanned<String>>| t.and_then(|t| template_or_error(cx, t));
    let sections = match r.sections {
        None => None,
        Some(s) => Some(SectionMapping {
            select: path_steps(&s.select),
            title: s.title,
            text: s.text.map(|t| t.into_vec()).unwrap_or_default(),
            item_text: s.item_text.unwrap_or_else(|| "text".to_string()),
            item_label: s.item_label,
            item_anchor: item_anchor(cx, s.item_anchor),
        }),
    };
    Some(RecordMapping {
        select: path_steps(&r.select),
        id,
        id_match,
        title: r.title.map(Spanned::into_inner),
        title_template,
        text: r.text.map(|t| t.into_vec()).unwrap_or_default(),
        url,
        date: r.date,
        sections,
        metadata: r.metadata.unwrap_or_default(),
        item_text: r.item_text.unwrap_or_else(|| "text".to_string()),
        item_label: r.item_label,
        item_anchor: item_anchor(cx, r.item_anchor),
    })
}
