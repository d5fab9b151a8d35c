//! Strings, dates and nations as ChessBase stores them.

use std::fmt;

/// Decodes a text: UTF-8 when the bytes are valid UTF-8, else Windows-1252.
pub fn decode_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => encoding_rs::WINDOWS_1252
            .decode_without_bom_handling(bytes)
            .0
            .into_owned(),
    }
}

/// Decodes a fixed-size string field: the bytes up to the first NUL (the rest of the field
/// may hold leftovers), UTF-8 when valid, else Windows-1252.
pub fn decode_field(field: &[u8]) -> String {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    decode_text(&field[..end])
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

/// The PGN form `YYYY.MM.DD` with `?` for unknown parts.
impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.year {
            0 => f.write_str("????")?,
            y => write!(f, "{y:04}")?,
        }
        match self.month {
            0 => f.write_str(".??")?,
            m => write!(f, ".{m:02}")?,
        }
        match self.day {
            0 => f.write_str(".??"),
            d => write!(f, ".{d:02}"),
        }
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
        assert_eq!(decode_field(b"Caf\xc3\xa9\0junk"), "Café");
        assert_eq!(decode_field(b"Caf\xe9\0\xff"), "Café");
        assert_eq!(decode_field(b"full"), "full");
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
