//! Customers: what makes two email addresses the same customer.

use unicode_normalization::UnicodeNormalization as _;

/// The key under which a customer's email is unique within a tenant
/// (decision D7): trimmed; invisible characters (zero-width spaces and
/// joiners, the word joiner, the byte order mark, the soft hyphen) removed;
/// in Unicode normalisation form NFKC, so that composed and decomposed
/// accents, and full-width and ordinary letters, are one spelling; and
/// lower-cased.
pub fn email_key(email: &str) -> String {
    email
        .trim()
        .chars()
        .filter(|c| !is_invisible(*c))
        .nfkc()
        .flat_map(char::to_lowercase)
        .collect()
}

/// Characters that show nothing and that no one types on purpose in an
/// address.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{180E}' | '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::email_key;

    #[test]
    fn emails_differing_in_case_are_one_customer() {
        assert_eq!(
            email_key(" Elif.Yilmaz@Example.com "),
            "elif.yilmaz@example.com"
        );
    }

    #[test]
    fn composed_and_decomposed_accents_are_one_customer() {
        assert_eq!(
            email_key("caf\u{e9}@example.com"),
            email_key("cafe\u{301}@example.com")
        );
    }

    #[test]
    fn full_width_letters_and_zero_width_spaces_are_one_customer() {
        assert_eq!(email_key("ｃａｆｅ＠example.com"), "cafe@example.com");
        assert_eq!(
            email_key("ca\u{200B}fe@exa\u{FEFF}mple.com"),
            "cafe@example.com"
        );
    }

    #[test]
    fn different_letters_stay_different() {
        assert_ne!(email_key("cafe@example.com"), email_key("café@example.com"));
    }
}
