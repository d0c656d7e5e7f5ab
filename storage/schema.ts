// The PostgreSQL schema of the store, applied (idempotently) each time a Storage connects.
// Kept as a TS string rather than a .sql file so it ships with the code; it names no channel:
// the NOTIFY channel is a parameter of apply_writes, because only resources/naming.ts may
// spell the vendor's name.

/** The byte JSON.stringify never emits inside a value: it escapes control characters. */
export const REVISION_PLACEHOLDER = '\u0001'

/**
 * Idempotent DDL. Run it in one transaction under SCHEMA_LOCK_ID: concurrent CREATE ... IF NOT
 * EXISTS and CREATE OR REPLACE FUNCTION from two replicas starting together can otherwise fail.
 */
export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS revision (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  value bigint NOT NULL
);
INSERT INTO revision (value) VALUES (0) ON CONFLICT DO NOTHING;

-- The current state, for get and newest lists. COLLATE "C" so prefix ranges use the index.
CREATE TABLE IF NOT EXISTS objects (
  key text COLLATE "C" PRIMARY KEY,
  revision bigint NOT NULL,
  create_revision bigint NOT NULL,
  value text NOT NULL
);

-- The revision log: watches, exact-revision reads, history. text, not jsonb: exact bytes.
-- type is one of ADDED, MODIFIED, DELETED, written only by apply_writes. No CHECK says so: a
-- statement run from a function rebuilds its table's CHECK expressions at every execution, which
-- cost a tenth of PostgreSQL's CPU per write; data directories made with the CHECK lose it here.
CREATE TABLE IF NOT EXISTS events (
  revision bigint PRIMARY KEY,
  key text COLLATE "C" NOT NULL,
  type text NOT NULL,
  value text NOT NULL
);
-- Only when it is there: ALTER TABLE locks out every reader of the log, even to do nothing.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'events'::regclass AND conname = 'events_type_check') THEN
    ALTER TABLE events DROP CONSTRAINT events_type_check;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS events_key_revision ON events (key, revision DESC);

CREATE TABLE IF NOT EXISTS compaction (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  revision bigint NOT NULL
);
INSERT INTO compaction (revision) VALUES (0) ON CONFLICT DO NOTHING;

-- One batch of writes in one statement, so one round trip and one commit (group commit).
-- Locking the counter row first serialises every writer of every replica: revisions are
-- allocated in commit order, so a reader that has seen revision N has seen everything below
-- it, and the log needs no gap filling. A failed precondition allocates nothing.
-- Each op is one guarded statement (ON CONFLICT, or a revision match); the key is looked up
-- only when that statement did nothing, to say why.
-- Returns one row per op, in op order: code 'ok' with the new revision, or the error code
-- with the key's current revision (0 when absent).
CREATE OR REPLACE FUNCTION apply_writes(ops text[], keys text[], vals text[], expects bigint[], channel text)
RETURNS TABLE (code text, rev bigint)
LANGUAGE plpgsql AS $fn$
DECLARE
  cur bigint;
  start_rev bigint;
  existing bigint;
  next_rev bigint;
  v text;
BEGIN
  SELECT r.value INTO cur FROM revision r FOR UPDATE;
  start_rev := cur;
  FOR i IN 1 .. coalesce(array_length(ops, 1), 0) LOOP
    -- READ COMMITTED: each statement of this VOLATILE function sees what committed before the
    -- lock was granted, and earlier ops of this batch.
    next_rev := cur + 1;
    v := replace(vals[i], chr(1), next_rev::text);
    IF ops[i] = 'create' THEN
      INSERT INTO objects (key, revision, create_revision, value) VALUES (keys[i], next_rev, next_rev, v)
        ON CONFLICT (key) DO NOTHING;
    ELSIF ops[i] = 'update' THEN
      UPDATE objects SET revision = next_rev, value = v WHERE key = keys[i] AND revision = expects[i];
    ELSIF ops[i] = 'delete' THEN
      DELETE FROM objects WHERE key = keys[i] AND revision = expects[i];
    ELSE
      RAISE EXCEPTION 'unknown write op %', ops[i];
    END IF;
    IF NOT FOUND THEN
      SELECT o.revision INTO existing FROM objects o WHERE o.key = keys[i];
      IF ops[i] = 'create' THEN
        code := 'KeyExists'; rev := existing;
      ELSIF NOT FOUND THEN
        code := 'NotFound'; rev := 0;
      ELSE
        code := 'Conflict'; rev := existing;
      END IF;
      RETURN NEXT;
      CONTINUE;
    END IF;

    cur := next_rev;
    INSERT INTO events (revision, key, type, value)
      VALUES (cur, keys[i], CASE ops[i] WHEN 'create' THEN 'ADDED' WHEN 'update' THEN 'MODIFIED' ELSE 'DELETED' END, v);
    code := 'ok'; rev := cur; RETURN NEXT;
  END LOOP;

  IF cur > start_rev THEN
    UPDATE revision SET value = cur;
    -- One notification per transaction, carrying only the highest revision: the readers read
    -- the log from their own position, so a lost or merged notification loses nothing.
    PERFORM pg_notify(channel, cur::text);
  END IF;
END
$fn$;
`

/** Advisory lock key serialising schema application across replicas. */
export const SCHEMA_LOCK_ID = 7_311_042_001
