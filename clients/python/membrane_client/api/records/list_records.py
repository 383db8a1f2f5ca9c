import datetime
from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.memory_type import MemoryType
from ...models.problem import Problem
from ...models.record_page import RecordPage
from ...models.sensitivity import Sensitivity
from ...models.status import Status
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    type_: list[MemoryType] | Unset = UNSET,
    scope: list[str] | Unset = UNSET,
    tag: list[str] | Unset = UNSET,
    sensitivity: list[Sensitivity] | Unset = UNSET,
    status: list[Status] | Unset = UNSET,
    min_salience: float | Unset = UNSET,
    max_salience: float | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
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

    params: dict[str, Any] = {}

    json_type_: list[str] | Unset = UNSET
    if not isinstance(type_, Unset):
        json_type_ = []
        for type_item_data in type_:
            type_item = type_item_data.value
            json_type_.append(type_item)

    params["type"] = json_type_

    json_scope: list[str] | Unset = UNSET
    if not isinstance(scope, Unset):
        json_scope = scope

    params["scope"] = json_scope

    json_tag: list[str] | Unset = UNSET
    if not isinstance(tag, Unset):
        json_tag = tag

    params["tag"] = json_tag

    json_sensitivity: list[str] | Unset = UNSET
    if not isinstance(sensitivity, Unset):
        json_sensitivity = []
        for sensitivity_item_data in sensitivity:
            sensitivity_item = sensitivity_item_data.value
            json_sensitivity.append(sensitivity_item)

    params["sensitivity"] = json_sensitivity

    json_status: list[str] | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = []
        for status_item_data in status:
            status_item = status_item_data.value
            json_status.append(status_item)

    params["status"] = json_status

    params["min_salience"] = min_salience

    params["max_salience"] = max_salience

    json_created_after: str | Unset = UNSET
    if not isinstance(created_after, Unset):
        json_created_after = created_after.isoformat()
    params["created_after"] = json_created_after

    json_created_before: str | Unset = UNSET
    if not isinstance(created_before, Unset):
        json_created_before = created_before.isoformat()
    params["created_before"] = json_created_before

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v1/records",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | RecordPage | None:
    if response.status_code == 200:
        response_200 = RecordPage.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Problem.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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
) -> Response[Problem | RecordPage]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    type_: list[MemoryType] | Unset = UNSET,
    scope: list[str] | Unset = UNSET,
    tag: list[str] | Unset = UNSET,
    sensitivity: list[Sensitivity] | Unset = UNSET,
    status: list[Status] | Unset = UNSET,
    min_salience: float | Unset = UNSET,
    max_salience: float | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Response[Problem | RecordPage]:
    """List records, newest first, with cursor pagination

    Args:
        type_ (list[MemoryType] | Unset):
        scope (list[str] | Unset):
        tag (list[str] | Unset): Records carrying ALL these tags.
        sensitivity (list[Sensitivity] | Unset):
        status (list[Status] | Unset):
        min_salience (float | Unset):
        max_salience (float | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset):
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
        Response[Problem | RecordPage]
    """

    kwargs = _get_kwargs(
        type_=type_,
        scope=scope,
        tag=tag,
        sensitivity=sensitivity,
        status=status,
        min_salience=min_salience,
        max_salience=max_salience,
        created_after=created_after,
        created_before=created_before,
        limit=limit,
        cursor=cursor,
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
    *,
    client: AuthenticatedClient,
    type_: list[MemoryType] | Unset = UNSET,
    scope: list[str] | Unset = UNSET,
    tag: list[str] | Unset = UNSET,
    sensitivity: list[Sensitivity] | Unset = UNSET,
    status: list[Status] | Unset = UNSET,
    min_salience: float | Unset = UNSET,
    max_salience: float | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Problem | RecordPage | None:
    """List records, newest first, with cursor pagination

    Args:
        type_ (list[MemoryType] | Unset):
        scope (list[str] | Unset):
        tag (list[str] | Unset): Records carrying ALL these tags.
        sensitivity (list[Sensitivity] | Unset):
        status (list[Status] | Unset):
        min_salience (float | Unset):
        max_salience (float | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset):
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
        Problem | RecordPage
    """

    return sync_detailed(
        client=client,
        type_=type_,
        scope=scope,
        tag=tag,
        sensitivity=sensitivity,
        status=status,
        min_salience=min_salience,
        max_salience=max_salience,
        created_after=created_after,
        created_before=created_before,
        limit=limit,
        cursor=cursor,
        membrane_consistency_token=membrane_consistency_token,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        x_request_id=x_request_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    type_: list[MemoryType] | Unset = UNSET,
    scope: list[str] | Unset = UNSET,
    tag: list[str] | Unset = UNSET,
    sensitivity: list[Sensitivity] | Unset = UNSET,
    status: list[Status] | Unset = UNSET,
    min_salience: float | Unset = UNSET,
    max_salience: float | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Response[Problem | RecordPage]:
    """List records, newest first, with cursor pagination

    Args:
        type_ (list[MemoryType] | Unset):
        scope (list[str] | Unset):
        tag (list[str] | Unset): Records carrying ALL these tags.
        sensitivity (list[Sensitivity] | Unset):
        status (list[Status] | Unset):
        min_salience (float | Unset):
        max_salience (float | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset):
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
        Response[Problem | RecordPage]
    """

    kwargs = _get_kwargs(
        type_=type_,
        scope=scope,
        tag=tag,
        sensitivity=sensitivity,
        status=status,
        min_salience=min_salience,
        max_salience=max_salience,
        created_after=created_after,
        created_before=created_before,
        limit=limit,
        cursor=cursor,
        membrane_consistency_token=membrane_consistency_token,
        x_membrane_max_sensitivity=x_membrane_max_sensitivity,
        x_membrane_scopes=x_membrane_scopes,
        x_request_id=x_request_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    type_: list[MemoryType] | Unset = UNSET,
    scope: list[str] | Unset = UNSET,
    tag: list[str] | Unset = UNSET,
    sensitivity: list[Sensitivity] | Unset = UNSET,
    status: list[Status] | Unset = UNSET,
    min_salience: float | Unset = UNSET,
    max_salience: float | Unset = UNSET,
    created_after: datetime.datetime | Unset = UNSET,
    created_before: datetime.datetime | Unset = UNSET,
    limit: int | Unset = 50,
    cursor: str | Unset = UNSET,
    membrane_consistency_token: str | Unset = UNSET,
    x_membrane_max_sensitivity: Sensitivity | Unset = UNSET,
    x_membrane_scopes: str | Unset = UNSET,
    x_request_id: str | Unset = UNSET,
) -> Problem | RecordPage | None:
    """List records, newest first, with cursor pagination

    Args:
        type_ (list[MemoryType] | Unset):
        scope (list[str] | Unset):
        tag (list[str] | Unset): Records carrying ALL these tags.
        sensitivity (list[Sensitivity] | Unset):
        status (list[Status] | Unset):
        min_salience (float | Unset):
        max_salience (float | Unset):
        created_after (datetime.datetime | Unset):
        created_before (datetime.datetime | Unset):
        limit (int | Unset):  Default: 50.
        cursor (str | Unset):
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
        Problem | RecordPage
    """

    return (
        await asyncio_detailed(
            client=client,
            type_=type_,
            scope=scope,
            tag=tag,
            sensitivity=sensitivity,
            status=status,
            min_salience=min_salience,
            max_salience=max_salience,
            created_after=created_after,
            created_before=created_before,
            limit=limit,
            cursor=cursor,
            membrane_consistency_token=membrane_consistency_token,
            x_membrane_max_sensitivity=x_membrane_max_sensitivity,
            x_membrane_scopes=x_membrane_scopes,
            x_request_id=x_request_id,
        )
    ).parsed
