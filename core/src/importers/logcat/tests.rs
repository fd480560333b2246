//! The logcat importer's tests: real lines parsed on every core as line by line, the message separators, the
//! Dalvik and ART line shapes and the placement of GCs with and without stamps.

use super::*;

/// The capture read on every core in small segments (many rounds, a GC's lines split across them) gives what
/// the line-by-line reader gives: the same pauses, mutators, phases, span and warnings, on the real lines of
/// `../shared/data` re-stamped over several days, with blank, untimed, Flutter-delta, malformed, non-GC and
/// invalid UTF-8 lines among them.
#[test]
fn the_capture_parsed_on_every_core_is_the_capture_parsed_line_by_line() {
    let tsv = crate::importers::shared_data("android-logs/real-lines.tsv");
    let real: Vec<&str> = tsv
        .lines()
        .skip(1)
        .filter_map(|r| r.splitn(3, '\t').nth(2))
        .collect();
    let mut capture: Vec<u8> = Vec::new();
    for day in 1..=4 {
        for (k, line) in real.iter().enumerate() {
            let line = line.replacen("04-27", &format!("05-{day:02}"), 1);
            capture.extend_from_slice(line.as_bytes());
            capture.push(b'\n');
            match k % 7 {
                0 => capture.extend_from_slice(b"\n   \n"),
                1 => capture.extend_from_slice(b"[+14 ms] D/dalvikvm: GC_CONCURRENT freed 1K, 5% free 10K/20K, paused 1ms+1ms, total 4ms\n"),
                2 => capture.extend_from_slice(b"I/art: Background partial concurrent mark sweep GC freed 7, paused\n"),
                3 => capture.extend_from_slice(b"D/dalvikvm: GC_FOR_ALLOC freed \xff\xfeK, 4% free 9K/9K, paused 3ms, total 3ms\n"),
                4 => capture.extend_from_slice(b"some other program said something\n"),
                5 => capture.extend_from_slice(b"D/dalvikvm: GC_CONCURRENT freed 2K, 5% free 10K/20K, paused 1ms+2ms, total soon\n"),
                _ => {}
            }
        }
    }
    let one = crate::importers::lines::assert_read_on_cores_as_line_by_line::<Parser<Vec<Pause>>>(
        "capture", &capture, "logcat",
    );
    assert!(one.pauses.len() > 100, "{} pauses", one.pauses.len());
}

/// `message_start`'s one backward scan finds what searching for each of logcat's three separators from the
/// back found (the form it replaced, kept here as the reference): on the real lines' heads and on 20,000
/// random strings of separators' pieces.
#[test]
fn the_message_starts_after_the_last_separator() {
    let by_search = |head: &str| {
        [": ", "﹕ ", "): "]
            .iter()
            .filter_map(|sep| head.rfind(sep).map(|i| i + sep.len()))
            .max()
            .unwrap_or(0)
    };
    let tsv = crate::importers::shared_data("android-logs/real-lines.tsv");
    let mut heads = 0;
    for line in tsv.lines().skip(1).filter_map(|r| r.splitn(3, '\t').nth(2)) {
        if let Some(g) = line.find(" GC freed ") {
            let head = &line[..g];
            assert_eq!(message_start(head), by_search(head), "{head:?}");
            heads += 1;
        }
    }
    assert!(heads > 10, "{heads} ART heads");
    let pieces = [
        ":", " ", ")", "(", "﹕", "a", "\u{95}", "\u{fe95}", "\u{ef}", "é",
    ];
    let mut rng = crate::rng::SimRng::new(21);
    for _ in 0..20_000 {
        let n = rng.range_inclusive(0, 11) as usize;
        let head: String = (0..n)
            .map(|_| pieces[rng.range_inclusive(0, pieces.len() as u64 - 1) as usize])
            .collect();
        assert_eq!(message_start(&head), by_search(&head), "{head:?}");
    }
}

fn gc(line: &str) -> GcLine {
    match parse_line(line) {
        LogcatLine::Gc(g) => g,
        other => panic!("not a GC line: {other:?}"),
    }
}

#[test]
fn dalvik_and_art_lines() {
    let g = gc(
        "04-27 10:39:28.982   387   397 D dalvikvm: GC_EXPLICIT freed 89K, 17% free 15805K/19020K, paused 2ms+5ms, total 63ms",
    );
    assert_eq!(g.pauses_ns, vec![2_000_000, 5_000_000], "two pauses");
    assert_eq!(g.total_ns, Some(63_000_000), "total");
    assert_eq!(g.pid.as_deref(), Some("387"), "threadtime pid");
    assert_eq!(g.heap_used_bytes, Some(15805 << 10), "used");
    let g = gc(
        "I/m.android.khus( 6883): Alloc young concurrent copying GC freed 1(48B) AllocSpace objects, 0(0B) LOS objects, 0% free, 255MB/256MB, paused 56us total 9.109ms",
    );
    assert_eq!(
        (g.reason.as_str(), g.collector.as_deref()),
        ("Alloc", Some("young concurrent copying")),
        "ART"
    );
    assert_eq!(g.pid.as_deref(), Some("6883"), "brief pid");
    assert_eq!(g.pauses_ns, vec![56_000], "us");
    let g = gc(
        "I/r.habitv8.debug( 1105): Background young concurrent mark compact GC freed 115MB AllocSpace bytes, 257(93MB) LOS objects, 9% free, 196MB/216MB, paused 93us,5.962ms total 1.008s",
    );
    assert_eq!(g.pauses_ns, vec![93_000, 5_962_000], "ART 14 comma list");
    assert_eq!(g.freed_bytes, Some((115 << 20) + (93 << 20)), "bytes freed");
    assert_eq!(
        parse_line("07-08 16:11:53.206: I/dalvikvm-heap(4852): Grow heap (frag case) to 11.961MB"),
        LogcatLine::Info,
        "info"
    );
    assert_eq!(parse_line("I/chatty: hello"), LogcatLine::Other, "other");
    assert!(
        matches!(
            parse_line("GC_CONCURRENT freed 2K, 38% free 8772K/14087K, paused 8xms"),
            LogcatLine::Malformed(_)
        ),
        "bad pause"
    );
}

#[test]
fn placement_with_and_without_stamps() {
    let text = "01-01 00:00:01.000  10  11 D dalvikvm: GC_CONCURRENT freed 1K, 5% free 1K/2K, paused 2ms+3ms, total 30ms\n\
                01-01 00:00:02.000  10  11 D dalvikvm: GC_FOR_ALLOC freed 1K, 5% free 1K/2K, paused 10ms, total 10ms\n";
    let p = parse("l.txt", text).unwrap();
    let spans: Vec<(u64, u64)> = p.pauses.iter().map(|p| (p.start_ns, p.end_ns)).collect();
    assert_eq!(
        spans,
        vec![
            (0, 2_000_000),
            (27_000_000, 30_000_000),
            (1_020_000_000, 1_030_000_000)
        ],
        "placed"
    );
    assert!(p.warnings.is_empty(), "{:?}", p.warnings.messages());
    let p = parse(
        "l.txt",
        "GC_FOR_ALLOC freed 0K, 38% free 8772K/14087K, external 1K/2K, paused 67ms\nhello\n",
    )
    .unwrap();
    assert_eq!(
        (p.pauses[0].start_ns, p.pauses[0].end_ns),
        (0, 67_000_000),
        "end to end"
    );
    assert_eq!(
        p.warnings.messages().len(),
        2,
        "note and skipped line: {:?}",
        p.warnings.messages()
    );
}
