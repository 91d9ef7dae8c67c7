// A TypeScript integrator's program, written against the types openapi-typescript
// generates from spec/openapi.yaml (./api.d.ts) and calling the service through
// openapi-fetch. `tsc --strict` checks it; node runs it.
// Usage: node check_typescript.mjs BASE_URL TOKEN SALES_ORDER_REFERENCE EMAIL
// (a sales order in state Shipped, of the customer with that email)
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

// Node's `process`, as much of it as this program uses (no @types/node needed).
declare const process: { argv: string[]; exitCode: number | undefined };

type SalesOrder = components["schemas"]["SalesOrder"];
type CustomerInput = components["schemas"]["CustomerInput"];
type ErrorResponse = components["schemas"]["ErrorResponse"];

const [baseUrl, token, referenceNumber, email] = process.argv.slice(2);
if (!baseUrl || !token || !referenceNumber || !email) {
  throw new Error("usage: check_typescript.mjs BASE_URL TOKEN SALES_ORDER_REFERENCE EMAIL");
}

const client = createClient<paths>({
  baseUrl,
  headers: { Authorization: `Bearer ${token}` },
});

function summary(order: SalesOrder): string {
  const skus: string[] = order.lineItems.map((item) => item.sku);
  const { referenceNumber, state, customer } = order;
  return `${referenceNumber} (${state}) for ${customer.email}: ${skus.join(", ")}`;
}

function problems(error: ErrorResponse): string[] {
  return (error.error.errors ?? []).map((e) => `${e.property}: ${e.errorCode}`);
}

// The types are precise: a customer without `phone` is not a CustomerInput.
// @ts-expect-error `phone` is required
const incomplete: CustomerInput = { email: "a@example.com", firstName: "A", lastName: "B" };
void incomplete;

let failures = 0;
function expect(condition: boolean, name: string, detail: unknown): void {
  if (condition) {
    console.log(`ok   ${name}`);
  } else {
    failures += 1;
    console.log(`FAIL ${name}: ${JSON.stringify(detail)}`);
  }
}

const found = await client.GET("/openapi/v1/SalesOrders/{referenceNumber}", {
  params: { path: { referenceNumber } },
});
expect(
  found.response.status === 200 &&
    found.data !== undefined &&
    found.data.referenceNumber === referenceNumber &&
    found.data.state === "Shipped" &&
    found.data.customer.email === email,
  `openapi-fetch GET getSalesOrder 200: ${found.data ? summary(found.data) : "no data"}`,
  found.data ?? found.error,
);

const missing = await client.GET("/openapi/v1/SalesOrders/{referenceNumber}", {
  params: { path: { referenceNumber: `${referenceNumber}-none` } },
});
expect(
  missing.response.status === 404 &&
    missing.error !== undefined &&
    missing.error.error.code === 404 &&
    problems(missing.error).length === 1 &&
    missing.error.error.errors?.[0]?.errorCode === "ResourceNotFound",
  "openapi-fetch GET getSalesOrder 404: an ErrorResponse",
  missing.error ?? missing.data,
);

process.exitCode = failures === 0 ? 0 : 1;
