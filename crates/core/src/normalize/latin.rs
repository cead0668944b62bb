//! English inflection of Latin technical terms in Arabic documentation ("Invalid hook call" against
//! "hooks can only be called", "export" against `importing-and-exporting-components`). Query side
//! only: the index keeps each Latin word as written (lowercased); a question's Latin word is
//! expanded to its regular inflections (`[retrieval] latin_inflection_weight`) and compared with URL
//! words by [`latin_stem`]. An S-stemmer (Harman 1991) plus -ed/-ing: it never reduces a word
//! below three letters and leaves words with digits or non-ASCII letters alone.

fn is_latin_word(w: &str) -> bool {
    w.len() >= 3 && w.bytes().all(|b| b.is_ascii_lowercase())
}

/// The shared base of a lowercased English word's regular inflections: hooks → hook,
/// properties → property, called → call, exporting → export, computed → comput(e) → comput.
pub fn latin_stem(word: &str) -> Option<String> {
    if !is_latin_word(word) {
        return None;
    }
    let w = word;
    let base = if let Some(r) = w.strip_suffix("ies").filter(|r| r.len() >= 3) {
        format!("{r}y")
    } else if let Some(r) = w.strip_suffix("ing").filter(|r| r.len() >= 3) {
        r.to_string()
    } else if let Some(r) = w.strip_suffix("ed").filter(|r| r.len() >= 3) {
        r.to_string()
    } else if let Some(r) = w
        .strip_suffix('s')
        .filter(|r| r.len() >= 3 && !r.ends_with('s') && !r.ends_with('u') && !r.ends_with('i'))
    {
        r.to_string()
    } else {
        w.to_string()
    };
    // A final silent e goes, so compute / computed / computing share one base.
    Some(
        base.strip_suffix('e')
            .filter(|r| r.len() >= 3)
            .map(str::to_string)
            .unwrap_or(base),
    )
}

/// The regular inflections of a lowercased English word (without the word itself): the forms an
/// Arabic page may use for the term a question names.
pub fn inflections(word: &str) -> Vec<String> {
    let Some(base) = latin_stem(word) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut add = |f: String| {
        if f != word && !out.contains(&f) {
            out.push(f);
        }
    };
    add(base.clone());
    if let Some(stem) = base.strip_suffix('y') {
        add(format!("{stem}ies"));
    } else {
        add(format!("{base}s"));
    }
    add(format!("{base}ed"));
    add(format!("{base}ing"));
    add(format!("{base}e"));
    add(format!("{base}es"));
    add(format!("{base}d"));
    out.retain(|f| latin_stem(f).as_deref() == Some(base.as_str()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_share_one_stem() {
        for (a, b) in [
            ("hook", "hooks"),
            ("call", "called"),
            ("export", "exporting"),
            ("property", "properties"),
            ("compute", "computed"),
            ("component", "components"),
        ] {
            assert_eq!(latin_stem(a), latin_stem(b), "{a} / {b}");
        }
        assert_ne!(latin_stem("class"), latin_stem("cla"));
        assert_eq!(latin_stem("status").as_deref(), Some("status"));
        assert_eq!(latin_stem("vue").as_deref(), Some("vue"));
        assert_eq!(latin_stem("v16"), None);
        assert_eq!(latin_stem("ولد"), None);
    }

    #[test]
    fn a_word_expands_to_its_regular_forms() {
        let f = inflections("hook");
        assert!(
            f.contains(&"hooks".to_string()) && f.contains(&"hooked".to_string()),
            "{f:?}"
        );
        let f = inflections("call");
        assert!(
            f.contains(&"called".to_string())
                && f.contains(&"calls".to_string())
                && !f.contains(&"call".to_string()),
            "{f:?}"
        );
        assert!(inflections("properties").contains(&"property".to_string()));
        assert!(inflections("computed").contains(&"compute".to_string()));
        assert!(inflections("v16").is_empty());
    }
}
