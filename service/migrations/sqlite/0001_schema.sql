-- The schema of the Logistics Fulfilment Service, SQLite flavour.
-- Timestamps are microseconds since the Unix epoch (UTC); ids are UUIDs as
-- 16-byte blobs. Every table of tenant data leads with tenant_id.

CREATE TABLE tenants (
    id BLOB PRIMARY KEY,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_customer_no INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE tokens (
    key_id TEXT PRIMARY KEY,
    tenant_id BLOB NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    secret_hash BLOB NOT NULL,
    emulation INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);

CREATE TABLE customers (
    id BLOB PRIMARY KEY,
    tenant_id BLOB NOT NULL REFERENCES tenants (id),
    customer_no INTEGER NOT NULL,
    email TEXT NOT NULL,
    email_key TEXT NOT NULL,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    phone TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_address_no INTEGER NOT NULL DEFAULT 0,
    UNIQUE (tenant_id, customer_no),
    UNIQUE (tenant_id, email_key)
);

CREATE TABLE addresses (
    id BLOB PRIMARY KEY,
    customer_id BLOB NOT NULL REFERENCES customers (id),
    address_no INTEGER NOT NULL,
    first_name TEXT,
    last_name TEXT,
    company TEXT,
    address_one TEXT,
    address_two TEXT,
    district TEXT,
    city TEXT,
    postal_code TEXT,
    country TEXT,
    phone TEXT,
    tax_office TEXT,
    tax_number TEXT,
    UNIQUE (customer_id, address_no)
);

CREATE TABLE receiving_orders (
    id BLOB PRIMARY KEY,
    tenant_id BLOB NOT NULL REFERENCES tenants (id),
    reference_number TEXT NOT NULL,
    integration_id BLOB,
    receive_type TEXT NOT NULL,
    transfer_type TEXT NOT NULL,
    transfer_detail TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (tenant_id, reference_number)
);

CREATE TABLE receiving_order_lines (
    order_id BLOB NOT NULL REFERENCES receiving_orders (id),
    position INTEGER NOT NULL,
    item_no INTEGER,
    sku TEXT NOT NULL,
    expected_quantity INTEGER NOT NULL,
    lot_number TEXT,
    has_limit_check INTEGER NOT NULL,
    tolerance INTEGER NOT NULL,
    external_line_item_id TEXT,
    PRIMARY KEY (order_id, position)
) WITHOUT ROWID;

CREATE TABLE receiving_order_lots (
    order_id BLOB NOT NULL REFERENCES receiving_orders (id),
    position INTEGER NOT NULL,
    sku TEXT,
    lot_number TEXT,
    expected_quantity INTEGER NOT NULL,
    PRIMARY KEY (order_id, position)
) WITHOUT ROWID;

CREATE TABLE sales_orders (
    id BLOB PRIMARY KEY,
    tenant_id BLOB NOT NULL REFERENCES tenants (id),
    reference_number TEXT NOT NULL,
    customer_id BLOB NOT NULL REFERENCES customers (id),
    state TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (tenant_id, reference_number)
);

CREATE TABLE returns (
    id BLOB PRIMARY KEY,
    tenant_id BLOB NOT NULL REFERENCES tenants (id),
    return_reference_number TEXT NOT NULL,
    sales_order_channel TEXT,
    sales_order_reference_number TEXT,
    notes TEXT,
    tracking_id TEXT,
    cargo_carrier TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    arrived_to_warehouse_at INTEGER,
    completed_at INTEGER,
    tag TEXT,
    UNIQUE (tenant_id, return_reference_number)
);

-- The default order of the listings, and the common filters.
CREATE INDEX returns_by_created ON returns (tenant_id, created_at, return_reference_number);
CREATE INDEX returns_by_updated ON returns (tenant_id, updated_at);
CREATE INDEX returns_by_sales_order ON returns (tenant_id, sales_order_reference_number);
CREATE INDEX returns_by_tag ON returns (tenant_id, tag);
CREATE INDEX returns_by_tracking ON returns (tenant_id, tracking_id);
