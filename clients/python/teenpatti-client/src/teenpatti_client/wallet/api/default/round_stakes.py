from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.round_stakes_public import RoundStakesPublic
from ...types import Response


def _get_kwargs(
    round_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/rounds/{round_id}/stakes".format(
            round_id=quote(str(round_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RoundStakesPublic | None:
    if response.status_code == 200:
        response_200 = RoundStakesPublic.from_dict(response.json())

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
) -> Response[Problem | RoundStakesPublic]:
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
) -> Response[Problem | RoundStakesPublic]:
    """Round Stakes

     Every operator's bets on a round: how many and their stakes, per currency and bet type. A
    supervisor's key, scoped to the round's table.

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundStakesPublic]
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
) -> Problem | RoundStakesPublic | None:
    """Round Stakes

     Every operator's bets on a round: how many and their stakes, per currency and bet type. A
    supervisor's key, scoped to the round's table.

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundStakesPublic
    """

    return sync_detailed(
        round_id=round_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    round_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[Problem | RoundStakesPublic]:
    """Round Stakes

     Every operator's bets on a round: how many and their stakes, per currency and bet type. A
    supervisor's key, scoped to the round's table.

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RoundStakesPublic]
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
) -> Problem | RoundStakesPublic | None:
    """Round Stakes

     Every operator's bets on a round: how many and their stakes, per currency and bet type. A
    supervisor's key, scoped to the round's table.

    Args:
        round_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RoundStakesPublic
    """

    return (
        await asyncio_detailed(
            round_id=round_id,
            client=client,
        )
    ).parsed
