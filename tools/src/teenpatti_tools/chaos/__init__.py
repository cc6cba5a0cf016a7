"""`make chaos`: tables and players under load while processes (the reference operator, a
seamless operator's wallet server answering with faults, among them) are SIGKILLed and
restarted on a seeded schedule, then the invariants that say nothing was lost, checked end
to end.

    make chaos                                   # seed 1, 120 s, 2 instances of each service
    make chaos ARGS="--seed 7 --duration 300"    # or: uv run python -m teenpatti_tools.chaos --help

`plan` makes the schedule, `faults` carries it out, `checks` holds the end checks and
`run` ties them to a simulated studio (`teenpatti_tools.simulator`).
"""
