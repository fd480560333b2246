//! `AddrIndex`: which objects of a recorded trace ever lay in each address bucket, so that hovering the heap map
//! finds the object under the pointer by looking at a few dozen objects instead of walking all of them (a 10 M-object
//! trace took ~20 ms per pointer move; this is microseconds). Built once after loading, in compressed-row form:
//! 4 bytes per (object, bucket) pair (about 1.5 per object) and per bucket (one per four objects).

use super::TraceMove;

/// An object spanning more buckets than this is kept in one list that every look-up scans instead.
const MAX_BUCKETS_PER_OBJECT: u64 = 8;

/// Objects by address bucket. `[granules]`
#[derive(Debug, Clone, Default)]
pub struct AddrIndex {
    /// Granules per bucket.
    bucket_granules: u64,
    /// `objs[first[b]..first[b + 1]]`: objects with a stretch in bucket `b`, ascending.
    first: Vec<u32>,
    objs: Vec<u32>,
    /// Objects spanning more than [`MAX_BUCKETS_PER_OBJECT`] buckets, ascending.
    wide: Vec<u32>,
}

/// The columns of a trace the index reads.
pub struct Columns<'a> {
    /// Address at allocation. `[granules]`
    pub addr: &'a [u32],
    /// Size. `[bytes]`
    pub size: &'a [u32],
    /// Bytes per granule.
    pub granule: u64,
    /// Moves sorted by `(obj, t)`.
    pub moves: &'a [TraceMove],
}

impl Columns<'_> {
    /// Calls `f(first, last)` with the granule range of each address the object `i` ever had.
    fn ranges(&self, i: usize, moves_from: &mut usize, mut f: impl FnMut(u64, u64)) {
        let len = (u64::from(self.size[i]).max(1)).div_ceil(self.granule);
        let at = u64::from(self.addr[i]);
        f(at, at + len - 1);
        while let Some(m) = self.moves.get(*moves_from).filter(|m| m.obj as usize == i) {
            f(u64::from(m.addr), u64::from(m.addr) + len - 1);
            *moves_from += 1;
        }
    }
}

impl AddrIndex {
    /// Indexes `c`'s objects over `heap_granules` of address space, with one bucket per four objects.
    pub fn build(c: &Columns, heap_granules: u64) -> AddrIndex {
        let n = c.addr.len();
        // One bucket per four objects: about 1.5 (object, bucket) pairs per object, ~7 bytes per object in all.
        let buckets = (n as u64 / 4).clamp(1, 1 << 24);
        let bucket_granules = heap_granules.max(1).div_ceil(buckets).max(1);
        let nb = heap_granules.max(1).div_ceil(bucket_granules) as usize;
        let mut idx = AddrIndex {
            bucket_granules,
            first: vec![0; nb + 1],
            ..AddrIndex::default()
        };
        let bucket = |g: u64| ((g / bucket_granules) as usize).min(nb - 1);
        // Pass 1 counts (object, bucket) pairs per bucket; pass 2 fills them.
        for pass in 0..2 {
            let mut cursor = if pass == 1 {
                let mut sum = 0u32;
                for f in idx.first.iter_mut() {
                    let c = *f;
                    *f = sum;
                    sum += c;
                }
                idx.objs = vec![0; sum as usize];
                idx.first[..nb].to_vec()
            } else {
                Vec::new()
            };
            let mut mv = 0usize;
            for i in 0..n {
                let mut last = usize::MAX;
                let (mut span, start_mv) = (0u64, mv);
                c.ranges(i, &mut mv, |a, b| {
                    span += b / bucket_granules - a / bucket_granules + 1
                });
                if span > MAX_BUCKETS_PER_OBJECT {
                    if pass == 0 {
                        idx.wide.push(i as u32);
                    }
                    continue;
                }
                let mut m2 = start_mv;
                c.ranges(i, &mut m2, |a, b| {
                    // Consecutive stretches in one bucket count once.
                    let (lo, hi) = (bucket(a), bucket(b));
                    let lo = if lo == last { lo + 1 } else { lo };
                    if lo <= hi {
                        if pass == 0 {
                            idx.first[lo..=hi].iter_mut().for_each(|c| *c += 1);
                        } else {
                            for at in &mut cursor[lo..=hi] {
                                idx.objs[*at as usize] = i as u32;
                                *at += 1;
                            }
                        }
                    }
                    last = bucket(b);
                });
            }
        }
        // Within a bucket, an object met twice (it moved away and back) is listed twice: harmless for look-ups.
        idx.objs.shrink_to_fit();
        idx
    }

    /// Bytes held.
    pub fn resident_bytes(&self) -> usize {
        4 * (self.first.capacity() + self.objs.capacity() + self.wide.capacity())
    }

    /// The candidates for granule `g`: the objects of its bucket, then the wide ones.
    pub fn candidates(&self, g: u64) -> impl Iterator<Item = u32> + '_ {
        let nb = self.first.len().saturating_sub(1);
        let list: &[u32] = if nb == 0 {
            &[]
        } else {
            let b = ((g / self.bucket_granules) as usize).min(nb - 1);
            &self.objs[self.first[b] as usize..self.first[b + 1] as usize]
        };
        list.iter().chain(self.wide.iter()).copied()
    }
}

/// Where object `i` lies at tick `k`, from its allocation address and its moves up to `k`. `[granules]`
pub fn addr_at(addr: u32, moves: &[TraceMove], i: u32, k: u32) -> u32 {
    let from = moves.partition_point(|m| m.obj < i);
    moves[from..]
        .iter()
        .take_while(|m| m.obj == i && m.t <= k)
        .last()
        .map_or(addr, |m| m.addr)
}

/// True when `k` is in `[alloc, min(freed, end))`: the object is resident at tick `k`.
pub fn resident_at(alloc: u32, freed: u32, end: u32, k: u32) -> bool {
    alloc <= k && k < freed.min(end)
}
