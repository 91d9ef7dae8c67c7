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
