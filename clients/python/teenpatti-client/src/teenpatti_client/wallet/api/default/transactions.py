from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.transaction_page_public import TransactionPagePublic
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    from_: None | str | Unset = UNSET,
    to: None | str | Unset = UNSET,
    round_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 100,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_from_: None | str | Unset
    if isinstance(from_, Unset):
        json_from_ = UNSET
    else:
        json_from_ = from_
    params["from"] = json_from_

    json_to: None | str | Unset
    if isinstance(to, Unset):
        json_to = UNSET
    else:
        json_to = to
    params["to"] = json_to

    json_round_id: None | str | Unset
    if isinstance(round_id, Unset):
        json_round_id = UNSET
    else:
        json_round_id = round_id
    params["round_id"] = json_round_id

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/transactions",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | TransactionPagePublic | None:
    if response.status_code == 200:
        response_200 = TransactionPagePublic.from_dict(response.json())

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
) -> Response[Problem | TransactionPagePublic]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    from_: None | str | Unset = UNSET,
    to: None | str | Unset = UNSET,
    round_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[Problem | TransactionPagePublic]:
    """Transactions

     Every money movement of the asking operator's players, oldest first, a page at a time:
    transfers, slips, payments, the calls to a seamless operator's wallet with their answers, and
    corrections (docs/operators.md, "Transactions and reconciliation"). An operator's key;
    refused: 400 `invalid_time`, `invalid_range`, `invalid_cursor`.

    Args:
        from_ (None | str | Unset): The first time, inclusive: ISO 8601 with its offset (`Z` or
            `+hh:mm`); left out: from the first movement.
        to (None | str | Unset): The time the range ends before, exclusive, in the same form; left
            out: to the last movement.
        round_id (None | str | Unset): Only this round's movements (no deposits or withdrawals).
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TransactionPagePublic]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        round_id=round_id,
        cursor=cursor,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    from_: None | str | Unset = UNSET,
    to: None | str | Unset = UNSET,
    round_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 100,
) -> Problem | TransactionPagePublic | None:
    """Transactions

     Every money movement of the asking operator's players, oldest first, a page at a time:
    transfers, slips, payments, the calls to a seamless operator's wallet with their answers, and
    corrections (docs/operators.md, "Transactions and reconciliation"). An operator's key;
    refused: 400 `invalid_time`, `invalid_range`, `invalid_cursor`.

    Args:
        from_ (None | str | Unset): The first time, inclusive: ISO 8601 with its offset (`Z` or
            `+hh:mm`); left out: from the first movement.
        to (None | str | Unset): The time the range ends before, exclusive, in the same form; left
            out: to the last movement.
        round_id (None | str | Unset): Only this round's movements (no deposits or withdrawals).
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TransactionPagePublic
    """

    return sync_detailed(
        client=client,
        from_=from_,
        to=to,
        round_id=round_id,
        cursor=cursor,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    from_: None | str | Unset = UNSET,
    to: None | str | Unset = UNSET,
    round_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[Problem | TransactionPagePublic]:
    """Transactions

     Every money movement of the asking operator's players, oldest first, a page at a time:
    transfers, slips, payments, the calls to a seamless operator's wallet with their answers, and
    corrections (docs/operators.md, "Transactions and reconciliation"). An operator's key;
    refused: 400 `invalid_time`, `invalid_range`, `invalid_cursor`.

    Args:
        from_ (None | str | Unset): The first time, inclusive: ISO 8601 with its offset (`Z` or
            `+hh:mm`); left out: from the first movement.
        to (None | str | Unset): The time the range ends before, exclusive, in the same form; left
            out: to the last movement.
        round_id (None | str | Unset): Only this round's movements (no deposits or withdrawals).
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | TransactionPagePublic]
    """

    kwargs = _get_kwargs(
        from_=from_,
        to=to,
        round_id=round_id,
        cursor=cursor,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    from_: None | str | Unset = UNSET,
    to: None | str | Unset = UNSET,
    round_id: None | str | Unset = UNSET,
    cursor: None | str | Unset = UNSET,
    limit: int | Unset = 100,
) -> Problem | TransactionPagePublic | None:
    """Transactions

     Every money movement of the asking operator's players, oldest first, a page at a time:
    transfers, slips, payments, the calls to a seamless operator's wallet with their answers, and
    corrections (docs/operators.md, "Transactions and reconciliation"). An operator's key;
    refused: 400 `invalid_time`, `invalid_range`, `invalid_cursor`.

    Args:
        from_ (None | str | Unset): The first time, inclusive: ISO 8601 with its offset (`Z` or
            `+hh:mm`); left out: from the first movement.
        to (None | str | Unset): The time the range ends before, exclusive, in the same form; left
            out: to the last movement.
        round_id (None | str | Unset): Only this round's movements (no deposits or withdrawals).
        cursor (None | str | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | TransactionPagePublic
    """

    return (
        await asyncio_detailed(
            client=client,
            from_=from_,
            to=to,
            round_id=round_id,
            cursor=cursor,
            limit=limit,
        )
    ).parsed
