"""Writes native_words.txt: the everyday Arabic words a loanword key must never expand (see
native_words.rs). Run from the repository root, with wordfreq 3.1.1 installed
(`pip install wordfreq==3.1.1`) and a built askzico on PATH or named by ASKZICO:

    python3 crates/core/src/normalize/native_words.py > crates/core/src/normalize/native_words.txt

A word is listed when wordfreq's Arabic list gives it a Zipf frequency of at least 4 (one in
100,000 words of the list's sources, the everyday vocabulary) and its search form under the
default rules has a loanword key (four letters or more, three consonant classes). The keys are
those of loanword.rs, restated here for the words this script reads.
"""
import os
import re
import subprocess
import sys

import wordfreq

MIN_ZIPF = 4.0
ASKZICO = os.environ.get("ASKZICO", "askzico")

# The loanword keys of loanword.rs, for the search forms this script reads.
LATIN = dict(b="B", p="B", c="K", k="K", q="K", d="D", f="F", v="F", g="J", j="J", l="L",
             m="M", n="N", r="R", s="S", z="S", t="T")
ARABIC = {"ب": "B", "ت": "T", "ط": "T", "ث": "T", "ج": "J", "غ": "J", "ح": "H", "خ": "H",
          "د": "D", "ض": "D", "ذ": "D", "ر": "R", "ز": "S", "س": "S", "ص": "S", "ش": "S",
          "ف": "F", "ق": "K", "ك": "K", "ل": "L", "م": "M", "ن": "N"}


def key_of(classes):
    out = []
    for c in classes:
        if not out or out[-1] != c:
            out.append(c)
    return "~" + "".join(out) if len(out) >= 3 else None


def latin_key(w):
    if len(w) < 4 or not re.fullmatch(r"[a-z]+", w):
        return None
    classes, i = [], 0
    while i < len(w):
        c, n = w[i], (w[i + 1] if i + 1 < len(w) else "")
        step, cls = 1, None
        if c == "p" and n == "h":
            cls, step = "F", 2
        elif c in "sc" and n == "h":
            cls, step = "S", 2
        elif c == "t" and n == "h":
            cls, step = "T", 2
        elif c == "c" and n == "k":
            cls, step = "K", 2
        elif c == "q" and n == "u":
            cls, step = "K", 2
        elif c == "c" and n in "eiy" and n:
            cls = "S"
        elif c == "x":
            classes.append("K")
            cls = "S"
        elif c == "h" and i == 0:
            cls = "H"
        else:
            cls = LATIN.get(c)
        if cls:
            classes.append(cls)
        i += step
    return key_of(classes)


def arabic_key(w):
    return key_of([("H" if c == "ه" and i == 0 else ARABIC.get(c)) for i, c in enumerate(w)
                   if (c == "ه" and i == 0) or c in ARABIC])


def arabic_keys(w):
    if not re.fullmatch("[\u0621-\u064a]+", w):
        return []
    for article in ["وال", "بال", "فال", "كال", "ال", "لل"]:
        if w.startswith(article) and len(w) - len(article) >= 4:
            w = w[len(article):]
            break
    if len(w) < 4:
        return []
    keys = []

    def push(k):
        if k and k not in keys:
            keys.append(k)

    push(arabic_key(w))
    for ending in ["ات", "ين", "ون"]:
        if w.endswith(ending) and len(w) - 2 >= 3:
            push(arabic_key(w[:-2]))
    for shun, tion in [("شن", "تن"), ("شنز", "تنز"), ("شنات", "تنات")]:
        if w.endswith(shun):
            push(arabic_key(w[: -len(shun)] + tion))
    return keys


def search_forms(words):
    """The search form of each word under the default rules, by `askzico normalize`."""
    out = []
    for i in range(0, len(words), 4000):
        part = words[i:i + 4000]
        r = subprocess.run([ASKZICO, "normalize", "--config", "/dev/null/none.toml", " ".join(part)],
                           capture_output=True, text=True, check=True)
        forms = r.stdout.split("\n")[0].split(" ")
        if len(forms) != len(part):
            sys.exit("askzico normalize split a word: %d forms for %d words" % (len(forms), len(part)))
        out.extend(forms)
    return out


def main():
    words = [w for w in wordfreq.top_n_list("ar", 1000000)
             if re.fullmatch("[\u0621-\u064a]+", w) and wordfreq.zipf_frequency(w, "ar") >= MIN_ZIPF]
    listed = sorted({form for form in search_forms(words) if arabic_keys(form)})
    sys.stdout.write("\n".join(listed) + "\n")
    sys.stderr.write("%d words listed\n" % len(listed))


main()
