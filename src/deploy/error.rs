//! What can make `askzico deploy` (and `--gc`, `--rollback`, `--check`) fail. Each variant says
//! what failed and carries what its message needs; nothing branches on the kind but the
//! rendering. The CLI turns one into a [`Problem`] (`From`), which adds the file and what to do.

use std::path::PathBuf;

use crate::diag::Problem;
use crate::http::Redacted;

/// A failure of a deploy, a GC, a rollback or a check. `Display` is the message (it names the
/// key, file or request); [`DeployError::help`] the next step.
#[derive(Debug, thiserror::Error)]
pub enum DeployError {
    /// A Cloudflare API request failed; the message names the request and is redacted.
    #[error("{0}")]
    Api(Redacted),
    /// The environment does not make a client (the token's form, the account ID, the API base).
    #[error("{0}")]
    Environment(String),
    /// The action needs `CLOUDFLARE_API_TOKEN` and it is not set.
    #[error("{} needs CLOUDFLARE_API_TOKEN in the environment{}", .action.subject(), .action.without_token())]
    NoToken { action: Action },
    /// The target's name cannot name its journal file.
    #[error("deploy target {0}")]
    TargetName(#[from] crate::identity::NameError),
    /// The journal's place under the output directory is refused.
    #[error("{0}")]
    JournalPlace(std::io::Error),
    /// The journal is not JSON of a journal (cut short, or edited).
    #[error("{} is not a deploy journal: {detail}", .path.display())]
    CorruptJournal {
        path: PathBuf,
        detail: serde_json::Error,
    },
    /// The journal is not a file askzico wrote (too large, not a regular file, not UTF-8).
    #[error("cannot read the deploy journal {}: {reason}", .path.display())]
    ForeignJournal {
        path: PathBuf,
        reason: crate::fsio::ReadError,
    },
    /// Another deploy or rollback of the target holds its journal's lock.
    #[error("another deploy of target {target} is running ({}); nothing was sent", if .holder.is_empty() { "its lock is held" } else { .holder.as_str() })]
    Busy {
        target: String,
        lock: PathBuf,
        holder: String,
    },
    /// Reading or writing a local file failed.
    #[error("cannot {} {}: {source}", if *.writing { "write" } else { "read" }, .path.display())]
    Io {
        path: PathBuf,
        writing: bool,
        source: std::io::Error,
    },
    /// The build's upload records cannot be read.
    #[error("{0}")]
    Build(Box<Problem>),
    /// The plan breaks Cloudflare limits; nothing was sent.
    #[error("deploy refused: the plan breaks {}; nothing was sent:{}", crate::term::count(.breaks.len(), "Cloudflare limit", "Cloudflare limits"), lines(.breaks))]
    PlanBreaksLimits { breaks: Vec<String> },
    /// The target's `prefix` makes KV keys longer than KV takes.
    #[error(
        "deploy refused: with the {prefix_bytes}-byte prefix of target {target}, KV keys such as {example:?} are {key_bytes} bytes, over KV's {max}-byte key limit; nothing was sent"
    )]
    PrefixTooLong {
        target: String,
        prefix_bytes: usize,
        key_bytes: usize,
        max: usize,
        example: String,
    },
    /// The plan makes more KV writes than the target allows without `--confirm-writes`.
    #[error(
        "deploy refused: the plan makes {writes} KV writes, over max_kv_writes = {max} of target {target}; nothing was sent"
    )]
    OverMaxWrites {
        writes: usize,
        max: usize,
        target: String,
    },
    /// A KV value is not what askzico writes under its key.
    #[error("{key} is not {what}: {detail}")]
    Malformed {
        key: String,
        what: Stored,
        detail: String,
    },
    /// A KV value the deploy's own records name is absent.
    #[error("{} {key} is missing", .what.noun())]
    Missing { key: String, what: Stored },
    /// No pointer: nothing is deployed to the target.
    #[error("target {target} has no pointer {key}: nothing is deployed")]
    NothingDeployed { target: String, key: String },
    /// The pointer names an index the target's config does not list.
    #[error(
        "the pointer names index {index}, which is not one of this target's indexes {indexes:?}"
    )]
    ForeignIndex { index: String, indexes: [String; 2] },
    /// A content-addressed value does not hash to the key it is stored under.
    #[error("`{key}` holds a value that does not hash to its key (it was written outside askzico)")]
    ValueHash { key: String },
    /// The live version is of layout 1, which a query of the target does not read.
    #[error(
        "version {version} is deployed in layout 1, which `query --target` does not read (its KV keys hold no record or document tables)"
    )]
    OldLayout { version: String },
    /// The pointer names a layout newer than this askzico's.
    #[error(
        "the pointer names version {version} in layout {layout}; this askzico reads layout {}",
        super::keys::LAYOUT
    )]
    NewerLayout { version: String, layout: u32 },
    /// A stored manifest names another version than its key.
    #[error("{key} names version {named}, not {version}")]
    ManifestMismatch {
        key: String,
        named: String,
        version: String,
    },
    /// Fewer or more key pages (layout 1) were read than the manifest implies.
    #[error("version {version}: {read} key pages read, the manifest implies {implied}")]
    PageCount {
        version: String,
        read: usize,
        implied: usize,
    },
    /// A key page (layout 1) names another number of chunk IDs than the manifest implies.
    #[error("{key} names {named} chunk IDs; the manifest of {version} implies {implied}")]
    PageSize {
        key: String,
        named: usize,
        version: String,
        implied: usize,
    },
    /// `--rollback` finds no version to go back to.
    #[error("{0}")]
    NoRollback(NoRollback),
    /// The check query before the pointer flip found the index not as the deploy left it.
    #[error("check query refused the pointer flip: {fault}; the pointer still names {from}")]
    CheckQuery { fault: CheckFault, from: String },
    /// KV does not read back pairs the deploy wrote, even after writing them again.
    #[error(
        "KV does not hold {wrong} this deploy wrote, even after writing them again; the pointer still names {from}"
    )]
    KvNotStored {
        wrong: String,
        from: String,
        target: String,
    },
    /// Vectorize did not apply the deploy's mutations within the wait.
    #[error(
        "Vectorize index {index} has not applied mutation {mutation} after {secs}s (ASKZICO_DEPLOY_WAIT_SECS sets the wait); the pointer was not written. Run `askzico deploy --target {target}` again: it asks the index once more and, if the mutation is still not applied, sends the vector batches again"
    )]
    NotApplied {
        index: String,
        mutation: String,
        secs: u64,
        target: String,
    },
    /// A GC running at the same time is deleting values the plan took as present.
    #[error("version {version}, whose values this deploy takes as present in KV, is being collected by a concurrent --gc; nothing of the live site changed. {}", resume_hint(.target))]
    ConcurrentGc { version: String, target: String },
    /// GC could not read which values a version it keeps names: it deletes no shared value.
    #[error(
        "cannot tell which values kept version {version} names ({cause}); no shared value is deleted"
    )]
    KeptValuesUnknown {
        version: String,
        cause: Box<DeployError>,
    },
    /// GC cannot tell which keys a version has: it deletes none of them this run.
    #[error("{cause}; GC leaves version {version} alone")]
    LeftAlone {
        version: String,
        cause: Box<DeployError>,
    },
    /// GC failed for some versions (the others were collected and recorded).
    #[error("gc failed for {}; rerun `askzico deploy --gc` to retry:{}", crate::term::count(.errors.len(), "version", "versions"), lines(.errors))]
    GcFailed { errors: Vec<DeployError> },
    /// `--check`: chunks of the live version do not resolve.
    #[error("check of {target}: version {version} (layout {layout}) has {}:{}", crate::term::count(.problems.len(), "problem", "problems"), first_lines(.problems))]
    CheckFailed {
        target: String,
        version: String,
        layout: u32,
        problems: Vec<String>,
    },
}

/// What needs the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Deploy,
    Rollback,
    Check,
}

impl Action {
    fn subject(self) -> &'static str {
        match self {
            Action::Deploy => "a deploy",
            Action::Rollback => "a rollback",
            Action::Check => "a check",
        }
    }

    /// What can be done without it.
    fn without_token(self) -> &'static str {
        match self {
            Action::Deploy => " (use --dry-run to see the plan without it)",
            Action::Rollback | Action::Check => "",
        }
    }
}

/// The kinds of values a deploy stores in KV, as messages name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    Pointer,
    Registry,
    Manifest,
    KeyTable,
    RecordTable,
    KeyPage,
}

impl std::fmt::Display for Stored {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stored::Pointer => "a pointer {\"version\", \"index\"}",
            Stored::Registry => "a deploy registry {\"versions\", \"indexes\"}",
            Stored::Manifest => "an askzico manifest",
            Stored::KeyTable => "a version key table",
            Stored::RecordTable => "a record table",
            Stored::KeyPage => "a JSON array of chunk IDs",
        })
    }
}

impl Stored {
    /// The kind as the subject of "… is missing".
    fn noun(self) -> &'static str {
        match self {
            Stored::Pointer => "pointer",
            Stored::Registry => "registry",
            Stored::Manifest => "manifest",
            Stored::KeyTable => "key table",
            Stored::RecordTable => "record table",
            Stored::KeyPage => "key page",
        }
    }
}

/// Why `--rollback` has no version to go back to.
#[derive(Debug, thiserror::Error)]
pub enum NoRollback {
    #[error(
        "the registry {registry} does not say which version index {index} holds: no version to roll back to"
    )]
    Unknown { registry: String, index: String },
    #[error(
        "index {index} is being written with the live version {version}: no other version to roll back to"
    )]
    SameVersion { index: String, version: String },
    #[error(
        "version {version} in index {index} was never completely deployed (the registry does not list it as complete)"
    )]
    Incomplete { version: String, index: String },
    /// The registry says the index holds the version, so GC kept its keys: they were never
    /// written (its deploy stopped first) or were deleted outside askzico.
    #[error(
        "KV holds no key table or manifest of version {version}, which the registry says index {index} holds: its deploy stopped before writing them, or they were deleted outside askzico"
    )]
    Collected { version: String, index: String },
    #[error(
        "index {index} no longer holds version {version} whole: {}, e.g. {first}; the pointer was not moved",
        crate::term::count(*.problems, "problem", "problems")
    )]
    IndexLacks {
        version: String,
        index: String,
        problems: usize,
        first: String,
    },
}

/// What the check query found wrong in the inactive index.
#[derive(Debug, thiserror::Error)]
pub enum CheckFault {
    #[error("Vectorize index {index} did not answer ({error})")]
    NoAnswer { index: String, error: Redacted },
    #[error("Vectorize index {index} returned vector {id} of version {got}, not {want}")]
    OtherVersion {
        index: String,
        id: String,
        got: String,
        want: String,
    },
    #[error("Vectorize index {index} did not return vector {id}{}", .version.as_ref().map(|v| format!(" of version {v}")).unwrap_or_default())]
    NotReturned {
        index: String,
        id: String,
        version: Option<String>,
    },
    #[error("Vectorize index {index} still returns deleted vector {id}")]
    StillReturned { index: String, id: String },
    #[error(
        "Vectorize index {index} does not hold {wrong} of version {version} as deployed, even after upserting them again"
    )]
    Lacks {
        index: String,
        version: String,
        wrong: String,
    },
}

impl From<Redacted> for DeployError {
    fn from(r: Redacted) -> Self {
        DeployError::Api(r)
    }
}

/// What a deploy that stopped tells the user: rerun it; it resumes.
pub(crate) fn resume_hint(target: &str) -> String {
    format!(
        "The deploy can be resumed: run `askzico deploy --target {target}` again (with the same options); what was confirmed is not sent again"
    )
}

/// Each item on its own indented line.
fn lines<T: std::fmt::Display>(items: &[T]) -> String {
    items.iter().map(|i| format!("\n  {i}")).collect()
}

/// Most problems a failed check lists.
const CHECK_SHOWN: usize = 20;

fn first_lines(items: &[String]) -> String {
    let more = if items.len() > CHECK_SHOWN {
        "\n  …"
    } else {
        ""
    };
    format!("{}{more}", lines(&items[..items.len().min(CHECK_SHOWN)]))
}

/// What to do about a journal askzico cannot use: it only speeds up and resumes deploys.
fn journal_help(path: &std::path::Path) -> String {
    format!(
        "move it away (`mv {p} {p}.bad`) and deploy again: the inactive index is then listed and \
         every vector upserted; an unfinished deploy it recorded starts over",
        p = path.display()
    )
}

impl DeployError {
    /// The problem code: what part of the deploy failed.
    fn code(&self) -> &'static str {
        use DeployError::*;
        match self {
            Api(_) => "deploy-api",
            Environment(_) | NoToken { .. } => "deploy-env",
            TargetName(_) => "deploy-target",
            JournalPlace(_) | CorruptJournal { .. } | ForeignJournal { .. } | Io { .. } => {
                "deploy-journal"
            }
            Busy { .. } => "deploy-busy",
            Build(p) => p.code,
            PlanBreaksLimits { .. } | OverMaxWrites { .. } | PrefixTooLong { .. } => {
                "deploy-refused"
            }
            Malformed { .. }
            | Missing { .. }
            | NothingDeployed { .. }
            | ForeignIndex { .. }
            | ManifestMismatch { .. }
            | PageCount { .. }
            | PageSize { .. }
            | ValueHash { .. }
            | OldLayout { .. }
            | NewerLayout { .. }
            | CheckFailed { .. } => "deployed",
            NoRollback(_) => "rollback",
            CheckQuery { .. } | NotApplied { .. } | KvNotStored { .. } => "deploy-check",
            ConcurrentGc { .. } | KeptValuesUnknown { .. } | LeftAlone { .. } | GcFailed { .. } => {
                "gc"
            }
        }
    }

    /// What to do next, where the message does not say it already.
    pub fn help(&self) -> Option<String> {
        use DeployError::*;
        Some(match self {
            NoToken { .. } => "export CLOUDFLARE_API_TOKEN: a token that may edit the target's \
                               Workers KV namespace and Vectorize indexes"
                .into(),
            TargetName(_) => "rename the [deploy.NAME] table in the config".into(),
            Busy { lock, .. } => format!(
                "wait for it to finish (or stop it), then run this again; the lock {} is released \
                 when that process ends",
                lock.display()
            ),
            JournalPlace(_) => "check --out and the config's out_dir".into(),
            CorruptJournal { path, .. } | ForeignJournal { path, .. } => journal_help(path),
            Io {
                path,
                writing: true,
                ..
            } => format!(
                "check that {} is writable and the disk has room, then deploy again (it resumes)",
                path.parent().unwrap_or(path).display()
            ),
            Io { path, .. } => format!(
                "check the permissions of {}, or {}",
                path.display(),
                journal_help(path)
            ),
            PlanBreaksLimits { .. } => {
                "change the sources or the chunking so every record fits, then build again".into()
            }
            PrefixTooLong {
                target,
                prefix_bytes,
                key_bytes,
                max,
                ..
            } => format!(
                "shorten `prefix` in [deploy.{target}] to at most {} bytes",
                (prefix_bytes + max).saturating_sub(*key_bytes)
            ),
            ForeignIndex { index, indexes } => format!(
                "the live version is served from {index}, which the target's `indexes` no longer \
                 name (were they renamed?). A deploy writes only the index the pointer does not \
                 name, so list the live one for the next deploy, e.g. indexes = [\"{index}\", \
                 \"{}\"]: the next deploy of a new build writes {} and moves the pointer there; after \
                 that the target may name the new pair",
                indexes[1], indexes[1]
            ),
            OverMaxWrites { .. } => {
                "check it with --dry-run, then rerun with --confirm-writes to send it".into()
            }
            Malformed {
                what: Stored::Registry,
                key,
                ..
            } => format!(
                "it was written outside askzico; delete {key} (`wrangler kv key delete`) and \
                 deploy again: the deploy writes a new one (--gc then no longer knows the older versions)"
            ),
            OldLayout { .. } => format!(
                "deploy a build to the target: the deploy upgrades it to layout {} in place",
                super::keys::LAYOUT
            ),
            NewerLayout { .. } => "use the askzico that deployed it, or a newer one".into(),
            Malformed { .. }
            | Missing { .. }
            | ValueHash { .. }
            | ManifestMismatch { .. }
            | PageCount { .. }
            | PageSize { .. } => {
                "the target's KV holds what askzico did not write there: `askzico deploy --target \
                 NAME --check` names what the live version lacks; deploying a build again writes its keys anew"
                    .into()
            }
            NothingDeployed { target, .. } => {
                format!("deploy a build to it first: `askzico deploy --target {target}`")
            }
            NoRollback(
                self::NoRollback::Incomplete { .. }
                | self::NoRollback::Collected { .. }
                | self::NoRollback::IndexLacks { .. },
            ) => "deploy that version's build instead (`askzico deploy --target NAME` from its \
                  build writes it into the inactive index whole)"
                .into(),
            CheckQuery { .. } => {
                "rerun the deploy once the index answers (nothing confirmed is re-sent; what the \
                 index lacks is upserted again)"
                    .into()
            }
            KvNotStored { target, .. } => format!(
                "check that the target's kv_namespace_id is the namespace you mean and that nothing \
                 else deletes from it, then run `askzico deploy --target {target}` again: it writes \
                 what KV lacks once more"
            ),
            CheckFailed { target, .. } => format!(
                "deploy a build again: `askzico deploy --target {target}` writes every missing key"
            ),
            KeptValuesUnknown { .. } | LeftAlone { .. } | GcFailed { .. } => {
                "rerun `askzico deploy --gc` once the network and KV answer".into()
            }
            Api(_)
            | Environment(_)
            | Build(_)
            | NoRollback(_)
            | NotApplied { .. }
            | ConcurrentGc { .. } => return None,
        })
    }
}

impl From<DeployError> for Problem {
    fn from(e: DeployError) -> Problem {
        if let DeployError::Build(p) = e {
            return *p;
        }
        let mut p = Problem::error(e.code(), e.to_string());
        if let Some(h) = e.help() {
            p = p.help(h);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(e: DeployError) -> Problem {
        Problem::from(e)
    }

    /// A plan over the target's `max_kv_writes` says how many writes, the limit and the target,
    /// and how to look at the plan and send it anyway.
    #[test]
    fn a_refused_plan_says_how_to_send_it() {
        let p = problem(DeployError::OverMaxWrites {
            writes: 12,
            max: 10,
            target: "prod".into(),
        });
        assert_eq!(p.code, "deploy-refused");
        assert_eq!(
            p.message,
            "deploy refused: the plan makes 12 KV writes, over max_kv_writes = 10 of target prod; nothing was sent"
        );
        let help = p.help.unwrap();
        assert!(
            help.contains("--dry-run") && help.contains("--confirm-writes"),
            "{help}"
        );
        let p = problem(DeployError::PlanBreaksLimits {
            breaks: vec![
                "duplicate vector ID a".into(),
                "KV key x is written twice".into(),
            ],
        });
        assert_eq!(
            p.message,
            "deploy refused: the plan breaks 2 Cloudflare limits; nothing was sent:\n  duplicate vector ID a\n  KV key x is written twice"
        );
    }

    /// KV values not as askzico writes them name the key and the kind; the registry, which a
    /// deploy cannot write over, says which key to delete.
    #[test]
    fn kv_state_names_the_key_and_the_next_step() {
        let e = DeployError::Missing {
            key: "zico/v1/tables".into(),
            what: Stored::KeyTable,
        };
        assert_eq!(e.to_string(), "key table zico/v1/tables is missing");
        assert!(problem(e).help.unwrap().contains("--check"));
        let e = crate::deploy::keys::Registry::parse("[1]", "zico/versions").unwrap_err();
        assert!(
            e.to_string().starts_with(
                "zico/versions is not a deploy registry {\"versions\", \"indexes\"}: "
            ),
            "{e}"
        );
        assert!(problem(e).help.unwrap().contains("delete zico/versions"));
        let e = DeployError::ValueHash {
            key: "zico/r/00ff".into(),
        };
        assert!(
            e.to_string()
                .starts_with("`zico/r/00ff` holds a value that does not hash")
        );
        let p = problem(DeployError::NothingDeployed {
            target: "prod".into(),
            key: "zico/current".into(),
        });
        assert_eq!(
            p.message,
            "target prod has no pointer zico/current: nothing is deployed"
        );
        assert_eq!(
            p.help.as_deref(),
            Some("deploy a build to it first: `askzico deploy --target prod`")
        );
    }

    /// Failures met while collecting are listed each on its line, after what to rerun.
    #[test]
    fn a_failed_gc_lists_every_version() {
        let e = DeployError::GcFailed {
            errors: vec![
                DeployError::LeftAlone {
                    version: "v1".into(),
                    cause: Box::new(DeployError::ManifestMismatch {
                        key: "zico/v1/manifest".into(),
                        named: "v2".into(),
                        version: "v1".into(),
                    }),
                },
                DeployError::KeptValuesUnknown {
                    version: "v3".into(),
                    cause: Box::new(DeployError::Missing {
                        key: "zico/t/ab".into(),
                        what: Stored::RecordTable,
                    }),
                },
            ],
        };
        assert_eq!(
            e.to_string(),
            "gc failed for 2 versions; rerun `askzico deploy --gc` to retry:\n  \
             zico/v1/manifest names version v2, not v1; GC leaves version v1 alone\n  \
             cannot tell which values kept version v3 names (record table zico/t/ab is missing); \
             no shared value is deleted"
        );
    }

    /// The check query's refusal says what the live site still serves and what to do.
    #[test]
    fn a_refused_flip_says_what_is_still_live() {
        let p = problem(DeployError::CheckQuery {
            fault: CheckFault::NotReturned {
                index: "corpus-blue".into(),
                id: "a:0".into(),
                version: Some("v2".into()),
            },
            from: "v1 on corpus-green".into(),
        });
        assert_eq!(
            p.message,
            "check query refused the pointer flip: Vectorize index corpus-blue did not return \
             vector a:0 of version v2; the pointer still names v1 on corpus-green"
        );
        assert!(p.help.unwrap().starts_with("rerun the deploy"));
        let e = DeployError::NoToken {
            action: Action::Deploy,
        };
        assert_eq!(
            e.to_string(),
            "a deploy needs CLOUDFLARE_API_TOKEN in the environment (use --dry-run to see the plan without it)"
        );
    }
}
