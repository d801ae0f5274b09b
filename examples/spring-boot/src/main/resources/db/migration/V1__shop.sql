-- The shop's schema. Ids come from sequences that Hibernate draws from in blocks of 50 (pooled optimizer),
-- which keeps insert batching on (IDENTITY columns would turn it off).
CREATE SEQUENCE product_seq INCREMENT BY 50;
CREATE SEQUENCE purchase_order_seq INCREMENT BY 50;
CREATE SEQUENCE order_line_seq INCREMENT BY 50;

CREATE TABLE product (
    id      bigint PRIMARY KEY,
    sku     varchar(32) NOT NULL UNIQUE,
    name    varchar(200) NOT NULL,
    price   numeric(10, 2) NOT NULL CHECK (price >= 0),
    stock   integer NOT NULL CHECK (stock >= 0),
    version bigint NOT NULL
);

CREATE TABLE purchase_order (
    id       bigint PRIMARY KEY,
    customer varchar(100) NOT NULL,
    status   varchar(16) NOT NULL,
    version  bigint NOT NULL
);

CREATE TABLE order_line (
    id         bigint PRIMARY KEY,
    order_id   bigint NOT NULL REFERENCES purchase_order (id),
    product_id bigint NOT NULL REFERENCES product (id),
    quantity   integer NOT NULL CHECK (quantity > 0),
    price      numeric(10, 2) NOT NULL
);
CREATE INDEX order_line_order ON order_line (order_id);
