//! Customers and their addresses.

use logistics_models::{Address, Customer};
use uuid::Uuid;

use super::Store;
use super::db::{Row, StoreError, Tx, in_write, micros, query, time};
use crate::domain::DomainError;
use crate::domain::repository::{
    CustomerRepository, CustomerRules, NewCustomer, Numbering, Result,
};

/// The columns of an address, in the order [`address_from_row`] reads them.
const ADDRESS_COLUMNS: &str = "id, address_no, first_name, last_name, company, address_one, address_two, district, \
     city, postal_code, country, phone, tax_office, tax_number";

/// [`ADDRESS_COLUMNS`] of the table aliased `a`.
const ADDRESS_COLUMNS_A: &str = "a.id, a.address_no, a.first_name, a.last_name, a.company, a.address_one, \
     a.address_two, a.district, a.city, a.postal_code, a.country, a.phone, a.tax_office, a.tax_number";

impl CustomerRepository for Store {
    async fn insert_customer(
        &self,
        tenant: Uuid,
        customer: &NewCustomer,
        rules: &CustomerRules,
    ) -> Result<Customer> {
        in_write!(self.pool, |tx| insert(tx, tenant, customer, rules).await)
    }

    async fn customer(&self, tenant: Uuid, customer_no: i32) -> Result<Option<Customer>> {
        let rows = self
            .pool
            .fetch_all(
                query(format!(
                    "SELECT c.id, c.customer_no, c.email, c.first_name, c.last_name, c.phone, c.created_at, \
                     {ADDRESS_COLUMNS_A} FROM customers c LEFT JOIN addresses a ON a.customer_id = c.id \
                     WHERE c.tenant_id = $1 AND c.customer_no = $2 ORDER BY a.address_no"
                ))
                .bind(tenant)
                .bind(customer_no),
            )
            .await?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let mut customer = Customer::new(
            first.get(0)?,
            first.get(1)?,
            first.get::<String>(2)?,
            first.get::<String>(3)?,
            first.get::<String>(4)?,
            first.get::<String>(5)?,
            time(first.get(6)?),
            Vec::with_capacity(rows.len()),
        );
        for row in &rows {
            if let Some(address) = address_from_row(row, 7)? {
                customer.addresses.push(address);
            }
        }
        Ok(Some(customer))
    }
}

/// Locks the tenant's customer counter and reads it. Every transaction that
/// may create a customer takes it first, so that creates of one tenant run
/// one after the other (numbers without gaps, no duplicate email) and lock in
/// one order (no deadlock).
pub(super) async fn lock_counter(tx: &mut Tx, tenant: Uuid) -> Result<i32, StoreError> {
    let sql = format!(
        "SELECT last_customer_no FROM tenants WHERE id = $1{}",
        tx.lock_rows()
    );
    let row = tx.fetch_optional(query(sql).bind(tenant)).await?;
    let row = row.ok_or(DomainError::UnknownTenant(tenant))?;
    Ok(row.get(0)?)
}

/// The id, number and creation time of the customer with `email_key`.
pub(super) async fn by_email(
    tx: &mut Tx,
    tenant: Uuid,
    email_key: &str,
) -> Result<Option<(Uuid, i32, i64)>, StoreError> {
    let row = tx
        .fetch_optional(
            query("SELECT id, customer_no, created_at FROM customers WHERE tenant_id = $1 AND email_key = $2")
                .bind(tenant)
                .bind(email_key),
        )
        .await?;
    Ok(match row {
        Some(row) => Some((row.get(0)?, row.get(1)?, row.get(2)?)),
        None => None,
    })
}

/// Creates a customer numbered by `rules`, inside `tx`.
pub(super) async fn insert(
    tx: &mut Tx,
    tenant: Uuid,
    customer: &NewCustomer,
    rules: &CustomerRules,
) -> Result<Customer, StoreError> {
    let last = lock_counter(tx, tenant).await?;
    let same_email = by_email(tx, tenant, &customer.email_key).await?;
    let customer_no = (rules.number)(Numbering {
        last,
        same_email: same_email.map(|(_, no, _)| no),
    })?;
    tx.execute(
        query("UPDATE tenants SET last_customer_no = $1 WHERE id = $2")
            .bind(customer_no)
            .bind(tenant),
    )
    .await?;
    let id = Uuid::now_v7();
    tx.execute(
        query(
            "INSERT INTO customers (id, tenant_id, customer_no, email, email_key, first_name, last_name, phone, \
             created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(id)
        .bind(tenant)
        .bind(customer_no)
        .bind(&customer.email)
        .bind(&customer.email_key)
        .bind(&customer.first_name)
        .bind(&customer.last_name)
        .bind(&customer.phone)
        .bind(micros(customer.created_at)),
    )
    .await?;
    Ok(Customer::new(
        id,
        customer_no,
        customer.email.clone(),
        customer.first_name.clone(),
        customer.last_name.clone(),
        customer.phone.clone(),
        customer.created_at,
        Vec::new(),
    ))
}

/// Adds `address` to the customer unless `rules` finds the same place
/// there; returns it as stored (with its id and number).
pub(super) async fn add_address(
    tx: &mut Tx,
    customer: Uuid,
    address: &Address,
    rules: &CustomerRules,
) -> Result<Address, StoreError> {
    let sql = format!(
        "SELECT {ADDRESS_COLUMNS} FROM addresses WHERE customer_id = $1 ORDER BY address_no"
    );
    for row in tx.fetch_all(query(sql).bind(customer)).await? {
        if let Some(stored) = address_from_row(&row, 0)? {
            if (rules.same_place)(&stored, address) {
                return Ok(stored);
            }
        }
    }
    let sql = format!(
        "SELECT last_address_no FROM customers WHERE id = $1{}",
        tx.lock_rows()
    );
    let last: i32 = tx.fetch_one(query(sql).bind(customer)).await?.get(0)?;
    let address_no = (rules.address_number)(last);
    tx.execute(
        query("UPDATE customers SET last_address_no = $1 WHERE id = $2")
            .bind(address_no)
            .bind(customer),
    )
    .await?;
    let id = Uuid::now_v7();
    tx.execute(
        query(
            "INSERT INTO addresses (id, customer_id, address_no, first_name, last_name, company, address_one, \
             address_two, district, city, postal_code, country, phone, tax_office, tax_number) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(id)
        .bind(customer)
        .bind(address_no)
        .bind(&address.address_first_name)
        .bind(&address.address_last_name)
        .bind(&address.company)
        .bind(&address.address_one)
        .bind(&address.address_two)
        .bind(&address.district)
        .bind(&address.city)
        .bind(&address.postal_code)
        .bind(&address.country)
        .bind(&address.address_phone)
        .bind(&address.tax_office)
        .bind(&address.tax_number),
    )
    .await?;
    let mut stored = address.clone();
    stored.id = id;
    stored.address_no = address_no;
    Ok(stored)
}

/// The address in the columns of `row` from `at` on; `None` when its id is
/// null (a customer without addresses, through a left join).
fn address_from_row(row: &Row, at: usize) -> Result<Option<Address>, sqlx::Error> {
    let Some(id) = row.get::<Option<Uuid>>(at)? else {
        return Ok(None);
    };
    let mut address = Address::new(row.get(at + 1)?, id);
    address.address_first_name = row.get(at + 2)?;
    address.address_last_name = row.get(at + 3)?;
    address.company = row.get(at + 4)?;
    address.address_one = row.get(at + 5)?;
    address.address_two = row.get(at + 6)?;
    address.district = row.get(at + 7)?;
    address.city = row.get(at + 8)?;
    address.postal_code = row.get(at + 9)?;
    address.country = row.get(at + 10)?;
    address.address_phone = row.get(at + 11)?;
    address.tax_office = row.get(at + 12)?;
    address.tax_number = row.get(at + 13)?;
    Ok(Some(address))
}
