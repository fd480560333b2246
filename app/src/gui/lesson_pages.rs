//! Presenting, a lesson step's panel is cut into pages that fit it whole (issue #19 item 5): at 1280×720 and
//! 200 % the panel is about 300 × 290 points, and a step's text, its prediction and five or eight checked claims
//! do not fit; a scroll bar is no use on a projector. So the step is laid out once unpaged (a measuring frame, not
//! seen: the app draws another before anything waits on it), each block's height is kept, and the blocks are
//! dealt greedily onto pages. The clicker's next key shows the next page before the next step, as a slide's
//! builds do, and the panel shows "claims 1–3 of 5" with buttons for the mouse. The font stays the zoom's: the
//! teacher chose 200 % to be read from the back.

use std::ops::Range;

/// A part of a step's panel that is never split across pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Block {
    /// The step's title and text.
    Text,
    /// "What do you expect?", the choices and *Reveal* or the verdict.
    Prediction,
    /// "Measured on the model" (kept with the first claim after it).
    Heading,
    /// The step's `i`-th shown claim, with its numbers.
    Claim(usize),
    /// What the model could not show.
    Problems,
}

/// The pages of the step on screen, measured in a frame with the same key.
#[derive(Clone, Debug, Default)]
pub struct Paging {
    /// What the layout depends on: step, revealed, claims arrived, panel size.
    pub key: u64,
    /// The step's blocks in order.
    pub blocks: Vec<Block>,
    /// Each block's height as measured, spacing included. `[points]`
    pub heights: Vec<f32>,
    /// The pages, as ranges of `blocks`.
    pub pages: Vec<Range<usize>>,
}

impl Paging {
    /// The page holding block `first` (the last page when `first` is past the end).
    pub fn page_of(&self, first: usize) -> usize {
        self.pages
            .iter()
            .position(|r| r.contains(&first))
            .unwrap_or(self.pages.len().saturating_sub(1))
    }

    /// The blocks of page `p`.
    pub fn page(&self, p: usize) -> &[Block] {
        self.pages
            .get(p)
            .map_or(&[][..], |r| &self.blocks[r.clone()])
    }

    /// The height of page `p`'s blocks. `[points]`
    pub fn height(&self, p: usize) -> f32 {
        self.pages
            .get(p)
            .map_or(0.0, |r| self.heights[r.clone()].iter().sum())
    }

    /// "claims 1–3 of 5" when page `p` shows claims, else "part 1 of 2".
    pub fn label(&self, p: usize) -> String {
        let claims: Vec<usize> = self
            .page(p)
            .iter()
            .filter_map(|b| match b {
                Block::Claim(i) => Some(*i),
                _ => None,
            })
            .collect();
        let n = self
            .blocks
            .iter()
            .filter(|b| matches!(b, Block::Claim(_)))
            .count();
        match (claims.first(), claims.last()) {
            (Some(a), Some(b)) if a == b => format!("claim {} of {n}", a + 1),
            (Some(a), Some(b)) => format!("claims {}–{} of {n}", a + 1, b + 1),
            _ => format!("part {} of {}", p + 1, self.pages.len()),
        }
    }
}

/// Deals `blocks` of `heights` (points, spacing included) onto pages: all on one page when they fit `room_whole`
/// (no pager row), else greedily into pages of `room` (the pager row taken off). A heading never ends a page; a
/// block taller than a page gets a page of its own.
pub fn paginate(
    blocks: &[Block],
    heights: &[f32],
    room_whole: f32,
    room: f32,
) -> Vec<Range<usize>> {
    let n = blocks.len().min(heights.len());
    let mut pages = Vec::new();
    if heights[..n].iter().sum::<f32>() <= room_whole {
        pages.push(0..n);
        return pages;
    }
    let (mut start, mut used) = (0, 0.0);
    for i in 0..n {
        // A heading takes the claim after it along.
        let need = heights[i]
            + if blocks[i] == Block::Heading && i + 1 < n {
                heights[i + 1]
            } else {
                0.0
            };
        if i > start && used + need > room {
            pages.push(start..i);
            (start, used) = (i, 0.0);
        }
        used += heights[i];
    }
    pages.push(start..n);
    pages
}

#[cfg(test)]
mod tests {
    use super::*;
    use Block::*;

    #[test]
    fn a_step_that_fits_is_one_page_and_one_that_does_not_is_dealt_without_splitting_a_heading() {
        let blocks = [Text, Heading, Claim(0), Claim(1), Claim(2)];
        assert_eq!(
            paginate(&blocks, &[100.0, 20.0, 40.0, 40.0, 40.0], 240.0, 200.0),
            vec![0..5]
        );
        // 100 + 20 fits a 130-point page, but the heading goes with its first claim.
        let pages = paginate(&blocks, &[100.0, 20.0, 40.0, 40.0, 40.0], 200.0, 130.0);
        assert_eq!(pages, vec![0..1, 1..4, 4..5]);
        let p = Paging {
            key: 0,
            blocks: blocks.to_vec(),
            heights: vec![100.0, 20.0, 40.0, 40.0, 40.0],
            pages,
        };
        assert_eq!(p.height(1), 100.0);
        assert_eq!(p.label(0), "part 1 of 3");
        assert_eq!(p.label(1), "claims 1–2 of 3");
        assert_eq!(p.label(2), "claim 3 of 3");
        assert_eq!(p.page_of(3), 1);
        assert_eq!(p.page_of(9), 2);
        // Taller than a page: alone on its own.
        assert_eq!(
            paginate(&[Text, Prediction], &[500.0, 50.0], 300.0, 250.0),
            vec![0..1, 1..2]
        );
    }
}
