"""The services' OpenAPI documents as committed under docs/openapi/<service>.json, each as its
app serves it at /openapi.json (the operator client is generated from them)."""

from __future__ import annotations

import json
from pathlib import Path

from teenpatti.migrations import declared_services

SPECS_DIRECTORY = Path("docs/openapi")


def openapi_files() -> dict[Path, str]:
    """Each service's document (its path from the repository's root) and its JSON text."""
    files: dict[Path, str] = {}
    for name, load in sorted(declared_services().items()):
        service = load()
        # the routes only: settings as declared, nothing read from the environment
        app = service.create_app(service.settings.model_construct())
        text = json.dumps(app.openapi(), indent=2, ensure_ascii=False, sort_keys=False)
        files[SPECS_DIRECTORY / f"{name}.json"] = text + "\n"
    return files
