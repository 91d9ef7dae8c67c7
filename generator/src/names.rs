//! Rust names for what the document names: `heck` for the casing, keywords
//! escaped, collisions resolved deterministically (first come, first served;
//! later ones get a number).

use std::collections::HashSet;

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Rust's keywords, strict and reserved, which cannot name a field or function.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Names the generated code uses unqualified (the prelude), which a type of the
/// API must not shadow.
const RESERVED_TYPES: &[&str] = &[
    "Self",
    "Option",
    "Some",
    "None",
    "Result",
    "Ok",
    "Err",
    "String",
    "Vec",
    "Box",
    "Default",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "Into",
    "Iterator",
    "IntoIterator",
    "ToString",
    "ToOwned",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "AsRef",
    "AsMut",
    "Extend",
    // Imported by every models module (`use crate::validation::{self, Null, Path, Report}`).
    "Null",
    "Path",
    "Report",
];

/// A type or variant name (UpperCamelCase) for `raw`.
pub fn type_name(raw: &str) -> String {
    let name = ident_base(raw).to_upper_camel_case();
    let name = if name.is_empty() {
        "Value".to_owned()
    } else {
        name
    };
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{name}")
    } else {
        name
    };
    if RESERVED_TYPES.contains(&name.as_str()) {
        format!("{name}Model")
    } else {
        name
    }
}

/// A field, parameter or function name (snake_case) for `raw`.
pub fn field_name(raw: &str) -> String {
    let name = ident_base(raw).to_snake_case();
    let name = if name.is_empty() {
        "value".to_owned()
    } else {
        name
    };
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("n{name}")
    } else {
        name
    };
    if KEYWORDS.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    }
}

/// `name` (a [`field_name`]) with `_suffix`, without the underscore that
/// kept a keyword apart: `move_` and `with_response` give
/// `move_with_response`, not `move__with_response`, which is not snake case.
pub fn suffixed(name: &str, suffix: &str) -> String {
    format!("{}_{suffix}", name.trim_end_matches('_'))
}

/// Spells out signs that would otherwise vanish (`+1` and `-1` must not both become `1`),
/// and keeps only what can be part of an identifier.
fn ident_base(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for (i, c) in raw.chars().enumerate() {
        match c {
            '+' if i == 0 => out.push_str("plus "),
            '-' if i == 0 => out.push_str("minus "),
            c if c.is_ascii_alphanumeric() => out.push(c),
            // Rust identifiers may hold non-ASCII letters, but code that names
            // them is hard to type on most keyboards: a Latin letter with a
            // diacritic is written as its letter (`Größe` as `Grosse`, `şehir`
            // as `sehir`), and the letters of other alphabets are dropped.
            c if c.is_alphanumeric() => out.push_str(latin_letters(c).unwrap_or_default()),
            '_' => out.push('_'),
            _ => out.push(' '),
        }
    }
    out
}

/// The ASCII letters that write `c`, a letter of the Latin-1 or Latin
/// Extended-A blocks (Western and Central European languages, Turkish,
/// Romanian), without its diacritic: `é` as `e`, `ß` as `ss`, `ı` as `i`.
fn latin_letters(c: char) -> Option<&'static str> {
    Some(match c {
        'À'..='Å' | 'Ā' | 'Ă' | 'Ą' => "A",
        'à'..='å' | 'ā' | 'ă' | 'ą' => "a",
        'Æ' => "Ae",
        'æ' => "ae",
        'Ç' | 'Ć' | 'Ĉ' | 'Ċ' | 'Č' => "C",
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
        'Ð' | 'Ď' | 'Đ' => "D",
        'ð' | 'ď' | 'đ' => "d",
        'È'..='Ë' | 'Ē' | 'Ĕ' | 'Ė' | 'Ę' | 'Ě' => "E",
        'è'..='ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'Ĝ' | 'Ğ' | 'Ġ' | 'Ģ' => "G",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
        'Ĥ' | 'Ħ' => "H",
        'ĥ' | 'ħ' => "h",
        'Ì'..='Ï' | 'Ĩ' | 'Ī' | 'Ĭ' | 'Į' | 'İ' => "I",
        'ì'..='ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
        'Ĳ' => "Ij",
        'ĳ' => "ij",
        'Ĵ' => "J",
        'ĵ' => "j",
        'Ķ' => "K",
        'ķ' | 'ĸ' => "k",
        'Ĺ' | 'Ļ' | 'Ľ' | 'Ŀ' | 'Ł' => "L",
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
        'Ñ' | 'Ń' | 'Ņ' | 'Ň' | 'Ŋ' => "N",
        'ñ' | 'ń' | 'ņ' | 'ň' | 'ŉ' | 'ŋ' => "n",
        'Ò'..='Ö' | 'Ø' | 'Ō' | 'Ŏ' | 'Ő' => "O",
        'ò'..='ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => "o",
        'Œ' => "Oe",
        'œ' => "oe",
        'Ŕ' | 'Ŗ' | 'Ř' => "R",
        'ŕ' | 'ŗ' | 'ř' => "r",
        'Ś' | 'Ŝ' | 'Ş' | 'Š' | 'Ș' => "S",
        'ś' | 'ŝ' | 'ş' | 'š' | 'ș' | 'ſ' => "s",
        'ß' => "ss",
        'Ţ' | 'Ť' | 'Ŧ' | 'Ț' => "T",
        'ţ' | 'ť' | 'ŧ' | 'ț' => "t",
        'Þ' => "Th",
        'þ' => "th",
        'Ù'..='Ü' | 'Ũ' | 'Ū' | 'Ŭ' | 'Ů' | 'Ű' | 'Ų' => "U",
        'ù'..='ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
        'Ŵ' => "W",
        'ŵ' => "w",
        'Ý' | 'Ŷ' | 'Ÿ' => "Y",
        'ý' | 'ÿ' | 'ŷ' => "y",
        'Ź' | 'Ż' | 'Ž' => "Z",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

/// A set of names already taken in one scope.
#[derive(Debug, Default, Clone)]
pub struct Namespace {
    taken: HashSet<String>,
}

impl Namespace {
    /// A namespace in which `reserved` are already taken.
    pub fn with_reserved(reserved: &[&str]) -> Self {
        Namespace {
            taken: reserved.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// Takes `name`, or `name2`, `name3`, … when it is taken.
    pub fn claim(&mut self, name: String) -> String {
        if self.taken.insert(name.clone()) {
            return name;
        }
        let separator = if name.ends_with(|c: char| c.is_ascii_digit()) {
            "_"
        } else {
            ""
        };
        let mut n = 2;
        loop {
            let candidate = format!("{name}{separator}{n}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }

    /// Whether `name` is taken.
    pub fn contains(&self, name: &str) -> bool {
        self.taken.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_names_and_escapes_keywords() {
        assert_eq!(type_name("receivingOrder"), "ReceivingOrder");
        assert_eq!(type_name("application/json"), "ApplicationJson");
        assert_eq!(type_name("Result"), "ResultModel");
        assert_eq!(type_name("2xx"), "V2xx");
        assert_eq!(type_name("+1"), "Plus1");
        assert_eq!(type_name("-1"), "Minus1");
        assert_eq!(type_name(""), "Value");
        assert_eq!(field_name("referenceNumber"), "reference_number");
        assert_eq!(field_name("type"), "type_");
        assert_eq!(field_name("X-Tenant-Id"), "x_tenant_id");
        assert_eq!(field_name("2fa"), "n2fa");
        assert_eq!(field_name("$ref"), "ref_");
    }

    /// A name made from a keyword's escaped form stays snake case.
    #[test]
    fn a_suffix_replaces_a_keywords_escape() {
        assert_eq!(suffixed("move_", "with_response"), "move_with_response");
        assert_eq!(suffixed("type_", "credential"), "type_credential");
        assert_eq!(suffixed("list_items", "stream"), "list_items_stream");
    }

    #[test]
    fn only_a_leading_sign_is_spelled_out() {
        // Inside a name, `+` and `-` separate words, as in media types and
        // headers; only a sign in front is a value's sign (`+1`, `-1`).
        assert_eq!(
            type_name("application/vnd.api+json"),
            "ApplicationVndApiJson"
        );
        assert_eq!(type_name("merge-patch+json"), "MergePatchJson");
        assert_eq!(field_name("1+1"), "n1_1");
        assert_eq!(field_name("x-1"), "x_1");
        assert_eq!(field_name("-x"), "minus_x");
        assert_eq!(field_name("+x"), "plus_x");
    }

    #[test]
    fn a_latin_letter_with_a_diacritic_is_written_as_its_letter() {
        assert_eq!(field_name("Größe"), "grosse");
        assert_eq!(field_name("şehirAdı"), "sehir_adi");
        assert_eq!(field_name("Resolução"), "resolucao");
        assert_eq!(type_name("ÁKK"), "Akk");
        assert_eq!(type_name("İptalEdildi"), "IptalEdildi");
        assert_eq!(type_name("Ödendi"), "Odendi");
        // Distinct on the wire, distinct in Rust: `Çok` is not `Ok`.
        assert_ne!(type_name("Çok"), type_name("Ok"));
        // Letters of other alphabets have no such spelling, and are dropped.
        assert_eq!(field_name("цена"), "value");
        assert_eq!(field_name("price_цена"), "price");
    }

    #[test]
    fn a_symbol_separates_words_even_when_it_is_not_ascii() {
        // A symbol is a word boundary, whatever its alphabet: the words
        // either side must not run together.
        assert_eq!(field_name("price€total"), "price_total");
        assert_eq!(type_name("net–weight"), "NetWeight");
        assert_eq!(field_name("net–weight"), "net_weight");
        assert_eq!(field_name("café"), "cafe");
    }

    #[test]
    fn resolves_collisions_in_order() {
        let mut ns = Namespace::default();
        assert_eq!(ns.claim("FooBar".into()), "FooBar");
        assert_eq!(ns.claim("FooBar".into()), "FooBar2");
        assert_eq!(ns.claim("FooBar".into()), "FooBar3");
        assert_eq!(ns.claim("V1".into()), "V1");
        assert_eq!(ns.claim("V1".into()), "V1_2");
    }

    /// Every letter of Latin-1 and Latin Extended-A that the transliteration
    /// knows, by what it writes; other characters write nothing.
    #[test]
    fn latin_letters_are_written_without_their_diacritics() {
        let table = [
            ("ÀÁÂÃÄÅĀĂĄ", "A"),
            ("àáâãäåāăą", "a"),
            ("Æ", "Ae"),
            ("æ", "ae"),
            ("ÇĆĈĊČ", "C"),
            ("çćĉċč", "c"),
            ("ÐĎĐ", "D"),
            ("ðďđ", "d"),
            ("ÈÉÊËĒĔĖĘĚ", "E"),
            ("èéêëēĕėęě", "e"),
            ("ĜĞĠĢ", "G"),
            ("ĝğġģ", "g"),
            ("ĤĦ", "H"),
            ("ĥħ", "h"),
            ("ÌÍÎÏĨĪĬĮİ", "I"),
            ("ìíîïĩīĭįı", "i"),
            ("Ĳ", "Ij"),
            ("ĳ", "ij"),
            ("Ĵ", "J"),
            ("ĵ", "j"),
            ("Ķ", "K"),
            ("ķĸ", "k"),
            ("ĹĻĽĿŁ", "L"),
            ("ĺļľŀł", "l"),
            ("ÑŃŅŇŊ", "N"),
            ("ñńņňŉŋ", "n"),
            ("ÒÓÔÕÖØŌŎŐ", "O"),
            ("òóôõöøōŏő", "o"),
            ("Œ", "Oe"),
            ("œ", "oe"),
            ("ŔŖŘ", "R"),
            ("ŕŗř", "r"),
            ("ŚŜŞŠȘ", "S"),
            ("śŝşšșſ", "s"),
            ("ß", "ss"),
            ("ŢŤŦȚ", "T"),
            ("ţťŧț", "t"),
            ("Þ", "Th"),
            ("þ", "th"),
            ("ÙÚÛÜŨŪŬŮŰŲ", "U"),
            ("ùúûüũūŭůűų", "u"),
            ("Ŵ", "W"),
            ("ŵ", "w"),
            ("ÝŶŸ", "Y"),
            ("ýÿŷ", "y"),
            ("ŹŻŽ", "Z"),
            ("źżž", "z"),
        ];
        for (letters, ascii) in table {
            for letter in letters.chars() {
                assert_eq!(latin_letters(letter), Some(ascii), "{letter}");
            }
        }
        for other in ['a', 'Z', '7', '×', '÷', 'Ω', 'ж', '中'] {
            assert_eq!(latin_letters(other), None, "{other}");
        }
    }
}
