CREATE TABLE price_history (
    product_id bigint NOT NULL REFERENCES product (id),
    valid_from date NOT NULL,
    price numeric(10, 2) NOT NULL,
    PRIMARY KEY (product_id, valid_from)
);

-- COPY ... FROM STDIN: Flyway runs it through pgjdbc's CopyManager (unwrap).
COPY price_history (product_id, valid_from, price) FROM STDIN;
1	2023-01-01	2.00
1	2023-06-01	2.50
2	2023-01-01	5.10
3	2023-01-01	8.99
\.

INSERT INTO price_history (product_id, valid_from, price) VALUES (4, DATE '2023-01-01', 12.00);
INSERT INTO price_history (product_id, valid_from, price) VALUES (5, DATE '2023-01-01', 15.00);
