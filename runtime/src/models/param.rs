//! Parameters as text: [`FromParam`] parses one value of a path, query,
//! header or cookie parameter (already percent-decoded) into its type.
//!
//! Implemented here for text, booleans, numbers, UUIDs and dates; the models
//! crate implements it for its enums and newtypes.

use std::borrow::Cow;

use super::validation::UnknownEnumValue;

/// Why a parameter's text is not a value of its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    /// What is wrong, such as `must be an integer`.
    pub message: Cow<'static, str>,
    /// The error code, such as `InvalidType`.
    pub code: &'static str,
}

impl ParamError {
    /// A parameter of the wrong type (`InvalidType`).
    pub fn invalid_type(message: &'static str) -> Self {
        ParamError {
            message: Cow::Borrowed(message),
            code: "InvalidType",
        }
    }

    /// A parameter of the right type in the wrong format (`InvalidFormat`).
    pub fn invalid_format(message: &'static str) -> Self {
        ParamError {
            message: Cow::Borrowed(message),
            code: "InvalidFormat",
        }
    }

    /// A value that is not among an enum's (`InvalidEnumValue`).
    pub fn from_enum(error: UnknownEnumValue) -> Self {
        ParamError {
            message: Cow::Owned(format!("must be one of: {}", error.expected.join(", "))),
            code: "InvalidEnumValue",
        }
    }
}

/// A type a parameter's text parses into.
pub trait FromParam: Sized {
    /// Parses one value (already percent-decoded).
    fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError>;
}

impl FromParam for String {
    fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
        Ok(raw.into_owned())
    }
}

/// The type of a nullable schema: a parameter that is given is never
/// `null`, so its text is the value's.
impl<T: FromParam> FromParam for Option<T> {
    fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
        T::from_param(raw).map(Some)
    }
}

impl FromParam for bool {
    fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
        match &*raw {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(ParamError::invalid_type("must be true or false")),
        }
    }
}

macro_rules! integer_from_param {
    ($($ty:ty),*) => {$(
        impl FromParam for $ty {
            fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
                raw.parse::<$ty>().map_err(|_| {
                    let digits = raw.strip_prefix('-').unwrap_or(&raw);
                    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                        ParamError {
                            message: Cow::Owned(format!(
                                "must be between {} and {}",
                                <$ty>::MIN,
                                <$ty>::MAX
                            )),
                            code: "OutOfRange",
                        }
                    } else {
                        ParamError::invalid_type("must be an integer")
                    }
                })
            }
        }
    )*};
}

integer_from_param!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! float_from_param {
    ($($ty:ty),*) => {$(
        impl FromParam for $ty {
            fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
                match raw.parse::<$ty>() {
                    Ok(value) if value.is_finite() => Ok(value),
                    _ => Err(ParamError::invalid_type("must be a number")),
                }
            }
        }
    )*};
}

float_from_param!(f32, f64);

#[cfg(feature = "uuid")]
impl FromParam for uuid::Uuid {
    fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
        uuid::Uuid::try_parse(&raw).map_err(|_| ParamError::invalid_format("must be a UUID"))
    }
}

#[cfg(feature = "chrono")]
impl FromParam for chrono::DateTime<chrono::Utc> {
    fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
        chrono::DateTime::parse_from_rfc3339(&raw)
            .map(|value| value.with_timezone(&chrono::Utc))
            .map_err(|_| {
                ParamError::invalid_format(
                    "must be an RFC 3339 date-time such as 2026-03-14T09:30:00Z",
                )
            })
    }
}

#[cfg(feature = "chrono")]
impl FromParam for chrono::NaiveDate {
    fn from_param(raw: Cow<'_, str>) -> Result<Self, ParamError> {
        raw.parse()
            .map_err(|_| ParamError::invalid_format("must be a date such as 2026-03-14"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse<T: FromParam>(text: &str) -> Result<T, ParamError> {
        T::from_param(Cow::Borrowed(text))
    }

    #[test]
    fn an_integer_out_of_range_says_the_range_and_anything_else_the_type() {
        assert_eq!(parse::<i32>("-42"), Ok(-42));
        let too_big = parse::<u8>("256").expect_err("out of range");
        assert_eq!(
            (too_big.code, &*too_big.message),
            ("OutOfRange", "must be between 0 and 255")
        );
        let negative = parse::<u32>("-1").expect_err("out of range");
        assert_eq!(negative.code, "OutOfRange");
        for text in ["", "-", "1.5", "12a", " 1"] {
            let error = parse::<i64>(text).expect_err(text);
            assert_eq!(
                (error.code, &*error.message),
                ("InvalidType", "must be an integer"),
                "{text:?}"
            );
        }
    }

    #[test]
    fn a_nullable_type_parses_as_its_value() {
        assert_eq!(parse::<Option<u8>>("7"), Ok(Some(7)));
        assert!(parse::<Option<u8>>("x").is_err());
    }

    #[test]
    fn numbers_must_be_finite() {
        assert_eq!(parse::<f64>("2.5e3"), Ok(2500.0));
        assert_eq!(parse::<f32>("-0.5"), Ok(-0.5));
        for text in ["NaN", "inf", "-infinity", "1e400", "x"] {
            assert_eq!(
                parse::<f64>(text),
                Err(ParamError::invalid_type("must be a number")),
                "{text}"
            );
        }
    }

    #[test]
    fn booleans_are_lower_case_true_or_false() {
        assert_eq!(parse::<bool>("true"), Ok(true));
        assert_eq!(parse::<bool>("false"), Ok(false));
        assert_eq!(
            parse::<bool>("True"),
            Err(ParamError::invalid_type("must be true or false"))
        );
        assert_eq!(parse::<String>("as it is"), Ok("as it is".to_owned()));
    }

    #[test]
    fn an_unknown_enum_value_lists_the_expected_ones() {
        let error = ParamError::from_enum(UnknownEnumValue {
            value: "purple".to_owned(),
            expected: &["red", "green"],
        });
        assert_eq!(error.code, "InvalidEnumValue");
        assert_eq!(error.message, "must be one of: red, green");
    }

    #[cfg(feature = "uuid")]
    #[test]
    fn uuids_are_a_format() {
        let id = parse::<uuid::Uuid>("67e55044-10b1-426f-9247-bb680e5fe0c8").expect("a UUID");
        assert_eq!(id.to_string(), "67e55044-10b1-426f-9247-bb680e5fe0c8");
        assert_eq!(
            parse::<uuid::Uuid>("67e55044"),
            Err(ParamError::invalid_format("must be a UUID"))
        );
    }

    #[cfg(feature = "chrono")]
    #[test]
    fn date_times_become_utc_and_dates_are_plain() {
        let at =
            parse::<chrono::DateTime<chrono::Utc>>("2026-03-14T10:30:00+01:00").expect("RFC 3339");
        assert_eq!(at.to_rfc3339(), "2026-03-14T09:30:00+00:00");
        assert_eq!(
            parse::<chrono::DateTime<chrono::Utc>>("2026-03-14").map_err(|e| e.code),
            Err("InvalidFormat")
        );
        assert_eq!(
            parse::<chrono::NaiveDate>("2026-03-14").map(|d| d.to_string()),
            Ok("2026-03-14".to_owned())
        );
        assert_eq!(
            parse::<chrono::NaiveDate>("14.03.2026").map_err(|e| e.code),
            Err("InvalidFormat")
        );
    }
}
