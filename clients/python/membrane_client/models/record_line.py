from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.deletion_policy import DeletionPolicy
from ..models.memory_type import MemoryType
from ..models.sensitivity import Sensitivity
from ..models.status import Status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.record_line_interpretation import RecordLineInterpretation
    from ..models.record_line_payload import RecordLinePayload
    from ..models.record_line_provenance import RecordLineProvenance
    from ..models.salience_state import SalienceState


T = TypeVar("T", bound="RecordLine")


@_attrs_define
class RecordLine:
    """A record with every stored column (its tags rows follow from `tags`).

    Attributes:
        id (str): A record id: a lowercase UUID, as the service issues them.
        type_ (MemoryType):
        status (Status):
        sensitivity (Sensitivity):
        confidence (float):
        scope (None | str):
        tags (list[str]):
        created_at (float): UNIX epoch seconds, as stored.
        updated_at (float): UNIX epoch seconds, as stored.
        created_by (str):
        deletion_policy (DeletionPolicy):
        salience (SalienceState): The decay state: current salience = f(base, t0, curve, half-life, floor, pinned, now).
        provenance (RecordLineProvenance):
        interpretation (RecordLineInterpretation):
        payload (RecordLinePayload):
        kind (Literal['record'] | Unset):  Default: 'record'.
        search_text (None | str | Unset): The text the record is searched by; computed from the payload when absent.
    """

    id: str
    type_: MemoryType
    status: Status
    sensitivity: Sensitivity
    confidence: float
    scope: None | str
    tags: list[str]
    created_at: float
    updated_at: float
    created_by: str
    deletion_policy: DeletionPolicy
    salience: SalienceState
    provenance: RecordLineProvenance
    interpretation: RecordLineInterpretation
    payload: RecordLinePayload
    kind: Literal["record"] | Unset = "record"
    search_text: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.record_line_interpretation import RecordLineInterpretation  # noqa: PLC0415
        from ..models.record_line_payload import RecordLinePayload  # noqa: PLC0415
        from ..models.record_line_provenance import RecordLineProvenance  # noqa: PLC0415
        from ..models.salience_state import SalienceState  # noqa: PLC0415

        id = self.id

        type_ = self.type_.value

        status = self.status.value

        sensitivity = self.sensitivity.value

        confidence = self.confidence

        scope: None | str
        scope = self.scope

        tags = self.tags

        created_at = self.created_at

        updated_at = self.updated_at

        created_by = self.created_by

        deletion_policy = self.deletion_policy.value

        salience = self.salience.to_dict()

        provenance = self.provenance.to_dict()

        interpretation = self.interpretation.to_dict()

        payload = self.payload.to_dict()

        kind = self.kind

        search_text: None | str | Unset
        if isinstance(self.search_text, Unset):
            search_text = UNSET
        else:
            search_text = self.search_text

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "type": type_,
                "status": status,
                "sensitivity": sensitivity,
                "confidence": confidence,
                "scope": scope,
                "tags": tags,
                "created_at": created_at,
                "updated_at": updated_at,
                "created_by": created_by,
                "deletion_policy": deletion_policy,
                "salience": salience,
                "provenance": provenance,
                "interpretation": interpretation,
                "payload": payload,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind
        if search_text is not UNSET:
            field_dict["search_text"] = search_text

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.record_line_interpretation import RecordLineInterpretation  # noqa: PLC0415
        from ..models.record_line_payload import RecordLinePayload  # noqa: PLC0415
        from ..models.record_line_provenance import RecordLineProvenance  # noqa: PLC0415
        from ..models.salience_state import SalienceState  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = MemoryType(d.pop("type"))

        status = Status(d.pop("status"))

        sensitivity = Sensitivity(d.pop("sensitivity"))

        confidence = d.pop("confidence")

        def _parse_scope(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        scope = _parse_scope(d.pop("scope"))

        tags = cast(list[str], d.pop("tags"))

        created_at = d.pop("created_at")

        updated_at = d.pop("updated_at")

        created_by = d.pop("created_by")

        deletion_policy = DeletionPolicy(d.pop("deletion_policy"))

        salience = SalienceState.from_dict(d.pop("salience"))

        provenance = RecordLineProvenance.from_dict(d.pop("provenance"))

        interpretation = RecordLineInterpretation.from_dict(d.pop("interpretation"))

        payload = RecordLinePayload.from_dict(d.pop("payload"))

        kind = cast(Literal["record"] | Unset, d.pop("kind", UNSET))
        if kind != "record" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'record', got '{kind}'")

        def _parse_search_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        search_text = _parse_search_text(d.pop("search_text", UNSET))

        record_line = cls(
            id=id,
            type_=type_,
            status=status,
            sensitivity=sensitivity,
            confidence=confidence,
            scope=scope,
            tags=tags,
            created_at=created_at,
            updated_at=updated_at,
            created_by=created_by,
            deletion_policy=deletion_policy,
            salience=salience,
            provenance=provenance,
            interpretation=interpretation,
            payload=payload,
            kind=kind,
            search_text=search_text,
        )

        return record_line
