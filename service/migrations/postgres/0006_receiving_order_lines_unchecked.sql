-- A receiving order's lines and lots are written only in the transaction
-- that inserted their order or locked it, and removed before it (D68).
-- PostgreSQL checked each line's order row by row, with a query and a row
-- lock each: half of a 1,000 × 10 bulk upsert's time. SQLite, where every
-- test runs first, keeps checking them.
ALTER TABLE receiving_order_lines DROP CONSTRAINT receiving_order_lines_order_id_fkey;
ALTER TABLE receiving_order_lots DROP CONSTRAINT receiving_order_lots_order_id_fkey;
