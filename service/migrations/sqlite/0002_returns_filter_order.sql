-- The equality filters of the returns listings, followed by the default order
-- (createdAt, returnReferenceNumber): a filtered page is read from the index
-- in order, so it costs the same whatever the size of the tenant. With the
-- filter column alone, SQLite walked returns_by_created over every return of
-- the tenant to avoid sorting (cargo xtask bench: listReturns filtered on
-- salesOrderReferenceNumber, 1.1 ms with 1k returns, 4.9 ms with 10k).
DROP INDEX returns_by_sales_order;
DROP INDEX returns_by_tag;
DROP INDEX returns_by_tracking;
CREATE INDEX returns_by_sales_order ON returns (tenant_id, sales_order_reference_number, created_at, return_reference_number);
CREATE INDEX returns_by_tag ON returns (tenant_id, tag, created_at, return_reference_number);
CREATE INDEX returns_by_tracking ON returns (tenant_id, tracking_id, created_at, return_reference_number);
