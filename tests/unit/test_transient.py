"""A starting instance waits for a server that is restarting (`once_reachable`), and for
nothing else: an error that says the request is wrong, or a server still gone when the wait
is over, ends the start."""

from __future__ import annotations

import asyncpg
import pytest
from aiokafka.errors import (
    KafkaConnectionError,
    KafkaTimeoutError,
    NotControllerError,
    TopicAuthorizationFailedError,
)

from teenpatti.transient import once_reachable, unavailable


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "Connection refused"),
        asyncpg.CannotConnectNowError("the database system is starting up"),
        KafkaConnectionError("Unable to bootstrap from [('127.0.0.1', 19092)]"),
        KafkaTimeoutError(),
        NotControllerError(),
    ],
)
def test_a_server_restarting_is_unavailable(error: Exception) -> None:
    assert unavailable(error)


@pytest.mark.parametrize(
    "error",
    [
        TopicAuthorizationFailedError(),
        asyncpg.InvalidPasswordError("password authentication failed"),
        ValueError("bad setting"),
    ],
)
def test_a_refusal_is_not_unavailable(error: Exception) -> None:
    assert not unavailable(error)


class Flaky:
    """Fails with `errors` one after the other, then answers "up"."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.tries = 0

    async def __call__(self) -> str:
        self.tries += 1
        if self.errors:
            raise self.errors.pop(0)
        return "up"


async def test_it_tries_again_until_the_server_answers(caplog: pytest.LogCaptureFixture) -> None:
    attempt = Flaky(KafkaConnectionError("no broker"), ConnectionRefusedError(111, "refused"))
    assert await once_reachable("kafka", attempt, seconds=10) == "up"
    assert attempt.tries == 3
    waits = [
        r.getMessage() for r in caplog.records if "unreachable while starting" in r.getMessage()
    ]
    assert len(waits) == 2 and waits[0].startswith("kafka unreachable while starting")


async def test_a_refusal_ends_the_start_at_once() -> None:
    attempt = Flaky(TopicAuthorizationFailedError(), KafkaConnectionError("no broker"))
    with pytest.raises(TopicAuthorizationFailedError):
        await once_reachable("kafka", attempt, seconds=10)
    assert attempt.tries == 1


async def test_a_server_still_gone_after_the_wait_ends_the_start() -> None:
    attempt = Flaky(*(KafkaConnectionError(f"no broker {n}") for n in range(100)))
    with pytest.raises(KafkaConnectionError, match="no broker"):
        await once_reachable("kafka", attempt, seconds=0.6)
    # 0.25 s, then 0.5 s would pass the deadline: two tries
    assert attempt.tries == 2


async def test_no_wait_is_one_try() -> None:
    attempt = Flaky(ConnectionRefusedError(111, "refused"))
    with pytest.raises(ConnectionRefusedError):
        await once_reachable("postgres", attempt, seconds=0)
    assert attempt.tries == 1
