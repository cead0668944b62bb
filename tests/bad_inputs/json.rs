//! JSON records: syntax, a file that does not match the record mapping, records with missing or
//! non-string fields, duplicate and path-like record IDs (named by their record position), deep
//! nesting.

use super::*;

const F: &str = "data/bad.json";

pub const CASES: &[Case] = &[
    Case::new("invalid JSON names its line", |p| put(p, F, "{\"1 Tout\": [\n  {\"slug\": \"a\",}\n]}"), 1, err(F, Some(2), "invalid JSON at line 2")).base(RECORDS),
    Case::new("JSON whose shape does not match the selector", |p| put(p, F, r#"{"1 Tout": [{"slug": "a", "name": "n", "text": "نص"}], "2 Tout": "oops"}"#), 1, err(F, None, "`$.2 Tout` is a string")).base(RECORDS),
    Case::new("a top-level scalar where records are selected", |p| put(p, F, "42"), 1, err(F, None, "`$` is a number")).base(RECORDS),
    Case::new("a selector that finds no records", |p| put(p, F, "{}"), 0, warn(F, None, "finds no records")).base(RECORDS),
    Case::new("an empty JSON file", |p| put(p, F, ""), 0, warn(F, None, "nothing to index")).base(RECORDS),
    Case::new("a record without its text field", |p| put(p, F, r#"{"1 Tout": [{"slug": "a", "name": "n"}]}"#), 0, warn(F, None, "record #0 (`1 Tout`[0]) has no text")).base(RECORDS),
    Case::new("a record without its title field is titled by its id", |p| put(p, F, r#"{"1 Tout": [{"slug": "a", "text": "نص"}]}"#), 0, None)
        .base(RECORDS)
        .check(|p, _| if records(p).iter().any(|r| r["doc_id"] == "recs:a" && r["title"] == "a") { Ok(()) } else { Err("no record titled `a`".into()) }),
    Case::new("a record whose title is an object", |p| put(p, F, r#"{"1 Tout": [{"slug": "a", "name": {"x": 1}, "text": "نص"}]}"#), 1, err(F, None, "record #0 (`1 Tout`[0]): field `name` (title) is not text")).base(RECORDS),
    Case::new("a record whose text is an object without text", |p| put(p, F, r#"{"1 Tout": [{"slug": "a", "name": "n", "text": {"ar": "نص"}}]}"#), 1, err(F, None, "field `text` (text) is an object without a `text` string")).base(RECORDS),
    Case::new("a record whose text is a boolean", |p| put(p, F, r#"{"1 Tout": [{"slug": "a", "name": "n", "text": true}]}"#), 1, err(F, None, "field `text` (text) is a boolean")).base(RECORDS),
    Case::new("a record without the id template's field", |p| put(p, F, r#"{"1 Tout": [{"slug": "a", "name": "n", "text": "نص"}, {"name": "m", "text": "نص"}]}"#), 1, err(F, None, "record #1 (`1 Tout`[1]): id template `{slug}` needs `slug`")).base(RECORDS),
    Case::new("duplicate record ids in one file name both records", |p| put(p, F, r#"{"1 Tout": [{"slug": "a", "name": "n", "text": "نص"}], "2 Tout": [{"slug": "x", "name": "m", "text": "نص"}, {"slug": "a", "name": "o", "text": "نص"}]}"#), 1,
        err(F, None, "doc_id `recs:a` is produced twice in this file: by record #0 (`1 Tout`[0]) and by record #2 (`2 Tout`[1])")).base(RECORDS),
    Case::new("duplicate record ids across files name both files", |p| put(p, F, r#"{"3 Tout": [{"slug": "good", "name": "n", "text": "نص"}]}"#), 1, err(F, None, "produced by 2 sources: data/bad.json#good, data/good.json#good")).base(RECORDS),
    Case::new("a record id `..` is escaped", |p| put(p, F, r#"{"1 Tout": [{"slug": "..", "name": "n", "text": "نص"}]}"#), 0, None).base(RECORDS)
        .check(|p, _| if records(p).iter().any(|r| r["doc_id"] == "recs:~2E~2E") { Ok(()) } else { Err("no document `recs:~2E~2E`".into()) }),
    Case::new("a record id `a/../b` is escaped", |p| put(p, F, r#"{"1 Tout": [{"slug": "a/../b", "name": "n", "text": "نص"}]}"#), 0, None).base(RECORDS)
        .check(|p, _| if records(p).iter().any(|r| r["doc_id"] == "recs:a/~2E~2E/b") { Ok(()) } else { Err("no document `recs:a/~2E~2E/b`".into()) }),
    Case::new("an over-long record id is shortened", |p| put(p, F, format!(r#"{{"1 Tout": [{{"slug": "{}", "name": "n", "text": "نص"}}]}}"#, "r".repeat(70))), 0, None).base(RECORDS)
        .check(|p, _| if records(p).iter().any(|r| r["chunk_id"].as_str().is_some_and(|id| id.len() <= 64 && id.starts_with("recs:rrr") && id.contains("~h"))) { Ok(()) } else { Err("no shortened record ID".into()) }),
    Case::new("100,000-deep nested JSON arrays", |p| put(p, F, format!("{}{}", "[".repeat(100_000), "]".repeat(100_000))), 1, err(F, Some(1), "recursion limit exceeded")).base(RECORDS),
    Case::new("100,000-deep nested JSON objects", |p| put(p, F, format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000))), 1, err(F, Some(1), "invalid JSON")).base(RECORDS),
];

pub(crate) fn json_records() {
    run_table(CASES);
}
