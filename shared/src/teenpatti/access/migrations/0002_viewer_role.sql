-- The `viewer` role: a key that reads tables, their results and feeds and acts on nothing
-- (the web front's own key; docs/decisions/0074-a-stateless-web-front.md).
ALTER TABLE access_keys DROP CONSTRAINT access_keys_role_check;
ALTER TABLE access_keys ADD CONSTRAINT access_keys_role_check
    CHECK (role IN ('operator', 'supervisor', 'dealer', 'viewer'));
