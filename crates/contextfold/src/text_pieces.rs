//! A text read once, in order, a piece at a time: how the pipeline reads a caller's JSON
//! text that it does not hold whole (see [`crate::pipeline::InputText`]). The JS binding
//! encodes the caller's string a chunk at a time; a text held whole is one piece.

/// A text given in pieces, in order.
pub trait TextPieces {
    /// Moves to the next piece; `false` at the end (or when no more can be given).
    fn advance(&mut self) -> bool;

    /// The current piece: empty before the first [`advance`](TextPieces::advance).
    fn piece(&self) -> &[u8];

    /// At least how many bytes the whole text has (to make room for it at once).
    fn size_hint(&self) -> usize {
        0
    }

    /// Where the current piece starts, in the host's own terms (a byte offset, a JS
    /// string's UTF-16 offset), to [`seek`](TextPieces::seek) back to from another
    /// reader of the same text; `None` when the host cannot seek.
    fn mark(&self) -> Option<u64> {
        None
    }

    /// Moves to a [`mark`](TextPieces::mark): the next `advance` gives the piece that
    /// started there. `false` (nothing moved) when the host cannot.
    fn seek(&mut self, mark: u64) -> bool {
        let _ = mark;
        false
    }
}

/// Where pieces of a text started: each piece's byte offset and its [`TextPieces::mark`],
/// in order, as one reader saw them; another reader of the same text can then skip what
/// it does not need ([`RangeReader`]).
pub type Marks = Vec<(usize, u64)>;

/// A text held whole, given as one piece or (to test readers) in pieces of a size.
pub struct Held<'a> {
    text: &'a [u8],
    rest: &'a [u8],
    size: usize,
    piece: &'a [u8],
}

impl<'a> Held<'a> {
    /// The text as one piece.
    pub fn whole(text: &'a [u8]) -> Self {
        Held::in_pieces(text, usize::MAX)
    }

    /// The text in pieces of `size` bytes (at least 1), the last one shorter.
    pub fn in_pieces(text: &'a [u8], size: usize) -> Self {
        Held { text, rest: text, size: size.max(1), piece: &[] }
    }
}

impl TextPieces for Held<'_> {
    fn advance(&mut self) -> bool {
        let (piece, rest) = self.rest.split_at(self.size.min(self.rest.len()));
        (self.piece, self.rest) = (piece, rest);
        !piece.is_empty()
    }

    fn piece(&self) -> &[u8] {
        self.piece
    }

    fn size_hint(&self) -> usize {
        self.rest.len().saturating_add(self.piece.len())
    }

    fn mark(&self) -> Option<u64> {
        let start = self.text.len().saturating_sub(self.rest.len()).saturating_sub(self.piece.len());
        u64::try_from(start).ok()
    }

    fn seek(&mut self, mark: u64) -> bool {
        let Some(rest) = usize::try_from(mark).ok().and_then(|at| self.text.get(at..)) else { return false };
        (self.rest, self.piece) = (rest, &[]);
        true
    }
}

/// Reads the bytes of ranges that come in order (each at or after the end of the one
/// before) from pieces, copying only those bytes.
pub(crate) struct RangeReader<'r> {
    pieces: &'r mut dyn TextPieces,
    /// Offset of the current piece in the text.
    start: usize,
    /// Where pieces of the text start, to jump over what no range needs.
    marks: &'r [(usize, u64)],
}

impl<'r> RangeReader<'r> {
    /// A reader that seeks to the last of `marks` before a range rather than read the
    /// pieces between (when the pieces can seek; no marks: it reads every piece).
    pub(crate) fn with_marks(pieces: &'r mut dyn TextPieces, marks: &'r [(usize, u64)]) -> Self {
        RangeReader { pieces, start: 0, marks }
    }

    /// Hands `take` the bytes of `range`, a slice per piece it lies in; `false` when the
    /// text ends first or the range starts before the current piece.
    pub(crate) fn read(&mut self, range: std::ops::Range<usize>, take: &mut dyn FnMut(&[u8])) -> bool {
        let mut at = range.start;
        while at < range.end {
            let piece = self.pieces.piece();
            let end = self.start.saturating_add(piece.len());
            if at >= end {
                // A later piece holds `at`: seek to the one starting last before it, when
                // that is past the next one.
                let found = self.marks.partition_point(|&(byte, _)| byte <= at).checked_sub(1);
                match found.and_then(|k| self.marks.get(k)) {
                    Some(&(byte, mark)) if byte > end && self.pieces.seek(mark) => self.start = byte,
                    _ => self.start = end,
                }
                if !self.pieces.advance() {
                    return false;
                }
                continue;
            }
            let (Some(from), to) = (at.checked_sub(self.start), range.end.min(end).saturating_sub(self.start)) else {
                return false;
            };
            let Some(bytes) = piece.get(from..to) else { return false };
            take(bytes);
            at = self.start.saturating_add(to);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Ranges in order read the same bytes from pieces of any size as from the text.
        #[test]
        fn ranges_read_as_slices_of_the_text(
            text in proptest::collection::vec(proptest::num::u8::ANY, 0..200),
            size in 1usize..40,
            cuts in proptest::collection::vec(0usize..200, 0..12),
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(text.len())).collect();
            cuts.sort_unstable();
            let mut chunks = Held::in_pieces(&text, size);
            let mut reader = RangeReader::with_marks(&mut chunks, &[]);
            for pair in cuts.chunks(2) {
                let range = pair[0]..*pair.get(1).unwrap_or(&text.len());
                let mut got = Vec::new();
                proptest::prop_assert!(reader.read(range.clone(), &mut |b| got.extend_from_slice(b)));
                proptest::prop_assert_eq!(&got[..], &text[range]);
            }
            let mut whole = Held::whole(&text);
            let mut reader = RangeReader::with_marks(&mut whole, &[]);
            let mut got = Vec::new();
            proptest::prop_assert!(reader.read(0..text.len(), &mut |b| got.extend_from_slice(b)));
            proptest::prop_assert_eq!(got, text.clone());
            // With the marks of a first reader, a second one reads the same, seeking.
            let mut first = Held::in_pieces(&text, size);
            let mut marks = Marks::new();
            while first.advance() {
                let start = usize::try_from(first.mark().unwrap_or(0)).unwrap_or(0);
                marks.push((start, first.mark().unwrap_or(0)));
            }
            let mut chunks = Held::in_pieces(&text, size);
            let mut reader = RangeReader::with_marks(&mut chunks, &marks);
            for pair in cuts.chunks(2) {
                let range = pair[0]..*pair.get(1).unwrap_or(&text.len());
                let mut got = Vec::new();
                proptest::prop_assert!(reader.read(range.clone(), &mut |b| got.extend_from_slice(b)));
                proptest::prop_assert_eq!(&got[..], &text[range]);
            }
            // Past the end: false.
            let mut chunks = Held::in_pieces(&text, size);
            let past = RangeReader::with_marks(&mut chunks, &[]).read(0..text.len() + 1, &mut |_| ());
            proptest::prop_assert!(!past);
        }
    }
}
