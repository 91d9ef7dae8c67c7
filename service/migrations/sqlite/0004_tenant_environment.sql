-- Every tenant belongs to one environment (decision D35): its tokens work
-- there only, and emulation reaches it from there only. NULL is a tenant in
-- no environment, which nothing reaches: the staging demo while it is being
-- made (D36), or an existing tenant whose environment is not known.
ALTER TABLE tenants ADD COLUMN environment TEXT
    CHECK (environment IN ('staging', 'production'));

-- Existing tenants: the environment of their tokens, which `tenant create
-- --environment` and the staging demo made in the same transaction as the
-- tenant. A tenant without tokens, or with tokens of both environments or of
-- an unknown one (none of which the service makes), stays in none.
UPDATE tenants SET environment = (
    SELECT MIN(k.environment) FROM tokens k WHERE k.tenant_id = tenants.id
)
WHERE (SELECT COUNT(DISTINCT k.environment) FROM tokens k WHERE k.tenant_id = tenants.id) = 1
  AND (SELECT MIN(k.environment) FROM tokens k WHERE k.tenant_id = tenants.id)
      IN ('staging', 'production');
