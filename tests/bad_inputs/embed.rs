//! An embedding command that fails: the build reports it with the command's exit status and
//! stderr, whatever happens to the input askzico was still writing to it.

use super::*;

/// `CONFIG` with a command provider that exits at once without reading its input.
fn quitting_embedder(p: &Path) -> Result<(), String> {
    set_config(
        p,
        &format!(
            "{CONFIG}\n[embedding]\nprovider = \"command\"\nmodel = \"quits\"\ndims = 8\ncommand = [\"python3\", \"-c\", \"import sys; sys.stderr.write('no model here'); sys.exit(3)\"]\n"
        ),
    )?;
    // More text than a pipe holds (64 KiB): the write to the exited command fails.
    let para = "هذه فقرة طويلة عن تاريخ المدينة وأسواقها وناسها، تكتب مرات كثيرة. ".repeat(40);
    for i in 0..40 {
        put(
            p,
            &format!("src/long{i}.md"),
            format!("# صفحة {i}\n\n{para}\n"),
        )?;
    }
    Ok(())
}

pub const CASES: &[Case] = &[Case::new(
    "an embedding command that exits without reading its input is reported, not a silent death",
    quitting_embedder,
    1,
    Some(Diag {
        level: "error",
        file: None,
        line: None,
        message: "failed (exit status: 3)",
    }),
)];

pub(crate) fn a_failing_embedding_command() {
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        println!("SKIP a_failing_embedding_command: python3 is not installed");
        return;
    }
    run_table(CASES);
}
