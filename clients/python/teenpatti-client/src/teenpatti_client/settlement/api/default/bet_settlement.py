from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.bet_with_round_public import BetWithRoundPublic
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    bet_id: UUID,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/bets/{bet_id}/settlement".format(
            bet_id=quote(str(bet_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> BetWithRoundPublic | Problem | None:
    if response.status_code == 200:
        response_200 = BetWithRoundPublic.from_dict(response.json())

        return response_200

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
) -> Response[BetWithRoundPublic | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    bet_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[BetWithRoundPublic | Problem]:
    """Bet Settlement

     One bet's settlement (outcome, returned, the pay line applied) with its round's. An
    operator's key; another operator's bet answers as one that does not exist: 404 `unknown_bet`.

    Args:
        bet_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BetWithRoundPublic | Problem]
    """

    kwargs = _get_kwargs(
        bet_id=bet_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    bet_id: UUID,
    *,
    client: AuthenticatedClient,
) -> BetWithRoundPublic | Problem | None:
    """Bet Settlement

     One bet's settlement (outcome, returned, the pay line applied) with its round's. An
    operator's key; another operator's bet answers as one that does not exist: 404 `unknown_bet`.

    Args:
        bet_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BetWithRoundPublic | Problem
    """

    return sync_detailed(
        bet_id=bet_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    bet_id: UUID,
    *,
    client: AuthenticatedClient,
) -> Response[BetWithRoundPublic | Problem]:
    """Bet Settlement

     One bet's settlement (outcome, returned, the pay line applied) with its round's. An
    operator's key; another operator's bet answers as one that does not exist: 404 `unknown_bet`.

    Args:
        bet_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BetWithRoundPublic | Problem]
    """

    kwargs = _get_kwargs(
        bet_id=bet_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    bet_id: UUID,
    *,
    client: AuthenticatedClient,
) -> BetWithRoundPublic | Problem | None:
    """Bet Settlement

     One bet's settlement (outcome, returned, the pay line applied) with its round's. An
    operator's key; another operator's bet answers as one that does not exist: 404 `unknown_bet`.

    Args:
        bet_id (UUID):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BetWithRoundPublic | Problem
    """

    return (
        await asyncio_detailed(
            bet_id=bet_id,
            client=client,
        )
    ).parsed
