//! Every colour the app draws with, named by meaning (STYLE §18): other files never build colours themselves.

use egui::Color32;

/// Live (reachable) heap bytes.
pub const LIVE: Color32 = Color32::from_rgb(0x2e, 0x86, 0xde);
/// Dead bytes not yet collected.
pub const DEAD: Color32 = Color32::from_rgb(0xe6, 0x7e, 0x22);
/// Bank boundaries and other guides.
pub const GUIDE: Color32 = Color32::from_rgb(0x88, 0x88, 0x88);
/// Powered banks over time.
pub const POWERED: Color32 = Color32::from_rgb(0x27, 0xae, 0x60);
