//! The published numbers of Hussein et al., SYSTOR'15, that the android-krait reproduction is compared with:
//! Table 1 (benchmark characteristics under Dalvik CMS) and Table 3 (schedule statistics of bg and fg
//! normalised to CMS). Figures are described in words in the paper; their trends are checked in
//! [`super::android`].

/// One row of Table 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Table1Row {
    /// Preset name.
    pub preset: &'static str,
    /// Heap allocated. `[MiB]`
    pub alloc_mib: f64,
    /// Live heap. `[MiB]`
    pub live_mib: f64,
    /// Objects allocated. `[millions]`
    pub objects_m: f64,
    /// GC-CONC events.
    pub conc: u64,
    /// GC-ALLOC events.
    pub alloc: u64,
    /// GC-EXPLICIT events.
    pub explicit: u64,
    /// Trims.
    pub trims: u64,
    /// Heap-lock contentions.
    pub contentions: f64,
    /// Maximum pause. `[ms]`
    pub max_pause_ms: f64,
    /// GC share of CPU cycles. `[%]`
    pub gc_cpu_pct: f64,
}

/// SYSTOR'15 Table 1.
pub const TABLE1: [Table1Row; 6] = [
    Table1Row {
        preset: "android/quadrant",
        alloc_mib: 28.71,
        live_mib: 8.23,
        objects_m: 0.46,
        conc: 6,
        alloc: 4,
        explicit: 42,
        trims: 3,
        contentions: 448.0,
        max_pause_ms: 30.5,
        gc_cpu_pct: 2.8,
    },
    Table1Row {
        preset: "android/pandora",
        alloc_mib: 48.91,
        live_mib: 18.76,
        objects_m: 0.28,
        conc: 7,
        alloc: 18,
        explicit: 0,
        trims: 4,
        contentions: 829.0,
        max_pause_ms: 33.1,
        gc_cpu_pct: 6.2,
    },
    Table1Row {
        preset: "android/javac",
        alloc_mib: 217.47,
        live_mib: 10.19,
        objects_m: 6.15,
        conc: 55,
        alloc: 42,
        explicit: 6,
        trims: 1,
        contentions: 276.0,
        max_pause_ms: 99.0,
        gc_cpu_pct: 19.7,
    },
    Table1Row {
        preset: "android/jack",
        alloc_mib: 180.22,
        live_mib: 0.87,
        objects_m: 5.52,
        conc: 105,
        alloc: 0,
        explicit: 2,
        trims: 1,
        contentions: 4133.0,
        max_pause_ms: 24.0,
        gc_cpu_pct: 8.0,
    },
    Table1Row {
        preset: "android/lusearch",
        alloc_mib: 686.75,
        live_mib: 1.22,
        objects_m: 11.65,
        conc: 356,
        alloc: 0,
        explicit: 5,
        trims: 1,
        contentions: 2.63e6,
        max_pause_ms: 35.0,
        gc_cpu_pct: 5.4,
    },
    Table1Row {
        preset: "android/xalan",
        alloc_mib: 395.06,
        live_mib: 2.26,
        objects_m: 4.14,
        conc: 199,
        alloc: 1,
        explicit: 5,
        trims: 1,
        contentions: 4.38e5,
        max_pause_ms: 37.2,
        gc_cpu_pct: 3.5,
    },
];

/// The four Java benchmarks of Figs. 5–9 and Table 3, in the paper's order.
pub const JAVA: [&str; 4] = [
    "android/lusearch",
    "android/xalan",
    "android/javac",
    "android/jack",
];

/// Table 3: migrations of bg and fg normalised to CMS (lusearch, xalan, javac, jack, geometric mean).
pub const TABLE3_MIGRATIONS: [(&str, [f64; 5]); 2] = [
    ("bg", [0.97, 1.02, 1.36, 1.00, 1.05]),
    ("fg", [0.44, 0.79, 0.71, 0.38, 0.55]),
];

/// Table 3: delayed time of bg and fg normalised to CMS.
pub const TABLE3_DELAYED: [(&str, [f64; 5]); 2] = [
    ("bg", [1.14, 1.06, 0.90, 1.09, 1.04]),
    ("fg", [0.63, 0.90, 1.93, 1.20, 1.05]),
];

/// The collector variants of §3, in the paper's order.
pub const VARIANTS: [&str; 5] = ["cms", "gencms", "cmsfly", "bg", "fg"];
