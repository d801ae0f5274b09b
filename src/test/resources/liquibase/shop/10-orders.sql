--liquibase formatted sql

--changeset flushless:10-orders
CREATE TABLE purchase (
    id bigserial PRIMARY KEY,
    customer_id integer NOT NULL REFERENCES customer (id),
    placed_on date NOT NULL,
    status text NOT NULL DEFAULT 'new'
);
INSERT INTO purchase (customer_id, placed_on) VALUES (1, DATE '2024-01-05');
INSERT INTO purchase (customer_id, placed_on, status) VALUES (2, DATE '2024-01-06', 'paid; in full');
INSERT INTO purchase (customer_id, placed_on, status) VALUES (3, DATE '2024-02-01', 'shipped -- not a comment');
INSERT INTO purchase (customer_id, placed_on) VALUES (5, DATE '2024-02-14');
UPDATE customer SET note = 'has orders; see purchase' WHERE id IN (SELECT customer_id FROM purchase);
--rollback DROP TABLE purchase;

--changeset flushless:11-summary-view
CREATE VIEW customer_summary AS
SELECT c.id, c.email, c.display_name, co.name AS country,
       (SELECT count(*) FROM purchase p WHERE p.customer_id = c.id) AS purchases
  FROM customer c JOIN country co ON co.code = c.country_code;
