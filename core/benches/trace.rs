//! Benchmark of the binary trace reader: 2 M events (allocs with sequential ids and nearby addresses, deaths of
//! random live objects, occasional collections) written once to memory, then read back in full through
//! [`TraceReader`] (header sniffing, varint/delta decoding, table checks). Run:
//! `cargo bench -p gclab-core --bench trace` (throughput is reported in events per second).

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gclab_core::SimRng;
use gclab_core::trace::{
    Event, Form, HeapInfo, Table, TimeUnit, TraceHeader, TraceReader, TraceWriter,
};

/// Events in the benchmark trace.
const EVENTS: u64 = 2_000_000;

fn trace_bytes() -> Vec<u8> {
    let h = TraceHeader::new(TimeUnit::Ns, HeapInfo::default(), "bench");
    let mut w = TraceWriter::new(Vec::new(), Form::Binary, &h).expect("writer");
    let sites: Vec<u32> = (0..64)
        .map(|i| w.intern(Table::Site, &format!("site {i}")).expect("site"))
        .collect();
    let ty = w.intern(Table::Type, "Object").expect("type");
    let kind = w.intern(Table::GcKind, "minor").expect("kind");
    let mut rng = SimRng::new(1);
    let (mut id, mut addr, mut t) = (0u64, 0u64, 0u64);
    let mut live: Vec<u64> = Vec::new();
    let mut n = 0;
    while n < EVENTS {
        t += rng.range_inclusive(10, 2000);
        let ev = if !live.is_empty() && rng.range_inclusive(0, 2) == 0 {
            let i = rng.range_inclusive(0, live.len() as u64 - 1) as usize;
            Event::Death {
                id: live.swap_remove(i),
                t,
            }
        } else if rng.range_inclusive(0, 9999) == 0 {
            Event::GcStart { kind, t }
        } else {
            id += 1;
            let size = rng.range_inclusive(16, 256);
            addr += size;
            live.push(id);
            Event::Alloc {
                id,
                site: sites[rng.range_inclusive(0, 63) as usize],
                type_id: ty,
                size_bytes: size,
                addr,
                t,
            }
        };
        w.event(&ev).expect("event");
        n += 1;
    }
    w.finish().expect("finish")
}

fn read(c: &mut Criterion) {
    // Leaked once so that each iteration reads it in place (no copy of the input in the timing).
    let bytes: &'static [u8] = Box::leak(trace_bytes().into_boxed_slice());
    let mut g = c.benchmark_group("trace");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(10));
    g.throughput(Throughput::Elements(EVENTS));
    g.bench_function("read_binary_2M_events", |b| {
        b.iter(|| {
            let r = TraceReader::from_read("bench", Box::new(Cursor::new(bytes))).expect("open");
            let mut n = 0u64;
            for ev in r {
                black_box(ev.expect("event"));
                n += 1;
            }
            assert_eq!(n, EVENTS, "every event read");
        });
    });
    g.finish();
}

criterion_group!(benches, read);
criterion_main!(benches);
