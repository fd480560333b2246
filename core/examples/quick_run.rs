//! Runs the Kwml preset under base and adaptive and checks what the adaptive-GC paper's abstract claims: the
//! adaptive collector collects more often and saves heap energy. Run: `cargo run -p gclab-core --example quick_run`.

use gclab_core::{Cancel, NoProgress, Scenario, simulate};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = Scenario::load("preset:kvm/kwml", &["collector.kind=base".into()])?;
    let adaptive = base.with_set("collector.kind=adaptive")?;
    let b = simulate(&base, &Cancel::never(), &mut NoProgress)?.summary;
    let a = simulate(&adaptive, &Cancel::never(), &mut NoProgress)?.summary;
    let saving = 1.0 - a.energy_j.heap / b.energy_j.heap;
    eprintln!(
        "kwml: base {} GCs, heap {:.3e} J; adaptive {} GCs, heap {:.3e} J ({:.1} % less)",
        b.collections,
        b.energy_j.heap,
        a.collections,
        a.energy_j.heap,
        saving * 100.0
    );
    assert!(
        a.collections > b.collections,
        "adaptive collects more often than base"
    );
    assert!(saving > 0.2, "adaptive saves heap energy on Kwml");
    assert!(
        !a.out_of_memory && !b.out_of_memory,
        "Kwml fits the default heap"
    );
    Ok(())
}
