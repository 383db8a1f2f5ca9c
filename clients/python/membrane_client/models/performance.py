from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Performance")


@_attrs_define
class Performance:
    """
    Attributes:
        success_count (int | Unset):  Default: 0.
        failure_count (int | Unset):  Default: 0.
        success_rate (float | Unset):  Default: 0.0.
        avg_latency_ms (float | Unset):  Default: 0.0.
        last_used_at (datetime.datetime | None | Unset):
    """

    success_count: int | Unset = 0
    failure_count: int | Unset = 0
    success_rate: float | Unset = 0.0
    avg_latency_ms: float | Unset = 0.0
    last_used_at: datetime.datetime | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        success_count = self.success_count

        failure_count = self.failure_count

        success_rate = self.success_rate

        avg_latency_ms = self.avg_latency_ms

        last_used_at: None | str | Unset
        if isinstance(self.last_used_at, Unset):
            last_used_at = UNSET
        elif isinstance(self.last_used_at, datetime.datetime):
            last_used_at = self.last_used_at.isoformat()
        else:
            last_used_at = self.last_used_at

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if success_count is not UNSET:
            field_dict["success_count"] = success_count
        if failure_count is not UNSET:
            field_dict["failure_count"] = failure_count
        if success_rate is not UNSET:
            field_dict["success_rate"] = success_rate
        if avg_latency_ms is not UNSET:
            field_dict["avg_latency_ms"] = avg_latency_ms
        if last_used_at is not UNSET:
            field_dict["last_used_at"] = last_used_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        success_count = d.pop("success_count", UNSET)

        failure_count = d.pop("failure_count", UNSET)

        success_rate = d.pop("success_rate", UNSET)

        avg_latency_ms = d.pop("avg_latency_ms", UNSET)

        def _parse_last_used_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                last_used_at_type_0 = datetime.datetime.fromisoformat(data)

                return last_used_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        last_used_at = _parse_last_used_at(d.pop("last_used_at", UNSET))

        performance = cls(
            success_count=success_count,
            failure_count=failure_count,
            success_rate=success_rate,
            avg_latency_ms=avg_latency_ms,
            last_used_at=last_used_at,
        )

        return performance
