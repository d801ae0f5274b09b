-- A repeatable migration: runs after the versioned ones.
CREATE OR REPLACE VIEW customer_summary AS
SELECT c.id, c.email, c.display_name, co.name AS country,
       (SELECT count(*) FROM purchase p WHERE p.customer_id = c.id) AS purchases
  FROM customer c JOIN country co ON co.code = c.country_code;
