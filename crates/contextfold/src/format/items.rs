//! A message list being read: borrowed from the caller's tree, or taken out of it and let
//! go element by element as it is read. A large list's tree and the messages read from
//! it, held together, were the peak memory of a compaction; read from a taken list, each
//! element's tree is gone once its messages are made.

use serde_json::Value;
use std::borrow::Cow;

/// The elements of a message list.
pub enum Items<'v> {
    Borrowed(&'v [Value]),
    Owned(Vec<Value>),
    /// Made one at a time as they are read (parsed from the text, say).
    Stream {
        elements: &'v mut dyn Iterator<Item = Value>,
    },
}

impl<'v> Items<'v> {
    /// The elements `taken` out of the tree when given, else those of `list`.
    pub(crate) fn taken_or(taken: Option<Items<'v>>, list: &'v [Value]) -> Items<'v> {
        taken.unwrap_or(Items::Borrowed(list))
    }

    /// How many elements there are; for a stream, how many at least (to reserve for).
    pub(crate) fn len(&self) -> usize {
        match self {
            Items::Borrowed(items) => items.len(),
            Items::Owned(items) => items.len(),
            Items::Stream { elements } => elements.size_hint().0,
        }
    }

    /// Each element with its index; an owned one is dropped when the caller is done with it.
    pub(crate) fn each(self) -> Each<'v> {
        match self {
            Items::Borrowed(items) => Each::Borrowed(items.iter().enumerate()),
            Items::Owned(items) => Each::Owned(items.into_iter().enumerate()),
            Items::Stream { elements } => Each::Stream(elements.enumerate()),
        }
    }
}

/// The iterator of [`Items::each`].
pub(crate) enum Each<'v> {
    Borrowed(std::iter::Enumerate<std::slice::Iter<'v, Value>>),
    Owned(std::iter::Enumerate<std::vec::IntoIter<Value>>),
    Stream(std::iter::Enumerate<&'v mut dyn Iterator<Item = Value>>),
}

impl<'v> Iterator for Each<'v> {
    type Item = (usize, Cow<'v, Value>);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Each::Borrowed(it) => it.next().map(|(i, v)| (i, Cow::Borrowed(v))),
            Each::Owned(it) => it.next().map(|(i, v)| (i, Cow::Owned(v))),
            Each::Stream(it) => it.next().map(|(i, v)| (i, Cow::Owned(v))),
        }
    }
}
