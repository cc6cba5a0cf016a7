from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.daily_report_public import DailyReportPublic
from ...models.problem import Problem
from ...types import UNSET, Response


def _get_kwargs(
    *,
    date: str,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["date"] = date

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/reports/daily",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DailyReportPublic | Problem | None:
    if response.status_code == 200:
        response_200 = DailyReportPublic.from_dict(response.json())

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
) -> Response[DailyReportPublic | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    date: str,
) -> Response[DailyReportPublic | Problem]:
    """Daily

     The bets settled on one UTC day, per currency: stakes, returns, GGR, the refunds of void
    rounds and the day's corrections. An operator's key, its own players only; a date that is not
    one: 400 `invalid_date`.

    Args:
        date (str): The UTC day, ISO 8601: `YYYY-MM-DD`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DailyReportPublic | Problem]
    """

    kwargs = _get_kwargs(
        date=date,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    date: str,
) -> DailyReportPublic | Problem | None:
    """Daily

     The bets settled on one UTC day, per currency: stakes, returns, GGR, the refunds of void
    rounds and the day's corrections. An operator's key, its own players only; a date that is not
    one: 400 `invalid_date`.

    Args:
        date (str): The UTC day, ISO 8601: `YYYY-MM-DD`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DailyReportPublic | Problem
    """

    return sync_detailed(
        client=client,
        date=date,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    date: str,
) -> Response[DailyReportPublic | Problem]:
    """Daily

     The bets settled on one UTC day, per currency: stakes, returns, GGR, the refunds of void
    rounds and the day's corrections. An operator's key, its own players only; a date that is not
    one: 400 `invalid_date`.

    Args:
        date (str): The UTC day, ISO 8601: `YYYY-MM-DD`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DailyReportPublic | Problem]
    """

    kwargs = _get_kwargs(
        date=date,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    date: str,
) -> DailyReportPublic | Problem | None:
    """Daily

     The bets settled on one UTC day, per currency: stakes, returns, GGR, the refunds of void
    rounds and the day's corrections. An operator's key, its own players only; a date that is not
    one: 400 `invalid_date`.

    Args:
        date (str): The UTC day, ISO 8601: `YYYY-MM-DD`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DailyReportPublic | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            date=date,
        )
    ).parsed
