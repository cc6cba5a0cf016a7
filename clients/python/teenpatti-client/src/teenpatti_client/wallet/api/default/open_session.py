from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.session_create import SessionCreate
from ...models.session_opened_public import SessionOpenedPublic
from ...types import Response


def _get_kwargs(
    *,
    body: SessionCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/sessions",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | SessionOpenedPublic | None:
    if response.status_code == 201:
        response_201 = SessionOpenedPublic.from_dict(response.json())

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
) -> Response[Problem | SessionOpenedPublic]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SessionCreate,
) -> Response[Problem | SessionOpenedPublic]:
    """Open Session

     Open a player session: one player, one currency, one table, one language, with the operator's
    own token for the player. Answers the launch URL to give the player's browser (a single-use
    ticket, no secret) and when the session expires. An operator's key.

    Args:
        body (SessionCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SessionOpenedPublic]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: SessionCreate,
) -> Problem | SessionOpenedPublic | None:
    """Open Session

     Open a player session: one player, one currency, one table, one language, with the operator's
    own token for the player. Answers the launch URL to give the player's browser (a single-use
    ticket, no secret) and when the session expires. An operator's key.

    Args:
        body (SessionCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SessionOpenedPublic
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SessionCreate,
) -> Response[Problem | SessionOpenedPublic]:
    """Open Session

     Open a player session: one player, one currency, one table, one language, with the operator's
    own token for the player. Answers the launch URL to give the player's browser (a single-use
    ticket, no secret) and when the session expires. An operator's key.

    Args:
        body (SessionCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SessionOpenedPublic]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SessionCreate,
) -> Problem | SessionOpenedPublic | None:
    """Open Session

     Open a player session: one player, one currency, one table, one language, with the operator's
    own token for the player. Answers the launch URL to give the player's browser (a single-use
    ticket, no secret) and when the session expires. An operator's key.

    Args:
        body (SessionCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SessionOpenedPublic
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
