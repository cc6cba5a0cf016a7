"""Whether an event's payload schema changed backward compatibly: whether every payload valid
under the old JSON schema is valid under the new one, so that code built with the new event
class still reads every event stored under the old one, at the same `schema_version`.

Compatible: a new optional field; a field that becomes optional; an enum or a `Literal` that
gains values; a bound that widens (a larger maximum, a smaller minimum or length); an
integer that becomes a number; a type that gains an alternative (`int` to `int | None`).
Not compatible: a field removed (the event classes forbid unknown fields, so a stored payload
that has it no longer reads), a required field added, a type changed, an enum narrowed, a
bound tightened, a pattern or format changed. Titles, descriptions, defaults and examples do
not count. Pure: JSON schemas as pydantic writes them (`$defs`, `$ref`, `anyOf`) in, the
problems found out (none: compatible).
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

# bounds that refuse more as they grow, and those that refuse more as they shrink
_LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


def incompatibilities(old: Schema, new: Schema) -> list[str]:
    """What makes a payload valid under `old` invalid under `new`, one line per problem, each
    naming where in the payload (`bets[].stake`); empty when the change is compatible."""
    return _compare(old, new, old.get("$defs", {}), new.get("$defs", {}), "(payload)")


def _compare(old: Schema, new: Schema, old_defs: Schema, new_defs: Schema, at: str) -> list[str]:
    old, new = _resolve(old, old_defs), _resolve(new, new_defs)
    new_alternatives = _alternatives(new, new_defs)
    problems: list[str] = []
    for alternative in _alternatives(old, old_defs):
        found: list[list[str]] = [
            _compare_one(alternative, n, old_defs, new_defs, at) for n in new_alternatives
        ]
        # none: a new alternative takes it; else the closest one says what changed
        closest = min(found, key=len)
        problems.extend(closest)
    return problems


def _compare_one(
    old: Schema, new: Schema, old_defs: Schema, new_defs: Schema, at: str
) -> list[str]:
    if not _constraining(new):
        return []  # the new schema takes anything
    problems: list[str] = []
    old_type, new_type = old.get("type"), new.get("type")
    widened = old_type == "integer" and new_type == "number"
    if new_type is not None and old_type != new_type and not widened:
        return [f"{at}: its type changed from {old_type or 'any'} to {new_type}"]
    allowed, before = _values(new), _values(old)
    if allowed is not None:
        if before is None:
            problems.append(f"{at}: now limited to {allowed}")
        elif dropped := [value for value in before if value not in allowed]:
            problems.append(f"{at}: no longer takes {dropped}")
    for key in ("pattern", "format"):
        if key in new and old.get(key) != new[key]:
            problems.append(f"{at}: its {key} changed from {old.get(key)!r} to {new[key]!r}")
    for key in _LOWER_BOUNDS:
        if key in new and (key not in old or old[key] < new[key]):
            problems.append(f"{at}: {key} rose from {old.get(key)} to {new[key]}")
    for key in _UPPER_BOUNDS:
        if key in new and (key not in old or old[key] > new[key]):
            problems.append(f"{at}: {key} fell from {old.get(key)} to {new[key]}")
    problems += _compare_objects(old, new, old_defs, new_defs, at)
    if "items" in new:
        problems += _compare(old.get("items", {}), new["items"], old_defs, new_defs, f"{at}[]")
    return problems


def _compare_objects(
    old: Schema, new: Schema, old_defs: Schema, new_defs: Schema, at: str
) -> list[str]:
    problems: list[str] = []
    old_fields: Schema = old.get("properties", {})
    new_fields: Schema = new.get("properties", {})
    old_required, new_required = set(old.get("required", ())), set(new.get("required", ()))
    here = "" if at == "(payload)" else f"{at}."
    for name, schema in old_fields.items():
        if name in new_fields:
            problems += _compare(schema, new_fields[name], old_defs, new_defs, f"{here}{name}")
        elif new.get("additionalProperties") is False:
            problems.append(f"{here}{name}: removed")
    for name in sorted(new_required - old_required):
        if name in old_fields:
            problems.append(f"{here}{name}: now required")
        else:
            problems.append(f"{here}{name}: a new required field")
    extra = new.get("additionalProperties")
    if extra is False and old.get("additionalProperties", True) is not False:
        problems.append(f"{at}: no longer takes other keys")
    if isinstance(extra, dict):
        before = old.get("additionalProperties", {})
        problems += _compare(
            before if isinstance(before, dict) else {}, extra, old_defs, new_defs, f"{here}*"
        )
    old_patterns: Schema = old.get("patternProperties", {})
    for pattern, schema in new.get("patternProperties", {}).items():
        if pattern not in old_patterns:
            problems.append(f"{here}{pattern}: a new key pattern")
        else:
            problems += _compare(old_patterns[pattern], schema, old_defs, new_defs, f"{here}*")
    if "propertyNames" in new:
        problems += _compare(
            old.get("propertyNames", {}), new["propertyNames"], old_defs, new_defs, f"{here}(key)"
        )
    return problems


def _values(schema: Schema) -> list[Any] | None:
    """The values an `enum` or a `const` allows (pydantic writes a one-value Literal as a
    const); None: no such limit."""
    if "enum" in schema:
        return list(schema["enum"])
    return [schema["const"]] if "const" in schema else None


def _resolve(schema: Schema, defs: Schema) -> Schema:
    while "$ref" in schema:
        schema = {
            **defs[schema["$ref"].rsplit("/", 1)[1]],
            **{key: value for key, value in schema.items() if key != "$ref"},
        }
    return schema


def _alternatives(schema: Schema, defs: Schema) -> list[Schema]:
    """The schemas a value may match: each of an `anyOf` (or `oneOf`), else the schema."""
    listed = schema.get("anyOf") or schema.get("oneOf")
    if not listed:
        return [schema]
    return [
        alternative for each in listed for alternative in _alternatives(_resolve(each, defs), defs)
    ]


_NOT_CONSTRAINTS = {"title", "description", "default", "examples"}


def _constraining(schema: Schema) -> bool:
    return any(key not in _NOT_CONSTRAINTS for key in schema)
