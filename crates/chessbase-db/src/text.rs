//! Strings, dates and nations as ChessBase stores them.

use std::fmt;

use encoding_rs::Encoding;

/// How the texts of a database that are not UTF-8 (names, comments: ChessBase writes them in
/// the writer's Windows code page, and the format does not say which) are decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextEncoding {
    /// Guessed from the database's texts (chardetng, among the Windows code pages); Windows-
    /// 1252 when nothing tells.
    #[default]
    Detect,
    /// This code page, as the user says (e.g. `encoding_rs::WINDOWS_1251` for a Russian
    /// database).
    Fixed(&'static Encoding),
}

impl TextEncoding {
    /// The encoding named `label` (a WHATWG label: `windows-1251`, `cp1251`, `latin2`, …).
    pub fn from_label(label: &str) -> Option<TextEncoding> {
        Encoding::for_label(label.as_bytes()).map(TextEncoding::Fixed)
    }
}

/// Guesses the Windows code page of texts (each the bytes of one text field, as stored):
/// chardetng is given the texts that are not UTF-8 and hold bytes above 0x7F; its guess is
/// kept when it is a Windows code page and chardetng rates it above another candidate, else
/// (and with nothing to go on) Windows-1252.
pub fn detect_code_page<'a>(texts: impl IntoIterator<Item = &'a [u8]>) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new();
    let mut any = false;
    for t in texts {
        if t.iter().any(|&b| b >= 0x80) && std::str::from_utf8(t).is_err() {
            detector.feed(t, false);
            detector.feed(b"\n", false);
            any = true;
        }
    }
    if !any {
        return encoding_rs::WINDOWS_1252;
    }
    detector.feed(b"", true);
    match detector.guess_assess(None, false) {
        (guess, true) if guess.name().starts_with("windows-125") => guess,
        _ => encoding_rs::WINDOWS_1252,
    }
}

/// Runs of what looks like text in binary data (at least 8 bytes, printable or above 0x7F,
/// holding a byte above 0x7F): the samples of annotation texts that the code page guess
/// reads from a `.cba` without decoding its records.
pub(crate) fn text_runs(data: &[u8]) -> Vec<&[u8]> {
    let texty = |b: u8| b >= 0x20 && b != 0x7f;
    data.split(|&b| !texty(b))
        .filter(|r| r.len() >= 8 && r.iter().any(|&b| b >= 0x80))
        .collect()
}

/// The stored bytes of a text decoded as Windows-1252 (which maps every byte to its own
/// character, so nothing is lost); `None` for text that came from UTF-8 with characters
/// Windows-1252 lacks.
pub(crate) fn windows_1252_bytes(s: &str) -> Option<Vec<u8>> {
    let (bytes, _, lossy) = encoding_rs::WINDOWS_1252.encode(s);
    (!lossy).then(|| bytes.into_owned())
}

/// Text in `code_page` where it can be, else UTF-8 (which readers try first): bytes that
/// would read back as other text are never written (the writer's side of [`decode_text`]).
pub fn encode_text(s: &str, code_page: &'static Encoding) -> Vec<u8> {
    if s.is_ascii() {
        return s.as_bytes().to_vec();
    }
    let (bytes, _, lossy) = code_page.encode(s);
    if lossy || std::str::from_utf8(&bytes).is_ok() {
        s.as_bytes().to_vec()
    } else {
        bytes.into_owned()
    }
}

/// Decodes a text: UTF-8 when the bytes are valid UTF-8, else `code_page` (the database's,
/// see [`TextEncoding`]; a PGN import's per-field fallback).
pub fn decode_text(bytes: &[u8], code_page: &'static Encoding) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => code_page.decode_without_bom_handling(bytes).0.into_owned(),
    }
}

/// Decodes a fixed-size string field: the bytes up to the first NUL (the rest of the field
/// may hold leftovers), UTF-8 when valid, else `code_page`.
pub fn decode_field(field: &[u8], code_page: &'static Encoding) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    decode_text(&field[..end], code_page)
}

/// A date whose year, month and day may each be unknown (stored as 0).
///
/// Stored in 21 bits: day in bits 0–4, month in bits 5–8, year in bits 9–20.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    /// The year, 0 when unknown.
    pub year: u16,
    /// The month 1–12, 0 when unknown.
    pub month: u8,
    /// The day 1–31, 0 when unknown.
    pub day: u8,
}

impl Date {
    /// Unpacks a stored date.
    pub fn from_bits(v: u32) -> Date {
        Date {
            year: ((v >> 9) & 0xfff) as u16,
            month: ((v >> 5) & 0xf) as u8,
            day: (v & 0x1f) as u8,
        }
    }

    /// Packs the date as stored.
    pub fn to_bits(self) -> u32 {
        (u32::from(self.year) & 0xfff) << 9
            | (u32::from(self.month) & 0xf) << 5
            | (u32::from(self.day) & 0x1f)
    }

    /// Whether every part is unknown.
    pub fn is_unknown(self) -> bool {
        self.year == 0 && self.month == 0 && self.day == 0
    }
}

/// The decimal digits of `n`, padded with zeros to `width` digits: a buffer and where the
/// digits start in it.
fn decimal(n: u32, width: usize) -> ([u8; 10], usize) {
    let mut digits = [b'0'; 10];
    // Months, days and move numbers: one or two digits without the loop.
    if n < 100 {
        digits[8] = b'0' + (n / 10) as u8;
        digits[9] = b'0' + (n % 10) as u8;
        let first = if n < 10 { 9 } else { 8 };
        return (digits, first.min(10usize.saturating_sub(width)));
    }
    let mut i = digits.len();
    let mut v = n;
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    (digits, i.min(digits.len().saturating_sub(width)))
}

/// Appends `n` in decimal, padded with zeros to `width` digits.
pub(crate) fn push_decimal(s: &mut String, n: u32, width: usize) {
    let (digits, start) = decimal(n, width);
    for &d in &digits[start..] {
        s.push(char::from(d));
    }
}

impl Date {
    /// Appends the PGN form (see the `Display` implementation) without the formatting
    /// machinery.
    pub(crate) fn push_pgn(self, s: &mut String) {
        match self.year {
            0 => s.push_str("????"),
            y => push_decimal(s, u32::from(y), 4),
        }
        for part in [self.month, self.day] {
            s.push('.');
            match part {
                0 => s.push_str("??"),
                v => push_decimal(s, u32::from(v), 2),
            }
        }
    }
}

/// The PGN form `YYYY.MM.DD` with `?` for unknown parts.
impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::with_capacity(10);
        self.push_pgn(&mut s);
        f.write_str(&s)
    }
}

/// Three-letter abbreviations of the nations, indexed from 1 (0 = no nation).
const NATIONS: [&str; 247] = [
    "AFG", "ALB", "ALG", "AND", "ANG", "ANT", "ARG", "ARM", "AUS", "AZE", "BAH", "BHN", "BAN",
    "BAR", "BLR", "BEL", "BLZ", "BER", "BOL", "BIH", "BOT", "BRA", "IVB", "BRU", "BUL", "BUR",
    "CAN", "CHI", "CHN", "COL", "CRI", "CRO", "CUB", "CYP", "CZE", "DEN", "DJI", "DOM", "ECU",
    "EGY", "ESP", "EST", "ETH", "FAI", "FIJ", "FIN", "FRM", "GAM", "GEO", "GHA", "GRE", "GUA",
    "GCI", "GUY", "HAI", "HON", "HKG", "HUN", "ISL", "IND", "INA", "IRI", "IRQ", "IRL", "ITA",
    "IVO", "JAM", "JPN", "JCI", "JOR", "KAZ", "KEN", "KOR", "KGZ", "KUW", "LAT", "LBN", "LBY",
    "LIE", "LTU", "LUX", "MAC", "MAD", "MAS", "MLI", "MLT", "MAU", "MRI", "MEX", "MDA", "MNC",
    "MGL", "MAR", "MOZ", "MYA", "NAM", "NEP", "AHO", "NZL", "NCA", "NGR", "NOR", "PAK", "PLE",
    "PAN", "PNG", "PAR", "PER", "PHI", "POL", "POR", "PUR", "QAT", "ROM", "RUS", "ESA", "SMR",
    "SCO", "SEY", "SIN", "SVK", "SLO", "RSA", "SRI", "SUD", "SUR", "SWE", "SUI", "SYR", "TJK",
    "TAN", "THA", "TRI", "TUN", "TUR", "TKM", "UGA", "UKR", "UAE", "URU", "URS", "UZB", "VEN",
    "VIE", "ISV", "WLS", "YEM", "YUG", "ZAM", "ZIM", "ZRE", "DDR", "CSR", "CHD", "CAM", "KAP",
    "KBA", "COM", "CON", "NKO", "LAO", "LES", "MWI", "MDV", "MSH", "OMN", "NAU", "MIC", "NIG",
    "SAU", "TOG", "TON", "VAN", "VAT", "TUV", "SWA", "SIE", "SLU", "PAP", "SVI", "SKI", "SAL",
    "GE2", "ZAR", "RWA", "LBR", "NET", "TWN", "ASU", "AGG", "ARN", "BNN", "BTN", "BRI", "CMB",
    "CAY", "CAR", "CIA", "COA", "CIN", "ELG", "ERI", "FGB", "FRG", "FRP", "GAB", "GGB", "GRA",
    "GRL", "FGA", "GMA", "GUI", "GUB", "IOM", "JMY", "MFR", "MYF", "MSG", "NCF", "NNN", "NNA",
    "NMI", "OTM", "PAL", "PIG", "RUF", "SAO", "SOM", "SVN", "HGB", "PGB", "TKI", "TCI", "WFR",
    "NIR", "ISS", "GBR", "SAA", "MNT", "SER", "CAT", "BAS", "KOS", "CRC", "LBA", "LEB", "LIB",
];

/// The three-letter abbreviation of a stored nation number (`None` for 0 or unknown numbers).
pub fn nation(code: u8) -> Option<&'static str> {
    NATIONS.get(usize::from(code).checked_sub(1)?).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_fall_back_to_windows_1252() {
        let latin = encoding_rs::WINDOWS_1252;
        assert_eq!(decode_field(b"Caf\xc3\xa9\0junk", latin), "Café");
        assert_eq!(decode_field(b"Caf\xe9\0\xff", latin), "Café");
        assert_eq!(decode_field(b"full", latin), "full");
    }

    /// The hand-written digits are `format!`'s, padded or not, at every width and size.
    #[test]
    fn decimals_are_formats() {
        for n in (0u32..=1000).chain([2024, 4095, 65535, u32::MAX]) {
            for width in 0..=4 {
                let mut s = String::new();
                push_decimal(&mut s, n, width);
                assert_eq!(s, format!("{n:0width$}"));
            }
        }
        for bits in (0..1u32 << 21).step_by(997) {
            let d = Date::from_bits(bits);
            let want = format!(
                "{}.{}.{}",
                if d.year == 0 {
                    "????".into()
                } else {
                    format!("{:04}", d.year)
                },
                if d.month == 0 {
                    "??".into()
                } else {
                    format!("{:02}", d.month)
                },
                if d.day == 0 {
                    "??".into()
                } else {
                    format!("{:02}", d.day)
                },
            );
            assert_eq!(d.to_string(), want);
        }
    }

    #[test]
    fn dates_round_trip_and_print() {
        let d = Date {
            year: 2002,
            month: 7,
            day: 11,
        };
        assert_eq!(Date::from_bits(d.to_bits()), d);
        assert_eq!(d.to_string(), "2002.07.11");
        assert_eq!(
            Date {
                year: 1999,
                month: 0,
                day: 0
            }
            .to_string(),
            "1999.??.??"
        );
        assert_eq!(Date::default().to_string(), "????.??.??");
    }

    #[test]
    fn nations() {
        assert_eq!(nation(1), Some("AFG"));
        assert_eq!(nation(247), Some("LIB"));
        assert_eq!(nation(0), None);
        assert_eq!(nation(248), None);
    }
}

#[cfg(test)]
mod encoding_tests {
    use super::*;

    #[test]
    fn code_pages_are_guessed_from_the_texts() {
        let russian = "Шахматная партия: Каспаров против Карпова, защита Грюнфельда";
        let (cp1251, _, _) = encoding_rs::WINDOWS_1251.encode(russian);
        let words: Vec<&[u8]> = cp1251.split(|&b| b == b' ').collect();
        assert_eq!(detect_code_page(words), encoding_rs::WINDOWS_1251);
        let french = "Défense française, variante Winawer: Müller – Sørensen, échecs";
        let (cp1252, _, _) = encoding_rs::WINDOWS_1252.encode(french);
        assert_eq!(detect_code_page([&cp1252[..]]), encoding_rs::WINDOWS_1252);
        assert_eq!(
            detect_code_page([&b"plain ascii \x00\x01"[..]]),
            encoding_rs::WINDOWS_1252
        );
        // Decoding follows the code page given, and UTF-8 stays UTF-8.
        let word = encoding_rs::WINDOWS_1251.encode("Каспаров").0.into_owned();
        assert_eq!(decode_text(&word, encoding_rs::WINDOWS_1251), "Каспаров");
        assert_ne!(decode_text(&word, encoding_rs::WINDOWS_1252), "Каспаров");
        assert_eq!(
            decode_text("Dvořák".as_bytes(), encoding_rs::WINDOWS_1251),
            "Dvořák"
        );
        assert_eq!(
            TextEncoding::from_label("cp1251"),
            Some(TextEncoding::Fixed(encoding_rs::WINDOWS_1251))
        );
    }
}
