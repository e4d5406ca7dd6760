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
}

/// A text held whole, given as one piece or (to test readers) in pieces of a size.
pub struct Held<'a> {
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
        Held { rest: text, size: size.max(1), piece: &[] }
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
}

/// Reads the bytes of ranges that come in order (each at or after the end of the one
/// before) from pieces, copying only those bytes.
pub(crate) struct RangeReader<'r> {
    pieces: &'r mut dyn TextPieces,
    /// Offset of the current piece in the text.
    start: usize,
}

impl<'r> RangeReader<'r> {
    pub(crate) fn new(pieces: &'r mut dyn TextPieces) -> Self {
        RangeReader { pieces, start: 0 }
    }

    /// Hands `take` the bytes of `range`, a slice per piece it lies in; `false` when the
    /// text ends first or the range starts before the current piece.
    pub(crate) fn read(&mut self, range: std::ops::Range<usize>, take: &mut dyn FnMut(&[u8])) -> bool {
        let mut at = range.start;
        while at < range.end {
            let piece = self.pieces.piece();
            let end = self.start.saturating_add(piece.len());
            if at >= end {
                self.start = end;
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
            let mut reader = RangeReader::new(&mut chunks);
            for pair in cuts.chunks(2) {
                let range = pair[0]..*pair.get(1).unwrap_or(&text.len());
                let mut got = Vec::new();
                proptest::prop_assert!(reader.read(range.clone(), &mut |b| got.extend_from_slice(b)));
                proptest::prop_assert_eq!(&got[..], &text[range]);
            }
            let mut whole = Held::whole(&text);
            let mut reader = RangeReader::new(&mut whole);
            let mut got = Vec::new();
            proptest::prop_assert!(reader.read(0..text.len(), &mut |b| got.extend_from_slice(b)));
            proptest::prop_assert_eq!(got, text.clone());
            // Past the end: false.
            let mut chunks = Held::in_pieces(&text, size);
            let past = RangeReader::new(&mut chunks).read(0..text.len() + 1, &mut |_| ());
            proptest::prop_assert!(!past);
        }
    }
}
