fn main() {
    std::process::exit(askzico::cli::main());
}
