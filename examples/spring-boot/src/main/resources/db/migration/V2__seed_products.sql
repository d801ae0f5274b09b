-- A few products that exist before the application starts (ids below the sequence's first block).
INSERT INTO product (id, sku, name, price, stock, version) VALUES
    (-3, 'SEED-3', 'Seed product 3', 3.00, 300, 0),
    (-2, 'SEED-2', 'Seed product 2', 2.00, 200, 0),
    (-1, 'SEED-1', 'Seed product 1', 1.00, 100, 0);
