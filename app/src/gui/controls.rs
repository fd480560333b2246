//! The left panel (scenario knobs) and the top bar (files, baseline, theme, zoom). Every knob change queues
//! [`Command::Rerun`]; the knobs become `--set` overrides in [`super::state::Controls::apply`].

use gclab_core::scenario::presets::PRESETS;
use gclab_core::{CollectorKind, PlatformKind};
use gclab_core::{GovernorKind, HotplugKind};

use super::command::Command;
use super::state::{AppState, heap_range_kib};
use super::sweep::SweepState;
use super::theme::Theme;

/// Bank sizes offered. `[KiB]`
const BANK_KIB: [u64; 15] = [
    1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
];

/// The width of the top bar on one line with its file row (at 1280×720 and 100 % it just fits in 1264). `[points]`
const TOP_BAR_FULL_W: f32 = 1240.0;

fn kib(k: u64) -> String {
    super::format::bytes(k * 1024)
}

/// The top bar: title, file row, baseline, theme and presentation zoom. In presentation mode (`present`) only
/// the title, the Lessons and Help menus, the theme and the zoom: one row, so the figure keeps the height.
pub fn top_bar(ui: &mut egui::Ui, st: &mut AppState, present: bool, cmds: &mut Vec<Command>) {
    // Narrower than the whole bar (1280×720 at 150 % and more), the file row folds into a *File* menu: the bar stays
    // one line and the views keep the height (#19 item 5).
    let fold = ui.available_width() < TOP_BAR_FULL_W;
    ui.horizontal_wrapped(|ui| {
        ui.heading("gclab").on_hover_text(
            "gclab, the GC energy lab. Drag a knob on the left: the scenario re-runs at once and every view \
             follows.",
        );
        ui.separator();
        lessons_menu(ui, &st.recent_lessons, cmds);
        figure_menu(ui, st, cmds);
        ui.menu_button("Help", |ui| {
            if ui
                .button("Glossary")
                .on_hover_text("The terms gclab uses (GLOSSARY.md), with a filter")
                .clicked()
            {
                st.glossary_open = true;
                ui.close();
            }
        });
        if !present {
            if fold {
                ui.menu_button("File", |ui| file_row(ui, st, cmds))
                    .response
                    .on_hover_text("Open, save, export and pin");
            } else {
                file_row(ui, st, cmds);
            }
        }
        ui.separator();
        theme_and_zoom(ui, st);
    });
}

/// The *Figure* menu: the view on screen as a PNG for slides (size, scale, title, caption) and its CSV.
fn figure_menu(ui: &mut egui::Ui, st: &mut AppState, cmds: &mut Vec<Command>) {
    ui.menu_button("Figure", |ui| {
        let f = &mut st.figure;
        egui::Grid::new("figure-form").num_columns(2).show(ui, |ui| {
            let l = ui.label("PNG");
            ui.add(egui::TextEdit::singleline(&mut f.path).desired_width(220.0))
                .labelled_by(l.id)
                .on_hover_text("Where the figure goes; its data goes beside it as .csv");
            ui.end_row();
            ui.label("size");
            ui.horizontal(|ui| {
                for (w, h) in [(1280, 720), (1600, 900), (1920, 1080)] {
                    ui.selectable_value(&mut f.size.size, [w, h], format!("{w}×{h}"));
                }
            });
            ui.end_row();
            ui.label("scale");
            ui.horizontal(|ui| {
                ui.selectable_value(&mut f.size.scale, 1.0, "1×");
                ui.selectable_value(&mut f.size.scale, 2.0, "2× (slides)");
            });
            ui.end_row();
            let l = ui.label("title");
            ui.add(egui::TextEdit::singleline(&mut f.title).desired_width(220.0).hint_text("the step's or the view's"))
                .labelled_by(l.id);
            ui.end_row();
            let l = ui.label("caption");
            ui.add(egui::TextEdit::multiline(&mut f.caption).desired_width(220.0).desired_rows(2).hint_text("the step's text, or none"))
                .labelled_by(l.id);
            ui.end_row();
        });
        let [w, h] = f.size.pixels();
        if ui
            .button(format!("Export the view ({w}×{h} px) and its CSV"))
            .on_hover_text("Draws this view alone under the title and caption, in a window of its own that closes when done")
            .clicked()
        {
            cmds.push(Command::ExportFigure {
                path: f.path.trim().into(),
                size: f.size,
                title: f.title.clone(),
                caption: f.caption.clone(),
            });
            ui.close();
        }
    })
    .response
    .on_hover_text("The view on screen as a PNG for slides, with a title, a caption and its data as CSV");
}

fn lessons_menu(ui: &mut egui::Ui, recent: &[(String, String)], cmds: &mut Vec<Command>) {
    ui.menu_button("Lessons", |ui| {
            for (id, title) in gclab_core::lesson::builtin_titles() {
                if ui.button(title).clicked() {
                    cmds.push(Command::OpenLesson(id.to_string()));
                    ui.close();
                }
            }
            // Lesson files opened this session (Open… takes a teacher's own lesson file).
            if !recent.is_empty() {
                ui.separator();
                for (path, title) in recent {
                    if ui.button(title).on_hover_text(path).clicked() {
                        cmds.push(Command::OpenLesson(path.clone()));
                        ui.close();
                    }
                }
            }
        })
        .response
        .on_hover_text(
            "Built-in lessons, then lesson files opened this session (Open… takes a lesson file): steps with a \
             short text, predict-then-reveal, and claims checked on the model",
        );
}

fn file_row(ui: &mut egui::Ui, st: &mut AppState, cmds: &mut Vec<Command>) {
    if ui
        .button("Open…")
        .on_hover_text(
            "Choose a scenario, a lesson, a GC log or a trace in the system's file dialog",
        )
        .clicked()
    {
        cmds.push(Command::OpenDialog);
    }
    if ui
        .button("Save as…")
        .on_hover_text(
            "Save the current scenario (knobs applied) where the system's file dialog says",
        )
        .clicked()
    {
        cmds.push(Command::SaveDialog);
    }
    let file_label = ui.label("file:");
    ui.add(egui::TextEdit::singleline(&mut st.path_text).desired_width(170.0))
        .labelled_by(file_label.id)
        .on_hover_text("A scenario TOML path (you can also drop a file on the window).");
    let path = std::path::PathBuf::from(st.path_text.trim());
    if ui
        .button("Open")
        .on_hover_text("Load the scenario file named on the left")
        .clicked()
    {
        cmds.push(Command::LoadFile(path.clone()));
    }
    if ui
        .button("Save")
        .on_hover_text("Write the current scenario (with the knobs applied) as TOML to that path")
        .clicked()
    {
        cmds.push(Command::SaveFile(path.clone()));
    }
    if ui
        .button("Export CSV")
        .on_hover_text("Write the run's timelines as CSV files into a directory next to that path")
        .clicked()
    {
        let dir = path.with_extension("csv.d");
        cmds.push(Command::ExportCsv(dir));
    }
    if ui
        .button("Save PNG")
        .on_hover_text("Save the window as a PNG image next to that path")
        .clicked()
    {
        cmds.push(Command::ExportPng(path.with_extension("png")));
    }
    ui.separator();
    if ui
        .button("Pin as baseline")
        .on_hover_text(
            "Keep what is on screen (the run or the GC log): the views then draw it beside the next runs or \
             logs, with deltas",
        )
        .clicked()
    {
        cmds.push(Command::PinBaseline);
    }
    if st.baseline.is_some() && ui.button("Clear baseline").clicked() {
        cmds.push(Command::ClearBaseline);
    }
}

fn theme_and_zoom(ui: &mut egui::Ui, st: &mut AppState) {
    let s = &mut st.settings;
    let dark = s.theme == Theme::Dark;
    if ui
        .button(if dark { "Light theme" } else { "Dark theme" })
        .on_hover_text("Switch between the light and the dark theme")
        .clicked()
    {
        s.theme = if dark { Theme::Light } else { Theme::Dark };
    }
    let zoom_label = ui.label("zoom");
    egui::ComboBox::from_id_salt("zoom")
        .selected_text(format!("{:.0} %", s.zoom * 100.0))
        .show_ui(ui, |ui| {
            for (z, name) in [
                (1.0, "100 %"),
                (1.25, "125 %"),
                (1.5, "150 % (projector)"),
                (1.75, "175 %"),
                (2.0, "200 % (large hall)"),
            ] {
                ui.selectable_value(&mut s.zoom, z, name);
            }
        })
        .response
        .labelled_by(zoom_label.id)
        .on_hover_text("Presentation zoom: make everything readable from the back of a room");
}

/// The left panel.
pub fn ui(ui: &mut egui::Ui, st: &mut AppState, sweep: &SweepState, cmds: &mut Vec<Command>) {
    let platform = st.base.platform();
    ui.heading("Scenario");
    let opened = st
        .log()
        .map(|l| format!("the GC log {}", l.name))
        .or_else(|| st.trace().map(|t| format!("the trace {}", t.name)));
    if let Some(name) = opened {
        ui.colored_label(
            ui.visuals().warn_fg_color,
            format!("Showing {name}. These knobs simulate: changing one closes the file."),
        );
    }
    let c = &mut st.controls;
    let mut changed = false;
    egui::Grid::new("controls")
        .num_columns(2)
        .spacing([8.0, 8.0])
        .show(ui, |ui| {
            let l = ui.label("preset").on_hover_text("An embedded scenario: workload, heap and platform");
            let shown = if c.preset.is_empty() {
                "(file)".to_string()
            } else {
                c.preset.clone()
            };
            egui::ComboBox::from_id_salt("preset")
                .selected_text(shown)
                .width(170.0)
                .show_ui(ui, |ui| {
                    for (name, _) in PRESETS {
                        if ui.selectable_label(c.preset == *name, *name).clicked() {
                            cmds.push(Command::LoadPreset((*name).to_string()));
                        }
                    }
                })
                .response
                .labelled_by(l.id);
            ui.end_row();

            ui.label("platform");
            ui.label(match platform {
                PlatformKind::KvmSoc => "kvm-soc (1 core, banked SRAM)",
                PlatformKind::AndroidKrait => "android-krait (4 cores)",
            });
            ui.end_row();

            let l = ui.label("collector").on_hover_text(super::glossary::with_entry("k-allocation", "base: collect only when an allocation fails · k-allocation: also every k allocations · \
                 adaptive: collect when it lets banks be gated (JVM'02) · CMS variants: Android (SYSTOR'15)"));
            egui::ComboBox::from_id_salt("collector")
                .selected_text(c.collector.name())
                .width(170.0)
                .show_ui(ui, |ui| {
                    for k in CollectorKind::ALL {
                        let ok = k.is_kvm() == (platform == PlatformKind::KvmSoc);
                        let r = ui.add_enabled(ok, egui::Button::selectable(c.collector == k, k.name()));
                        if r.clicked() {
                            c.collector = k;
                            changed = true;
                        }
                    }
                })
                .response
                .labelled_by(l.id);
            ui.end_row();

            let l = ui.label("k").on_hover_text("k-allocation: a collection after every k allocations");
            let r = ui.add_enabled(
                c.collector == CollectorKind::KAllocation,
                egui::Slider::new(&mut c.k, 1..=20_000)
                    .logarithmic(true)
                    .suffix(" allocs"),
            )
            .labelled_by(l.id);
            changed |= r.changed();
            ui.end_row();

            let l = ui.label("heap size").on_hover_text(
                "The heap's size (heap.size): on kvm-soc the banked SRAM; on android-krait the growth limit. \
                 Rounded to a whole number of banks. Type a size (\"3 MiB\") to set it exactly.",
            );
            let (lo, hi) = heap_range_kib(platform);
            let mut h = c.heap_kib;
            let r = ui
                .add(
                    egui::Slider::new(&mut h, lo..=hi)
                        .logarithmic(true)
                        .custom_formatter(|v, _| kib(v.round() as u64))
                        .custom_parser(|t| {
                            let t = t.trim();
                            // A bare number is KiB, as the knob counts; with a unit, as the scenario file writes it.
                            t.parse::<f64>().ok().or_else(|| {
                                gclab_core::units::parse_bytes(t).ok().map(|b| b as f64 / 1024.0)
                            })
                        }),
                )
                .labelled_by(l.id);
            if r.changed() {
                c.set_heap_kib(h);
                changed = true;
            }
            ui.end_row();

            let l = ui.label("bank size").on_hover_text(super::glossary::with_entry("bank size", "Bank gating: a bank holding no live object can be cut from its supply (5 % leakage) \
                 and costs a wake-up stall when used again"));
            egui::ComboBox::from_id_salt("bank")
                .selected_text(kib(c.bank_kib))
                .show_ui(ui, |ui| {
                    for b in BANK_KIB.into_iter().filter(|b| *b <= c.heap_kib && c.heap_kib.is_multiple_of(*b)) {
                        if ui.selectable_label(c.bank_kib == b, kib(b)).clicked() {
                            c.bank_kib = b;
                            changed = true;
                        }
                    }
                })
                .response
                .labelled_by(l.id);
            ui.end_row();

            let l = ui.label("targetUtil").on_hover_text(super::glossary::with_entry("targetUtil", "Android's heap target utilisation: after a GC the heap is sized so that live data fills \
                 this fraction (android-krait only)"));
            let r = ui.add_enabled(
                platform == PlatformKind::AndroidKrait,
                egui::Slider::new(&mut c.target_util, 0.1..=0.9).fixed_decimals(2),
            )
            .labelled_by(l.id);
            changed |= r.changed();
            ui.end_row();

            let android = platform == PlatformKind::AndroidKrait;
            let l = ui.label("large objects").on_hover_text(
                "Share of the allocated bytes requested as single large objects (bitmaps, buffers; 256 KiB–1 MiB \
                 unless the workload says otherwise). One bigger than the 128 KiB between the concurrent trigger \
                 and the soft limit fails before the GC daemon is signalled, and the mutator collects in the \
                 foreground (GC_FOR_ALLOC) (android-krait only)",
            );
            let r = ui.add_enabled(
                android,
                egui::Slider::new(&mut c.large_share, 0.0..=0.6)
                    .fixed_decimals(2)
                    .custom_formatter(|v, _| format!("{:.0} %", 100.0 * v))
                    .custom_parser(|t| {
                        let t = t.trim().trim_end_matches('%').trim();
                        t.parse::<f64>().ok().map(|v| v / 100.0)
                    }),
            )
            .labelled_by(l.id);
            changed |= r.changed();
            ui.end_row();

            let l = ui.label("governor").on_hover_text(super::glossary::with_entry("governor", "How the CPU frequency follows the load: ondemand (Android's default) raises it when cores are \
                 busy; performance and powersave pin it at the top or bottom (android-krait only)"));
            ui.add_enabled_ui(android, |ui| {
                egui::ComboBox::from_id_salt("governor")
                    .selected_text(c.governor.name())
                    .show_ui(ui, |ui| {
                        for g in [GovernorKind::Ondemand, GovernorKind::Performance, GovernorKind::Powersave] {
                            changed |= ui.selectable_value(&mut c.governor, g, g.name()).changed();
                        }
                    })
                    .response
                    .labelled_by(l.id);
            });
            ui.end_row();

            let l = ui.label("hotplug").on_hover_text(super::glossary::with_entry("hotplug", "mpdecision takes idle cores offline and brings them back under load; none keeps all four \
                 online (android-krait only)"));
            ui.add_enabled_ui(android, |ui| {
                egui::ComboBox::from_id_salt("hotplug")
                    .selected_text(c.hotplug.name())
                    .show_ui(ui, |ui| {
                        for h in [HotplugKind::Mpdecision, HotplugKind::None] {
                            changed |= ui.selectable_value(&mut c.hotplug, h, h.name()).changed();
                        }
                    })
                    .response
                    .labelled_by(l.id);
            });
            ui.end_row();

            let l = ui.label("cores").on_hover_text(
                "Cores the threads are scheduled on, each with its own clock: the Krait has four; fewer make \
                 mutators and the GC daemon queue for a core (android-krait only)",
            );
            let r = ui.add_enabled(
                android,
                egui::Slider::new(&mut c.cores, 1..=4).step_by(1.0),
            )
            .labelled_by(l.id);
            changed |= r.changed();
            ui.end_row();

            let l = ui.label("seed").on_hover_text("Same scenario and seed → bit-identical run");
            changed |= ui
                .add(egui::DragValue::new(&mut c.seed).range(0..=u64::MAX))
                .labelled_by(l.id)
                .changed();
            ui.end_row();
        });
    if changed {
        cmds.push(Command::Rerun);
    }
    ui.add_space(6.0);
    ui.horizontal(|ui| {
        if st.computing {
            ui.spinner();
            ui.label("computing…");
        } else if let Some(ms) = st.last_latency_ms {
            // The status bar shows this same figure; the split is on hover.
            let split = st.current.as_ref().map_or(String::new(), |v| {
                format!(
                    "of which {:.0} ms simulating and {:.0} ms deriving the views; the rest is waiting for \
                     the worker and the frame",
                    v.simulate_s * 1e3,
                    v.derive_s * 1e3
                )
            });
            ui.weak(format!("re-ran in {ms:.0} ms"))
                .on_hover_text(format!("From the knob change to the run on screen, {split}"));
        }
    });
    ui.separator();
    ui.label(egui::RichText::new(&st.base.file().name).strong());
    ui.label(&st.base.file().description);
    ui.weak(format!("from {}", st.base.origin()));
    if let Some(b) = &st.baseline {
        ui.separator();
        ui.label(egui::RichText::new("Baseline (pinned)").strong());
        ui.label(b.shown().name());
    }
    ui.separator();
    ui.label(egui::RichText::new("Sweep").strong())
        .on_hover_text(
            "Heap energy for many values of k (k-allocation), with base and adaptive for reference",
        );
    ui.horizontal(|ui| {
        if sweep.running() {
            if ui.button("Cancel sweep").clicked() {
                cmds.push(Command::CancelSweep);
            }
        } else if ui
            .button(if platform == PlatformKind::AndroidKrait {
                "Run sweep over targetUtil"
            } else {
                "Run sweep over k"
            })
            .clicked()
        {
            cmds.push(Command::StartSweep);
        }
    });
    if sweep.running() {
        ui.add(egui::ProgressBar::new(sweep.progress()).show_percentage());
    }
}
