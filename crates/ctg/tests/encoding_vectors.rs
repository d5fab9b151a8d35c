//! The CTG encoding vectors (testdata/chess-core/ctg-encoding-vectors.csv, derived from
//! ../shared/corpus/ctg/vectors/encoding-vectors.csv) through normalisation and the CTG framing.

use chess_core::{huffman::HuffmanPosition, normalize::normalize};
use ctg::position::{decode, encode, key_of};
use shakmaty::{CastlingMode, Chess, fen::Fen};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn ctg_encoding_vectors() {
    let csv = include_str!("../../../testdata/chess-core/ctg-encoding-vectors.csv");
    let mut rows = 0;
    for line in csv.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let [fen, encoded, _hash, mirrored, flipped] = cols[..] else {
            panic!("bad row {line}");
        };
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let n = normalize(&pos);
        assert_eq!(n.transform.mirror_files, mirrored == "1", "{fen}");
        assert_eq!(n.transform.flip_colors, flipped == "1", "{fen}");
        let hp = HuffmanPosition::from_position(&n.position);
        let bytes = encode(&hp);
        assert_eq!(bytes, hex(encoded), "{fen}");
        // The allocation-free key of the real position is the same bytes.
        assert_eq!(key_of(&pos).unwrap().as_bytes(), &bytes[..], "{fen}");
        let (decoded, len) = decode(&bytes).unwrap();
        assert_eq!(len, bytes.len());
        assert_eq!(decoded, hp, "{fen}");
        rows += 1;
    }
    assert_eq!(rows, 10);
}
