from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ReplicaStatus")


@_attrs_define
class ReplicaStatus:
    """A read replica as its last check found it (app/replicas.py).

    Attributes:
        name (str):
        healthy (bool):
        lag_s (float | None):
        replayed (None | str):
        reads (int):
        error (None | str):
    """

    name: str
    healthy: bool
    lag_s: float | None
    replayed: None | str
    reads: int
    error: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        healthy = self.healthy

        lag_s: float | None
        lag_s = self.lag_s

        replayed: None | str
        replayed = self.replayed

        reads = self.reads

        error: None | str
        error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "healthy": healthy,
                "lag_s": lag_s,
                "replayed": replayed,
                "reads": reads,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        healthy = d.pop("healthy")

        def _parse_lag_s(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        lag_s = _parse_lag_s(d.pop("lag_s"))

        def _parse_replayed(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        replayed = _parse_replayed(d.pop("replayed"))

        reads = d.pop("reads")

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        replica_status = cls(
            name=name,
            healthy=healthy,
            lag_s=lag_s,
            replayed=replayed,
            reads=reads,
            error=error,
        )

        replica_status.additional_properties = d
        return replica_status

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
