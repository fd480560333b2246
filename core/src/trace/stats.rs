//! Trace statistics (`gclab trace stats`): object and byte totals, live-byte peak, lifetime histograms in bytes
//! allocated and in GC epochs, top allocation sites and classes with their mean lifetimes (the Address-Chain
//! paper's Tables 3–4), allocation and death of one class over time (its Fig. 8), and leak suspects ranked by
//! staleness × size. One streaming pass; memory grows with the objects live at once, the sites and the types.
//!
//! Clocks: an object's *allocation clock* is the bytes allocated before it; its lifetime in bytes is the
//! allocation clock at its death minus its own. A *GC epoch* is the number of `gc_end` events seen so far.

use std::collections::HashMap;

use serde::Serialize;

use super::{Event, Table, TraceError, TraceReader};

/// What to compute beyond the totals.
#[derive(Debug, Clone)]
pub struct StatsOptions {
    /// Rows in the site and class tables.
    pub top: usize,
    /// Leak suspects listed.
    pub suspects: usize,
    /// A type name whose allocation and death over time is wanted.
    pub class: Option<String>,
}

impl Default for StatsOptions {
    fn default() -> Self {
        StatsOptions {
            top: 10,
            suspects: 10,
            class: None,
        }
    }
}

/// One bucket of a lifetime histogram: lifetimes in `[min, max)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HistBucket {
    /// Lower bound (inclusive).
    pub min: u64,
    /// Upper bound (exclusive).
    pub max: u64,
    /// Objects that died with such a lifetime.
    pub objects: u64,
    /// Their bytes. `[bytes]`
    pub bytes: u64,
}

/// One row of the site or class table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GroupRow {
    /// Site or type name.
    pub name: String,
    /// Objects allocated.
    pub objects: u64,
    /// Share of all objects. `[0, 1]`
    pub object_share: f64,
    /// Bytes allocated. `[bytes]`
    pub bytes: u64,
    /// Objects of it that died.
    pub dead_objects: u64,
    /// Mean lifetime of those that died. `[bytes allocated]`
    pub mean_lifetime_bytes: f64,
    /// Mean lifetime of those that died, when the trace has GC events. `[GC epochs]`
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mean_lifetime_gc_epochs: Option<f64>,
    /// Objects of it never freed.
    pub never_freed: u64,
}

/// A live-at-end object suspected of leaking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeakSuspect {
    /// Object id.
    pub id: u64,
    /// Allocation site.
    pub site: String,
    /// Type.
    pub type_name: String,
    /// Size. `[bytes]`
    pub size_bytes: u64,
    /// Bytes allocated since its last use (allocation, access or move). `[bytes]`
    pub staleness_bytes: u64,
    /// `staleness_bytes × size_bytes`.
    pub score: f64,
}

/// One time bucket of a class's timeline.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClassBucket {
    /// Start (inclusive), in the trace's time unit.
    pub t_start: u64,
    /// End (exclusive).
    pub t_end: u64,
    /// Objects of the class allocated in it.
    pub allocated_objects: u64,
    /// Their bytes. `[bytes]`
    pub allocated_bytes: u64,
    /// Objects of the class that died in it.
    pub died_objects: u64,
    /// Their bytes. `[bytes]`
    pub died_bytes: u64,
    /// Live bytes of the class at its end. `[bytes]`
    pub live_bytes: u64,
}

/// Allocation and death of one class over time (Fig. 8), and per GC epoch when there are collections.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ClassTimeline {
    /// The class.
    pub class: String,
    /// Objects of it allocated.
    pub objects: u64,
    /// Time buckets (at most 256, of equal width).
    pub buckets: Vec<ClassBucket>,
    /// Per GC epoch (index = epoch): objects allocated, and objects that died, in it.
    pub by_gc_epoch: Vec<(u64, u64)>,
}

/// Everything `gclab trace stats` reports.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TraceStats {
    /// Time unit of the trace.
    pub time_unit: String,
    /// Where the trace came from.
    pub source: String,
    /// Events read.
    pub events: u64,
    /// Objects allocated.
    pub objects: u64,
    /// Bytes allocated. `[bytes]`
    pub allocated_bytes: u64,
    /// Highest live bytes after any event. `[bytes]`
    pub peak_live_bytes: u64,
    /// 1-based index of the event after which the peak was first reached.
    pub peak_at_event: u64,
    /// Time of that event.
    pub peak_at_t: u64,
    /// Live bytes after the last event. `[bytes]`
    pub live_bytes_at_end: u64,
    /// Objects with no death.
    pub never_freed: u64,
    /// Deaths.
    pub deaths: u64,
    /// Moves.
    pub moves: u64,
    /// Accesses.
    pub accesses: u64,
    /// Collections (`gc_start` events).
    pub gc_cycles: u64,
    /// First and last event time.
    pub t_first: u64,
    /// Last event time.
    pub t_last: u64,
    /// Distinct allocation sites used.
    pub sites: u64,
    /// Distinct types used.
    pub classes: u64,
    /// Lifetimes of dead objects in bytes allocated, log2 buckets.
    pub lifetime_bytes_histogram: Vec<HistBucket>,
    /// Lifetimes of dead objects in GC epochs, log2 buckets (only when the trace has GC events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifetime_gc_epochs_histogram: Option<Vec<HistBucket>>,
    /// Top allocation sites by objects (Table 3).
    pub top_sites: Vec<GroupRow>,
    /// Top classes by objects (Table 4).
    pub top_classes: Vec<GroupRow>,
    /// Live-at-end objects ranked by staleness × size.
    pub leak_suspects: Vec<LeakSuspect>,
    /// The chosen class over time (Fig. 8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class_timeline: Option<ClassTimeline>,
    /// Events that do not fit the object model: an alloc of a live id, a death/move/access of an unknown id.
    pub inconsistent_events: u64,
}

#[derive(Debug, Clone, Copy)]
struct Live {
    size: u64,
    site: u32,
    type_id: u32,
    alloc_clock: u64,
    alloc_epoch: u64,
    last_use_clock: u64,
}

#[derive(Debug, Clone, Default)]
struct Group {
    objects: u64,
    bytes: u64,
    dead: u64,
    life_bytes_sum: f64,
    life_epochs_sum: f64,
    never_freed: u64,
}

fn bucket_of(v: u64) -> usize {
    (64 - v.leading_zeros()) as usize
}

fn add_hist(h: &mut Vec<HistBucket>, v: u64, bytes: u64) {
    let b = bucket_of(v);
    while h.len() <= b {
        let k = h.len();
        let (min, max) = if k == 0 {
            (0, 1)
        } else {
            (1u64 << (k - 1), (1u64 << (k - 1)).saturating_mul(2))
        };
        h.push(HistBucket {
            min,
            max,
            objects: 0,
            bytes: 0,
        });
    }
    h[b].objects += 1;
    h[b].bytes += bytes;
}

fn group(v: &mut Vec<Group>, id: u32) -> &mut Group {
    let i = id as usize;
    if v.len() <= i {
        v.resize(i + 1, Group::default());
    }
    &mut v[i]
}

/// Adaptive time buckets: at most `MAX_BUCKETS`, widths doubling as the span grows.
const MAX_BUCKETS: usize = 256;

#[derive(Debug, Default)]
struct Timeline {
    t0: Option<u64>,
    width: u64,
    buckets: Vec<ClassBucket>,
    by_epoch: Vec<(u64, u64)>,
    objects: u64,
}

impl Timeline {
    fn bucket(&mut self, t: u64) -> &mut ClassBucket {
        let t0 = *self.t0.get_or_insert(t);
        if self.width == 0 {
            self.width = 1;
        }
        let mut i = (t.saturating_sub(t0) / self.width) as usize;
        while i >= MAX_BUCKETS {
            let merged: Vec<ClassBucket> = self
                .buckets
                .chunks(2)
                .map(|c| {
                    let mut m = c[0].clone();
                    for b in &c[1..] {
                        m.allocated_objects += b.allocated_objects;
                        m.allocated_bytes += b.allocated_bytes;
                        m.died_objects += b.died_objects;
                        m.died_bytes += b.died_bytes;
                    }
                    m
                })
                .collect();
            self.buckets = merged;
            self.width = self.width.saturating_mul(2);
            i = (t.saturating_sub(t0) / self.width) as usize;
        }
        while self.buckets.len() <= i {
            self.buckets.push(ClassBucket::default());
        }
        &mut self.buckets[i]
    }

    fn epoch(&mut self, e: u64) -> Option<&mut (u64, u64)> {
        let e = usize::try_from(e).ok().filter(|e| *e < 1 << 20)?;
        if self.by_epoch.len() <= e {
            self.by_epoch.resize(e + 1, (0, 0));
        }
        self.by_epoch.get_mut(e)
    }

    fn finish(mut self, class: String) -> ClassTimeline {
        let t0 = self.t0.unwrap_or(0);
        let mut live = 0u64;
        for (i, b) in self.buckets.iter_mut().enumerate() {
            b.t_start = t0.saturating_add(self.width.saturating_mul(i as u64));
            b.t_end = b.t_start.saturating_add(self.width);
            live = (live + b.allocated_bytes).saturating_sub(b.died_bytes);
            b.live_bytes = live;
        }
        ClassTimeline {
            class,
            objects: self.objects,
            buckets: self.buckets,
            by_gc_epoch: self.by_epoch,
        }
    }
}

/// Reads all of `reader` and computes its statistics.
pub fn compute(mut reader: TraceReader, opts: &StatsOptions) -> Result<TraceStats, TraceError> {
    let mut s = TraceStats {
        time_unit: reader.header().time_unit.name().to_string(),
        source: reader.header().source.clone(),
        ..TraceStats::default()
    };
    let mut live: HashMap<u64, Live> = HashMap::new();
    let mut live_bytes = 0u64;
    let mut clock = 0u64;
    let mut epoch = 0u64;
    let mut sites: Vec<Group> = Vec::new();
    let mut types: Vec<Group> = Vec::new();
    let mut hist_bytes = Vec::new();
    let mut hist_epochs = Vec::new();
    let mut timeline = opts.class.as_ref().map(|_| Timeline::default());
    // Type ids whose name is the chosen class (a table may define one name more than once).
    let mut class_ids: Vec<bool> = Vec::new();
    let mut first = true;
    while let Some(ev) = reader.next() {
        let ev = ev?;
        s.events += 1;
        let t = ev.t();
        if first {
            s.t_first = t;
            first = false;
        }
        s.t_last = t;
        match ev {
            Event::Alloc {
                id,
                site,
                type_id,
                size_bytes,
                ..
            } => {
                s.objects += 1;
                s.allocated_bytes = s.allocated_bytes.saturating_add(size_bytes);
                let l = Live {
                    size: size_bytes,
                    site,
                    type_id,
                    alloc_clock: clock,
                    alloc_epoch: epoch,
                    last_use_clock: clock,
                };
                clock = clock.saturating_add(size_bytes);
                if let Some(old) = live.insert(id, l) {
                    // A second alloc of a live id: the first object is taken as dead now.
                    s.inconsistent_events += 1;
                    live_bytes = live_bytes.saturating_sub(old.size);
                }
                live_bytes = live_bytes.saturating_add(size_bytes);
                for (v, k) in [(&mut sites, site), (&mut types, type_id)] {
                    let g = group(v, k);
                    g.objects += 1;
                    g.bytes = g.bytes.saturating_add(size_bytes);
                }
                if let Some(tl) = timeline.as_mut() {
                    let tables = reader.tables();
                    while class_ids.len() < tables.get(Table::Type).len() {
                        let n = class_ids.len();
                        class_ids.push(Some(&tables.get(Table::Type)[n]) == opts.class.as_ref());
                    }
                    if class_ids.get(type_id as usize).copied().unwrap_or(false) {
                        tl.objects += 1;
                        let b = tl.bucket(t);
                        b.allocated_objects += 1;
                        b.allocated_bytes += size_bytes;
                        if let Some(e) = tl.epoch(epoch) {
                            e.0 += 1;
                        }
                    }
                }
            }
            Event::Death { id, .. } => match live.remove(&id) {
                Some(l) => {
                    s.deaths += 1;
                    live_bytes = live_bytes.saturating_sub(l.size);
                    let life = clock - l.alloc_clock;
                    add_hist(&mut hist_bytes, life, l.size);
                    add_hist(&mut hist_epochs, epoch - l.alloc_epoch, l.size);
                    for (v, k) in [(&mut sites, l.site), (&mut types, l.type_id)] {
                        let g = group(v, k);
                        g.dead += 1;
                        g.life_bytes_sum += life as f64;
                        g.life_epochs_sum += (epoch - l.alloc_epoch) as f64;
                    }
                    if let Some(tl) = timeline.as_mut()
                        && class_ids.get(l.type_id as usize).copied().unwrap_or(false)
                    {
                        let b = tl.bucket(t);
                        b.died_objects += 1;
                        b.died_bytes += l.size;
                        if let Some(e) = tl.epoch(epoch) {
                            e.1 += 1;
                        }
                    }
                }
                None => s.inconsistent_events += 1,
            },
            Event::Move { id, .. } | Event::Access { id, .. } => {
                if matches!(ev, Event::Move { .. }) {
                    s.moves += 1;
                } else {
                    s.accesses += 1;
                }
                match live.get_mut(&id) {
                    Some(l) => l.last_use_clock = clock,
                    None => s.inconsistent_events += 1,
                }
            }
            Event::GcStart { .. } => s.gc_cycles += 1,
            Event::GcEnd { .. } => epoch += 1,
        }
        if live_bytes > s.peak_live_bytes {
            s.peak_live_bytes = live_bytes;
            s.peak_at_event = s.events;
            s.peak_at_t = t;
        }
    }
    s.live_bytes_at_end = live_bytes;
    s.never_freed = live.len() as u64;
    for l in live.values() {
        group(&mut sites, l.site).never_freed += 1;
        group(&mut types, l.type_id).never_freed += 1;
    }
    let tables = reader.tables();
    let has_gc = s.gc_cycles > 0 || epoch > 0;
    s.lifetime_bytes_histogram = hist_bytes;
    s.lifetime_gc_epochs_histogram = has_gc.then_some(hist_epochs);
    s.sites = sites.iter().filter(|g| g.objects > 0).count() as u64;
    s.classes = types.iter().filter(|g| g.objects > 0).count() as u64;
    let rows = |groups: &[Group], table: Table| -> Vec<GroupRow> {
        let mut idx: Vec<usize> = (0..groups.len())
            .filter(|i| groups[*i].objects > 0)
            .collect();
        idx.sort_by(|a, b| {
            (groups[*b].objects, groups[*b].bytes, *a).cmp(&(
                groups[*a].objects,
                groups[*a].bytes,
                *b,
            ))
        });
        idx.truncate(opts.top);
        idx.into_iter()
            .map(|i| {
                let g = &groups[i];
                let dead = g.dead.max(1) as f64;
                GroupRow {
                    name: tables.name(table, i as u32).to_string(),
                    objects: g.objects,
                    object_share: g.objects as f64 / s.objects.max(1) as f64,
                    bytes: g.bytes,
                    dead_objects: g.dead,
                    mean_lifetime_bytes: g.life_bytes_sum / dead,
                    mean_lifetime_gc_epochs: has_gc.then_some(g.life_epochs_sum / dead),
                    never_freed: g.never_freed,
                }
            })
            .collect()
    };
    s.top_sites = rows(&sites, Table::Site);
    s.top_classes = rows(&types, Table::Type);
    let mut suspects: Vec<(&u64, &Live)> = live.iter().collect();
    let score = |l: &Live| (clock - l.last_use_clock) as f64 * l.size as f64;
    suspects.sort_by(|a, b| score(b.1).total_cmp(&score(a.1)).then(a.0.cmp(b.0)));
    s.leak_suspects = suspects
        .into_iter()
        .take(opts.suspects)
        .filter(|(_, l)| score(l) > 0.0)
        .map(|(id, l)| LeakSuspect {
            id: *id,
            site: tables.name(Table::Site, l.site).to_string(),
            type_name: tables.name(Table::Type, l.type_id).to_string(),
            size_bytes: l.size,
            staleness_bytes: clock - l.last_use_clock,
            score: score(l),
        })
        .collect();
    if let (Some(tl), Some(class)) = (timeline, opts.class.as_ref()) {
        s.class_timeline = Some(tl.finish(class.clone()));
    }
    Ok(s)
}
