/**
 * The two SECURITY DEFINER functions through which the application role removes audit rows past
 * retention and drops emptied partitions (see 006-app-role.ts), with the youngest data they may
 * touch: `floor`, a PostgreSQL interval (less a day of slack for clock differences). Shared by the
 * migration that created them (1 year) and the ones that changed them since (012: the legal 5
 * years; 017, 019, 021, 025), so one text says what they do.
 */
export function retentionFunctions(verb: 'CREATE' | 'CREATE OR REPLACE', floor: string): string {
  return `
    -- Removes a client's rows older than p_cutoff, recording first where its chain resumes.
    ${verb} FUNCTION mica_retention_delete(p_client text, p_cutoff timestamptz) RETURNS integer
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
    DECLARE
      last_seq bigint;
      last_hash bytea;
      n integer;
    BEGIN
      IF p_cutoff > now() - interval '${floor}' + interval '1 day' THEN
        RAISE EXCEPTION 'retention cutoff % is within the shortest retention period (${floor})', p_cutoff
          USING ERRCODE = 'insufficient_privilege';
      END IF;
      -- One retention of a client at a time (every instance's daily job runs at the same hour): a
      -- second waits here, then finds nothing left before the cutoff.
      PERFORM pg_advisory_xact_lock(hashtext('mica_retention:' || p_client));
      SELECT max(chain_seq) INTO last_seq FROM evaluations
       WHERE client_id = p_client AND evaluated_at < p_cutoff;
      -- Nothing due (least() below would skip a NULL and cut before the first row kept).
      IF last_seq IS NULL THEN RETURN 0; END IF;
      -- Never past a row that is not due: the chain is cut before the first row at or after the
      -- cutoff, so every row removed is older than it even where times are out of chain order (a
      -- row written with an old time at the head must not take the recent rows with it).
      SELECT least(last_seq, min(chain_seq) - 1) INTO last_seq FROM evaluations
       WHERE client_id = p_client AND evaluated_at >= p_cutoff;
      -- The mark names a stored row and its hash: the last one at or before that position (none
      -- when an earlier retention already removed them all: nothing to do).
      SELECT chain_seq, row_hash INTO last_seq, last_hash FROM evaluations
       WHERE client_id = p_client AND chain_seq <= last_seq ORDER BY chain_seq DESC LIMIT 1;
      IF last_seq IS NULL OR last_seq < 1 THEN RETURN 0; END IF;
      INSERT INTO audit_retention_marks (client_id, seq, hash, removed_before)
      VALUES (p_client, last_seq, last_hash, p_cutoff)
      ON CONFLICT (client_id, seq) DO NOTHING;
      PERFORM set_config('mica.maintenance', 'retention', true);
      -- Every row up to the mark, by chain position (all older than the cutoff, see above):
      -- verification trusts a mark only where no row at or below it remains
      -- (audit-chain.service.ts), so none may be left there.
      DELETE FROM evaluations WHERE client_id = p_client AND chain_seq <= last_seq;
      GET DIAGNOSTICS n = ROW_COUNT;
      PERFORM set_config('mica.maintenance', '', true);
      RETURN n;
    END
    $fn$;

    -- Detaches and drops a monthly partition that retention has emptied; true when dropped.
    ${verb} FUNCTION mica_drop_audit_partition(p_name text) RETURNS boolean
      LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $fn$
    DECLARE
      upper_bound timestamptz;
      has_rows boolean;
    BEGIN
      IF p_name !~ '^evaluations_p[0-9]{4}_[0-9]{2}$' OR NOT EXISTS (
        SELECT 1 FROM pg_inherits WHERE inhparent = 'evaluations'::regclass AND inhrelid = to_regclass(p_name)
      ) THEN
        RAISE EXCEPTION 'not an evaluations partition: %', p_name USING ERRCODE = 'invalid_parameter_value';
      END IF;
      upper_bound := (to_date(substr(p_name, 14), 'YYYY_MM') + interval '1 month')::timestamp AT TIME ZONE 'UTC';
      IF upper_bound > now() - interval '${floor}' + interval '1 day' THEN
        RAISE EXCEPTION 'partition % is within the shortest retention period (${floor})', p_name
          USING ERRCODE = 'insufficient_privilege';
      END IF;
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I)', p_name) INTO has_rows;
      IF has_rows THEN
        RAISE EXCEPTION 'partition % still holds rows: retention removes them first', p_name
          USING ERRCODE = 'object_not_in_prerequisite_state';
      END IF;
      EXECUTE format('ALTER TABLE evaluations DETACH PARTITION %I', p_name);
      EXECUTE format('DROP TABLE %I', p_name);
      RETURN true;
    END
    $fn$;
  `;
}
