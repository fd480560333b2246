//! Settings that survive a restart (STYLE §13): theme, zoom, the view in the centre and the last scenario (a preset
//! or a scenario file), kept as a small TOML file in the XDG config directory — `$XDG_CONFIG_HOME/gclab/settings.toml`,
//! or `~/.config/gclab/settings.toml`. Only the real window reads and writes it ([`super::run_app`]); headless
//! tests and screenshot runs (`GCLAB_SCREENSHOT`) never do, so they do not depend on who ran the app before.
//!
//! The file is rewritten whenever one of these settings changes (a few hundred bytes); a missing or unreadable
//! file means defaults, and a file that cannot be written is reported once in the status bar.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::state::{Settings, ViewKind};
use super::theme::Theme;

/// What is kept across sessions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    /// `Light` or `Dark`.
    pub theme: Theme,
    /// UI zoom.
    pub zoom: f32,
    /// `overview`, `layout`, `mmu`, `energy`, `cpu` or `sweep`.
    pub view: String,
    /// `preset:NAME` or a scenario file path.
    pub scenario: String,
}

impl Default for Persisted {
    fn default() -> Self {
        let s = Settings::default();
        Persisted {
            theme: s.theme,
            zoom: s.zoom,
            view: view_name(s.view).into(),
            scenario: "preset:default".into(),
        }
    }
}

/// The name [`ViewKind::parse`] reads back.
pub fn view_name(v: ViewKind) -> &'static str {
    match v {
        ViewKind::Overview => "overview",
        ViewKind::Layout => "layout",
        ViewKind::Mmu => "mmu",
        ViewKind::Energy => "energy",
        ViewKind::Cpu => "cpu",
        ViewKind::Sweep => "sweep",
        ViewKind::Pareto => "pareto",
        ViewKind::TradeOff => "tradeoff",
    }
}

impl Persisted {
    /// The persisted part of `settings` with the scenario's origin.
    pub fn of(settings: &Settings, scenario_origin: &str) -> Persisted {
        Persisted {
            theme: settings.theme,
            zoom: settings.zoom,
            view: view_name(settings.view).into(),
            scenario: scenario_origin.to_string(),
        }
    }

    /// Applies theme, zoom and view to `settings`.
    pub fn apply(&self, settings: &mut Settings) {
        settings.theme = self.theme;
        if self.zoom.is_finite() {
            settings.zoom = self.zoom.clamp(0.5, 3.0);
        }
        if let Some(v) = ViewKind::parse(&self.view) {
            settings.view = v;
        }
    }
}

/// `$XDG_CONFIG_HOME/gclab/settings.toml`, else `$HOME/.config/gclab/settings.toml`.
pub fn default_path() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let dir = env("XDG_CONFIG_HOME").or_else(|| env("HOME").map(|h| h.join(".config")))?;
    Some(dir.join("gclab").join("settings.toml"))
}

/// Reads `path`; `None` when missing or not understood (defaults then).
pub fn load(path: &Path) -> Option<Persisted> {
    let text = std::fs::read_to_string(path).ok()?;
    toml::from_str(&text).ok()
}

/// Writes `p` to `path` (directories created).
pub fn save(path: &Path, p: &Persisted) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let text = toml::to_string(p).map_err(|e| e.to_string())?;
    gclab_core::io::write_file_atomic(path, text.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}
