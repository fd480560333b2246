//! The slide deck `gclab lesson export` writes: one self-contained `index.html` — the lesson's title slide, then
//! one slide per step: its figure (`step-NN.png`, beside it, which carries the step's title and text), the
//! prediction, and the claims with the numbers the model gave behind a *Reveal* (`<details>`), so the class
//! predicts first. No network resources: inline CSS and a few lines of inline script for the keys
//! (arrows, PageUp/PageDown, space — what a presenter's clicker sends).

use std::fmt::Write as _;

use gclab_core::lesson::{CheckedClaim, Lesson};

/// The figure file of step `n` (1-based).
pub fn figure_name(n: usize) -> String {
    format!("step-{n:02}.png")
}

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "body{margin:0;font-family:sans-serif;background:#fafafa;color:#222}\
section{display:none;box-sizing:border-box;height:100vh;padding:2vh 3vw;flex-direction:column}\
section.on{display:flex}h1{font-size:5vh;margin:0 0 1vh}h2{font-size:4vh;margin:0 0 1vh}\
p,li{font-size:2.6vh;margin:0.4vh 0}img{flex:1;min-height:0;object-fit:contain;align-self:center;max-width:100%}\
.claims{color:#1a7f37}.fails{color:#b00020}.n{position:fixed;right:2vw;bottom:1vh;font-size:2vh;color:#888}\
a{color:#555}summary{font-size:2.6vh;cursor:pointer}";

const SCRIPT: &str = "var s=document.querySelectorAll('section'),i=0;\
function go(k){s[i].className='';i=Math.max(0,Math.min(s.length-1,k));s[i].className='on';\
document.getElementById('n').textContent=(i+1)+' / '+s.length;}\
document.addEventListener('keydown',function(e){var f=['ArrowRight','ArrowDown','PageDown',' '],\
b=['ArrowLeft','ArrowUp','PageUp'];if(f.indexOf(e.key)>=0){go(i+1);e.preventDefault();}\
else if(b.indexOf(e.key)>=0){go(i-1);e.preventDefault();}else if(e.key=='Home'){go(0);}\
else if(e.key=='End'){go(s.length-1);}});\
go(0);";

/// The deck of `lesson`, with `checked` (from `check_lesson`) as the claims' measured numbers.
pub fn deck_html(lesson: &Lesson, checked: &[CheckedClaim]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{STYLE}</style>\
         </head><body>\n",
        esc(&lesson.title)
    );
    let minutes = lesson
        .minutes
        .map_or(String::new(), |m| format!(" · about {m} minutes"));
    let _ = writeln!(
        h,
        "<section><h1>{}</h1><p>{}</p><p>{} steps{minutes} · gclab lesson <code>{}</code></p></section>",
        esc(&lesson.title),
        esc(&lesson.summary),
        lesson.steps.len(),
        esc(&lesson.id)
    );
    for (i, step) in lesson.steps.iter().enumerate() {
        let n = i + 1;
        let _ = write!(
            h,
            "<section><img src=\"{}\" alt=\"step {n}: {}. {}\">",
            figure_name(n),
            esc(&step.title),
            esc(&step.text)
        );
        if let Some(p) = &step.prediction {
            let _ = write!(h, "<p><b>Predict:</b> {}", esc(&p.question));
            for c in &p.choices {
                let _ = write!(h, " — {}", esc(&c.text));
            }
            h.push_str("</p>");
        }
        let mine: Vec<&CheckedClaim> = checked.iter().filter(|c| c.step == i).collect();
        let data = format!(
            "<a href=\"{}\">data (CSV)</a>",
            figure_name(n).replace(".png", ".csv")
        );
        if mine.is_empty() {
            let _ = write!(h, "<p>{data}</p>");
        } else {
            let _ = write!(
                h,
                "<details><summary>Reveal: what the model shows · {data}</summary><ul>"
            );
            for c in mine {
                let o = &c.outcome;
                let (class, word) = if o.holds && o.error.is_none() {
                    ("claims", "holds")
                } else {
                    ("fails", "does not hold")
                };
                let what = if c.is_answer { " (an answer)" } else { "" };
                let _ = write!(
                    h,
                    "<li class=\"{class}\">{word}{what}: {}</li>",
                    esc(o.line().trim_start_matches(['✓', '✗', ' ']))
                );
            }
            h.push_str("</ul></details>");
        }
        h.push_str("</section>\n");
    }
    let _ = writeln!(
        h,
        "<div class=\"n\" id=\"n\"></div><script>{SCRIPT}</script></body></html>"
    );
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use gclab_core::lesson::{Evaluator, check_lesson};

    #[test]
    fn the_deck_is_offline_and_has_a_slide_per_step() {
        let l = Lesson::load("heap-size-trade-off").expect("built-in lesson");
        let (checked, _) = check_lesson(&l, &mut Evaluator::default());
        let html = deck_html(&l, &checked);
        assert_eq!(
            html.matches("<section>").count(),
            l.steps.len() + 1,
            "a title slide and one per step"
        );
        assert!(html.contains("src=\"step-01.png\""), "figures beside it");
        for remote in ["http://", "https://", "//cdn", "@import"] {
            assert!(!html.contains(remote), "no network resource ({remote})");
        }
        assert!(
            html.contains("holds: In 64 KiB"),
            "claims with their numbers"
        );
    }
}
