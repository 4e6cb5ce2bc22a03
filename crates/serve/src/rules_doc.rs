//! Each variant's rules for the page's rules panel: its section of
//! `docs/rules.md`, embedded at compile time, so the page and the
//! project's statement of the rules are one text.

use rules::VariantId;

/// `docs/rules.md`, the project's statement of the rules.
const RULES_MD: &str = include_str!("../../../docs/rules.md");

/// The section of `docs/rules.md` on `variant` (Markdown): from its
/// heading (`## N. \`id\` — Name`) up to the next `##` heading or `---`
/// rule; `None` if the page has no such heading.
pub fn section(variant: VariantId) -> Option<&'static str> {
    let tag = format!("`{}`", variant.as_str());
    let mut start = None;
    let mut offset = 0;
    for line in RULES_MD.split_inclusive('\n') {
        let text = line.trim_end();
        match start {
            None if text.starts_with("## ") && text.contains(&tag) => start = Some(offset),
            Some(from) if text.starts_with("## ") || text == "---" => {
                return Some(RULES_MD[from..offset].trim_end());
            }
            _ => {}
        }
        offset += line.len();
    }
    start.map(|from| RULES_MD[from..].trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_its_own_section() {
        for variant in VariantId::ALL {
            let text = section(variant).unwrap_or_else(|| panic!("{variant}: no section"));
            let heading = text.lines().next().unwrap_or("");
            assert!(heading.starts_with("## "), "{variant}: {heading}");
            assert!(
                heading.contains(&format!("`{}`", variant.as_str())),
                "{variant}"
            );
            assert_eq!(text.matches("\n## ").count(), 0, "{variant}: one section");
            assert!(text.len() > 500, "{variant}: {} bytes", text.len());
        }
    }
}
