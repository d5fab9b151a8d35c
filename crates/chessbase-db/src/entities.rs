//! Entity files (`.cbp .cbt .cbc .cbs .cbe`): players, tournaments, annotators, sources,
//! teams. Read as an array (record number = id) and, through the AVL tree, in sorted order.

use chess_core::ParseError;

use crate::raw::{ENTITY_HEADER_SIZE, EntityData, EntityHeader, EntityNode, NODE_SIZE};

/// Most extra header bytes accepted (real files have 0 or 4).
const MAX_EXTRA: u32 = 4096;

/// All records of one entity file, parsed.
#[derive(Debug, Clone, Default)]
pub struct EntityFile<T> {
    header: Option<EntityHeader>,
    nodes: Vec<EntityNode>,
    records: Vec<T>,
}

impl<T: EntityData> EntityFile<T> {
    /// An empty file (used when the file is absent).
    pub fn empty() -> Self {
        EntityFile {
            header: None,
            nodes: Vec::new(),
            records: Vec::new(),
        }
    }

    /// Parses a whole file, texts that are not UTF-8 in `code_page`. Records beyond the end
    /// of the data are ignored (a file cut short keeps its whole records); a header that does
    /// not fit is an error.
    pub fn from_bytes(
        data: &[u8],
        code_page: &'static encoding_rs::Encoding,
    ) -> Result<Self, ParseError> {
        let head: &[u8; ENTITY_HEADER_SIZE] = data
            .get(..ENTITY_HEADER_SIZE)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| {
                ParseError::truncated(0, ENTITY_HEADER_SIZE as u64, data.len() as u64)
            })?;
        let header = EntityHeader::parse(head);
        if header.extra > MAX_EXTRA {
            return Err(ParseError::new(
                24,
                format!("extra header bytes at most {MAX_EXTRA}"),
                header.extra.to_string(),
            ));
        }
        let start = ENTITY_HEADER_SIZE + header.extra as usize;
        if (header.data_size as usize) < T::DATA_SIZE || header.data_size > 1 << 20 {
            return Err(ParseError::new(
                12,
                format!("record data size of at least {} bytes", T::DATA_SIZE),
                header.data_size.to_string(),
            ));
        }
        let size = NODE_SIZE + header.data_size as usize;
        let body = data.get(start..).unwrap_or(&[]);
        let n = (body.len() / size).min(header.count as usize);
        let mut nodes = Vec::with_capacity(n);
        let mut records = Vec::with_capacity(n);
        for rec in body.chunks_exact(size).take(n) {
            let node = EntityNode::parse(rec[..NODE_SIZE].try_into().expect("9 bytes"));
            records.push(if node.is_deleted() {
                T::default()
            } else {
                T::parse(&rec[NODE_SIZE..], code_page)
            });
            nodes.push(node);
        }
        Ok(EntityFile {
            header: Some(header),
            nodes,
            records,
        })
    }

    /// The file header, `None` for an absent file.
    pub fn header(&self) -> Option<&EntityHeader> {
        self.header.as_ref()
    }

    /// Number of records, deleted ones included.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the file has no records.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Record `id`, `None` when out of range or deleted.
    pub fn get(&self, id: u32) -> Option<&T> {
        let i = id as usize;
        if self.nodes.get(i)?.is_deleted() {
            return None;
        }
        self.records.get(i)
    }

    /// Whether record `id` is marked deleted.
    pub fn is_deleted(&self, id: u32) -> bool {
        self.nodes
            .get(id as usize)
            .is_some_and(EntityNode::is_deleted)
    }

    /// The tree node of record `id`.
    pub fn node(&self, id: u32) -> Option<&EntityNode> {
        self.nodes.get(id as usize)
    }

    /// Every record in file order with its id, deleted ones marked `None`.
    pub fn iter(&self) -> impl Iterator<Item = (u32, Option<&T>)> + '_ {
        (0..self.records.len() as u32).map(|i| (i, self.get(i)))
    }

    /// The ids of the records in sorted order (in-order walk of the AVL tree). Links out of
    /// range, to deleted records or back to a record already visited end that branch, so a
    /// damaged tree still gives each record at most once.
    pub fn sorted_ids(&self) -> Vec<u32> {
        let Some(h) = self.header else {
            return Vec::new();
        };
        let n = self.nodes.len();
        let valid = |i: i32| -> Option<usize> {
            let i = usize::try_from(i).ok()?;
            (i < n && !self.nodes[i].is_deleted()).then_some(i)
        };
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut cur = valid(h.root);
        loop {
            while let Some(i) = cur {
                if seen[i] {
                    break;
                }
                seen[i] = true;
                stack.push(i);
                cur = valid(self.nodes[i].left);
            }
            let Some(i) = stack.pop() else { break };
            out.push(i as u32);
            cur = valid(self.nodes[i].right);
        }
        out
    }
}
