"""The one error shape at every HTTP edge (RFC 9457 problem details).

Raise `ProblemError(status, code, detail)` anywhere in a route; `install_problem_handlers`
turns it, request validation errors and anything unexpected into
`application/problem+json` with a stable machine-readable `code`.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import asyncpg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from teenpatti.transient import SERVER_UNAVAILABLE

log = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"


class ProblemError(Exception):
    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra


def problem_response(
    status: int, code: str, detail: str, instance: str = "", **extra: Any
) -> JSONResponse:
    body = {
        "type": f"https://teenpatti.example/problems/{code}",
        "title": code.replace("_", " "),
        "status": status,
        "code": code,
        "detail": detail,
        "instance": instance,
        **extra,
    }
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON)


PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "description": "An RFC 9457 problem detail with a stable machine-readable code",
    "type": "object",
    "required": ["type", "title", "status", "code", "detail"],
    "properties": {
        "type": {"type": "string"},
        "title": {"type": "string"},
        "status": {"type": "integer"},
        "code": {"type": "string"},
        "detail": {"type": "string"},
        "instance": {"type": "string"},
    },
    "additionalProperties": True,
}


def operation_id(route: APIRoute) -> str:
    """A route's OpenAPI `operationId`: its function's name, so the committed specs and the
    client generated from them keep their names while paths and methods change."""
    return route.name


def document_problems(app: FastAPI) -> None:
    """Make the OpenAPI truthful about errors: every operation may answer a 4xx problem
    (`application/problem+json`), or a 503 one during an outage, and the error statuses a
    route declares (FastAPI's default 422 `HTTPValidationError` included) are problems
    too, which is what the handlers send."""
    generate = app.openapi
    documented: list[dict[str, Any]] = []

    def openapi() -> dict[str, Any]:
        if documented:
            return documented[0]
        schema = generate()
        schema.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
        content = {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}
        for path_item in schema.get("paths", {}).values():
            for operation in path_item.values():
                if not isinstance(operation, dict) or "responses" not in operation:
                    continue
                responses = operation["responses"]
                for status, response in responses.items():
                    if str(status)[0] in "45":
                        response["content"] = content
                responses.setdefault(
                    "4XX",
                    {"description": "a problem detail with a specific code", "content": content},
                )
                responses.setdefault(
                    "503",
                    {
                        "description": "service_unavailable: Postgres or Redis is down for the"
                        " moment; retry after Retry-After seconds",
                        "content": content,
                    },
                )
        schemas = schema["components"]["schemas"]
        for unused in ("HTTPValidationError", "ValidationError"):  # FastAPI's 422, replaced
            if f"#/components/schemas/{unused}" not in json.dumps(schema):
                schemas.pop(unused, None)
        documented.append(schema)
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def install_problem_handlers(app: FastAPI) -> None:
    document_problems(app)

    @app.exception_handler(ProblemError)
    async def _problem(request: Request, error: ProblemError) -> JSONResponse:
        return problem_response(
            error.status, error.code, error.detail, request.url.path, **error.extra
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        errors = [
            {"field": ".".join(str(p) for p in e["loc"]), "message": e["msg"]}
            for e in error.errors()
        ]
        first = errors[0] if errors else {"field": "", "message": "invalid request"}
        return problem_response(
            422,
            "invalid_request",
            f"{first['field']}: {first['message']}",
            request.url.path,
            errors=errors,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, error: StarletteHTTPException) -> JSONResponse:
        # 400: FastAPI could not parse the body at all (e.g. not UTF-8)
        code = {400: "invalid_request", 404: "not_found", 405: "method_not_allowed"}.get(
            error.status_code, "http_error"
        )
        return problem_response(error.status_code, code, str(error.detail), request.url.path)

    # Postgres text and jsonb cannot hold NUL (and jsonb no \u0000): such input reaches the
    # database only inside a command's transaction, which the error rolls back whole
    @app.exception_handler(asyncpg.CharacterNotInRepertoireError)
    @app.exception_handler(asyncpg.UntranslatableCharacterError)
    async def _unstorable(request: Request, error: Exception) -> JSONResponse:
        return problem_response(
            422,
            "invalid_text",
            "the request holds text that cannot be stored (e.g. a NUL character)",
            request.url.path,
        )

    async def _unavailable(request: Request, error: Exception) -> JSONResponse:
        log.warning("%s: a server is unavailable: %r", request.url.path, error)
        response = problem_response(
            503,
            "service_unavailable",
            "a server this service depends on is unavailable for the moment; retry (a slip"
            " with the same Idempotency-Key): a request is never applied twice",
            request.url.path,
        )
        response.headers["Retry-After"] = "1"
        return response

    for unavailable in SERVER_UNAVAILABLE:
        app.add_exception_handler(unavailable, _unavailable)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, error: Exception) -> JSONResponse:
        log.exception("unexpected error on %s", request.url.path)
        return problem_response(
            500, "internal_error", "the server failed; nothing was applied", request.url.path
        )
