"""The table's rules, pure: time, ids and actors are passed in, nothing is read or written.

- `state`: `TableState` and the round in play, and `evolve`/`fold` from the event stream;
- `decisions`: what a command produces (`decide_open_table`, `decide_scan`, `decide_pause`,
  ...) or the `TableCommandError` that refuses it;
- `clock`: what the passing of time produces (`decide_clock`) and when (`next_clock_time`);
- `results`: the roadmap, each round as it ended (`ended_rounds`, `replay_results`).
"""
