//! The trace replay's tests: fixtures against core's replay, the address index against a walk, hover text, the
//! memory budget of 10 M objects.

use std::path::Path;

use super::*;
use crate::gui::Palette;
use gclab_core::Cancel;
use gclab_core::RecordedLayout;
use gclab_core::units::SimTime;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/trace")
        .join(name)
}

fn load(p: &Path) -> TraceReplay {
    TraceReplay::load(p, &mut gclab_core::NoProgress, &Cancel::never()).expect("trace loads")
}

/// The object at `(k, a)` by walking every object and move (what hover did before the index).
fn object_at_by_walking(r: &TraceReplay, k: u32, a: u64) -> Option<u32> {
    (0..r.len() as u32).rev().find(|&i| {
        let u = i as usize;
        if !(r.alloc[u] <= k && k < r.freed[u].min(r.end)) {
            return false;
        }
        let g = r
            .moves
            .iter()
            .rfind(|m| m.obj == i && m.t <= k)
            .map_or(r.addr[u], |m| m.addr);
        let at = u64::from(g) * r.granule;
        at <= a && a < at + u64::from(r.size[u])
    })
}

#[test]
fn allocation_traces_of_other_tools_open_through_an_import() {
    let jq =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data/object-traces/heaptrack/jq");
    let never = Cancel::never();
    for (file, synthetic) in [("trace.raw.zst", false), ("trace.interpreted.zst", true)] {
        let r = load_imported(&jq.join(file), &mut gclab_core::NoProgress, &never)
            .expect("imports")
            .expect("a heaptrack file");
        assert_eq!(r.len(), 68_973, "{file}: every object");
        assert_eq!(r.synthetic_addresses, synthetic, "{file}: addresses");
        assert!(r.name.contains("imported from heaptrack"), "{}", r.name);
    }
    // A gclab trace or a GC log is not imported.
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/logs/jdk17-serial-xmx128m.log");
    assert!(matches!(
        load_imported(&log, &mut gclab_core::NoProgress, &never),
        Ok(None)
    ));
    assert!(matches!(
        load_imported(&fixture("v1.gctrace"), &mut gclab_core::NoProgress, &never),
        Ok(None)
    ));
}

#[test]
fn the_address_index_finds_what_a_walk_over_every_object_finds() {
    let mut traces = vec![load(&fixture("v1.gctrace")), TraceReplay::synthetic(4000)];
    // Moves (compaction-like, some objects twice, one far away) on the synthetic trace.
    let mut moved = TraceReplay::synthetic(4000);
    for i in (0..4000u32).step_by(7) {
        let t = moved.alloc[i as usize] + 500;
        moved.moves.push(TraceMove {
            obj: i,
            t,
            addr: moved.addr[i as usize] / 2,
        });
        if i % 3 == 0 {
            moved.moves.push(TraceMove {
                obj: i,
                t: t + 700,
                addr: 200 << 20,
            });
        }
    }
    moved.moves.sort_by_key(|m| (m.obj, m.t));
    moved.build_index();
    traces.push(moved);
    for r in &traces {
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut hits = 0;
        for probe in 0..3000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Half the probes at an object's own address (so most find one), half anywhere.
            let (k, a) = if probe % 2 == 0 {
                let i = (x % r.len() as u64) as usize;
                let k = r.alloc[i] + ((x >> 32) % 2000) as u32;
                (k, u64::from(r.addr[i]) * r.granule + (x >> 40) % 16)
            } else {
                (
                    (x % u64::from(r.end)) as u32,
                    (x >> 24) % r.heap_bytes.max(1),
                )
            };
            let want = object_at_by_walking(r, k, a);
            hits += usize::from(want.is_some());
            assert_eq!(r.object_at(k, a), want, "{}: tick {k}, byte {a}", r.name);
        }
        assert!(hits > 300, "{}: the probes found objects ({hits})", r.name);
    }
}

#[test]
fn the_fixture_replays_as_core_replays_it() {
    for name in ["v1.gctrace", "v1.gctrace.txt"] {
        let p = fixture(name);
        let r = load(&p);
        let core = RecordedLayout::open(&p).expect("core reads it");
        assert_eq!(r.len(), core.layout.objects.len(), "{name}: objects");
        assert_eq!(
            r.collections.len(),
            core.collections.len(),
            "{name}: collections"
        );
        assert_eq!(r.moves.len(), core.layout.moves.len(), "{name}: moves");
        // Same objects resident at every instant (ticks are ns here: the trace spans < 4 s).
        let t_first = core.layout.objects.first().map_or(0, |o| o.alloc.0);
        for t in (t_first..=core.end.0 + 1).step_by(5) {
            let k = (t - t_first) as u32;
            let ours = (0..r.len())
                .filter(|&i| r.alloc[i] <= k && r.freed[i] > k)
                .count();
            assert_eq!(
                ours,
                core.layout.at(SimTime(t)).len(),
                "{name}: resident at {t}"
            );
        }
    }
}

#[test]
fn hover_names_the_object_under_the_pointer_and_free_memory() {
    let r = load(&fixture("v1.gctrace"));
    let t = r.secs(r.alloc[0]) + 1e-9;
    let a = (u64::from(r.addr[0]) * r.granule) as f64 + 1.0;
    let text = r.describe(t, a);
    assert!(
        text.contains("object of") && text.contains("LIVE"),
        "{text}"
    );
    let free = r.describe(t, r.heap_bytes as f64 * 0.999 + 1e6);
    assert!(free.contains("free"), "{free}");
    let img = r.rasterize(
        (0.0, r.duration_s()),
        (0.0, r.heap_bytes as f64 * 1.05),
        (200, 100),
        &Palette::of(crate::gui::theme::Theme::Light),
    );
    assert_eq!(img.size, [200, 100], "the view's size");
}

#[test]
fn a_malloc_trace_collapses_its_empty_address_space() {
    // jq under heaptrack: addresses from the heap and from mmap regions terabytes apart.
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../assets/traces/jq.gctrace.zst");
    let r = load(&p);
    assert_eq!(r.len(), 68_973, "every object");
    assert!(r.collapsed_pages > 0, "empty pages left out");
    assert!(
        r.heap_bytes < 64 << 20,
        "a span of the used pages: {}",
        r.heap_bytes
    );
    let (live, _) = r.column_at(r.duration_s() * 0.5);
    let filled = live.iter().filter(|&&c| c > 0).count();
    assert!(
        filled > live.len() / 10,
        "objects fill the map: {filled} rows"
    );
}

#[test]
fn ten_million_objects_fit_in_32_bytes_each() {
    // The per-object arrays are fixed-width (the index nearly so); 1 M objects show the ratio a 10 M trace has (the overview grid,
    // fixed at 2 MiB, weighs less per object the more objects there are).
    let r = TraceReplay::synthetic(1_000_000);
    let per_object = (r.resident_bytes() - r.overview.live.capacity() - r.overview.dead.capacity())
        as f64
        / r.len() as f64;
    // Five 4-byte columns, and the hover index's ~1.3 (object, bucket) pairs and a quarter bucket per object.
    assert!(per_object <= 26.0, "arrays: {per_object} bytes per object");
    let at_10m = per_object + (2 * OVERVIEW_COLS * OVERVIEW_ROWS) as f64 / 1e7;
    assert!(
        at_10m <= 32.0,
        "with the overview at 10 M objects: {at_10m}"
    );
    let (live, _) = r.column_at(r.duration_s() / 2.0);
    assert!(
        live.iter().any(|&c| c > 0),
        "the overview shows objects mid-run"
    );
}
