//! `lokizero`: train bots for five board-game variants and measure them.

mod commands;

use clap::Parser;

fn main() {
    let cli = commands::Cli::parse();
    if let Err(e) = commands::dispatch(cli) {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
