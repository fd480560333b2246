//! The collection, animated (issue #19 item 5): just after a collection ends, the garbage it reclaimed fades out
//! on the heap-at-the-playhead column instead of vanishing at once. The fade is a function of the playhead, not
//! of wall time: it spans [`FADE_WALL_S`] of playback at the current speed after the collection's end, so playing
//! through a collection shows it over a few frames, and a screenshot at a given `GCLAB_PLAYHEAD` is always the
//! same picture.

use gclab_core::Run;
use gclab_core::units::SimTime;

/// How long the fade lasts, in wall-clock seconds of playback. `[s]`
pub const FADE_WALL_S: f64 = 0.5;

/// The fade's length in simulated time at playback `speed` (simulated seconds per wall second). `[ns]`
pub fn fade_ns(speed: f64) -> u64 {
    (FADE_WALL_S * speed.max(0.0) * 1e9) as u64
}

/// The garbage fading at `t`: its opacity (1 at the collection's end, 0 after `fade_ns`) and the `(address,
/// size)` of every object that was dead when the collection started — what it reclaimed. `None` outside a fade.
/// A fade ends before the next collection starts.
pub fn fading_garbage(run: &Run, t: SimTime, fade_ns: u64) -> Option<(f32, Vec<(u64, u64)>)> {
    if fade_ns == 0 {
        return None;
    }
    let i = run.gc_events.partition_point(|g| g.end.0 <= t.0);
    let gc = run.gc_events.get(i.checked_sub(1)?)?;
    // Done before the next collection starts, however slow the playback.
    let fade_ns = run.gc_events.get(i).map_or(fade_ns, |next| {
        fade_ns.min(next.start.0.saturating_sub(gc.end.0))
    });
    let since = t.0 - gc.end.0;
    if since >= fade_ns {
        return None;
    }
    let garbage: Vec<(u64, u64)> = run
        .layout
        // Just before it started: a reclaimed object's `freed` time is the collection's start.
        .at(SimTime(gc.start.0.saturating_sub(1)))
        .into_iter()
        .filter(|o| o.dead)
        .map(|o| (o.addr, o.size))
        .collect();
    if garbage.is_empty() {
        return None;
    }
    Some((1.0 - since as f32 / fade_ns as f32, garbage))
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::{Cancel, NoProgress, Scenario, simulate};

    #[test]
    fn garbage_fades_after_a_collection_and_is_gone_after_the_fade() {
        let sc = Scenario::default_preset().expect("preset");
        let run = simulate(&sc, &Cancel::never(), &mut NoProgress).expect("runs");
        let fade = fade_ns(0.001);
        let gc = run
            .gc_events
            .iter()
            .find(|g| {
                run.layout
                    .at(SimTime(g.start.0.saturating_sub(1)))
                    .iter()
                    .any(|o| o.dead)
            })
            .expect("a collection that reclaims something");
        let at = |dt: u64| fading_garbage(&run, SimTime(gc.end.0 + dt), fade);
        let (a0, g0) = at(0).expect("fading at the end of the collection");
        assert!(a0 > 0.99 && !g0.is_empty(), "fully visible at first");
        let (a1, _) = at(fade / 2).expect("still fading half-way");
        assert!((a1 - 0.5).abs() < 0.01, "half-way, half opaque: {a1}");
        assert!(at(fade).is_none(), "gone once the fade is over");
        let next = run
            .gc_events
            .iter()
            .find(|g| g.start > gc.end)
            .expect("a next collection");
        assert!(
            fading_garbage(&run, next.start, fade_ns(1000.0)).is_none(),
            "however slow the playback, it is over when the next collection starts"
        );
        assert_eq!(
            at(fade / 3),
            at(fade / 3),
            "a function of the playhead: deterministic"
        );
    }
}
