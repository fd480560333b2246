//! The simulated machines. [`kvm`] is the kvm-soc platform of the adaptive-GC paper (JVM'02); the android-krait
//! platform of the SYSTOR'15 paper comes next (issue #3) and shares the heap, trigger and run types.

pub mod android;
pub mod kvm;
