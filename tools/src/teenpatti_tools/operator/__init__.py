"""The reference operator: a separate process that speaks the operator's side of the seamless
wallet protocol (/work/shared/operator-wallet.md, docs/operators.md "The reference operator"),
with its state in its own Postgres database and fault switches for tests, `make run` and
`make chaos`.

    uv run python -m teenpatti_tools.operator --port 8201 --private-key operator.pem \\
        --game-public-key game.pub.pem --admin-token-file admin-token
"""
