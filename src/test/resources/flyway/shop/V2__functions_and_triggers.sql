-- Dollar-quoted bodies hold semicolons of their own.
CREATE FUNCTION slugify(input text) RETURNS text
    LANGUAGE sql IMMUTABLE
AS $$
    SELECT trim(both '-' from regexp_replace(lower(input), '[^a-z0-9]+', '-', 'g'));
$$;

CREATE FUNCTION record_audit() RETURNS trigger
    LANGUAGE plpgsql
AS $body$
BEGIN
    -- a comment inside the body; still the body
    INSERT INTO audit_log (table_name, operation, row_key)
    VALUES (TG_TABLE_NAME, TG_OP, NEW.id::text);
    RETURN NEW;
END;
$body$;

CREATE TRIGGER customer_audit
    AFTER INSERT OR UPDATE ON customer
    FOR EACH ROW EXECUTE PROCEDURE record_audit();

CREATE FUNCTION normalise_email() RETURNS trigger
    LANGUAGE plpgsql
AS $fn$
BEGIN
    NEW.email := lower(NEW.email);
    IF NEW.display_name IS NULL THEN
        NEW.display_name := split_part(NEW.email, '@', 1);
    END IF;
    RETURN NEW;
END
$fn$;

CREATE TRIGGER customer_normalise
    BEFORE INSERT OR UPDATE ON customer
    FOR EACH ROW EXECUTE PROCEDURE normalise_email();
