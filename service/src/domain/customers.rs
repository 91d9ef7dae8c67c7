//! Customers: what makes two email addresses the same customer.

/// The key under which a customer's email is unique within a tenant:
/// trimmed and lower-cased (decisions D7).
pub fn email_key(email: &str) -> String {
    email.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    #[test]
    fn emails_differing_in_case_are_one_customer() {
        assert_eq!(
            super::email_key(" Elif.Yilmaz@Example.com "),
            "elif.yilmaz@example.com"
        );
    }
}
