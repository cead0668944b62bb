use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

pub const RULES_VERSION: u32 = 0;

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    pub fold_alef_hamza: bool,
    pub fold_alef_maksura: bool,
    pub fold_teh_marbuta: bool,
    pub fold_hamza_carriers: bool,
    pub digits: bool,
    pub punctuation: bool,
    pub lowercase_latin: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules { fold_alef_hamza: true, fold_alef_maksura: true, fold_teh_marbuta: true, fold_hamza_carriers: false, digits: true, punctuation: true, lowercase_latin: true }
    }
}

impl Rules {
    pub fn active_rule_names(&self) -> Vec<&'static str> {
        let mut v = vec!["nfc", "invisible", "harakat", "tatweel", "alef_wasla"];
        if self.digits { v.push("digits") }
        if self.punctuation { v.push("punctuation") }
        if self.lowercase_latin { v.push("lowercase_latin") }
        v.push("whitespace");
        if self.fold_alef_hamza { v.push("fold_alef_hamza") }
        if self.fold_alef_maksura { v.push("fold_alef_maksura") }
        if self.fold_teh_marbuta { v.push("fold_teh_marbuta") }
        if self.fold_hamza_carriers { v.push("fold_hamza_carriers") }
        v
    }
}

pub fn normalize(text: &str, rules: &Rules) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, rules, &mut out);
    out
}

pub fn normalize_into(text: &str, rules: &Rules, out: &mut String) {
    out.clear();
    let mut pending_space = false;
    for c in text.nfc() {
        let c = match c {
            '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}' | '\u{061C}' | '\u{00AD}' => continue,
            '\u{064B}'..='\u{065F}' | '\u{0670}' | '\u{0610}'..='\u{061A}' | '\u{06D6}'..='\u{06DC}' | '\u{06DF}'..='\u{06E8}' | '\u{06EA}'..='\u{06ED}' | '\u{0640}' => continue,
            '\u{0671}' => 'ا',
            'أ' | 'إ' | 'آ' if rules.fold_alef_hamza => 'ا',
            'ى' if rules.fold_alef_maksura => 'ي',
            'ة' if rules.fold_teh_marbuta => 'ه',
            'ؤ' if rules.fold_hamza_carriers => 'و',
            'ئ' if rules.fold_hamza_carriers => 'ي',
            '\u{0660}'..='\u{0669}' if rules.digits => char::from(b'0' + (c as u32 - 0x0660) as u8),
            '\u{06F0}'..='\u{06F9}' if rules.digits => char::from(b'0' + (c as u32 - 0x06F0) as u8),
            c if c.is_whitespace() => ' ',
            c if rules.punctuation && (c.is_ascii_punctuation() || matches!(c, '،' | '؛' | '؟' | '٪' | '٫' | '٬' | '۔' | '«' | '»' | '“' | '”' | '…' | '–' | '—')) => ' ',
            c => c,
        };
        if c == ' ' {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        if rules.lowercase_latin && c.is_ascii_uppercase() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
}
