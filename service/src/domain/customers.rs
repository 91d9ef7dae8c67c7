//! Customers: what makes two email addresses the same customer, how
//! customers and their addresses are numbered, and creating one.

use logistics_models::{Address, Customer, CustomerInput};
use uuid::Uuid;

use super::DomainError;
use super::repository::{CustomerRepository, CustomerRules, NewCustomer, Numbering, Result};

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

/// The customers' rules, as stores apply them inside their transactions.
pub const RULES: CustomerRules = CustomerRules {
    email_key,
    number,
    address_number,
    same_place,
};

/// A new customer's number: the tenant's next, one after its last, so that
/// numbers have no gaps; refused when the email is taken (decisions D7).
pub fn number(numbering: Numbering) -> Result<i32> {
    if let Some(existing) = numbering.same_email {
        return Err(DomainError::Conflict {
            property: "email",
            code: "ResourceAlreadyExists",
            message: format!("A customer with this email already exists (customerNo {existing})."),
        });
    }
    numbering.last.checked_add(1).ok_or_else(|| {
        DomainError::Internal("the tenant has used every customer number".to_owned())
    })
}

/// A new address's number: one after the customer's last.
pub fn address_number(last: i32) -> i32 {
    last.saturating_add(1)
}

/// Whether two addresses are the same place (ids and numbers aside).
pub fn same_place(a: &Address, b: &Address) -> bool {
    a.address_first_name == b.address_first_name
        && a.address_last_name == b.address_last_name
        && a.company == b.company
        && a.address_one == b.address_one
        && a.address_two == b.address_two
        && a.district == b.district
        && a.city == b.city
        && a.postal_code == b.postal_code
        && a.country == b.country
        && a.address_phone == b.address_phone
        && a.tax_office == b.tax_office
        && a.tax_number == b.tax_number
}

/// `createCustomer`: the customer with the tenant's next number.
pub async fn create(
    repository: &impl CustomerRepository,
    tenant: Uuid,
    input: &CustomerInput,
) -> Result<Customer> {
    let customer = NewCustomer {
        email: input.email.clone(),
        email_key: email_key(&input.email),
        first_name: input.first_name.clone(),
        last_name: input.last_name.clone(),
        phone: input.phone.clone(),
        created_at: super::now(),
    };
    repository.insert_customer(tenant, &customer, &RULES).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_differing_in_case_are_one_customer() {
        assert_eq!(
            email_key(" Elif.Yilmaz@Example.com "),
            "elif.yilmaz@example.com"
        );
    }

    #[test]
    fn customers_are_numbered_after_the_last_unless_the_email_is_taken() {
        let fresh = Numbering {
            last: 0,
            same_email: None,
        };
        assert_eq!(number(fresh).unwrap(), 1);
        let later = Numbering {
            last: 41,
            same_email: None,
        };
        assert_eq!(number(later).unwrap(), 42);
        let taken = Numbering {
            last: 41,
            same_email: Some(7),
        };
        assert!(matches!(
            number(taken),
            Err(DomainError::Conflict {
                code: "ResourceAlreadyExists",
                ..
            })
        ));
        assert_eq!(address_number(2), 3);
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

/// What makes an order's address the customer's existing one: every field of
/// the place alike, ids and numbers aside (a new address is stored otherwise).
#[cfg(test)]
mod same_place_tests {
    use super::*;

    fn address() -> Address {
        Address::new(1, Uuid::from_u128(1))
            .with_address_first_name("Elif")
            .with_address_last_name("Yilmaz")
            .with_company("Acme")
            .with_address_one("Bagdat Cd. 1")
            .with_address_two("Daire 2")
            .with_district("Kadikoy")
            .with_city("Istanbul")
            .with_postal_code("34710")
            .with_country("TR")
            .with_address_phone("+905551112233")
            .with_tax_office("Kadikoy VD")
            .with_tax_number("1234567890")
    }

    #[test]
    fn the_same_place_is_every_field_alike_whatever_its_id_and_number() {
        let stored = address();
        let mut again = address();
        again.address_no = 2;
        again.id = Uuid::from_u128(2);
        assert!(same_place(&stored, &again));
        type Field = fn(&mut Address) -> &mut Option<String>;
        let fields: [(&str, Field); 12] = [
            ("addressFirstName", |a| &mut a.address_first_name),
            ("addressLastName", |a| &mut a.address_last_name),
            ("company", |a| &mut a.company),
            ("addressOne", |a| &mut a.address_one),
            ("addressTwo", |a| &mut a.address_two),
            ("district", |a| &mut a.district),
            ("city", |a| &mut a.city),
            ("postalCode", |a| &mut a.postal_code),
            ("country", |a| &mut a.country),
            ("addressPhone", |a| &mut a.address_phone),
            ("taxOffice", |a| &mut a.tax_office),
            ("taxNumber", |a| &mut a.tax_number),
        ];
        for (name, field) in fields {
            let mut other = address();
            *field(&mut other) = Some("elsewhere".to_owned());
            assert!(!same_place(&stored, &other), "{name} differs");
            *field(&mut other) = None;
            assert!(!same_place(&stored, &other), "{name} absent");
        }
    }
}
