"""The operator client (clients/python/teenpatti-client) is what openapi-python-client makes of
the committed OpenAPI documents, file for file, and covers what an operator calls."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from teenpatti_tools.operator_client import (
    OPERATOR_API,
    PACKAGE,
    ClientGenerationError,
    client_files,
    committed_specs,
    operator_document,
    stale_client_files,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_client_is_what_the_generator_makes_of_the_committed_documents() -> None:
    generated = client_files(committed_specs(ROOT))

    differing = []
    for path, text in generated.items():
        committed = (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).is_file() else ""
        if committed != text:
            diff = difflib.unified_diff(
                committed.splitlines(), text.splitlines(), str(path), "generated", lineterm=""
            )
            differing.append("\n".join(list(diff)[:20]))
    stale = stale_client_files(ROOT, generated)
    assert not differing and not stale, (
        "run `make contracts`: the client differs from the committed documents\n"
        + "\n".join(differing)
        + "".join(f"\nnot generated any more: {path}" for path in stale)
    )
    # one module per operation the operator calls, named by its operationId
    for service, operations in OPERATOR_API.items():
        for operation in operations:
            assert PACKAGE / service / "api" / "default" / f"{operation}.py" in generated


def test_the_key_is_the_client_s_and_only_the_operator_s_operations_are_kept() -> None:
    document = json.loads((ROOT / "docs/openapi/wallet.json").read_text(encoding="utf-8"))

    cut = operator_document("wallet", document)

    operations = {
        operation["operationId"]: operation
        for item in cut["paths"].values()
        for operation in item.values()
    }
    assert sorted(operations) == sorted(OPERATOR_API["wallet"])
    deposit = operations["deposit"]
    assert deposit["security"] == [{"operatorKey": []}]
    assert cut["components"]["securitySchemes"]["operatorKey"]["name"] == "X-Api-Key"
    # schemas no kept operation uses are not generated (the player's `/me` answers)
    assert "PlayerPublic" in document["components"]["schemas"]
    assert "PlayerPublic" not in cut["components"]["schemas"]
    assert "TransferCreate" in cut["components"]["schemas"]


def test_an_operation_without_the_key_stops_the_generator() -> None:
    document = json.loads((ROOT / "docs/openapi/wallet.json").read_text(encoding="utf-8"))
    document["paths"]["/players/{player_id}/deposits"]["post"]["security"] = [{"playerSession": []}]

    with pytest.raises(ClientGenerationError, match=r"deposit .* takes no X-Api-Key"):
        operator_document("wallet", document)


def test_an_operation_gone_from_a_document_stops_the_generator() -> None:
    document = json.loads((ROOT / "docs/openapi/settlement.json").read_text(encoding="utf-8"))
    del document["paths"]["/bets/{bet_id}/settlement"]

    with pytest.raises(ClientGenerationError, match="no operation bet_settlement"):
        operator_document("settlement", document)


def test_docs_show_the_example_as_it_is() -> None:
    """docs/operators.md shows the integration example verbatim; the integration test runs
    the file (tests/integration/wallet/test_operator_client.py)."""
    example = (ROOT / "clients/python/teenpatti-client/examples/transfer_operator.py").read_text(
        encoding="utf-8"
    )
    docs = (ROOT / "docs/operators.md").read_text(encoding="utf-8")
    marker = "<!-- the example file, verbatim (tests/unit/test_operator_client.py) -->\n```python\n"
    assert marker in docs
    shown = docs.split(marker, 1)[1].split("```\n", 1)[0]
    assert shown == example
