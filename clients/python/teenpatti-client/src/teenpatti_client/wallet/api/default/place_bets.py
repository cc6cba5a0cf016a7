from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.slip_create import SlipCreate
from ...models.slip_public import SlipPublic
from ...types import Response


def _get_kwargs(
    *,
    body: SlipCreate,
    idempotency_key: str,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/bets",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SlipPublic | None:
    if response.status_code == 201:
        response_201 = SlipPublic.from_dict(response.json())

        return response_201

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if 400 <= response.status_code <= 499:
        response_4xx = Problem.from_dict(response.json())

        return response_4xx

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | SlipPublic]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SlipCreate,
    idempotency_key: str,
) -> Response[Problem | SlipPublic]:
    """Place Bets

     Place a slip: one to fifty bets on an open round, in one currency, taken together or refused
    together. With a player's session (its own player, currency and table) or an operator's key
    (naming `player_id` and `currency`); both at once: 400 `ambiguous_credentials`. The
    `Idempotency-Key` header is required: a retry answers the first answer byte for byte. For a
    transfer operator the stakes are taken from the wallet's balance (409 `insufficient_funds`);
    for a seamless one the wallet calls the operator's `bet` first (409 `operator_refused`, 503
    `operator_unavailable`: retry with the same key). Also refused: 404 `unknown_round`, 409
    `betting_closed`, 422 `below_minimum`, `above_maximum`, `exposure_limit`,
    `currency_not_accepted`, `invalid_bet`.

    Args:
        idempotency_key (str):
        body (SlipCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SlipPublic]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: SlipCreate,
    idempotency_key: str,
) -> Problem | SlipPublic | None:
    """Place Bets

     Place a slip: one to fifty bets on an open round, in one currency, taken together or refused
    together. With a player's session (its own player, currency and table) or an operator's key
    (naming `player_id` and `currency`); both at once: 400 `ambiguous_credentials`. The
    `Idempotency-Key` header is required: a retry answers the first answer byte for byte. For a
    transfer operator the stakes are taken from the wallet's balance (409 `insufficient_funds`);
    for a seamless one the wallet calls the operator's `bet` first (409 `operator_refused`, 503
    `operator_unavailable`: retry with the same key). Also refused: 404 `unknown_round`, 409
    `betting_closed`, 422 `below_minimum`, `above_maximum`, `exposure_limit`,
    `currency_not_accepted`, `invalid_bet`.

    Args:
        idempotency_key (str):
        body (SlipCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SlipPublic
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SlipCreate,
    idempotency_key: str,
) -> Response[Problem | SlipPublic]:
    """Place Bets

     Place a slip: one to fifty bets on an open round, in one currency, taken together or refused
    together. With a player's session (its own player, currency and table) or an operator's key
    (naming `player_id` and `currency`); both at once: 400 `ambiguous_credentials`. The
    `Idempotency-Key` header is required: a retry answers the first answer byte for byte. For a
    transfer operator the stakes are taken from the wallet's balance (409 `insufficient_funds`);
    for a seamless one the wallet calls the operator's `bet` first (409 `operator_refused`, 503
    `operator_unavailable`: retry with the same key). Also refused: 404 `unknown_round`, 409
    `betting_closed`, 422 `below_minimum`, `above_maximum`, `exposure_limit`,
    `currency_not_accepted`, `invalid_bet`.

    Args:
        idempotency_key (str):
        body (SlipCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SlipPublic]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SlipCreate,
    idempotency_key: str,
) -> Problem | SlipPublic | None:
    """Place Bets

     Place a slip: one to fifty bets on an open round, in one currency, taken together or refused
    together. With a player's session (its own player, currency and table) or an operator's key
    (naming `player_id` and `currency`); both at once: 400 `ambiguous_credentials`. The
    `Idempotency-Key` header is required: a retry answers the first answer byte for byte. For a
    transfer operator the stakes are taken from the wallet's balance (409 `insufficient_funds`);
    for a seamless one the wallet calls the operator's `bet` first (409 `operator_refused`, 503
    `operator_unavailable`: retry with the same key). Also refused: 404 `unknown_round`, 409
    `betting_closed`, 422 `below_minimum`, `above_maximum`, `exposure_limit`,
    `currency_not_accepted`, `invalid_bet`.

    Args:
        idempotency_key (str):
        body (SlipCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SlipPublic
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
