//! The adaptive-GC paper's published numbers (Chen et al., JVM'02): Table 2 (GC activations), Table 3 (execution
//! cycle increase over base) and the §4.1 heap-energy saving. Data only; [`super::kvm`] compares runs with them.

/// Applications in the paper's table order, as preset names.
pub const APPS: [&str; 9] = [
    "kvm/calculator",
    "kvm/crypto",
    "kvm/dragon",
    "kvm/mathfp",
    "kvm/manyballs",
    "kvm/kshape",
    "kvm/kvideo",
    "kvm/kwml",
    "kvm/scheduler",
];

/// The k values of the k-allocation collectors (§3.2).
pub const KS: [u64; 6] = [10, 40, 75, 100, 250, 500];

/// Table 2: activations for k = 10, 40, 75, 100, 250, 500, then base, then adaptive; rows in [`APPS`] order.
pub const TABLE2: [[u64; 8]; 9] = [
    [104, 24, 12, 9, 3, 1, 0, 3],
    [595, 147, 78, 58, 23, 11, 3, 26],
    [84, 15, 8, 6, 2, 1, 1, 8],
    [825, 205, 109, 81, 32, 16, 2, 21],
    [214, 48, 25, 19, 7, 3, 0, 10],
    [2280, 593, 338, 266, 136, 93, 50, 100],
    [102, 23, 12, 9, 3, 1, 0, 4],
    [4936, 1099, 571, 425, 167, 83, 19, 285],
    [973, 240, 127, 95, 37, 18, 2, 28],
];

/// Table 3: % increase in execution cycles over base for k = 10 … 500, then adaptive.
pub const TABLE3: [[f64; 7]; 9] = [
    [92.58, 21.71, 11.78, 8.01, 3.00, 1.88, 2.86],
    [80.57, 19.89, 10.34, 7.73, 2.73, 1.08, 3.29],
    [14.53, 1.08, 0.54, 0.40, 0.07, 0.03, 0.68],
    [47.82, 11.05, 5.34, 3.64, 0.65, -1.21, 0.60],
    [25.71, 6.41, 8.52, 2.56, 1.19, 0.66, 6.93],
    [40.83, 31.97, 14.58, 9.74, 1.47, -1.79, 2.16],
    [38.20, 8.59, 4.11, 3.11, 1.39, 0.59, 1.68],
    [92.60, 42.63, 20.48, 13.98, 3.64, 2.22, 9.64],
    [70.98, 20.53, 16.83, 9.13, 10.80, 0.27, 9.96],
];

/// §4.1: average heap-energy saving of adaptive over base. `[%]`
pub const ADAPTIVE_HEAP_SAVING_PCT: f64 = 28.4;

/// §4.4: average execution-cycle increase of adaptive over base. `[%]`
pub const ADAPTIVE_SLOWDOWN_PCT: f64 = 4.20;
