from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.relations_out import RelationsOut
from ...models.sensitivity import Sensitivity
from ...types import UNSET, Response, Unset


def _get_kwargs(
    record_id: str,
    *,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(membrane_consistency_token, Unset):
        headers["Membrane-Consistency-Token"] = membrane_consistency_token

    if not isinstance(x_membrane_max_sensitivity, Unset):
        headers["X-Membrane-Max-Sensitivity"] = str(x_membrane_max_sensitivity)

    if not isinstance(x_membrane_scopes, Unset):
        headers["X-Membrane-Scopes"] = x_membrane_scopes

    if not isinstance(x_request_id, Unset):
        headers["X-Request-ID"] = x_request_id

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/records/{record_id}/relations".format(
            record_id=quote(str(record_id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Problem | RelationsOut | str | None:
    if response.status_code == 200:
        response_200 = RelationsOut.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = response.text
        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | RelationsOut | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    record_id: str,
    *,
    client: AuthenticatedClient,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Response[Problem | RelationsOut | str]:
    """Edges of a record in both directions

    Args:
        record_id (str):
        membrane_consistency_token (str | Unset): The token a write answered with: with read
            replicas, this read is served by one that has replayed that write, else by the primary.
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RelationsOut | str]
    """

    kwargs = _get_kwargs(
        record_id=record_id,
        membrane_consistency_token=membrane_consistency_token,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        x_request_id=x_request_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    record_id: str,
    *,
    client: AuthenticatedClient,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Problem | RelationsOut | str | None:
    """Edges of a record in both directions

    Args:
        record_id (str):
        membrane_consistency_token (str | Unset): The token a write answered with: with read
            replicas, this read is served by one that has replayed that write, else by the primary.
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RelationsOut | str
    """

    return sync_detailed(
        record_id=record_id,
        client=client,
        membrane_consistency_token=membrane_consistency_token,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    record_id: str,
    *,
    client: AuthenticatedClient,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Response[Problem | RelationsOut | str]:
    """Edges of a record in both directions

    Args:
        record_id (str):
        membrane_consistency_token (str | Unset): The token a write answered with: with read
            replicas, this read is served by one that has replayed that write, else by the primary.
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | RelationsOut | str]
    """

    kwargs = _get_kwargs(
        record_id=record_id,
        membrane_consistency_token=membrane_consistency_token,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        x_request_id=x_request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    record_id: str,
    *,
    client: AuthenticatedClient,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Problem | RelationsOut | str | None:
    """Edges of a record in both directions

    Args:
        record_id (str):
        membrane_consistency_token (str | Unset): The token a write answered with: with read
            replicas, this read is served by one that has replayed that write, else by the primary.
        x_membrane_max_sensitivity (Sensitivity | Unset):
        x_membrane_scopes (str | Unset): Comma-separated scopes to narrow this request to (never
            widens).
        x_request_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | RelationsOut | str
    """

    return (
        await asyncio_detailed(
            record_id=record_id,
            client=client,
            membrane_consistency_token=membrane_consistency_token,
            x_membrane_max_sensitivity=x_membrane_max_sensitivity,
            x_membrane_scopes=x_membrane_scopes,
            x_request_id=x_request_id,
        )
    ).parsed
