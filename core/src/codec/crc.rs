//! Table-driven CRC-32 (IEEE, for gzip) and CRC-32C (Castagnoli, for Zarr's `crc32c`).
//!
//! Both are reflected CRCs; they differ only in the polynomial. Slicing-by-8 tables are built at
//! compile time, so there is nothing to initialise and nothing to allocate.

/// A reflected 32-bit CRC with its slicing-by-8 tables.
#[derive(Debug)]
pub struct Crc32Kind {
    tables: [[u32; 256]; 8],
}

#[allow(clippy::cast_possible_truncation)] // indices are below 256
const fn make_tables(poly: u32) -> [[u32; 256]; 8] {
    let mut tables = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ poly
            } else {
                crc >> 1
            };
            bit += 1;
        }
        tables[0][i] = crc;
        i += 1;
    }
    let mut t = 1;
    while t < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = tables[t - 1][i];
            tables[t][i] = (prev >> 8) ^ tables[0][(prev & 0xFF) as usize];
            i += 1;
        }
        t += 1;
    }
    tables
}

/// CRC-32 as in gzip, zlib's `crc32`, PNG (polynomial 0xEDB88320 reflected).
pub static CRC32: Crc32Kind = Crc32Kind {
    tables: make_tables(0xEDB8_8320),
};

/// CRC-32C (Castagnoli, polynomial 0x82F63B78 reflected), as Zarr's `crc32c` codec.
pub static CRC32C: Crc32Kind = Crc32Kind {
    tables: make_tables(0x82F6_3B78),
};

/// A running CRC. Feed bytes in pieces of any size; the value does not depend on the split.
#[derive(Debug, Clone, Copy)]
pub struct Crc32 {
    kind: &'static Crc32Kind,
    state: u32,
}

impl Crc32 {
    /// A CRC of nothing yet.
    pub fn new(kind: &'static Crc32Kind) -> Self {
        Self {
            kind,
            state: 0xFFFF_FFFF,
        }
    }

    /// Adds `data` to the checksum.
    pub fn update(&mut self, data: &[u8]) {
        let [t0, t1, t2, t3, t4, t5, t6, t7] = &self.kind.tables;
        let mut crc = self.state;
        let mut chunks = data.chunks_exact(8);
        for c in &mut chunks {
            let lo = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) ^ crc;
            crc = t7[(lo & 0xFF) as usize]
                ^ t6[((lo >> 8) & 0xFF) as usize]
                ^ t5[((lo >> 16) & 0xFF) as usize]
                ^ t4[(lo >> 24) as usize]
                ^ t3[c[4] as usize]
                ^ t2[c[5] as usize]
                ^ t1[c[6] as usize]
                ^ t0[c[7] as usize];
        }
        for &b in chunks.remainder() {
            crc = (crc >> 8) ^ t0[((crc ^ u32::from(b)) & 0xFF) as usize];
        }
        self.state = crc;
    }

    /// The checksum of everything added so far.
    pub fn value(&self) -> u32 {
        !self.state
    }
}

/// The CRC of `data` in one call.
pub fn checksum(kind: &'static Crc32Kind, data: &[u8]) -> u32 {
    let mut c = Crc32::new(kind);
    c.update(data);
    c.value()
}
