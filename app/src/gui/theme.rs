//! Every colour the app draws with, named by meaning, in a light and a dark variant (STYLE §18): other files
//! never build colours themselves; they ask [`Palette::of`] for the palette of the current theme.

use egui::Color32;
use gclab_core::BankState;
use serde::{Deserialize, Serialize};

/// Light or dark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Theme {
    /// Light background: best on projectors in a lit room.
    #[default]
    Light,
    /// Dark background.
    Dark,
}

/// The named colours of one theme.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    /// Live (reachable) heap bytes.
    pub live: Color32,
    /// The permanent space (kvm-soc: class data written at start-up, never collected) — reachable, a paler live.
    pub permanent: Color32,
    /// Dead bytes not yet collected.
    pub dead: Color32,
    /// Free memory in a powered (active) bank.
    pub free_active: Color32,
    /// Free memory in a supply-gated bank.
    pub free_gated: Color32,
    /// Free memory in a bank that is waking up (resynchronising).
    pub free_waking: Color32,
    /// Bank power state "active" in lanes and legends.
    pub bank_active: Color32,
    /// Bank power state "gated".
    pub bank_gated: Color32,
    /// Bank power state "waking".
    pub bank_waking: Color32,
    /// Bank boundaries and other guides.
    pub guide: Color32,
    /// GC instants.
    pub gc: Color32,
    /// The playhead.
    pub playhead: Color32,
    /// The pinned baseline run's series.
    pub baseline: Color32,
    /// The current run's main series (MMU curve, sweep line).
    pub current: Color32,
    /// Powered-bank capacity line.
    pub powered: Color32,
    /// Warning marks (50 ms perception line, max pause).
    pub warn: Color32,
    /// Energy parts, in the order of [`crate::gui::analysis::EnergyPart::ALL`].
    pub energy: [Color32; 7],
    /// The CMS variants cms, gencms, cmsfly, bg, fg — one colour each in every view (MinMU, sweep), none of
    /// them the current run's, the asymptote's or a warning's.
    pub variants: [Color32; 5],
    /// Text on the heap map's "now" column.
    pub text: Color32,
    /// GC work on a core (the strip under each CPU lane).
    pub gc_work: Color32,
    /// Lowest CPU frequency in the per-core lanes.
    pub freq_low: Color32,
    /// Highest CPU frequency.
    pub freq_high: Color32,
    /// Better than the baseline (a smaller energy, a shorter pause).
    pub better: Color32,
    /// Worse than the baseline.
    pub worse: Color32,
}

const fn rgb(r: u8, g: u8, b: u8) -> Color32 {
    Color32::from_rgb(r, g, b)
}

impl Palette {
    /// The colour of a collector variant's series; a kvm-soc collector (never drawn as a variant) gets the guide
    /// colour.
    pub fn variant(&self, kind: gclab_core::CollectorKind) -> Color32 {
        use gclab_core::CollectorKind as K;
        match kind {
            K::Cms => self.variants[0],
            K::Gencms => self.variants[1],
            K::Cmsfly => self.variants[2],
            K::Bg => self.variants[3],
            K::Fg => self.variants[4],
            K::Base | K::KAllocation | K::Adaptive => self.guide,
        }
    }

    /// The colour of category `i` (pause kinds of a log): the seven energy colours, then hues a golden angle
    /// apart, so no two of the first dozens repeat.
    pub fn category(&self, i: usize) -> Color32 {
        if let Some(c) = self.energy.get(i) {
            return *c;
        }
        let hue = ((i - self.energy.len()) as f32 * 0.381_966 + 0.13).fract();
        let v = if self.text.r() > 128 { 0.95 } else { 0.75 };
        egui::ecolor::Hsva::new(hue, 0.65, v, 1.0).into()
    }

    /// The palette of `theme`.
    pub fn of(theme: Theme) -> Palette {
        match theme {
            Theme::Light => LIGHT,
            Theme::Dark => DARK,
        }
    }

    /// The free-memory colour of a bank in `state`.
    pub fn free(&self, state: Option<BankState>) -> Color32 {
        match state {
            Some(BankState::Active) | None => self.free_active,
            Some(BankState::Gated) => self.free_gated,
            Some(BankState::Waking) => self.free_waking,
        }
    }

    /// The lane colour of a bank in `state`.
    pub fn bank(&self, state: Option<BankState>) -> Color32 {
        match state {
            Some(BankState::Active) | None => self.bank_active,
            Some(BankState::Gated) => self.bank_gated,
            Some(BankState::Waking) => self.bank_waking,
        }
    }

    /// The lane colour of a core at `f` (0 = lowest frequency, 1 = highest).
    pub fn freq(&self, f: f32) -> Color32 {
        let f = f.clamp(0.0, 1.0);
        Palette::blend(&[(self.freq_low, 1.0 - f), (self.freq_high, f)])
    }

    /// A translucent version of `c` (for areas drawn over others).
    pub fn faded(c: Color32, alpha: u8) -> Color32 {
        Color32::from_rgba_unmultiplied(c.r(), c.g(), c.b(), alpha)
    }

    /// The weighted sum of opaque colours (weights summing to 1): the raster's per-pixel mix.
    pub fn blend(parts: &[(Color32, f32)]) -> Color32 {
        let (mut r, mut g, mut b) = (0.0f32, 0.0f32, 0.0f32);
        for (c, w) in parts {
            r += f32::from(c.r()) * w;
            g += f32::from(c.g()) * w;
            b += f32::from(c.b()) * w;
        }
        Color32::from_rgb(
            r.clamp(0.0, 255.0) as u8,
            g.clamp(0.0, 255.0) as u8,
            b.clamp(0.0, 255.0) as u8,
        )
    }
}

const LIGHT: Palette = Palette {
    live: rgb(0x1f, 0x6f, 0xc5),
    permanent: rgb(0x8c, 0xb4, 0xe2),
    dead: rgb(0xe8, 0x7d, 0x1e),
    free_active: rgb(0xf4, 0xf4, 0xee),
    free_gated: rgb(0x9a, 0x9a, 0xa6),
    free_waking: rgb(0xf2, 0xd3, 0x4b),
    bank_active: rgb(0x2e, 0xa0, 0x4f),
    bank_gated: rgb(0x55, 0x55, 0x60),
    bank_waking: rgb(0xe0, 0xb0, 0x10),
    guide: rgb(0x70, 0x70, 0x70),
    gc: rgb(0xc0, 0x20, 0x40),
    playhead: rgb(0xd0, 0x10, 0x90),
    baseline: rgb(0x70, 0x70, 0x70),
    current: rgb(0x1f, 0x6f, 0xc5),
    powered: rgb(0x2e, 0xa0, 0x4f),
    warn: rgb(0xc0, 0x30, 0x20),
    energy: [
        rgb(0x5b, 0x4b, 0xa8),
        rgb(0x2e, 0xa0, 0x4f),
        rgb(0xe0, 0xb0, 0x10),
        rgb(0x9a, 0x9a, 0xa6),
        rgb(0x1f, 0x6f, 0xc5),
        rgb(0xc0, 0x50, 0x50),
        rgb(0x8a, 0x6a, 0x40),
    ],
    variants: [
        rgb(0x5b, 0x4b, 0xa8),
        rgb(0xd0, 0x90, 0x00),
        rgb(0x13, 0x8a, 0x8a),
        rgb(0x8a, 0x8a, 0x96),
        rgb(0x9a, 0x5a, 0x20),
    ],
    text: rgb(0x20, 0x20, 0x20),
    gc_work: rgb(0x10, 0x10, 0x10),
    freq_low: rgb(0xc6, 0xe4, 0x8b),
    freq_high: rgb(0xb0, 0x1a, 0x1a),
    better: rgb(0x1a, 0x80, 0x3a),
    worse: rgb(0xb0, 0x20, 0x20),
};

const DARK: Palette = Palette {
    live: rgb(0x4a, 0x9c, 0xf0),
    permanent: rgb(0x2a, 0x4c, 0x78),
    dead: rgb(0xf0, 0x90, 0x30),
    free_active: rgb(0x55, 0x5a, 0x64),
    free_gated: rgb(0x16, 0x16, 0x1a),
    free_waking: rgb(0x8a, 0x74, 0x10),
    bank_active: rgb(0x40, 0xc0, 0x68),
    bank_gated: rgb(0x50, 0x50, 0x5a),
    bank_waking: rgb(0xf0, 0xc8, 0x30),
    guide: rgb(0xa0, 0xa0, 0xa0),
    gc: rgb(0xff, 0x50, 0x70),
    playhead: rgb(0xff, 0x60, 0xd0),
    baseline: rgb(0xb0, 0xb0, 0xb0),
    current: rgb(0x4a, 0x9c, 0xf0),
    powered: rgb(0x40, 0xc0, 0x68),
    warn: rgb(0xff, 0x60, 0x50),
    energy: [
        rgb(0x8e, 0x7c, 0xe0),
        rgb(0x40, 0xc0, 0x68),
        rgb(0xf0, 0xc8, 0x30),
        rgb(0x70, 0x70, 0x7a),
        rgb(0x4a, 0x9c, 0xf0),
        rgb(0xe0, 0x70, 0x70),
        rgb(0xb0, 0x90, 0x60),
    ],
    variants: [
        rgb(0x9e, 0x8c, 0xf0),
        rgb(0xf0, 0xc0, 0x30),
        rgb(0x40, 0xc8, 0xc8),
        rgb(0xa0, 0xa0, 0xaa),
        rgb(0xd0, 0x8a, 0x50),
    ],
    text: rgb(0xe8, 0xe8, 0xe8),
    gc_work: rgb(0xf4, 0xf4, 0xf4),
    freq_low: rgb(0x3a, 0x6a, 0x3a),
    freq_high: rgb(0xff, 0x50, 0x40),
    better: rgb(0x50, 0xd0, 0x70),
    worse: rgb(0xff, 0x60, 0x60),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pause_kind_colours_do_not_repeat_past_eight_kinds() {
        for theme in [Theme::Light, Theme::Dark] {
            let pal = Palette::of(theme);
            let cs: Vec<Color32> = (0..24).map(|i| pal.category(i)).collect();
            for (i, a) in cs.iter().enumerate() {
                for b in &cs[i + 1..] {
                    assert_ne!(a, b, "{theme:?}: two kinds share a colour");
                }
            }
        }
    }
}
