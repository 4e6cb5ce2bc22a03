//! `lokizero`: train bots for six board-game variants and measure them.

mod commands;

use clap::Parser;

fn main() {
    let cli = commands::Cli::parse();
    if let Err(e) = commands::dispatch(cli) {
        eprintln!("error: {}", error_text(&e));
        std::process::exit(1);
    }
}

/// The error and its causes, `outer: cause: ...`, each cause once: many of
/// the project's errors already put their source's text in their own
/// message (`{path}: {source}`), so a cause whose text is already shown is
/// not repeated.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_already_in_the_message_are_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(io).context("reading x.json: no such file");
        assert_eq!(error_text(&e), "reading x.json: no such file");
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = anyhow::Error::new(io).context("reading x.json");
        assert_eq!(error_text(&e), "reading x.json: no such file");
    }
}
