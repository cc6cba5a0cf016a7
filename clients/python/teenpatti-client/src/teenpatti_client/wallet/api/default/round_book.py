from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.round_book_public import RoundBookPublic
from ...types import Response


def _get_kwargs(
    round_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/rounds/{round_id}/book".format(
            round_id=quote(str(round_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RoundBookPublic | None:
    if response.status_code == 200:
        response_200 = RoundBookPublic.from_dict(response.json())

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
) -> Response[Problem | RoundBookPublic]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    round_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | RoundBookPublic]:
    """Round Book

     A round as the wallet knows it (status, timings, cards and result) with the asking operator's
    bets on it and their stakes per currency. An operator's key; a round the wallet never heard
    of: 404 `unknown_round`.

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundBookPublic]
    """

    kwargs = _get_kwargs(
        round_id=round_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    round_id: str,
    *,
    client: AuthenticatedClient,
) -> Problem | RoundBookPublic | None:
    """Round Book

     A round as the wallet knows it (status, timings, cards and result) with the asking operator's
    bets on it and their stakes per currency. An operator's key; a round the wallet never heard
    of: 404 `unknown_round`.

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundBookPublic
    """

    return sync_detailed(
        round_id=round_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    round_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | RoundBookPublic]:
    """Round Book

     A round as the wallet knows it (status, timings, cards and result) with the asking operator's
    bets on it and their stakes per currency. An operator's key; a round the wallet never heard
    of: 404 `unknown_round`.

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundBookPublic]
    """

    kwargs = _get_kwargs(
        round_id=round_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    round_id: str,
    *,
    client: AuthenticatedClient,
) -> Problem | RoundBookPublic | None:
    """Round Book

     A round as the wallet knows it (status, timings, cards and result) with the asking operator's
    bets on it and their stakes per currency. An operator's key; a round the wallet never heard
    of: 404 `unknown_round`.

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundBookPublic
    """

    return (
        await asyncio_detailed(
            round_id=round_id,
            client=client,
        )
    ).parsed
