"""The HTTP APIs' OpenAPI documents, `docs/openapi/<service>.json`: what each service's FastAPI
app answers at `/openapi.json`, for the four services and the web front's own routes.

Each app is built as the services build it (`Service.create_app`) with settings of the
defaults, whatever the environment says: building one opens nothing (no pool, no broker),
and nothing of the document depends on a setting. The JSON is written with sorted keys, so a
change to the code shows as a small diff (`make contracts`; tests/unit/test_generated_docs.py
fails while a committed file differs).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from teenpatti.migrations import declared_services
from teenpatti.settings import InfrastructureSettings
from web_service.app import create_app as create_web
from web_service.config import WebSettings

OPENAPI_DIR = Path("docs/openapi")
WEB = "web"


def apps() -> dict[str, FastAPI]:
    """Each documented app by its service's name: the declared services', then the web
    front's."""
    services = [load() for load in declared_services().values()]
    built = {
        service.name: service.create_app(service.settings.model_construct())
        for service in sorted(services, key=lambda service: service.name)
    }
    built[WEB] = create_web(WebSettings.model_construct(), InfrastructureSettings.model_construct())
    return built


def documents(built: Mapping[str, FastAPI] | None = None) -> dict[str, dict[str, Any]]:
    """Each app's OpenAPI document, by its service's name."""
    return {name: app.openapi() for name, app in (apps() if built is None else built).items()}


def generated(built: Mapping[str, FastAPI] | None = None) -> dict[Path, str]:
    """`docs/openapi/<service>.json` and its text, for each app."""
    return {
        OPENAPI_DIR / f"{name}.json": json.dumps(
            document, indent=2, sort_keys=True, ensure_ascii=False
        )
        + "\n"
        for name, document in documents(built).items()
    }
