-- A transfer slip in one statement (slips.py, docs/decisions/0101-a-slip-in-one-round-trip.md):
-- under the round's share lock and the player's lock, the guards a slip must pass that need
-- the database (round open, not paused, before betting closes; each bet type's stakes of the
-- player on the round within its maximum; the funds), then the key claimed with its answer,
-- the debit, the bets, the ledger entries, the balance before the round's first slip and the
-- slip's `BetsPlaced`. A guard that fails, or a key already claimed, writes nothing and
-- answers `check`: the wallet then places the slip the long way, which refuses it with its
-- code and text (or replays the key). The checks that need no database (shape, currency,
-- each stake within its limits) are the caller's, on the round's limits.
CREATE FUNCTION wallet_place_slip(
    p_operator text, p_player text, p_stream text, p_currency text, p_round text,
    p_table text, p_placed_at timestamptz, p_grace interval,
    p_key text, p_request_hash text, p_answer_head text,
    p_slip uuid, p_bet_ids uuid[], p_bet_types text[], p_stakes bigint[], p_maxima bigint[],
    p_ledger_accounts text[], p_ledger_players text[], p_ledger_amounts bigint[],
    p_ledger_kinds text[], p_ledger_references text[],
    p_occurred_at timestamptz, p_correlation_id uuid, p_producer text, p_event_type text,
    p_schema_version integer, p_payload json, p_trace_context text,
    OUT outcome text, OUT balance bigint
) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    v_round wallet_rounds%ROWTYPE;
    v_version integer;
    v_balance bigint;
    v_total bigint;
    v_within boolean;
BEGIN
    outcome := 'check';
    -- the round share-locked: its seal (FOR UPDATE) waits for this slip to commit
    SELECT * INTO v_round FROM wallet_rounds WHERE round_id = p_round FOR SHARE;
    IF NOT FOUND OR v_round.table_id <> p_table OR v_round.status <> 'open' OR v_round.paused
       OR p_placed_at >= v_round.betting_closes_at + p_grace THEN
        RETURN;
    END IF;
    SELECT locked_version, locked_balance INTO v_version, v_balance
      FROM wallet_lock_player(p_operator, p_player, p_stream, p_currency);
    SELECT sum(s) INTO v_total FROM unnest(p_stakes) AS s;
    IF v_total > v_balance THEN
        RETURN;
    END IF;
    SELECT bool_and(coalesce(staked.total, 0) + line.stake <= line.maximum) INTO v_within
      FROM unnest(p_bet_types, p_stakes, p_maxima) AS line(bet_type, stake, maximum)
      LEFT JOIN (SELECT bet_type, sum(stake) AS total FROM wallet_bets
                  WHERE round_id = p_round AND operator_id = p_operator
                    AND player_id = p_player AND currency = p_currency
                  GROUP BY bet_type) AS staked USING (bet_type);
    IF NOT v_within THEN
        RETURN;
    END IF;
    balance := v_balance - v_total;
    -- the key claimed with the answer in one row; taken already: the long way replays it
    INSERT INTO wallet_idempotency (operator_id, key, request_hash, status_code, response)
    VALUES (p_operator, p_key, p_request_hash, 201, (p_answer_head || balance || '}')::json)
    ON CONFLICT DO NOTHING;
    IF NOT FOUND THEN
        balance := NULL;
        RETURN;
    END IF;
    UPDATE wallet_accounts SET balance = wallet_accounts.balance - v_total, updated_at = now()
     WHERE operator_id = p_operator AND player_id = p_player AND currency = p_currency;
    INSERT INTO wallet_bets (bet_id, slip_id, operator_id, player_id, round_id, table_id,
                             bet_type, stake, currency, placed_at)
    SELECT b.bet_id, p_slip, p_operator, p_player, p_round, p_table, b.bet_type, b.stake,
           p_currency, p_placed_at
      FROM unnest(p_bet_ids, p_bet_types, p_stakes) WITH ORDINALITY
           AS b(bet_id, bet_type, stake, n)
     ORDER BY b.n;
    INSERT INTO wallet_ledger (account, operator_id, player_id, currency, amount, kind,
                               reference)
    SELECT e.account, p_operator, e.player_id, p_currency, e.amount, e.kind, e.reference
      FROM unnest(p_ledger_accounts, p_ledger_players, p_ledger_amounts, p_ledger_kinds,
                  p_ledger_references) AS e(account, player_id, amount, kind, reference);
    -- the player's balance before its first slip on the round (the last games' recall)
    INSERT INTO wallet_round_balances (operator_id, player_id, round_id, currency,
                                       balance_before)
    VALUES (p_operator, p_player, p_round, p_currency, v_balance)
    ON CONFLICT DO NOTHING;
    PERFORM event_append(p_stream, v_version, p_table, p_occurred_at, p_correlation_id, NULL,
                         p_producer, p_event_type, p_schema_version, p_payload,
                         p_trace_context);
    outcome := 'taken';
END $$;
-- Several slips in one statement, one transaction, one commit (slip_batches.py): each placed
-- by `wallet_place_slip` in order, its answer a row in the same order. The slips come as
-- arrays of one element a slip; their bets and ledger entries one after another, each slip's
-- count in `p_bet_counts` and `p_ledger_counts`. A slip a guard refused wrote nothing, so the
-- others stand; an error fails them all, and the wallet then places each alone.
CREATE FUNCTION wallet_place_slips(
    p_operator text[], p_player text[], p_stream text[], p_currency text[], p_round text[],
    p_table text[], p_placed_at timestamptz[], p_grace interval,
    p_key text[], p_request_hash text[], p_answer_head text[],
    p_slip uuid[], p_bet_counts integer[], p_bet_ids uuid[], p_bet_types text[],
    p_stakes bigint[], p_maxima bigint[], p_ledger_counts integer[],
    p_ledger_accounts text[], p_ledger_players text[], p_ledger_amounts bigint[],
    p_ledger_kinds text[], p_ledger_references text[],
    p_occurred_at timestamptz[], p_correlation_id uuid[], p_producer text[],
    p_event_type text[], p_schema_version integer[], p_payload json[], p_trace_context text[]
) RETURNS TABLE (outcome text, balance bigint) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    b integer := 1;  -- the slip's first bet in the bet arrays
    l integer := 1;  -- its first ledger entry
    b_end integer;
    l_end integer;
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_slip, 1), 0) LOOP
        b_end := b + p_bet_counts[i] - 1;
        l_end := l + p_ledger_counts[i] - 1;
        SELECT placed.outcome, placed.balance INTO outcome, balance
          FROM wallet_place_slip(
              p_operator[i], p_player[i], p_stream[i], p_currency[i], p_round[i], p_table[i],
              p_placed_at[i], p_grace, p_key[i], p_request_hash[i], p_answer_head[i],
              p_slip[i], p_bet_ids[b:b_end], p_bet_types[b:b_end], p_stakes[b:b_end],
              p_maxima[b:b_end], p_ledger_accounts[l:l_end], p_ledger_players[l:l_end],
              p_ledger_amounts[l:l_end], p_ledger_kinds[l:l_end], p_ledger_references[l:l_end],
              p_occurred_at[i], p_correlation_id[i], p_producer[i], p_event_type[i],
              p_schema_version[i], p_payload[i], p_trace_context[i]) AS placed;
        RETURN NEXT;
        b := b_end + 1;
        l := l_end + 1;
    END LOOP;
END $$;
