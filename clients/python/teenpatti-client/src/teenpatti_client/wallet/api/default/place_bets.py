from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.slip_create import SlipCreate
from ...models.slip_public import SlipPublic
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: SlipCreate,
    idempotency_key: None | str | Unset = UNSET,
    authorization: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    if not isinstance(authorization, Unset):
        headers["Authorization"] = authorization

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
    idempotency_key: None | str | Unset = UNSET,
    authorization: None | str | Unset = UNSET,
) -> Response[Problem | SlipPublic]:
    """Place Bets

    Args:
        idempotency_key (None | str | Unset):
        authorization (None | str | Unset):
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
        authorization=authorization,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: SlipCreate,
    idempotency_key: None | str | Unset = UNSET,
    authorization: None | str | Unset = UNSET,
) -> Problem | SlipPublic | None:
    """Place Bets

    Args:
        idempotency_key (None | str | Unset):
        authorization (None | str | Unset):
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
        authorization=authorization,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SlipCreate,
    idempotency_key: None | str | Unset = UNSET,
    authorization: None | str | Unset = UNSET,
) -> Response[Problem | SlipPublic]:
    """Place Bets

    Args:
        idempotency_key (None | str | Unset):
        authorization (None | str | Unset):
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
        authorization=authorization,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SlipCreate,
    idempotency_key: None | str | Unset = UNSET,
    authorization: None | str | Unset = UNSET,
) -> Problem | SlipPublic | None:
    """Place Bets

    Args:
        idempotency_key (None | str | Unset):
        authorization (None | str | Unset):
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
            authorization=authorization,
        )
    ).parsed
