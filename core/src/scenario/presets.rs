//! The embedded presets (`assets/scenarios/`) and workload profiles (`assets/workloads/`), compiled into the
//! binary so `preset:NAME` works anywhere. A test checks that every file in those folders is listed here.

/// `(name, TOML text)` of every embedded scenario preset, in the order `gclab presets` prints them.
pub const PRESETS: &[(&str, &str)] = &[
    (
        "default",
        include_str!("../../../assets/scenarios/default.toml"),
    ),
    (
        "kvm/calculator",
        include_str!("../../../assets/scenarios/kvm/calculator.toml"),
    ),
    (
        "kvm/crypto",
        include_str!("../../../assets/scenarios/kvm/crypto.toml"),
    ),
    (
        "kvm/dragon",
        include_str!("../../../assets/scenarios/kvm/dragon.toml"),
    ),
    (
        "kvm/kshape",
        include_str!("../../../assets/scenarios/kvm/kshape.toml"),
    ),
    (
        "kvm/kvideo",
        include_str!("../../../assets/scenarios/kvm/kvideo.toml"),
    ),
    (
        "kvm/kwml",
        include_str!("../../../assets/scenarios/kvm/kwml.toml"),
    ),
    (
        "kvm/manyballs",
        include_str!("../../../assets/scenarios/kvm/manyballs.toml"),
    ),
    (
        "kvm/mathfp",
        include_str!("../../../assets/scenarios/kvm/mathfp.toml"),
    ),
    (
        "kvm/scheduler",
        include_str!("../../../assets/scenarios/kvm/scheduler.toml"),
    ),
    (
        "android/quadrant",
        include_str!("../../../assets/scenarios/android/quadrant.toml"),
    ),
    (
        "android/pandora",
        include_str!("../../../assets/scenarios/android/pandora.toml"),
    ),
    (
        "android/javac",
        include_str!("../../../assets/scenarios/android/javac.toml"),
    ),
    (
        "android/jack",
        include_str!("../../../assets/scenarios/android/jack.toml"),
    ),
    (
        "android/lusearch",
        include_str!("../../../assets/scenarios/android/lusearch.toml"),
    ),
    (
        "android/xalan",
        include_str!("../../../assets/scenarios/android/xalan.toml"),
    ),
    (
        "trace/jq",
        include_str!("../../../assets/scenarios/trace/jq.toml"),
    ),
];

/// `(name, TOML text)` of every embedded workload profile.
pub const WORKLOADS: &[(&str, &str)] = &[
    (
        "kvm/calculator",
        include_str!("../../../assets/workloads/kvm/calculator.toml"),
    ),
    (
        "kvm/crypto",
        include_str!("../../../assets/workloads/kvm/crypto.toml"),
    ),
    (
        "kvm/dragon",
        include_str!("../../../assets/workloads/kvm/dragon.toml"),
    ),
    (
        "kvm/kshape",
        include_str!("../../../assets/workloads/kvm/kshape.toml"),
    ),
    (
        "kvm/kvideo",
        include_str!("../../../assets/workloads/kvm/kvideo.toml"),
    ),
    (
        "kvm/kwml",
        include_str!("../../../assets/workloads/kvm/kwml.toml"),
    ),
    (
        "kvm/manyballs",
        include_str!("../../../assets/workloads/kvm/manyballs.toml"),
    ),
    (
        "kvm/mathfp",
        include_str!("../../../assets/workloads/kvm/mathfp.toml"),
    ),
    (
        "kvm/scheduler",
        include_str!("../../../assets/workloads/kvm/scheduler.toml"),
    ),
    (
        "android/quadrant",
        include_str!("../../../assets/workloads/android/quadrant.toml"),
    ),
    (
        "android/pandora",
        include_str!("../../../assets/workloads/android/pandora.toml"),
    ),
    (
        "android/javac",
        include_str!("../../../assets/workloads/android/javac.toml"),
    ),
    (
        "android/jack",
        include_str!("../../../assets/workloads/android/jack.toml"),
    ),
    (
        "android/lusearch",
        include_str!("../../../assets/workloads/android/lusearch.toml"),
    ),
    (
        "android/xalan",
        include_str!("../../../assets/workloads/android/xalan.toml"),
    ),
];

/// The preset the app opens with.
pub const DEFAULT_PRESET: &str = "default";

/// The nine applications of JVM'02 Table 1, as preset names.
pub const KVM_APPS: [&str; 9] = [
    "kvm/calculator",
    "kvm/crypto",
    "kvm/dragon",
    "kvm/kshape",
    "kvm/kvideo",
    "kvm/kwml",
    "kvm/manyballs",
    "kvm/mathfp",
    "kvm/scheduler",
];

/// The six benchmarks of SYSTOR'15 Table 1, as preset names.
pub const ANDROID_BENCHMARKS: [&str; 6] = [
    "android/quadrant",
    "android/pandora",
    "android/javac",
    "android/jack",
    "android/lusearch",
    "android/xalan",
];

/// The TOML text of preset `name`.
pub fn preset_text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Embedded sample traces (`[workload.trace] path = "sample/NAME"`), zstd-compressed gclab traces.
const TRACES: &[(&str, &[u8])] = &[(
    "sample/jq",
    // jq 1.6 under heaptrack (../shared/data/object-traces/heaptrack/jq): 68,973 mallocs, 9.1 MB, imported with
    // `gclab trace import --format heaptrack`.
    include_bytes!("../../../assets/traces/jq.gctrace.zst"),
)];

/// The bytes of embedded sample trace `name`.
pub fn trace_bytes(name: &str) -> Option<&'static [u8]> {
    TRACES.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}

/// The TOML text of workload profile `name`.
pub fn workload_text(name: &str) -> Option<&'static str> {
    WORKLOADS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}
