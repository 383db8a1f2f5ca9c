from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_type import MemoryType
from ..models.sensitivity import Sensitivity
from ..models.status import Status
from ..types import UNSET, Unset

T = TypeVar("T", bound="RedactedRecordOut")


@_attrs_define
class RedactedRecordOut:
    """Metadata only: the record is one sensitivity level above the caller's ceiling. As
    the original's redacted copy: id, type, sensitivity, confidence, salience, scope, tags
    and timestamps; no payload, provenance, relations, interpretation or audit log.

        Attributes:
            id (str):
            type_ (MemoryType):
            sensitivity (Sensitivity):
            confidence (float):
            salience (float):
            scope (None | str):
            tags (list[str]):
            status (Status):
            created_at (datetime.datetime):
            updated_at (datetime.datetime):
            redacted (bool | Unset):  Default: True.
    """

    id: str
    type_: MemoryType
    sensitivity: Sensitivity
    confidence: float
    salience: float
    scope: None | str
    tags: list[str]
    status: Status
    created_at: datetime.datetime
    updated_at: datetime.datetime
    redacted: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        type_ = self.type_.value

        sensitivity = self.sensitivity.value

        confidence = self.confidence

        salience = self.salience

        scope: None | str
        scope = self.scope

        tags = self.tags

        status = self.status.value

        created_at = self.created_at.isoformat()

        updated_at = self.updated_at.isoformat()

        redacted = self.redacted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "type": type_,
                "sensitivity": sensitivity,
                "confidence": confidence,
                "salience": salience,
                "scope": scope,
                "tags": tags,
                "status": status,
                "created_at": created_at,
                "updated_at": updated_at,
            }
        )
        if redacted is not UNSET:
            field_dict["redacted"] = redacted

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        type_ = MemoryType(d.pop("type"))

        sensitivity = Sensitivity(d.pop("sensitivity"))

        confidence = d.pop("confidence")

        salience = d.pop("salience")

        def _parse_scope(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        scope = _parse_scope(d.pop("scope"))

        tags = cast(list[str], d.pop("tags"))

        status = Status(d.pop("status"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        redacted = d.pop("redacted", UNSET)

        redacted_record_out = cls(
            id=id,
            type_=type_,
            sensitivity=sensitivity,
            confidence=confidence,
            salience=salience,
            scope=scope,
            tags=tags,
            status=status,
            created_at=created_at,
            updated_at=updated_at,
            redacted=redacted,
        )

        redacted_record_out.additional_properties = d
        return redacted_record_out

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
