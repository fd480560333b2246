//! The simulated machines, shaped alike: each platform owns its `config` (the scenario's `[kvm]` / `[android]`
//! tables) and one `simulate` entry the crate's [`crate::simulate_with`] dispatches to by [`crate::PlatformKind`].
//! [`kvm`] is the kvm-soc platform of the adaptive-GC paper (JVM'02): one core, a banked SRAM heap. [`android`]
//! is the android-krait platform of the SYSTOR'15 paper: Dalvik's concurrent mark-sweep on a quad-core Krait
//! with its governor and hotplug. Both share the heap, trigger, workload and run types.

pub mod android;
pub mod kvm;
