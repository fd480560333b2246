//! The `gclab` binary: with no arguments (or `open FILE`) it opens the app; otherwise it is the headless CLI of
//! DESIGN §5. Errors are handled once, here: a message on stderr and exit status 2 for bad input.

fn main() {
    gclab::gui::mark_process_start();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = gclab::cli::main(&args);
    std::process::exit(code);
}
