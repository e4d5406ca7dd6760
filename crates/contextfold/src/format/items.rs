//! A message list being read: borrowed from the caller's tree, taken out of it and let go
//! element by element as it is read, or parsed from the text as it is read. A large
//! list's tree and the messages read from it, held together, were the peak memory of a
//! compaction; read from a taken or parsed list, each element's tree is gone once its
//! messages are made.

use super::FormatError;
use crate::json_node::Node;
use serde_json::Value;

/// What reads one element: its index and its tree.
pub type Read<'f> = dyn FnMut(usize, &Node<'_>) -> Result<(), FormatError> + 'f;

/// Elements made one at a time as they are read (parsed from the text, say), each
/// lent to the reader only while it reads it.
pub trait Stream {
    /// How many elements there are at least (to reserve for).
    fn at_least(&self) -> usize;
    /// Calls `read` on each element in order, until it fails (its error is returned) or
    /// the elements end. A stream that cannot go on (a text that does not parse) ends
    /// early and says so its own way.
    fn each(&mut self, read: &mut Read<'_>) -> Result<(), FormatError>;
}

/// The elements of a message list.
pub enum Items<'v> {
    /// The caller's tree.
    Borrowed(&'v [Value]),
    /// Taken out of the caller's tree: each is dropped once read.
    Owned(Vec<Value>),
    /// Already read as nodes.
    Nodes(&'v [Node<'v>]),
    Stream(&'v mut dyn Stream),
}

impl<'v> Items<'v> {
    /// How many elements there are; for a stream, how many at least (to reserve for).
    pub(crate) fn len(&self) -> usize {
        match self {
            Items::Borrowed(items) => items.len(),
            Items::Owned(items) => items.len(),
            Items::Nodes(items) => items.len(),
            Items::Stream(stream) => stream.at_least(),
        }
    }

    /// Reads each element in order with its index, until `read` fails.
    /// (`read` is called through a pointer: each reader's loop is compiled once, not once
    /// for each kind of list.)
    pub(crate) fn each(self, read: &mut Read<'_>) -> Result<(), FormatError> {
        match self {
            Items::Borrowed(items) => items.iter().enumerate().try_for_each(|(i, item)| read(i, &Node::of(item))),
            Items::Owned(items) => items.into_iter().enumerate().try_for_each(|(i, item)| read(i, &Node::of(&item))),
            Items::Nodes(items) => items.iter().enumerate().try_for_each(|(i, item)| read(i, item)),
            Items::Stream(stream) => stream.each(read),
        }
    }

    /// Each element read into messages by `read` (which may make none or several).
    pub(crate) fn read_all(
        self,
        mut out: Vec<crate::message::Message>,
        mut read: impl FnMut(usize, &Node<'_>, &mut Vec<crate::message::Message>) -> Result<(), FormatError>,
    ) -> Result<Vec<crate::message::Message>, FormatError> {
        out.reserve(self.len());
        self.each(&mut |i, item| read(i, item, &mut out))?;
        Ok(out)
    }
}
