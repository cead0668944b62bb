//! The normalization pass: one state machine over the characters of a text that applies every
//! rule in pipeline order, with observers that record what changed (`explain`) or nothing.

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};

use super::tables::*;
use super::unicode::*;
use super::{Change, Rules};

pub(super) trait Observer {
    const ACTIVE: bool;
    fn change(&mut self, offset: usize, ch: char, rule: Rule, replacement: &str);
}

pub(super) struct NoObs;
impl Observer for NoObs {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn change(&mut self, _: usize, _: char, _: Rule, _: &str) {}
}

pub(super) struct Recorder(pub(super) Vec<Change>);
impl Observer for Recorder {
    const ACTIVE: bool = true;
    fn change(&mut self, offset: usize, ch: char, rule: Rule, replacement: &str) {
        self.0.push(Change {
            offset,
            ch,
            rule: rule.name(),
            replacement: replacement.to_string(),
        });
    }
}

#[derive(Clone, Copy)]
pub(super) struct Pending {
    pub(super) off: usize,
    /// The input character.
    orig: char,
    /// For a separator: the separator character after NFKC (`.`, `٫`, `٬`).
    pub(super) ch: char,
    /// For a space: produced by another rule (punctuation, …) rather than input whitespace.
    pub(super) produced: bool,
}

/// A letter the variant pass wrote at byte `at` of its output (ا or ي, two bytes): inserted,
/// or (`was_waw`) in place of the و before it.
#[derive(Clone, Copy, Debug)]
pub(super) struct VariantEdit {
    pub(super) at: usize,
    pub(super) was_waw: bool,
}

pub(super) struct Pass<'a, O: Observer> {
    pub(super) rules: &'a Rules,
    /// The Arabic-block fast classes under `rules`' folds.
    pub(super) fast: &'static ArabicFast,
    pub(super) out: &'a mut String,
    pub(super) obs: O,
    /// A space is due before the next emitted character (collapses runs, trims the end).
    pub(super) space: Option<Pending>,
    /// A decimal/thousands separator after a digit, waiting to see if a digit follows.
    sep: Option<Pending>,
    last_digit: bool,
    /// Variant mode (dagger alef → ا etc.).
    pub(super) variant: bool,
    pub(super) variant_hit: bool,
    /// Where the variant pass wrote a variant letter (variant mode only).
    pub(super) edits: Vec<VariantEdit>,
    /// Tests: `feed_plain` feeds one character at a time and `run_words` segments the whole
    /// block (the reference for runs and words).
    #[cfg(test)]
    pub(super) per_char: bool,
    pub(super) base: Base,
    /// Something outside ASCII/Arabic was emitted: the output may need recomposition.
    pub(super) exotic: bool,
}

impl<'a, O: Observer> Pass<'a, O> {
    pub(super) fn new(rules: &'a Rules, out: &'a mut String, variant: bool, obs: O) -> Self {
        Pass {
            rules,
            fast: &ARABIC_FAST[fold_bits(rules)],
            out,
            obs,
            space: None,
            sep: None,
            last_digit: false,
            variant,
            variant_hit: false,
            edits: Vec::new(),
            #[cfg(test)]
            per_char: false,
            base: Base::None,
            exotic: false,
        }
    }

    pub(super) fn run(&mut self, text: &str) {
        // Blocks of about BLOCK bytes, each ending just before an ASCII byte (an ASCII character
        // is an NFC boundary, so NFC never looks across the cut). A block with no byte that may
        // take part in a composition takes the fast path whole.
        const BLOCK: usize = 8 * 1024;
        let bytes = text.as_bytes();
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + BLOCK).min(text.len());
            while end < text.len() && bytes[end] >= 0x80 {
                end += 1;
            }
            let block = &text[start..end];
            // A block with a byte `may_need_nfc` looks closer at goes word by word: only the
            // words with such a byte are segmented.
            if !may_need_nfc(block.as_bytes()) {
                self.feed_plain(block, start);
            } else {
                self.run_words(block, start);
            }
            start = end;
        }
        self.finish();
    }

    /// A block that NFC may change, word by word: a word (a run of non-ASCII characters with
    /// the ASCII character before it, an NFC boundary on both sides) goes through
    /// `run_segmented` only if it has a character that can take part in a composition
    /// (`may_need_nfc`); the rest, whose segments `run_segmented` would feed as they are, is fed
    /// in one piece.
    fn run_words(&mut self, block: &str, base_off: usize) {
        #[cfg(test)]
        if self.per_char {
            return self.run_segmented(block, base_off);
        }
        let b = block.as_bytes();
        let mut plain = 0; // block[plain..] is not fed yet
        // Only the words with a byte `may_need_nfc` looks closer at: found by a block scan.
        while let Some(p) = next_suspect(b, plain) {
            let mut start = p;
            while start > 0 && b[start - 1] >= 0x80 {
                start -= 1;
            }
            let mut end = p;
            while end < b.len() && b[end] >= 0x80 {
                end += 1;
            }
            let word = start.saturating_sub(1).max(plain); // the ASCII character before, if any
            self.feed_plain(&block[plain..word], base_off + plain);
            self.run_segmented(&block[word..end], base_off + word);
            plain = end;
        }
        self.feed_plain(&block[plain..], base_off + plain);
    }

    /// NFC per segment (a segment starts at an NFC boundary). Consecutive segments that NFC
    /// leaves as they are go to `feed_plain` in one piece.
    fn run_segmented(&mut self, text: &str, base_off: usize) {
        let mut plain = 0; // text[plain..start] needs no NFC and is not fed yet
        let mut start = 0;
        let mut complex = false;
        for (i, c) in text.char_indices() {
            let boundary = is_nfc_boundary(c);
            if i > 0 && boundary {
                if complex
                    && (composed_pair(&text[start..i]).is_some() || needs_nfc(&text[start..i]))
                {
                    self.feed_plain(&text[plain..start], base_off + plain);
                    self.compose(&text[start..i], base_off + start);
                    plain = i;
                }
                start = i;
                complex = false;
            } else if !boundary && !is_harmless_arabic_mark(c as u32) {
                complex = true;
            }
        }
        if start < text.len()
            && complex
            && (composed_pair(&text[start..]).is_some() || needs_nfc(&text[start..]))
        {
            self.feed_plain(&text[plain..start], base_off + plain);
            self.compose(&text[start..], base_off + start);
            plain = text.len();
        }
        self.feed_plain(&text[plain..], base_off + plain);
    }

    /// A segment that NFC changes: its composed characters, reported at its first character.
    pub(super) fn compose(&mut self, seg: &str, base_off: usize) {
        let first = seg.chars().next().unwrap_or(' ');
        if !O::ACTIVE
            && let Some(c) = composed_pair(seg)
        {
            return self.feed_as(c, base_off, first);
        }
        if O::ACTIVE {
            let composed: String = seg.chars().nfc().collect();
            self.obs.change(base_off, first, Rule::Nfc, &composed);
        }
        for c in seg.chars().nfc() {
            self.feed_as(c, base_off, first);
        }
    }

    /// The characters of text that needs no NFC; the same as `feed` on each of them, faster.
    /// Runs of characters kept as they are (ASCII lowercase letters and digits, kept Arabic
    /// letters, single spaces between them) are copied in one piece; characters deleted without
    /// a trace (harakat, Quranic marks, tatweel) are skipped and single-letter folds pushed
    /// (both only when no observer records changes), within runs by `copy_run`; every other
    /// character goes through `feed`.
    pub(super) fn feed_plain(&mut self, text: &str, base_off: usize) {
        #[cfg(test)]
        if self.per_char {
            for (j, c) in text.char_indices() {
                self.feed(c, base_off + j);
            }
            return;
        }
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let (class, w) = fast_class(self.fast, b, i);
            match class {
                Fast::Keep(_, digit) => {
                    // What `emit` does before pushing the run's first character.
                    if self.sep.is_some() {
                        self.resolve_sep(digit);
                    }
                    if self.space.is_some() {
                        self.flush_space();
                    }
                    i = self.copy_run(text, i);
                }
                Fast::Fold(t, base) if !O::ACTIVE => {
                    self.emit(t, base, false);
                    i = self.copy_run(text, i + w);
                }
                Fast::Drop if !O::ACTIVE => i += w,
                _ => {
                    let Some(c) = text[i..].chars().next() else {
                        break;
                    };
                    self.feed(c, base_off + i);
                    i += c.len_utf8();
                }
            }
        }
    }

    /// From `i`, a kept character (the space and separator `emit` would settle before it are
    /// settled): runs of kept characters copied whole, and between them (when no observer
    /// records changes) characters deleted without a trace (harakat, Quranic marks, tatweel:
    /// skipped) and single-letter folds (pushed), as `feed` on each would do. Diacritized text,
    /// a letter between two marks, and prose, whose words begin with أ and end in ة, stay in
    /// this loop. Returns where the characters it takes end.
    #[inline(always)]
    fn copy_run(&mut self, text: &str, mut i: usize) -> usize {
        let b = text.as_bytes();
        let t = self.fast;
        loop {
            let from = i;
            i = keep_run_end(t, b, i);
            if let [x @ 0xC2..=0xDF, y] = b[from..i] {
                // One letter (diacritized text: a letter between two marks): pushed as a char,
                // not by a copy call for two bytes.
                self.out.push(two_byte_char(x, y));
                (self.base, self.last_digit) = last_kept(t, b, i);
            } else if i > from {
                self.out.push_str(&text[from..i]);
                // The state `emit` leaves after the run's last character.
                (self.base, self.last_digit) = last_kept(t, b, i);
            }
            if O::ACTIVE {
                return i;
            }
            match fast_class(t, b, i) {
                (Fast::Drop, w) => i += w,
                (Fast::Fold(c, base), w) => {
                    self.out.push(c);
                    (self.base, self.last_digit) = (base, false);
                    i += w;
                }
                _ => return i,
            }
        }
    }

    #[inline(always)]
    pub(super) fn feed(&mut self, c: char, off: usize) {
        self.feed_as(c, off, c)
    }

    /// Process one NFC character; `orig` is the input character reported by `explain`.
    #[inline(always)]
    fn feed_as(&mut self, c: char, off: usize, orig: char) {
        let u = c as u32;
        if u < 0x80 {
            self.ascii(c, off, orig);
        } else if (0x0600..0x0700).contains(&u) {
            self.arabic(c, off, orig);
        } else {
            self.other(c, off, orig);
        }
    }

    /// After NFKC / ligature expansion: like `feed_as` but no presentation-form step.
    fn stage_b(&mut self, c: char, off: usize, orig: char) {
        let u = c as u32;
        if u < 0x80 {
            self.ascii(c, off, orig);
        } else if (0x0600..0x0700).contains(&u) {
            self.arabic(c, off, orig);
        } else {
            self.generic(c, off, orig);
        }
    }

    #[inline]
    pub(super) fn record(&mut self, off: usize, orig: char, rule: Rule, repl: char) {
        if O::ACTIVE {
            let mut buf = [0u8; 4];
            self.obs.change(off, orig, rule, repl.encode_utf8(&mut buf));
        }
    }

    #[inline]
    fn record_str(&mut self, off: usize, orig: char, rule: Rule, repl: &str) {
        if O::ACTIVE {
            self.obs.change(off, orig, rule, repl);
        }
    }

    /// Emit a kept character.
    #[inline(always)]
    pub(super) fn emit(&mut self, c: char, base: Base, digit: bool) {
        if self.sep.is_some() {
            self.resolve_sep(digit);
        }
        if self.space.is_some() {
            self.flush_space();
        }
        self.out.push(c);
        self.last_digit = digit;
        self.base = base;
    }

    #[inline]
    fn flush_space(&mut self) {
        if let Some(p) = self.space.take() {
            self.out.push(' ');
            if O::ACTIVE && !p.produced && p.orig != ' ' {
                self.record(p.off, p.orig, Rule::Whitespace, ' ');
            }
        }
    }

    /// A space-producing event: input whitespace (`produced` = false) or a space produced by
    /// another rule (which has recorded its own change).
    fn space_event(&mut self, off: usize, orig: char, produced: bool) {
        if self.sep.is_some() {
            self.resolve_sep(false);
        }
        self.last_digit = false;
        self.base = Base::None;
        if self.out.is_empty() || self.space.is_some() {
            // leading space, or a run of spaces: dropped
            if O::ACTIVE {
                self.record_str(off, orig, Rule::Whitespace, "");
            }
        } else {
            self.space = Some(Pending {
                off,
                orig,
                ch: ' ',
                produced,
            });
        }
    }

    /// `rule` turns the character into a space.
    fn rule_space(&mut self, off: usize, orig: char, rule: Rule) {
        self.record(off, orig, rule, ' ');
        self.space_event(off, orig, true);
    }

    /// A separator (`.`, ٫, ٬) directly after a digit: decide when the next character is known.
    #[cold]
    fn resolve_sep(&mut self, next_is_digit: bool) {
        let Some(p) = self.sep.take() else { return };
        if next_is_digit {
            match p.ch {
                '.' => {
                    self.out.push('.');
                }
                '\u{066B}' => {
                    self.out.push('.');
                    self.record(p.off, p.orig, Rule::Digits, '.');
                }
                _ => {
                    self.record_str(p.off, p.orig, Rule::Digits, "");
                }
            }
            // the digit that follows is emitted by the caller
        } else if self.rules.punctuation {
            self.rule_space(p.off, p.orig, Rule::Punctuation);
        } else {
            // punctuation kept: the separator stays as it is
            self.out.push(p.ch);
            self.last_digit = false;
            self.base = Base::None;
        }
    }

    fn punct(&mut self, c: char, off: usize, orig: char) {
        if self.rules.punctuation {
            self.rule_space(off, orig, Rule::Punctuation);
        } else {
            self.emit(c, Base::None, false);
            if !c.is_ascii() && !(0x0600..0x0700).contains(&(c as u32)) {
                self.exotic = true;
            }
        }
    }

    #[inline(always)]
    fn can_start_sep(&self) -> bool {
        self.last_digit && self.space.is_none() && self.sep.is_none()
    }

    #[inline(always)]
    fn ascii(&mut self, c: char, off: usize, orig: char) {
        match ASCII[c as usize] {
            A_LOWER => self.emit(c, Base::None, false),
            A_DIGIT => self.emit(c, Base::None, true),
            A_UPPER => {
                if self.rules.lowercase_latin {
                    let l = c.to_ascii_lowercase();
                    self.record(off, orig, Rule::LowercaseLatin, l);
                    self.emit(l, Base::None, false)
                } else {
                    self.emit(c, Base::None, false)
                }
            }
            A_SPACE => self.space_event(off, orig, false),
            A_DOT => {
                if self.rules.punctuation && self.can_start_sep() {
                    self.sep = Some(Pending {
                        off,
                        orig,
                        ch: '.',
                        produced: false,
                    });
                } else {
                    self.punct(c, off, orig)
                }
            }
            _ => self.punct(c, off, orig),
        }
    }

    #[inline(always)]
    pub(super) fn arabic(&mut self, c: char, off: usize, orig: char) {
        match ARABIC[(c as u32 - 0x0600) as usize] {
            Act::Keep(base) => self.emit(c, base, false),
            Act::Lossy(fold, base) => {
                let (t, rule) = self.fold(fold, c);
                if t != c {
                    self.record(off, orig, rule, t);
                }
                self.emit(t, base, false)
            }
            Act::Delete(rule) => self.record_str(off, orig, rule, ""),
            Act::Space(rule) => self.rule_space(off, orig, rule),
            Act::Map(t, rule, base) => {
                self.record(off, orig, rule, t);
                let t2 = match t {
                    '\u{0629}' => self.fold(Fold::TehMarbuta, t),
                    '\u{0626}' => self.fold(Fold::HamzaCarrier, t),
                    _ => (t, rule),
                };
                if t2.0 != t {
                    self.record(off, orig, t2.1, t2.0);
                }
                self.emit(t2.0, base, false)
            }
            Act::Digit(d) => {
                if self.rules.digits {
                    let a = (b'0' + d) as char;
                    self.record(off, orig, Rule::Digits, a);
                    self.emit(a, Base::None, true)
                } else {
                    self.emit(c, Base::None, true)
                }
            }
            Act::DecimalSep | Act::ThousandsSep => {
                if self.rules.digits && self.can_start_sep() {
                    self.sep = Some(Pending {
                        off,
                        orig,
                        ch: c,
                        produced: false,
                    });
                } else {
                    self.punct(c, off, orig)
                }
            }
            Act::Punct => self.punct(c, off, orig),
            Act::Dagger => self.dagger(off, orig),
            Act::SmallHighYeh => {
                if self.variant && self.base != Base::None {
                    self.variant_hit = true;
                    self.emit('\u{064A}', Base::Consonant, false);
                    self.edits.push(VariantEdit {
                        at: self.out.len() - 2,
                        was_waw: false,
                    });
                } else {
                    self.record_str(off, orig, Rule::QuranicMarks, "")
                }
            }
        }
    }

    pub(super) fn dagger(&mut self, off: usize, orig: char) {
        if self.variant {
            match self.base {
                Base::Consonant => {
                    self.variant_hit = true;
                    self.emit('\u{0627}', Base::Alef, false);
                    self.edits.push(VariantEdit {
                        at: self.out.len() - 2,
                        was_waw: false,
                    });
                    return;
                }
                // base == Waw means the last emitted character is this و
                Base::Waw if self.out.ends_with('\u{0648}') => {
                    self.out.pop();
                    self.out.push('\u{0627}');
                    self.edits.push(VariantEdit {
                        at: self.out.len() - 2,
                        was_waw: true,
                    });
                    self.base = Base::Alef;
                    self.variant_hit = true;
                    return;
                }
                _ => {}
            }
        }
        self.record_str(off, orig, Rule::DaggerAlef, "");
    }

    #[inline]
    pub(super) fn fold(&self, fold: Fold, c: char) -> (char, Rule) {
        let r = self.rules;
        match fold {
            Fold::AlefHamza if r.fold_alef_hamza => ('\u{0627}', Rule::FoldAlefHamza),
            Fold::AlefMaksura if r.fold_alef_maksura => ('\u{064A}', Rule::FoldAlefMaksura),
            Fold::TehMarbuta if r.fold_teh_marbuta => ('\u{0647}', Rule::FoldTehMarbuta),
            Fold::HamzaCarrier if r.fold_hamza_carriers => (
                if c == '\u{0624}' {
                    '\u{0648}'
                } else {
                    '\u{064A}'
                },
                Rule::FoldHamzaCarriers,
            ),
            _ => (c, Rule::Nfc),
        }
    }

    /// Characters outside ASCII and the Arabic block, before NFKC.
    pub(super) fn other(&mut self, c: char, off: usize, orig: char) {
        let u = c as u32;
        if (0xFE70..=0xFE7F).contains(&u) || (0xFC5E..=0xFC63).contains(&u) {
            self.record_str(off, orig, Rule::PresentationForms, "");
            return;
        }
        if u == 0xFEFF {
            self.record_str(off, orig, Rule::Invisible, "");
            return;
        }
        if let Some(phrase) = phrase_ligature(c) {
            self.record_str(off, orig, Rule::PresentationForms, phrase);
            self.space_event(off, orig, true);
            for d in phrase.chars() {
                self.stage_b(d, off, orig);
            }
            self.space_event(off, orig, true);
            return;
        }
        if is_compat_block(u) {
            let mut buf = ['\0'; NFKC_MAX];
            let n = nfkc_char(c, &mut buf);
            if !(n == 1 && buf[0] == c) {
                if O::ACTIVE {
                    let s: String = buf[..n].iter().collect();
                    self.obs.change(off, orig, Rule::PresentationForms, &s);
                }
                for &d in &buf[..n] {
                    self.stage_b(d, off, orig);
                }
                return;
            }
        }
        self.generic(c, off, orig)
    }

    /// Characters outside ASCII and the Arabic block, after NFKC.
    fn generic(&mut self, c: char, off: usize, orig: char) {
        let u = c as u32;
        if is_invisible(u) {
            self.record_str(off, orig, Rule::Invisible, "");
            return;
        }
        if (0x0870..=0x08FF).contains(&u) {
            if u == 0x08E2 {
                self.rule_space(off, orig, Rule::QuranicSymbols);
                return;
            }
            if (0x0897..=0x089F).contains(&u) || u >= 0x08CA {
                self.record_str(off, orig, Rule::QuranicMarks, "");
                return;
            }
        }
        if (0x10EFC..=0x10EFF).contains(&u) {
            self.record_str(off, orig, Rule::QuranicMarks, "");
            return;
        }
        if c.is_whitespace() || c.is_control() {
            self.space_event(off, orig, false);
            return;
        }
        if is_combining_mark(c) {
            // kept (Latin accents, Hebrew points, Indic vowel signs, …); transparent for `base`
            let base = self.base;
            self.emit(c, base, false);
            self.exotic = true;
            return;
        }
        if c.is_alphanumeric() {
            let base = if (0x0750..=0x077F).contains(&u) || (0x0870..=0x08C9).contains(&u) {
                Base::Consonant
            } else {
                Base::None
            };
            self.exotic = true;
            if self.rules.lowercase_latin && has_lowercase(c) {
                let lower = c.to_lowercase();
                if O::ACTIVE {
                    let s: String = c.to_lowercase().collect();
                    self.obs.change(off, orig, Rule::LowercaseLatin, &s);
                }
                for l in lower {
                    self.emit(l, base, false);
                }
            } else {
                self.emit(c, base, false);
            }
            return;
        }
        self.punct(c, off, orig)
    }

    fn finish(&mut self) {
        if self.sep.is_some() {
            self.resolve_sep(false);
        }
        if let Some(p) = self.space.take() {
            // trailing space: trimmed
            self.record_str(p.off, p.orig, Rule::Whitespace, "");
        }
        if self.exotic && is_nfc_quick(self.out.chars()) != IsNormalized::Yes {
            let composed: String = self.out.chars().nfc().collect();
            if composed != *self.out {
                self.out.clear();
                self.out.push_str(&composed);
            }
        }
    }
}

/// Titlecase letters (ǅ …) are not `is_uppercase` but still have a lowercase mapping.
#[inline]
fn has_lowercase(c: char) -> bool {
    let mut l = c.to_lowercase();
    !(l.len() == 1 && l.next() == Some(c))
}
