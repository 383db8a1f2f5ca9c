from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audit_entry_out_details import AuditEntryOutDetails


T = TypeVar("T", bound="AuditEntryOut")


@_attrs_define
class AuditEntryOut:
    """
    Attributes:
        id (int):
        record_id (str):
        action (str):
        actor (str):
        timestamp (datetime.datetime):
        rationale (None | str | Unset):
        details (AuditEntryOutDetails | Unset):
    """

    id: int
    record_id: str
    action: str
    actor: str
    timestamp: datetime.datetime
    rationale: None | str | Unset = UNSET
    details: AuditEntryOutDetails | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_entry_out_details import AuditEntryOutDetails  # noqa: PLC0415

        id = self.id

        record_id = self.record_id

        action = self.action

        actor = self.actor

        timestamp = self.timestamp.isoformat()

        rationale: None | str | Unset
        if isinstance(self.rationale, Unset):
            rationale = UNSET
        else:
            rationale = self.rationale

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "record_id": record_id,
                "action": action,
                "actor": actor,
                "timestamp": timestamp,
            }
        )
        if rationale is not UNSET:
            field_dict["rationale"] = rationale
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_entry_out_details import AuditEntryOutDetails  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        record_id = d.pop("record_id")

        action = d.pop("action")

        actor = d.pop("actor")

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        def _parse_rationale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rationale = _parse_rationale(d.pop("rationale", UNSET))

        _details = d.pop("details", UNSET)
        details: AuditEntryOutDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = AuditEntryOutDetails.from_dict(_details)

        audit_entry_out = cls(
            id=id,
            record_id=record_id,
            action=action,
            actor=actor,
            timestamp=timestamp,
            rationale=rationale,
            details=details,
        )

        audit_entry_out.additional_properties = d
        return audit_entry_out

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
