from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.audit_line_details import AuditLineDetails


T = TypeVar("T", bound="AuditLine")


@_attrs_define
class AuditLine:
    """An audit entry (entries outlive their records: the trail of a deleted record).

    Attributes:
        record_id (str): A record id: a lowercase UUID, as the service issues them.
        action (str):
        actor (str):
        timestamp (float): UNIX epoch seconds, as stored.
        kind (Literal['audit'] | Unset):  Default: 'audit'.
        id (int | None | Unset):
        rationale (None | str | Unset):
        details (AuditLineDetails | Unset):
    """

    record_id: str
    action: str
    actor: str
    timestamp: float
    kind: Literal["audit"] | Unset = "audit"
    id: int | None | Unset = UNSET
    rationale: None | str | Unset = UNSET
    details: AuditLineDetails | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.audit_line_details import AuditLineDetails  # noqa: PLC0415

        record_id = self.record_id

        action = self.action

        actor = self.actor

        timestamp = self.timestamp

        kind = self.kind

        id: int | None | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        rationale: None | str | Unset
        if isinstance(self.rationale, Unset):
            rationale = UNSET
        else:
            rationale = self.rationale

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "record_id": record_id,
                "action": action,
                "actor": actor,
                "timestamp": timestamp,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if id is not UNSET:
            field_dict["id"] = id
        if rationale is not UNSET:
            field_dict["rationale"] = rationale
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.audit_line_details import AuditLineDetails  # noqa: PLC0415

        d = dict(src_dict)
        record_id = d.pop("record_id")

        action = d.pop("action")

        actor = d.pop("actor")

        timestamp = d.pop("timestamp")

        kind = cast(Literal["audit"] | Unset, d.pop("kind", UNSET))
        if kind != "audit" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'audit', got '{kind}'")

        def _parse_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_rationale(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rationale = _parse_rationale(d.pop("rationale", UNSET))

        _details = d.pop("details", UNSET)
        details: AuditLineDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = AuditLineDetails.from_dict(_details)

        audit_line = cls(
            record_id=record_id,
            action=action,
            actor=actor,
            timestamp=timestamp,
            kind=kind,
            id=id,
            rationale=rationale,
            details=details,
        )

        return audit_line
