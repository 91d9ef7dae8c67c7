//! The typed `dqb` query language, as a client builds it and a server parses it.

use logistics_models::dynamic_query::{Direction, Join, Op, Value};
use logistics_models::{
    ReturnsQuery, ReturnsQueryProperty as P, TaggedReturnsQuery, TaggedReturnsQueryProperty as T,
};

#[test]
fn a_built_query_renders_and_parses_back_to_itself() {
    let since: logistics_models::chrono::DateTime<logistics_models::chrono::Utc> =
        "2026-03-01T00:00:00Z".parse().unwrap();
    let query = ReturnsQuery::new()
        .filter(P::CargoCarrier, Op::Equals, "Yurtiçi Kargo")
        .or()
        .filter(P::CargoCarrier, Op::In, Value::list(["Aras", "MNG"]))
        .filter(P::CreatedAt, Op::GreaterThanOrEqual, since)
        .filter(P::Notes, Op::Equals, Value::Null)
        .sort(P::CreatedAt, Direction::Descending)
        .offset(200)
        .count(50);
    let text = query.to_query_string();
    assert_eq!(
        text,
        "o=Equals%7COrElse&p=cargoCarrier&v=Yurti%C3%A7i%20Kargo&o=In&p=cargoCarrier&v=Aras%2CMNG\
         &o=GreaterThanOrEqual&p=createdAt&v=2026-03-01T00%3A00%3A00Z&o=Equals&p=notes&v=null\
         &s=createdAt%2Cdesc&offset=200&count=50"
    );
    assert_eq!(ReturnsQuery::parse(&text).unwrap(), query);
}

#[test]
fn parses_the_platforms_own_spelling() {
    let query = ReturnsQuery::parse(
        "?o=eq|OrElse&p=salesOrderChannel&v=Shopify&o=sw&p=trackingId&v=YK&s=updatedAt&count=20",
    )
    .unwrap();
    let filters = query.filters();
    assert_eq!(filters.len(), 2);
    assert_eq!(
        (filters[0].property, filters[0].op, filters[0].join_next),
        (P::SalesOrderChannel, Op::Equals, Join::Or)
    );
    assert_eq!(filters[0].value, Value::String("Shopify".into()));
    assert_eq!(
        (filters[1].property, filters[1].op, filters[1].join_next),
        (P::TrackingId, Op::StartsWith, Join::And)
    );
    assert_eq!(query.sorting()[0].property, P::UpdatedAt);
    assert_eq!(query.sorting()[0].direction, Direction::Ascending);
    assert_eq!(query.effective_count(), 20);
    assert_eq!(query.effective_offset(), 0);
}

#[test]
fn paging_is_clamped_and_the_default_order_follows_the_requested_one() {
    let query = ReturnsQuery::parse("offset=-5&count=1000&offset=9").unwrap();
    assert_eq!(
        query.effective_offset(),
        0,
        "negative offsets clamp to 0; the first occurrence counts"
    );
    assert_eq!(query.effective_count(), 100, "counts clamp to 100");
    assert_eq!(ReturnsQuery::parse("count=0").unwrap().effective_count(), 1);
    assert_eq!(ReturnsQuery::new().effective_count(), 100);
    let order: Vec<(P, Direction)> = ReturnsQuery::parse("s=returnReferenceNumber,desc")
        .unwrap()
        .effective_sort()
        .into_iter()
        .map(|s| (s.property, s.direction))
        .collect();
    assert_eq!(
        order,
        [
            (P::ReturnReferenceNumber, Direction::Descending),
            (P::CreatedAt, Direction::Ascending)
        ]
    );
}

#[test]
fn unknown_parameters_are_ignored() {
    let query = ReturnsQuery::parse("utm_source=x&o=eq&p=notes&v=a&page=2").unwrap();
    assert_eq!(query.filters().len(), 1);
}

#[test]
fn the_tag_is_only_in_the_tagged_listing() {
    assert!(TaggedReturnsQuery::parse("o=ne&p=tag&v=null").is_ok());
    assert_eq!(
        <T as logistics_models::dynamic_query::Property>::from_name("tag"),
        Some(T::Tag)
    );
    let error = ReturnsQuery::parse("o=ne&p=tag&v=null").unwrap_err();
    assert!(
        error
            .message()
            .starts_with("`tag` is not a property of this listing"),
        "{error}"
    );
}

#[test]
fn bad_queries_are_refused_with_the_problem_named() {
    let cases = [
        ("o=eq&p=notes", "filter 1 is incomplete"),
        (
            "o=eq&o=eq&p=notes&v=x",
            "filter 1 has an `o` but no `p` and `v`",
        ),
        ("p=notes&v=x", "a `p` must follow an `o`"),
        ("o=eq&v=x", "a `v` must follow an `o` and a `p`"),
        ("o=like&p=notes&v=x", "filter 1: `like` is not an op"),
        (
            "o=eq|Maybe&p=notes&v=x",
            "filter 1: `|Maybe` is not a logical operator",
        ),
        (
            "o=eq&p=nope&v=x",
            "`nope` is not a property of this listing",
        ),
        (
            "o=gt&p=createdAt&v=yesterday",
            "filter 1: `yesterday` is not a value of `createdAt`",
        ),
        (
            "o=cts&p=createdAt&v=2026",
            "filter 1: Contains only applies to text",
        ),
        (
            "o=gt&p=notes&v=null",
            "filter 1: null can only be compared with Equals or NotEqual",
        ),
        (
            "s=notes,sideways",
            "sort `notes,sideways`: `sideways` is not a direction",
        ),
        ("count=ten", "`count=ten`: count must be an integer"),
    ];
    for (text, expected) in cases {
        let error = ReturnsQuery::parse(text).expect_err(text);
        assert!(error.message().starts_with(expected), "{text}: {error}");
    }
}
