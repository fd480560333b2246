//! [`rows_on_cores`] against itself read whole: cut into many segments and chunks (every few bytes, so every kind
//! of place is a cut somewhere), a pause CSV's rows, errors and line numbers are the sequential reader's.

use super::*;
use crate::importers::{Pause, PauseSeries, pauses_csv};

/// One segment, one chunk, no cap in reach: the rows are read by one [`CsvRows`] in order, as before the split.
const WHOLE: Sizes = Sizes {
    segment_bytes: 1 << 30,
    chunk_bytes: 1 << 30,
    max_record_bytes: 1 << 30,
};

/// Cuttings to compare with [`WHOLE`]: tiny segments and chunks, and the defaults.
fn cuttings() -> Vec<Sizes> {
    let mut out: Vec<Sizes> = [(1, 1), (7, 3), (40, 9), (256, 64), (4096, 300)]
        .into_iter()
        .map(|(segment_bytes, chunk_bytes)| Sizes {
            segment_bytes,
            chunk_bytes,
            max_record_bytes: 2 * MAX_LINE_BYTES,
        })
        .collect();
    out.push(SIZES);
    out
}

fn parse(text: &[u8], sizes: Sizes) -> Result<Option<PauseSeries<Vec<Pause>>>, String> {
    pauses_csv::parse_split::<Vec<Pause>>("t.csv", text, sizes).map_err(|e| e.to_string())
}

/// A pause CSV with the awkward parts of RFC 4180 and of real files: a byte-order mark, quoted mutators holding
/// commas, doubled quotes and line feeds, CRLF and LF endings, blank and white-space lines, a kind column.
fn awkward(rows: usize, seed: u64) -> Vec<u8> {
    let mut x = seed;
    let mut next = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize
    };
    let mut out = String::from("\u{feff}kind,end_ns,start_ns,mutator\n");
    let names = [
        "main",
        "\"a, b\"",
        "\"say \"\"hi\"\"\"",
        "\"two\nlines\"",
        "\"\r\n\"",
        "w1",
    ];
    for k in 0..rows {
        let start = 1000 * k as u64 + (next() % 500) as u64;
        let end = start + (next() % 400) as u64;
        let name = names[next() % names.len()];
        let kind = ["young", "\"full, explicit\"", " remark "][next() % 3];
        out.push_str(&format!("{kind},{end},{start},{name}"));
        out.push_str(["\n", "\r\n", "\n\n", "\n  \n"][next() % 4]);
    }
    out.into_bytes()
}

#[test]
fn rows_cut_anywhere_read_as_the_whole_file_reads_them() {
    for seed in 1..=4 {
        let text = awkward(120, seed);
        let whole = parse(&text, WHOLE);
        let got = whole.as_ref().expect("parses");
        let p = got.as_ref().expect("rows");
        assert_eq!(p.pauses.len(), 120, "rows");
        assert_eq!(p.mutators.len(), 6, "{:?}", p.mutators);
        assert!(
            p.mutators.iter().any(|m| m == "two\nlines"),
            "{:?}",
            p.mutators
        );
        for sizes in cuttings() {
            assert_eq!(parse(&text, sizes), whole, "seed {seed}, {sizes:?}");
        }
    }
}

#[test]
fn a_quoted_field_after_a_byte_order_mark_is_cut_as_csv_reads_it() {
    let text = "\u{feff}\"odd\nname\",start_ns,end_ns,mutator\nx,1,2,\"a\nb\"\n\"y\n\",3,4,c\n";
    let whole = parse(text.as_bytes(), WHOLE);
    let p = whole.as_ref().expect("parses").as_ref().expect("rows");
    assert_eq!(p.pauses.len(), 2, "{p:?}");
    assert_eq!((p.pauses[1].line, p.pauses[1].start_ns), (5, 3), "{p:?}");
    for sizes in cuttings() {
        assert_eq!(parse(text.as_bytes(), sizes), whole, "{sizes:?}");
    }
}

#[test]
fn the_first_error_and_its_line_are_the_whole_files() {
    let text = awkward(80, 9);
    let lines: Vec<usize> = (memchr::memchr_iter(b'\n', &text)).collect();
    // A bad cell, an end before its start, invalid UTF-8 and a line past the cap, each put at a few places.
    let breaks: [&[u8]; 4] = [
        b"young,12,x3,main\n",
        b"young,5,9,main\n",
        b"young,9,5,m\xff\n",
        &[b'7'; MAX_LINE_BYTES + 10],
    ];
    for bad in breaks {
        for &at in &[lines[0], lines[lines.len() / 3], lines[lines.len() - 2]] {
            let mut broken = text[..=at].to_vec();
            broken.extend_from_slice(bad);
            broken.extend_from_slice(b"\n");
            broken.extend_from_slice(&text[at + 1..]);
            broken.extend_from_slice(b"young,5,9,main\n");
            let whole = parse(&broken, WHOLE);
            let e = whole.as_ref().expect_err("an error");
            let line = lines.iter().filter(|&&l| l <= at).count() + 1;
            assert!(e.starts_with(&format!("t.csv:{line}: ")), "{e}");
            for sizes in cuttings() {
                assert_eq!(parse(&broken, sizes), whole, "{sizes:?}");
            }
        }
    }
}

#[test]
fn a_quote_never_closed_is_an_error_at_its_record_not_a_file_held_whole() {
    let mut text = b"start_ns,end_ns,mutator\n1,2,a\n3,4,\"open\n".to_vec();
    for k in 0..200 {
        text.extend_from_slice(format!("{k},{k},b\n").as_bytes());
    }
    let sizes = Sizes {
        segment_bytes: 64,
        chunk_bytes: 16,
        max_record_bytes: 512,
    };
    let e = parse(&text, sizes).expect_err("an error");
    assert!(e.starts_with("t.csv:3: "), "{e}");
    assert!(e.contains("512-byte record cap"), "{e}");
}

#[test]
fn blank_input_has_no_rows_and_a_header_alone_no_pauses() {
    for sizes in cuttings() {
        assert_eq!(parse(b"", sizes), Ok(None), "empty");
        assert_eq!(parse(b"\n \n\r\n", sizes), Ok(None), "blank");
        let e = parse(b"\n\nstart_ns,end_ns\n\n", sizes).expect_err("no pauses");
        assert!(e.starts_with("t.csv:3: "), "{e}");
    }
}

/// Hands out `text` and then fails.
struct FailsAfter<'a>(&'a [u8]);

impl Read for FailsAfter<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.0.is_empty() {
            return Err(std::io::Error::other("the disk went away"));
        }
        let n = buf.len().min(self.0.len()).min(5);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn a_read_error_is_reported_at_the_record_it_cut() {
    let text = b"start_ns,end_ns\n1,2\n3,4\n5,";
    for sizes in cuttings() {
        let e = pauses_csv::parse_split::<Vec<Pause>>("t.csv", FailsAfter(text), sizes)
            .expect_err("an error");
        let e = e.to_string();
        assert!(
            e.starts_with("t.csv:4: ") && e.contains("the disk went away"),
            "{e}"
        );
    }
}

#[test]
fn mangled_inputs_cut_anywhere_read_as_the_whole_file_reads_them() {
    // Bytes that matter to CSV, to the line count and to the cells, put in, taken out and swapped at random, and
    // byte-order marks put in.
    const ALPHABET: &[u8] = b",\"\n\r 0123456789amx\xff";
    const BOM: &[u8] = "\u{feff}".as_bytes();
    let mut x = 7u64;
    let mut next = move |n: usize| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) as usize % n
    };
    for round in 0..300 {
        let mut text = awkward(12, round);
        for _ in 0..1 + next(6) {
            let at = next(text.len() + 1);
            let b = ALPHABET[next(ALPHABET.len())];
            match next(4) {
                0 => text.insert(at, b),
                3 => {
                    text.splice(at..at, BOM.iter().copied());
                }
                1 if at < text.len() => {
                    text.remove(at);
                }
                _ if at < text.len() => text[at] = b,
                _ => text.push(b),
            }
        }
        let whole = parse(&text, WHOLE);
        for sizes in cuttings() {
            assert_eq!(
                parse(&text, sizes),
                whole,
                "round {round}, {sizes:?}: {:?}",
                String::from_utf8_lossy(&text)
            );
        }
    }
}

#[test]
fn a_byte_order_mark_opening_a_later_line_is_read_as_the_whole_file_reads_it() {
    // A cut can fall just before it: a chunk's own reader must not take it for the file's.
    let text = "start_ns,end_ns,mutator\n1,2,a\n\u{feff}3,4,b\n5,6,\u{feff}c\n";
    let whole = parse(text.as_bytes(), WHOLE);
    for sizes in cuttings() {
        assert_eq!(parse(text.as_bytes(), sizes), whole, "{sizes:?}");
    }
}
