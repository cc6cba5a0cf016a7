from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.transfer_create import TransferCreate
from ...models.transfer_public import TransferPublic
from ...types import Response


def _get_kwargs(
    player_id: str,
    *,
    body: TransferCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/players/{player_id}/deposits".format(
            player_id=quote(str(player_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | TransferPublic | None:
    if response.status_code == 200:
        response_200 = TransferPublic.from_dict(response.json())

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
) -> Response[Problem | TransferPublic]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    player_id: str,
    *,
    client: AuthenticatedClient,
    body: TransferCreate,
) -> Response[Problem | TransferPublic]:
    """Deposit

     Credit a transfer operator's player: the amount is added to its balance in the currency (an
    account opens with the first deposit). Idempotent by `transfer_id`. An operator's key;
    refused for a seamless operator (409 `seamless_operator`), above the balance limit (422
    `balance_limit_exceeded`), or with a `transfer_id` already used otherwise (422
    `transfer_id_reused`).

    Args:
        player_id (str):
        body (TransferCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TransferPublic]
    """

    kwargs = _get_kwargs(
        player_id=player_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    player_id: str,
    *,
    client: AuthenticatedClient,
    body: TransferCreate,
) -> Problem | TransferPublic | None:
    """Deposit

     Credit a transfer operator's player: the amount is added to its balance in the currency (an
    account opens with the first deposit). Idempotent by `transfer_id`. An operator's key;
    refused for a seamless operator (409 `seamless_operator`), above the balance limit (422
    `balance_limit_exceeded`), or with a `transfer_id` already used otherwise (422
    `transfer_id_reused`).

    Args:
        player_id (str):
        body (TransferCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TransferPublic
    """

    return sync_detailed(
        player_id=player_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    player_id: str,
    *,
    client: AuthenticatedClient,
    body: TransferCreate,
) -> Response[Problem | TransferPublic]:
    """Deposit

     Credit a transfer operator's player: the amount is added to its balance in the currency (an
    account opens with the first deposit). Idempotent by `transfer_id`. An operator's key;
    refused for a seamless operator (409 `seamless_operator`), above the balance limit (422
    `balance_limit_exceeded`), or with a `transfer_id` already used otherwise (422
    `transfer_id_reused`).

    Args:
        player_id (str):
        body (TransferCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TransferPublic]
    """

    kwargs = _get_kwargs(
        player_id=player_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    player_id: str,
    *,
    client: AuthenticatedClient,
    body: TransferCreate,
) -> Problem | TransferPublic | None:
    """Deposit

     Credit a transfer operator's player: the amount is added to its balance in the currency (an
    account opens with the first deposit). Idempotent by `transfer_id`. An operator's key;
    refused for a seamless operator (409 `seamless_operator`), above the balance limit (422
    `balance_limit_exceeded`), or with a `transfer_id` already used otherwise (422
    `transfer_id_reused`).

    Args:
        player_id (str):
        body (TransferCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TransferPublic
    """

    return (
        await asyncio_detailed(
            player_id=player_id,
            client=client,
            body=body,
        )
    ).parsed
