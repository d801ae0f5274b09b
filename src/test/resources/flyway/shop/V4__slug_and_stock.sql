ALTER TABLE product ADD COLUMN slug text;

UPDATE product SET slug = slugify(name || ' ' || sku);

ALTER TABLE product ALTER COLUMN slug SET NOT NULL;
ALTER TABLE product ADD CONSTRAINT product_slug_key UNIQUE (slug);

-- A DO block: its body is one statement, whatever it contains.
DO $$
DECLARE
    p record;
BEGIN
    FOR p IN SELECT id FROM product ORDER BY id LOOP
        INSERT INTO stock (product_id, quantity) VALUES (p.id, (p.id * 7) % 50);
    END LOOP;
    RAISE NOTICE 'stock seeded; % products', (SELECT count(*) FROM product);
END
$$;

UPDATE stock SET quantity = quantity + 100 WHERE product_id IN (SELECT id FROM product WHERE name LIKE '%;%');

DELETE FROM stock WHERE quantity = 0;

CREATE INDEX customer_country_idx ON customer (country_code);
