"""The committed OpenAPI documents (docs/openapi/) describe every HTTP API whole: each operation
has an operationId, a summary and a description, and the security it takes (none only for the
probes and the launch, whose ticket is the credential); every parameter and every field of
every schema has a description; every operation that moves money or opens a session has
examples of its request and answer, and each example fits its schema."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest

from teenpatti_tools.openapi import OPENAPI_DIR

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ("scanner-gateway", "settlement", "table", "wallet", "web")
METHODS = ("get", "put", "post", "delete", "patch")

# open to all: the probes, and the launch (the single-use ticket in its body is the credential)
PUBLIC = frozenset({"health", "ready", "launch_session"})
# what moves money or opens a session, besides every write of the wallet and the settlement
MONEY_READS = frozenset(
    {
        "balances",
        "bet",
        "my_balance",
        "transactions",
        "round_settlement",
        "bet_settlement",
    }
)
MONEY_SERVICES = frozenset({"wallet", "settlement"})


def _load(service: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        (ROOT / OPENAPI_DIR / f"{service}.json").read_text(encoding="utf-8")
    )
    return document


@pytest.fixture(scope="module", params=SERVICES)
def named(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    return request.param, _load(request.param)


def test_every_service_has_its_document() -> None:
    assert sorted(path.stem for path in (ROOT / OPENAPI_DIR).glob("*.json")) == sorted(SERVICES)


def test_the_document_is_described_whole(named: tuple[str, dict[str, Any]]) -> None:
    service, document = named
    assert not undescribed(service, document)


def test_every_operation_but_the_public_ones_names_its_security(
    named: tuple[str, dict[str, Any]],
) -> None:
    assert not unsecured(named[1])


def test_money_and_sessions_have_examples_that_fit(named: tuple[str, dict[str, Any]]) -> None:
    service, document = named
    assert not missing_examples(service, document)


def test_a_slip_needs_its_idempotency_key() -> None:
    post = _load("wallet")["paths"]["/bets"]["post"]
    [header] = [p for p in post["parameters"] if p["name"] == "Idempotency-Key"]
    assert header["in"] == "header" and header["required"] is True
    assert {"playerSession", "operatorKey"} == {n for s in post["security"] for n in s}


def test_the_checks_find_what_is_missing() -> None:
    document = _load("wallet")
    post = document["paths"]["/players/{player_id}/deposits"]["post"]
    del post["description"]
    post["parameters"][0].pop("description")
    post.pop("security")
    transfer = document["components"]["schemas"]["TransferCreate"]
    transfer["properties"]["amount"].pop("description")
    transfer.pop("examples")

    problems = undescribed("wallet", document)
    assert "POST /players/{player_id}/deposits: no description" in problems
    assert "POST /players/{player_id}/deposits: parameter player_id has no description" in problems
    assert "wallet #/components/schemas/TransferCreate/properties/amount: no description" in (
        problems
    )
    assert unsecured(document) == ["POST /players/{player_id}/deposits: no security"]
    # deposits and withdrawals share their request's model
    assert missing_examples("wallet", document) == [
        "POST /players/{player_id}/deposits: the request has no example",
        "POST /players/{player_id}/withdrawals: the request has no example",
    ]

    # an example that does not fit its schema is found too
    transfer["examples"] = [{"transfer_id": "t-1", "currency": "INR", "amount": -5}]
    wrong = missing_examples("wallet", document)
    assert len(wrong) == 2
    assert wrong[0].startswith("POST /players/{player_id}/deposits: an example of the request")


# ------------------------------------------------------------------------------ the checks
def operations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield f"{method.upper()} {path}", item[method]


def undescribed(service: str, document: dict[str, Any]) -> list[str]:
    problems = []
    for name, operation in operations(document):
        for key in ("operationId", "summary", "description"):
            if not operation.get(key):
                problems.append(f"{name}: no {key}")
        for parameter in operation.get("parameters", []):
            if not parameter.get("description"):
                problems.append(f"{name}: parameter {parameter['name']} has no description")
    for pointer, properties in _properties(document, "#"):
        for field, schema in properties.items():
            if not schema.get("description"):
                problems.append(f"{service} {pointer}/properties/{field}: no description")
    return problems


def unsecured(document: dict[str, Any]) -> list[str]:
    schemes = document.get("components", {}).get("securitySchemes", {})
    problems = []
    for name, operation in operations(document):
        if operation["operationId"] in PUBLIC:
            if operation.get("security"):
                problems.append(f"{name}: public, yet names a security")
            continue
        security = operation.get("security")
        if not security:
            problems.append(f"{name}: no security")
            continue
        for requirement in security:
            for scheme in requirement:
                if not schemes.get(scheme, {}).get("description"):
                    problems.append(f"{name}: the scheme {scheme} is not described")
    return problems


def missing_examples(service: str, document: dict[str, Any]) -> list[str]:
    problems = []
    for name, operation in operations(document):
        moves = operation["operationId"] in MONEY_READS or (
            service in MONEY_SERVICES and not name.startswith(("GET", "DELETE"))
        )
        if not moves:
            continue
        body = operation.get("requestBody", {}).get("content", {}).get("application/json")
        parts = [("request", body)] if body is not None else []
        answers = [
            response.get("content", {}).get("application/json")
            for status, response in operation["responses"].items()
            if str(status).startswith("2")
        ]
        parts += [("answer", answer) for answer in answers if answer is not None]
        if not answers or all(answer is None for answer in answers):
            problems.append(f"{name}: no JSON answer")
        for part, media in parts:
            assert media is not None
            examples = _examples(document, media)
            if not examples:
                problems.append(f"{name}: the {part} has no example")
            validator = jsonschema_rs.Draft202012Validator(
                {**document, **media["schema"]}, validate_formats=True
            )
            for example in examples:
                if not validator.is_valid(example):
                    problems.append(f"{name}: an example of the {part} does not fit: {example}")
    return problems


def _examples(document: dict[str, Any], media: dict[str, Any]) -> list[Any]:
    """A media type's examples: its own, else its schema's (a model's `examples`)."""
    found = [example["value"] for example in media.get("examples", {}).values()]
    if "example" in media:
        found.append(media["example"])
    schema = media.get("schema", {})
    if "$ref" in schema:
        schema = _resolve(document, schema["$ref"])
    return found or list(schema.get("examples", []))


def _properties(node: Any, pointer: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every `properties` of a schema anywhere in the document, with where it is."""
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict) and node.get("type") == "object":
            yield pointer, node["properties"]
        for key, value in node.items():
            if key not in ("examples", "example"):
                yield from _properties(value, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _properties(item, f"{pointer}/{index}")


def _resolve(document: dict[str, Any], reference: str) -> Any:
    node: Any = document
    for part in reference.removeprefix("#/").split("/"):
        node = node[part]
    return node
