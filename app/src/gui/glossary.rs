//! The in-app glossary (issue #19 item 6): GLOSSARY.md embedded in the binary and parsed once into entries — a
//! bold heading naming one or more terms (`MMU / MinMU`, `Live / dead / free`) and its definition. Labels that use
//! a term show its definition on hover ([`with_entry`], used by view headings and legend rows), and *Help ›
//! Glossary* lists every entry with a filter ([`window`]).

use std::sync::OnceLock;

/// GLOSSARY.md as shipped.
const SOURCE: &str = include_str!("../../../GLOSSARY.md");

/// One entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The heading as written, without the markdown (`MMU / MinMU`).
    pub heading: String,
    /// The terms it names, lowercase (`mmu`, `minmu`).
    pub terms: Vec<String>,
    /// The definition, one paragraph, without the markdown.
    pub text: String,
}

/// Removes markdown emphasis and code marks, and the marks egui's default font has no glyph for (✓ ✗).
fn plain(s: &str) -> String {
    s.replace("**", "")
        .replace('`', "")
        .replace('✓', "a tick")
        .replace('✗', "a cross")
}

/// Parses the glossary: every `- **Heading** — definition` item, its continuation lines joined.
pub fn parse(md: &str) -> Vec<Entry> {
    let mut items: Vec<String> = Vec::new();
    for line in md.lines() {
        if let Some(rest) = line.strip_prefix("- ") {
            items.push(rest.trim().to_string());
        } else if line.starts_with("  ")
            && let Some(last) = items.last_mut()
        {
            last.push(' ');
            last.push_str(line.trim());
        }
    }
    items
        .into_iter()
        .filter_map(|item| {
            let rest = item.strip_prefix("**")?;
            let (heading, text) = rest.split_once("**")?;
            let text = text.trim_start_matches([' ', '—', '-', ':']).trim();
            let terms = heading
                .split(['/', ','])
                .map(|t| t.trim().to_lowercase())
                .filter(|t| !t.is_empty())
                .collect();
            Some(Entry {
                heading: plain(heading.trim()),
                terms,
                text: plain(text),
            })
        })
        .collect()
}

/// The embedded glossary, parsed on first use.
pub fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| parse(SOURCE))
}

/// The entry naming `term` (case-insensitive).
pub fn lookup(term: &str) -> Option<&'static Entry> {
    let t = term.trim().to_lowercase();
    entries().iter().find(|e| e.terms.contains(&t))
}

/// The first entry one of whose terms appears in `text` as a whole word (`MinMU at 10 ms` → MMU / MinMU;
/// `dead, not yet collected` → Live / dead / free).
pub fn find_in(text: &str) -> Option<&'static Entry> {
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let joined = format!(" {} ", words.join(" "));
    entries().iter().find(|e| {
        e.terms
            .iter()
            .any(|t| t.len() > 2 && joined.contains(&format!(" {t} ")))
    })
}

/// `tip` followed by the glossary's definition of the first term `label` uses, if any.
pub fn with_entry(label: &str, tip: &str) -> String {
    match find_in(label) {
        Some(e) if !tip.contains(&e.text) => {
            format!("{tip}\n\nGlossary — {}: {}", e.heading, e.text)
        }
        _ => tip.to_string(),
    }
}

/// The *Help › Glossary* window: every entry, filtered by what is typed.
pub fn window(ctx: &egui::Context, open: &mut bool, filter: &mut String) {
    egui::Window::new("Glossary")
        .open(open)
        .default_width(520.0)
        .default_height(480.0)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                let l = ui.label("filter");
                ui.text_edit_singleline(filter).labelled_by(l.id);
            });
            ui.separator();
            let f = filter.trim().to_lowercase();
            egui::ScrollArea::vertical().show(ui, |ui| {
                for e in entries() {
                    if !f.is_empty()
                        && !e.heading.to_lowercase().contains(&f)
                        && !e.text.to_lowercase().contains(&f)
                    {
                        continue;
                    }
                    ui.label(egui::RichText::new(&e.heading).strong());
                    ui.add(egui::Label::new(&e.text).wrap());
                    ui.add_space(6.0);
                }
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glossary_item_is_an_entry() {
        let items = SOURCE.lines().filter(|l| l.starts_with("- **")).count();
        assert_eq!(entries().len(), items, "one entry per item");
        assert!(items >= 15, "the glossary has its terms ({items})");
        let m = lookup("MinMU").expect("MinMU");
        assert_eq!(m.heading, "MMU / MinMU");
        assert!(
            m.text.contains("x-intercept"),
            "continuation lines joined: {}",
            m.text
        );
        assert!(!m.text.contains("**"), "no markdown left");
        assert_eq!(
            lookup("targetUtil").map(|e| e.heading.as_str()),
            Some("targetUtil")
        );
    }

    #[test]
    fn labels_find_the_terms_they_use() {
        assert_eq!(
            find_in("MinMU at 10.00 ms").map(|e| e.heading.as_str()),
            Some("MMU / MinMU")
        );
        assert_eq!(
            find_in("dead, not yet collected").map(|e| e.heading.as_str()),
            Some("Live / dead / free")
        );
        assert!(find_in("time [s]").is_none(), "no term, no entry");
        assert!(with_entry("free, bank gated", "a gated bank").contains("Glossary — "));
    }
}
