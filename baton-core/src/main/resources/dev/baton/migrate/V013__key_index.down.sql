-- Reverts version 13: no key indexes; the keyed claim of version 12 ranks the whole backlog.
DO $$
DECLARE
    c record;
BEGIN
    FOR c IN SELECT i.indexrelid::regclass AS index
             FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid
             WHERE i.indrelid = '${schema}.job'::regclass AND x.relname LIKE 'job\_key\_%' LOOP
        EXECUTE format('DROP INDEX %s', c.index);
    END LOOP;
END
$$;
DROP FUNCTION IF EXISTS ${schema}.keyed_pick(text, jsonb, int);
DROP FUNCTION IF EXISTS ${schema}.key_weight(jsonb, text);
DROP FUNCTION IF EXISTS ${schema}.key_index_changes(boolean);
DROP FUNCTION IF EXISTS ${schema}.key_index_name(text, text);
ALTER TABLE ${schema}.queue DROP COLUMN IF EXISTS key_cursor, DROP COLUMN IF EXISTS key_weights;
