"""The seamless benchmark's pure helper: which processes make up the reference operator."""

from teenpatti_tools.bench import descendants


def test_descendants_are_the_root_and_every_process_below_it_only() -> None:
    # 10 is uvicorn's supervisor, 11 and 12 its workers, 13 a worker's child; 20 is elsewhere
    parent_of = {10: 1, 11: 10, 12: 10, 13: 11, 20: 1, 21: 20}

    assert descendants(10, parent_of) == {10, 11, 12, 13}
    assert descendants(21, parent_of) == {21}
    assert descendants(99, parent_of) == {99}
