fn main() {
    // Like other Unix filters: a closed pipe (`askzico query … | head`) ends the process quietly
    // instead of panicking on the next write.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::process::exit(askzico::cli::main());
}
