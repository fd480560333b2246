//! Round-trip and hostile-input tests of the trace reader and writer: generated traces (property-style loops over
//! seeds) written in both forms and read back unchanged; every truncation, wrong magic, wrong version, garbled
//! line, invalid UTF-8 and hostile length reported with its line or byte offset, never a panic.

use std::io::Cursor;

use super::*;

/// xorshift64*: a tiny deterministic generator for test traces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// One record of a generated trace: a definition or an event.
#[derive(Debug, Clone, PartialEq)]
enum Rec {
    Def(Table, String),
    Ev(Event),
}

fn gen_trace(seed: u64, n: usize) -> (TraceHeader, Vec<Rec>) {
    let mut r = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let strings = [
        "java/lang/String",
        "",
        "with space",
        "tab\there",
        "new\nline",
        "back\\slash",
        "ünïcödé → 漢字",
        "trailing ",
        "\r",
    ];
    let units = TimeUnit::ALL;
    let header = TraceHeader::new(
        units[r.below(units.len() as u64) as usize],
        HeapInfo {
            base_addr: r.next() >> r.below(64),
            size_bytes: r.next() >> r.below(64),
            bank_bytes: r.below(1 << 20),
        },
        strings[r.below(strings.len() as u64) as usize],
    );
    let mut recs = Vec::new();
    let mut counts = [0u32; 3];
    let mut live: Vec<u64> = Vec::new();
    let mut next_id = r.below(1000);
    let mut t = r.below(1000);
    for _ in 0..n {
        // Small, large and backward deltas all occur.
        t = match r.below(10) {
            0 => r.next(),
            1 => t.wrapping_sub(r.below(100)),
            _ => t.wrapping_add(r.below(50)),
        };
        let big = |r: &mut Rng| {
            if r.below(8) == 0 {
                r.next()
            } else {
                r.below(4096)
            }
        };
        match r.below(12) {
            0..=1 => {
                let table = [Table::Site, Table::Type, Table::GcKind][r.below(3) as usize];
                let s = format!(
                    "{}#{}",
                    strings[r.below(strings.len() as u64) as usize],
                    r.below(5)
                );
                counts[table.index()] += 1;
                recs.push(Rec::Def(table, s));
            }
            2..=5 if counts[0] > 0 && counts[1] > 0 => {
                let id = if r.below(10) == 0 { r.next() } else { next_id };
                next_id = id.wrapping_add(1);
                live.push(id);
                recs.push(Rec::Ev(Event::Alloc {
                    id,
                    site: r.below(u64::from(counts[0])) as u32,
                    type_id: r.below(u64::from(counts[1])) as u32,
                    size_bytes: big(&mut r),
                    addr: big(&mut r),
                    t,
                }));
            }
            6 if !live.is_empty() => {
                let i = r.below(live.len() as u64) as usize;
                recs.push(Rec::Ev(Event::Death {
                    id: live.swap_remove(i),
                    t,
                }));
            }
            7 if !live.is_empty() => {
                let id = live[r.below(live.len() as u64) as usize];
                recs.push(Rec::Ev(Event::Move {
                    id,
                    addr: big(&mut r),
                    t,
                }));
            }
            8 => recs.push(Rec::Ev(Event::Access { id: big(&mut r), t })),
            9 if counts[2] > 0 => recs.push(Rec::Ev(Event::GcStart {
                kind: r.below(u64::from(counts[2])) as u32,
                t,
            })),
            10 => recs.push(Rec::Ev(Event::GcEnd { t })),
            _ => recs.push(Rec::Ev(Event::Death { id: big(&mut r), t })),
        }
    }
    (header, recs)
}

fn write(form: Form, header: &TraceHeader, recs: &[Rec]) -> Vec<u8> {
    let mut w = TraceWriter::new(Vec::new(), form, header).unwrap();
    for rec in recs {
        match rec {
            Rec::Def(t, s) => {
                w.define(*t, s).unwrap();
            }
            Rec::Ev(e) => w.event(e).unwrap(),
        }
    }
    w.finish().unwrap()
}

fn read(bytes: &[u8]) -> Result<(TraceHeader, Tables, Vec<Event>), TraceError> {
    let mut r = TraceReader::from_read("t", Box::new(Cursor::new(bytes.to_vec())))?;
    let mut evs = Vec::new();
    for e in r.by_ref() {
        evs.push(e?);
    }
    Ok((r.header().clone(), r.tables().clone(), evs))
}

fn expected(recs: &[Rec]) -> (Tables, Vec<Event>) {
    let mut tables = Tables::default();
    let mut evs = Vec::new();
    for rec in recs {
        match rec {
            Rec::Def(t, s) => {
                tables.push(*t, s.clone()).unwrap();
            }
            Rec::Ev(e) => evs.push(*e),
        }
    }
    (tables, evs)
}

#[test]
fn both_forms_round_trip_generated_traces() {
    for seed in 0..200 {
        let (header, recs) = gen_trace(seed, (seed as usize * 7) % 400);
        let (tables, evs) = expected(&recs);
        for form in [Form::Text, Form::Binary] {
            let bytes = write(form, &header, &recs);
            let (h, t, e) = read(&bytes).unwrap_or_else(|e| panic!("seed {seed} {form:?}: {e}"));
            assert_eq!(h, header, "header, seed {seed} {form:?}");
            assert_eq!(t, tables, "tables, seed {seed} {form:?}");
            assert_eq!(e, evs, "events, seed {seed} {form:?}");
        }
    }
}

#[test]
fn text_and_binary_convert_into_each_other_losslessly() {
    for seed in 0..50 {
        let (header, recs) = gen_trace(seed, 300);
        let text = write(Form::Text, &header, &recs);
        // Copy text → binary by defining the tables in order, then back to text: bytes identical.
        let (h, tables, evs) = read(&text).unwrap();
        let mut w = TraceWriter::new(Vec::new(), Form::Binary, &h).unwrap();
        for table in [Table::Site, Table::Type, Table::GcKind] {
            for s in tables.get(table) {
                w.define(table, s).unwrap();
            }
        }
        for e in &evs {
            w.event(e).unwrap();
        }
        let bin = w.finish().unwrap();
        let (h2, t2, e2) = read(&bin).unwrap();
        assert_eq!((h2, t2, e2), (h, tables, evs), "seed {seed}");
    }
}

#[test]
fn zstd_compressed_traces_are_not_supported_without_a_frame_but_plain_ones_are() {
    // A truncated zstd magic is just an unknown file.
    let err = read(&[0x28, 0xB5, 0x2F]).unwrap_err();
    assert_eq!(err.at, Location::Line(1), "{err}");
}

#[test]
fn every_truncation_of_a_binary_trace_is_an_error_with_an_offset() {
    let (header, recs) = gen_trace(7, 120);
    let bytes = write(Form::Binary, &header, &recs);
    for cut in 0..bytes.len() {
        let err = read(&bytes[..cut]).expect_err("a cut file must not read");
        assert!(
            matches!(err.at, Location::Byte(b) if b <= cut as u64),
            "cut {cut}: {err}"
        );
    }
}

#[test]
fn every_truncation_of_a_text_trace_is_an_error_with_a_line() {
    let (header, recs) = gen_trace(8, 60);
    let bytes = write(Form::Text, &header, &recs);
    let ends: Vec<usize> = (0..bytes.len()).filter(|i| bytes[*i] == b'\n').collect();
    for end in ends.iter().take(ends.len() - 1) {
        let err = read(&bytes[..=*end]).expect_err("a cut file must not read");
        assert!(matches!(err.at, Location::Line(_)), "{err}");
    }
}

/// The same trace in version 1 of the binary form (the blocks' payloads after the magic and `1`), for the
/// decoder's own checks, which version 2's checksums would otherwise catch first.
fn version_1(v2: &[u8]) -> Vec<u8> {
    use std::io::Read;
    assert_eq!(v2[8], 2, "a version-2 trace");
    let (mut r, _) =
        super::blocks::BlockReader::new(Box::new(std::io::Cursor::new(v2[9..].to_vec())), 9);
    let mut out = v2[..8].to_vec();
    out.push(1);
    r.read_to_end(&mut out).expect("blocks");
    out
}

#[test]
fn every_flipped_bit_of_a_binary_trace_is_an_error() {
    let (header, recs) = gen_trace(9, 200);
    let bytes = write(Form::Binary, &header, &recs);
    assert!(read(&bytes).is_ok(), "the good trace reads");
    for i in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[i / 8] ^= 1 << (i % 8);
        let e = read(&b).expect_err("a flipped bit must not read");
        // A flip in the magic makes another kind of file; from the version on, the error names a byte.
        assert!(i < 64 || matches!(e.at, Location::Byte(_)), "bit {i}: {e}");
    }
}

#[test]
fn corrupted_binary_bytes_never_panic() {
    let (header, recs) = gen_trace(9, 200);
    let v2 = write(Form::Binary, &header, &recs);
    let v1 = version_1(&v2);
    assert_eq!(
        read(&v1).expect("version 1").2,
        read(&v2).expect("version 2").2,
        "same events"
    );
    let mut r = Rng(99);
    for k in 0..4000 {
        let mut b = if k % 2 == 0 { v1.clone() } else { v2.clone() };
        for _ in 0..1 + r.below(4) {
            let i = r.below(b.len() as u64) as usize;
            b[i] = r.next() as u8;
        }
        // Any result is fine as long as it does not panic or allocate without bound.
        let _ = read(&b);
    }
}

#[test]
fn hostile_inputs_name_the_offset_or_line() {
    let h = TraceHeader::new(TimeUnit::Ns, HeapInfo::default(), "");
    let good = version_1(&write(Form::Binary, &h, &[]));
    // Wrong magic.
    let mut b = good.clone();
    b[3] = b'X';
    let e = read(&b).unwrap_err();
    assert_eq!(e.at, Location::Byte(0), "{e}");
    assert!(e.message.contains("magic"), "{e}");
    // Wrong version.
    let mut b = good.clone();
    b[8] = 9;
    let e = read(&b).unwrap_err();
    assert_eq!(e.at, Location::Byte(8), "{e}");
    assert!(e.message.contains("version 9"), "{e}");
    // A string length of 2^40.
    let mut b = good[..good.len() - 2].to_vec();
    b.push(binary::TAG_SITE);
    super::byte_input::put_varint(&mut b, 1 << 40);
    let e = read(&b).unwrap_err();
    assert!(e.message.contains("exceeds the limit"), "{e}");
    // An overlong varint.
    let mut b = good[..good.len() - 2].to_vec();
    b.push(binary::TAG_GC_END);
    b.extend_from_slice(&[0xFF; 11]);
    let e = read(&b).unwrap_err();
    assert!(e.message.contains("longer than 64 bits"), "{e}");
    // An undefined site id.
    let mut w = TraceWriter::new(Vec::new(), Form::Binary, &h).unwrap();
    assert!(
        w.event(&Event::Alloc {
            id: 1,
            site: 0,
            type_id: 0,
            size_bytes: 8,
            addr: 0,
            t: 0
        })
        .is_err(),
        "the writer refuses undefined ids"
    );
    // Text: garbled line, invalid UTF-8, wrong version, huge number, bad count.
    let text = "gclab-trace 1\ntime_unit ns\nsite 0 a\ntype 0 b\nalloc 1 0 0 8 0x0 5\nend 1\n";
    assert!(read(text.as_bytes()).is_ok(), "the good text reads");
    let cases: [(&[u8], u64, &str); 6] = [
        (
            b"gclab-trace 1\ntime_unit ns\nalloc 1 0 0 8 0x0 5\nend 1\n",
            3,
            "defined site",
        ),
        (
            b"gclab-trace 1\ntime_unit ns\nfrobnicate 3\nend 0\n",
            3,
            "unknown record",
        ),
        (
            b"gclab-trace 1\ntime_unit ns\ngc_end \xff\nend 0\n",
            3,
            "UTF-8",
        ),
        (b"gclab-trace 3\ntime_unit ns\nend 0\n", 1, "version"),
        (
            b"gclab-trace 1\ntime_unit ns\ngc_end 99999999999999999999999\nend 1\n",
            3,
            "64-bit",
        ),
        (
            b"gclab-trace 1\ntime_unit ns\ngc_end 5\nend 2\n",
            4,
            "counts 2",
        ),
    ];
    for (bytes, line, what) in cases {
        let e = read(bytes).unwrap_err();
        assert_eq!(e.at, Location::Line(line), "{e}");
        assert!(e.message.contains(what), "{e} should mention {what}");
    }
    // A line without end is capped.
    let mut long = b"gclab-trace 1\ntime_unit ns\nsite 0 ".to_vec();
    long.extend(std::iter::repeat_n(b'a', text::MAX_LINE_BYTES + 10));
    let e = read(&long).unwrap_err();
    assert!(e.message.contains("line longer"), "{e}");
}

#[test]
fn clip_string_cuts_at_a_char_boundary() {
    let s = "é".repeat(MAX_STRING_BYTES);
    let c = clip_string(&s);
    assert!(
        c.len() <= MAX_STRING_BYTES && c.len() >= MAX_STRING_BYTES - 1,
        "clipped"
    );
}

#[test]
fn stats_count_objects_peak_and_lifetimes() {
    let h = TraceHeader::new(TimeUnit::Ns, HeapInfo::default(), "");
    let mut w = TraceWriter::new(Vec::new(), Form::Binary, &h).unwrap();
    let s = w.intern(Table::Site, "s").unwrap();
    let ty = w.intern(Table::Type, "Point").unwrap();
    let k = w.intern(Table::GcKind, "minor").unwrap();
    let a = |id, size, t| Event::Alloc {
        id,
        site: s,
        type_id: ty,
        size_bytes: size,
        addr: 0,
        t,
    };
    for ev in [
        a(1, 100, 0),
        a(2, 50, 1),
        Event::Death { id: 1, t: 2 },
        Event::GcStart { kind: k, t: 3 },
        Event::GcEnd { t: 4 },
        a(3, 10, 5),
        Event::Death { id: 3, t: 6 },
    ] {
        w.event(&ev).unwrap();
    }
    let bytes = w.finish().unwrap();
    let r = TraceReader::from_read("t", Box::new(Cursor::new(bytes))).unwrap();
    let st = stats::compute(
        r,
        &stats::StatsOptions {
            class: Some("Point".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(st.objects, 3, "objects");
    assert_eq!(st.allocated_bytes, 160, "bytes");
    assert_eq!(st.peak_live_bytes, 150, "peak");
    assert_eq!(st.never_freed, 1, "object 2 lives on");
    assert_eq!(st.gc_cycles, 1, "one gc");
    // Object 1 lived 150 bytes (bucket [128, 256)), object 3 lived 10 bytes ([8, 16)).
    let h = &st.lifetime_bytes_histogram;
    assert_eq!(h[8].objects, 1, "{h:?}");
    assert_eq!(h[4].objects, 1, "{h:?}");
    assert_eq!(st.top_classes[0].name, "Point", "class");
    assert_eq!(st.leak_suspects[0].id, 2, "the stale one");
    assert_eq!(
        st.leak_suspects[0].staleness_bytes, 60,
        "bytes allocated since"
    );
    let tl = st.class_timeline.unwrap();
    assert_eq!(tl.objects, 3, "timeline objects");
    assert_eq!(tl.by_gc_epoch, vec![(2, 1), (1, 1)], "per epoch");
}

#[test]
fn gzip_and_bzip2_compressed_traces_read() {
    use std::io::Write;
    let (header, recs) = gen_trace(3, 200);
    let plain = write(Form::Binary, &header, &recs);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&plain).unwrap();
    let gz = gz.finish().unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    bz.write_all(&plain).unwrap();
    let bz = bz.finish().unwrap();
    let want = read(&plain).unwrap();
    assert_eq!(read(&gz).unwrap(), want, "gzip");
    assert_eq!(read(&bz).unwrap(), want, "bzip2");
}
