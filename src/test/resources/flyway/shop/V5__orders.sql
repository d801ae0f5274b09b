CREATE TABLE purchase (
    id bigserial PRIMARY KEY,
    customer_id integer NOT NULL REFERENCES customer (id),
    placed_on date NOT NULL,
    status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'paid', 'shipped', 'cancelled'))
);

CREATE TABLE purchase_line (
    purchase_id bigint NOT NULL REFERENCES purchase (id),
    line_no integer NOT NULL,
    product_id bigint NOT NULL REFERENCES product (id),
    quantity integer NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (purchase_id, line_no)
);

INSERT INTO purchase (customer_id, placed_on) VALUES (1, DATE '2024-01-05');
INSERT INTO purchase (customer_id, placed_on) VALUES (2, DATE '2024-01-06');
INSERT INTO purchase (customer_id, placed_on, status) VALUES (3, DATE '2024-01-06', 'paid');
INSERT INTO purchase (customer_id, placed_on, status) VALUES (5, DATE '2024-02-01', 'shipped');
INSERT INTO purchase (customer_id, placed_on) VALUES (8, DATE '2024-02-14');
INSERT INTO purchase_line (purchase_id, line_no, product_id, quantity) VALUES (1, 1, 1, 2);
INSERT INTO purchase_line (purchase_id, line_no, product_id, quantity) VALUES (1, 2, 7, 1);
INSERT INTO purchase_line (purchase_id, line_no, product_id, quantity) VALUES (2, 1, 3, 5);
INSERT INTO purchase_line (purchase_id, line_no, product_id, quantity) VALUES (3, 1, 11, 1);
INSERT INTO purchase_line (purchase_id, line_no, product_id, quantity) VALUES (3, 2, 13, 4);
INSERT INTO purchase_line (purchase_id, line_no, product_id, quantity) VALUES (3, 3, 2, 1);
INSERT INTO purchase_line (purchase_id, line_no, product_id, quantity) VALUES (4, 1, 40, 3);
INSERT INTO purchase_line (purchase_id, line_no, product_id, quantity) VALUES (5, 1, 20, 2);
-- Reads what the INSERTs above wrote, inside the same migration (transaction).
UPDATE stock s SET quantity = s.quantity - l.total
  FROM (SELECT product_id, sum(quantity) AS total FROM purchase_line GROUP BY product_id) l
 WHERE s.product_id = l.product_id AND s.quantity >= l.total;
INSERT INTO purchase (customer_id, placed_on, status)
    SELECT id, DATE '2024-03-01', 'cancelled' FROM customer WHERE country_code = 'DE';
UPDATE customer SET note = 'has orders; see purchase' WHERE id IN (SELECT customer_id FROM purchase);
