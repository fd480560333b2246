//! The heap at the playhead, beside the heap map ([`super`]): bank by bank, free memory in its power
//! state's colour with a power-state lane and the bank's name, objects as rows of at most one per pixel, and what
//! the last collection reclaimed fading out ([`crate::gui::views::fade`]). [`describe`] is the hover text of both the map and
//! this column: what is at a time and address — object or free chunk, bank and its power state.

use egui::{Pos2, Rect, Sense, Stroke};
use gclab_core::BankState;
use gclab_core::{Run, SimTime};

use crate::gui::format;
use crate::gui::theme::Palette;

fn state_name(s: Option<BankState>, unused: bool) -> &'static str {
    match s {
        Some(BankState::Active) => "active",
        Some(BankState::Gated) if unused => {
            "gated since the start: no object has landed in it yet (5 % leakage)"
        }
        Some(BankState::Gated) => "gated (5 % leakage, contents lost)",
        Some(BankState::Waking) => "waking (resynchronising)",
        None => "unknown",
    }
}

/// Whether `bank` is at `t` still in the gated state it started the run in: with `heap.initial_bank_state =
/// gated` (the default; JVM'02 §4.3 "a new bank is activated") a bank stays supply-gated until the first object
/// lands in it, so at the start every bank but the permanent space's reads gated — not used yet, not emptied by
/// a collection.
pub fn never_used(run: &Run, bank: u32, t: SimTime) -> bool {
    let from = run.banks.partition_point(|b| b.bank < bank);
    run.banks[from..]
        .iter()
        .take_while(|b| b.bank == bank)
        .find(|b| b.end > b.start || b.end == run.duration)
        .is_some_and(|b| {
            b.state == BankState::Gated
                && b.start == SimTime(0)
                && (t < b.end || b.end == run.duration)
        })
}

/// The permanent space `[start, end)` of a run's heap, when it has one: KVM writes its class data and other
/// permanent objects at the top of the heap at start-up and never collects them (JVM'02 §3.1), so the bank(s)
/// holding them are powered all run long. `[bytes]`
pub fn permanent_space(run: &Run) -> Option<[u64; 2]> {
    let g = run.geometry;
    (g.permanent_start < g.heap_bytes).then_some([g.permanent_start, g.heap_bytes])
}

/// Hover text of the permanent space.
const PERMANENT: &str = "permanent space: class data written at start-up, never collected — \
     its bank stays powered all run";

/// What is at time `t` (s), address `addr` (bytes): object or free chunk, bank and its power state.
pub fn describe(run: &Run, t: f64, addr: f64) -> String {
    let g = run.geometry;
    let time = SimTime((t.max(0.0) * 1e9) as u64);
    if addr >= g.heap_bytes as f64 {
        let i = run.gc_events.partition_point(|e| e.end < time);
        return match run.gc_events.get(i).filter(|e| e.start <= time) {
            Some(e) => format!(
                "collection #{} at {}\ntrigger {:?}\nfreed {}, moved {}\nlive after {}\n{} banks powered after",
                i + 1,
                format::secs(e.start.as_secs_f64()),
                e.trigger,
                format::bytes(e.freed_bytes),
                format::bytes(e.moved_bytes),
                format::bytes(e.live_bytes_after),
                e.powered_banks_after
            ),
            None => format!(
                "GC lane at {} — no collection running\n{} collections in the run",
                format::secs(t),
                run.gc_events.len()
            ),
        };
    }
    if addr < 0.0 || t < 0.0 || t > run.duration.as_secs_f64() {
        return "outside the run".into();
    }
    let a = addr as u64;
    let bank = (a / g.bank_bytes) as u32;
    let state = run.bank_state_at(bank, time);
    let mut s = format!(
        "{} at {}\nbank {} [{}, {}): {}\n",
        format::bytes(a),
        format::secs(t),
        bank,
        format::bytes(u64::from(bank) * g.bank_bytes),
        format::bytes(u64::from(bank + 1) * g.bank_bytes),
        state_name(state, never_used(run, bank, time))
    );
    if let Some([p0, _]) = permanent_space(run)
        && a >= p0
    {
        return s + PERMANENT;
    }
    let objs = run.layout.at(time);
    let i = objs.partition_point(|o| o.addr + o.size <= a);
    match objs.get(i).filter(|o| o.addr <= a) {
        Some(o) => {
            let span = &run.layout.objects[o.id as usize];
            s += &format!(
                "object #{} · {} at {} · site {}\nallocated at {}\n",
                o.id,
                format::bytes(o.size),
                format::bytes(o.addr),
                span.site,
                format::secs(span.alloc.as_secs_f64())
            );
            if o.dead {
                s += &format!(
                    "DEAD since {} — waiting for a collection",
                    format::secs(span.death.as_secs_f64())
                );
            } else {
                s += "LIVE (reachable)";
            }
        }
        None => {
            let lo = if i > 0 {
                objs[i - 1].addr + objs[i - 1].size
            } else {
                0
            };
            let hi = objs.get(i).map_or(g.heap_bytes, |o| o.addr);
            s += &format!("free chunk of {}", format::bytes(hi.saturating_sub(lo)));
        }
    }
    if run.layout.objects.is_empty() {
        s += "\n(no layout recorded: record.layout = false)";
    }
    s
}

/// The heap at `t`, drawn in `frame`'s vertical extent so that addresses line up with the map.
#[allow(clippy::too_many_arguments)] // the column's geometry comes from the map beside it, argument by argument
pub fn now_column(
    ui: &mut egui::Ui,
    w: f32,
    run: &Run,
    t: f64,
    fade_ns: u64,
    pal: &Palette,
    frame: Rect,
    y0_kib: f64,
    y1_kib: f64,
    marked: &[u32],
) {
    let (rect, resp) = ui.allocate_exact_size(egui::vec2(w, frame.height()), Sense::hover());
    let rect = Rect::from_min_max(
        Pos2::new(rect.min.x, frame.min.y),
        Pos2::new(rect.max.x, frame.max.y),
    );
    let painter = ui.painter_at(rect);
    let g = run.geometry;
    // The bar gives way first, so the bank labels keep their room.
    let bar_w = (w - 106.0).clamp(24.0, 44.0);
    let bar = Rect::from_min_max(rect.min, Pos2::new(rect.min.x + bar_w, rect.max.y));
    let y_of = |bytes: f64| {
        let k = bytes / 1024.0;
        rect.max.y - ((k - y0_kib) / (y1_kib - y0_kib)) as f32 * rect.height()
    };
    let time = SimTime((t.max(0.0) * 1e9) as u64);
    #[cfg(test)]
    ui.ctx().data_mut(|d| {
        d.insert_temp(egui::Id::unique("now-bar"), (bar, y0_kib, y1_kib));
    });
    // Free memory by bank state, then objects as rows of at most one per pixel.
    for b in 0..g.banks {
        let st = run.bank_state_at(b, time);
        let (lo, hi) = (
            f64::from(b) * g.bank_bytes as f64,
            f64::from(b + 1) * g.bank_bytes as f64,
        );
        let r = Rect::from_min_max(
            Pos2::new(bar.min.x, y_of(hi)),
            Pos2::new(bar.max.x, y_of(lo)),
        );
        painter.rect_filled(r, 0.0, pal.free(st));
        // The permanent space's part of this bank: data, not free memory.
        if let Some([p0, p1]) =
            permanent_space(run).filter(|p| (p[0] as f64) < hi && (p[1] as f64) > lo)
        {
            let pr = Rect::from_min_max(
                Pos2::new(bar.min.x, y_of((p1 as f64).min(hi))),
                Pos2::new(bar.max.x, y_of((p0 as f64).max(lo))),
            );
            painter.rect_filled(pr, 0.0, pal.permanent);
        }
        let lane = Rect::from_min_max(
            Pos2::new(bar.max.x + 2.0, r.min.y),
            Pos2::new(bar.max.x + 8.0, r.max.y),
        );
        painter.rect_filled(lane.shrink2(egui::vec2(0.0, 1.0)), 0.0, pal.bank(st));
        let perm = permanent_space(run).filter(|p| p[0] < (u64::from(b) + 1) * g.bank_bytes);
        let name = match st {
            Some(BankState::Active) if perm.is_some() => "active, perm.",
            Some(BankState::Active) => "active",
            // Not emptied by a collection: never used yet (the run starts with its banks gated).
            Some(BankState::Gated) if never_used(run, b, time) => "gated, unused",
            Some(BankState::Gated) => "gated",
            Some(BankState::Waking) => "waking",
            None => "—",
        };
        // Labelled where the bank is visible: zoomed into the addresses, a bank's centre may be off the map.
        let shown = r.intersect(rect);
        // The longest label that fits beside the lane, never one cut at the panel's edge (1280×720 at 200 % left
        // "b6 gated, unus"; #19 item 5): two lines, one line, then the state's first word, then the bank alone.
        let room = rect.max.x - lane.max.x - 4.0;
        let short = name.split(',').next().unwrap_or(name);
        let candidates = [
            (format!("bank {b}\n{name}"), 12.0),
            (format!("b{b} {name}"), 10.0),
            (format!("b{b}\n{name}"), 10.0),
            (format!("b{b} {short}"), 10.0),
        ];
        let (text, size) = candidates
            .into_iter()
            .find(|(t, size)| {
                let g = painter.layout_no_wrap(
                    t.clone(),
                    egui::FontId::proportional(*size),
                    egui::Color32::WHITE,
                );
                g.size().x <= room && g.size().y <= shown.height()
            })
            .unwrap_or_else(|| (format!("b{b}"), 10.0));
        // A lesson's bank highlight: the bank's row here outlined as on the map beside it (#19 item 1).
        if marked.contains(&b) {
            let o = Rect::from_min_max(
                Pos2::new(bar.min.x, r.min.y),
                Pos2::new(rect.max.x, r.max.y),
            )
            .intersect(rect)
            .shrink(1.5);
            let c = [
                o.left_top(),
                o.right_top(),
                o.right_bottom(),
                o.left_bottom(),
                o.left_top(),
            ];
            painter.extend(egui::Shape::dashed_line(
                &c,
                egui::Stroke::new(3.0, pal.text),
                6.0,
                4.0,
            ));
            ui.ctx().data_mut(|d| {
                d.insert_temp(egui::Id::unique(("now-bank-outline", b)), o);
            });
        }
        if shown.height() > 11.0 {
            painter.text(
                Pos2::new(lane.max.x + 4.0, shown.center().y),
                egui::Align2::LEFT_CENTER,
                text,
                egui::FontId::proportional(size),
                ui.visuals().text_color(),
            );
        }
    }
    let rows = rect.height().max(1.0) as usize;
    // How much of each pixel row `[addr, addr + size)` covers, added to `acc`.
    let cover = |acc: &mut [f32], addr: u64, size: u64| {
        let (top, bot) = (y_of((addr + size) as f64), y_of(addr as f64));
        let (r0, r1) = (
            (top - rect.min.y).max(0.0),
            (bot - rect.min.y).min(rows as f32),
        );
        let mut r = r0.max(0.0).floor() as usize;
        while (r as f32) < r1 && r < rows {
            acc[r] += (r1.min(r as f32 + 1.0) - r0.max(r as f32)).max(0.0);
            r += 1;
        }
    };
    let mut live = vec![0f32; rows];
    let mut dead = vec![0f32; rows];
    for o in run.layout.at(time) {
        cover(if o.dead { &mut dead } else { &mut live }, o.addr, o.size);
    }
    // A row of the bar: `w` of its width from the left in `c`.
    let row = |r: usize, w: f32, c: egui::Color32| {
        let y = rect.min.y + r as f32 + 0.5;
        painter.line_segment(
            [
                Pos2::new(bar.min.x, y),
                Pos2::new(bar.min.x + w.clamp(0.0, 1.0) * bar.width(), y),
            ],
            Stroke::new(1.0, c),
        );
    };
    // What the last collection reclaimed, fading out where nothing is now (views::fade): drawn row by row as the
    // garbage was the moment before, so the fade starts from the same pixels (small objects drawn as rectangles
    // each thinner than a pixel came out paler than the garbage they replace).
    if let Some((alpha, garbage)) = crate::gui::views::fade::fading_garbage(run, time, fade_ns) {
        let c = Palette::faded(pal.dead, (alpha * 255.0) as u8);
        let mut gone = vec![0f32; rows];
        for (addr, size) in garbage {
            cover(&mut gone, addr, size);
        }
        for (r, g) in gone.iter().enumerate() {
            if *g > 0.01 {
                row(r, *g, c);
            }
        }
    }
    for r in 0..rows {
        let (l, d) = (live[r].min(1.0), dead[r].min(1.0 - live[r].min(1.0)));
        if l + d <= 0.01 {
            continue;
        }
        row(r, l + d, if l >= d { pal.live } else { pal.dead });
    }
    painter.rect_stroke(
        bar,
        0.0,
        Stroke::new(1.0, pal.guide),
        egui::StrokeKind::Outside,
    );
    // Under the column (where the map has its time axis), so it never covers the top bank's label.
    ui.painter()
        .with_clip_rect(rect.expand2(egui::vec2(0.0, 16.0)))
        .text(
            Pos2::new(bar.min.x, rect.max.y + 3.0),
            egui::Align2::LEFT_TOP,
            format!("at {}", format::secs(t)),
            egui::FontId::proportional(11.0),
            ui.visuals().text_color(),
        );
    if let Some(p) = resp.hover_pos() {
        let k = y0_kib + f64::from((rect.max.y - p.y) / rect.height()) * (y1_kib - y0_kib);
        resp.on_hover_text_at_pointer(describe(run, t, k * 1024.0));
    }
}

/// The heap at the playhead's bar as last drawn, with the addresses at its bottom and top (tests). `[KiB]`
#[cfg(test)]
pub fn bar(ctx: &egui::Context) -> Option<(Rect, f64, f64)> {
    ctx.data(|d| d.get_temp(egui::Id::unique("now-bar")))
}

/// Where the heap at the playhead outlined bank `b` last (tests).
#[cfg(test)]
pub fn bank_outline(ctx: &egui::Context, b: u32) -> Option<Rect> {
    ctx.data(|d| d.get_temp(egui::Id::unique(("now-bank-outline", b))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::{Cancel, NoProgress, Scenario, simulate};

    #[test]
    fn hover_names_the_object_bank_and_power_state() {
        let sc = Scenario::default_preset().expect("default preset");
        let run = simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs");
        let o = run.layout.objects[100];
        let t = (o.alloc.0 + 1) as f64 * 1e-9;
        let text = describe(&run, t, (o.addr + o.size / 2) as f64);
        assert!(text.contains("object #100"), "the object: {text}");
        assert!(text.contains("bank 0"), "its bank: {text}");
        assert!(text.contains("active"), "the bank's state: {text}");
        let gated = describe(&run, t, 5.5 * 16384.0);
        assert!(
            gated.contains("gated") && gated.contains("free"),
            "free gated memory: {gated}"
        );
        let lane = describe(&run, t, run.geometry.heap_bytes as f64 * 1.02);
        assert!(
            lane.contains("collection") || lane.contains("GC lane"),
            "the GC lane: {lane}"
        );
    }
}
