"""The services' garbage collector hook: full collections walk only recent survivors, and all
of them once every `every` seconds."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from teenpatti.kernel.process import FreezeSurvivors


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def survivors() -> Iterator[tuple[FreezeSurvivors, list[float]]]:
    now = [0.0]
    hook = FreezeSurvivors(every=600.0, clock=lambda: now[0])
    others = [callback for callback in gc.callbacks if isinstance(callback, FreezeSurvivors)]
    for callback in others:  # a service runtime started in this test process
        gc.callbacks.remove(callback)
    gc.unfreeze()
    gc.callbacks.append(hook)
    try:
        yield hook, now
    finally:
        gc.callbacks.remove(hook)
        gc.callbacks.extend(others)
        gc.unfreeze()


def test_a_full_collection_freezes_what_survived_it(survivors):
    kept = Cycle()
    gc.collect()
    assert gc.get_freeze_count() > 0
    assert not any(obj is kept for obj in gc.get_objects())  # frozen: no longer walked


def test_younger_collections_freeze_nothing(survivors):
    gc.collect(0)
    gc.collect(1)
    assert gc.get_freeze_count() == 0


def test_a_cycle_among_frozen_objects_is_freed_after_the_periodic_thaw(survivors):
    _, now = survivors
    doomed = Cycle()
    gc.collect()  # survives, frozen
    del doomed
    gc.collect()
    assert any(type(obj) is Cycle for obj in _frozen_and_live())  # frozen cycles are kept

    now[0] = 600.0
    gc.collect()  # the thaw: everything goes back to the collector
    assert gc.get_freeze_count() == 0
    gc.collect()  # walks everything once, frees the cycle, then freezes again
    assert not any(type(obj) is Cycle for obj in _frozen_and_live())
    assert gc.get_freeze_count() > 0


def _frozen_and_live() -> list[object]:
    """Every object the collector tracks, frozen ones included (leaves them frozen again
    only if they were)."""
    frozen = gc.get_freeze_count()
    gc.unfreeze()
    try:
        return gc.get_objects()
    finally:
        if frozen:
            gc.freeze()
