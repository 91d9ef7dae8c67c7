//! Sequential JSON bodies (OpenAPI 3.2's `itemSchema`): one JSON value per
//! item, each framed as its media type says. `application/jsonl` and
//! `application/x-ndjson` end each item with a line feed; `application/json-seq`
//! (RFC 7464) starts each with a record separator (0x1E) and ends it with a
//! line feed.
//!
//! A whole sequence is read as the JSON array of its items, so that one
//! decoder serves both bodies; a sequence read as it comes is split into
//! items by a `Splitter` (the client's answers, the server's requests).

use std::collections::VecDeque;

use serde::Serialize;

/// How the items of a sequence are framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Each item a line (`application/jsonl`, `application/x-ndjson`).
    Lines,
    /// Each item after a record separator, 0x1E (`application/json-seq`).
    RecordSeparator,
}

const RECORD_SEPARATOR: u8 = 0x1E;

impl Framing {
    /// Appends `item`, framed, to `out`.
    pub fn write<T: Serialize + ?Sized>(
        self,
        item: &T,
        out: &mut Vec<u8>,
    ) -> Result<(), serde_json::Error> {
        if self == Framing::RecordSeparator {
            out.push(RECORD_SEPARATOR);
        }
        serde_json::to_writer(&mut *out, item)?;
        out.push(b'\n');
        Ok(())
    }

    /// The items of `bytes`, whole ones only: each item's bytes without its
    /// framing, and the bytes after the last whole item (an item still
    /// arriving). Blank items (an empty line) are skipped.
    pub fn split(self, bytes: &[u8]) -> (Vec<&[u8]>, &[u8]) {
        let mut items = Vec::new();
        let mut rest = bytes;
        loop {
            let end = match self {
                Framing::Lines => rest.iter().position(|&b| b == b'\n'),
                // An item ends where the next begins, or at its closing
                // line feed once what came is a whole JSON text (a
                // pretty-printed one has line feeds of its own).
                Framing::RecordSeparator => rest
                    .iter()
                    .skip(1)
                    .position(|&b| b == RECORD_SEPARATOR)
                    .map(|at| at + 1)
                    .or_else(|| {
                        let whole = rest.ends_with(b"\n")
                            && serde_json::from_slice::<serde::de::IgnoredAny>(
                                rest.strip_prefix(&[RECORD_SEPARATOR]).unwrap_or(rest),
                            )
                            .is_ok();
                        whole.then_some(rest.len())
                    }),
            };
            let Some(end) = end else { break };
            let (item, after) = rest.split_at(end);
            push_item(&mut items, item);
            rest = match self {
                Framing::Lines => &after[1..],
                Framing::RecordSeparator => after,
            };
            if rest.is_empty() {
                break;
            }
        }
        (items, rest)
    }

    /// Every item of a whole body, the last one included even without its
    /// closing line feed.
    pub fn items(self, bytes: &[u8]) -> Vec<&[u8]> {
        let (mut items, rest) = self.split(bytes);
        push_item(&mut items, rest);
        items
    }
}

/// A sequence as its bytes arrive: chunks in, whole items out, each as soon
/// as its framing says it is whole.
#[derive(Debug)]
pub(crate) struct Splitter {
    framing: Framing,
    /// Bytes not yet a whole item.
    partial: Vec<u8>,
    /// Whole items not yet taken.
    whole: VecDeque<Vec<u8>>,
}

impl Splitter {
    pub(crate) fn new(framing: Framing) -> Self {
        Splitter {
            framing,
            partial: Vec::new(),
            whole: VecDeque::new(),
        }
    }

    /// Adds the next chunk of the body.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.partial.extend_from_slice(chunk);
        let (items, rest) = self.framing.split(&self.partial);
        self.whole.extend(items.into_iter().map(<[u8]>::to_vec));
        self.partial = rest.to_vec();
    }

    /// The body ended: what is left is the last item, even without its
    /// closing line feed.
    pub(crate) fn finish(&mut self) {
        let rest = std::mem::take(&mut self.partial);
        let last = self.framing.items(&rest);
        self.whole.extend(last.into_iter().map(<[u8]>::to_vec));
    }

    /// The next whole item, without its framing.
    pub(crate) fn next_item(&mut self) -> Option<Vec<u8>> {
        self.whole.pop_front()
    }
}

/// `item` without its framing and surrounding white space, unless it is blank.
fn push_item<'a>(items: &mut Vec<&'a [u8]>, item: &'a [u8]) {
    let item = item.strip_prefix(&[RECORD_SEPARATOR]).unwrap_or(item);
    let item = item.trim_ascii();
    if !item.is_empty() {
        items.push(item);
    }
}

/// A whole sequence as the JSON array of its items; an item that is not
/// JSON is named by its position (from 0) and the parser's message.
pub fn to_json_array(bytes: &[u8], framing: Framing) -> Result<Vec<u8>, (usize, String)> {
    let items = framing.items(bytes);
    let mut array = Vec::with_capacity(bytes.len() + 2);
    array.push(b'[');
    for (index, item) in items.iter().enumerate() {
        serde_json::from_slice::<serde::de::IgnoredAny>(item)
            .map_err(|e| (index, e.to_string()))?;
        if index > 0 {
            array.push(b',');
        }
        array.extend_from_slice(item);
    }
    array.push(b']');
    Ok(array)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_items_and_a_partial_last_line_waits() {
        let (items, rest) = Framing::Lines.split(b"{\"a\":1}\n\n[2]\n{\"b\"");
        assert_eq!(items, [&b"{\"a\":1}"[..], b"[2]"]);
        assert_eq!(rest, b"{\"b\"");
        assert_eq!(Framing::Lines.items(b"1\r\n2"), [&b"1"[..], b"2"]);
    }

    #[test]
    fn record_separators_start_items() {
        let body = b"\x1e{\"a\":1}\n\x1e2\n\x1e3";
        let (items, rest) = Framing::RecordSeparator.split(body);
        assert_eq!(items, [&b"{\"a\":1}"[..], b"2"]);
        assert_eq!(rest, b"\x1e3");
        assert_eq!(Framing::RecordSeparator.items(body).len(), 3);
        // The last item is whole at its line feed when it is a whole JSON
        // text, not inside a pretty-printed one.
        let (items, rest) = Framing::RecordSeparator.split(b"\x1e1\n\x1e{\"a\":\n2}\n");
        assert_eq!(items, [&b"1"[..], b"{\"a\":\n2}"]);
        assert!(rest.is_empty());
        let (items, rest) = Framing::RecordSeparator.split(b"\x1e{\"a\":\n");
        assert!(items.is_empty());
        assert_eq!(rest, b"\x1e{\"a\":\n");
    }

    #[test]
    fn a_splitter_gives_each_item_once_it_is_whole() {
        let mut splitter = Splitter::new(Framing::Lines);
        splitter.push(b"{\"a\":");
        assert_eq!(splitter.next_item(), None);
        splitter.push(b"1}\n[2");
        assert_eq!(splitter.next_item().as_deref(), Some(&b"{\"a\":1}"[..]));
        assert_eq!(splitter.next_item(), None);
        splitter.finish();
        assert_eq!(splitter.next_item().as_deref(), Some(&b"[2"[..]));
        assert_eq!(splitter.next_item(), None);
    }

    #[test]
    fn written_items_read_back_as_an_array() {
        for framing in [Framing::Lines, Framing::RecordSeparator] {
            let mut out = Vec::new();
            framing
                .write(&serde_json::json!({"a": "x\ny"}), &mut out)
                .unwrap();
            framing.write(&2, &mut out).unwrap();
            let array = to_json_array(&out, framing).unwrap();
            assert_eq!(array, b"[{\"a\":\"x\\ny\"},2]");
        }
        assert_eq!(to_json_array(b"", Framing::Lines).unwrap(), b"[]");
        let (index, _) = to_json_array(b"1\n{oops\n", Framing::Lines).unwrap_err();
        assert_eq!(index, 1);
    }
}
