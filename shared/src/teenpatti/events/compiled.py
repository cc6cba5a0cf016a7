"""Compiled decoders: msgspec structs derived field by field from the pydantic event contracts,
for the event types decoded most (a replay's table events, a settlement part's lines).

A compiled decoder is as strict as its contract or stricter, never laxer: what it accepts,
the pydantic model accepts with the same values, and it builds that model (the same fields,
the same `model_fields_set`) without validating it again. What it refuses goes to the model's
own validator, which accepts it (a form the decoder does not take: `1.0` or `"1"` for an int,
a braced UUID, a time as a number) or refuses it with its usual message. So a registry that
uses one answers as the model does; only the cost changes. The tests hold the two equal over
generated payloads and their mutations (tests/unit/test_compiled_decoders.py);
docs/decisions/0102-compiled-event-decoders.md.

A pattern whose language is a few strings (a card code, a position) becomes the Literal of
them, which msgspec checks by a lookup instead of a regular expression. An AwareDatetime's
offset is the standard library's `timezone`, where pydantic's is its own `TzInfo`: the same
instant and offset, equal either way.

Only what the derivation knows is compiled: str, int, float and bool with pydantic's length,
bound and pattern constraints, Literal, UUID, AwareDatetime, Any, `X | None`, lists, dicts and
nested frozen models that forbid unknown fields. A model with a validator of its own, an
alias, a default factory or any other setting is refused (`NotCompilableError`), so a
contract that changes beyond these is never decoded by a stale copy of itself.
"""

from __future__ import annotations

import itertools
import re
import types
import typing
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from re import _constants as sre_constants  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Annotated, Any, Generic, Literal, TypeVar, Union

import annotated_types
import msgspec
from pydantic import AwareDatetime, BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

M = TypeVar("M", bound=BaseModel)
Converter = Callable[[Any], Any]

# what a compiled decoder raises for a payload it does not take: the model's validator decides
REFUSED: tuple[type[Exception], ...] = (msgspec.MsgspecError, ValueError)

# the model settings the derivation knows: none of them changes what validation accepts
_KNOWN_CONFIG = frozenset({"frozen", "extra", "use_attribute_docstrings", "title"})
# AwareDatetime as text in the RFC 3339 form pydantic writes, then `datetime.fromisoformat`
# (not msgspec's datetime, which rounds a seventh digit of a second where pydantic truncates
# it); any other form pydantic accepts (a space, `z`, more digits, a number of seconds) is
# refused here and left to pydantic
_DATETIME = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?"
        r"(Z|[+-][0-9]{2}:[0-9]{2})\Z"
    ),
]
_NONE = type(None)


class NotCompilableError(TypeError):
    """A contract using something the derivation does not know: it stays with pydantic alone."""


@dataclass(frozen=True)
class CompiledDecoder(Generic[M]):
    """A model's compiled decoder: `from_json` from JSON text, `from_python` from a payload
    already parsed from JSON. Each raises one of `REFUSED` for a payload it does not take."""

    model: type[M]
    struct: type[msgspec.Struct]
    build: Callable[[msgspec.Struct], M]
    from_json: Callable[[str | bytes], M]

    def from_python(self, payload: Mapping[str, Any]) -> M:
        return self.build(msgspec.convert(payload, self.struct, strict=True))


def compile_decoder(
    model: type[M], interned: Collection[type[BaseModel]] = ()
) -> CompiledDecoder[M]:
    """The model's compiled decoder; `NotCompilableError` names what the derivation lacks.
    The nested models `interned` (values that repeat from event to event, such as a round's
    stake limits) are built once for equal values and shared, as frozen models may be."""
    struct, build = _compile_model(model, frozenset(interned))
    decode = msgspec.json.Decoder(struct).decode

    def from_json(payload_json: str | bytes) -> M:
        return build(decode(payload_json))

    return CompiledDecoder(model, struct, build, from_json)


# ------------------------------------------------------------------------------ models
def _compile_model(
    model: type[M], interned: frozenset[type[BaseModel]]
) -> tuple[type[msgspec.Struct], Callable[[msgspec.Struct], M]]:
    name = model.__name__
    config = dict(model.model_config)
    unknown = config.keys() - _KNOWN_CONFIG
    if unknown:
        raise NotCompilableError(f"{name}: model settings {sorted(unknown)}")
    if config.get("extra") != "forbid":
        raise NotCompilableError(f"{name}: unknown fields are not forbidden")
    decorators = model.__pydantic_decorators__
    if (
        decorators.validators
        or decorators.field_validators
        or decorators.root_validators
        or decorators.model_validators
    ):
        raise NotCompilableError(f"{name}: validators of its own")
    if (
        model.__pydantic_post_init__
        or model.__private_attributes__
        or model.__pydantic_root_model__
    ):
        raise NotCompilableError(f"{name}: post-init, private attributes or a root model")

    struct_fields: list[tuple[str, Any, Any]] = []
    converted: list[tuple[str, Converter]] = []
    defaults: list[tuple[str, Any]] = []
    for field_name, info in model.model_fields.items():
        _check_field(name, field_name, info)
        field_type, convert = _compile_type(
            info.annotation, info.metadata, interned, f"{name}.{field_name}"
        )
        if convert is not None:
            converted.append((field_name, convert))
        if info.is_required():
            struct_fields.append((field_name, field_type, msgspec.NODEFAULT))
        else:
            # absent from the payload: UNSET, then the model's default, left out of fields_set
            struct_fields.append((field_name, field_type | msgspec.UnsetType, msgspec.UNSET))
            defaults.append((field_name, info.default))
    # gc=False: a struct holds no cycle, and a part's thousand lines would wake the collector
    # an interned model's struct is frozen, so hashable: its key in the cache
    struct = msgspec.defstruct(
        f"{name}Struct",
        struct_fields,
        kw_only=True,
        forbid_unknown_fields=True,
        gc=False,
        frozen=model in interned,
    )
    build = _builder(model, converted, defaults)
    return struct, _interning(build) if model in interned else build


def _check_field(model_name: str, field_name: str, info: FieldInfo) -> None:
    where = f"{model_name}.{field_name}"
    if info.alias is not None or info.validation_alias is not None:
        raise NotCompilableError(f"{where}: an alias")
    if info.default_factory is not None:
        raise NotCompilableError(f"{where}: a default factory")
    if info.discriminator is not None:
        raise NotCompilableError(f"{where}: a discriminator")
    default = info.default
    if default is not PydanticUndefined and not isinstance(default, str | int | float | _NONE):
        # a mutable default would be shared by every model built; pydantic copies it
        raise NotCompilableError(f"{where}: a default of {type(default).__name__}")


_new = object.__new__
# BaseModel's slots, set through their descriptors: cheaper than object.__setattr__ per model
_slots = BaseModel.__dict__
_set_dict = _slots["__dict__"].__set__
_set_fields_set = _slots["__pydantic_fields_set__"].__set__
_set_extra = _slots["__pydantic_extra__"].__set__
_set_private = _slots["__pydantic_private__"].__set__
_asdict = msgspec.structs.asdict
_UNSET = msgspec.UNSET


def _builder(
    model: type[M], converted: list[tuple[str, Converter]], defaults: list[tuple[str, Any]]
) -> Callable[[msgspec.Struct], M]:
    """The model from a decoded struct, as `model_construct` makes it (the same `__dict__`,
    fields set, no extra, no private values) without its per-field bookkeeping. Names are
    bound as default arguments: this runs once per model decoded (a thousand for a part)."""
    names = frozenset(model.model_fields)

    if not converted and not defaults:

        def build_plain(struct: msgspec.Struct, model: type[M] = model) -> M:
            return checked(model, _asdict(struct))  # every field set: its struct has them all

        return build_plain

    def build(
        struct: msgspec.Struct,
        model: type[M] = model,
        names: frozenset[str] = names,
        converted: list[tuple[str, Converter]] = converted,
        defaults: list[tuple[str, Any]] = defaults,
    ) -> M:
        values = _asdict(struct)
        for name, convert in converted:
            value = values[name]
            if value is not None and value is not _UNSET:
                values[name] = convert(value)
        fields_set = set(names)
        for name, default in defaults:
            if values[name] is _UNSET:
                values[name] = default
                fields_set.discard(name)
        instance = _new(model)
        _set_dict(instance, values)
        _set_fields_set(instance, fields_set)
        _set_extra(instance, None)
        _set_private(instance, None)
        return instance

    return build


def checked(model: type[M], values: dict[str, Any]) -> M:
    """`model` holding `values` that are already what its fields take (each validated where
    it came from, or computed within its field's bounds), built as `model_construct` makes
    it without validating them again: every field given, `values` becoming its `__dict__`.
    For the hot paths that build events from checked parts (the wallet's `BetsPaid`); a
    test holds what each caller builds equal to the same values validated."""
    instance = _new(model)
    _set_dict(instance, values)
    _set_fields_set(instance, set(values))
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance


_MOST_INTERNED = 4096


def _interning(build: Callable[[msgspec.Struct], M]) -> Callable[[msgspec.Struct], M]:
    """`build`, giving one model for equal structs (frozen models are values): a round's six
    stake limits are built once, not in each of the table's rounds."""
    cache: dict[msgspec.Struct, M] = {}

    def interned(struct: msgspec.Struct) -> M:
        model = cache.get(struct)
        if model is None:
            if len(cache) >= _MOST_INTERNED:
                cache.clear()
            model = cache[struct] = build(struct)
        return model

    return interned


# ------------------------------------------------------------------------------ types
def _compile_type(
    annotation: Any, metadata: list[Any], interned: frozenset[type[BaseModel]], where: str
) -> tuple[Any, Converter | None]:
    """The msgspec type of a pydantic annotation with its constraints, and the function that
    turns what msgspec decodes into what pydantic holds (None: the value as decoded)."""
    if typing.get_origin(annotation) is Annotated:
        inner, *extras = typing.get_args(annotation)
        more: list[Any] = []
        for extra in extras:
            if not isinstance(extra, FieldInfo):
                raise NotCompilableError(f"{where}: annotation {extra!r}")
            _check_inner_field(extra, where)
            more += extra.metadata
        return _compile_type(inner, [*metadata, *more], interned, where)
    meta = _meta(metadata, where)
    origin = typing.get_origin(annotation)

    if annotation is AwareDatetime:
        _no_meta(meta, where)
        return _DATETIME, datetime.fromisoformat
    if annotation is bool or annotation is uuid.UUID or annotation is Any:
        _no_meta(meta, where)
        return annotation, None
    if annotation is str and "pattern" in meta:
        words = _finite_language(meta["pattern"])
        if words is not None:
            # every word matches, so the lengths asked are checked once here, not per value
            low, high = meta.get("min_length", 0), meta.get("max_length", len(max(words, key=len)))
            words = [word for word in words if low <= len(word) <= high]
            if meta.keys() - {"pattern", "min_length", "max_length"} or not words:
                raise NotCompilableError(f"{where}: a pattern with other constraints")
            return Literal[tuple(words)], None
    if annotation in (str, int, float):
        return _constrained(annotation, meta), None
    if origin is Literal:
        _no_meta(meta, where)
        if not all(isinstance(value, str) for value in typing.get_args(annotation)):
            raise NotCompilableError(f"{where}: a Literal of other than text")
        return annotation, None
    if origin in (Union, types.UnionType):
        args = typing.get_args(annotation)
        others = [arg for arg in args if arg is not _NONE]
        if len(args) != 2 or len(others) != 1:
            raise NotCompilableError(f"{where}: a union other than `X | None`")
        # the constraints of `Annotated[X | None, ...]` bind X, as pydantic applies them
        inner, convert = _compile_type(others[0], metadata, interned, where)
        return inner | None, convert
    if origin is list:
        (item,) = typing.get_args(annotation)
        item_type, convert_item = _compile_type(item, [], interned, f"{where}[]")
        compiled = _constrained(list[item_type], meta)  # type: ignore[valid-type]
        if convert_item is None:
            return compiled, None
        return compiled, lambda values: [convert_item(value) for value in values]
    if origin is dict:
        key, value = typing.get_args(annotation)
        key_type, convert_key = _compile_type(key, [], interned, f"{where} key")
        if convert_key is not None:
            raise NotCompilableError(f"{where}: a key that is converted")
        value_type, convert_value = _compile_type(value, [], interned, f"{where}[...]")
        compiled = _constrained(dict[key_type, value_type], meta)  # type: ignore[valid-type]
        if convert_value is None:
            return compiled, None
        return compiled, lambda items: {k: convert_value(v) for k, v in items.items()}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        _no_meta(meta, where)
        return _compile_model(annotation, interned)
    raise NotCompilableError(f"{where}: type {annotation!r}")


def _check_inner_field(info: FieldInfo, where: str) -> None:
    """A `Field(...)` inside an annotation: only constraints, nothing else."""
    if (
        info.default is not PydanticUndefined
        or info.default_factory is not None
        or info.alias is not None
        or info.validation_alias is not None
        or info.discriminator is not None
    ):
        raise NotCompilableError(f"{where}: a Field inside an annotation with more than bounds")


_CONSTRAINTS: dict[type[Any], str] = {
    annotated_types.Gt: "gt",
    annotated_types.Ge: "ge",
    annotated_types.Lt: "lt",
    annotated_types.Le: "le",
    annotated_types.MinLen: "min_length",
    annotated_types.MaxLen: "max_length",
}


def _meta(metadata: list[Any], where: str) -> dict[str, Any]:
    """pydantic's constraints as msgspec.Meta arguments."""
    meta: dict[str, Any] = {}
    for item in metadata:
        key = _CONSTRAINTS.get(type(item))
        if key is not None:
            value = getattr(item, key)
        elif type(item).__name__ == "_PydanticGeneralMetadata" and item.__dict__.keys() == {
            "pattern"
        }:
            key, value = "pattern", _python_pattern(item.pattern, where)
        else:
            raise NotCompilableError(f"{where}: constraint {item!r}")
        if key in meta:
            raise NotCompilableError(f"{where}: {key} given twice")
        meta[key] = value
    return meta


def _python_pattern(pattern: str, where: str) -> str:
    """pydantic matches a pattern with Rust's regex, where `$` ends the text; Python's `$`
    also matches before a final newline, so the end is written `\\Z`."""
    if not isinstance(pattern, str) or not pattern.endswith("$") or pattern.endswith("\\$"):
        raise NotCompilableError(f"{where}: a pattern not anchored at its end: {pattern!r}")
    body = pattern[:-1]
    if "$" in body or "\\Z" in body or "(?" in body:
        raise NotCompilableError(f"{where}: pattern syntax the derivation does not map")
    translated = body + "\\Z"
    re.compile(translated)
    return translated


def _constrained(base: Any, meta: dict[str, Any]) -> Any:
    return Annotated[base, msgspec.Meta(**meta)] if meta else base


def _no_meta(meta: dict[str, Any], where: str) -> None:
    if meta:
        raise NotCompilableError(f"{where}: constraints {sorted(meta)} on a type that takes none")


# ------------------------------------------------------------------------------ patterns
# a currency code (`[A-Z]{3}`, 17,576 words) is checked by a lookup too
_MOST_WORDS = 20_000


def _finite_language(pattern: str) -> list[str] | None:
    """Every text the anchored pattern (as `_python_pattern` writes it) matches, in a stable
    order, when they are a few; None when they are many or the syntax is beyond a few forms
    (literals, classes of literals and ranges, alternatives, groups, bounded repeats)."""
    body = pattern.removeprefix("^").removesuffix("\\Z")
    if body == pattern or len(body) != len(pattern) - 3:
        return None
    try:
        words = _words(list(sre_parse.parse(body)))
    except _TooMany:
        return None
    return None if words is None else sorted(words)


class _TooMany(Exception):
    pass


def _words(items: list[tuple[Any, Any]]) -> set[str] | None:
    """The texts a parsed sequence matches, one item after another."""
    words = {""}
    for op, argument in items:
        one = _item_words(op, argument)
        if one is None:
            return None
        words = {head + tail for head, tail in itertools.product(words, one)}
        if len(words) > _MOST_WORDS:
            raise _TooMany
    return words


def _item_words(op: Any, argument: Any) -> set[str] | None:
    if op is sre_constants.LITERAL:
        return {chr(argument)}
    if op is sre_constants.IN:
        chars: set[str] = set()
        for kind, value in argument:
            if kind is sre_constants.LITERAL:
                chars.add(chr(value))
            elif kind is sre_constants.RANGE:
                if value[1] - value[0] > _MOST_WORDS:
                    raise _TooMany
                chars.update(chr(code) for code in range(value[0], value[1] + 1))
            else:
                return None  # a negation or a category (\d, \w): Unicode-wide
        return chars
    if op is sre_constants.BRANCH:
        union: set[str] = set()
        for branch in argument[1]:
            words = _words(list(branch))
            if words is None:
                return None
            union |= words
        return union
    if op is sre_constants.SUBPATTERN:
        _, add_flags, del_flags, inner = argument
        return None if add_flags or del_flags else _words(list(inner))
    if op is sre_constants.MAX_REPEAT:
        low, high, inner = argument
        if high is sre_constants.MAXREPEAT or high > 8:
            return None
        once = _words(list(inner))
        if once is None:
            return None
        repeated: set[str] = set()
        for count in range(low, high + 1):
            repeated |= _words([(sre_constants.SUBPATTERN, (None, 0, 0, inner))] * count) or set()
        return repeated
    return None
