from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.result_page import ResultPage
from ...types import UNSET, Response, Unset


def _get_kwargs(
    table_id: str,
    *,
    limit: int | Unset = 20,
    before: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_before: None | str | Unset
    if isinstance(before, Unset):
        json_before = UNSET
    else:
        json_before = before
    params["before"] = json_before

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/tables/{table_id}/results".format(
            table_id=quote(str(table_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | ResultPage | None:
    if response.status_code == 200:
        response_200 = ResultPage.from_dict(response.json())

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
) -> Response[Problem | ResultPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    table_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    before: None | str | Unset = UNSET,
) -> Response[Problem | ResultPage]:
    """Get Results

     The roadmap: the table's last rounds that ended, newest first; `before` (a page's
    `next`) for older ones.

    Args:
        table_id (str):
        limit (int | Unset):  Default: 20.
        before (None | str | Unset): The `next` of the page before (a round id of this table): the
            rounds older than it; left out for the newest.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ResultPage]
    """

    kwargs = _get_kwargs(
        table_id=table_id,
        limit=limit,
        before=before,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    table_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    before: None | str | Unset = UNSET,
) -> Problem | ResultPage | None:
    """Get Results

     The roadmap: the table's last rounds that ended, newest first; `before` (a page's
    `next`) for older ones.

    Args:
        table_id (str):
        limit (int | Unset):  Default: 20.
        before (None | str | Unset): The `next` of the page before (a round id of this table): the
            rounds older than it; left out for the newest.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ResultPage
    """

    return sync_detailed(
        table_id=table_id,
        client=client,
        limit=limit,
        before=before,
    ).parsed


async def asyncio_detailed(
    table_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    before: None | str | Unset = UNSET,
) -> Response[Problem | ResultPage]:
    """Get Results

     The roadmap: the table's last rounds that ended, newest first; `before` (a page's
    `next`) for older ones.

    Args:
        table_id (str):
        limit (int | Unset):  Default: 20.
        before (None | str | Unset): The `next` of the page before (a round id of this table): the
            rounds older than it; left out for the newest.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | ResultPage]
    """

    kwargs = _get_kwargs(
        table_id=table_id,
        limit=limit,
        before=before,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    table_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 20,
    before: None | str | Unset = UNSET,
) -> Problem | ResultPage | None:
    """Get Results

     The roadmap: the table's last rounds that ended, newest first; `before` (a page's
    `next`) for older ones.

    Args:
        table_id (str):
        limit (int | Unset):  Default: 20.
        before (None | str | Unset): The `next` of the page before (a round id of this table): the
            rounds older than it; left out for the newest.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | ResultPage
    """

    return (
        await asyncio_detailed(
            table_id=table_id,
            client=client,
            limit=limit,
            before=before,
        )
    ).parsed
