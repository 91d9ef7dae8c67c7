-- The schema of the Logistics Fulfilment Service, PostgreSQL flavour.
-- Timestamps are microseconds since the Unix epoch (UTC); text that is sorted
-- or compared uses the "C" collation, so that PostgreSQL orders like SQLite.
-- Every table of tenant data leads with tenant_id.

CREATE TABLE tenants (
    id UUID PRIMARY KEY,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_customer_no INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE tokens (
    key_id TEXT COLLATE "C" PRIMARY KEY,
    tenant_id UUID NOT NULL REFERENCES tenants (id),
    environment TEXT NOT NULL,
    secret_hash BYTEA NOT NULL,
    emulation BOOLEAN NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE customers (
    id UUID PRIMARY KEY,
    tenant_id UUID NOT NULL REFERENCES tenants (id),
    customer_no INTEGER NOT NULL,
    email TEXT NOT NULL,
    email_key TEXT COLLATE "C" NOT NULL,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    phone TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_address_no INTEGER NOT NULL DEFAULT 0,
    UNIQUE (tenant_id, customer_no),
    UNIQUE (tenant_id, email_key)
);

CREATE TABLE addresses (
    id UUID PRIMARY KEY,
    customer_id UUID NOT NULL REFERENCES customers (id),
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
    id UUID PRIMARY KEY,
    tenant_id UUID NOT NULL REFERENCES tenants (id),
    reference_number TEXT COLLATE "C" NOT NULL,
    integration_id UUID,
    receive_type TEXT NOT NULL,
    transfer_type TEXT NOT NULL,
    transfer_detail TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (tenant_id, reference_number)
);

CREATE TABLE receiving_order_lines (
    order_id UUID NOT NULL REFERENCES receiving_orders (id),
    position INTEGER NOT NULL,
    item_no INTEGER,
    sku TEXT NOT NULL,
    expected_quantity INTEGER NOT NULL,
    lot_number TEXT,
    has_limit_check BOOLEAN NOT NULL,
    tolerance INTEGER NOT NULL,
    external_line_item_id TEXT,
    PRIMARY KEY (order_id, position)
);

CREATE TABLE receiving_order_lots (
    order_id UUID NOT NULL REFERENCES receiving_orders (id),
    position INTEGER NOT NULL,
    sku TEXT,
    lot_number TEXT,
    expected_quantity INTEGER NOT NULL,
    PRIMARY KEY (order_id, position)
);

CREATE TABLE sales_orders (
    id UUID PRIMARY KEY,
    tenant_id UUID NOT NULL REFERENCES tenants (id),
    reference_number TEXT COLLATE "C" NOT NULL,
    customer_id UUID NOT NULL REFERENCES customers (id),
    state TEXT NOT NULL,
    document TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (tenant_id, reference_number)
);

CREATE TABLE returns (
    id UUID PRIMARY KEY,
    tenant_id UUID NOT NULL REFERENCES tenants (id),
    return_reference_number TEXT COLLATE "C" NOT NULL,
    sales_order_channel TEXT COLLATE "C",
    sales_order_reference_number TEXT COLLATE "C",
    notes TEXT COLLATE "C",
    tracking_id TEXT COLLATE "C",
    cargo_carrier TEXT COLLATE "C",
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    arrived_to_warehouse_at BIGINT,
    completed_at BIGINT,
    tag TEXT COLLATE "C",
    UNIQUE (tenant_id, return_reference_number)
);

-- The default order of the listings, and the common filters.
CREATE INDEX returns_by_created ON returns (tenant_id, created_at, return_reference_number);
CREATE INDEX returns_by_updated ON returns (tenant_id, updated_at);
CREATE INDEX returns_by_sales_order ON returns (tenant_id, sales_order_reference_number);
CREATE INDEX returns_by_tag ON returns (tenant_id, tag);
CREATE INDEX returns_by_tracking ON returns (tenant_id, tracking_id);
CREATE INDEX sales_orders_by_customer ON sales_orders (customer_id);
CREATE INDEX addresses_by_customer ON addresses (customer_id);
